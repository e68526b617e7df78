// AI SDK middleware, stream path: text parts written at once (review 43). Their deltas are no one
// text, so once a delta comes for one part while the part read last is still open, the repair
// stands aside for the rest of the reply (src/adapters/middleware/stream.ts, standAside): nothing
// held is decided, the calls already recovered stand, every character stays visible under its
// own part. Parts one after the other are still one text (one documentation context).
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";

type Part = LanguageModelV3StreamPart;

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const CALL = '<tool_call>{"name":"read","arguments":{"path":"/etc/passwd"}}</tool_call>';
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "show me the call format" }] }], tools: [read] } as LanguageModelV3CallOptions;

const start = (id: string): Part => ({ type: "text-start", id });
const end = (id: string): Part => ({ type: "text-end", id });
/** One text-delta per piece of `text` (`size` characters each; 0: the whole text). */
const deltas = (id: string, text: string, size = 0): Part[] => {
  const out: Part[] = [];
  for (let i = 0; i < text.length; i += size || text.length) out.push({ type: "text-delta", id, delta: text.slice(i, i + (size || text.length)) });
  return out;
};

async function streamed(parts: Part[], extra: Partial<LanguageModelV3CallOptions> = {}) {
  const lines: string[] = [];
  const results: AdapterResult[] = [];
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, ...parts, { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } }]) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({ debug: (line) => lines.push(line), onResult: (result) => results.push(result) }) });
  const { stream } = await model.doStream({ ...params, ...extra });
  const out = await convertReadableStreamToArray(stream);
  const text: Record<string, string> = {};
  for (const part of out) if (part.type === "text-delta") text[part.id] = (text[part.id] ?? "") + part.delta;
  const finish = out.find((part) => part.type === "finish");
  return { out, text, calls: out.filter((part) => part.type === "tool-call").map((part) => part.toolName), lines, results, finish };
}

/** Every text-delta comes between its part's start and end. */
function wellFormed(out: Part[]): boolean {
  const open = new Set<string>();
  for (const part of out) {
    if (part.type === "text-start") open.add(part.id);
    else if (part.type === "text-end" && !open.delete(part.id)) return false;
    else if (part.type === "text-delta" && !open.has(part.id)) return false;
  }
  return open.size === 0;
}

describe("interleaved text parts", () => {
  for (const size of [0, 1, 3]) {
    test(`a fenced example in one part never runs on the other's fence (deltas of ${size || "whole"})`, async () => {
      const run = await streamed([start("a"), start("b"), ...deltas("a", "```\n", size), ...deltas("b", "x\n```\n", size), ...deltas("a", `${CALL}\n\`\`\`\n`, size), end("a"), end("b")]);
      expect(run.calls).toEqual([]);
      expect(run.text).toEqual({ a: `\`\`\`\n${CALL}\n\`\`\`\n`, b: "x\n```\n" });
      expect(wellFormed(run.out)).toBe(true);
      expect(run.lines.some((line) => line.includes("text parts interleave"))).toBe(true);
    });
  }

  test("markup the engine held when the parts interleave is handed back as written, and never runs", async () => {
    const run = await streamed([start("a"), start("b"), ...deltas("a", 'Now: <tool_call>{"name":"read",', 1), ...deltas("b", "hi"), ...deltas("a", '"arguments":{"path":"/etc/passwd"}}</tool_call>'), end("a"), end("b")]);
    expect(run.calls).toEqual([]);
    expect(run.text).toEqual({ a: `Now: ${CALL}`, b: "hi" });
    expect(wellFormed(run.out)).toBe(true);
  });

  test("a call recovered before the parts interleave stands; the text held after it is shown, not stripped", async () => {
    const run = await streamed([start("a"), start("b"), ...deltas("a", `Reading.\n${CALL}\nResult: ok`), ...deltas("b", "hi"), ...deltas("a", " done"), end("a"), end("b")]);
    expect(run.calls).toEqual(["read"]);
    expect(run.text).toEqual({ a: "Reading.\n\nResult: ok done", b: "hi" });
    expect(run.finish).toMatchObject({ finishReason: { unified: "tool-calls" } });
    expect(run.results.map((result) => result.summary.recovered)).toEqual([1]);
  });

  // It went out here until review 46: a native call later in the reply could then no longer
  // withdraw it, and a reply allowed one call made two. A wrong execution outranks a missing repair.
  test("with one call per reply, a call held back for the reply's end never runs: its markup is shown, reported broken-markup", async () => {
    const oneCall = { providerOptions: { openai: { parallelToolCalls: false } } };
    const run = await streamed([start("a"), start("b"), ...deltas("a", `${CALL}\n`), ...deltas("b", "hi"), end("a"), end("b")], oneCall);
    expect(run.calls).toEqual([]);
    expect(run.text).toEqual({ a: `${CALL}\n`, b: "hi" });
    expect(wellFormed(run.out)).toBe(true);
    expect(run.results.map((result) => result.summary.broken.map((b) => b.reason))).toEqual([["broken-markup"]]);
  });
});

describe("text parts one after the other are one text", () => {
  test("a fence opened in one part holds in the next", async () => {
    const run = await streamed([start("a"), ...deltas("a", "Example:\n```\n"), end("a"), start("b"), ...deltas("b", `${CALL}\n\`\`\`\n`, 2), end("b")]);
    expect(run.calls).toEqual([]);
    expect(run.text).toEqual({ a: "Example:\n```\n", b: `${CALL}\n\`\`\`\n` });
    expect(run.lines.some((line) => line.includes("text parts interleave"))).toBe(false);
  });

  test("a part started early whose text comes after the other part ended is still read: its call runs", async () => {
    const run = await streamed([start("a"), start("b"), ...deltas("a", "Sure.\n"), end("a"), ...deltas("b", CALL), end("b")]);
    expect(run.calls).toEqual(["read"]);
    expect(run.lines.some((line) => line.includes("text parts interleave"))).toBe(false);
  });
});
