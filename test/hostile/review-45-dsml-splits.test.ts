/**
 * Review 45, area 3: split-dependence of DSML replies. No finding: every input of this review
 * (review-45-dsml-reader / -engine, the failing ones included) and ~165 000 generated variants
 * gave the same outcome whole, char by char and at seeded random splits, at every bufferLimit
 * tried. These tests are hard negatives that keep it so: a seeded fast-check property over valid
 * DSML calls (invoke, tool-named, Claude-style, two invokes, orphan, prose around) with one to
 * three fragments inserted anywhere (closers and openers of every family, the mentions and
 * examples that broke the reader, fences, quote markers, entities, CR), whole vs char by char vs
 * random cuts, plus the accounting of every character.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { escaped, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK } from "../support/cut-off-examples.ts";
import { accountsForEveryCharacter, everyChar, observable, randomCuts, runAtEverySplit, runEngine } from "../support/run-engine.ts";

const BASES = [
  `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
  `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">line one\nline two\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
  `<{D}bash>\n<{D}command>ls -la</{D}command>\n</{D}bash>`,
  `<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>line one\nline two</{D}content>\n</{D}write>`,
  `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/a</{D}parameter>\n<{D}parameter name="limit" string="false">5</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
  `Let me check.\n\n<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\nDone.`,
  `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>`,
  `<function_calls>\n<invoke name="bash">\n<parameter name="command">ls -la</parameter>\n</invoke>\n</function_calls>`,
].map(live);

const FRAGMENTS = [
  "```\n", "\n```\n", "~~~\n", "`", "> ", "- ", "    ", "\n", "\n\n", "\r", "\r\n", " x", "<", ">", '"', "<!--", "-->", "<div>", "&lt;", "&amp;", "\\", "|",
  "</{D}invoke>", "</{D}parameter>", "</{D}tool_calls>", "<{D}tool_calls>\n", '<{D}invoke name="bash">\n', '<{D}parameter name="command" string="true">',
  '<{D}parameter name="description" string="true">', "</parameter>", "</invoke>", "</function>", "</function_calls>", "</tool_call>", '<parameter name="x">', '<invoke name="bash">',
  "</{D}bash>", "</{D}write>", "<{D}command>", "</{D}command>", "<{D}content>", "</{D}content>", "<{D}description>", "</{BAR}DSML{BAR}param", "{BAR}",
  '<{D}parameter name="command" value="rm" />', "</|DSML|parameter>", "</{DVL}DSML{DVL}invoke>", "Claude calls end with </invoke> tags.\n",
].map(live);

/** A base with fragments inserted at arbitrary offsets, and the cuts of one random split. */
const mutated = fc
  .record({
    base: fc.constantFrom(...BASES),
    inserts: fc.array(fc.record({ at: fc.nat(), fragment: fc.constantFrom(...FRAGMENTS, EXAMPLE_BLOCK) }), { minLength: 1, maxLength: 3 }),
    seed: fc.nat(),
  })
  .map(({ base, inserts, seed }) => {
    let input = base;
    for (const { at, fragment } of inserts) {
      const i = at % (input.length + 1);
      input = input.slice(0, i) + fragment + input.slice(i);
    }
    return { input, seed };
  });

describe("hard negatives (pass today): DSML calls with inserted fragments read the same at every split", () => {
  for (const bufferLimit of [Number.MAX_SAFE_INTEGER, 160]) {
    test(`whole = char by char = random cuts, every character accounted for (bufferLimit ${bufferLimit})`, () => {
      fc.assert(
        fc.property(mutated, ({ input, seed }) => {
          const whole = runEngine(input, [], fixtureTools, { bufferLimit });
          const expected = observable(whole);
          const char = observable(runEngine(input, everyChar(input.length), fixtureTools, { bufferLimit }));
          const random = observable(runEngine(input, randomCuts(input.length, seed, 7), fixtureTools, { bufferLimit }));
          if (JSON.stringify(char) !== JSON.stringify(expected) || JSON.stringify(random) !== JSON.stringify(expected)) {
            expect({ input: escaped(input), char, random }).toEqual({ input: escaped(input), char: expected, random: expected });
          }
          expect(accountsForEveryCharacter(input, whole)).toBe(true);
        }),
        { seed: 45_2026, numRuns: 300 },
      );
    });
  }

  test("the quoted-write-in-a-fence, I11 closer and mention cases of this review agree at every split", () => {
    const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
    const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    const inputs = [
      "```\n" + head + "# Calls\n```\n" + EXAMPLE_BLOCK + "\n```\n" + tail + "\n```\nThat is all.",
      live(`<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>Close it with </{D}write> on its own line.\nDone.</{D}content>\n</{D}write>`),
      `${head}Claude-style values end with </parameter> tags.\n${EXAMPLE_BLOCK}\n${tail}`,
      `${head}# Doc\n${live(`<{D}bash>\n<{D}command>rm -rf x</{D}parameter>\n</{D}invoke>`)}\n${tail}`,
      live(`<{D}tool_calls>\n</{D}parameter>\nI will delete the build folder now.\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
    ];
    for (const input of inputs) runAtEverySplit(input, fixtureTools);
  });
});
