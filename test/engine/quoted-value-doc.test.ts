/**
 * A call quoted in block documentation whose value is still open keeps everything up to the
 * value's own closer documentation, whatever CommonMark says about the block around it (review
 * 45, finding 5; DocContext.noteQuotedTag in src/engine/doc-context.ts). The findings' own cases
 * are in test/hostile/review-45-dsml-engine.test.ts; here the other dialects and containers, and
 * the hard negatives: a real call after documentation that left no quoted value open still runs.
 * Every case runs whole, char by char and at five seeded random splits (runAtEverySplit).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { DocContext } from "../../src/engine/doc-context.ts";
import { TwoReadings } from "../../src/engine/two-readings.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK } from "../support/cut-off-examples.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** A quoted DSML write of `docs/calls.md` whose content is `content`, with its own closers. */
const dsmlWrite = (content: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n<{D}parameter name="content" string="true">`) +
  content +
  live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
/** The same write in the tool-named form (I11). */
const toolNamedWrite = (content: string) => live(`<{D}write>\n<{D}filePath>docs/calls.md</{D}filePath>\n<{D}content>`) + content + live(`</{D}content>\n</{D}write>`);
/** The same write, Claude-style. */
const claudeWrite = (content: string) =>
  `<function_calls>\n<invoke name="write">\n<parameter name="filePath">docs/calls.md</parameter>\n<parameter name="content">${content}</parameter>\n</invoke>\n</function_calls>`;
const CLAUDE_EXAMPLE = `<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</function_calls>`;

/** A real leaked call, distinct from the example: it must run where the hard negatives say so. */
const REAL_CALL = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

const calls = (input: string) => runAtEverySplit(input, fixtureTools).calls.map((c) => [c.tool, c.input]);

/** No call runs and every character stays visible. */
function quoted(input: string): void {
  const r = runAtEverySplit(input, fixtureTools);
  expect(r.calls.map((c) => [c.tool, c.input])).toEqual([]);
  expect(r.text).toBe(input);
}

describe("a block closed by a line inside a quoted call's open value: the example after it stays text", () => {
  test("Claude-style: the page's fence inside the quoted write's content", () => {
    quoted("```\n" + claudeWrite("# Calls\n```\n" + CLAUDE_EXAMPLE + "\n```\n") + "\n```\nThat is all.");
  });

  test("Claude-style quote, DSML example", () => {
    quoted("```\n" + claudeWrite("# Calls\n```\n" + EXAMPLE_BLOCK + "\n```\n") + "\n```\nThat is all.");
  });

  test("the tool-named form (I11): the page's fence inside the quoted write's content", () => {
    quoted("```\n" + toolNamedWrite("# Calls\n```\n" + EXAMPLE_BLOCK + "\n```\n") + "\n```\nThat is all.");
  });

  test("a block quote ended by a blank line inside the value (the lines after it lazy or not)", () => {
    quoted("> " + dsmlWrite("# Calls\n\nRun it:\n" + EXAMPLE_BLOCK + "\n") + "\nok");
  });

  test("an indented code block ended by a line indented less inside the value", () => {
    const opened = live(`    <{D}tool_calls>\n    <{D}invoke name="write">\n    <{D}parameter name="content" string="true"># Calls\n`);
    quoted(opened + "Run it like this:\n" + EXAMPLE_BLOCK + "\n" + live("</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>") + "\nok");
  });

  test("the quoted write in degraded sentinels (ASCII bars, double vertical lines, spaced bars): the same", () => {
    for (const sentinel of ["|DSML|", "{DVL}DSML{DVL}", " | DSML | ", "{BAR}{BAR}DSML{BAR}"]) {
      const write = (content: string) =>
        live(`<${sentinel}tool_calls>\n<${sentinel}invoke name="write">\n<${sentinel}parameter name="content" string="true">`) + content + live(`</${sentinel}parameter>\n</${sentinel}invoke>\n</${sentinel}tool_calls>`);
      quoted("```\n" + write("# Calls\n```\n" + EXAMPLE_BLOCK + "\n```\n") + "\n```\nThat is all.");
    }
  });

  test("an HTML `<pre>` (a costume candidate released as text): its closer inside the value", () => {
    // The quote's tags reach the documentation context in candidate text released as text
    // (DocContext.advanceReleased), not from text mode's scan.
    quoted("Intro:\n<pre>\n" + dsmlWrite("Run:\n</pre>\n# T\n" + EXAMPLE_BLOCK + "\n") + "\n</pre>\nDone.");
    quoted("Intro:\n<pre>\n" + claudeWrite("</pre>\n" + EXAMPLE_BLOCK + "\n") + "\n</pre>\nDone.");
    quoted("Intro:\n<pre>\n" + toolNamedWrite("x\n</pre>\nRun:\n" + live(`<{D}bash>\n<{D}command>rm -rf x</{D}command>\n</{D}bash>`) + "\n") + "\n</pre>\nDone.");
  });

  test("two examples in the value, the second after a paragraph: neither runs", () => {
    quoted("```\n" + dsmlWrite("# Calls\n```\n" + EXAMPLE_BLOCK + "\n\nAgain:\n\n" + EXAMPLE_BLOCK + "\n") + "\nThat is all.");
  });

  test("the reply continues a prefill whose fence holds the quoted write (TwoReadings: both readings note the quote)", () => {
    const prefill = "Here is the page:\n```\n" + dsmlWrite("# Calls\n```\n").slice(0, -live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`).length);
    const reply = EXAMPLE_BLOCK + "\n" + live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`) + "\n```\nok";
    const context = createRepairEngine({ tools: fixtureTools, idPrefix: "p_", history: true });
    context.feed(prefill);
    context.flush();
    const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "c_", continues: { ...context.carryOver!()!, calls: 0, doc: new TwoReadings(context.carryOver!()!.doc) } });
    const events = [...engine.feed(reply), ...engine.flush()];
    expect(events.filter((e) => e.type === "call")).toEqual([]);
  });
});

describe("hard negatives: documentation that leaves no quoted value open does not hold a real call back", () => {
  test("a complete quoted write in a fence, the fence closed, a real call: it runs", () => {
    expect(calls("```\n" + dsmlWrite("# Calls\n") + "\n```\n\n" + REAL_CALL)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("after the quoted value closes, CommonMark's reading resumes: a real call after the HTML block runs", () => {
    const input = `<details>\n${dsmlWrite(`# Calls\n\nRun it like this:\n${EXAMPLE_BLOCK}\n`)}\n</details>\n\n${REAL_CALL}`;
    expect(calls(input)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("openers mentioned in code spans (inline, not a block): a real call after them runs", () => {
    const input = live("Open the call with `<{D}invoke name=\"bash\">`, each argument with `<{D}parameter name=\"command\">`.\n\n") + REAL_CALL;
    expect(calls(input)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("a lone parameter opener in a fence (no quoted invoke), the fence closed: a real call runs", () => {
    const input = live("```\n<{D}parameter name=\"command\" string=\"true\">\n```\n\n") + REAL_CALL;
    expect(calls(input)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("a quoted invoke whose values all closed but whose invoke did not: a real call after the fence runs", () => {
    const input = live("```\n<{D}invoke name=\"bash\">\n<{D}parameter name=\"command\" string=\"true\">ls</{D}parameter>\n```\n\n") + REAL_CALL;
    expect(calls(input)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("a quoted value closed by a prefix-less closer, then the fence: a real call runs", () => {
    const input = live("```\n<{D}invoke name=\"bash\">\n<{D}parameter name=\"command\" string=\"true\">ls</parameter>\n</{D}invoke>\n```\n\n") + REAL_CALL;
    expect(calls(input)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("a self-closing quoted parameter opens no value", () => {
    const input = live("```\n<{D}invoke name=\"bash\">\n<{D}parameter name=\"command\" value=\"ls\"/>\n```\n\n") + REAL_CALL;
    expect(calls(input)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("a complete quoted write in an HTML `<pre>`, then a real call: it runs", () => {
    expect(calls("<pre>\n" + dsmlWrite("# Calls\n") + "\n</pre>\n\n" + REAL_CALL)).toEqual([["bash", { command: "ls -la" }]]);
  });

  test("HTML and code full of `<` in a fence (no quoted call): a real call after it runs", () => {
    const input = "```html\n<p>a</p><pre>b</pre><input type=x><table><tr><td>1 < 2</td></tr></table>\n```\n\n" + REAL_CALL;
    expect(calls(input)).toEqual([["bash", { command: "ls -la" }]]);
  });
});

describe("the choice's price: a quoted value that never closes keeps the rest of the reply documentation", () => {
  test("a cut-off template in a fence, then a real call: refused, the text whole", () => {
    // The overlay cannot tell this from the finding's case when the fence closes: the quoted
    // value's closer would only come after the call. A missed repair, never a wrong execution.
    quoted(live("```\n<{D}invoke name=\"write\">\n<{D}parameter name=\"content\" string=\"true\">...\n```\n\n") + REAL_CALL);
  });
});

describe("DocContext alone reads no tags: CommonMark's answers are unchanged without the engine's notes", () => {
  test("after a fence closed inside a quoted value, a plain DocContext is outside documentation", () => {
    const doc = new DocContext();
    doc.advanceText("```\n" + dsmlWrite("# Calls\n```\n"));
    expect(doc.inDoc()).toBe(false);
  });
});
