/**
 * Review 48b (parse): "a stray parameter with no block open refuses every later orphan DSML invoke"
 * (src/engine/text-mode.ts noteStrayParameter / strayOutsideBlock, blockRefusesCalls). The rule
 * watches the canonical DSML spelling only: the other spellings of the same stray workdir, which
 * the reader reports (or reads) elsewhere, leave the orphan `rm -rf ./*` running in the wrong
 * directory. Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";
import { live } from "../golden/notation.ts";

const rm = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;

describe("fixed: a stray workdir in another spelling before an orphan invoke refuses it", () => {
  // Severity: medium (wrong execution: the command the model meant for /tmp/scratch runs in the
  // project; the same as review 48's orphan-invoke finding, which the canonical spelling now
  // refuses). Suspected: src/engine/text-mode.ts noteStrayParameter (strayOutsideBlock is set only
  // for tag.family === "dsml" read by isStrayParameter; the `=`-name spelling, the one-bar spelling
  // (oneBarParameterAt, read for open blocks only) and the prefix-less `<parameter name=...>` (family
  // "naked", which isStrayParameter accepts inside blocks) never set it). Expected: as the canonical
  // spelling: no call, the stray and the invoke reported.
  for (const [name, stray] of [
    ["the name-after-'=' spelling", `<{D}parameter=workdir>/tmp/scratch</{D}parameter>`],
    ["the one-bar spelling (not even reported)", `<{BAR}parameter name="workdir" string="true">/tmp/scratch</{BAR}parameter>`],
    ["the prefix-less spelling", `<parameter name="workdir">/tmp/scratch</parameter>`],
  ] as const) {
    test(name, () => {
      expect(outcome(live(`${stray}\n${rm}`)).calls).toEqual([]);
    });
  }
});

describe("hard negatives: spellings the rule already refuses, and documentation that never counts", () => {
  for (const [name, stray] of [
    ["canonical", `<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>`],
    ["U+2016 bars", `<{DVL}DSML{DVL}parameter name="workdir" string="true">/tmp/scratch</{DVL}DSML{DVL}parameter>`],
    ["upper-case word", `<{D}PARAMETER name="workdir" string="true">/tmp/scratch</{D}PARAMETER>`],
    ["no string attribute", `<{D}parameter name="workdir">/tmp/scratch</{D}parameter>`],
  ] as const) {
    test(`${name}: refused`, () => {
      expect(outcome(live(`${stray}\n${rm}`)).calls).toEqual([]);
    });
  }

  const stray = `<{D}parameter name="workdir" string="true">/tmp</{D}parameter>`;
  for (const [name, doc] of [
    ["a fence", "Wrong:\n```\n" + stray + "\n```\n"],
    ["inline code", "The `" + stray + "` tag must sit inside an invoke.\n"],
    ["a block quote", "> " + stray + "\n\n"],
    ["an HTML comment", "<!-- " + stray + " -->\n"],
  ] as const) {
    test(`a stray in ${name} does not refuse a later orphan invoke`, () => {
      expect(outcome(live(doc + `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>`)).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    });
  }
});

describe("fx48b: the other spellings inside a block still open refuse its calls; notes that build an opener as text do not count", () => {
  const block = (between: string) => live(`<{D}tool_calls>\n${rm}\n${between}\n</{D}tool_calls>`);
  for (const [name, stray] of [
    ["the name-after-'=' spelling", `<{D}parameter=workdir>/tmp/scratch</{D}parameter>`],
    ["the U+2581 spelling", `<{SP}parameter name="workdir">/tmp/scratch</{SP}parameter>`],
  ] as const) {
    test(`${name} in the open block: refused`, () => {
      expect(outcome(block(stray)).calls).toEqual([]);
    });
  }
  test("prose mentioning `<{BAR}parameter=...>` before an orphan invoke: it runs", () => {
    expect(outcome(live(`Markers like <{BAR}parameter=...> appear when degraded.\n${rm}`)).calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*" } }]);
  });
});
