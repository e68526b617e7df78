/**
 * A request that switches parallel tool calls off (chat and Responses `parallel_tool_calls: false`,
 * Anthropic `tool_choice.disable_parallel_tool_use: true`) gets at most one call per reply. A
 * further call is handled like a call to a tool the request does not offer: it never runs, and the
 * reply's summary names it "extra-call". Each case has its hard negative beside it: parallel calls
 * on, or not mentioned, still give both calls. Streams are checked whole, with one-character
 * deltas read byte by byte, and at seeded random byte cuts.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { block, live } from "../golden/notation.ts";
import type { LanguageModelV3Prompt, LanguageModelV3StreamPart, SharedV3ProviderOptions } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { type SdkRun, deltas, sdkTools, sseText, textStream, throughMiddleware } from "../security/support.ts";
import {
  JSON_HEADERS,
  namedSse,
  type Json,
  type ResponsesItems,
  anthropicTextStream,
  byteByByte,
  chunkedFetch,
  dataEvents,
  encode,
  postInit,
  responsesItemsStream,
  responsesMessages,
  seededCuts,
} from "./wire-support.ts";

const READ = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const TWO = live(block("tool_calls", [["read", [["path", "a.ts"]]], ["read", [["path", "b.ts"]]]]));
const leak = (path: string) => live(block("tool_calls", [["read", [["path", path]]]]));
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

/** One wire as a client speaks it: the request, the server's reply (JSON or streamed), and the paths of the calls a client reads back. */
interface WireCase {
  url: string;
  request(stream: boolean, parallel: Json): Json;
  json(text: string): Json;
  sse(text: string, deltaSize: number): string;
  callsInJson(body: Json): string[];
  callsInStream(text: string): string[];
}

const pathOf = (args: unknown) => (JSON.parse(typeof args === "string" ? args : JSON.stringify(args)) as { path: string }).path;

const CHAT: WireCase = {
  url: "http://model.test/v1/chat/completions",
  request: (stream, parallel) => ({ model: "m", stream, messages: [{ role: "user", content: "read a.ts and b.ts" }], tools: [{ type: "function", function: { name: "read", parameters: READ } }], ...parallel }),
  json: (text) => ({ id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] }),
  sse: (text, size) => sseText(deltas(text, size)),
  callsInJson: (body) => (body.choices[0].message.tool_calls ?? []).map((c: Json) => pathOf(c.function.arguments)),
  callsInStream: (text) => {
    const calls: string[] = [];
    for (const event of dataEvents(text)) for (const c of event.choices?.[0]?.delta?.tool_calls ?? []) calls[c.index] = (calls[c.index] ?? "") + (c.function?.arguments ?? "");
    return calls.map(pathOf);
  },
};

const MESSAGES: WireCase = {
  url: "http://model.test/v1/messages",
  request: (stream, parallel) => ({ model: "m", max_tokens: 10, stream, messages: [{ role: "user", content: "read a.ts and b.ts" }], tools: [{ name: "read", input_schema: READ }], ...parallel }),
  json: (text) => ({ id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: "end_turn" }),
  sse: anthropicTextStream,
  callsInJson: (body) => body.content.filter((b: Json) => b.type === "tool_use").map((b: Json) => b.input.path),
  callsInStream: (text) => {
    const calls = new Map<number, string>();
    for (const event of dataEvents(text)) {
      if (event.type === "content_block_start" && event.content_block.type === "tool_use") calls.set(event.index, "");
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") calls.set(event.index, calls.get(event.index)! + event.delta.partial_json);
    }
    return [...calls.values()].map(pathOf);
  },
};

const responsesCalls = (output: Json[]) => output.filter((i) => i.type === "function_call").map((i) => pathOf(i.arguments));

const RESPONSES: WireCase = {
  url: "http://model.test/v1/responses",
  request: (stream, parallel) => ({ model: "m", stream, input: "read a.ts and b.ts", tools: [{ type: "function", name: "read", parameters: READ }], ...parallel }),
  json: (text) => ({ id: "resp_1", object: "response", status: "completed", model: "m", output: responsesMessages([{ id: "msg_1", parts: [text] }]) }),
  sse: (text, size) => responsesItemsStream([{ id: "msg_1", parts: [text] }], size),
  callsInJson: (body) => responsesCalls(body.output),
  callsInStream: (text) => responsesCalls(dataEvents(text).filter((e) => e.type === "response.output_item.done").map((e) => e.item)),
};

/** Off, then the negatives: switched on, and not mentioned. */
const SWITCHES = {
  chat: { off: { parallel_tool_calls: false }, on: [{ parallel_tool_calls: true }, {}] },
  messages: { off: { tool_choice: { type: "auto", disable_parallel_tool_use: true } }, on: [{ tool_choice: { type: "auto", disable_parallel_tool_use: false } }, {}] },
  responses: { off: { parallel_tool_calls: false }, on: [{ parallel_tool_calls: true }, {}] },
};
const WIRES = { chat: CHAT, messages: MESSAGES, responses: RESPONSES };

async function post(wire: WireCase, parallel: Json, stream: boolean, upstream: typeof fetch, results: AdapterResult[] = []): Promise<string> {
  const res = await repairFetch({ onResult: (r) => results.push(r) }, upstream)(wire.url, postInit(wire.request(stream, parallel)));
  return res.text();
}

async function jsonCalls(wire: WireCase, parallel: Json, text: string, results?: AdapterResult[]): Promise<string[]> {
  const body = await post(wire, parallel, false, chunkedFetch([encode(JSON.stringify(wire.json(text)))], JSON_HEADERS), results);
  return wire.callsInJson(JSON.parse(body));
}

/** The calls of every run: whole, one-character deltas byte by byte, seeded random byte cuts. */
async function streamCalls(wire: WireCase, parallel: Json, text: string): Promise<string[][]> {
  const run = async (chunks: Uint8Array[]) => wire.callsInStream(await post(wire, parallel, true, chunkedFetch(chunks)));
  const runs = [await run([encode(wire.sse(text, 1000))]), await run(byteByByte(encode(wire.sse(text, 1))))];
  for (const seed of SEEDS) runs.push(await run(seededCuts(encode(wire.sse(text, 1 + (seed % 5))), seed)));
  return runs;
}

describe("parallel tool calls switched off: one call per reply", () => {
  for (const [name, wire] of Object.entries(WIRES)) {
    const { off, on } = SWITCHES[name as keyof typeof SWITCHES];

    test(`${name} JSON: a block of two invokes gives the first call only; parallel on or not mentioned, both`, async () => {
      const results: AdapterResult[] = [];
      expect(await jsonCalls(wire, off, TWO, results)).toEqual(["a.ts"]);
      expect(results.map((r) => [r.summary.recovered, r.summary.nudge])).toEqual([[1, "extra-call"]]);
      for (const parallel of on) expect(await jsonCalls(wire, parallel, TWO)).toEqual(["a.ts", "b.ts"]);
    });

    test(`${name} stream: two leaked blocks with prose between give the first call only, at every split; parallel on or not mentioned, both`, async () => {
      const text = `First:\n${leak("a.ts")}\nThen:\n${leak("b.ts")}\n`;
      for (const calls of await streamCalls(wire, off, text)) expect(calls).toEqual(["a.ts"]);
      for (const parallel of on) for (const calls of await streamCalls(wire, parallel, text)) expect(calls).toEqual(["a.ts", "b.ts"]);
    });
  }

  test("a switch value not understood reads as off (fail closed); null reads as on", async () => {
    for (const value of ["false", 0, "no"]) expect(await jsonCalls(CHAT, { parallel_tool_calls: value }, TWO)).toEqual(["a.ts"]);
    expect(await jsonCalls(RESPONSES, { parallel_tool_calls: "false" }, TWO)).toEqual(["a.ts"]);
    expect(await jsonCalls(MESSAGES, { tool_choice: { type: "any", disable_parallel_tool_use: "yes" } }, TWO)).toEqual(["a.ts"]);
    expect(await jsonCalls(CHAT, { parallel_tool_calls: null }, TWO)).toEqual(["a.ts", "b.ts"]);
  });

  test("chat JSON: a native call is the reply's one call; after a recovered call, the next invoke's markup is that call's tail, as for a tool the request does not allow", async () => {
    // The reply's native call is its one call: every leak is a duplicate, stripped as before.
    const native = { id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"n.ts"}' } };
    const withNative = await post(CHAT, { parallel_tool_calls: false }, false, chunkedFetch([encode(JSON.stringify({ ...CHAT.json(TWO), choices: [{ index: 0, message: { role: "assistant", content: TWO, tool_calls: [native] }, finish_reason: "tool_calls" }] }))], JSON_HEADERS));
    expect(CHAT.callsInJson(JSON.parse(withNative))).toEqual(["n.ts"]);
    // Without it, the first call runs and the second invoke's markup, after it in the same block, is held as its tail like any call the request does not allow.
    const body = JSON.parse(await post(CHAT, { parallel_tool_calls: false }, false, chunkedFetch([encode(JSON.stringify(CHAT.json(`Reading.\n${TWO}`)))], JSON_HEADERS)));
    expect(CHAT.callsInJson(body)).toEqual(["a.ts"]);
    expect(body.choices[0].message.content).toBe("Reading.\n");
  });
});

describe("Responses: the one call counts across output_text parts and message items", () => {
  // Changed by fix 55: a DSML block closed right at a part's end is pending there (the run after its
  // call reads on past its closer for a write's stray closer, A46.6), so the first part's block has
  // a prose line after it inside the part, which decides it there.
  const split: Record<string, ResponsesItems> = {
    parts: [{ id: "msg_1", parts: [`First:\n${leak("a.ts")}\nOK.\n`, `Then:\n${leak("b.ts")}\n`] }],
    items: [
      { id: "msg_1", parts: [`First:\n${leak("a.ts")}\nOK.\n`] },
      { id: "msg_2", parts: [`Then:\n${leak("b.ts")}\n`] },
    ],
  };
  const json = async (items: ResponsesItems, parallel: Json) =>
    JSON.parse(await post(RESPONSES, parallel, false, chunkedFetch([encode(JSON.stringify({ id: "resp_1", object: "response", status: "completed", model: "m", output: responsesMessages(items) }))], JSON_HEADERS))) as Json;

  for (const [name, items] of Object.entries(split)) {
    test(`${name}, JSON: the later part reads as the one text does (its leak never runs); parallel on, both run`, async () => {
      const off = await json(items, { parallel_tool_calls: false });
      expect(RESPONSES.callsInJson(off)).toEqual(["a.ts"]);
      const texts = (body: Json) => body.output.filter((i: Json) => i.type === "message").flatMap((i: Json) => i.content.map((p: Json) => p.text)).join("");
      // Everything after the one call, the extra leak with it, is after the reply's last call: stripped at its end (S03), as in one part.
      const whole = await json([{ id: "msg_1", parts: [items.flatMap((i) => i.parts).join("")] }], { parallel_tool_calls: false });
      expect(texts(whole)).toBe("First:\n");
      expect(texts(off)).toBe(texts(whole));
      expect(RESPONSES.callsInJson(await json(items, {}))).toEqual(["a.ts", "b.ts"]);
    });

    test(`${name}, stream: one call at every split; parallel on, both`, async () => {
      const run = async (parallel: Json, chunks: Uint8Array[]) => RESPONSES.callsInStream(await post(RESPONSES, parallel, true, chunkedFetch(chunks)));
      for (const [parallel, expected] of [[{ parallel_tool_calls: false }, ["a.ts"]], [{}, ["a.ts", "b.ts"]]] as const) {
        expect(await run(parallel, [encode(responsesItemsStream(items, 1000))])).toEqual([...expected]);
        expect(await run(parallel, byteByByte(encode(responsesItemsStream(items, 1))))).toEqual([...expected]);
        for (const seed of SEEDS) expect(await run(parallel, seededCuts(encode(responsesItemsStream(items, 1 + (seed % 5))), seed))).toEqual([...expected]);
      }
    });
  }
});

/**
 * With parallel calls off, a stream holds a recovered call back until the reply ends: a native
 * call that comes after it still wins, as it does in a JSON answer, and the held call never goes
 * out (reported as the native call's duplicate; the text written after it stays visible, as in
 * JSON). The hard negatives: parallel on keeps today's timing (the recovered call goes out where
 * its markup closes, then the native one: both run); a native call alone is the one call; a leak
 * alone still goes out, at the reply's end, after the events that followed its markup.
 */
describe("parallel tool calls switched off: a native call after a recovered one wins, in streams too", () => {
  const TEXT = `Reading:\n${leak("a.ts")}\nDone.`;
  const NATIVE_ARGS = '{"path":"n.ts"}';

  /** What a client reads back: the calls in stream order, the visible text, and where calls stand against the marker event and the finish. */
  interface Read {
    calls: string[];
    text: string;
    order: string[];
  }

  interface NativeWire {
    url: string;
    /** The stream: `text` in deltas of `size`, a marker event that passes as it came, then the native call if asked, then the end. */
    sse(text: string, size: number, native: boolean): string;
    read(out: string): Read;
    /** The same answer as JSON, native call included when asked: its visible text and calls. */
    json(text: string, native: boolean): Json;
    readJson(body: Json): Omit<Read, "order">;
  }

  const chatChunk = (delta: Json, finish: string | null = null, extra: Json = {}) => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", ...extra, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chatNative = { index: 0, id: "call_n", type: "function", function: { name: "read", arguments: NATIVE_ARGS } };

  const CHAT_N: NativeWire = {
    url: CHAT.url,
    sse: (text, size, native) => {
      const events = [chatChunk({ role: "assistant", content: "" }), ...deltas(text, size).map((c) => chatChunk({ content: c })), chatChunk({}, null, { system_fingerprint: "mark" })];
      if (native) events.push(chatChunk({ tool_calls: [chatNative] }));
      events.push(chatChunk({}, native ? "tool_calls" : "stop"));
      return [...events.map((e) => JSON.stringify(e)), "[DONE]"].map((d) => `data: ${d}\n\n`).join("");
    },
    read: (out) => {
      const args: string[] = [];
      const order: string[] = [];
      let text = "";
      for (const event of dataEvents(out)) {
        const choice = event.choices?.[0];
        if (event.system_fingerprint === "mark") order.push("mark");
        text += choice?.delta?.content ?? "";
        for (const c of choice?.delta?.tool_calls ?? []) {
          if (args[c.index] === undefined) order.push(`call ${c.index}`);
          args[c.index] = (args[c.index] ?? "") + (c.function?.arguments ?? "");
        }
        if (choice?.finish_reason) order.push(`finish ${choice.finish_reason}`);
      }
      const calls = args.map(pathOf);
      return { calls, text, order: order.map((o) => (o.startsWith("call ") ? `call ${calls[Number(o.slice(5))]}` : o)) };
    },
    json: (text, native) => ({ id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: text, ...(native ? { tool_calls: [{ id: "call_n", type: "function", function: chatNative.function }] } : {}) }, finish_reason: native ? "tool_calls" : "stop" }] }),
    readJson: (body) => ({ calls: CHAT.callsInJson(body), text: body.choices[0].message.content ?? "" }),
  };

  const messageStart = { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
  const MESSAGES_N: NativeWire = {
    url: MESSAGES.url,
    sse: (text, size, native) => {
      const events: Json[] = [messageStart, { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }];
      for (const c of deltas(text, size)) events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: c } });
      events.push({ type: "content_block_stop", index: 0 }, { type: "ping" });
      if (native) {
        events.push(
          { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_n", name: "read", input: {} } },
          { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: NATIVE_ARGS } },
          { type: "content_block_stop", index: 1 },
        );
      }
      events.push({ type: "message_delta", delta: { stop_reason: native ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" });
      return namedSse(events);
    },
    read: (out) => {
      const blocks: Json[] = [];
      const order: string[] = [];
      let open: Json | undefined;
      for (const event of dataEvents(out)) {
        if (event.type === "ping") order.push("mark");
        if (event.type === "message_delta") order.push(`finish ${event.delta.stop_reason}`);
        if (event.type === "content_block_start") {
          // Blocks follow one another, numbered in order.
          expect(open).toBeUndefined();
          expect(event.index).toBe(blocks.length);
          open = { ...event.content_block, json: "" };
        }
        if (event.type === "content_block_delta") {
          expect(event.index).toBe(blocks.length);
          if (event.delta.type === "text_delta") open!.text += event.delta.text;
          if (event.delta.type === "input_json_delta") open!.json += event.delta.partial_json;
        }
        if (event.type === "content_block_stop") {
          expect(event.index).toBe(blocks.length);
          if (open!.type === "tool_use") order.push(`call ${pathOf(open!.json)}`);
          blocks.push(open!);
          open = undefined;
        }
      }
      expect(open).toBeUndefined();
      const calls = blocks.filter((b) => b.type === "tool_use").map((b) => pathOf(b.json));
      return { calls, text: blocks.filter((b) => b.type === "text").map((b) => b.text).join(""), order };
    },
    json: (text, native) => ({ ...MESSAGES.json(text), content: [{ type: "text", text }, ...(native ? [{ type: "tool_use", id: "toolu_n", name: "read", input: { path: "n.ts" } }] : [])], stop_reason: native ? "tool_use" : "end_turn" }),
    readJson: (body) => ({ calls: MESSAGES.callsInJson(body), text: body.content.filter((b: Json) => b.type === "text").map((b: Json) => b.text).join("") }),
  };

  const nativeItem = (status: string) => ({ id: "fc_n", type: "function_call", call_id: "call_n", name: "read", arguments: status === "completed" ? NATIVE_ARGS : "", status });
  const reasoningItem = { id: "rs_1", type: "reasoning", summary: [] };
  const RESPONSES_N: NativeWire = {
    url: RESPONSES.url,
    sse: (text, size, native) => {
      // The message item, then (as the marker) a reasoning item, then the native call; sequence numbers run on.
      const events = dataEvents(responsesItemsStream([{ id: "msg_1", parts: [text] }], size));
      const completed = events.pop()!;
      const more: Json[] = [
        { type: "response.output_item.added", output_index: 1, item: reasoningItem },
        { type: "response.output_item.done", output_index: 1, item: reasoningItem },
      ];
      if (native) {
        more.push(
          { type: "response.output_item.added", output_index: 2, item: nativeItem("in_progress") },
          { type: "response.function_call_arguments.delta", item_id: "fc_n", output_index: 2, delta: NATIVE_ARGS },
          { type: "response.output_item.done", output_index: 2, item: nativeItem("completed") },
        );
      }
      completed.response.output.push(reasoningItem, ...(native ? [nativeItem("completed")] : []));
      return namedSse([...events, ...more, completed].map((e, sequence_number) => ({ ...e, sequence_number })));
    },
    read: (out) => {
      const events = dataEvents(out);
      const order: string[] = [];
      const calls: string[] = [];
      events.forEach((e, i) => expect(e.sequence_number).toBe(i));
      for (const e of events) {
        if (e.type === "response.output_item.added" && e.item.type === "reasoning") order.push("mark");
        if (e.type === "response.output_item.done" && e.item.type === "function_call") {
          calls.push(pathOf(e.item.arguments));
          order.push(`call ${pathOf(e.item.arguments)}`);
        }
        if (e.type === "response.completed") order.push("finish");
      }
      // The final response lists the output as it went out.
      const output = events.at(-1)!.response.output as Json[];
      expect(responsesCalls(output)).toEqual(calls);
      const text = output.filter((i) => i.type === "message").flatMap((i) => i.content.map((p: Json) => p.text)).join("");
      return { calls, text, order };
    },
    json: (text, native) => ({ ...RESPONSES.json(text), output: [...responsesMessages([{ id: "msg_1", parts: [text] }]), reasoningItem, ...(native ? [nativeItem("completed")] : [])] }),
    readJson: (body) => ({ calls: RESPONSES.callsInJson(body), text: body.output.filter((i: Json) => i.type === "message").flatMap((i: Json) => i.content.map((p: Json) => p.text)).join("") }),
  };

  const NATIVE_WIRES = { chat: CHAT_N, messages: MESSAGES_N, responses: RESPONSES_N };

  /** Every run of one stream: whole, one-character deltas byte by byte, seeded random byte cuts; each with its report. */
  async function runs(name: keyof typeof NATIVE_WIRES, parallel: Json, text: string, native: boolean): Promise<{ read: Read; results: AdapterResult[] }[]> {
    const wire = NATIVE_WIRES[name];
    const request = WIRES[name];
    const run = async (chunks: Uint8Array[]) => {
      const results: AdapterResult[] = [];
      const res = await repairFetch({ onResult: (r) => results.push(r) }, chunkedFetch(chunks))(wire.url, postInit(request.request(true, parallel)));
      return { read: wire.read(await res.text()), results };
    };
    const out = [await run([encode(wire.sse(text, 1000, native))]), await run(byteByByte(encode(wire.sse(text, 1, native))))];
    for (const seed of SEEDS) out.push(await run(seededCuts(encode(wire.sse(text, 1 + (seed % 5), native)), seed)));
    return out;
  }

  async function jsonRead(name: keyof typeof NATIVE_WIRES, parallel: Json, text: string, native: boolean): Promise<Omit<Read, "order">> {
    const wire = NATIVE_WIRES[name];
    const body = await post(WIRES[name], parallel, false, chunkedFetch([encode(JSON.stringify(wire.json(text, native)))], JSON_HEADERS));
    return wire.readJson(JSON.parse(body));
  }

  for (const [name, wire] of Object.entries(NATIVE_WIRES)) {
    const { off, on } = SWITCHES[name as keyof typeof SWITCHES];
    const key = name as keyof typeof NATIVE_WIRES;

    test(`${name} stream: a leaked call, then a native call, gives the native call only, at every split; the text as JSON gives it`, async () => {
      const json = await jsonRead(key, off, TEXT, true);
      expect(json.calls).toEqual(["n.ts"]);
      expect(json.text).toContain("Done.");
      for (const { read, results } of await runs(key, off, TEXT, true)) {
        expect(read.calls).toEqual(["n.ts"]);
        expect(read.text).toBe(json.text);
        // Reported as the case where the native call came first: nothing recovered, no nudge, the markup a duplicate.
        expect(results.map((r) => [r.summary.recovered, r.summary.nudge])).toEqual([[0, null]]);
        expect(results[0]!.summary.stripped.map((s) => s.kind)).toContain("native-call-duplicate");
      }
    });

    test(`${name} stream, parallel on or not mentioned: the same reply runs both calls, the recovered one where its markup closed`, async () => {
      for (const parallel of on) {
        for (const { read } of await runs(key, parallel, TEXT, true)) {
          expect(read.calls).toEqual(["a.ts", "n.ts"]);
          expect(read.order.indexOf("call a.ts")).toBeLessThan(read.order.indexOf("mark"));
        }
      }
    });

    test(`${name} stream, parallel off: a native call alone is the one call; a leak alone still runs, at the reply's end`, async () => {
      for (const { read } of await runs(key, off, "Reading.\n", true)) expect(read.calls).toEqual(["n.ts"]);
      const json = await jsonRead(key, off, TEXT, false);
      expect(json.calls).toEqual(["a.ts"]);
      for (const { read, results } of await runs(key, off, TEXT, false)) {
        expect(read.calls).toEqual(["a.ts"]);
        expect(read.text).toBe(json.text);
        // Held back past the events that followed its markup, and out before the finish, which names the call.
        const finish = read.order.at(-1)!;
        expect(read.order.slice(-3)).toEqual(["mark", "call a.ts", finish]);
        if (name !== "responses") expect(finish).toMatch(/tool_calls|tool_use/);
        expect(results.map((r) => r.summary.recovered)).toEqual([1]);
      }
    });
  }
});

/**
 * The AI SDK middleware reads the switch from providerOptions, under any provider's key:
 * @ai-sdk/openai's `parallelToolCalls: false`, @ai-sdk/anthropic's `disableParallelToolUse: true`,
 * and a raw `parallel_tool_calls: false` that @ai-sdk/openai-compatible copies into the body. A
 * streamed recovered call is held back until the finish, so a native tool-call part after it wins.
 */
describe("middleware: parallel tool calls switched off through providerOptions", () => {
  const sdkLeak = (path: string) => live(block("tool_calls", [["read", [["filePath", path]]]]));
  const TWO_LEAKS = `${sdkLeak("a.ts")}\nthen\n${sdkLeak("b.ts")}`;
  const OFF: SharedV3ProviderOptions[] = [{ openai: { parallelToolCalls: false } }, { anthropic: { disableParallelToolUse: true } }, { myGateway: { parallel_tool_calls: false } }];
  const ON: (SharedV3ProviderOptions | undefined)[] = [{ openai: { parallelToolCalls: true } }, { anthropic: { disableParallelToolUse: false } }, {}, undefined];
  const SIZES = [1, 3, 7, 1000];
  const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "read a.ts and b.ts" }] }];
  const filePaths = (run: SdkRun) => run.calls.map((c) => (JSON.parse(c.input) as { filePath: string }).filePath);
  const nativePart: LanguageModelV3StreamPart = { type: "tool-call", toolCallId: "call_n", toolName: "read", input: '{"filePath":"n.ts"}' };

  async function generate(text: string, providerOptions: SharedV3ProviderOptions | undefined): Promise<SdkRun> {
    const results: AdapterResult[] = [];
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
    const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({ onResult: (r) => results.push(r) }) });
    const result = await model.doGenerate({ prompt, tools: sdkTools(), ...(providerOptions ? { providerOptions } : {}) });
    return { text: "", calls: result.content.flatMap((p) => (p.type === "tool-call" ? [{ toolName: p.toolName, input: p.input }] : [])), results };
  }

  test("two leaked calls: the first only, streamed at every delta size and generated; the switch on or absent, both", async () => {
    for (const providerOptions of OFF) {
      for (const size of SIZES) expect(filePaths(await throughMiddleware(prompt, textStream(TWO_LEAKS, size), {}, { providerOptions }))).toEqual(["a.ts"]);
      const generated = await generate(TWO_LEAKS, providerOptions);
      expect(filePaths(generated)).toEqual(["a.ts"]);
      expect(generated.results.map((r) => r.summary.nudge)).toEqual(["extra-call"]);
    }
    for (const providerOptions of ON) {
      const extra = providerOptions ? { providerOptions } : {};
      for (const size of SIZES) expect(filePaths(await throughMiddleware(prompt, textStream(TWO_LEAKS, size), {}, extra))).toEqual(["a.ts", "b.ts"]);
      expect(filePaths(await generate(TWO_LEAKS, providerOptions))).toEqual(["a.ts", "b.ts"]);
    }
  });

  test("stream: a leaked call, then a native tool-call part, gives the native call only, the text after the leak kept; switch on, both", async () => {
    const text = `Reading:\n${sdkLeak("a.ts")}\nDone.`;
    const withNative = (size: number) => {
      const parts = textStream(text, size);
      parts.splice(parts.length - 1, 0, nativePart);
      return parts;
    };
    for (const size of SIZES) {
      const off = await throughMiddleware(prompt, withNative(size), {}, { providerOptions: OFF[0] });
      expect(filePaths(off)).toEqual(["n.ts"]);
      expect(off.text).toBe("Reading:\n\nDone.");
      expect(off.results.map((r) => [r.summary.recovered, r.summary.nudge])).toEqual([[0, null]]);
      expect(filePaths(await throughMiddleware(prompt, withNative(size), {}, { providerOptions: ON[0] }))).toEqual(["a.ts", "n.ts"]);
      // Hard negatives: a native call alone is the one call; a leak alone still runs (at the finish).
      const alone = textStream("Reading.\n", size);
      alone.splice(alone.length - 1, 0, nativePart);
      expect(filePaths(await throughMiddleware(prompt, alone, {}, { providerOptions: OFF[0] }))).toEqual(["n.ts"]);
      expect(filePaths(await throughMiddleware(prompt, textStream(text, size), {}, { providerOptions: OFF[0] }))).toEqual(["a.ts"]);
    }
  });
});
