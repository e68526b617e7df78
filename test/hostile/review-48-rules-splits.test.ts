/**
 * Review 48 (hostile, tests only): split parity of the block hold and the stray rule, by seeded,
 * bounded fast-check: replies assembled from the pieces the rule reads (calls, a stray parameter,
 * prose, a fence, a blank line, block openers and closers in several spellings, a one-bar
 * parameter) give the same text, calls, reports and nudge whole, char by char and at random
 * splits, at the default limit and a small one, and every character is accounted for.
 * A property that holds on main is a hard negative kept on purpose.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { accountsForEveryCharacter, everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const RM = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const PIECES = [
  RM,
  RM.replace("rm -rf ./*", "ls"),
  `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`,
  `<{BAR}parameter name="workdir" string="true">/tmp</{BAR}parameter>`,
  `<parameter name="workdir">/tmp</parameter>`,
  "Note:",
  "",
  "```\necho hi\n```",
  "> quoted",
  "<{D}tool_calls>",
  "</{D}tool_calls>",
  "</|DSML|tool_calls>",
  "</tool_calls>",
  "Some prose. ".repeat(12),
].map(live);

const reply = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 9 }).map((parts) => `Cleaning.\n${parts.join("\n")}`);

describe("whole, char by char and seeded splits agree (hard negative)", () => {
  for (const bufferLimit of [Number.MAX_SAFE_INTEGER, 200]) {
    test(`bufferLimit ${bufferLimit === Number.MAX_SAFE_INTEGER ? "unbounded" : bufferLimit}`, () => {
      fc.assert(
        fc.property(reply, fc.integer({ min: 1, max: 1_000_000 }), (input, seed) => {
          const whole = runEngine(input, [], fixtureTools, { bufferLimit });
          expect(accountsForEveryCharacter(input, whole)).toBe(true);
          const expected = observable(whole);
          expect(observable(runEngine(input, everyChar(input.length), fixtureTools, { bufferLimit }))).toEqual(expected);
          expect(observable(runEngine(input, randomCuts(input.length, seed, 24), fixtureTools, { bufferLimit }))).toEqual(expected);
        }),
        { seed: 4848, numRuns: 150 },
      );
    }, 60_000);
  }
});

describe("a one-bar stray parameter past bufferLimit (found by the property above, seed 1 at 1500 runs)", () => {
  // fixed (medium: split parity, "whole, char by char and random splits must give the same
  // result"; the direction that runs is the known limit gap). The block's call, prose that takes
  // the hold past bufferLimit, then a stray workdir spelled with one sentinel bar
  // (`<{BAR}parameter`, golden P47.16's spelling). Fed whole the call is refused (I02); fed char by
  // char or at random cuts it runs (the limit let it go before the stray was read) and the stray
  // is left as plain text with no report. With the canonical stray spelling both feeds agree (the
  // call runs: the known gap), so only the one-bar path reads past the point the limit counts to
  // (the fix of e8603d8, "the limit counts to the point read", not carried over to it).
  // Suspected: src/engine/text-mode.ts oneBarParameterAt / refuseStrayBlock against
  // src/engine/output.ts blockHold's limit.
  const P = "Some prose. ".repeat(12);
  const RM_ONE = RM;
  for (const [name, notation] of [
    ["then another invoke", `Cleaning.\n<{D}tool_calls>\n${RM_ONE}\n${P}\n<{BAR}parameter name="workdir" string="true">/tmp</{BAR}parameter>\n${RM_ONE}`],
    ["at the reply's end", `Cleaning.\n<{D}tool_calls>\n${RM_ONE}\n${P}\n<{BAR}parameter name="workdir" string="true">/tmp</{BAR}parameter>`],
  ] as const) {
    test(`${name}: whole and char by char agree at bufferLimit 200`, () => {
      const input = live(notation);
      const whole = observable(runEngine(input, [], fixtureTools, { bufferLimit: 200 }));
      expect(observable(runEngine(input, everyChar(input.length), fixtureTools, { bufferLimit: 200 }))).toEqual(whole);
    });
  }
  test("control: the canonical stray spelling past the limit: whole and char by char agree (the call runs, the known gap)", () => {
    const input = live(`Cleaning.\n<{D}tool_calls>\n${RM}\n${P}\n<{D}parameter name="workdir" string="true">/tmp</{D}parameter>`);
    const whole = observable(runEngine(input, [], fixtureTools, { bufferLimit: 200 }));
    expect(observable(runEngine(input, everyChar(input.length), fixtureTools, { bufferLimit: 200 }))).toEqual(whole);
  });
});

describe("fx48-block: the one-bar stray past bufferLimit, at seeded random cuts too", () => {
  // The rule chosen: the text before a one-bar stray reaches the tail (and the limit) before the
  // stray is weighed, as before a tag the grammar reads (text-mode.ts), so whole = char by char = seeded splits.
  const P = "Some prose. ".repeat(12);
  for (const [name, notation] of [
    ["then another invoke", `Cleaning.\n<{D}tool_calls>\n${RM}\n${P}\n<{BAR}parameter name="workdir" string="true">/tmp</{BAR}parameter>\n${RM}`],
    ["at the reply's end", `Cleaning.\n<{D}tool_calls>\n${RM}\n${P}\n<{BAR}parameter name="workdir" string="true">/tmp</{BAR}parameter>`],
    ["in a fence, then the block's closer", `Cleaning.\n<{D}tool_calls>\n${RM}\n${P}\n\`\`\`\n<{BAR}parameter name="workdir" string="true">/tmp</{BAR}parameter>\n\`\`\`\n</{D}tool_calls>`],
  ] as const) {
    for (const bufferLimit of [200, 160, Number.MAX_SAFE_INTEGER]) {
      test(`${name}, bufferLimit ${bufferLimit === Number.MAX_SAFE_INTEGER ? "unbounded" : bufferLimit}: whole = char by char = seeded splits`, () => {
        const input = live(notation);
        const whole = runEngine(input, [], fixtureTools, { bufferLimit });
        expect(accountsForEveryCharacter(input, whole)).toBe(true);
        const expected = observable(whole);
        expect(observable(runEngine(input, everyChar(input.length), fixtureTools, { bufferLimit }))).toEqual(expected);
        for (let seed = 1; seed <= 8; seed++) expect(observable(runEngine(input, randomCuts(input.length, seed, 24), fixtureTools, { bufferLimit }))).toEqual(expected);
        if (bufferLimit === Number.MAX_SAFE_INTEGER) expect(whole.calls).toEqual([]);
      });
    }
  }
});
