/**
 * Diff review of round 49's source changes (hostile, tests only; no source change). Each failing
 * test below proves one finding: what, severity, where. No DSML marker bytes here: live() builds them.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";
import { parse } from "../../src/engine/parse.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./build</{D}parameter>\n</{D}invoke>`;

/** Whole, char by char and seeded random splits: the same observable outcome (returned). */
function sameAtEverySplit(input: string) {
  const whole = observable(runEngine(input, [], fixtureTools));
  expect(observable(runEngine(input, everyChar(input.length), fixtureTools))).toEqual(whole);
  for (let seed = 1; seed <= 8; seed++) expect(observable(runEngine(input, randomCuts(input.length, 4900 + seed, 16), fixtureTools))).toEqual(whole);
  return whole;
}

// FINDING 1 (high: wrong execution; src/engine/stray-opener.ts unreadStrayOpenerAt, which bounds
// unreadParameterOpenerIn by lineEnd(s, j, final), and src/parse/unread-opener.ts nameFollows).
// Round 49 taught nameFollows a degraded parameter opener whose `name=` stands on the NEXT line
// (`<{BAR}parameter` then `name="workdir">`). Only two spellings actually get it: the one-bar form
// (oneBarParameterAt) and `<{D}parameter` (the tag grammar reads it). Every other degraded prefix
// the DSML reader takes on one line (`<{SP}parameter`, `<{SP}{SP}parameter`, `<{BAR}{BAR}parameter`,
// `<{BAR}DSML parameter`, `<{SP}DSML{SP}parameter`) is missed once the name moves to the next line,
// because the stray-opener check is handed only the opener's own line. The effect: in an open block,
// the block's call runs with its workdir lost and the stray parameter's text is silently stripped as
// "fabricated-result"/"noise", with no nudge; with no block open, the orphan invoke after it runs
// (P48.5 not applied). The same spellings with the name on the opener's line are refused (hard
// negatives below). Same at every split: a rule missing, not a chunking bug.
// Expected: the stray check looks one line further when the opener's line ends right after its word.
describe("finding 1: a degraded stray parameter opener whose name is on the next line", () => {
  const prefixes = ["{SP}", "{SP}{SP}", "{BAR}{BAR}", "{BAR}DSML ", "{SP}DSML{SP}"];
  for (const p of prefixes) {
    test(`in a block: <${p}parameter then name= on the next line refuses the block's call`, () => {
      const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n<${p}parameter\nname="workdir">/</{D}parameter>\n</{D}tool_calls>`));
      expect(r.calls).toEqual([]);
      expect(r.nudge).toBe("broken-markup");
    });
    test(`no block: <${p}parameter then name= on the next line refuses the orphan invoke after it`, () => {
      const r = sameAtEverySplit(live(`<${p}parameter\nname="workdir">/tmp</{D}parameter>\n${RM}\n`));
      expect(r.calls).toEqual([]);
    });
  }
  // Hard negatives (pass today): the one-bar and canonical spellings with the name on the next
  // line, and every spelling above with the name on the opener's line, are refused.
  for (const p of ["{BAR}", "{D}"]) {
    test(`hard negative: <${p}parameter then name= on the next line refuses the block's call`, () => {
      const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n<${p}parameter\nname="workdir">/</{D}parameter>\n</{D}tool_calls>`));
      expect(r.calls).toEqual([]);
    });
  }
  for (const p of prefixes) {
    test(`hard negative: <${p}parameter name= on one line refuses the orphan invoke after it`, () => {
      const r = sameAtEverySplit(live(`<${p}parameter name="workdir">/tmp</{D}parameter>\n${RM}\n`));
      expect(r.calls).toEqual([]);
    });
  }
  test("hard negative: with no stray parameter the block's call runs", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n</{D}tool_calls>`));
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./build" }]);
  });
});

// FINDING 2 (medium-high: wrong execution; src/parse/dialects/tool-call-body.ts ToolCallStart
// "after-json", TEXT_LOOKAHEAD = 400). Round 49 holds prose on a later line after a complete Hermes
// object so that a costume next, still inside the wrapper, refuses the body whole (before this
// round the `<shell>` below ran at any length). The hold gives up after 400 characters of prose:
// then the span is abandoned at the prose, the prose is read again as text and the costume, which
// still stands inside `<tool_call>` ... `</tool_call>`, runs (C04, `rm -rf ~`), while the wrapper's
// `</tool_call>` is stripped as "noise", with no nudge. The same reply with 3 sentences of prose is
// refused whole (hard negative). Whether a costume in a wrapper runs must not depend on how long
// the model rambled before it. Same at every split.
// Expected: the costume is not run (refused with the body, or at least flagged overflowed as after
// markup of unknown end), whatever the prose's length.
describe("finding 2: a costume inside a Hermes wrapper after long prose", () => {
  const J = '{"name": "bash", "arguments": {"command": "ls"}}';
  const body = (prose: string) => `<tool_call>\n${J}\n${prose}\n<shell>rm -rf ~</shell>\n</tool_call>`;
  test("over 400 characters of prose before the costume: the costume does not run", () => {
    const r = sameAtEverySplit(body("Then I check the output carefully. ".repeat(12)));
    expect(r.calls).toEqual([]);
    expect(r.nudge).toBe("broken-markup");
  });
  test("hard negative: three sentences of prose before the costume: refused whole (passes today)", () => {
    const r = sameAtEverySplit(body("Then I check. ".repeat(3)));
    expect(r.calls).toEqual([]);
    expect(r.nudge).toBe("broken-markup");
  });
  test("hard negative: a complete Hermes call, prose, then the next wrapper: the second call runs (passes today)", () => {
    const r = sameAtEverySplit(`<tool_call>\n${J}\n${"Then I check. ".repeat(3)}\n<tool_call>\n${J}\n</tool_call>`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
});

// FINDING 3 (high: wrong execution; src/parse/dialects/tool-call-body.ts tagAfterFunction / the
// stray-parameter check after a completed Qwen3-Coder function, vs src/parse/unread-opener.ts
// qwenOpenerAt). Round 49 taught qwenOpenerAt the spellings `<param=NAME>`, `<param:NAME>` and
// `<parameter:NAME>` (inside a value they now refuse the call). After the function's `</function>`
// but still inside `<tool_call>`, those spellings are not seen as a stray parameter: the call runs
// without its workdir (`rm -rf ./b` in the wrong directory) and the stray parameter with the
// wrapper's closer is stripped as "fabricated-result"/"noise", no nudge. The canonical
// `<parameter=workdir>`, `<{BAR}parameter=workdir>` and `<parameter name="workdir">` at the same
// place refuse the call (I02; hard negatives). Not new in this round (55a8a03 ran it too), but the
// round added these spellings to one path and not this one. Same at every split.
// Expected: a parameter opener in any spelling the Qwen reader takes, after the function inside its
// wrapper, refuses the call as the canonical one does.
// Fixed: in a block still open (here the `<tool_call>` whose function completed, its closer still
// to come), text mode weighs every spelling the Qwen value reader takes (unread-opener.ts
// unreadQwenOpenerAt, engine/stray-opener.ts qwenStrayOpenerAt) as a stray parameter, as it does
// the canonical `<parameter=workdir>`: the call is refused (I02), whole, char by char, at every
// split and in parse(), its text kept.
describe("finding 3: a stray Qwen parameter in a newly taught spelling after </function>", () => {
  const wrapped = (opener: string) => `<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./b\n</parameter>\n</function>\n${opener}\n/\n</parameter>\n</tool_call>`;
  for (const opener of ["<param=workdir>", "<param:workdir>", "<parameter:workdir>", "<{BAR}param=workdir>", "<{BAR}{BAR}param:workdir>", "<param = workdir>"]) {
    test(`${opener} after </function> refuses the call`, () => {
      const input = live(wrapped(opener));
      const r = sameAtEverySplit(input);
      expect(r.calls).toEqual([]);
      expect(r.nudge).toBe("broken-markup");
      const p = parse(input, fixtureTools);
      expect(p.calls).toEqual([]);
      expect(p.nudge).toBe("broken-markup");
      expect(p.text).toBe(input);
    });
  }
  test("<param=workdir> right after </function> on its line, or after words on a later line, refuses the call", () => {
    for (const input of [
      "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./b\n</parameter>\n</function><param=workdir>\n/\n</parameter>\n</tool_call>",
      "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf ./b\n</parameter>\n</function>\nThen <param:workdir>/</parameter>\n</tool_call>",
    ]) {
      const r = sameAtEverySplit(input);
      expect(r.calls).toEqual([]);
      expect(parse(input, fixtureTools).text).toBe(input);
    }
  });
  // Hard negatives for the fix: the same spellings where no call is open around them.
  test("hard negative: <param=workdir> in prose after the wrapper closed: the next wrapped call runs", () => {
    const call = "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>";
    const r = sameAtEverySplit(`${call}\nThe format also takes <param=workdir> and <param:workdir>.\n${call}`);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }, { command: "ls" }]);
    expect(r.nudge).toBeNull();
  });
  test("hard negative: <param:workdir> in prose with no call around it is text", () => {
    const input = "Qwen writes <param:workdir> or <param=workdir> sometimes.\n";
    const r = sameAtEverySplit(input);
    expect(r.calls).toEqual([]);
    expect(r.nudge).toBeNull();
    expect(parse(input, fixtureTools).text).toBe(input);
  });
  test("hard negative: a wrapped call, then prose with `a < b` and `<params>`: the call runs", () => {
    const r = sameAtEverySplit("<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>\nSo a < b and <params> hold.");
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
  for (const opener of ["<parameter=workdir>", "<{BAR}parameter=workdir>", '<parameter name="workdir">']) {
    test(`hard negative: ${opener} after </function> refuses the call (passes today)`, () => {
      const r = sameAtEverySplit(live(wrapped(opener)));
      expect(r.calls).toEqual([]);
    });
  }
  test("hard negative: <param:workdir> inside the function refuses the call (passes today)", () => {
    const r = sameAtEverySplit("<function=bash>\n<parameter=command>\nrm -rf ./b\n</parameter>\n<param:workdir>\n/\n</parameter>\n</function>");
    expect(r.calls).toEqual([]);
  });
});
