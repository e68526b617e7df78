/**
 * Review 49 (rules): the most severe engine findings of this review, end to end through the fetch
 * adapter (chat completions, streamed in 7-character deltas) and the AI SDK middleware, so the
 * lead sees they reach a host: a block closer named mid-sentence ending the stray watch, a Chinese
 * sentence showing a costume, a degraded workdir opener with a spaced `name=`.
 *
 * Each failing test (test.failing) says what is wrong, its severity and the suspected file.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { deltas, sseText, textStream, throughFetch, throughMiddleware, openAiTools } from "../security/support.ts";

const rm = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const cases = [
  // medium: see review-49-rules-block (src/engine/call-run.ts closesBlockAfterCall / text-mode.ts)
  ["block closer named mid-sentence, then the stray workdir, then the real closer", live(`Cleaning.\n<{D}tool_calls>\n${rm}\nThe block ends with </{D}tool_calls> here.\n<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n</{D}tool_calls>`)],
  // medium-low: see review-49-rules-paragraph (src/engine/tentative-closer.ts sentenceGoesOn)
  ["a costume shown in a Chinese sentence", "这个代理会把命令写成\n<bash>\nrm -rf build\n</bash>\n放在回复里。"],
  // medium: see review-49-rules-runaway (src/parse/unread-opener.ts valueIsName)
  ["a degraded workdir opener with `name= `", live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*\n<{BAR}parameter name= "workdir">/tmp/scratch</{BAR}parameter>\n</{D}invoke>\n</{D}tool_calls>`)],
] as const;

/** Cases whose rule is kept now: plain tests; the rest stay test.failing until fixed. */
const fixed: ReadonlySet<string> = new Set(["a costume shown in a Chinese sentence"]);

describe("findings end to end: no call reaches the host", () => {
  for (const [name, reply] of cases) {
    const check = fixed.has(name) ? test : test.failing;
    check(`fetch adapter, chat stream: ${name}`, async () => {
      const { out } = await throughFetch({ model: "deepseek-chat", messages: [{ role: "user", content: "go" }], tools: openAiTools() }, { sse: sseText(deltas(reply, 7)) });
      expect(out.calls).toEqual([]);
    });
    check(`middleware stream: ${name}`, async () => {
      const run = await throughMiddleware([{ role: "user", content: [{ type: "text", text: "go" }] }], textStream(reply));
      expect(run.calls).toEqual([]);
    });
  }
});

describe("controls: the same shapes the rules already refuse reach the host as text", () => {
  const refused = live(`Cleaning.\n<{D}tool_calls>\n${rm}\n<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n</{D}tool_calls>`);
  test("fetch adapter: stray before the real closer", async () => {
    const { out } = await throughFetch({ model: "deepseek-chat", messages: [{ role: "user", content: "go" }], tools: openAiTools() }, { sse: sseText(deltas(refused, 7)) });
    expect(out.calls).toEqual([]);
    expect(out.content).toBe(refused);
  });
  test("middleware: the English sentence of golden N48.2", async () => {
    const text = "The agent wraps commands like\n<bash>\nrm -rf build\n</bash>\n(in its replies).";
    const run = await throughMiddleware([{ role: "user", content: [{ type: "text", text: "go" }] }], textStream(text));
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(text);
  });
});
