/**
 * Round 52, known gap (found by the fx52-diff fixer, not fixed this round): a DSML write whose page
 * has a lone invoke closer line, then more examples than the example look-ahead reads
 * (EXAMPLES_AFTER_CLOSER, three), then the write's own closers. The look-ahead's fallback ends the
 * span at the cut, so the value hold (stray-value-closer.ts "value" mode) never starts: the write
 * runs cut at the closer line and every example after it runs too. The same on round 51's main
 * (8746481). Severity: wrong execution. Wanted: the write whole, its examples its text, as with
 * four examples or fewer (golden A46.5; hard negative below), or the run refused; never the write
 * cut with its examples run.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const P = (k: string, v: string) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`;
const EXAMPLE = "<{D}bash><{D}command>rm -rf x</{D}command></{D}bash>\n";
const page = (examples: number) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n${P("filePath", "a.md")}\n<{D}parameter name="content" string="true">Close with\n</{D}invoke>\n${EXAMPLE.repeat(examples)}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

describe("a lone closer line in a write's page, then more examples than the look-ahead reads", () => {
  test.failing("five tool-named examples: no example runs, and the write is never cut", () => {
    const o = outcome(page(5));
    expect(o.calls.filter((c) => c.tool === "bash")).toEqual([]);
    expect(o.calls.filter((c) => c.tool === "write" && (c.input as { content: string }).content === "Close with")).toEqual([]);
  });
  test("hard negative: with four examples the write runs whole, its examples its text (A46.5)", () => {
    const o = outcome(page(4));
    expect(o.calls.map((c) => c.tool)).toEqual(["write"]);
    expect((o.calls[0]!.input as { content: string }).content.startsWith(live("Close with\n</{D}invoke>\n"))).toBe(true);
  });
});
