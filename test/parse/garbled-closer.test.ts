/**
 * P02: a value that ends in a garbled parameter closer (`{BAR}>{BAR}parameter`, `</{D}param`)
 * before the next parameter opens is cut there and kept. The closer starts with a sentinel bar
 * (fullwidth, or the double bar) or with `<`: an ASCII `|` alone is a shell pipe, so a runaway
 * value ending `| paramfix` stays a runaway (P03: the call is refused, review 47b). No whitespace
 * stands inside a garbled closer, and a bare sentinel bar after a space or before an ordinary word
 * (`名称 {BAR} parameters`, a table cell) is the value's text (review 47b finding 8).
 */
import { describe, expect, test } from "bun:test";
import { garbledCloserAt } from "../../src/parse/dialects/dsml/value-ends.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

function outcome(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input, shape: c.shape })), broken: r.summary.broken.map((b) => b.shape) };
}

/** `command`'s closer missing (or garbled into its value), then the next parameter. */
const runaway = (value: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${value}\n<{D}parameter name="description" string="true">fix params</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

/** The same, the next parameter opener written on the value's line. */
const runawayMidLine = (value: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${value} <{D}parameter name="description" string="true">fix params</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("an ASCII pipe is no garbled parameter closer", () => {
  // Review 47b: a runaway value (the next parameter opener came before its closer) refuses the call,
  // wherever that opener stands (P03): never run as `rm -rf build `, nor with the pipe kept.
  test("`rm -rf build | paramfix` stays a runaway value (P03), refused, never run as `rm -rf build `; a real closer is cut", () => {
    for (const command of ["rm -rf build | paramfix", "rm -rf build |param"]) {
      expect(outcome(runaway(command))).toEqual({ calls: [], broken: ["P03"] });
      // The same runaway ended by an opener mid-line: refused too.
      expect(outcome(runawayMidLine(command))).toEqual({ calls: [], broken: ["P03"] });
    }
    // `|DSML|parameter>` reads as a parameter opener that lost its `<`, mid-line: the command's end is a guess, refused.
    expect(outcome(runaway("rm -rf build |DSML|parameter>"))).toEqual({ calls: [], broken: ["P03"] });
    // Hard negative: the garbled closer written with sentinel bars is still recognised.
    expect(outcome(runaway(live("make{BAR}>{BAR}parameter>"))).calls).toEqual([{ tool: "bash", input: { command: "make", description: "fix params" }, shape: "P02" }]);
  });

  test("garbledCloserAt: pipes into words starting with param are no closer; bars and `<` still are", () => {
    for (const value of ["rm -rf build | paramfix", "ls |param", "ls||parameter>", "ls | dsml | params", "a >|param"]) expect(garbledCloserAt(value)).toBe(-1);
    expect(garbledCloserAt(live("alpha{BAR}>{BAR}parameter>"))).toBe(5);
    expect(garbledCloserAt(live("alpha{DVL}parameter>"))).toBe(5);
    expect(garbledCloserAt(live("alpha</{D}param"))).toBe(5);
    expect(garbledCloserAt("alpha</|DSML|parameter>")).toBe(5);
    expect(garbledCloserAt("alpha<|param")).toBe(5);
  });

  test("review 47b finding 8: a bar with whitespace, or a bare bar after a space or before an ordinary word, is no closer", () => {
    for (const value of ["| 名称 {BAR} parameters", "| 名称 {BAR}parameters", "名称{BAR}parameters", "名称{BAR}params", "a {BAR}param", "alpha{BAR} parameter>", "alpha</{D} param", "alpha{BAR}>{BAR}parameter >"]) {
      expect(garbledCloserAt(live(value))).toBe(-1);
    }
    // The P02 spellings stay closers: markup (a `>` or DSML) after a bar, `<` before one, or a bar glued to the value before a parameter-like word.
    expect(garbledCloserAt(live("alpha{BAR}param"))).toBe(5);
    expect(garbledCloserAt(live("alpha{BAR}parametr"))).toBe(5);
    expect(garbledCloserAt(live("alpha {BAR}>{BAR}parameter>"))).toBe(6);
    expect(garbledCloserAt(live("alpha{D}parameters>"))).toBe(5);
    expect(garbledCloserAt(live("alpha {DVL}parameter>\n"))).toBe(6);
    expect(garbledCloserAt(live("alpha </{D}param"))).toBe(6);
  });
});
