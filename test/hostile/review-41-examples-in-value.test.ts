/**
 * Review 41, rule 3 (ExampleInValue, src/parse/example-in-value.ts, used by src/parse/dialects/dsml/walk.ts and
 * src/engine/candidate.ts): an example block inside a value is the value's text only when the
 * value's own DSML-family parameter closer comes right after the example. Every other way a value
 * legitimately ends (P01: the invoke closer alone on its line, the block closer next; M07: a
 * prefix-less `</parameter>` closing a DSML parameter), or an example that never closes its own
 * invoke or block, falls back to the restart rule: the write is refused as cut off and the example
 * inside the file is read again as a fresh call, so `rm -rf x`, which the model only wrote into a
 * document, runs.
 *
 * Every case runs whole, char by char and at seeded splits (they agree today: the bug is in the
 * decision, not in the streaming).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { EXAMPLE_BLOCK, EXAMPLE_INVOKE } from "../support/cut-off-examples.ts";
import { accountsForEveryCharacter, runAtEverySplit } from "../support/run-engine.ts";

const WRITE_HEAD = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">calls.md</{D}parameter>\n<{D}parameter name="content" string="true"># Calls\n`);

function run(input: string) {
  const r = runAtEverySplit(input, fixtureTools);
  expect(accountsForEveryCharacter(input, r)).toBe(true);
  return r;
}

/** The example's command never runs: it was written inside the file. */
const ranExample = (r: ReturnType<typeof run>) => r.calls.some((c) => c.tool === "bash" && c.input.command === "rm -rf x");

describe("an example inside a value whose value ends another legitimate way", () => {
  // Severity: wrong-execution. Likely: src/parse/example-in-value.ts ExampleInValue.step ("after"
  // accepts only a DSML parameter closer) with src/parse/dialects/dsml/value-examples.ts exampleAt / src/engine/candidate.ts.
  // The write ends by P01 (golden "P01 as documented": its invoke closer alone on its line, the
  // block closer next). Observed: the write is refused as truncated, the example's `rm -rf x` runs
  // and the write's own closers are stripped as noise. Expected: the write runs with the example
  // as its content, or nothing runs; never the example.
  test("P01: the write's parameter closer missing, its invoke closer and block closer after the example", () => {
    const r = run(`${WRITE_HEAD}${EXAMPLE_BLOCK}\n${live(`</{D}invoke>\n</{D}tool_calls>`)}`);
    expect(ranExample(r)).toBe(false);
  });

  // Same, without the outer block (an orphan invoke: P01 at the reply's end).
  test("P01 on an orphan write invoke", () => {
    const head = live(`<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">calls.md</{D}parameter>\n<{D}parameter name="content" string="true"># Calls\n`);
    const r = run(`${head}${EXAMPLE_BLOCK}\n${live(`</{D}invoke>\n`)}`);
    expect(ranExample(r)).toBe(false);
  });

  // Same in Claude style (O07): the naked example inside the naked write, the write closed by P01.
  // Observed: `rm -rf x` runs. (With the write's `</parameter>` present the example stays text.)
  test("Claude style: a naked example, the write closed by its invoke closer", () => {
    const input =
      `<function_calls>\n<invoke name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content"># Calls\n` +
      `<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</function_calls>\n</invoke>\n</function_calls>`;
    const r = run(input);
    expect(ranExample(r)).toBe(false);
  });

  // Severity: wrong-execution. Likely: example-in-value.ts ExampleInValue.step ("after": the
  // family check `tag.family === this.family` refuses the naked `</parameter>` that M07 accepts as
  // a DSML parameter's closer). Observed: the example runs, the write is refused as truncated.
  test("M07: the value closed by a prefix-less </parameter> right after the example", () => {
    const r = run(`${WRITE_HEAD}${EXAMPLE_BLOCK}\n</parameter>\n</invoke>\n${live(`</{D}tool_calls>`)}`);
    expect(ranExample(r)).toBe(false);
  });
});

describe("an example inside a value that never closes itself, then the value closes", () => {
  // Severity: wrong-execution. Likely: example-in-value.ts ExampleInValue.step (in "block" or
  // "invoke" mode the value's own parameter closer is passed over, so the example "ends" at the
  // write's block closer and fails) and dialects/dsml/value-examples.ts exampleAt. The write's `</parameter>`,
  // `</invoke>` and `</tool_calls>` after the example show it was the file's text; observed: the
  // write is refused as truncated and `rm -rf x` runs (the write's closers stripped as noise).
  test("an example block without its block closer", () => {
    const r = run(`${WRITE_HEAD}${live(`<{D}tool_calls>\n`)}${EXAMPLE_INVOKE}\n${live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)}`);
    expect(ranExample(r)).toBe(false);
  });

  test("an example invoke without its invoke closer", () => {
    const example = live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n`);
    const r = run(`${WRITE_HEAD}${example}${live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)}`);
    expect(ranExample(r)).toBe(false);
  });
});

describe("hard negatives (pass today)", () => {
  test("an example block, then the value's own parameter closer: the write runs with it", () => {
    const r = run(`${WRITE_HEAD}${EXAMPLE_BLOCK}\n${live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)}`);
    expect(r.calls.map((c) => c.tool)).toEqual(["write"]);
    expect(r.calls[0]!.input.content).toBe(`# Calls\n${EXAMPLE_BLOCK}\n`);
  });

  test("two examples (a block, then a lone invoke) and text after them: one write", () => {
    const r = run(`${WRITE_HEAD}${EXAMPLE_BLOCK}\nand\n${EXAMPLE_INVOKE}\ntrailing\n${live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)}`);
    expect(r.calls.map((c) => c.tool)).toEqual(["write"]);
  });
});

describe("how such a write ends (fix-example-41)", () => {
  const outcome = (input: string) => {
    const r = run(input);
    return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => b.reason) };
  };

  // The write's invoke closer after the example (P01): the value never reached its own closer, so
  // the call is refused as broken markup (as a Claude-style write holding a Qwen3-Coder example is).
  test("P01 after the example: nothing runs, the write is refused as broken markup", () => {
    expect(outcome(`${WRITE_HEAD}${EXAMPLE_BLOCK}\n${live(`</{D}invoke>\n</{D}tool_calls>`)}`)).toEqual({ calls: [], broken: ["broken-markup"] });
    const claude = `<function_calls>\n<invoke name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content"># Calls\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</invoke>\n</function_calls>`;
    expect(outcome(claude)).toEqual({ calls: [], broken: ["broken-markup"] });
  });

  test("M07 after the example: the write runs with the example as its content", () => {
    expect(outcome(`${WRITE_HEAD}${EXAMPLE_BLOCK}\n</parameter>\n</invoke>\n${live(`</{D}tool_calls>`)}`).calls).toEqual([
      { tool: "write", input: { filePath: "calls.md", content: `# Calls\n${EXAMPLE_BLOCK}\n` } },
    ]);
  });

  test("an example that never closed itself, then the value's closer: the write runs with it", () => {
    const example = live(`<{D}tool_calls>\n`) + EXAMPLE_INVOKE + "\n";
    expect(outcome(`${WRITE_HEAD}${example}${live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)}`).calls).toEqual([
      { tool: "write", input: { filePath: "calls.md", content: `# Calls\n${example}` } },
    ]);
  });

  // A cut-off write, then a complete invoke and the block's closer: the block closer is also the
  // block of a call written after the cut-off one (golden S02.5), so it proves nothing and the
  // restart rule stands. The reply ending right at that closer reads the same as with text after it
  // (the example's failure on the reply's last tag used to drop its rewind).
  test("a lone invoke after a cut-off value, then the wrapper's closer: the same with or without text after it", () => {
    const input = `<function_calls>\n<invoke name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content"># Calls\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</function_calls>`;
    const atEnd = outcome(input);
    expect(outcome(`${input}\nok`)).toEqual(atEnd);
    expect(atEnd).toEqual({ calls: [{ tool: "bash", input: { command: "rm -rf x" } }], broken: ["truncated-call"] });
  });
});
