/**
 * Fix 50 (block watch): an empty DSML block nested in the watched one. The model opens a block,
 * writes a call, then an inner `<{D}tool_calls>` closed at once (`</{D}tool_calls>`, nothing but
 * spaces between), then a stray parameter (a workdir) and the outer block's closer. Severity: wrong
 * execution (`rm -rf ./*` ran without the workdir written after it). The inner pair took over the
 * watch and its closer ended it, so the held call ran, and the stray after it was S03 text.
 * Suspected: src/engine/engine.ts finish (a block span taking over the watch, its closer ending it).
 * Fixed: an empty block read while another block is watched neither takes the watch over nor ends
 * it (engine.ts finish, emptyBlockSpan): the outer block stays watched, so a stray after the pair
 * refuses its calls as without the pair, and its own closer (or the reply's end) lets them run.
 * Every case runs whole, char by char and at seeded random splits (outcome()), and through parse().
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const rm = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n</{D}invoke>`;
const ls = `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>`;
const stray = `<{D}parameter name="workdir" string="true">/tmp/x</{D}parameter>`;
const opener = `<{D}tool_calls>`;
const closer = `</{D}tool_calls>`;
const open = `Cleaning.\n${opener}\n${rm}\n`;
const rmRuns = [{ tool: "bash", input: { command: "rm -rf ./*" } }];

/** The outcome at every split; parse() agrees on the calls and keeps the text. */
function settled(input: string) {
  const r = outcome(input);
  const p = parse(input, fixtureTools);
  expect(p.calls.map((c) => ({ tool: c.tool, input: c.input }))).toEqual(r.calls);
  return r;
}

describe("an empty inner block, then a stray, then the outer closer: refused as without the pair", () => {
  for (const [name, pair] of [
    ["the pair on two lines", `${opener}\n${closer}\n`],
    ["the pair on one line", `${opener}${closer}\n`],
    ["spaces and a blank line inside the pair", `${opener}  \n\n  ${closer}  \n`],
    ["CRLF line ends", `${opener}\r\n${closer}\r\n`],
    ["two empty pairs in a row", `${opener}\n${closer}\n${opener}\n${closer}\n`],
  ] as const) {
    test(name, () => {
      const input = live(`${open}${pair}${stray}\n${closer}`);
      const r = settled(input);
      expect(r.calls).toEqual([]);
      expect(r.broken).toContain("broken-markup");
      expect(r.text).toBe(input);
    });
  }
  test("the stray, then the reply ends (no outer closer): refused", () => {
    const input = live(`${open}${opener}\n${closer}\n${stray}\n`);
    expect(settled(input).calls).toEqual([]);
  });
  test("control (passes before the fix): no inner pair, the stray, the closer: refused", () => {
    expect(settled(live(`${open}${stray}\n${closer}`)).calls).toEqual([]);
  });
});

describe("hard negatives: what the outer watch must still let run", () => {
  test("two separate complete blocks in a row, each with a clean call: both run", () => {
    const r = settled(live(`${open}${closer}\n${opener}\n${ls}\n${closer}\nDone.`));
    expect(r.calls.map((c) => c.input.command)).toEqual(["rm -rf ./*", "ls"]);
    expect(r.broken).toEqual([]);
  });
  test("an inner empty pair with no stray, then the outer closer: the call runs", () => {
    expect(settled(live(`${open}${opener}\n${closer}\n${closer}\nDone.`)).calls).toEqual(rmRuns);
  });
  test("an inner empty pair with no stray, then the reply ends: the call runs", () => {
    expect(settled(live(`${open}${opener}\n${closer}\n`)).calls).toEqual(rmRuns);
  });
  test("an inner empty pair, then a further invoke of the outer block and its closer: both run", () => {
    const r = settled(live(`${open}${opener}\n${closer}\n${ls}\n${closer}\nDone.`));
    expect(r.calls.map((c) => c.input.command)).toEqual(["rm -rf ./*", "ls"]);
  });
  test("the outer block closed, then an empty block, then a stray: the call runs (the stray is after every block)", () => {
    expect(settled(live(`${open}${closer}\n${opener}\n${closer}\n${stray}\nDone.`)).calls).toEqual(rmRuns);
  });
  test("a second opener holding a clean call (a repeated opener) and its closer: both calls run, as before", () => {
    const r = settled(live(`${open}${opener}\n${ls}\n${closer}\nDone.`));
    expect(r.calls.map((c) => c.input.command)).toEqual(["rm -rf ./*", "ls"]);
  });
  test("an empty block alone in a reply, then a clean block: its call runs", () => {
    expect(settled(live(`${opener}\n${closer}\n${open}${closer}`)).calls).toEqual(rmRuns);
  });
});
