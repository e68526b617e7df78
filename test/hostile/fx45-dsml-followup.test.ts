/**
 * Follow-ups of review 45's DSML fix (src/parse/dsml-value.ts shared by the stream and the walk):
 * 1. a prefix-less `</function>` in a DSML block ends a unit only where the walk ends one too (an
 *    element opened by a function opener), so the stream never runs a write the walk refuses;
 * 2. an I11 child named like its tool (`<{D}note>` inside `<{D}note>`, the tool declaring a
 *    parameter of its own name or not) is ambiguous markup: the call never runs, the text stays;
 * and the stream-vs-walk property over both shapes, whole, char by char and at random splits.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { withAliases } from "../../src/parse/aliases.ts";
import { parseDsmlSpan } from "../../src/parse/dialects/dsml/parse-span.ts";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import { resolveParseOptions, type ToolSpec } from "../../src/parse/types.ts";
import { escaped, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";
import { everyChar, randomCuts, runEngine } from "../support/run-engine.ts";

const str = { type: "string" };
/** A tool with a parameter of its own name (`note`), beside the fixture tools. */
const tools: ToolSpec[] = [...fixtureTools, { name: "note", parameters: { type: "object", properties: { note: str, title: str }, required: ["note"] } }];
const ctx = { tools: withAliases(new Map(tools.map((t) => [t.name, t]))), options: resolveParseOptions(undefined), schemas: new SchemaGate() };
const walkCalls = (input: string) => parseDsmlSpan(input, ctx).flatMap((seg) => (seg.kind === "call" ? [JSON.stringify([seg.tool, seg.input])] : []));

const WRITE_HEAD = `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">hello</{D}parameter>\n`;

describe("a prefix-less </function> in a DSML block", () => {
  const refused: [string, string][] = [
    ["a second content after it", `${WRITE_HEAD}</function>\n<{D}parameter name="content" string="true">other</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`],
    ["prose after it in the invoke", `${WRITE_HEAD}</function>\nDone.\n</{D}tool_calls>`],
    ["after an I11 element's last child", `<{D}tool_calls>\n<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>hello</{D}content>\n</function>\nDone.\n</{D}tool_calls>`],
  ];
  for (const [name, notation] of refused) {
    test(`${name}: the walk refuses the write, so the stream runs nothing (whole = char by char = splits)`, () => {
      const input = live(notation);
      expect(walkCalls(input)).toEqual([]);
      // Before the fix: the stream ended the unit at `</function>` and ran write {content: "hello"}.
      const o = outcome(input, tools);
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
      expect(o.text).toBe(input);
    });
  }

  test("hard negative: the block's closer right after it still closes the write (as the walk reads it)", () => {
    const input = live(`${WRITE_HEAD}</function>\n</{D}tool_calls>`);
    expect(outcome(input, tools).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "hello" } }]);
  });

  test("hard negative: a function element opening the block still ends at its own </function>", () => {
    const input = live(`<{D}tool_calls>\n<function><name>bash</name><parameter name="command" string="true">ls</parameter></function>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(input, tools).calls).toEqual([
      { tool: "bash", input: { command: "ls" } },
      { tool: "read", input: { filePath: "a" } },
    ]);
  });
});

describe("an I11 child named like its tool", () => {
  const cases: [string, string][] = [
    ["the tool declares it, the element closed", `<{D}note>\n<{D}title>t</{D}title>\n<{D}note>hello</{D}note>\n</{D}note>`],
    ["the tool declares it, prose after", `<{D}note>\n<{D}note>hello</{D}note>\n</{D}note>\nDone.`],
    ["the tool declares it, only one closer", `<{D}note>\n<{D}note>hello</{D}note>\nDone.`],
    ["in a block", `<{D}tool_calls>\n<{D}note>\n<{D}note>hello</{D}note>\n</{D}note>\n</{D}tool_calls>`],
    ["the tool does not declare it", `<{D}write>\n<{D}filePath>a</{D}filePath>\n<{D}write>hello</{D}write>\n<{D}content>x</{D}content>\n</{D}write>`],
  ];
  for (const [name, notation] of cases) {
    test(`${name}: never runs, every character stays visible`, () => {
      const input = live(notation);
      expect(walkCalls(input)).toEqual([]);
      // Before the fix: note {note: "hello"} ran (the stream ended the element at the child's closer,
      // even where the walk read the element as never closed), or the write's refusal came as four reports.
      const o = outcome(input, tools);
      expect(o.calls).toEqual([]);
      expect(o.broken.length).toBe(1);
      expect(o.text).toBe(input);
    });
  }

  test("hard negative: the tool's name as text in a child's value, and a closer of the child, still run", () => {
    const runs = live(`<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>use the write tool</{D}content>\n</{D}write>`);
    expect(outcome(runs, tools).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "use the write tool" } }]);
    const note = live(`<{D}note>\n<{D}title>t</{D}title>\n</{D}note>`);
    // `note` is required, so a title alone is refused (missing), never run with a guessed note.
    expect(outcome(note, tools).calls).toEqual([]);
  });
});

describe("the stream against its own span walk: </function> and children named like the tool", () => {
  // Between the values of an invoke or an I11 element: a prefix-less function closer, prose,
  // another value, a child named like the tool, the unit's own closers.
  const BETWEEN = [
    "</function>", "<function>", "Done.", "\n", "</{D}invoke>", "</{D}note>", "</{D}write>", "<{D}note>n</{D}note>", "<{D}write>w</{D}write>", "<{D}note>",
    '<{D}parameter name="content" string="true">other</{D}parameter>', "<{D}title>t</{D}title>", "<{D}content>c</{D}content>", "</{D}tool_calls>", "</{D}content>",
    // fx45-dsml-restart: a stray parameter closer, plain closers mentioned in prose, a value holding mentions and a lone closer line.
    "</{D}parameter>", "Values end with </parameter> and </invoke> tags.", '<{D}parameter name="content" string="true">ends with </parameter> and </invoke> x\n</{D}invoke>\n</{D}tool_calls>\nmore</{D}parameter>',
  ];
  const between = fc.array(fc.constantFrom(...BETWEEN), { minLength: 1, maxLength: 4 }).map((parts) => parts.join("\n"));
  const shapes = fc.tuple(fc.integer({ min: 0, max: 5 }), between, fc.boolean()).map(([k, b, closed]) => {
    const end = closed ? "\n</{D}tool_calls>" : "\nDone.";
    return [
      `${WRITE_HEAD}${b}\n</{D}invoke>${end}`,
      `${WRITE_HEAD}${b}${end}`,
      `<{D}note>\n<{D}title>t</{D}title>\n${b}\n</{D}note>\nDone.`,
      `<{D}tool_calls>\n<{D}note>\n<{D}title>t</{D}title>\n${b}\n</{D}note>${end}`,
      `<{D}tool_calls>\n<{D}write>\n<{D}filePath>a.md</{D}filePath>\n<{D}content>c</{D}content>\n${b}\n</{D}write>${end}`,
      `<{D}write>\n<{D}filePath>a.md</{D}filePath>\n${b}\n<{D}content>c</{D}content>\n</{D}write>\nDone.`,
    ][k]!;
  });

  test("every call the stream runs, whole, char by char or at random splits, is one the walk over the whole input reads; all three agree", () => {
    fc.assert(
      fc.property(shapes, (notation) => {
        const input = live(notation);
        const walk = walkCalls(input);
        const runs = [runEngine(input, [], tools), runEngine(input, everyChar(input.length), tools), runEngine(input, randomCuts(input.length, input.length), tools)];
        const seen = runs.map((r) => ({ calls: r.calls.map((c) => JSON.stringify([c.tool, c.input])), text: escaped(r.text) }));
        const extra = seen.flatMap((s) => s.calls.filter((c) => !walk.includes(c)));
        expect({ input: escaped(input), extra }).toEqual({ input: escaped(input), extra: [] });
        expect({ input: escaped(input), seen: seen.slice(1) }).toEqual({ input: escaped(input), seen: [seen[0]!, seen[0]!] });
      }),
      { seed: 45_9, numRuns: 400 },
    );
  }, 60_000);
});
