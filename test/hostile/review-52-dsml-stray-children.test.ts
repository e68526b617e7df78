/**
 * Review 52, DSML (hostile, tests only): DSML tags that are no structure (a tag named after a
 * parameter, or after an undeclared tool) written between or after the invokes of a block that is
 * still open. The opener rule (src/parse/dialects/invoke-markup.ts DSML_OPENER) calls every such tag
 * after a recovered call that call's "noise": it is stripped and changes nothing. Review 47 made a
 * parameter outside every invoke refuse the block (which call it was meant for is a guess); a
 * parameter in I11's spelling (`<{D}workdir>…</{D}workdir>`) is not covered.
 *
 * Every outcome runs whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const P = (k: string, v: string) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`;
const inv = (tool: string, ...params: string[]) => `<{D}invoke name="${tool}">\n${params.join("\n")}\n</{D}invoke>`;
const block = (...items: string[]) => `<{D}tool_calls>\n${items.join("\n")}\n</{D}tool_calls>`;
const RM = inv("bash", P("command", "rm -rf ./*"));
const RM_I11 = "<{D}bash>\n<{D}command>rm -rf ./*</{D}command>\n</{D}bash>";
const WORKDIR_I11 = "<{D}workdir>/tmp/x</{D}workdir>";

/** Refused whole: no call, broken markup reported, the text kept as written. */
function refused(notation: string) {
  const input = live(notation);
  const o = outcome(input);
  expect(o.calls).toEqual([]);
  expect(o.broken).toContain("broken-markup");
  expect(o.text).toBe(input);
}

// Finding 2 (severity: WRONG EXECUTION). What is wrong: a parameter written in the tool-named (I11)
// spelling, `<{D}workdir>/tmp/x</{D}workdir>`, after a call's closer while its block is still open,
// is stripped as the call's noise and the call runs without it: `rm -rf ./*` runs in the session's
// directory instead of /tmp/x. Review 47's rule (PATTERNS, "A parameter outside every invoke")
// refuses the block for the same parameter in the canonical spelling (`<{D}parameter name="workdir"`,
// pinned below) and in every spelling the parser reads as a parameter opener; inside an I11 call
// `<{D}workdir>` IS the parameter spelling (E29.1), so after an I11 call in an open block it is
// the same guess. After a V4 invoke the spelling is a mix, but the tag is still named after a
// parameter the call just closed declares.
// Minimal input: <{D}tool_calls>⏎<{D}bash>⏎<{D}command>rm -rf ./*</{D}command>⏎</{D}bash>⏎
//   <{D}workdir>/tmp/x</{D}workdir>⏎</{D}tool_calls>
// Today: bash {command: "rm -rf ./*"} runs; the workdir tags are stripped as noise, no report.
// Expected: as the canonical spelling: the block's calls refused (broken-markup, text kept).
// Suspected: src/parse/dialects/invoke-markup.ts (DSML_OPENER: role "other" after a recovered call
// is "noise"), src/parse/stray-line.ts / src/engine/span-stray.ts (the review-47 watch reads only
// parameter-role tags).
// Fixed: a DSML tag named after a parameter a declared tool declares (and no declared tool), read
// in a block still open outside every invoke, is a parameter outside every invoke: text mode's
// watch refuses the block (text-mode.ts namesParameter), and the walk marks its block malformed
// when the same tag stands in a block span (an I11 call's, dsml/walk.ts onToolNamed).
describe("finding 2: a parameter in the tool-named spelling after the call, its block still open", () => {
  test("after an I11 call: the block is refused", () => refused(block(RM_I11, WORKDIR_I11)));
  test("after a V4 invoke: the block is refused", () => refused(block(RM, WORKDIR_I11)));
  test("closed by the canonical parameter closer: the block is refused", () => refused(block(RM_I11, "<{D}workdir>/tmp/x</{D}parameter>")));
  test("a later call in the same block does not make it run either", () => {
    const o = outcome(live(block(RM_I11, WORKDIR_I11, inv("read", P("filePath", "/a")))));
    expect(o.calls.map((c) => c.tool)).not.toContain("bash");
  });
});

describe("finding 2, hard negatives (pass today)", () => {
  test("the canonical spelling after an I11 call refuses the block (review 47)", () => refused(block(RM_I11, P("workdir", "/tmp/x"))));
  test("the canonical spelling after a V4 invoke refuses the block (review 47)", () => refused(block(RM, P("workdir", "/tmp/x"))));
  test("the tool-named child inside the I11 call is its parameter", () => {
    expect(outcome(live(`<{D}bash>\n<{D}command>ls</{D}command>\n${WORKDIR_I11}\n</{D}bash>`)).calls).toEqual([{ tool: "bash", input: { command: "ls", workdir: "/tmp/x" } }]);
  });
  test("S04: stray invoke and block closers after a call stay its noise, the call runs", () => {
    const o = outcome(live(`${block(RM)}\n</{D}invoke></{D}tool_calls>`));
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*" } }]);
  });
  test("a parameter after the block's closer is a stray of its own: the block's call runs (review 47)", () => {
    expect(outcome(live(`${block(RM)}\n${P("workdir", "/tmp/x")}`)).calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*" } }]);
  });
});

// Finding 3 (severity: MISSED NUDGE and markup taken from the text, low). What is wrong: a call
// to an undeclared tool in the tool-named (I11) spelling written between two declared invokes of
// one block is stripped as the first call's noise: its four tags vanish from the text (reported
// only as `stripped` noise), its value `x` is left bare between the calls, and no `undeclared-tool`
// is reported, so the model is never told its AgenticSearch call did not run. The same undeclared
// call as a V4 invoke in the same place is kept visible and reported `undeclared-tool` (pinned
// below), and the I11 form alone is kept and reported as stray markers.
// Minimal input: <{D}tool_calls>⏎<invoke bash ls>⏎<{D}AgenticSearch>⏎<{D}query>x</{D}query>⏎
//   </{D}AgenticSearch>⏎<invoke read /a>⏎</{D}tool_calls>
// Today: bash and read run, the text between them is "⏎x⏎⏎", broken is empty.
// Expected: the undeclared call's markup stays visible and something is reported (a nudge).
// Suspected: src/parse/dialects/invoke-markup.ts (DSML_OPENER: an opener that is no structure
// after a recovered call is "noise", which PATTERNS' strip list, closers and end-of-sentence tokens
// after a call, does not name).
// Fixed: after a recovered call in a block still open, a DSML tag that may open a tool element
// opens one whatever the tool (DSML_OPENER); the walk reads the undeclared name at the span's start
// as the call it is, refused undeclared-tool (B06) with its markup kept.
describe("finding 2, hard negatives of the fix", () => {
  test("a DSML tag named after no declared parameter after the call keeps the block's calls running", () => {
    const o = outcome(live(block(RM, "<{D}thinking>\nnothing else\n</{D}thinking>", inv("read", P("filePath", "/a")))));
    expect(o.calls).toEqual([
      { tool: "bash", input: { command: "rm -rf ./*" } },
      { tool: "read", input: { filePath: "/a" } },
    ]);
  });
  test("the tool-named parameter after the block's closer is a stray of its own: the call runs", () => {
    expect(outcome(live(`${block(RM_I11)}\n${WORKDIR_I11}`)).calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*" } }]);
  });
  test("a child of the I11 call named like a parameter of another tool stays its own (schema decides)", () => {
    const o = outcome(live(block(`<{D}read>\n<{D}filePath>/a</{D}filePath>\n</{D}read>`, inv("glob", P("pattern", "*.ts")))));
    expect(o.calls).toEqual([
      { tool: "read", input: { filePath: "/a" } },
      { tool: "glob", input: { pattern: "*.ts" } },
    ]);
  });
});

describe("finding 3: an undeclared tool-named call between two declared invokes", () => {
  const between = block(inv("bash", P("command", "ls")), "<{D}AgenticSearch>\n<{D}query>x</{D}query>\n</{D}AgenticSearch>", inv("read", P("filePath", "/a")));
  test("its markup stays visible and it is reported", () => {
    const o = outcome(live(between));
    expect(o.text).toContain(live("<{D}AgenticSearch>"));
    expect(o.broken.length).toBeGreaterThan(0);
  });
  test("hard negative: both declared calls run", () => {
    expect(outcome(live(between)).calls).toEqual([
      { tool: "bash", input: { command: "ls" } },
      { tool: "read", input: { filePath: "/a" } },
    ]);
  });
  test("hard negative: the undeclared call as a V4 invoke in the same place is kept and reported undeclared-tool", () => {
    const o = outcome(live(block(inv("bash", P("command", "ls")), inv("AgenticSearch", P("query", "x")), inv("read", P("filePath", "/a")))));
    expect(o.broken).toEqual(["undeclared-tool"]);
    expect(o.text).toContain(live('<{D}invoke name="AgenticSearch">'));
  });
  test("hard negative: the undeclared I11 call alone is kept, reported as stray markers", () => {
    const input = live("Before.\n<{D}AgenticSearch>\n<{D}query>x</{D}query>\n</{D}AgenticSearch>\nAfter.");
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
    expect(o.broken.length).toBeGreaterThan(0);
  });
});
