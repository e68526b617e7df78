/**
 * Review 56 (hostile, tests only): documentation state never crosses between the reasoning and the
 * text channel, and markup in the reasoning runs only as its trailing block (D06), through the
 * middleware with reasoning in one part or several. No finding: these pass on main and pin what
 * must keep working (src/engine/reasoning-channel.ts).
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { block, live } from "../golden/notation.ts";

type Part = LanguageModelV3StreamPart;
const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }], tools: [read] } as LanguageModelV3CallOptions;

/** A delta of the reasoning ("r") or the text ("t"); `id` names its part (default: one per channel run). */
type Seg = [channel: "r" | "t", delta: string, id?: string];

async function run(segs: Seg[]) {
  const parts: Part[] = [];
  let open: string | null = null;
  const end = (id: string) => parts.push({ type: id.startsWith("r") ? "reasoning-end" : "text-end", id } as Part);
  for (const [channel, delta, id] of segs) {
    const want = id ?? `${channel}0`;
    if (open !== want) {
      if (open) end(open);
      parts.push({ type: channel === "r" ? "reasoning-start" : "text-start", id: want } as Part);
      open = want;
    }
    parts.push({ type: channel === "r" ? "reasoning-delta" : "text-delta", id: want, delta } as Part);
  }
  if (open) end(open);
  const stream = convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, ...parts, { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } }]);
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream }) });
  const out = await convertReadableStreamToArray((await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doStream(params)).stream);
  return {
    calls: out.filter((p) => p.type === "tool-call").map((p) => (p as { input: string }).input),
    text: out.filter((p) => p.type === "text-delta").map((p) => (p as { delta: string }).delta).join(""),
    reasoning: out.filter((p) => p.type === "reasoning-delta").map((p) => (p as { delta: string }).delta).join(""),
  };
}

const written = (segs: Seg[], channel: "r" | "t") => segs.filter((s) => s[0] === channel).map((s) => s[1]).join("");

describe("documentation opened in the reasoning holds there, across parts, and never reaches the text", () => {
  const HELD: [string, Seg[]][] = [
    ["a fence, then the block in a later reasoning part", [["r", "Example:\n```\n", "r1"], ["r", DSML, "r2"]]],
    ["a fence, white space in the text, then the block", [["r", "Example:\n```\n"], ["t", "\n"], ["r", DSML]]],
    ["an inline code span left open, the block in a later part", [["r", "a `b\n", "r1"], ["r", DSML, "r2"]]],
    ["a comment left open", [["r", "<!--\n" + DSML]]],
    ["a block quote's lazy line", [["r", "> Example:\n" + DSML]]],
    ["indented code after a blank line", [["r", "text\n\n    " + HERMES]]],
  ];
  for (const [name, segs] of HELD) {
    test(`${name}: no call, the reasoning as written`, async () => {
      const v = await run(segs);
      expect(v.calls).toEqual([]);
      expect(v.reasoning).toBe(written(segs, "r"));
      expect(v.text).toBe(written(segs, "t"));
    });
  }

  test("a fence opened in the reasoning does not hold the text's call (the text has its own context)", async () => {
    const v = await run([["r", "```\n"], ["t", DSML]]);
    expect(v.calls).toEqual(['{"path":"a.ts"}']);
    expect(v.reasoning).toBe("```\n");
  });

  test("a fence opened in the text is no reason for the reasoning's block to run (the text is not blank)", async () => {
    const segs: Seg[] = [["t", "```\n"], ["r", DSML]];
    const v = await run(segs);
    expect(v.calls).toEqual([]);
    expect(v.text).toBe("```\n");
    expect(v.reasoning).toBe(DSML);
  });

  test("a call cut between the text and a later reasoning part does not run from either", async () => {
    const segs: Seg[] = [["t", DSML.slice(0, 20)], ["r", DSML.slice(20)]];
    const v = await run(segs);
    expect(v.calls).toEqual([]);
    expect(v.text).toBe(DSML.slice(0, 20));
    expect(v.reasoning).toBe(DSML.slice(20));
  });

  test("a Hermes opener in the reasoning and its body in the text: no call, both kept", async () => {
    const segs: Seg[] = [["r", '<tool_call>{"name":"read","arguments":{"path":"'], ["t", 'a.ts"}}</tool_call>']];
    const v = await run(segs);
    expect(v.calls).toEqual([]);
    expect(v.reasoning).toBe(written(segs, "r"));
    expect(v.text).toBe(written(segs, "t"));
  });

  test("control: the reasoning's trailing block runs when the reasoning is the whole answer", async () => {
    const v = await run([["r", "Plan:\n" + DSML]]);
    expect(v.calls).toEqual(['{"path":"a.ts"}']);
    expect(v.reasoning).toBe("Plan:\n");
  });

  test("a call the reasoning weighed mid-line never runs", async () => {
    const v = await run([["r", "I might do " + HERMES]]);
    expect(v.calls).toEqual([]);
    expect(v.reasoning).toBe("I might do " + HERMES);
  });
});
