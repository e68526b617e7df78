/**
 * Review 49 (rules): the block stray watch of last round (src/engine/stray-opener.ts, text-mode.ts,
 * candidate.ts). A stray parameter opener inside an open DSML block refuses the block's calls until
 * the block's REAL closer; closers in documentation, containers or suffixed words do not end it.
 * Every case runs whole, char by char and at seeded random splits (outcome()).
 *
 * Each failing test (test.failing) says what is wrong, its severity and the suspected file.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { live } from "../golden/notation.ts";

const rm = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const stray = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;
const open = `Cleaning.\n<{D}tool_calls>\n${rm}\n`;
const closer = `</{D}tool_calls>`;
const rmRuns = [{ tool: "bash", input: { command: "rm -rf ./*" } }];

describe("finding: a block closer shown inside a running line ends the watched block", () => {
  // Severity: medium (wrong execution: `rm -rf ./*` runs in the project although the model's workdir
  // /tmp/scratch follows as a stray before the block's real closer, which comes after it). The rule
  // says only a REAL closer ends the watch; a closer named inside a sentence, followed by words on
  // its line, or wrapped in emphasis is prose (as a `<tool_call>` mid-sentence is, golden N48.4), yet
  // it is taken as the block's end, the call runs and the stray and the real closer are stripped as
  // S03 text. A closer in inline code, a link title, an HTML comment or indented code is already
  // honoured (hard negatives below). Suspected: src/engine/call-run.ts closesBlockAfterCall /
  // text-mode.ts (the block closer is read wherever a tag stands on the line, not only alone on it).
  // Expected: no call, the stray reported.
  for (const [name, line] of [
    ["named inside a sentence", `The block ends with ${closer} here.`],
    ["followed by words on its line", `${closer} is the closer.`],
    ["wrapped in emphasis", `*${closer}*`],
  ] as const) {
    test.failing(`${name}, then the stray, then the real closer: refused`, () => {
      expect(outcome(live(`${open}${line}\n${stray}\n${closer}`)).calls).toEqual([]);
    });
  }
});

describe("finding: a second block opener before the closer lets the first block's call run past its stray", () => {
  // Severity: medium-low (wrong execution: `rm -rf ./*` runs without the workdir the model wrote
  // after it, before any closer). The model opened a block, wrote the call, repeated the opener
  // (a degraded stream), then the stray workdir and the only closer. The second opener ends the
  // first block for the watch, so the stray falls in the second (empty) block and the first
  // block's call runs. Suspected: src/engine/text-mode.ts / candidate.ts (a block opener ends the
  // watched block as a real closer would). Expected: no call until the stray's block is settled.
  test.failing("opener, call, opener again, stray, closer: refused", () => {
    expect(outcome(live(`${open}<{D}tool_calls>\n${stray}\n${closer}`)).calls).toEqual([]);
  });
  test.failing("opener, call, opener again, stray, cut off: refused", () => {
    expect(outcome(live(`${open}<{D}tool_calls>\n${stray}\nDone.`)).calls).toEqual([]);
  });
});

describe("finding: an orphan invoke right after a block refused for its stray runs", () => {
  // Severity: medium-low (wrong execution: the model's block `rm -rf ./*` + stray workdir
  // /tmp/scratch is refused, but the same `rm -rf ./*` repeated as an orphan invoke after the
  // block's closer runs in the project). A stray with no block open refuses every later orphan
  // invoke (golden P48.5, P48.8); a stray inside a block does not carry over to the orphans after
  // it. Suspected: src/engine/text-mode.ts noteStrayParameter (strayOutsideBlock set only for a
  // stray outside a block). Expected: no call.
  test.failing("block with stray, real closer, then orphan invoke: refused", () => {
    expect(outcome(live(`${open}${stray}\n${closer}\n${rm}`)).calls).toEqual([]);
  });
});

describe("hard negatives: closers the watch already reads as no real closer (kept: the spellings and containers of this round)", () => {
  for (const [name, line] of [
    ["one bar", `</{BAR}tool_calls>`],
    ["U+2581", `</{SP}tool_calls>`],
    ["inline code", "`" + closer + "`"],
    ["double-backtick code", "``" + closer + "``"],
    ["an HTML comment", `<!-- ${closer} -->`],
    ["a link title", `[x](http://a "${closer}")`],
    ["indented code", `\n    ${closer}\n`],
  ] as const) {
    test(`${name}, then the stray, then the real closer: refused`, () => {
      expect(outcome(live(`${open}${line}\n${stray}\n${closer}`)).calls).toEqual([]);
    });
  }
  test("a fence opened in the block and never closed hides the closer: refused", () => {
    expect(outcome(live(open + "```\n" + closer + "\n" + stray + "\n")).calls).toEqual([]);
  });
  for (const [name, nl] of [
    ["CRLF", "\r\n"],
    ["CR only", "\r"],
  ] as const) {
    test(`${name} line ends: the stray before the closer refuses`, () => {
      expect(outcome(live(`${open}${stray}\n${closer}`).replaceAll("\n", nl)).calls).toEqual([]);
    });
  }
  for (const [name, s] of [
    ["one bar upper case", `<{BAR}PARAMETER name="workdir">/tmp/scratch</{BAR}PARAMETER>`],
    ["U+2016 one bar", `<{DVL}parameter name="workdir">/tmp/scratch</{DVL}parameter>`],
    ["ASCII bars", `<|DSML|parameter name="workdir">/tmp/scratch</|DSML|parameter>`],
    ["lost <, after a space", `Set {BAR}parameter name="workdir">/tmp/scratch</{BAR}parameter>`],
    ["tab before name", `<{D}parameter\tname="workdir" string="true">/tmp/scratch</{D}parameter>`],
    ["Qwen3-Coder spelling", `<parameter=workdir>\n/tmp/scratch\n</parameter>`],
    ["in a heading", `# ${stray}`],
    ["in a list item", `- ${stray}`],
    ["in a table row", `| ${stray} |`],
  ] as const) {
    test(`stray ${name}: refused`, () => {
      expect(outcome(live(`${open}${s}\n${closer}`)).calls).toEqual([]);
    });
  }
  test("control: the real closer, then the stray: the call runs (the stray after the block is S03 text)", () => {
    expect(outcome(live(`${open}${closer}\n${stray}\nDone.`)).calls).toEqual(rmRuns);
  });
});
