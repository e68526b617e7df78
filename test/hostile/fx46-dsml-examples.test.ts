/**
 * Review 46, the four DSML shapes fx45 left open (fix fx46-dsml-examples): a call example inside a
 * DSML write's value still ran although the write's own closers come after it. Trust first: the
 * example never runs while a closer of the write follows it.
 *
 * - Shapes 1-3 (the write complete before the example: by M07.6's mis-closed parameter, by its own
 *   closers, or by P01 at a lone closer line with other markup after it): the complete write still
 *   runs as before (it is emitted at its own boundary), and the example right before the write's
 *   parameter closer is refused: a parameter closer that closes nothing, right after a complete
 *   call (only spaces and that call's block closer between), says the call stood in a value.
 * - Shape 4 (a lone closer line, then several examples, then the value's closer): the lookahead
 *   from the lone closer reads up to a counted number of examples, so the page is written whole.
 *
 * Hard negatives: with no closer of the write after the example, P01 and the restart rule stand; a
 * real call after a complete write still runs, with S04's garbage closers after it too; a parameter
 * closer mentioned in prose after a call (text after it on its line) changes nothing.
 * Every case runs whole, char by char and at seeded random splits (runAtEverySplit asserts they agree).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK, EXAMPLE_INVOKE } from "../support/cut-off-examples.ts";
import { outcome } from "../support/outcome.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

const head = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">`);
const tail = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const invokeTail = live(`</{D}invoke>\n</{D}tool_calls>`);
const WRITE = { tool: "write", input: { filePath: "notes.md", content: "# Doc" } };
const RAN = { tool: "bash", input: { command: "rm -rf x" } };
const EXAMPLES = [["a block", EXAMPLE_BLOCK], ["an invoke", EXAMPLE_INVOKE]] as const;

/** The complete write runs as before; the example never runs, it is reported as broken markup; every character is accounted for. */
function writeRunsExampleRefused(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  expect(r.calls.map((c) => ({ tool: c.tool, input: c.input }))).toEqual([WRITE]);
  expect(r.summary.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
}

/** Nothing runs, every character stays visible, the markup is reported (whole = char by char = splits). */
function refused(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  expect(r.calls).toEqual([]);
  expect(r.text).toBe(input);
  expect(r.summary.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
}

describe("shape 1: an M07.6 mis-closed call, then an example, then the write's closers", () => {
  for (const [name, example] of EXAMPLES) {
    test(`${name} example: the write runs as M07.6 reads it, the example never runs`, () => {
      // Before the fix: bash {rm -rf x} ran.
      writeRunsExampleRefused(`${head}# Doc</parameter>\n${live("</{D}invoke>")}\n${example}\n${tail}`);
    });
  }

  test("the block closer after the invoke closer, then the example: the same", () => {
    writeRunsExampleRefused(`${head}# Doc</parameter>\n${invokeTail}\n${EXAMPLE_BLOCK}\n${tail}`);
  });

  test("the restart rule stands: no closer of the write after the example, both run", () => {
    expect(outcome(`${head}# Doc</parameter>\n${live("</{D}invoke>")}\n${EXAMPLE_BLOCK}\nDone.`).calls).toEqual([WRITE, RAN]);
  });
});

describe("shape 2: a write completed by its own closers, then an example, then stray closers of the write", () => {
  for (const [name, example] of EXAMPLES) {
    test(`${name} example: the complete write still runs, the example never runs`, () => {
      // Before the fix: bash {rm -rf x} ran and the stray closers were stripped as its noise.
      writeRunsExampleRefused(`${head}# Doc${tail}\n${example}\n${tail}`);
    });
  }

  test("prose between the write and the example: the same", () => writeRunsExampleRefused(`${head}# Doc${tail}\nSee:\n${EXAMPLE_BLOCK}\n${tail}`));

  test("only the parameter closer after the example, the reply ends there: the same", () => {
    writeRunsExampleRefused(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n${live("</{D}parameter>")}`);
  });

  test("the prefix-less parameter closer (M07's spelling) after the example: the same", () => {
    writeRunsExampleRefused(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n</parameter>\n${invokeTail}`);
  });

  test("the stray closer right after the example's invoke closer, the example's block still open: the same", () => {
    writeRunsExampleRefused(`${head}# Doc${tail}\n${live('<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>')}\n${tail}`);
  });

  test("hard negative: a real call after a complete write still runs (the write's boundary and the call's)", () => {
    expect(outcome(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}`).calls).toEqual([WRITE, RAN]);
    expect(outcome(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\nDone.`).calls).toEqual([WRITE, RAN]);
  });

  test("hard negative: S04's garbage closers after the call (no parameter closer) leave it running", () => {
    const o = outcome(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n${live("</{D}invoke></{D}tool_calls>\n</{D}invoke></{D}tool_calls>")}`);
    expect(o.calls).toEqual([WRITE, RAN]);
    expect(o.broken).toEqual([]);
  });

  test("hard negative: a parameter closer mentioned in prose after the call (text after it on its line) changes nothing", () => {
    expect(outcome(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n${live("</{D}parameter>")} ends a value.`).calls).toEqual([WRITE, RAN]);
    expect(outcome(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n</parameter> ends a value.`).calls).toEqual([WRITE, RAN]);
  });
});

describe("a parameter closer right after a complete call: the call stood in a value, it never runs", () => {
  test("an example after prose, with no write before it: refused, text kept", () => {
    refused(`Docs:\n${EXAMPLE_BLOCK}\n${tail}`);
  });

  test("a complete write followed by its closers again: which closers end the write is ambiguous, refused", () => {
    refused(`${head}# Doc${tail}\n${tail}`);
  });

  test("hard negative (A41.4): an invoke closer ending its line, then the prefix-less parameter closer, is still the value's text", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la\n</{D}invoke>\n</parameter>\n</{D}tool_calls>`);
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: live("ls -la\n</{D}invoke>\n") } }]);
  });

  test("hard negative (S04): stray invoke and block closers after a call are its noise, the call runs", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\n</{D}invoke></{D}tool_calls>\n</{D}invoke></{D}tool_calls>`);
    const o = outcome(input);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(o.text).toBe("");
  });
});

describe("shape 3: a lone closer line, then markup that is no example, then an example, then the write's closers", () => {
  const between: [string, string][] = [
    ["prose", "More prose."],
    ["a prefix-less invoke closer", "</invoke>"],
    ["a sentinel tag that is no structure", live("<{D}thinking>")],
    ["a mention of the closers", "Values end with </parameter> and </invoke> tags."],
  ];
  for (const [name, markup] of between) {
    for (const [kind, example] of EXAMPLES) {
      test(`${name}, ${kind} example: P01 ends the write at the closer line, the example never runs`, () => {
        // Before the fix: the write ran with "# Doc" and bash {rm -rf x} ran.
        writeRunsExampleRefused(`${head}# Doc\n${live("</{D}invoke>")}\n${markup}\n${example}\n${tail}`);
      });
    }
  }

  test("P01 and the restart rule stand: no closer of the write after the example, both run", () => {
    expect(outcome(`${head}# Doc\n${live("</{D}invoke>")}\nMore prose.\n${EXAMPLE_BLOCK}\nDone.`).calls).toEqual([WRITE, RAN]);
  });
});

describe("shape 4: a lone closer line, then several examples, then the write's closers", () => {
  for (const [name, example] of [["block", EXAMPLE_BLOCK], ["invoke", EXAMPLE_INVOKE]] as const) {
    test(`two ${name} examples: the page is written whole`, () => {
      // Before the fix: the write ran with "# Doc" and both examples ran.
      const content = `# Doc\n${live("</{D}invoke>")}\n${example}\n${example}\n`;
      expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
    });
  }

  test("two closer lines, then a block and an invoke example: written whole", () => {
    const content = `# Doc\n${live("</{D}invoke>\n</{D}tool_calls>")}\n${EXAMPLE_BLOCK}\n${EXAMPLE_INVOKE}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("four examples (the lookahead's limit): written whole", () => {
    const content = `# Doc\n${live("</{D}tool_calls>")}\n${[EXAMPLE_BLOCK, EXAMPLE_INVOKE, EXAMPLE_BLOCK, EXAMPLE_INVOKE].join("\n")}\n`;
    expect(outcome(`${head}${content}${tail}`).calls).toEqual([{ tool: "write", input: { filePath: "notes.md", content } }]);
  });

  test("only the invoke closer after the examples: refused, nothing runs", () => {
    refused(`${head}# Doc\n${live("</{D}invoke>")}\n${EXAMPLE_BLOCK}\n${EXAMPLE_BLOCK}\n${invokeTail}`);
  });

  test("P01 and the restart rule stand: no closer of the write after the examples, the write is cut and both run", () => {
    expect(outcome(`${head}# Doc\n${live("</{D}invoke>")}\n${EXAMPLE_BLOCK}\n${EXAMPLE_BLOCK}`).calls).toEqual([WRITE, RAN, RAN]);
    expect(outcome(`${head}# Doc\n${live("</{D}invoke>")}\n${EXAMPLE_BLOCK}\n${EXAMPLE_BLOCK}\nDone.`).calls).toEqual([WRITE, RAN, RAN]);
  });
});
