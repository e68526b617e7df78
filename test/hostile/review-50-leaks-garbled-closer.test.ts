/**
 * Review 50 (leaks): a garbled parameter closer keeps its own head in the value (taxonomy P02, the
 * "mis-closed parameter" class, 49% of the reported leaks; vLLM #53227/#53417 "partial closer
 * leaked into value"). The realistic degradation is one misspelled or lost character inside the
 * closer's sentinel (`DSL`, `DSM`, `DMSL`, a lost first bar, a doubled `/`), as a long-context or
 * speculative-decoding reply writes it. Every case runs whole, char by char and at seeded random
 * splits (outcome()), and once through parse().
 *
 * Rule checked (brief, point b): no call ever runs with an argument that was not read; a value
 * that swallowed (part of) the next tag is a wrong execution.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";
import { garbledCloser, garbledCloserAt } from "../../src/parse/dialects/dsml/value-ends.ts";

/** A V4 block whose invoke holds the given parameters, each [name, value + its closer as written]. */
const block = (tool: string, params: [string, string][]) =>
  live(
    `Working on it.\n<{D}tool_calls>\n<{D}invoke name="${tool}">\n${params.map(([k, v]) => `<{D}parameter name="${k}" string="true">${v}`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`,
  );
const C = "</{D}parameter>";

/** Either no call, or exactly the one call the model wrote: never a value carrying closer bytes. */
function expectExactOrNone(text: string, tool: string, input: Record<string, string>) {
  const o = outcome(text);
  const whole = parse(text, fixtureTools);
  expect(whole.calls.map((c) => ({ tool: c.tool, input: c.input }))).toEqual(o.calls);
  if (o.calls.length === 0) return;
  expect(o.calls).toEqual([{ tool, input }]);
}

describe("finding: a garbled closer whose sentinel is misspelled leaves its head in the value", () => {
  // Severity: wrong execution (high for write/edit: a file is written with closer bytes, or to a
  // path that grew `</DSML`; a bash command gets a `< /...` redirection appended).
  // What is wrong: GARBLED_CLOSER (src/parse/dialects/dsml/value-ends.ts garbledCloserAt) accepts
  // a closer that starts with `<` (and `/`) only when a bar follows at once and the sentinel word
  // is exactly `DSML`; otherwise it finds a later "bare sentinel bar glued to `parameter`" inside
  // the same closer and cuts THERE, so everything before that bar (`</{BAR}DSL`, `</DSML`, `</`)
  // stays in the value and the call runs. At the last parameter the invoke closer ends the value
  // (P01), so an ASCII closer that the regex misses entirely (`</|DSLM|parameter>`) is kept whole.
  // Minimal input: `<{D}parameter name="command" string="true">ls -la</{BAR}DSL{BAR}parameter>` then
  // `</{D}invoke>` -> bash {command: "ls -la</{BAR}DSL"}.
  // Suspected: src/parse/dialects/dsml/value-ends.ts (GARBLED_CLOSER, garbledCloserAt) and its
  // callers in src/parse/dialects/dsml/walk.ts / src/engine/loose-value.ts.
  // Expected: the value is cut where the garbled closer begins (its `<`), or the call is refused
  // (broken-markup); never a value that ends in closer bytes.
  // Fixed: a hand-written scanner (src/parse/dialects/dsml/garbled-closer.ts) reads a closer whose
  // sentinel word is DSML with one edit (DSL, DSM, DMSL, DSLM), its bars lost or doubled, from its
  // `<` (with any `/`), and cuts there; a closer tag read from its `/` whose `<` stands before it
  // (`<//{D}parameter>`) ends the value at that `<` (walk.ts closeParam); a closer led by a bare
  // bar with a DSML-like word or a `/` glued before it has an unclear start: the call is refused.
  const cases: [string, string, [string, string][], Record<string, string>][] = [
    ["sentinel word DSL (one letter lost), last parameter", "bash", [["command", "ls -la</{BAR}DSL{BAR}parameter>"]], { command: "ls -la" }],
    ["sentinel word DSM, write content", "write", [["filePath", `src/a.ts${C}`], ["content", "export const a = 1;</{BAR}DSM{BAR}parameter>"]], { filePath: "src/a.ts", content: "export const a = 1;" }],
    ["first bar lost, write to a path that grew `</DSML`", "write", [["filePath", "notes.md</DSML{BAR}parameter>"], ["content", `hello${C}`]], { filePath: "notes.md", content: "hello" }],
    ["a doubled slash, edit newString", "edit", [["filePath", `src/a.ts${C}`], ["oldString", `a = 1${C}`], ["newString", "a = 2<//{D}parameter>"]], { filePath: "src/a.ts", oldString: "a = 1", newString: "a = 2" }],
    ["letters swapped (DMSL), before the next parameter", "bash", [["command", "rm -rf ./*</{BAR}DMSL{BAR}parameter>"], ["workdir", `/tmp/scratch${C}`]], { command: "rm -rf ./*", workdir: "/tmp/scratch" }],
    ["doubled fullwidth sentinel (M01) with DSM", "bash", [["command", "ls -la</{BAR}{BAR}DSM{BAR}{BAR}parameter>"]], { command: "ls -la" }],
    ["ASCII sentinel (M02) misspelled DSLM: kept whole", "bash", [["command", "ls -la</|DSLM|parameter>"]], { command: "ls -la" }],
  ];
  for (const [name, tool, params, input] of cases) {
    test(name, () => expectExactOrNone(block(tool, params), tool, input));
  }
});

describe("hard negatives (pass today): garbled closers P02 already cuts right, and values that only look like one", () => {
  test("`</{D}parametr>` (misspelled word) is cut and kept", () => {
    expect(outcome(block("bash", [["command", "ls -la</{D}parametr>"]])).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
  test("`{BAR}>{BAR}parameter>` (the taxonomy's own example) is cut and kept", () => {
    expect(outcome(block("bash", [["command", "ls -la{BAR}>{BAR}parameter>"]])).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
  test("a closer that lost its `<` (`/{D}parameter>`) is cut and kept", () => {
    expect(outcome(block("bash", [["command", "ls -la/{D}parameter>"], ["workdir", `/tmp/x${C}`]])).calls).toEqual([{ tool: "bash", input: { command: "ls -la", workdir: "/tmp/x" } }]);
  });
  test("a closer in upper case, or with a space after `</`, is read as the closer", () => {
    expect(outcome(block("bash", [["command", "ls -la</{D}PARAMETER>"]])).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(outcome(block("bash", [["command", "ls -la</ {D}parameter>"]])).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
  test("a shell pipe into a word spelled like `param` stays the command", () => {
    expect(outcome(block("bash", [["command", `ls -la | paramfix${C}`]])).calls).toEqual([{ tool: "bash", input: { command: "ls -la | paramfix" } }]);
  });
  test("XML written into a file stays the file", () => {
    expect(outcome(block("write", [["filePath", `a.xml${C}`], ["content", `<a><parameter>x</parameter></a>${C}`]])).calls).toEqual([{ tool: "write", input: { filePath: "a.xml", content: "<a><parameter>x</parameter></a>" } }]);
  });
  test("a closer that lost its `>` before the next parameter (P11) keeps both values", () => {
    const text = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter<{D}parameter name="workdir" string="true">/tmp/scratch</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(text).calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*", workdir: "/tmp/scratch" } }]);
  });
});

describe("hard negatives (fix): where a garbled closer starts is unclear, or the text only looks like one", () => {
  const refused = (text: string) => {
    const o = outcome(text);
    expect(o.calls).toEqual([]);
    expect(parse(text, fixtureTools).broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  };
  test("a DSML-like word or a `/` glued before a bare bar: the start is unclear, the call is refused (never `ls -la/DSL`)", () => {
    refused(block("bash", [["command", "ls -la/DSL{BAR}parameter>"]]));
    refused(block("bash", [["command", "ls -laDSL{BAR}parameter>"]]));
    refused(block("bash", [["command", "rm -rf ./*DSM{BAR}parameter>"], ["workdir", `/tmp/scratch${C}`]]));
  });
  test("a bar before the misspelled word is the closer's start: cut there", () => {
    expect(outcome(block("bash", [["command", "ls -la{BAR}DSL{BAR}parameter>"]])).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(outcome(block("bash", [["command", "ls -la</DSMLparameter>"]])).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
  test("words that are no DSML (HTML, XML, YAML) before a pipe-led `param` stay the value's text", () => {
    for (const command of ["echo HTML|param", "cat a.xml |parameter", "echo <b>param", "echo </b>parameter"]) {
      expect(outcome(block("bash", [["command", `${command}${C}`]])).calls).toEqual([{ tool: "bash", input: { command } }]);
    }
  });
  test("a word spelled DSL in a path, not glued to a bar, stays the value", () => {
    expect(outcome(block("bash", [["command", `cd src/DSL && make params${C}`]])).calls).toEqual([{ tool: "bash", input: { command: "cd src/DSL && make params" } }]);
    expect(outcome(block("write", [["filePath", `docs/dsl.md${C}`], ["content", `The DSL {BAR} param table${C}`]])).calls).toEqual([{ tool: "write", input: { filePath: "docs/dsl.md", content: live("The DSL {BAR} param table") } }]);
  });
  test("garbledCloserAt: the misspelled sentinel words, and the near misses", () => {
    expect(garbledCloserAt(live("alpha</{BAR}DSL{BAR}parameter>"))).toBe(5);
    expect(garbledCloserAt(live("alpha<//{D}param"))).toBe(5);
    expect(garbledCloserAt("alpha</|DSLM|parameter>")).toBe(5);
    expect(garbledCloserAt(live("alpha{BAR}DMSL{BAR}parameter>"))).toBe(5);
    for (const value of ["alpha</|HTML|parameter>", "alpha</|DS|parameter>", "alpha</b>parameter>", "alpha</DSMLparameters>x"]) {
      expect(garbledCloserAt(value)).toBe(-1);
    }
    // A space inside the closer: its start is unclear (refused), never cut after `</{BAR}DSL `.
    expect(garbledCloser(live("alpha</{BAR}DSL {BAR}parameter>"))).toEqual({ at: 12, unclear: true });
    expect(garbledCloser(live("the DSL {BAR}>{BAR}parameter>"))).toEqual({ at: 8, unclear: false });
  });
});
