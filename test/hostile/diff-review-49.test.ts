/**
 * Diff review of round 49's source changes (hostile, tests only; no source change). Each failing
 * test below proves one finding: what, severity, where. No DSML marker bytes here: live() builds them.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

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
