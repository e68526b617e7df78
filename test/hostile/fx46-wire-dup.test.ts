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
