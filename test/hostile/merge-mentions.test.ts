/**
 * Merge of fx45-dsml-stream (one value rule, the I11 reading) and fx45-dsml-mentions (plain
 * markup read through an example, a lone closer line then one example): the mentions side's
 * lookaheads read the open value the I11 way too, so an example after a plain mention or after a
 * lone closer line in a tool-named (I11) value, or an I11 example after a lone closer line, is the
 * value's text. Every case runs whole, char by char and at seeded random splits (outcome()), and
 * the stream runs no call the span walk does not read.
 */
import { describe, expect, test } from "bun:test";
import { withAliases } from "../../src/parse/aliases.ts";
import { EXAMPLES_AFTER_CLOSER } from "../../src/parse/example-in-value.ts";
import { parseDsmlSpan } from "../../src/parse/dialects/dsml/parse-span.ts";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import { resolveParseOptions } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK } from "../support/cut-off-examples.ts";
import { outcome } from "../support/outcome.ts";

const ctx = { tools: withAliases(new Map(fixtureTools.map((t) => [t.name, t]))), options: resolveParseOptions(undefined), schemas: new SchemaGate() };
const i11Write = (content: string) => live(`<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>`) + content + live(`</{D}content>\n</{D}write>`);
const i11WriteInBlock = (content: string) => live(`<{D}tool_calls>\n<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>`) + content + live(`</{D}content>\n</{D}write>\n</{D}tool_calls>`);
const invokeWrite = (content: string) =>
  live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`) + content + live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const I11_EXAMPLE = live(`<{D}bash>\n<{D}command>rm -rf x</{D}command>\n</{D}bash>`);
const WRAPS = [["an I11 write", i11Write], ["an I11 write in a block", i11WriteInBlock]] as const;
const EXAMPLES = [["a DSML block", EXAMPLE_BLOCK], ["an I11 example", I11_EXAMPLE]] as const;

/** The calls the span walk reads over the whole input, as the engine reports them. */
const walkCalls = (input: string) => parseDsmlSpan(input, ctx).flatMap((seg) => (seg.kind === "call" ? [{ tool: seg.tool, input: seg.input }] : []));

function writesWhole(input: string, content: string) {
  const o = outcome(input);
  expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  expect(walkCalls(input)).toEqual(o.calls);
}

describe("plain markup mentioned in an I11 value, then an example (the plain run reads it the I11 way)", () => {
  for (const [wn, wrap] of WRAPS) {
    for (const [en, example] of EXAMPLES) {
      test(`${wn}, ${en}: the write runs whole, the example never`, () => {
        // Before the fix (merged, unthreaded): the plain run's example never met `</{D}content>`, proved nothing, and `rm -rf x` ran.
        const content = `v</invoke> text \n${example}\n`;
        writesWhole(wrap(content), content);
      });
    }
  }

  test("an unmatched plain </parameter> then an I11 example in an invoke's value: written whole", () => {
    const content = `Ends with </parameter> here\n${I11_EXAMPLE}\n`;
    writesWhole(invokeWrite(content), content);
  });
});

describe("a lone closer line, then one example, in an I11 value or an I11 example after one", () => {
  const CLOSERS = [["the tool's own closer", "</{D}write>"], ["an invoke closer", "</{D}invoke>"], ["a block closer", "</{D}tool_calls>"]] as const;
  for (const [wn, wrap] of WRAPS) {
    for (const [cn, closer] of CLOSERS) {
      for (const [en, example] of EXAMPLES) {
        test(`${wn}, ${cn} on its own line, ${en}, the child's own closer: written whole`, () => {
          // Before the fix: the lookahead ended the example only at a parameter closer, so the write ran cut ("Close with") and the example ran.
          const content = live(`Close with\n${closer}\n`) + example + "\n";
          writesWhole(wrap(content), content);
        });
      }
    }
  }

  for (const [cn, closer] of CLOSERS.slice(1)) {
    test(`an invoke's value, ${cn} on its own line, an I11 example, the parameter closer: written whole`, () => {
      // Before the fix: a sentinel tag naming a declared tool was no example after a lone closer line.
      const content = live(`Close with\n${closer}\n`) + I11_EXAMPLE + "\n";
      writesWhole(invokeWrite(content), content);
    });
  }

  test("hard negative: the tool's closer on its own line, then prose, still ends the element (P01)", () => {
    const input = live(`<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>hello\n</{D}write>\nDone.`);
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "hello" } }]);
  });

  // Review 52 diff review, findings 1-3 (fx52-diff): the lone closer line still ends the value (P01), but the run
  // after it holds the markup to the write's own `</{D}parameter>`, which closes nothing: the write is refused, text
  // kept (before: it ran cut, content "Close with"). Without that closer it runs cut, at the reply's end.
  test("hard negative: a lone invoke closer line, then a tag naming no declared tool: no example, the write's own closer refuses it", () => {
    const content = live(`Close with\n</{D}invoke>\n<{D}frobnicate>\n<{D}command>ls</{D}command>\n</{D}frobnicate>\n`);
    const o = outcome(invokeWrite(content));
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(invokeWrite(content));
    const open = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`) + content;
    expect(outcome(open).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "Close with" } }]);
  });

  test("two I11 examples after a lone closer line are the page's text too (fx46: up to EXAMPLES_AFTER_CLOSER), as DSML blocks are", () => {
    // Before fx46: one example only, so the write ran cut ("Close with") and both examples ran.
    const content = live(`Close with\n</{D}invoke>\n`) + I11_EXAMPLE + "\n" + I11_EXAMPLE + "\n";
    writesWhole(invokeWrite(content), content);
  });

  test("hard negative: more examples than the lookahead reads after a lone closer line prove none: the line ends the value (P01), and the run after it is held", () => {
    // Round 52 known gap, fixed (known-gap-52.test.ts): the write's own closer after the examples refuses the whole run; before, the cut write and every example ran.
    const content = live(`Close with\n</{D}invoke>\n`) + `${I11_EXAMPLE}\n`.repeat(EXAMPLES_AFTER_CLOSER + 1);
    const o = outcome(invokeWrite(content));
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(invokeWrite(content));
    // With no write closer after them the line ended the value: the cut write runs (at the reply's end), the examples with it.
    const open = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`) + content;
    expect(outcome(open).calls[0]).toEqual({ tool: "write", input: { filePath: "a.md", content: "Close with" } });
  });
});
