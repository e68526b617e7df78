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
import { sseText, deltas } from "../security/support.ts";
import {
  JSON_HEADERS,
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
  const split: Record<string, ResponsesItems> = {
    parts: [{ id: "msg_1", parts: [`First:\n${leak("a.ts")}\n`, `Then:\n${leak("b.ts")}\n`] }],
    items: [
      { id: "msg_1", parts: [`First:\n${leak("a.ts")}\n`] },
      { id: "msg_2", parts: [`Then:\n${leak("b.ts")}\n`] },
    ],
  };
  const json = async (items: ResponsesItems, parallel: Json) =>
    JSON.parse(await post(RESPONSES, parallel, false, chunkedFetch([encode(JSON.stringify({ id: "resp_1", object: "response", status: "completed", model: "m", output: responsesMessages(items) }))], JSON_HEADERS))) as Json;

  for (const [name, items] of Object.entries(split)) {
    test(`${name}, JSON: the later part's leak stays text where it stood; parallel on, both run`, async () => {
      const off = await json(items, { parallel_tool_calls: false });
      expect(RESPONSES.callsInJson(off)).toEqual(["a.ts"]);
      const texts = off.output.filter((i: Json) => i.type === "message").flatMap((i: Json) => i.content.map((p: Json) => p.text));
      expect(texts.join("")).toBe(`First:\nThen:\n${leak("b.ts")}\n`);
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
