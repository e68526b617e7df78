/**
 * History of a value opened outside any readable invoke (src/engine/loose-value.ts; golden S46.1,
 * S46.3): the model wrote a call whose invoke or function tag the grammar cannot read (an NBSP in
 * it), so its parameter openers reach the reading outside any candidate. The live repair keeps all
 * of it visible and reports it once (D08); that report spans the broken call from its first loose
 * parameter opener to its last closer read, so the replayed reply loses every parameter opener of
 * that call to one note (the model never sees one to imitate), keeps the prose around it exactly,
 * and nothing in it becomes a call. A value that never closes gives up its opener alone; a
 * parameter opener mentioned in a sentence or in inline code is no markup and stays as written.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const QWEN_EXAMPLE = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>\n</tool_call>";
/** Golden S46.1: a Claude-style write whose invoke tag has an NBSP for its space. */
const CLAUDE_OPEN = '<function_calls>\n<invoke\u00A0name="write">\n';
const CLAUDE_PARAMS = `<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n${QWEN_EXAMPLE}\n</parameter>\n</invoke>`;
const S46_1 = `${CLAUDE_OPEN}${CLAUDE_PARAMS}\n</function_calls>`;
/** Golden S46.3: a Qwen3-Coder write whose function tag has an NBSP before its `=`. */
const QWEN_OPEN = "<tool_call>\n<function\u00A0=write>\n";
// The function's closer is the invoke's (as `</invoke>` in S46.1): read since quoted Qwen3-Coder calls are tracked (review 50), the span reaches it.
const QWEN_PARAMS = `<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\nExample:\n${QWEN_EXAMPLE}\n</parameter>\n</function>`;
const S46_3 = `${QWEN_OPEN}${QWEN_PARAMS}\n</tool_call>`;

const BEFORE = "I'll write the page now.\n\n";
const AFTER = "\n\nDone: the page lists the calls.\n";

/** Redacted with the fixture tools and with none given (the plugin: OpenCode's built-ins), alike. */
function redactBoth(text: string): string {
  const withTools = redactLeaks(text, {}, fixtureTools);
  const builtins = redactLeaks(text);
  expect(builtins.text).toBe(withTools.text);
  return withTools.text;
}

/** The redacted text read as a live reply: no call, no markup nudged on. */
function actsLive(text: string, tools: readonly ToolSpec[] = fixtureTools): { calls: number; broken: number } {
  const r = parse(text, tools);
  return { calls: r.calls.length, broken: r.broken.length };
}

const notes = (text: string) => text.split(REMOVED_NOTE).length - 1;

describe("history: a value opened outside any readable invoke loses its whole call's markup", () => {
  test("S46.1 with prose before and after: one note from the first parameter opener to the invoke closer, the prose exact", () => {
    const out = redactBoth(`${BEFORE}${S46_1}${AFTER}`);
    expect(out).toBe(`${BEFORE}${CLAUDE_OPEN}${REMOVED_NOTE}\n</function_calls>${AFTER}`);
    expect(out).not.toContain("<parameter");
    expect(actsLive(out)).toEqual({ calls: 0, broken: 0 });
  });

  test("S46.3 with prose before and after: one note over both Qwen3-Coder parameters and the function's closer, the prose exact", () => {
    const out = redactBoth(`${BEFORE}${S46_3}${AFTER}`);
    expect(out).toBe(`${BEFORE}${QWEN_OPEN}${REMOVED_NOTE}\n</tool_call>${AFTER}`);
    expect(out).not.toContain("<parameter");
    expect(actsLive(out)).toEqual({ calls: 0, broken: 0 });
  });

  test("the golden inputs alone: nothing left that the live repair acts on", () => {
    for (const text of [S46_1, S46_3]) {
      const out = redactLeaks(text, {}, fixtureTools);
      expect([out.removed, notes(out.text), out.text.includes("<parameter")]).toEqual([1, 1, false]);
      expect(actsLive(out.text)).toEqual({ calls: 0, broken: 0 });
    }
  });

  test("a second loose value later in the reply: a note for each call, the prose between them exact", () => {
    const between = "\n\nAnd the second page:\n\n";
    const second = '<invoke\u00A0name="write">\n<parameter name="filePath">b.md</parameter>\n<parameter name="content">second</parameter>\n</invoke>';
    const text = `${BEFORE}${S46_1}${between}${second}${AFTER}`;
    const r = parse(text, fixtureTools);
    expect([r.calls.length, r.text, r.broken.map((b) => b.shape)]).toEqual([0, text, ["D08", "D08"]]);
    const out = redactBoth(text);
    expect(out).toBe(`${BEFORE}${CLAUDE_OPEN}${REMOVED_NOTE}\n</function_calls>${between}<invoke\u00A0name="write">\n${REMOVED_NOTE}${AFTER}`);
    expect(actsLive(out)).toEqual({ calls: 0, broken: 0 });
  });

  test("a value that never closes: only its opener goes, the text after it is kept", () => {
    const value = "Example text that goes on\nto the end of the reply.\n";
    const out = redactBoth(`${BEFORE}<invoke\u00A0name="write">\n<parameter name="content">${value}`);
    expect(out).toBe(`${BEFORE}<invoke\u00A0name="write">\n${REMOVED_NOTE}${value}`);
  });

  test("a second parameter whose value never closes: the note ends at that opener, its text kept", () => {
    const text = `<invoke\u00A0name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">hello\nworld\n`;
    const out = redactBoth(text);
    expect(out).toBe(`<invoke\u00A0name="write">\n${REMOVED_NOTE}hello\nworld\n`);
    expect(out).not.toContain("<parameter");
  });

  test("hard negatives: a parameter opener mentioned in a sentence or in inline code stays as written", () => {
    for (const text of [
      'The tag <parameter name="content"> opens a value, and </parameter> closes it.\n',
      'Pass the body with `<parameter name="content">` and close it with `</parameter>`.\n',
      "Qwen3-Coder writes `<parameter=content>` on its own line, then `</parameter>`.\n",
    ]) {
      for (const out of [redactLeaks(text, {}, fixtureTools), redactLeaks(text)]) expect([out.text, out.removed]).toEqual([text, 0]);
    }
  });
});

describe("live: the loose value's report spans its call, nothing else changes", () => {
  test("S46.1 and S46.3: no call, every character visible, one D08 from the first parameter opener to the last closer read, at every split", () => {
    for (const [text, markup] of [
      [S46_1, CLAUDE_PARAMS],
      [S46_3, QWEN_PARAMS],
    ] as const) {
      const run = runAtEverySplit(text, fixtureTools);
      expect(run.calls).toEqual([]);
      expect(run.text).toBe(text);
      expect(run.summary.nudge).toBe("broken-markup");
      expect(run.summary.broken.map((b) => [b.shape, text.slice(b.span[0], b.span[1])])).toEqual([["D08", markup]]);
    }
  });
});
