import { describe, expect, test } from "bun:test";
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { jsonSchema, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware, type MiddlewareOptions } from "../../src/adapters/middleware.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { type StubFaults, stubFactory } from "./stub-engine.ts";

type Part = LanguageModelV3StreamPart;

const usage: LanguageModelV3Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const finish: Part = { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } };

const readTool: LanguageModelV3FunctionTool = {
  type: "function",
  name: "read",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
};

function textParts(id: string, deltas: string[]): Part[] {
  return [{ type: "text-start", id }, ...deltas.map((delta): Part => ({ type: "text-delta", id, delta })), { type: "text-end", id }];
}

function streamOf(parts: Part[]): Part[] {
  return [{ type: "stream-start", warnings: [] }, ...parts, finish];
}

const LEAK = ["I'll read it. <", "<CA", "LL read ", '{"path":', '"a.ts"}>', "> done"];

function model(parts: Part[], content: LanguageModelV3Content[] = []) {
  return new MockLanguageModelV3({
    doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
    doGenerate: async () => ({ content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
  });
}

function wrapped(mock: MockLanguageModelV3, options: MiddlewareOptions = {}, faults: StubFaults = {}) {
  return wrapLanguageModel({ model: mock, middleware: repairMiddleware(options, { createEngine: stubFactory(faults) }) });
}

const call = (extra: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions => ({
  prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }],
  tools: [readTool],
  ...extra,
});

async function run(parts: Part[], options: MiddlewareOptions = {}, faults: StubFaults = {}, extra: Partial<LanguageModelV3CallOptions> = {}) {
  const { stream } = await wrapped(model(parts), options, faults).doStream(call(extra));
  return convertReadableStreamToArray(stream);
}

function visibleText(parts: Part[]): string {
  return parts.map((p) => (p.type === "text-delta" ? p.delta : "")).join("");
}

/** Every text-delta must belong to a started, not yet ended text part. */
function expectTextProtocol(parts: Part[]): void {
  const open = new Set<string>();
  for (const part of parts) {
    if (part.type === "text-start") open.add(part.id);
    if (part.type === "text-end") expect(open.delete(part.id)).toBe(true);
    if (part.type === "text-delta") expect(open.has(part.id)).toBe(true);
  }
  expect([...open]).toEqual([]);
}

describe("repairMiddleware wrapStream", () => {
  test("a split leak becomes a tool call with the text ids kept and the finish annotated", async () => {
    const results: AdapterResult[] = [];
    const out = await run(streamOf(textParts("txt-0", LEAK)), { onResult: (r) => results.push(r) });
    expect(out).toEqual([
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "txt-0" },
      { type: "text-delta", id: "txt-0", delta: "I'll read it. " },
      { type: "tool-input-start", id: "stub_0", toolName: "read" },
      { type: "tool-input-delta", id: "stub_0", delta: '{"path":"a.ts"}' },
      { type: "tool-input-end", id: "stub_0" },
      { type: "tool-call", toolCallId: "stub_0", toolName: "read", input: '{"path":"a.ts"}' },
      { type: "text-delta", id: "txt-0", delta: " done" },
      { type: "text-end", id: "txt-0" },
      {
        type: "finish",
        usage,
        finishReason: { unified: "tool-calls", raw: "stop" },
        providerMetadata: { dsmlFix: { recovered: 1, nudge: null } },
      },
    ]);
    expect(results.map((r) => [r.requestTag, r.attempt, r.summary.recovered])).toEqual([[undefined, 1, 1]]);
  });

  test("text held across a text-end is released before that part ends, never after", async () => {
    const parts = streamOf([
      ...textParts("txt-0", ["look <<CALL read"]),
      { type: "reasoning-start", id: "r-0" },
      { type: "reasoning-delta", id: "r-0", delta: "hmm <<CALL read {}>>" },
      { type: "reasoning-end", id: "r-0" },
      ...textParts("txt-1", [' {"path":"b"}>> ok']),
      ...textParts("txt-2", ["and <<CALL"]),
      { type: "text-start", id: "txt-3" },
      { type: "text-end", id: "txt-3" },
    ]);
    const out = await run(parts);
    expectTextProtocol(out);
    const starts = out.flatMap((p) => (p.type === "text-start" ? [p.id] : []));
    expect(starts).toEqual(["txt-0", "txt-1", "txt-2", "txt-3"]);
    expect(out.filter((p) => p.type === "tool-call").map((p) => p.input)).toEqual(['{"path":"b"}']);
    expect(visibleText(out)).toBe("look  okand <<CALL");
    // D06: with content there, only the content's call runs; the reasoning's markup stays in it as written.
    expect(out.filter((p) => p.type === "reasoning-delta")).toEqual([{ type: "reasoning-delta", id: "r-0", delta: "hmm <<CALL read {}>>" }]);
  });

  test("unknown and untouched parts pass through as the same objects", async () => {
    const raw = { type: "raw", rawValue: { anything: 1 } } as Part;
    const source = { type: "source", sourceType: "url", id: "s1", url: "https://example.com" } as Part;
    const future = { type: "some-future-part", payload: "<<CALL read {}>>" } as unknown as Part;
    const meta = { type: "response-metadata", id: "resp-1", modelId: "deepseek-chat" } as Part;
    const out = await run(streamOf([meta, raw, ...textParts("txt-0", ["hi"]), source, future]));
    for (const part of [meta, raw, source, future]) expect(out).toContain(part);
    expect(visibleText(out)).toBe("hi");
  });

  test("a native tool call disables conversion of later markup", async () => {
    const native: Part = { type: "tool-call", toolCallId: "call_n", toolName: "read", input: "{}" };
    const out = await run(streamOf([native, ...textParts("txt-0", ['x <<CALL read {"path":"a"}>> y'])]));
    expect(out.filter((p) => p.type === "tool-call")).toEqual([native]);
    expect(visibleText(out)).toBe("x  y");
    expect(out.at(-1)).toMatchObject({ finishReason: { unified: "stop" }, providerMetadata: { dsmlFix: { recovered: 0 } } });
  });

  test("a stream that ends without a finish part still flushes held text", async () => {
    const parts: Part[] = [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "end <<CALL read" }, { type: "text-end", id: "t" }];
    const out = await run(parts);
    expectTextProtocol(out);
    expect(visibleText(out)).toBe("end <<CALL read");
  });

  test("a delta the engine lets through unchanged goes on as the same part, metadata and all", async () => {
    const plain: Part = { type: "text-delta", id: "txt-0", delta: "plain", providerMetadata: { x: { n: 1 } } };
    const cut: Part = { type: "text-delta", id: "txt-0", delta: "a <", providerMetadata: { x: { n: 2 } } };
    const out = await run(streamOf([{ type: "text-start", id: "txt-0" }, plain, cut, { type: "text-delta", id: "txt-0", delta: "b" }, { type: "text-end", id: "txt-0" }]));
    expect(out[2]).toBe(plain);
    // Once the engine held part of a delta, what it releases is new text, in new parts; the cut
    // delta's metadata rides on the first of them (review 46: the host keeps a part's last metadata).
    expect(out.slice(3, 5)).toEqual([
      { type: "text-delta", id: "txt-0", delta: "a ", providerMetadata: { x: { n: 2 } } },
      { type: "text-delta", id: "txt-0", delta: "<b" },
    ]);
  });

  test("a delta whose part was never started gets a part of its own", async () => {
    const out = await run(streamOf([{ type: "text-delta", id: "orphan", delta: "hi" }]));
    expectTextProtocol(out);
    expect(out.slice(1, 4)).toEqual([
      { type: "text-start", id: "orphan" },
      { type: "text-delta", id: "orphan", delta: "hi" },
      { type: "text-end", id: "orphan" },
    ]);
  });

  test("without declared tools the stream is not touched", async () => {
    const parts = streamOf(textParts("txt-0", LEAK));
    expect(await run(parts, {}, {}, { tools: [] })).toEqual(parts);
  });
});

describe("repairMiddleware degrades to passthrough", () => {
  test.each([
    ["create", { throwOnCreate: true }],
    ["the first feed", { throwOnFeed: 1 }],
  ] as [string, StubFaults][])("an engine failing at %s leaves the parts as they were", async (_, faults) => {
    const lines: string[] = [];
    const parts = streamOf(textParts("txt-0", ["plain ", "text"]));
    const out = await run(parts, { debug: (l) => lines.push(l) }, faults);
    expect(out).toEqual(parts);
    expect(lines.some((l) => l.includes("stub:"))).toBe(true);
  });

  test("an engine failing while it holds a candidate hands the held text back", async () => {
    const out = await run(streamOf(textParts("txt-0", LEAK)), {}, { throwOnFeed: 4 });
    expectTextProtocol(out);
    expect(visibleText(out)).toBe(LEAK.join(""));
    expect(out.some((p) => p.type === "tool-call")).toBe(false);
    expect(out.at(-1)).toMatchObject({ finishReason: { unified: "stop" } });
  });
});

describe("repairMiddleware wrapGenerate", () => {
  test("leaked calls are appended as tool-call content", async () => {
    const mock = model([], [
      { type: "reasoning", text: "<<CALL read {}>>" },
      { type: "text", text: 'Reading. <<CALL read {"path":"a"}>>' },
    ]);
    const result = await wrapped(mock).doGenerate(call());
    // D06: the content's call is the one that runs; the reasoning's markup stays in it as written.
    expect(result.content).toEqual([
      { type: "reasoning", text: "<<CALL read {}>>" },
      { type: "text", text: "Reading. " },
      { type: "tool-call", toolCallId: "stub_0", toolName: "read", input: '{"path":"a"}' },
    ]);
    expect(result.finishReason).toEqual({ unified: "tool-calls", raw: "stop" });
    expect(result.providerMetadata).toEqual({ dsmlFix: { recovered: 1, nudge: null } });
  });

  test("an engine failure returns the original result", async () => {
    const content: LanguageModelV3Content[] = [{ type: "text", text: '<<CALL read {"path":"a"}>>' }];
    const result = await wrapped(model([], content), {}, { throwOnFlush: true }).doGenerate(call());
    expect(result.content).toEqual(content);
    expect(result.finishReason).toEqual({ unified: "stop", raw: "stop" });
  });
});

describe("repairMiddleware transformParams", () => {
  test("the tag header is stripped and reported; sanitizeHistory shapes the prompt", async () => {
    const results: AdapterResult[] = [];
    const mock = model(streamOf(textParts("txt-0", LEAK)));
    const model2 = wrapped(mock, {
      onResult: (r) => results.push(r),
      sanitizeHistory: (prompt) => [{ role: "system", content: "clean" }, ...prompt],
    });
    for (let i = 0; i < 2; i++) {
      const { stream } = await model2.doStream(call({ headers: { "x-dsml-fix-tag": "ses_1/msg_1", "x-other": "kept" } }));
      await convertReadableStreamToArray(stream);
    }
    expect(mock.doStreamCalls[0]?.headers).toEqual({ "x-other": "kept" });
    expect(mock.doStreamCalls[0]?.prompt[0]).toEqual({ role: "system", content: "clean" });
    expect(results.map((r) => [r.requestTag, r.attempt])).toEqual([
      ["ses_1/msg_1", 1],
      ["ses_1/msg_1", 2],
    ]);
  });
});

describe("repairMiddleware under streamText", () => {
  test("the leak surfaces as a tool-call part with a parsed input", async () => {
    const result = streamText({
      model: wrapped(model(streamOf(textParts("txt-0", LEAK)))),
      prompt: "read a.ts",
      tools: { read: tool({ inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }) }) },
    });
    const parts = [];
    for await (const part of result.fullStream) parts.push(part);
    expect(parts.filter((p) => p.type === "tool-call").map((p) => [p.toolName, p.input])).toEqual([["read", { path: "a.ts" }]]);
    expect(await result.text).toBe("I'll read it.  done");
    expect(await result.finishReason).toBe("tool-calls");
  });
});
