/**
 * Review 56, DSML (hostile, tests only): a value whose own parameter closer comes twice. Inside an
 * invoke, a DSML (or Claude-style) parameter closer that closes nothing, with no value open, is
 * dropped without a word (src/parse/dialects/dsml/walk.ts closeParam: `if (!top) return`). So a
 * page that documents the closer, on its last line or at the end of its last sentence, right
 * before the write's own closer, is read as the value ended at the page's closer and the write's
 * closer as noise: the write runs with the page cut. Qwen3-Coder refuses the same shape (G44.2,
 * "a `</parameter>` that closes no open value refuses the call"), and after the invoke closer
 * DSML refuses it too (A46.1-A46.6: "which set is the write's is unknowable").
 *
 * Every outcome runs whole, char by char and at seeded random splits (test/support/outcome.ts);
 * those agree today, so each failing test fails on the call, not on split dependence.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";
import { block, neverCut, P } from "./dsml-never-cut.ts";


// Finding 1 (severity: WRONG EXECUTION, a truncated file or a different edit). What is wrong: a DSML
// write whose page ends with the parameter closer (on its own last line, or as the last words of
// a sentence: `Close each value with </{D}parameter>`) directly followed by the write's own
// `</{D}parameter>` runs with the page cut at the page's closer ("Close each value with ", its
// trailing space included); the write's own closer, which then closes nothing inside the invoke,
// is dropped silently. Which of the two closers is the value's own is unknowable (the same tags
// as a model that stuttered its closer), so PATTERNS' rule for closers in values applies: "never a
// truncated or padded file or command". Qwen3-Coder refuses it (G44.2); DSML refuses the stray
// closer after the invoke closer (A46.*) but not before it. The same in the Claude-style spelling
// and in an orphan invoke; an edit's oldString cut the same way replaces another text.
// Minimal input: <{D}tool_calls>⏎<{D}invoke name="write">⏎<{D}parameter name="filePath"
//   string="true">a.md</{D}parameter>⏎<{D}parameter name="content" string="true">Close each value
//   with </{D}parameter></{D}parameter>⏎</{D}invoke>⏎</{D}tool_calls>
// Today: write {filePath: "a.md", content: "Close each value with "} runs.
// Expected: refused (broken-markup, text kept), as G44.2 and A46.2; or the page written whole.
// Suspected: src/parse/dialects/dsml/walk.ts closeParam (a closer with no value open is dropped)
// and src/parse/dialects/dsml/verdict.ts (nothing refuses an invoke that showed one); the stream
// side (src/engine/candidate.ts, src/parse/dsml-value.ts) agrees with it today.
// Fixed: a parameter closer that closes no open value inside an invoke refuses the invoke as broken
// markup (I04), text kept, the correction nudge given (walk.ts strayCloser), as G44.2 and A46.2.
// Kept: right after a self-closing parameter (P43.1), and a closer of another family than a value
// its own family's closer ended (plain-markup-values.test.ts). The cost, pinned below: a model that
// stutters its closer is refused.
describe("finding 1: a DSML value's parameter closer written twice (the page ends with the closer)", () => {
  test("a write whose page's last words are the closer: never written cut", () => {
    const page = "# DSML\nClose each value with </{D}parameter>";
    neverCut(block("write", P("filePath", "a.md"), P("content", page)), { tool: "write", input: { filePath: "a.md", content: live(page) } });
  });
  test("a write whose page's last line is the closer: never written cut", () => {
    const page = "# DSML\nA value ends with\n</{D}parameter>\n";
    neverCut(block("write", P("filePath", "a.md"), P("content", page)), { tool: "write", input: { filePath: "a.md", content: live(page) } });
  });
  test("the page's closer in the U+2016 spelling: never written cut", () => {
    const page = "# DSML\nSome models write\n</{DVL}DSML{DVL}parameter>\n";
    neverCut(block("write", P("filePath", "a.md"), P("content", page)), { tool: "write", input: { filePath: "a.md", content: live(page) } });
  });
  test("an edit whose oldString ends with the closer: never run with another oldString", () => {
    const old = "intro\n</{D}parameter>\n";
    neverCut(block("edit", P("filePath", "a.md"), P("oldString", old), P("newString", "x")), { tool: "edit", input: { filePath: "a.md", oldString: live(old), newString: "x" } });
  });
  test("the value is the first parameter, the next one after the closers: never written cut", () => {
    const page = "doc\n</{D}parameter>\n";
    neverCut(block("write", P("content", page), P("filePath", "a.md")), { tool: "write", input: { content: live(page), filePath: "a.md" } });
  });
  test("an orphan invoke (no block): never written cut", () => {
    const page = "doc\n</{D}parameter>\n";
    neverCut(`<{D}invoke name="write">\n${P("filePath", "a.md")}\n${P("content", page)}\n</{D}invoke>`, { tool: "write", input: { filePath: "a.md", content: live(page) } });
  });
  test("the Claude-style spelling: never written cut", () => {
    const input = `<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">doc\n</parameter>\n</parameter>\n</invoke>\n</function_calls>`;
    neverCut(input, { tool: "write", input: { filePath: "a.md", content: "doc\n</parameter>\n" } });
  });
});

describe("finding 1, hard negatives (pass today)", () => {
  test("Qwen3-Coder's doubled parameter closer is refused, text kept (G44.2)", () => {
    const input = `<tool_call>\n<function=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\ndoc\n</parameter>\n</parameter>\n</function>\n</tool_call>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("a plain `</parameter>` as the page's last line is the page's text: written whole (M07)", () => {
    const o = outcome(live(block("write", P("filePath", "a.md"), P("content", "doc\n</parameter>\n"))));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "doc\n</parameter>\n" } }]);
  });
  test("a wrapped tool's closing parameter closer is no stray (I02): the call runs", () => {
    const o = outcome(live(`<{D}parameter name="edit">\n${P("filePath", "a.kt")}\n${P("oldString", "val a = 1")}\n${P("newString", "val a = 2")}\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`));
    expect(o.calls).toEqual([{ tool: "edit", input: { filePath: "a.kt", oldString: "val a = 1", newString: "val a = 2" } }]);
  });
  test("a page that quotes the closer mid-sentence and goes on is written whole", () => {
    const page = "A value ends with </{D}parameter> and then the invoke closes.";
    const o = outcome(live(block("write", P("filePath", "a.md"), P("content", page))));
    expect(o.calls.length === 0 || JSON.stringify(o.calls) === JSON.stringify([{ tool: "write", input: { filePath: "a.md", content: live(page) } }])).toBe(true);
  });
  test("a clean write and a clean bash call still run", () => {
    expect(outcome(live(block("write", P("filePath", "a.md"), P("content", "# Doc\n")))).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "# Doc\n" } }]);
    expect(outcome(live(block("bash", P("command", "ls -la")))).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});

describe("finding 1, the rule's edges", () => {
  // The cost of the fix, accepted: a model that stutters its closer writes the same tags as a page
  // ending with the closer, so its call is refused too (text kept, nudged), never run.
  test("cost: a stuttered closer after a plain value is refused, text kept, nudged", () => {
    const input = live(block("bash", `<{D}parameter name="command" string="true">ls -la</{D}parameter></{D}parameter>`));
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });
  test("a parameter closer before any value closes nothing: refused, text kept", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n</{D}parameter>\n${P("command", "ls -la")}\n</{D}invoke>\n</{D}tool_calls>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });
  test("a Claude-style value the DSML closer ended, then its own closer: refused (either closer may be the value's)", () => {
    const input = live(`<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">doc\n</{D}parameter>\n</parameter>\n</invoke>\n</function_calls>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("the stray closer after a wrapped tool's closer inside an invoke: refused", () => {
    const input = live(block("edit", `<{D}parameter name="edit">\n${P("filePath", "a.kt")}\n${P("oldString", "doc\n</{D}parameter>\n")}\n${P("newString", "x")}\n</{D}parameter>\n</{D}parameter>`));
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("hard negative: a self-closing parameter closed again still runs (P43.1)", () => {
    const o = outcome(live(block("bash", `<{D}parameter name="command" value="ls -la"/>\n</{D}parameter>`)));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
  test("hard negative: a plain value its own closer ended, then a DSML closer, still runs", () => {
    const o = outcome(live(block("bash", `${P("command", "ls -la")}\n<parameter name="timeout">600</parameter>\n</{D}parameter>`)));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la", timeout: 600 } }]);
  });
  test("a value that quotes the closer and goes on: the rest is text outside every parameter, refused as before, never cut", () => {
    const input = live(block("write", P("content", "doc\n</{D}parameter>\nmore\n"), P("filePath", "a.md")));
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });
  test("hard negative: a runaway value then a stray closer is refused as the runaway (P03, golden P47.7)", () => {
    const input = live(block("write", `<{D}parameter name="content" string="true">doc:\n${P("filePath", "/etc/passwd")}\n</{D}parameter>`));
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});
