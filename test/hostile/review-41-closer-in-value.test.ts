/**
 * Review 41, rule 1 (closer-in-value, src/parse/closer-in-value.ts): a closer inside a value is
 * content if text follows on its line, or if the value's parameter closer is the next thing
 * written. Every case runs whole, char by char and at seeded splits.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

function run(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => b.reason), stripped: r.summary.stripped };
}

describe("a parameter closer next proves the closer was content, in the mixed-prefix form too (M07)", () => {
  // Severity: wrong-execution (a value cut short). Likely: src/parse/closer-in-value.ts
  // closerWasContent (`next.family === rule.valueCloser`: only a DSML-family parameter closer
  // counts), as used by src/parse/dialects/dsml/walk.ts closerInValue and src/engine/candidate.ts.
  // test/parse/closer-in-value.test.ts ("alone on its line, a parameter closer next: still the
  // value's text") holds this for `</{D}parameter>`; golden M07 accepts a prefix-less
  // `</parameter>` as a DSML parameter's closer. Observed here: `bash {command: "ls -la"}` runs,
  // the `</parameter>` that came after the invoke closer is stripped as noise.
  test("invoke closer alone on its line, then a prefix-less </parameter>: `ls -la` must not run cut short", () => {
    const o = run(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la\n</{D}invoke>\n</parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls.some((c) => c.input.command === "ls -la")).toBe(false);
  });

  test("same with the block's own closer right after the </parameter>", () => {
    const o = run(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la\n</{D}invoke>\n</parameter>\n</{D}tool_calls>`);
    expect(o.calls.some((c) => c.input.command === "ls -la")).toBe(false);
  });
});

describe("Unicode spaces after a closer (missed repair, low)", () => {
  // Severity: missed-repair. Likely: src/parse/closer-ends-call.ts closerEndsCall (and the
  // engine's twin in src/engine/candidate.ts) count only space, tab, CR and LF as spaces, so a
  // no-break space after P01's invoke closer reads as text after it: the call is refused
  // (broken-markup) where golden P01 ("alone on its line, the block closer next") runs it.
  test("a no-break space after P01's invoke closer", () => {
    const o = run(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}invoke>\u00a0\n</{D}tool_calls>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});

describe("hard negatives (pass today)", () => {
  test("a tab, then text after the closer: the closer is the command's text", () => {
    const o = run(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}invoke>\t&& rm -rf build</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: live(`echo "</{D}invoke>\t&& rm -rf build`) } }]);
  });

  test("two closers in one value, both with text after them", () => {
    const o = run(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}invoke>" a "</{D}invoke>" b</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: live(`echo "</{D}invoke>" a "</{D}invoke>" b`) } }]);
  });

  test("the first closer with text after it, the second alone before the block closer: refused", () => {
    const o = run(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}invoke>" a\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("a JSON value (string=false) holding an invoke closer in a string", () => {
    const o = run(`<{D}tool_calls>\n<{D}invoke name="todowrite">\n<{D}parameter name="todos" string="false">[{"content":"</{D}invoke>","status":"pending"}]</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls).toEqual([{ tool: "todowrite", input: { todos: [{ content: live("</{D}invoke>"), status: "pending" }] } }]);
  });

  test("Qwen3-Coder: </function> then a lone CR and text: the command's text", () => {
    const o = run(`<tool_call>\n<function=bash>\n<parameter=command>\necho "</function>"\rrm -rf b\n</parameter>\n</function>\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: `echo "</function>"\rrm -rf b` } }]);
  });
});
