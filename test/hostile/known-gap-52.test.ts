/**
 * Round 52, known gap (found by the fx52-diff fixer, not fixed this round): a DSML write whose page
 * has a lone invoke closer line, then more examples than the example look-ahead reads
 * (EXAMPLES_AFTER_CLOSER, three), then the write's own closers. The look-ahead's fallback ends the
 * span at the cut, so the value hold (stray-value-closer.ts "value" mode) never starts: the write
 * runs cut at the closer line and every example after it runs too. The same on round 51's main
 * (8746481). Severity: wrong execution. Wanted: the write whole, its examples its text, as with
 * four examples or fewer (golden A46.5; hard negative below), or the run refused; never the write
 * cut with its examples run.
 *
 * Fixed: when the examples after the lone closer line prove none (more than the lookahead reads),
 * the value cut there is held as when prose follows the line (review 52's run after a cut value,
 * SpanCallbacks.runAfterExamples, read again from the first example): the write's own
 * `</{D}parameter>`, closing nothing, refuses the whole run (broken markup, every character kept);
 * with no such closer the cut call and the calls after it run, at the reply's end. The walk reads
 * the same span alike (valueRunRefuses).
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { parse } from "../../src/engine/parse.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";
import { randomCuts } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

const P = (k: string, v: string) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`;
const EXAMPLE = "<{D}bash><{D}command>rm -rf x</{D}command></{D}bash>\n";
const page = (examples: number) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n${P("filePath", "a.md")}\n<{D}parameter name="content" string="true">Close with\n</{D}invoke>\n${EXAMPLE.repeat(examples)}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("a lone closer line in a write's page, then more examples than the look-ahead reads", () => {
  test("five tool-named examples: no example runs, and the write is never cut", () => {
    const o = outcome(page(5));
    expect(o.calls.filter((c) => c.tool === "bash")).toEqual([]);
    expect(o.calls.filter((c) => c.tool === "write" && (c.input as { content: string }).content === "Close with")).toEqual([]);
  });
  for (const n of [5, 7, 12]) {
    test(`${n} examples: the run is refused whole, every character kept, and the walk reads it alike`, () => {
      const input = page(n);
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.broken).toContain("broken-markup");
      expect(o.text).toBe(input);
      expect(parse(input, fixtureTools).calls).toEqual([]);
    });
  }
  test("hard negative: five examples after prose on the page's next line: refused the same", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="write">\n${P("filePath", "a.md")}\n<{D}parameter name="content" string="true">Close with\n</{D}invoke>\nFor example:\n${EXAMPLE.repeat(5)}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
  test("hard negative: with four examples the write runs whole, its examples its text (A46.5)", () => {
    const o = outcome(page(4));
    expect(o.calls.map((c) => c.tool)).toEqual(["write"]);
    expect((o.calls[0]!.input as { content: string }).content.startsWith(live("Close with\n</{D}invoke>\n"))).toBe(true);
  });
});

describe("hard negatives: the cut call and real calls after it, no write closer", () => {
  const I11 = (n: number) => `<{D}bash><{D}command>echo ${n}</{D}command></{D}bash>\n`;
  const cutBash = `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls\n</{D}invoke>\n`;
  const echoes = [1, 2, 3, 4, 5].map((n) => ({ tool: "bash", input: { command: `echo ${n}` } }));
  for (const [name, after] of [
    ["five I11 calls to the reply's end", ""],
    ["five I11 calls, then the block's closer", "</{D}tool_calls>\n"],
  ] as const) {
    test(`a P01 call followed by ${name}: all six run`, () => {
      const input = live(`${cutBash}${[1, 2, 3, 4, 5].map(I11).join("")}${after}`);
      expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }, ...echoes]);
      expect(parse(input, fixtureTools).calls.length).toBe(6);
    });
  }
  test("a cut write followed by five I11 calls and no write closer: the cut write and all five run (as P01)", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="write">\n${P("filePath", "a.md")}\n<{D}parameter name="content" string="true">Close with\n</{D}invoke>\n${[1, 2, 3, 4, 5].map(I11).join("")}`);
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "Close with" } }, ...echoes]);
  });
});

describe("the hold from the examples' fallback is linear", () => {
  const perChar = (text: string) => countWork(() => void parse(text, fixtureTools)) / text.length;
  const streamed = (text: string) =>
    countWork(() => {
      const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_" });
      let at = 0;
      for (const cut of [...randomCuts(text.length, 11), text.length]) {
        engine.feed(text.slice(at, cut));
        at = cut;
      }
      engine.flush();
    }) / text.length;
  test("many cut writes each followed by many examples, with and without a final stray closer: work per character does not grow", () => {
    const unit = live(`<{D}tool_calls>\n<{D}invoke name="write">\n${P("filePath", "a.md")}\n<{D}parameter name="content" string="true">Close with\n</{D}invoke>\n${EXAMPLE.repeat(6)}`);
    const stray = live("</{D}parameter>\n");
    for (const read of [perChar, streamed]) {
      for (const end of ["", stray]) {
        const small = read(unit.repeat(20) + end);
        const large = read(unit.repeat(160) + end);
        expect(large).toBeLessThan(small * 1.5 + 4);
      }
    }
  });
});
