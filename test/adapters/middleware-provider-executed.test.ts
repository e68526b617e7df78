/**
 * AI SDK middleware: a tool call the provider ran itself (`providerExecuted: true`, e.g.
 * @ai-sdk/anthropic's web search, OpenAI's web_search_call) is no native call (review 44
 * follow-up). Its result comes in the same reply and the client runs nothing for it, so a leaked
 * client call beside it duplicates nothing: it becomes a tool-call part, never stripped as a
 * "native-call-duplicate". Nor does it spend the one call a request that switched parallel tool
 * calls off allows, as on the Anthropic wire (test/adapters/anthropic-server-tools.test.ts). A
 * client tool-call part (no flag, or `providerExecuted: false`) still is the reply's native call.
 * Streams run whole, char by char and at seeded random delta cuts; doGenerate too. Real engine.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage, SharedV3ProviderOptions } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { randomCuts } from "../support/run-engine.ts";

type Part = LanguageModelV3StreamPart;

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const leak = (path: string) => `<tool_call>{"name":"read","arguments":{"path":"${path}"}}</tool_call>`;
const LEAD = "Nothing online; reading the notes. ";
const ONE_CALL: SharedV3ProviderOptions = { anthropic: { disableParallelToolUse: true } };

/** The provider's own web search: its input streamed, its call and its result, all providerExecuted. */
const SEARCH: Part[] = [
  { type: "tool-input-start", id: "srvtoolu_1", toolName: "web_search", providerExecuted: true },
  { type: "tool-input-delta", id: "srvtoolu_1", delta: '{"query":"notes"}' },
  { type: "tool-input-end", id: "srvtoolu_1" },
  { type: "tool-call", toolCallId: "srvtoolu_1", toolName: "web_search", input: '{"query":"notes"}', providerExecuted: true },
  { type: "tool-result", toolCallId: "srvtoolu_1", toolName: "web_search", result: [] },
];
const SEARCH_CONTENT: LanguageModelV3Content[] = [
  { type: "tool-call", toolCallId: "srvtoolu_1", toolName: "web_search", input: '{"query":"notes"}', providerExecuted: true },
  { type: "tool-result", toolCallId: "srvtoolu_1", toolName: "web_search", result: [] },
];
/** A client tool call: the reply's native call. */
const client = (flag?: false): Part => ({ type: "tool-call", toolCallId: "toolu_1", toolName: "read", input: '{"path":"native.md"}', ...(flag === false ? { providerExecuted: false } : {}) });

interface Run {
  /** Client tool calls out of the reply: `native:` for the provider's, else the recovered call's path. */
  paths: string[];
  text: string;
  stripped: string[];
  nudge: string | null | undefined;
  finish: string | undefined;
}

const pathOf = (input: string) => (JSON.parse(input) as { path: string }).path;

function summarize(calls: { toolCallId: string; toolName: string; input: string; providerExecuted?: boolean }[], text: string, results: AdapterResult[], finish: string | undefined): Run {
  const paths = calls.filter((c) => c.providerExecuted !== true).map((c) => (c.toolCallId === "toolu_1" ? `native:${pathOf(c.input)}` : pathOf(c.input)));
  const summary = results[0]?.summary;
  return { paths, text, stripped: (summary?.stripped ?? []).map((s) => s.kind), nudge: summary?.nudge, finish };
}

async function streamed(before: Part[], text: string, cuts: number[], providerOptions?: SharedV3ProviderOptions): Promise<Run> {
  const bounds = [0, ...cuts, text.length];
  const deltas = bounds.slice(1).map((to, i) => text.slice(bounds[i], to));
  const parts: Part[] = [{ type: "stream-start", warnings: [] }, ...before, { type: "text-start", id: "t" }, ...deltas.map((delta): Part => ({ type: "text-delta", id: "t", delta })), { type: "text-end", id: "t" }, { type: "finish", usage, finishReason: { unified: "stop", raw: "end_turn" } }];
  const results: AdapterResult[] = [];
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
  const params: LanguageModelV3CallOptions = { prompt: [{ role: "user", content: [{ type: "text", text: "check the notes" }] }], tools: [read], ...(providerOptions ? { providerOptions } : {}) };
  const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({ onResult: (r) => results.push(r) }) }).doStream(params);
  const out = await convertReadableStreamToArray(stream);
  const finish = out.find((p) => p.type === "finish");
  return summarize(
    out.flatMap((p) => (p.type === "tool-call" ? [p] : [])),
    out.map((p) => (p.type === "text-delta" ? p.delta : "")).join(""),
    results,
    finish?.type === "finish" ? finish.finishReason.unified : undefined,
  );
}

/** Every cut of the stream: whole, char by char, seeded random cuts; all must agree. */
async function everyStream(before: Part[], text: string, providerOptions?: SharedV3ProviderOptions): Promise<Run> {
  const whole = await streamed(before, text, [], providerOptions);
  expect(await streamed(before, text, Array.from({ length: text.length - 1 }, (_, i) => i + 1), providerOptions)).toEqual(whole);
  for (const seed of [1, 2, 3]) expect(await streamed(before, text, randomCuts(text.length, seed, 9), providerOptions)).toEqual(whole);
  return whole;
}

async function generated(before: LanguageModelV3Content[], text: string, providerOptions?: SharedV3ProviderOptions): Promise<Run> {
  const results: AdapterResult[] = [];
  const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content: [...before, { type: "text", text }], finishReason: { unified: "stop", raw: "end_turn" }, usage, warnings: [] }) });
  const params: LanguageModelV3CallOptions = { prompt: [{ role: "user", content: [{ type: "text", text: "check the notes" }] }], tools: [read], ...(providerOptions ? { providerOptions } : {}) };
  const result = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({ onResult: (r) => results.push(r) }) }).doGenerate(params);
  return summarize(
    result.content.flatMap((p) => (p.type === "tool-call" ? [p] : [])),
    result.content.map((p) => (p.type === "text" ? p.text : "")).join(""),
    results,
    result.finishReason.unified,
  );
}

describe("a provider-executed tool call is no native call", () => {
  const text = LEAD + leak("notes.md");
  const recovered: Run = { paths: ["notes.md"], text: LEAD, stripped: [], nudge: null, finish: "tool-calls" };

  test("stream: the leak after a provider-executed web search becomes a tool call, nothing stripped", async () => {
    expect(await everyStream(SEARCH, text)).toEqual(recovered);
  });

  test("stream: the leak before it too (the search's parts come after the text)", async () => {
    const parts: Part[] = [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: text }, { type: "text-end", id: "t" }, ...SEARCH, { type: "finish", usage, finishReason: { unified: "stop", raw: "end_turn" } }];
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
    for (const providerOptions of [undefined, ONE_CALL]) {
      const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "x" }] }], tools: [read], ...(providerOptions ? { providerOptions } : {}) });
      const out = await convertReadableStreamToArray(stream);
      expect(out.flatMap((p) => (p.type === "tool-call" && p.providerExecuted !== true ? [pathOf(p.input)] : []))).toEqual(["notes.md"]);
    }
  });

  test("generate: the same", async () => {
    expect(await generated(SEARCH_CONTENT, text)).toEqual(recovered);
  });

  test("hard negative: a client tool call (no flag, or providerExecuted: false) is the reply's call; the leak is its duplicate, stripped", async () => {
    const duplicate: Run = { paths: ["native:native.md"], text: LEAD, stripped: ["native-call-duplicate"], nudge: null, finish: "stop" };
    for (const flag of [undefined, false] as const) {
      expect(await everyStream([client(flag)], text)).toEqual(duplicate);
      expect(await generated([client(flag) as LanguageModelV3Content], text)).toEqual(duplicate);
    }
    // A client call beside the provider's: still the native call.
    expect(await everyStream([...SEARCH, client()], text)).toEqual(duplicate);
    expect(await generated([...SEARCH_CONTENT, client() as LanguageModelV3Content], text)).toEqual(duplicate);
  });
});

describe("one-call mode: a provider-executed tool call does not spend the one call", () => {
  const two = `${LEAD}${leak("a.md")}\n${leak("b.md")}`;

  test("after a web search, two leaked calls: the first runs, the second is the extra call (stream and generate)", async () => {
    const stream = await everyStream(SEARCH, two, ONE_CALL);
    expect({ paths: stream.paths, nudge: stream.nudge, finish: stream.finish }).toEqual({ paths: ["a.md"], nudge: "extra-call", finish: "tool-calls" });
    const generate = await generated(SEARCH_CONTENT, two, ONE_CALL);
    expect({ paths: generate.paths, nudge: generate.nudge, finish: generate.finish }).toEqual({ paths: ["a.md"], nudge: "extra-call", finish: "tool-calls" });
  });

  test("hard negatives: the switch on gives both; a client tool call is the one call, so no leak runs", async () => {
    expect((await everyStream(SEARCH, two)).paths).toEqual(["a.md", "b.md"]);
    expect((await generated(SEARCH_CONTENT, two)).paths).toEqual(["a.md", "b.md"]);
    expect((await everyStream([client()], two, ONE_CALL)).paths).toEqual(["native:native.md"]);
    expect((await generated([client() as LanguageModelV3Content], two, ONE_CALL)).paths).toEqual(["native:native.md"]);
  });
});
