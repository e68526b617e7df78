// Where review 46's wire fixes meet (merge of fx46-wire-end and fx46-wire-dup into int46):
// - a native call held to compare with a recovered call already sent (wire-dup), then the reply is
//   cut (wire-end: an `error` event, an error part, a content filter): the held native events go out
//   first, as they came (as they would have without the hold), then what the cut leaves, then the
//   event that cut it;
// - one call allowed, a Responses part that ended holding text after its held call (its end waiting
//   for the next event, wire-end), then the repair stands aside (an event over 4 MiB, wire-dup): the
//   call never runs and its markup goes back into that part, before the text held after it, not
//   into a message item of its own after it.
// Markup is Hermes `<tool_call>` JSON (no DSML marker bytes).
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { HERMES, type Json, MESSAGES_URL, OVERLOADED, RESPONSES_URL, SCHEMA, dataEvents, message, messageStart, namedSse, rawReply, responsesEvents, textBlock } from "./review-46-wires-support.ts";

const LEAK_TEXT = `Reading it.\n\n${HERMES}`;
const HUGE = "x".repeat(4 * 1024 * 1024 + 16);

describe("a native call held to compare, then an error cuts the reply", () => {
  test("Anthropic: the held block's start and delta go out, under the next index, before the error", async () => {
    const events = [
      messageStart(),
      ...textBlock(0, [LEAK_TEXT]),
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_native", name: "read", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path":' } },
      OVERLOADED,
    ];
    const request = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }] };
    const { text } = await rawReply(MESSAGES_URL, request, namedSse(events), "text/event-stream");
    const out = dataEvents(text);
    expect(out.at(-1)!.type).toBe("error");
    const uses = out.filter((e) => e.content_block?.type === "tool_use").map((e) => [e.index, e.content_block.id]);
    expect(uses.map((u) => u[0])).toEqual([1, 2]);
    expect(uses[1]![1]).toBe("toolu_native");
    expect(out.filter((e) => e.index === 2).map((e) => e.type)).toEqual(["content_block_start", "content_block_delta"]);
    expect(out.find((e) => e.index === 2 && e.type === "content_block_delta")!.delta.partial_json).toBe('{"path":');
  });

  test("hard negative, Anthropic: the native block complete before the error repeats the leak: dropped, the error still last", async () => {
    const events = [
      messageStart(),
      ...textBlock(0, [LEAK_TEXT]),
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_native", name: "read", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path":"a.ts"}' } },
      { type: "content_block_stop", index: 1 },
      OVERLOADED,
    ];
    const request = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }] };
    const { text } = await rawReply(MESSAGES_URL, request, namedSse(events), "text/event-stream");
    const out = dataEvents(text);
    expect(out.at(-1)!.type).toBe("error");
    expect(out.filter((e) => e.content_block?.type === "tool_use").map((e) => e.content_block.id)).toHaveLength(1);
    expect(out.some((e) => e.content_block?.id === "toolu_native")).toBe(false);
  });

  test("Responses: the held item's added and delta go out before the error, numbers running on", async () => {
    const head = responsesEvents([message("msg_1", LEAK_TEXT)]).filter((e) => e.type !== "response.completed");
    const events = [
      ...head,
      { type: "response.output_item.added", output_index: 1, item: { id: "fc_native", type: "function_call", status: "in_progress", call_id: "call_fc_native", name: "read", arguments: "" } },
      { type: "response.function_call_arguments.delta", item_id: "fc_native", output_index: 1, delta: '{"path":' },
      { type: "error", code: "server_error", message: "boom", param: null },
      { type: "response.failed", response: { id: "resp_1", object: "response", created_at: 1, status: "failed", model: "m", output: [], error: { code: "server_error", message: "boom" } } },
    ].map((event, sequence_number) => ({ ...event, sequence_number }));
    const request = { model: "m", stream: true, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }] };
    const { text } = await rawReply(RESPONSES_URL, request, namedSse(events), "text/event-stream");
    const out = dataEvents(text);
    const seqs = out.map((e) => e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, at) => at));
    const errorAt = out.findIndex((e) => e.type === "error");
    const nativeAdded = out.findIndex((e) => e.type === "response.output_item.added" && e.item.id === "fc_native");
    const nativeDelta = out.findIndex((e) => e.type === "response.function_call_arguments.delta" && e.item_id === "fc_native");
    expect(nativeAdded).toBeGreaterThan(-1);
    expect(nativeAdded).toBeLessThan(nativeDelta);
    expect(nativeDelta).toBeLessThan(errorAt);
    const added = out.filter((e) => e.type === "response.output_item.added");
    expect(added.map((e) => e.output_index)).toEqual(added.map((_, at) => at));
    expect(out.filter((e) => e.output_index === out[nativeAdded]!.output_index).every((e) => e.item?.id === "fc_native" || e.item_id === "fc_native")).toBe(true);
    expect(out.at(-1)!.type).toBe("response.failed");
  });
});

// ---------------------------------------------------------------- middleware

type Part = LanguageModelV3StreamPart;
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: SCHEMA };
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }], tools: [read] } as LanguageModelV3CallOptions;

async function streamed(parts: Part[]) {
  const results: AdapterResult[] = [];
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, ...parts]) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({ onResult: (result) => results.push(result) }) });
  const { stream } = await model.doStream(params);
  return { out: await convertReadableStreamToArray(stream), results };
}

const leakParts = (): Part[] => [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: LEAK_TEXT }, { type: "text-end", id: "t" }];
const heldNative = (): Part[] => [
  { type: "tool-input-start", id: "call_native", toolName: "read" },
  { type: "tool-input-delta", id: "call_native", delta: '{"path":' },
];
const nativeTypes = (out: Part[]) => out.filter((p) => "id" in p && p.id === "call_native").map((p) => p.type);

describe("middleware: a native call held to compare, then the reply is cut", () => {
  test("an error part: the held tool-input parts go out before it", async () => {
    const { out } = await streamed([...leakParts(), ...heldNative(), { type: "error", error: new Error("boom") }]);
    expect(nativeTypes(out)).toEqual(["tool-input-start", "tool-input-delta"]);
    const errorAt = out.findIndex((p) => p.type === "error");
    expect(out.findIndex((p) => "id" in p && p.id === "call_native")).toBeLessThan(errorAt);
    expect(errorAt).toBe(out.length - 1);
    expect(out.filter((p) => p.type === "tool-call")).toHaveLength(1);
  });

  test("a content-filter finish: the held tool-input parts go out before it, the finish reason stays", async () => {
    const finish: Part = { type: "finish", usage, finishReason: { unified: "content-filter", raw: "content_filter" } };
    const { out } = await streamed([...leakParts(), ...heldNative(), { type: "tool-input-end", id: "call_native" }, finish]);
    expect(nativeTypes(out)).toEqual(["tool-input-start", "tool-input-delta", "tool-input-end"]);
    const last = out.at(-1)!;
    expect(last.type).toBe("finish");
    expect((last as Extract<Part, { type: "finish" }>).finishReason.unified).toBe("content-filter");
  });
});

// ---------------------------------------------------------------- Responses, one call allowed

describe("Responses, one call allowed: a part ended holding text after its held call, then the repair stands aside", () => {
  test("the call never runs; its markup goes back into its part, before the text held after it; no extra item", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: HUGE }] };
    const output = [message("msg_1", `A ${HERMES} done`), reasoning, { id: "fc_native", type: "function_call", status: "completed", call_id: "call_fc_native", name: "read", arguments: '{"path":"n.ts"}' }];
    const request = { model: "m", stream: true, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }], parallel_tool_calls: false };
    const { text, results } = await rawReply(RESPONSES_URL, request, namedSse(responsesEvents(output)), "text/event-stream");
    const out = dataEvents(text);
    const seqs = out.map((e) => e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, at) => at));
    const added = out.filter((e) => e.type === "response.output_item.added");
    expect(added.map((e) => e.item.id)).toEqual(["msg_1", "rs_1", "fc_native"]);
    expect(added.map((e) => e.output_index)).toEqual([0, 1, 2]);
    const said = out.filter((e) => e.type === "response.output_text.delta").map((e) => `${e.item_id}:${e.delta}`).join("|");
    expect(said.replaceAll("|msg_1:", "")).toBe(`msg_1:A ${HERMES} done`);
    // Its done events read the same text, and so does the completed response.
    expect(out.find((e) => e.type === "response.output_text.done")!.text).toBe(`A ${HERMES} done`);
    const completed = out.find((e) => e.type === "response.completed")!;
    expect(completed.response.output.map((i: Json) => i.id)).toEqual(["msg_1", "rs_1", "fc_native"]);
    expect(results.flatMap((r) => r.summary.broken.map((b) => b.reason))).toContain("broken-markup");
    expect(results.reduce((n, r) => n + r.summary.recovered, 0)).toBe(0);
  });
});
