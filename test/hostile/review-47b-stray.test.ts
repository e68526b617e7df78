/**
 * Hostile review 47b: a parameter outside every invoke of a block still open refuses the block's
 * calls (docs/PATTERNS.md "A parameter outside every invoke (review 47)", I02; the fix for review
 * 47's `rm -rf ./*` that ran while its `workdir` was stripped). Looking for calls that still run
 * with the stray parameter stripped. Each failing test says what is wrong, its severity and the
 * suspected file; passing tests are hard negatives kept on purpose.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const WORKDIR = `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`;

/** The calls (inputs) a reply comes to: whole, char by char and at seeded random splits alike; every character accounted for. */
function run(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  expect(parse(input, fixtureTools).calls.map((c) => c.input)).toEqual(r.calls.map((c) => c.input));
  return r;
}

/** rm -rf ./* never runs without the workdir the model wrote for it. */
const expectNoRmWithoutWorkdir = (r: ReturnType<typeof run>) => {
  for (const c of r.calls) expect(c.input).not.toEqual({ command: "rm -rf ./*" });
};

describe("a stray parameter in the still-open block, after prose", () => {
  // fixed: (finding 2) prose, a line that only looks blank or text on the invoke closer's line
  // between the call and the stray parameter forgot the open block, so `rm -rf ./*` ran without its
  // workdir. The rule now: a call read in a block still open waits for the block's closer
  // (Output.pending); a parameter outside every invoke anywhere before that closer, read in text
  // mode after prose too (text-mode.ts noteStrayParameter; strayBlock is not forgotten by prose),
  // refuses every call of the block (I02, text kept).
  // Was FINDING 2 (high: wrong execution, the review-47 harm by another path). The rule refuses the
  // block's calls when a parameter stands outside every invoke of a block still open; a line of
  // prose between the invoke closer and the stray parameter (or the parameter on the closer's line
  // after a word) defeats it: the call ends at its invoke closer, the prose and the stray workdir
  // are stripped (S03 "fabricated-result") or reported as a loose value (D08), and `rm -rf ./*`
  // runs in the session's directory instead of /tmp/scratch. The Claude-style form of the same
  // input IS refused (control below), so the two dialects disagree. Expected: refused as the
  // blank-line form is (broken-markup, I02). Suspected: src/engine/text-mode.ts emitText ("Prose
  // after a call means the block is over, even if its closer never comes": openBlock is forgotten,
  // so the stray is read as a loose value outside any block, D08/S03), with
  // src/parse/stray-value-closer.ts runRefuses and src/engine/candidate.ts (the stray-parameter
  // branch needs the parameter to be the very next tag after the invoke closer).
  test("fixed: a line of prose between the invoke closer and the stray workdir", () => {
    expectNoRmWithoutWorkdir(run(`Cleaning.\n<{D}tool_calls>\n${RM}\nNote:\n${WORKDIR}\n</{D}tool_calls>`));
  });

  test("fixed: prose on the invoke closer's line before the stray workdir", () => {
    expectNoRmWithoutWorkdir(run(`Cleaning.\n<{D}tool_calls>\n${RM} in ${WORKDIR}\n</{D}tool_calls>`));
  });

  // The same with a line that only looks blank or says nothing: an NBSP, a zero-width space, an
  // empty HTML comment (isBlank in text-mode.ts counts only spaces, tabs and line ends).
  for (const [name, line] of [["an NBSP line", "\u00a0"], ["a zero-width-space line", "\u200b"], ["an empty HTML comment", "<!-- -->"]] as const) {
    for (const [eolName, eol] of [["LF", "\n"], ["CRLF", "\r\n"], ["lone CR", "\r"]] as const) {
      test(`fixed: ${name} between the invoke closer and the stray workdir (${eolName})`, () => {
        expectNoRmWithoutWorkdir(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${line}\n${WORKDIR}\n</{D}tool_calls>`.replaceAll("\n", eol)));
      });
    }
  }

  test("control (passes): a blank line between them refuses the call", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n\n${WORKDIR}\n</{D}tool_calls>`).calls).toEqual([]);
  });

  test("control (passes): Claude-style XML with the same line of prose is refused", () => {
    const claude = `Cleaning.\n<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf ./*</parameter>\n</invoke>\nNote:\n<parameter name="workdir">/tmp/scratch</parameter>\n</function_calls>`;
    expect(run(claude).calls).toEqual([]);
  });
});

describe("a later call of the malformed block, after prose", () => {
  // fixed: (finding 2b) prose after the stray forgot the malformed block, so its later invoke ran.
  // The rule now: the block stays watched until its closer (prose does not end it), and every call
  // of a malformed block read before its closer is refused (Output.blockRefusesCalls).
  // Was FINDING 2b (high: wrong execution). PATTERNS promises "every later call of the block" is
  // refused once a parameter stands outside every invoke of it. A line of prose after the stray
  // parameter ends that: the next invoke of the same, still-open block runs. Here the stray
  // `workdir` stands right BEFORE the `rm -rf ./*` invoke's opener (the other place the rule names),
  // so it may well have been meant for it, and `rm -rf ./*` runs in the session's directory. With a
  // blank line instead of the prose both calls are refused (control). Expected: refused.
  // Suspected: src/engine/text-mode.ts emitText (prose forgets openBlock, so the later invoke is
  // read as an orphan with no enclosing block and malformedBlocks, parse-span.ts, never sees it);
  // src/engine/engine.ts noteMalformedBlock.
  const LS = RM.replace("rm -rf ./*", "ls");
  test("fixed: ls, the stray workdir, a line of prose, then rm -rf ./*: neither runs", () => {
    expectNoRmWithoutWorkdir(run(`Cleaning.\n<{D}tool_calls>\n${LS}\n${WORKDIR}\nThen:\n${RM}\n</{D}tool_calls>`));
  });
  test("fixed: the stray, prose, then a later call: the later call is refused too", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${WORKDIR}\nNow:\n${LS}\n</{D}tool_calls>`).calls).toEqual([]);
  });
  test("control (passes): a blank line instead of the prose refuses both", () => {
    expect(run(`Cleaning.\n<{D}tool_calls>\n${LS}\n${WORKDIR}\n\n${RM}\n</{D}tool_calls>`).calls).toEqual([]);
  });
});

describe("a stray parameter in other spellings", () => {
  // fixed: (finding 3) Qwen3-Coder's `<tool_call>` wrapper, its function complete and its closer
  // still to come, is a block still open: its call waits for `</tool_call>`, and a parameter before
  // it refuses the call (engine.ts finish, holds; costume.ts closeToolCall). S03 after `</tool_call>` is as before.
  // Was FINDING 3 (medium: wrong execution; the rule's scope is "DSML or Claude-style", but the harm is
  // the same). Qwen3-Coder: a `<parameter=workdir>` after `</function>` and before `</tool_call>`
  // is stripped in silence (S03 "fabricated-result", no broken report, no nudge) and `rm -rf ./*`
  // runs without it. Expected: refused (broken-markup), as the DSML and Claude-style forms are.
  // Suspected: src/parse/dialects/qwen.ts / src/parse/dialects/tool-call.ts (the wrapper's reading)
  // and the S03 strip after a call (src/engine/output.ts).
  test("fixed: Qwen3-Coder: a parameter after </function> inside <tool_call>", () => {
    const qwen = `Cleaning.\n<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./*\n</parameter>\n</function>\n<parameter=workdir>\n/tmp/scratch\n</parameter>\n</tool_call>`;
    expectNoRmWithoutWorkdir(run(qwen));
  });

  // fixed: (finding 4) in a block still open, `<{BAR}parameter` followed by a space or `>` is a
  // parameter outside every invoke (text-mode.ts oneBarParameterAt): the block's calls are refused.
  // The tag grammar still reads no tag there (so it never opens a call of its own).
  // Was FINDING 4 (low-medium): a one-bar DSML-like prefix (`<{BAR}parameter`, the sentinel bar with the
  // DSML word lost) is not read as a parameter at all: stripped as a fabricated result, no report,
  // and the call runs. The ASCII `<|DSML|parameter`, the DVL spelling and the prefix-less form are
  // refused (controls). Expected: refused, or at least reported. Suspected: the tag grammar's
  // degraded-prefix list (src/grammar/) and src/engine/candidate.ts isStrayParameter.
  test("fixed: a stray `<{BAR}parameter` (one sentinel bar, no DSML word)", () => {
    expectNoRmWithoutWorkdir(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n<{BAR}parameter name="workdir" string="true">/tmp/scratch</{BAR}parameter>\n</{D}tool_calls>`));
  });

  for (const [name, stray] of [
    ["ASCII bars", `<|DSML|parameter name="workdir" string="true">/tmp/scratch</|DSML|parameter>`],
    ["DVL", `<{DVL}DSML{DVL}parameter name="workdir" string="true">/tmp/scratch</{DVL}DSML{DVL}parameter>`],
    ["prefix-less", `<parameter name="workdir" string="true">/tmp/scratch</parameter>`],
    ["self-closing", `<{D}parameter name="workdir" string="true" value="/tmp/scratch"/>`],
  ] as const) {
    test(`control (passes): a stray parameter written ${name} refuses the call`, () => {
      expect(run(`Cleaning.\n<{D}tool_calls>\n${RM}\n${stray}\n</{D}tool_calls>`).calls).toEqual([]);
    });
  }
});

describe("a call before an earlier call's boundary and the stray (the known gap, closed)", () => {
  // fixed: the stream emitted `ls` at the `rm -rf ./*` invoke's opener, before the stray came
  // (PATTERNS documented it as a gap). The rule now: a block's calls are decided at its closer, so
  // the stray refuses both.
  test("fixed: neither of two calls runs when a stray parameter follows the second", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM.replace("rm -rf ./*", "ls")}\n${RM}\n${WORKDIR}\n</{D}tool_calls>`);
    expect(r.calls).toEqual([]);
  });
  test("control: with no stray both run, at the block's closer", () => {
    const r = run(`Cleaning.\n<{D}tool_calls>\n${RM.replace("rm -rf ./*", "ls")}\n${RM}\n</{D}tool_calls>`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }, { command: "rm -rf ./*" }]);
  });
});
