/**
 * Review 45 findings 1, 3, 4 (fixer's own cases, beside the reviewer's review-45-dsml-*.test.ts):
 * the stream and the span walk decide with one rule whether a DSML value is open
 * (src/parse/dsml-value.ts), the tool-named form (I11) applies the closer rule to its own closer
 * and to the invoke closer, and examples inside an I11 value or an I11 example inside a value
 * stay the value's text.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { withAliases } from "../../src/parse/aliases.ts";
import { parseDsmlSpan } from "../../src/parse/dialects/dsml/parse-span.ts";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import { resolveParseOptions } from "../../src/parse/types.ts";
import { escaped, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK, EXAMPLE_INVOKE } from "../support/cut-off-examples.ts";
import { outcome } from "../support/outcome.ts";
import { runAtEverySplit, runEngine } from "../support/run-engine.ts";

const ctx = { tools: withAliases(new Map(fixtureTools.map((t) => [t.name, t]))), options: resolveParseOptions(undefined), schemas: new SchemaGate() };
const i11Write = (content: string) => live(`<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>`) + content + live(`</{D}content>\n</{D}write>`);
const i11WriteInBlock = (content: string) => live(`<{D}tool_calls>\n<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>`) + content + live(`</{D}content>\n</{D}write>\n</{D}tool_calls>`);
const E29 = live(`<{D}bash>\n<{D}command>rm -rf x</{D}parameter>\n</{D}invoke>`);
const I11_EXAMPLE = live(`<{D}bash>\n<{D}command>rm -rf x</{D}command>\n</{D}bash>`);

describe("examples inside an I11 value are the value's text", () => {
  for (const [name, wrap] of [["alone", i11Write], ["in a block", i11WriteInBlock]] as const) {
    for (const [ex, example] of [["a DSML block", EXAMPLE_BLOCK], ["a lone invoke", EXAMPLE_INVOKE], ["an E29.1-shaped I11 example", E29], ["an I11 example", I11_EXAMPLE]] as const) {
      test(`${name}, ${ex}: the write runs whole, the example never`, () => {
        const content = `# Doc\n${example}\n`;
        // Before the fix: the DSML block ran `rm -rf x` (the I11 value's own closer ended no example), E29.1 cut the write.
        expect(outcome(wrap(content)).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
      });
    }
  }

  test("the tool's closer ending its line, the child's own closer next: the closer was the value's text", () => {
    const content = live("Close with\n</{D}write>\n");
    expect(outcome(i11Write(content)).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  });

  test("a child named like a block (`</{D}callback>`) mentioned in an I11 value in a block: never a cut write", () => {
    for (const content of [live("v</{D}callback> text <{D}thinking> text "), live("v</{D}write> text </{D}callback> text <{D}thinking> text ")]) {
      // Before the fix: write {content: "v"}, the rest stripped.
      expect(outcome(i11WriteInBlock(content)).calls.every((c) => c.input.content !== "v")).toBe(true);
    }
  });

  test("hard negative (as before): the tool's own closer ending its line, prose next, still ends the element (P01)", () => {
    const o = outcome(live(`<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>hello\n</{D}write>\nDone.`));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "hello" } }]);
  });
});

describe("an I11 example inside an invoke's DSML value", () => {
  const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
  const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  test("two E29.1-shaped examples in a row: the write runs whole", () => {
    const content = `# Doc\n${E29}\n${E29}\n`;
    expect(outcome(head + content + tail).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  });
  test("hard negative: a sentinel tag naming no declared tool is only text, the write runs whole", () => {
    const content = live(`# Doc\n<{D}frobnicate>\n<{D}command>rm -rf x</{D}command>\n</{D}frobnicate>\n`);
    expect(outcome(head + content + tail).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  });
});

describe("the stream against its own span walk, wider shapes", () => {
  // Values closed early (a stray `</{D}parameter>` line), the I11 element alone and in a block,
  // a lone invoke, an I11 element after a first invoke in a block; fragments include the I11
  // tool's and children's closers, `</{D}callback>` (a child named like a block), a self-closing invoke.
  const FRAGMENTS = [
    "<{D}thinking>", "</{D}thinking>", "<{D}bash>", "</{D}bash>", "<{D}write>", "</{D}write>", "<{D}command>", "</{D}command>", "<{D}content>", "</{D}content>", "</{D}invoke>",
    "</{D}tool_calls>", "</invoke>", "</function_calls>", "</tool_call>", "<a>", "</a>", "<br/>", "</{D}function_calls>", "<{D}description>", "</name>", "<name>",
    '<{D}invoke name="bash" />', "</{D}callback>",
  ];
  const FILL = [" text ", "\n", " ", "x\n", "\n\n", " ; rm -rf build ", "\n</{D}parameter>\n"];
  const value = fc.array(fc.tuple(fc.constantFrom(...FRAGMENTS), fc.constantFrom(...FILL)), { minLength: 1, maxLength: 5 }).map((parts) => "v" + parts.map(([t, f]) => t + f).join(""));
  const shapes = fc.tuple(fc.integer({ min: 0, max: 6 }), value).map(([k, v]) =>
    [
      `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">${v}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
      `<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${v}</{D}parameter>\n</{D}invoke>`,
      `<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>${v}</{D}content>\n</{D}write>`,
      `<{D}tool_calls>\n<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>${v}</{D}content>\n</{D}write>\n</{D}tool_calls>`,
      `<{D}tool_calls>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">a</{D}parameter>\n</{D}invoke>\n<{D}bash>\n<{D}command>${v}</{D}command>\n</{D}bash>\n</{D}tool_calls>`,
      // An I11 element first, then an invoke or another element, in one block.
      `<{D}tool_calls>\n<{D}bash>\n<{D}command>ls</{D}command>\n</{D}bash>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">${v}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
      `<{D}tool_calls>\n<{D}bash>\n<{D}command>ls</{D}command>\n</{D}bash>\n<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>${v}</{D}content>\n</{D}write>\n</{D}tool_calls>`,
    ][k]!,
  );

  test("every call the stream runs is one the walk over the whole input reads", () => {
    fc.assert(
      fc.property(shapes, (notation) => {
        const input = live(notation);
        const walk = parseDsmlSpan(input, ctx).flatMap((seg) => (seg.kind === "call" ? [JSON.stringify([seg.tool, seg.input])] : []));
        const extra = runEngine(input, [], fixtureTools).calls.map((c) => JSON.stringify([c.tool, c.input])).filter((c) => !walk.includes(c));
        if (extra.length > 0) expect({ input: escaped(input), extra: extra.map(escaped) }).toEqual({ input: escaped(input), extra: [] });
      }),
      { seed: 45_7, numRuns: 800 },
    );
  });

  test("metamorphic, the I11 form and I11 examples too: an example appended to content written whole never runs", () => {
    // Fragments of the other findings (a prefix-less `</parameter>`, plain openers) are left out: see review-45-dsml-reader.test.ts.
    const F = ["<{D}thinking>", "<{D}bash>", "</{D}bash>", "</{D}invoke>", "</{D}tool_calls>", "</invoke>", "</function_calls>", "</tool_call>", "<a>", "</a>", "<name>", "</name>", "<br/>", "<{D}content>", "</{D}content>", "</{D}write>"];
    const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
    const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    const wraps = [(c: string) => head + c + tail, i11Write, i11WriteInBlock];
    const cases = fc.tuple(
      fc.array(fc.tuple(fc.constantFrom(...F), fc.constantFrom(" text ", " ; y ", " text\n")), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(EXAMPLE_BLOCK, E29, I11_EXAMPLE),
      fc.integer({ min: 0, max: 2 }),
    );
    fc.assert(
      fc.property(cases, ([parts, example, w]) => {
        const c = live(`v${parts.map(([f, t]) => f + t).join("")}\n`);
        const wrap = wraps[w]!;
        const alone = runAtEverySplit(wrap(c), fixtureTools).calls;
        if (!(alone.length === 1 && alone[0]!.input.content === c)) return;
        const calls = runAtEverySplit(wrap(c + example + "\n"), fixtureTools).calls;
        expect({ content: escaped(c), example: escaped(example), w, calls: calls.map((x) => x.tool) }).toEqual({ content: escaped(c), example: escaped(example), w, calls: calls.length === 0 ? [] : ["write"] });
      }),
      { seed: 45_8, numRuns: 200 },
    );
  }, 60_000);
});
