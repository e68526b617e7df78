// Fix of review 46's "the same call runs twice" holes (review-46-wires-*.test.ts, FINDING 3 and the
// one-call stand-aside), on every wire and the middleware's stream:
// - one call allowed, a recovered call held back for the reply's end, then the repair stands aside
//   (an event over HELD_EVENT_LIMIT; the middleware: interleaved text parts): the held call never
//   runs (a native call after it could no longer withdraw it), its markup goes out as text and is
//   reported "broken-markup";
// - parallel calls on, a recovered call already sent, then a native call with the same tool and
//   input (compared as parsed JSON, key order ignored): the native duplicate is not sent; one with
//   other input, and the same call twice natively, pass untouched.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { byteByByte, chunkedFetch, encode, postInit, seededCuts } from "../adapters/wire-support.ts";
import {
  HERMES,
  type Json,
  MESSAGES_URL,
  RESPONSES_URL,
  SCHEMA,
  dataEvents,
  functionCall,
  message,
  messageEnd,
  messageStart,
  namedSse,
  rawReply,
  responsesEvents,
  textBlock,
  toolUseBlock,
} from "./review-46-wires-support.ts";

const CHAT_URL = "http://model.test/v1/chat/completions";
const HUGE = "x".repeat(4 * 1024 * 1024 + 16);
const brokenOf = (results: AdapterResult[]) => results.flatMap((r) => r.summary.broken.map((b) => b.reason));
const recoveredOf = (results: AdapterResult[]) => results.reduce((n, r) => n + r.summary.recovered, 0);

// ---------------------------------------------------------------- chat completions

const chatRequest = (extra: Json = {}) => ({ model: "m", stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ type: "function", function: { name: "read", parameters: SCHEMA } }], ...extra });
const chunk = (delta: Json, finish: string | null = null): Json => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
const nativeChunks = (index: number, id: string, args: Json, cut = 0): Json[] => {
  const text = JSON.stringify(args);
  const pieces = cut > 0 ? [text.slice(0, cut), text.slice(cut)] : [text];
  return pieces.map((piece, at) => chunk({ tool_calls: [{ index, ...(at === 0 ? { id, type: "function", function: { name: "read", arguments: piece } } : { function: { arguments: piece } }) }] }));
};
const chatSse = (chunks: Json[]) => [...chunks.map((c) => JSON.stringify(c)), "[DONE]"].map((data) => `data: ${data}\n\n`).join("");

/** The calls the client assembles from a chat stream, by index: [id, name, arguments]. */
function chatCalls(text: string): [string, string, string][] {
  const calls: [string, string, string][] = [];
  for (const event of dataEvents(text)) {
    for (const c of event.choices?.[0]?.delta?.tool_calls ?? []) {
      const call = (calls[c.index] ??= ["", "", ""]);
      if (c.id) call[0] = c.id;
      if (c.function?.name) call[1] += c.function.name;
      if (c.function?.arguments) call[2] += c.function.arguments;
    }
  }
  return calls;
}
const chatText = (text: string) => dataEvents(text).map((e) => e.choices?.[0]?.delta?.content ?? "").join("");
const chatFinish = (text: string) => dataEvents(text).map((e) => e.choices?.[0]?.finish_reason).filter((f) => f != null);

describe("one call allowed, the repair stands aside while a recovered call is held back", () => {
  test("chat: a content delta over 4 MiB after the held call: the native call only, the markup shown, broken-markup reported", async () => {
    const chunks = [chunk({ role: "assistant", content: "" }), chunk({ content: `A ${HERMES}` }), chunk({ content: HUGE }), ...nativeChunks(0, "call_native", { path: "n.ts" }), chunk({}, "tool_calls")];
    const { text, results } = await rawReply(CHAT_URL, chatRequest({ parallel_tool_calls: false }), chatSse(chunks), "text/event-stream");
    expect(chatCalls(text).map((c) => c[0])).toEqual(["call_native"]);
    expect(chatText(text)).toBe(`A ${HERMES}${HUGE}`);
    expect(recoveredOf(results)).toBe(0);
    expect(brokenOf(results)).toContain("broken-markup");
  });

  test("hard negative, chat: the same reply with a short text gives the native call only, the leak stripped as its duplicate", async () => {
    const chunks = [chunk({ role: "assistant", content: "" }), chunk({ content: `A ${HERMES}` }), chunk({ content: "x" }), ...nativeChunks(0, "call_native", { path: "n.ts" }), chunk({}, "tool_calls")];
    const { text } = await rawReply(CHAT_URL, chatRequest({ parallel_tool_calls: false }), chatSse(chunks), "text/event-stream");
    expect(chatCalls(text).map((c) => c[0])).toEqual(["call_native"]);
    expect(chatText(text)).toBe("A x");
  });

  test("hard negative, chat: parallel calls on, the recovered call went out at once and stands after the stand-aside", async () => {
    const chunks = [chunk({ role: "assistant", content: "" }), chunk({ content: `A ${HERMES}` }), chunk({ content: HUGE }), chunk({}, "stop")];
    const { text } = await rawReply(CHAT_URL, chatRequest(), chatSse(chunks), "text/event-stream");
    expect(chatCalls(text).map((c) => c[1])).toEqual(["read"]);
  });

  test("Anthropic: the held call's markup goes out as text in its block, reported broken-markup", async () => {
    const events = [messageStart(), ...textBlock(0, [`A ${HERMES}`, HUGE]), ...toolUseBlock(1, "toolu_native", { path: "n.ts" }), ...messageEnd("tool_use")];
    const request = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }], tool_choice: { type: "auto", disable_parallel_tool_use: true } };
    const { text, results } = await rawReply(MESSAGES_URL, request, namedSse(events), "text/event-stream");
    const out = dataEvents(text);
    expect(out.filter((e) => e.content_block?.type === "tool_use").map((e) => e.content_block.id)).toEqual(["toolu_native"]);
    const said = out.filter((e) => e.delta?.type === "text_delta").map((e) => e.delta.text).join("");
    expect(said).toBe(`A ${HERMES}${HUGE}`);
    // Every text delta goes into the one text block, opened once.
    expect(new Set(out.filter((e) => e.delta?.type === "text_delta").map((e) => e.index))).toEqual(new Set([0]));
    expect(recoveredOf(results)).toBe(0);
    expect(brokenOf(results)).toContain("broken-markup");
  });

  test("Responses: the held call's markup goes out as text, reported broken-markup", async () => {
    const output = [message("msg_1", `A ${HERMES}`, HUGE), functionCall("fc_native", { path: "n.ts" })];
    const request = { model: "m", stream: true, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }], parallel_tool_calls: false };
    const { text, results } = await rawReply(RESPONSES_URL, request, namedSse(responsesEvents(output)), "text/event-stream");
    const out = dataEvents(text);
    expect(out.filter((e) => e.type === "response.output_item.added" && e.item.type === "function_call").map((e) => e.item.id)).toEqual(["fc_native"]);
    const said = out.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("");
    expect(said).toBe(`A ${HERMES}${HUGE}`);
    expect(recoveredOf(results)).toBe(0);
    expect(brokenOf(results)).toContain("broken-markup");
  });
});

// ---------------------------------------------------------------- middleware

type Part = LanguageModelV3StreamPart;
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: SCHEMA };
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }], tools: [read] } as LanguageModelV3CallOptions;
const ONE_CALL = { providerOptions: { openai: { parallelToolCalls: false } } } as Partial<LanguageModelV3CallOptions>;

async function streamed(parts: Part[], extra: Partial<LanguageModelV3CallOptions> = {}) {
  const results: AdapterResult[] = [];
  const finishReason = { unified: parts.some((p) => p.type === "tool-call") ? "tool-calls" : "stop", raw: "stop" } as const;
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, ...parts, { type: "finish", usage, finishReason }]) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({ onResult: (result) => results.push(result) }) });
  const { stream } = await model.doStream({ ...params, ...extra });
  const out = await convertReadableStreamToArray(stream);
  const text = out.filter((p) => p.type === "text-delta").map((p) => (p as { delta: string }).delta).join("");
  const calls = out.filter((p) => p.type === "tool-call").map((p) => p as { toolCallId: string; toolName: string; input: string });
  return { out, text, calls, results };
}

describe("middleware: one call allowed, interleaved text parts make the repair stand aside while a call is held", () => {
  const parts = (): Part[] => [
    { type: "text-start", id: "a" },
    { type: "text-delta", id: "a", delta: `A ${HERMES}` },
    { type: "text-start", id: "b" },
    { type: "text-delta", id: "b", delta: "b" },
    { type: "text-end", id: "a" },
    { type: "text-end", id: "b" },
    { type: "tool-call", toolCallId: "call_native", toolName: "read", input: '{"path":"n.ts"}' },
  ];

  test("the native call only; the held call's markup shown under its part, reported broken-markup", async () => {
    const run = await streamed(parts(), ONE_CALL);
    expect(run.calls.map((c) => c.toolCallId)).toEqual(["call_native"]);
    expect(run.text).toBe(`A ${HERMES}b`);
    expect(recoveredOf(run.results)).toBe(0);
    expect(brokenOf(run.results)).toContain("broken-markup");
  });

  test("hard negative: parallel calls on, the call recovered before the stand-aside stands", async () => {
    const run = await streamed(parts().slice(0, 6));
    expect(run.calls.map((c) => c.toolName)).toEqual(["read"]);
  });
});

// ---------------------------------------------------------------- a recovered call, then the same native call

/** The repaired body read at the given byte cuts of `body`. */
async function cutReply(url: string, request: Json, body: string, cuts: (bytes: Uint8Array) => Uint8Array[]): Promise<string> {
  const res = await repairFetch({}, chunkedFetch(() => cuts(encode(body))))(url, postInit(request));
  return res.text();
}
const SPLITS: [string, (bytes: Uint8Array) => Uint8Array[]][] = [["whole", (b) => [b]], ["byte by byte", byteByByte], ...[1, 2, 3].map((seed) => [`seed ${seed}`, (b: Uint8Array) => seededCuts(b, seed)] as [string, (bytes: Uint8Array) => Uint8Array[]])];

describe("chat: a leaked call sent, then the same native call", () => {
  const TWO_KEYS = { type: "object", properties: { path: { type: "string" }, limit: { type: "number" } }, required: ["path"] };
  const request = chatRequest({ tools: [{ type: "function", function: { name: "read", parameters: TWO_KEYS } }] });
  const LEAK2 = '<tool_call>{"name":"read","arguments":{"path":"a.ts","limit":5}}</tool_call>';
  const reply = (natives: Json[][]) => [chunk({ role: "assistant", content: "" }), chunk({ content: `Reading it.\n\n${LEAK2}` }), ...natives.flat(), chunk({}, "tool_calls")];

  for (const [name, cuts] of SPLITS) {
    test(`same tool and input (keys in another order, arguments cut in two): the native call is dropped (${name})`, async () => {
      const text = await cutReply(CHAT_URL, request, chatSse(reply([nativeChunks(0, "call_native", { limit: 5, path: "a.ts" }, 7)])), cuts);
      const calls = chatCalls(text);
      expect(calls.map((c) => [c[1], JSON.parse(c[2])])).toEqual([["read", { path: "a.ts", limit: 5 }]]);
      expect(calls[0]![0]).not.toBe("call_native");
      expect(chatFinish(text)).toEqual(["tool_calls"]);
    });
  }

  test("the repeat dropped, the native call after it takes the next index", async () => {
    const text = (await rawReply(CHAT_URL, request, chatSse(reply([nativeChunks(0, "call_native", { path: "a.ts", limit: 5 }), nativeChunks(1, "call_other", { path: "b.ts" }, 4)])), "text/event-stream")).text;
    const calls = chatCalls(text);
    expect(calls.map((c) => JSON.parse(c[2]).path)).toEqual(["a.ts", "b.ts"]);
    expect(calls[1]![0]).toBe("call_other");
    expect(calls.every((c) => c !== undefined)).toBe(true);
  });

  test("hard negative: a native call with other input goes out too, under the next index", async () => {
    const text = (await rawReply(CHAT_URL, request, chatSse(reply([nativeChunks(0, "call_native", { path: "a.ts", limit: 6 }, 5)])), "text/event-stream")).text;
    const calls = chatCalls(text);
    expect(calls.map((c) => JSON.parse(c[2]))).toEqual([{ path: "a.ts", limit: 5 }, { path: "a.ts", limit: 6 }]);
    expect(calls[1]![0]).toBe("call_native");
  });

  test("hard negative: after the leak the same call twice natively: the one repeating the leak is dropped, the other goes out", async () => {
    const text = (await rawReply(CHAT_URL, request, chatSse(reply([nativeChunks(0, "call_n1", { path: "a.ts", limit: 5 }), nativeChunks(1, "call_n2", { path: "a.ts", limit: 5 })])), "text/event-stream")).text;
    expect(chatCalls(text).map((c) => c[0]).filter((id) => id.startsWith("call_"))).toEqual(["call_n2"]);
    expect(chatCalls(text)).toHaveLength(2);
  });

  test("hard negative: no leak, the same call twice natively passes byte for byte", async () => {
    const body = chatSse([chunk({ role: "assistant", content: "" }), ...nativeChunks(0, "call_n1", { path: "a.ts" }), ...nativeChunks(1, "call_n2", { path: "a.ts" }), chunk({}, "tool_calls")]);
    const { text } = await rawReply(CHAT_URL, request, body, "text/event-stream");
    expect(text).toBe(body);
  });
});

describe("Anthropic: a leaked call sent, then the same native call", () => {
  const LEAK_TEXT = `Reading it.\n\n${HERMES}`;
  const messagesRequest = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }] };
  const uses = (text: string) => dataEvents(text).filter((e) => e.content_block?.type === "tool_use").map((e) => [e.index, e.content_block.id]);
  const starts = (text: string) => dataEvents(text).filter((e) => e.type === "content_block_start").map((e) => e.index);

  for (const [name, cuts] of SPLITS) {
    test(`dropped; the block after it takes the next index (${name})`, async () => {
      const events = [messageStart(), ...textBlock(0, [LEAK_TEXT]), ...toolUseBlock(1, "toolu_native", { path: "a.ts" }), { type: "ping" }, ...toolUseBlock(2, "toolu_other", { path: "b.ts" }), ...messageEnd("tool_use")];
      const text = await cutReply(MESSAGES_URL, messagesRequest, namedSse(events), cuts);
      expect(uses(text)).toHaveLength(2);
      expect(uses(text)[0]![1]).not.toBe("toolu_native");
      expect(uses(text)[1]).toEqual([2, "toolu_other"]);
      expect(starts(text)).toEqual([0, 1, 2]);
      expect(dataEvents(text).find((e) => e.type === "message_delta")!.delta.stop_reason).toBe("tool_use");
    });
  }

  test("hard negative: a native call with other input goes out under the next index", async () => {
    const events = [messageStart(), ...textBlock(0, [LEAK_TEXT]), ...toolUseBlock(1, "toolu_native", { path: "b.ts" }), ...messageEnd("tool_use")];
    const { text } = await rawReply(MESSAGES_URL, messagesRequest, namedSse(events), "text/event-stream");
    expect(uses(text).map((u) => u[0])).toEqual([1, 2]);
    expect(uses(text)[1]![1]).toBe("toolu_native");
    const input = dataEvents(text).filter((e) => e.index === 2 && e.delta?.type === "input_json_delta").map((e) => e.delta.partial_json).join("");
    expect(JSON.parse(input)).toEqual({ path: "b.ts" });
  });

  test("hard negative: after the leak the same call twice natively: one dropped, the other goes out", async () => {
    const events = [messageStart(), ...textBlock(0, [LEAK_TEXT]), ...toolUseBlock(1, "toolu_n1", { path: "a.ts" }), ...toolUseBlock(2, "toolu_n2", { path: "a.ts" }), ...messageEnd("tool_use")];
    const { text } = await rawReply(MESSAGES_URL, messagesRequest, namedSse(events), "text/event-stream");
    expect(uses(text).map((u) => u[0])).toEqual([1, 2]);
    expect(uses(text)[1]![1]).toBe("toolu_n2");
  });

  test("hard negative: no leak, the same call twice natively passes byte for byte", async () => {
    const body = namedSse([messageStart(), ...textBlock(0, ["Reading."]), ...toolUseBlock(1, "toolu_n1", { path: "a.ts" }), ...toolUseBlock(2, "toolu_n2", { path: "a.ts" }), ...messageEnd("tool_use")]);
    const { text } = await rawReply(MESSAGES_URL, messagesRequest, body, "text/event-stream");
    expect(text).toBe(body);
  });
});

describe("Responses: a leaked call sent, then the same native call", () => {
  const responsesRequest = { model: "m", stream: true, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }] };
  const LEAK_TEXT = `Reading it.\n\n${HERMES}`;
  /** The streamed items and the completed response's output agree, and the numbers run on. */
  function consistent(text: string): { ids: string[]; calls: string[] } {
    const out = dataEvents(text);
    const seqs = out.map((e) => e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, at) => at));
    const added = out.filter((e) => e.type === "response.output_item.added");
    expect(added.map((e) => e.output_index)).toEqual(added.map((_, at) => at));
    const done = out.find((e) => e.type === "response.completed")!;
    const ids = added.map((e) => e.item.id);
    expect(done.response.output.map((i: Json) => i.id)).toEqual(ids);
    return { ids, calls: added.filter((e) => e.item.type === "function_call").map((e) => e.item.id) };
  }

  for (const [name, cuts] of SPLITS) {
    test(`dropped; the items after it move back into its place (${name})`, async () => {
      const output = [message("msg_1", LEAK_TEXT), functionCall("fc_native", { path: "a.ts" }), functionCall("fc_other", { path: "b.ts" })];
      const text = await cutReply(RESPONSES_URL, responsesRequest, namedSse(responsesEvents(output)), cuts);
      const { ids, calls } = consistent(text);
      expect(calls).toHaveLength(2);
      expect(calls[0]).not.toBe("fc_native");
      expect(ids).toEqual(["msg_1", calls[0]!, "fc_other"]);
    });
  }

  test("hard negative: a native call with other input goes out too", async () => {
    const output = [message("msg_1", LEAK_TEXT), functionCall("fc_native", { path: "b.ts" })];
    const { text } = await rawReply(RESPONSES_URL, responsesRequest, namedSse(responsesEvents(output)), "text/event-stream");
    const { calls } = consistent(text);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toBe("fc_native");
  });

  test("hard negative: after the leak the same call twice natively: one dropped, the other goes out", async () => {
    const output = [message("msg_1", LEAK_TEXT), functionCall("fc_n1", { path: "a.ts" }), functionCall("fc_n2", { path: "a.ts" })];
    const { text } = await rawReply(RESPONSES_URL, responsesRequest, namedSse(responsesEvents(output)), "text/event-stream");
    const { calls } = consistent(text);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toBe("fc_n2");
  });

  test("hard negative: no leak, the same call twice natively passes byte for byte", async () => {
    const body = namedSse(responsesEvents([message("msg_1", "Reading."), functionCall("fc_n1", { path: "a.ts" }), functionCall("fc_n2", { path: "a.ts" })]));
    const { text } = await rawReply(RESPONSES_URL, responsesRequest, body, "text/event-stream");
    expect(text).toBe(body);
  });
});

describe("middleware: a leaked call sent, then the same native call", () => {
  const nativeParts = (id: string, input: string, inputParts = true): Part[] => [
    ...(inputParts
      ? ([
          { type: "tool-input-start", id, toolName: "read" },
          { type: "tool-input-delta", id, delta: input.slice(0, 5) },
          { type: "tool-input-delta", id, delta: input.slice(5) },
          { type: "tool-input-end", id },
        ] as Part[])
      : []),
    { type: "tool-call", toolCallId: id, toolName: "read", input },
  ];
  const leakParts = (): Part[] => [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `Reading it.\n\n${HERMES}` }, { type: "text-end", id: "t" }];

  for (const inputParts of [true, false]) {
    test(`dropped, its tool-input parts too (${inputParts ? "with" : "without"} tool-input parts)`, async () => {
      const run = await streamed([...leakParts(), ...nativeParts("call_native", '{ "path": "a.ts" }', inputParts)]);
      expect(run.calls.map((c) => c.toolName)).toEqual(["read"]);
      expect(run.calls[0]!.toolCallId).not.toBe("call_native");
      expect(run.out.some((p) => "id" in p && p.id === "call_native")).toBe(false);
      expect(run.out.find((p) => p.type === "finish")).toBeDefined();
    });
  }

  test("hard negative: a native call with other input goes out, all its parts in order", async () => {
    const run = await streamed([...leakParts(), ...nativeParts("call_native", '{"path":"b.ts"}')]);
    expect(run.calls.map((c) => c.toolCallId).at(-1)).toBe("call_native");
    expect(run.calls).toHaveLength(2);
    const mine = run.out.filter((p) => ("id" in p && p.id === "call_native") || ("toolCallId" in p && p.toolCallId === "call_native")).map((p) => p.type);
    expect(mine).toEqual(["tool-input-start", "tool-input-delta", "tool-input-delta", "tool-input-end", "tool-call"]);
  });

  test("hard negative: after the leak the same call twice natively: one dropped, the other goes out", async () => {
    const run = await streamed([...leakParts(), ...nativeParts("call_n1", '{"path":"a.ts"}'), ...nativeParts("call_n2", '{"path":"a.ts"}')]);
    expect(run.calls.map((c) => c.toolCallId).filter((id) => id.startsWith("call_"))).toEqual(["call_n2"]);
    expect(run.calls).toHaveLength(2);
  });

  test("hard negative: no leak, the same call twice natively passes as it came", async () => {
    const parts = [...nativeParts("call_n1", '{"path":"a.ts"}'), ...nativeParts("call_n2", '{"path":"a.ts"}')];
    const run = await streamed(parts);
    expect(run.out.filter((p) => p.type.startsWith("tool-"))).toEqual(parts);
  });
});

describe("a native call held to compare, then the repair stands aside (its arguments in one event over 4 MiB)", () => {
  const BIG = { path: "y".repeat(4 * 1024 * 1024 + 16) };

  test("Anthropic: the held block goes out first, the long delta streams on under its index", async () => {
    const events = [messageStart(), ...textBlock(0, [`Reading it.\n\n${HERMES}`]), ...toolUseBlock(1, "toolu_native", BIG), ...messageEnd("tool_use")];
    const request = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }] };
    const { text } = await rawReply(MESSAGES_URL, request, namedSse(events), "text/event-stream");
    const out = dataEvents(text);
    const uses = out.filter((e) => e.content_block?.type === "tool_use").map((e) => [e.index, e.content_block.id]);
    expect(uses.map((u) => u[0])).toEqual([1, 2]);
    expect(uses[1]![1]).toBe("toolu_native");
    const input = out.filter((e) => e.index === 2 && e.delta?.type === "input_json_delta").map((e) => e.delta.partial_json).join("");
    expect(JSON.parse(input)).toEqual(BIG);
    const order = out.filter((e) => e.index === 2).map((e) => e.type);
    expect(order).toEqual(["content_block_start", "content_block_delta", "content_block_stop"]);
  });

  test("Responses: the held item goes out first, numbers running on", async () => {
    const output = [message("msg_1", `Reading it.\n\n${HERMES}`), functionCall("fc_native", BIG)];
    const request = { model: "m", stream: true, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }] };
    const { text } = await rawReply(RESPONSES_URL, request, namedSse(responsesEvents(output)), "text/event-stream");
    const out = dataEvents(text);
    const seqs = out.map((e) => e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, at) => at));
    const added = out.filter((e) => e.type === "response.output_item.added");
    expect(added.map((e) => [e.output_index, e.item.id.startsWith("fc_") ? e.item.type : e.item.id])).toEqual([[0, "msg_1"], [1, "function_call"], [2, "function_call"]]);
    expect(added[2]!.item.id).toBe("fc_native");
    const args = out.filter((e) => e.type === "response.function_call_arguments.delta" && e.output_index === 2).map((e) => e.delta).join("");
    expect(JSON.parse(args)).toEqual(BIG);
  });

  test("chat: the held entry goes out first, the long one continues it under the same index", async () => {
    const chunks = [chunk({ role: "assistant", content: "" }), chunk({ content: `Reading it.\n\n${HERMES}` }), ...nativeChunks(0, "call_native", BIG, 5), chunk({}, "tool_calls")];
    const { text } = await rawReply(CHAT_URL, chatRequest(), chatSse(chunks), "text/event-stream");
    const calls = chatCalls(text);
    expect(calls.map((c) => c[0].startsWith("call_") ? c[0] : "recovered")).toEqual(["recovered", "call_native"]);
    expect(JSON.parse(calls[1]![2])).toEqual(BIG);
    expect(chatFinish(text)).toEqual(["tool_calls"]);
  });
});

describe("after the repair stood aside, a native call is no longer held (an event of it streaming past would overtake it)", () => {
  const BIG = { path: "y".repeat(4 * 1024 * 1024 + 16) };

  test("Anthropic: its start, long delta and stop go out in order under one index", async () => {
    const events = [messageStart(), ...textBlock(0, [`Reading it.\n\n${HERMES}`, HUGE]), ...toolUseBlock(1, "toolu_native", BIG), ...messageEnd("tool_use")];
    const request = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }] };
    const { text } = await rawReply(MESSAGES_URL, request, namedSse(events), "text/event-stream");
    const out = dataEvents(text);
    const native = out.findIndex((e) => e.content_block?.id === "toolu_native");
    expect(native).toBeGreaterThan(-1);
    const index = out[native]!.index;
    expect(out.slice(native).filter((e) => e.index === index).map((e) => e.type)).toEqual(["content_block_start", "content_block_delta", "content_block_stop"]);
    expect(out.slice(0, native).some((e) => e.index === index)).toBe(false);
  });

  test("Responses: its events go out in order under one output_index, numbers running on", async () => {
    const output = [message("msg_1", `Reading it.\n\n${HERMES}`, HUGE), functionCall("fc_native", BIG)];
    const request = { model: "m", stream: true, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }] };
    const { text } = await rawReply(RESPONSES_URL, request, namedSse(responsesEvents(output)), "text/event-stream");
    const out = dataEvents(text);
    const seqs = out.map((e) => e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, at) => at));
    const added = out.findIndex((e) => e.type === "response.output_item.added" && e.item.id === "fc_native");
    expect(added).toBeGreaterThan(-1);
    const index = out[added]!.output_index;
    expect(out.slice(0, added).some((e) => e.output_index === index && e.type !== "response.output_item.added")).toBe(false);
  });
});

describe("Anthropic, one call allowed: the held call's text block ended, then a thinking delta over 4 MiB", () => {
  test("the markup goes out in a text block of its own, closed; the native call is the only one", async () => {
    const thinking = [
      { type: "content_block_start", index: 1, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "thinking_delta", thinking: HUGE } },
      { type: "content_block_delta", index: 1, delta: { type: "signature_delta", signature: "sig" } },
      { type: "content_block_stop", index: 1 },
    ];
    const events = [messageStart(), ...textBlock(0, [`A ${HERMES}`]), ...thinking, ...toolUseBlock(2, "toolu_native", { path: "n.ts" }), ...messageEnd("tool_use")];
    const request = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }], tool_choice: { type: "auto", disable_parallel_tool_use: true } };
    const { text, results } = await rawReply(MESSAGES_URL, request, namedSse(events), "text/event-stream");
    const out = dataEvents(text);
    expect(out.filter((e) => e.content_block?.type === "tool_use").map((e) => e.content_block.id)).toEqual(["toolu_native"]);
    expect(out.filter((e) => e.delta?.type === "text_delta").map((e) => e.delta.text).join("")).toBe(`A ${HERMES}`);
    const started = out.filter((e) => e.type === "content_block_start").map((e) => e.index);
    const stopped = out.filter((e) => e.type === "content_block_stop").map((e) => e.index);
    expect([...stopped].sort()).toEqual([...started].sort());
    expect(new Set(started).size).toBe(started.length);
    expect(brokenOf(results)).toContain("broken-markup");
  });
});

describe("Responses, one call allowed: the held call's message item ended, then an item over 4 MiB", () => {
  test("the markup goes out in a message item of its own; the native call is the only one; numbers run on", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: HUGE }] };
    const output = [message("msg_1", `A ${HERMES}`), reasoning, functionCall("fc_native", { path: "n.ts" })];
    const request = { model: "m", stream: true, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }], parallel_tool_calls: false };
    const { text, results } = await rawReply(RESPONSES_URL, request, namedSse(responsesEvents(output)), "text/event-stream");
    const out = dataEvents(text);
    const seqs = out.map((e) => e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, at) => at));
    const added = out.filter((e) => e.type === "response.output_item.added");
    expect(added.map((e) => e.output_index)).toEqual(added.map((_, at) => at));
    expect(added.filter((e) => e.item.type === "function_call").map((e) => e.item.id)).toEqual(["fc_native"]);
    const byItem = new Map<string, string>();
    for (const e of out) if (e.type === "response.output_text.delta") byItem.set(e.item_id, (byItem.get(e.item_id) ?? "") + e.delta);
    expect(byItem.get("msg_1")).toBe("A ");
    expect([...byItem.entries()].filter(([id]) => id !== "msg_1").map(([, said]) => said)).toEqual([HERMES]);
    // Every text delta comes inside its item: after its added, before its done.
    for (const [id] of byItem) {
      const at = (type: string) => out.findIndex((e) => e.type === type && (e.item?.id ?? e.item_id) === id);
      const deltaAt = out.findIndex((e) => e.type === "response.output_text.delta" && e.item_id === id);
      expect(at("response.output_item.added")).toBeLessThan(deltaAt);
      expect(deltaAt).toBeLessThan(at("response.output_item.done"));
    }
    expect(brokenOf(results)).toContain("broken-markup");
  });
});
