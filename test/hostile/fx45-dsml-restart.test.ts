/**
 * Review 45, the five DSML shapes the mentions fix left (fix fx45-dsml-restart): markup in a DSML
 * write's value ended or cut the write, and the call example after it ran although the write's own
 * closers come after the example. Trust first: the example never runs when the write's closers
 * follow it; the write is written whole where the value rule reads it so, refused (text kept,
 * broken-markup) where the markup is ambiguous. Hard negatives: with no closer of the write after
 * the example, P01, M07.5 and the restart rule stand. Every case runs whole, char by char and at
 * seeded random splits (outcome() and runAtEverySplit() assert they agree).
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
import { accountsForEveryCharacter, everyChar, randomCuts, runAtEverySplit, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const invokeTail = live(`</{D}invoke>\n</{D}tool_calls>`);
const editHead = live(`<{D}tool_calls>\n<{D}invoke name="edit">\n<{D}parameter name="filePath" string="true">a.txt</parameter>\n<parameter name="oldString" string="true">x\n`);
const closerLines = live(`</{D}invoke>\n</{D}tool_calls>\n`);

/** Nothing runs, every character stays visible, the markup is reported (whole = char by char = splits). */
function refused(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  expect(r.calls).toEqual([]);
  expect(r.text).toBe(input);
  expect(r.summary.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
}

describe("case 1: `</parameter>` and `</invoke>` mentioned in prose before an example", () => {
  const prose = "Values end with </parameter> and calls with </invoke> tags.\n";

  test("the write's closers after the example: the page is written whole (text after the plain closer on its line makes it a mention)", () => {
    // Before the fix: the pair was read as the model's mis-closed parameter (M07), the write refused and bash {rm -rf x} ran.
    const content = `${prose}${EXAMPLE_BLOCK}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("only the invoke closer after the example: refused, nothing runs", () => refused(`${head}${prose}${EXAMPLE_BLOCK}\n${invokeTail}`));

  test("the mentions, then a lone closer line, then the example: the mentions are text and the closer line is weighed as usual (written whole)", () => {
    // Before the fix: the failed plain run left the mention `</parameter>` to be read as M07's closer, and the example ran.
    const content = `${prose}${live("</{D}tool_calls>")}\n${EXAMPLE_BLOCK}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("the mentions after an example too: written whole (the closer rule for a prefix-less closer after an example)", () => {
    // Before the fix: the mention's `</parameter>` after the example was read as the value's closer (M07), and a second example ran.
    const content = `# Doc\n${EXAMPLE_INVOKE}\n${prose}${EXAMPLE_INVOKE}\n${prose}`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("hard negative: after an example, a prefix-less closer ending its line is still the value's closer (A41.2's reading)", () => {
    const input = `${head}# Doc\n${EXAMPLE_INVOKE}\n</parameter>\n${invokeTail}`;
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content: `# Doc\n${EXAMPLE_INVOKE}\n` } }]);
  });

  test("hard negative (M07.6's shape): the plain closer ending its line still closes the value", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  test("hard negative: the plain closer with a tag right after it on its line still closes the value (M07.4)", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="edit">\n<{D}parameter name="filePath" string="true">a.txt</parameter><{D}parameter name="oldString" string="true">x</{D}parameter>\n<{D}parameter name="newString" string="true">y</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(input).calls).toEqual([{ tool: "edit", input: { filePath: "a.txt", oldString: "x", newString: "y" } }]);
  });
});

describe("case 2: a lone closer line, then another closer line, then the example", () => {
  test("the write's closers after the example: the page is written whole", () => {
    // Before the fix: the write ran with "# Doc" and bash {rm -rf x} ran.
    const content = `# Doc\n${closerLines}${EXAMPLE_BLOCK}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("two invoke closer lines before an invoke example: the same", () => {
    const content = `# Doc\n${live("</{D}invoke>\n</{D}invoke>\n")}${EXAMPLE_INVOKE}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("only the invoke closer after the example: refused, nothing runs", () => refused(`${head}# Doc\n${closerLines}${EXAMPLE_BLOCK}\n${invokeTail}`));

  test("P01 stands: no closer of the write after the example, the first closer ends the write and the example runs", () => {
    expect(outcome(`${head}# Doc\n${closerLines}${EXAMPLE_BLOCK}`).calls).toEqual([
      { tool: "write", input: { filePath: "notes.md", content: "# Doc" } },
      { tool: "bash", input: { command: "rm -rf x" } },
    ]);
  });

  test("P01 stands: closer lines and then prose or the end of the reply end the write where the first closer stands", () => {
    for (const rest of [closerLines, `${live("</{D}invoke>\n</{D}invoke>\n")}Done.`, closerLines.trimEnd()]) {
      const o = outcome(`${head}# Doc\n${rest}`);
      expect(o.calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content: "# Doc" } }]);
    }
  });
});

describe("case 3: a value closed at its line's end, an example, then a stray parameter closer and the call's closers", () => {
  test("refused: the example never runs, the text stays", () => {
    // Before the fix: the write ran with "# Doc" and bash {rm -rf x} ran.
    refused(`${head}# Doc${live("</{D}parameter>")}\n${EXAMPLE_BLOCK}\n${tail}`);
  });

  test("the invoke closer right after an invoke example: refused too", () => refused(`${head}# Doc${live("</{D}parameter>")}\n${EXAMPLE_INVOKE}\n${invokeTail}`));

  test("the restart rule stands: no closer of the cut call after the new block, both run", () => {
    expect(outcome(`${head}# Doc${live("</{D}parameter>")}\n${EXAMPLE_BLOCK}\nDone.`).calls).toEqual([
      { tool: "write", input: { filePath: "notes.md", content: "# Doc" } },
      { tool: "bash", input: { command: "rm -rf x" } },
    ]);
  });

  test("hard negative: a stray parameter closer right after a block opener, no value open, changes nothing", () => {
    const input = live(`<{D}tool_calls>\n</{D}parameter>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("case 4: an example inside a plain parameter written without its sentinel (M07.5)", () => {
  test("the DSML parameter closer after the example ends the plain value: the edit runs with the example as its text", () => {
    // Before the fix: the edit was cut (truncated) and bash {rm -rf x} ran.
    const input = `${editHead}${EXAMPLE_BLOCK}\n` + live(`</{D}parameter>\n<{D}parameter name="newString" string="true">y</{D}parameter>\n${invokeTail}`);
    expect(outcome(input).calls).toEqual([{ tool: "edit", input: { filePath: "a.txt", oldString: `x\n${EXAMPLE_BLOCK}\n`, newString: "y" } }]);
  });

  test("only the invoke closer after the example: refused, nothing runs", () => refused(`${editHead}${EXAMPLE_BLOCK}\n${invokeTail}`));

  test("a block closer with text after it on its line in the plain value is its text, in the stream as in the walk", () => {
    // Before the fix: the stream ended the edit at the block closer and ran it with oldString "x"; the walk read on (or refused).
    const input = `${editHead}${live("</{D}tool_calls>")} ends a block.\n${EXAMPLE_BLOCK}\n` + live(`</{D}parameter>\n<{D}parameter name="newString" string="true">y</{D}parameter>\n${invokeTail}`);
    expect(outcome(input).calls).toEqual([{ tool: "edit", input: { filePath: "a.txt", oldString: `x\n${live("</{D}tool_calls>")} ends a block.\n${EXAMPLE_BLOCK}\n`, newString: "y" } }]);
  });

  test("the restart rule stands: nothing of the edit after the example, the example runs", () => {
    expect(outcome(`${editHead}${EXAMPLE_BLOCK}\nDone.`).calls).toEqual([{ tool: "bash", input: { command: "rm -rf x" } }]);
  });
});

describe("case 5: an example, a block closer ending its line, prose, then the value's closer", () => {
  for (const [name, example] of [["invoke", EXAMPLE_INVOKE], ["block", EXAMPLE_BLOCK]] as const) {
    test(`a ${name} example: refused (which closer ends the write is ambiguous), the example never runs`, () => {
      // Before the fix: the write was cut at the example (truncated) and bash {rm -rf x} ran.
      refused(`${head}# Doc\n${example}\n${live("</{D}tool_calls>")}\nMore prose.\n${tail}`);
    });
  }

  test("the invoke closer right after the block closer line: refused too", () => refused(`${head}# Doc\n${EXAMPLE_INVOKE}\n${live("</{D}tool_calls>")}\n${invokeTail}`));

  test("control: the value's own closer right after the block closer line writes the page whole (as before)", () => {
    const content = `# Doc\n${EXAMPLE_INVOKE}\n${live("</{D}tool_calls>")}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("only the invoke closer after the prose: refused too", () => refused(`${head}# Doc\n${EXAMPLE_INVOKE}\n${live("</{D}tool_calls>")}\nMore prose.\n${invokeTail}`));

  test("the restart rule stands: no closer of the write after the prose, the example runs", () => {
    const o = outcome(`${head}# Doc\n${EXAMPLE_INVOKE}\n${live("</{D}tool_calls>")}\nMore prose.`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "rm -rf x" } }]);
    expect(o.broken).toEqual(["truncated-call"]);
  });

  test("hard negative: text on the block closer's own line still makes it the page's text (written whole)", () => {
    const content = `# Doc\n${EXAMPLE_INVOKE}\n${live("</{D}tool_calls>")} ends a block.\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });
});

describe("the stream against its own span walk, over the five shapes and fx46's four", () => {
  const ctx = { tools: withAliases(new Map(fixtureTools.map((t) => [t.name, t]))), options: resolveParseOptions(undefined), schemas: new SchemaGate() };
  const walkCalls = (input: string) => parseDsmlSpan(input, ctx).flatMap((seg) => (seg.kind === "call" ? [JSON.stringify([seg.tool, seg.input])] : []));
  const MENTION = "Values end with </parameter> and </invoke> tags.";
  // fx46: the write's own closers as a piece (a write complete before the example, shape 2), and a second example (shape 4).
  const WRITE_CLOSED = "</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>";
  const PIECES = [MENTION, "x</parameter>", "</invoke>", "</{D}invoke>", "</{D}tool_calls>", "</{D}parameter>", "More prose.", '<parameter name="oldString" string="true">x', "</{D}tool_calls> ends a block.", WRITE_CLOSED];
  const INVOKE = escaped(EXAMPLE_INVOKE);
  const EXAMPLES = [escaped(EXAMPLE_BLOCK), INVOKE];
  const around = fc.array(fc.constantFrom(...PIECES), { maxLength: 3 });
  const ENDS = ["</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>", "</{D}invoke>\n</{D}tool_calls>", "Done.", "", "</{D}parameter>\n</{D}invoke>"];
  const shapes = fc.tuple(fc.boolean(), around, fc.constantFrom(...EXAMPLES), fc.option(fc.constantFrom(...EXAMPLES), { nil: undefined }), around, fc.constantFrom(...ENDS)).map(
    ([mention, before, example, second, after, end]) => [`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true"># Doc\n${mention ? `${MENTION}\n` : ""}${[...before, example, ...(second ? [second] : []), ...after].join("\n")}\n${end}`, end, before, after, example === INVOKE && second === INVOKE] as const,
  );
  const RESTARTED = JSON.stringify(["bash", { command: "rm -rf x" }]);

  test("every call the stream runs (whole, char by char, random splits) is one the walk reads; all three agree; the example never runs before the write's own parameter closer", () => {
    fc.assert(
      fc.property(shapes, ([notation, end, before, after, twoInvokes]) => {
        const input = live(notation);
        const walk = walkCalls(input);
        const runs = [runEngine(input, [], fixtureTools), runEngine(input, everyChar(input.length), fixtureTools), runEngine(input, randomCuts(input.length, input.length), fixtureTools)];
        const seen = runs.map((r) => ({ calls: r.calls.map((c) => JSON.stringify([c.tool, c.input])), text: escaped(r.text) }));
        // The example run by the restart rule is a later span's call (the walk over the whole reads only the cut write): checked below instead.
        const extra = seen.flatMap((s) => s.calls.filter((c) => !walk.includes(c) && c !== RESTARTED));
        expect({ input: escaped(input), extra }).toEqual({ input: escaped(input), extra: [] });
        expect({ input: escaped(input), seen: seen.slice(1) }).toEqual({ input: escaped(input), seen: [seen[0]!, seen[0]!] });
        // Trust: a closer of the write (its parameter or invoke closer) after every example: the example never runs.
        // Before the example, the five shapes' own: nothing or mentions (cases 1, 4, 5), lone closer lines (case 2, and
        // fx46's shape 4: one or two examples after them), a value closed at its line's end (case 3).
        const fiveShapes = before.every((p) => p === "</{D}invoke>" || p === "</{D}tool_calls>") || (before.length === 1 && before[0] === "</{D}parameter>");
        // fx46's shapes 1-3: whatever came before (the write complete by M07.6's `x</parameter>` then `</{D}invoke>`, by its own
        // closers, or cut by P01 before other markup), the write's parameter closer right after the example: the example never runs.
        // With two examples, the run before the closer: neither runs. Left open (see the fx46 report): two invoke examples right
        // after an invoke closer that left the write's block open are each a call of that block, the first emitted at its own boundary.
        const blockInvokes = twoInvokes && /invoke>$/.test(before[before.length - 1] ?? "");
        const closerNext = after.length === 0 && end.startsWith("</{D}parameter>") && !blockInvokes;
        if ((end !== "Done." && end !== "" && fiveShapes) || closerNext) {
          expect({ input: escaped(input), ran: seen[0]!.calls.filter((c) => c === RESTARTED) }).toEqual({ input: escaped(input), ran: [] });
        }
      }),
      { seed: 46_46, numRuns: 400 },
    );
  }, 180_000);
});

describe("the new lookaheads do linear work (counted, never timed)", () => {
  // Lone closer lines, each followed by two more closer lines and an example that never reaches the
  // value's closer: each closer reads at most MORE_CLOSER_LINES closers and one example ahead.
  const make = (n: number) =>
    live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="true">`) +
    live(`x\n</{D}invoke>\n</{D}tool_calls>\n</{D}invoke>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls\n`).repeat(n);
  // Examples, each followed by a mentioned prefix-less closer (held for one character), never reaching the value's closer.
  const mentions = (n: number) =>
    live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="true">v `) +
    live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\nends with </parameter> x </invoke> y\n`).repeat(n);
  for (const [name, shape] of [["closer lines before examples", make], ["mentions after examples", mentions]] as const) {
    test(name, () => {
      const work = (n: number) => {
        const input = shape(n);
        return countWork(() => runEngine(input, [], fixtureTools), 400 * input.length);
      };
      expect(work(1600) / work(400)).toBeLessThan(6);
    });
  }
});
