/**
 * Review 45 findings 2, 6 and 7 (fix fx45-dsml-mentions): the edges of the new rules. Every case
 * runs whole, char by char and at seeded random splits (outcome() asserts they agree).
 */
import { describe, expect, test } from "bun:test";
import { plainMarkupValueEnds } from "../../src/parse/dialects/dsml/value-ends.ts";
import { tagsOf } from "../../src/parse/segments.ts";
import { D, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK, EXAMPLE_INVOKE } from "../support/cut-off-examples.ts";
import { outcome } from "../support/outcome.ts";
import { accountsForEveryCharacter, runAtEverySplit, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const ranExample = (o: ReturnType<typeof outcome>) => o.calls.some((c) => c.tool === "bash");

describe("finding 2: plain markup, then a DSML example, in one DSML value", () => {
  test("the run is read through the example to the value's own closer (the walk's lookahead)", () => {
    const text = live(`<{D}parameter name="c">ends with </parameter> x\n`) + EXAMPLE_BLOCK + live(`\n</{D}parameter>`);
    const tags = tagsOf(text);
    expect([...plainMarkupValueEnds(text, tags).entries()]).toEqual([[0, tags.length - 1]]);
  });

  test("several mentions and two examples: written whole", () => {
    const content = `Claude: <invoke name="bash"> and </function> x\n${EXAMPLE_BLOCK}\nthen </invoke> and <parameter name="x"> y ${live("<{D}thinking>")}\n${EXAMPLE_INVOKE}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("M07.5 stands without an example (golden shape): the plain parameter is the call's", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="edit">\n<{D}parameter name="filePath" string="true">a.txt</parameter>\n<parameter name="oldString" string="true">x</{D}parameter>\n<{D}parameter name="newString" string="true">y</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(input).calls).toEqual([{ tool: "edit", input: { filePath: "a.txt", oldString: "x", newString: "y" } }]);
  });

  test("the example after plain markup ended by the invoke closer, not the value's: refused, text kept", () => {
    const input = `${head}Ends with </parameter> x\n${EXAMPLE_BLOCK}\n` + live(`</{D}invoke>\n</{D}tool_calls>`);
    const r = runAtEverySplit(input, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(accountsForEveryCharacter(input, r)).toBe(true);
  });

  test("mentions after the example too (`</invoke>`, `<parameter>`, `<{D}thinking>`): written whole", () => {
    for (const after of ["Claude ends with </invoke> tags.", 'Claude writes <parameter name="x"> for values.', live("Tag <{D}thinking> here.")]) {
      const content = `# Doc\n${EXAMPLE_BLOCK}\n${after}\n`;
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    }
  });

  test("a block closer after the example: text on its line, or the value's closer next, makes it the page's text", () => {
    for (const after of [live("Blocks end with </{D}tool_calls> tags."), live("Blocks end with\n</{D}tool_calls>")]) {
      const content = `# Doc\n${EXAMPLE_BLOCK}\n${after}\n`;
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    }
  });

  test("text in the body after a value closed mid-line, then an example and the call's closers: nothing runs, text kept", () => {
    const input = `${head}Values end with ${live("</{D}parameter>")} tags.\n${EXAMPLE_INVOKE}\n${tail}`;
    const r = runAtEverySplit(input, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(accountsForEveryCharacter(input, r)).toBe(true);
  });

  test("control: a clean restart (no body text) still reads the new block's call", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n`) + EXAMPLE_BLOCK;
    expect(outcome(input).calls.map((c) => c.input)).toContainEqual({ command: "rm -rf x" });
  });
});

describe("finding 6: a lone invoke or block closer line in a value, then an example", () => {
  for (const closer of ["</{D}invoke>", "</{D}tool_calls>"]) {
    for (const [name, example] of [["block", EXAMPLE_BLOCK], ["invoke", EXAMPLE_INVOKE]] as const) {
      test(`${closer}, a ${name} example, the write's own closers: the page is written whole`, () => {
        const content = `# Doc\nCalls end with\n${live(closer)}\n${example}\n`;
        expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
      });

      test(`${closer}, a ${name} example, then only an invoke closer: refused, nothing runs, text kept`, () => {
        const input = `${head}# Doc\n${live(closer)}\n${example}\n` + live("</{D}invoke>\n</{D}tool_calls>");
        const r = runAtEverySplit(input, fixtureTools);
        expect(r.calls).toEqual([]);
        expect(accountsForEveryCharacter(input, r)).toBe(true);
      });

      test(`P01 stands: ${closer} ending its line, then a ${name} call with no closer of the write after it`, () => {
        const o = outcome(`${head}# Doc\n${live(closer)}\n${example}`);
        expect(o.calls).toEqual([
          { tool: "write", input: { filePath: "notes.md", content: "# Doc" } },
          { tool: "bash", input: { command: "rm -rf x" } },
        ]);
      });
    }
  }
});

describe("finding 7: a stray tag right after a block opener", () => {
  const rest = live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

  test("no prose after it: the block reads as before", () => {
    expect(outcome(live(`<{D}tool_calls>\n</{D}parameter>\n`) + rest)).toEqual({ calls: [{ tool: "bash", input: { command: "ls -la" } }], broken: [], text: "" });
  });

  test("two stray tags, then prose: the prose stays visible", () => {
    const input = live(`<{D}tool_calls>\n</{D}parameter>\n<{D}thinking>\nI will list it.\n`) + rest;
    const r = runAtEverySplit(input, fixtureTools);
    expect(r.text).toContain("I will list it.");
    expect(accountsForEveryCharacter(input, r)).toBe(true);
  });

  test("a named call (I10) after a stray tag is not read as one: visible, never run", () => {
    const input = live(`<{D}tool_calls>\n</{D}parameter>\nread\n\`\`\`json\n{"filePath": "/etc/passwd"}\n\`\`\`\n</{D}tool_calls>`);
    const r = runAtEverySplit(input, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(r.text).toContain("/etc/passwd");
  });

  test("a tool element (I11) right after the block opener is structure, not a stray tag", () => {
    const input = live(`<{D}tool_calls>\n<{D}bash>\n<{D}command>ls</{D}command>\n</{D}bash>\n</{D}tool_calls>`);
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("the new lookaheads do linear work (counted, never timed)", () => {
  // Each shape repeated n and 4n times: the work may grow about 4x, never 16x. The first shape was
  // quadratic before an example after a lone closer was limited to one (each closer read on to the
  // end of the reply, once per candidate the engine made after it).
  const shapes: [string, (n: number) => string][] = [
    ["lone closer lines, each before an example", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n<${D}parameter name="content" string="true">` + `x\n</${D}invoke>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls\n`.repeat(n)],
    ["plain markup, then examples that never reach the value's closer", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n<${D}parameter name="content" string="true">v </parameter> x ` + `<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke> </tool_calls> `.repeat(n)],
    ["examples and mentions after them, no closer", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n<${D}parameter name="content" string="true">v ` + `<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke> <a> <${D}thinking> `.repeat(n)],
    ["body text, then closed examples", (n) => `<${D}tool_calls>\n<${D}invoke name="write">\n<${D}parameter name="content" string="true">a</${D}parameter> b\n` + `<${D}invoke name="bash">\n<${D}parameter name="command" string="true">ls</${D}parameter>\n</${D}invoke> t\n`.repeat(n)],
  ];
  for (const [name, make] of shapes) {
    test(name, () => {
      const work = (n: number) => {
        const input = make(n);
        return countWork(() => runEngine(input, [], fixtureTools), 400 * input.length);
      };
      expect(work(1600) / work(400)).toBeLessThan(6);
    });
  }
});
