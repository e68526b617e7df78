/**
 * Review 46, the four DSML shapes fx45 left open (fix fx46-dsml-examples): a call example inside a
 * DSML write's value still ran although the write's own closers come after it. Trust first: the
 * example never runs while a closer of the write follows it.
 *
 * - Shapes 1-3 (the write complete before the example: by M07.6's mis-closed parameter, by its own
 *   closers, or by P01 at a lone closer line with other markup after it): a parameter closer that
 *   closes nothing right after a complete call (only spaces and that call's block closer between)
 *   says the call stood in a value: it never runs. So does every call of a run written right before
 *   it (each right after the one before, no block left open between them): a write complete by its
 *   own closers right before the example is refused with it (which closers end the write, the first
 *   or the second, is unknowable). Prose between them, or an invoke example while the write's block
 *   is still open (the block's next invoke is a call of its own, emitted at its own boundary), and
 *   the write runs as before.
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
import { accountsForEveryCharacter, everyChar, randomCuts, runAtEverySplit, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

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

/** Nothing runs, every character stays visible, every report is broken markup (the write's closers after the stray one are stray markers, D08). */
function nothingRuns(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  expect(r.calls).toEqual([]);
  expect(r.text).toBe(input);
  expect(r.summary.broken.length).toBeGreaterThan(0);
  expect(r.summary.broken.every((b) => b.reason === "broken-markup")).toBe(true);
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
  test("an invoke example while the write's block is still open (a call of that block): the write runs as M07.6 reads it, the example never runs", () => {
    // Before the fix: bash {rm -rf x} ran.
    writeRunsExampleRefused(`${head}# Doc</parameter>\n${live("</{D}invoke>")}\n${EXAMPLE_INVOKE}\n${tail}`);
  });

  test("a block example right after the write's invoke closer: the run before the stray closer, nothing runs, text kept", () => {
    nothingRuns(`${head}# Doc</parameter>\n${live("</{D}invoke>")}\n${EXAMPLE_BLOCK}\n${tail}`);
  });

  for (const [name, example] of EXAMPLES) {
    test(`${name} example, the write's block closed (M07.6's whole shape): nothing runs, text kept`, () => {
      // Before the fix: the write ran with "# Doc" and bash {rm -rf x} ran.
      nothingRuns(`${head}# Doc</parameter>\n${invokeTail}\n${example}\n${tail}`);
    });
  }

  test("the restart rule stands: no closer of the write after the example, both run", () => {
    expect(outcome(`${head}# Doc</parameter>\n${live("</{D}invoke>")}\n${EXAMPLE_BLOCK}\nDone.`).calls).toEqual([WRITE, RAN]);
  });
});

describe("shape 2: a write completed by its own closers, then an example, then stray closers of the write", () => {
  for (const [name, example] of EXAMPLES) {
    test(`${name} example right after the write: which closers end the write is unknowable, nothing runs, text kept`, () => {
      // Before the fix: the write ran with "# Doc", bash {rm -rf x} ran and the stray closers were stripped as its noise.
      nothingRuns(`${head}# Doc${tail}\n${example}\n${tail}`);
    });
  }

  test("two examples right after the write: nothing runs", () => nothingRuns(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n${EXAMPLE_INVOKE}\n${tail}`));

  test("only the parameter closer after the example, the reply ends there: nothing runs", () => {
    nothingRuns(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n${live("</{D}parameter>")}`);
  });

  test("the prefix-less parameter closer (M07's spelling) after the example: nothing runs", () => nothingRuns(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n</parameter>\n${invokeTail}`));

  test("prose between the write and the example: the complete write runs, the example never runs", () => {
    writeRunsExampleRefused(`${head}# Doc${tail}\nSee:\n${EXAMPLE_BLOCK}\n${tail}`);
    writeRunsExampleRefused(`${head}# Doc${tail}\nSee:\n${EXAMPLE_BLOCK}\n${EXAMPLE_INVOKE}\n${tail}`);
  });

  test("the stray closer right after the example's invoke closer, the example's block still open: the write runs, the example never runs", () => {
    writeRunsExampleRefused(`${head}# Doc${tail}\n${live('<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>')}\n${tail}`);
  });

  test("hard negative: a real call after a complete write still runs (the write's boundary and the call's)", () => {
    expect(outcome(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}`).calls).toEqual([WRITE, RAN]);
    expect(outcome(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\nDone.`).calls).toEqual([WRITE, RAN]);
    expect(outcome(`${head}# Doc${tail}\n${EXAMPLE_BLOCK}\n${EXAMPLE_INVOKE}\nDone.`).calls).toEqual([WRITE, RAN, RAN]);
  });

  test("hard negative: two invokes in one block, then the next block: the first invoke is a call of its own (emitted at its boundary), only the run after it is refused", () => {
    const bashLs = live('<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>');
    const input = `${live("<{D}tool_calls>")}\n${bashLs}\n${live('<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true"># Doc')}${tail}\n${EXAMPLE_BLOCK}\n${tail}`;
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
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
  /** Nothing runs, every character stays visible; the call is refused, and the write's closers after the stray one are reported as stray markers (D08). */
  function refusedWithStrays(input: string) {
    const r = runAtEverySplit(input, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(input);
    expect(r.summary.broken.map((b) => [b.shape, b.reason])).toEqual([["I04", "broken-markup"], ["D08", "broken-markup"], ["D08", "broken-markup"]]);
    expect(accountsForEveryCharacter(input, r)).toBe(true);
  }

  test("an example after prose, with no write before it: refused, text kept", () => refusedWithStrays(`Docs:\n${EXAMPLE_BLOCK}\n${tail}`));

  test("a complete write followed by its closers again: which closers end the write is ambiguous, refused", () => refusedWithStrays(`${head}# Doc${tail}\n${tail}`));

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
      // Review 52, finding 4: prose after the closer line is read on as the run after the write, so a
      // block example and then the write's own `</{D}parameter>` refuse the write too (golden A46.4).
      // Review 52 diff review, findings 1-3 (fx52-diff): after a closer line that cut an open value the
      // run holds any markup and any example (an invoke of the write's block too) to the write's own
      // `</{D}parameter>`, which closes nothing: the whole run is refused, the write is never cut at the
      // closer line (before: P01 wrote "# Doc", the example refused).
      test(`${name}, ${kind} example: nothing runs, the write is never cut at the closer line (review 52)`, () => {
        nothingRuns(`${head}# Doc\n${live("</{D}invoke>")}\n${markup}\n${example}\n${tail}`);
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

describe("the run after a complete call does linear work (counted, never timed)", () => {
  // Complete blocks one after another, each call's run reading the next ones (at most EXAMPLES_AFTER_CLOSER), none ending in a stray closer.
  const blocks = (n: number) => `${EXAMPLE_BLOCK}\n`.repeat(n) + "Done.";
  // Each followed by a stray closer mentioned in prose: the run stops at the text after it.
  const mentions = (n: number) => `${EXAMPLE_BLOCK}\n${live("</{D}parameter>")} x\n`.repeat(n);
  for (const [name, shape] of [["blocks in a row", blocks], ["blocks, each then a mentioned closer", mentions]] as const) {
    test(name, () => {
      const work = (n: number) => {
        const input = shape(n);
        return countWork(() => runEngine(input, [], fixtureTools), 400 * input.length);
      };
      expect(work(1600) / work(400)).toBeLessThan(6);
    });
  }

  test("a run that reaches the buffer limit proves nothing: the calls run, nothing overflows", () => {
    const big = (n: number) => live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">${n}.md</{D}parameter>\n<{D}parameter name="content" string="true">${"x".repeat(400)}`) + tail;
    const input = [big(1), big(2), big(3)].join("\n");
    for (const cuts of [[], everyChar(input.length), randomCuts(input.length, 7)]) {
      const r = runEngine(input, cuts, fixtureTools, { bufferLimit: 700 });
      expect(r.calls.map((c) => c.input.filePath)).toEqual(["1.md", "2.md", "3.md"]);
      expect(r.summary.heldCandidateNoCall).toBe(0);
    }
  });

  test("every call of the run still runs when no stray closer comes (whole, char by char, random splits)", () => {
    expect(outcome(blocks(7)).calls).toEqual(Array.from({ length: 7 }, () => RAN));
  });
});
