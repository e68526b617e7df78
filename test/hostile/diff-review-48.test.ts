/**
 * Diff review of round 48 (hostile, tests only; no source change). Each failing test below proves
 * one finding: what, severity, where. No DSML marker bytes here: live() builds them.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;

/** Whole, char by char and seeded random splits: the same observable outcome (returned). */
function sameAtEverySplit(input: string) {
  const whole = observable(runEngine(input, [], fixtureTools));
  expect(observable(runEngine(input, everyChar(input.length), fixtureTools))).toEqual(whole);
  for (let seed = 1; seed <= 10; seed++) expect(observable(runEngine(input, randomCuts(input.length, 4800 + seed, 16), fixtureTools))).toEqual(whole);
  return whole;
}

// FINDING 1 (high: wrong execution; src/engine/text-mode.ts strayInDocAt vs unreadStrayOpenerAt).
// Review 48 made a parameter outside every invoke refuse the open block's calls even where it reads
// as documentation (a fence, a block quote, inline code: "the block's own text is no documentation
// of anything"), and review 48b taught the non-documentation path the degraded opener spellings the
// DSML reader takes but the tag grammar does not (`<{D}parameter=workdir>`, `<{SP}parameter
// name="workdir">`, via unreadStrayOpenerAt). strayInDocAt was not taught them: it asks only
// isStrayParameter (a tag with a name attribute) or oneBarParameterAt. So the same stray parameter
// refuses the call on a plain line and lets it run (its workdir lost) inside a fence, a block
// quote or inline code. Same at every split (a rule missing in one path, not a chunking bug).
// Expected: strayInDocAt asks unreadStrayOpenerAt too (or one shared predicate for both paths).
describe("finding 1: a degraded stray parameter in documentation inside an open block", () => {
  const strays = ['<{D}parameter=workdir>/tmp/scratch</{D}parameter>', '<{SP}parameter name="workdir">/tmp/scratch'];
  const places: [string, (s: string) => string][] = [
    ["a fence", (s) => `Cleaning.\n<{D}tool_calls>\n${RM}\n\`\`\`\n${s}\n\`\`\`\n</{D}tool_calls>`],
    ["a block quote", (s) => `Cleaning.\n<{D}tool_calls>\n${RM}\nSee:\n> ${s}\n\n</{D}tool_calls>`],
    ["inline code", (s) => `Cleaning.\n<{D}tool_calls>\n${RM}\nSee \`${s}\` here.\n</{D}tool_calls>`],
  ];
  for (const [place, layout] of places) {
    for (const stray of strays) {
      test(`${stray.slice(0, 22)}... in ${place}: the block's call is refused, as on a plain line`, () => {
        const r = sameAtEverySplit(live(layout(stray)));
        expect(r.calls).toEqual([]);
        expect(r.nudge).toBe("broken-markup");
      });
    }
  }
  // Hard negatives (pass today): the same spellings on a plain line, and the canonical spelling in a fence, refuse the call.
  for (const stray of strays) {
    test(`hard negative: ${stray.slice(0, 22)}... on a plain line refuses the call`, () => {
      const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n${stray}\n</{D}tool_calls>`));
      expect(r.calls).toEqual([]);
    });
  }
  test("hard negative: the canonical stray parameter in a fence refuses the call", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n\`\`\`\n<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n\`\`\`\n</{D}tool_calls>`));
    expect(r.calls).toEqual([]);
  });
  test("hard negative: with no stray parameter the block's call runs", () => {
    const r = sameAtEverySplit(live(`Cleaning.\n<{D}tool_calls>\n${RM}\n\`\`\`\nls\n\`\`\`\n</{D}tool_calls>`));
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "rm -rf ./*" }]);
  });
});
