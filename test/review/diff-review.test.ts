/**
 * Review findings (differential): each test is one root cause, found by the properties in
 * diff-paths.property.test.ts and diff-parts.property.test.ts and shrunk by hand. Each one fails
 * on the code as reviewed.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { anthropicJson, anthropicStream, responsesJson, responsesStream, show } from "./diff-harness.ts";

const BASH = '<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</tool_call>';
const READ = '<tool_call>\n{"name":"read","arguments":{"filePath":"/a"}}\n</tool_call>';

describe("F1: Responses parts end the post-call tail as if the reply ended", () => {
  // Prose between two leaked calls, the second call in the next output_text part (or message item).
  const parts = [`Let me check.\n\n${BASH}\n\nNow the file:\n\n`, READ];
  const whole = parse(parts.join(""), fixtureTools);
  const expected = { calls: whole.calls.map((c) => ({ tool: c.tool, input: c.input })), text: whole.text };

  test("the whole text keeps the prose between the calls (and Anthropic blocks do too)", async () => {
    expect(whole.text).toBe("Let me check.\n\n\n\nNow the file:\n\n");
    const s = { text: parts.join("") };
    const a = await anthropicJson(s, parts, true);
    expect(show({ calls: a.calls, text: a.text })).toBe(show(expected));
    const b = await anthropicStream(s, 3, parts, true);
    expect(show({ calls: b.calls, text: b.text })).toBe(show(expected));
  });

  for (const [name, items] of [["two output_text parts", [parts]], ["two message items", parts.map((p) => [p])]] as const) {
    test(`${name}, JSON: the prose after the first call stays visible`, async () => {
      const r = await responsesJson({ text: parts.join("") }, items as string[][]);
      expect(show({ calls: r.calls, text: r.text })).toBe(show(expected));
    });
    test(`${name}, stream: the prose after the first call stays visible`, async () => {
      const r = await responsesStream({ text: parts.join("") }, 5, items as string[][]);
      expect(show({ calls: r.calls, text: r.text })).toBe(show(expected));
    });
  }
});

describe("F2: a fenced example runs when an unclosed call before it swallowed the fence's opener", () => {
  // A call cut off mid-parameter, then the model shows a complete block inside a ```xml fence.
  // Split into two Anthropic text blocks at the fence, nothing runs; as one text, the fenced
  // example's `rm -rf x` is recovered as a call (documentation must never execute).
  const blk = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const truncated = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">cut off\n\n`);
  const fenced = "```xml\n" + blk + "\n```\n";

  test("parse(): no call comes from inside the fence", () => {
    const result = parse(truncated + fenced, fixtureTools);
    expect(show(result.calls.map((c) => c.input))).toBe("[]");
  });

  test("the same reply split at the fence (two Anthropic text blocks) runs nothing: the paths agree only if the whole text runs nothing", async () => {
    const split = await anthropicJson({ text: truncated + fenced }, [truncated, fenced], true);
    expect(split.calls).toEqual([]);
    const whole = await anthropicJson({ text: truncated + fenced });
    expect(show(whole.calls)).toBe(show(split.calls));
  });
});
