/**
 * Review 52, DSML (hostile, tests only): a DSML write whose page documents DSML itself, a lone
 * invoke (or block) closer line in it followed by PROSE, then the write's own closers. P01 ends the
 * value at the lone closer line; the write runs with the page cut there, and the rest of the page
 * (with the write's own closers, which now close nothing) is stripped as a fabricated result.
 * Review 46 made such a closer line followed by an EXAMPLE the page's text (A45.5, A46.5) and a
 * lone PARAMETER closer line followed by prose refuses the write (pinned below); the invoke closer
 * line followed by prose is left to P01. Goldens A46.3 and A46.4 pin the cut write for the shape
 * with prose AND an example after the line, so a fix changes them deliberately.
 *
 * Every outcome runs whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const head = '<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/dsml.md</{D}parameter>\n<{D}parameter name="content" string="true">';
const tail = "</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>";
const EXAMPLE = '<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>';

/** The write never runs with its page cut short: it is written whole, or refused with its text kept. */
function neverCut(page: string) {
  const input = live(`${head}${page}${tail}`);
  const o = outcome(input);
  const whole = [{ tool: "write", input: { filePath: "docs/dsml.md", content: live(page) } }];
  if (o.calls.length === 0) {
    expect(o.broken).toContain("broken-markup");
    expect(o.text).toBe(input);
  } else expect(o.calls).toEqual(whole);
}

// Finding 4 (severity: WRONG EXECUTION, a truncated file; arguable, see the file comment). What is
// wrong: the page `# DSML⏎An invoke ends with⏎</{D}invoke>⏎and that is the whole call.⏎` written by
// a DSML write is cut at its lone `</{D}invoke>` line (P01): the write runs with content
// "# DSML⏎An invoke ends with", and the rest of the reply, the page's last line and the write's own
// `</{D}parameter>`, `</{D}invoke>`, `</{D}tool_calls>`, is stripped as a fabricated result. The
// parameter closer that follows and closes nothing is the sign review 46 reads after examples
// (A46.1-A46.6: "says the whole run stood in a value") and the same page with a lone
// `</{D}parameter>` line is refused; after a line of prose it is not read. PATTERNS' rule for
// closers in values: "never a truncated or padded file or command".
// Minimal input: <{D}tool_calls>⏎<{D}invoke name="write">⏎<{D}parameter name="filePath"
//   string="true">docs/dsml.md</{D}parameter>⏎<{D}parameter name="content" string="true"># DSML⏎
//   An invoke ends with⏎</{D}invoke>⏎and that is the whole call.⏎</{D}parameter>⏎</{D}invoke>⏎</{D}tool_calls>
// Today: write {content: "# DSML\nAn invoke ends with"} runs; the text is "".
// Expected: the page written whole (its own closers end it) or the write refused, text kept.
// Suspected: src/parse/closer-in-value.ts / src/parse/closer-ends-call.ts (the lone closer line's
// lookahead reads only examples), src/parse/stray-value-closer.ts (the stray parameter closer
// after a complete call is read over white space, a block closer and examples, not prose).
// Fixed: prose may stand in the run after a call (stray-value-closer.ts ExampleRun, prose mode)
// where a value may have gone on: after a call a lone invoke or block closer line ended inside an
// open value (P01), and after a call whose block is still open. The prose is held; a parameter
// closer (or after prose an invoke closer) closing nothing then refuses the call (I04, text kept);
// the block's closer, the next invoke, other markup, the reply's end or bufferLimit let it run, only
// later. Golden A46.4 changed with it (the write is refused now).
describe("finding 4: a lone closer line then prose in a DSML write's page", () => {
  test("a lone invoke closer line, then prose: never a cut write", () => neverCut("# DSML\nAn invoke ends with\n</{D}invoke>\nand that is the whole call.\n"));
  test("lone parameter and invoke closer lines, then prose: never a cut write", () => neverCut("# DSML\nA value ends with\n</{D}parameter>\n</{D}invoke>\nand that is the whole call.\n"));
  test("the same in the doubled-bar spelling (M01): never a cut write", () => neverCut("# DSML\nAn invoke ends with\n</{BAR}{D}{BAR}invoke>\nand that is the whole call.\n"));
  test("a lone block closer line, then prose: never a cut write", () => neverCut("# DSML\nA block ends with\n</{D}tool_calls>\nand that is the whole call.\n"));
});

describe("finding 4, hard negatives (pass today)", () => {
  test("a lone parameter closer line, then prose: refused, text kept", () => {
    const input = live(`${head}# DSML\nA value ends with\n</{D}parameter>\nand that is the whole call.\n${tail}`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("a lone invoke closer line, then an example, then the write's closers: the page is written whole (A45.5)", () => neverCut(`# Doc\nCalls end with\n</{D}invoke>\n${EXAMPLE}\n`));
  test("P01 proper: the model forgot the parameter closer, prose after the block: the call runs", () => {
    const o = outcome(live(`${head}# Doc\n</{D}invoke>\n</{D}tool_calls>\nDone.`));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "docs/dsml.md", content: "# Doc" } }]);
  });
  test("P01 leak, prose after the lone invoke closer and no block closer: the call still runs at the reply's end", () => {
    const o = outcome(live(`${head}# Doc\n</{D}invoke>\nNow I will check the result.`));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "docs/dsml.md", content: "# Doc" } }]);
  });
  test("a clean call, prose in its open block, then the next invoke: both run, the prose kept between them", () => {
    const o = outcome(live(`${head}# Doc</{D}parameter>\n</{D}invoke>\nAnd now:\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`));
    expect(o.calls).toEqual([
      { tool: "write", input: { filePath: "docs/dsml.md", content: "# Doc" } },
      { tool: "read", input: { filePath: "/a" } },
    ]);
    expect(o.text).toContain("And now:");
  });
  test("a clean call, prose, then the block's closer: the call runs", () => {
    const o = outcome(live(`${head}# Doc</{D}parameter>\n</{D}invoke>\nDone.\n</{D}tool_calls>`));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "docs/dsml.md", content: "# Doc" } }]);
  });
  test("a parameter closer mentioned in prose after a complete call changes nothing (A46.n2)", () => {
    const o = outcome(live(`${head}# Doc${tail}\n</{D}parameter> ends a value.`));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "docs/dsml.md", content: "# Doc" } }]);
  });
});
