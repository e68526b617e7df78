/**
 * An invoke that never closed (cut off mid-value, or prose where its closer should be) runs on
 * into whatever the model wrote next. Review F2: a complete block the model then showed inside a
 * ```xml fence ran, because the whole text was one candidate and the walk recovered the next
 * invoke with no documentation context. A unit still open when the next invoke (or a block
 * opener before it) starts ends its span there (SpanReader.restart); its text goes through the
 * documentation context and the rest is read again, so an example in any CommonMark container
 * stays text while a complete call outside documentation still runs. Whole text, char by char,
 * every two-chunk split and seeded random splits agree.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { live } from "../golden/notation.ts";
import { DOCUMENTED_EXAMPLES, EXAMPLE_BLOCK, EXAMPLE_INVOKE } from "../support/cut-off-examples.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const blk = EXAMPLE_BLOCK;
const inv = EXAMPLE_INVOKE;
const open = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">`);
const P = live(`</{D}parameter>`);
const END = live(`\n</{D}tool_calls>`);

function outcome(input: string) {
  const run = (cuts: number[]) => observable(runEngine(input, cuts, fixtureTools));
  const whole = run([]);
  expect(run(everyChar(input.length))).toEqual(whole);
  for (let k = 1; k < input.length; k++) {
    const split = run([k]);
    if (JSON.stringify(split) !== JSON.stringify(whole)) expect({ split: k, ...split }).toEqual({ split: k, ...whole });
  }
  for (let seed = 1; seed <= 10; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
  const r = parse(input, fixtureTools);
  return { calls: r.calls.map((c) => c.input), text: r.text, broken: r.broken.map((b) => b.shape), nudge: r.nudge };
}

describe("documentation after an invoke that never closed stays documentation", () => {
  const examples: Record<string, string> = { ...DOCUMENTED_EXAMPLES, "inline code": "Write `" + blk.replaceAll("\n", " ") + "` to call.\n" };
  for (const [name, doc] of Object.entries(examples)) {
    test(`cut off mid-value, then ${name}: nothing runs, every character visible, a truncated-call nudge`, () => {
      const input = open + "cut off\n\n" + doc;
      expect(outcome(input)).toEqual({ calls: [], text: input, broken: ["S02"], nudge: "truncated-call" });
    });
  }

  test("prose where the invoke's closer should be, then a fenced example (I04): nothing runs", () => {
    for (const example of [blk, inv]) {
      const input = open + "ls" + P + "\n\nExample:\n\n```xml\n" + example + "\n```\n";
      expect(outcome(input)).toEqual({ calls: [], text: input, broken: ["I04"], nudge: "broken-markup" });
    }
  });

  test("Claude-style markup: a cut-off invoke, then a fenced wrapper, inside a wrapper that closes", () => {
    const input = '<function_calls>\n<invoke name="bash">\n<parameter name="command">cut off\n\n```xml\n<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf x</parameter>\n</invoke>\n</function_calls>\n```\n</function_calls>';
    expect(outcome(input)).toMatchObject({ calls: [], text: input, nudge: "truncated-call" });
  });
});

describe("a complete call outside documentation after an invoke that never closed still runs", () => {
  test("the next invoke in the same block", () => {
    const input = open + "cut off\n" + inv + END;
    expect(outcome(input)).toEqual({ calls: [{ command: "rm -rf x" }], text: open + "cut off\n", broken: ["S02"], nudge: "truncated-call" });
  });

  test("a new block (the model started over): its opener is the call's markup, not visible text", () => {
    expect(outcome(open + "cut off\n" + blk)).toEqual({ calls: [{ command: "rm -rf x" }], text: open + "cut off\n", broken: ["S02"], nudge: "truncated-call" });
    expect(outcome(open + "cut off\n\nThen:\n\n" + blk + "\nDone.")).toMatchObject({ calls: [{ command: "rm -rf x" }], text: open + "cut off\n\nThen:\n\n" });
  });

  test("two complete invokes after the cut-off one", () => {
    const input = open + "cut off\n" + inv + "\n" + inv + END;
    expect(outcome(input).calls).toEqual([{ command: "rm -rf x" }, { command: "rm -rf x" }]);
  });

  test("an invoke missing only its closer, then the next invoke: both run (the span ends at the next invoke, the unit is complete)", () => {
    const input = open + "ls" + P + "\n" + inv + END;
    expect(outcome(input)).toEqual({ calls: [{ command: "ls" }, { command: "rm -rf x" }], text: "", broken: [], nudge: null });
  });

  test("a block opener written inside a value that then closes is the value's text", () => {
    const input = open + "echo " + live("<{D}tool_calls>") + P + "\n" + inv + END;
    expect(outcome(input).calls).toEqual([{ command: "echo " + live("<{D}tool_calls>") }, { command: "rm -rf x" }]);
  });
});

describe("a complete example block inside a value that then reaches its own closers is the value's text (review finding 2)", () => {
  // The model writes a file documenting a call: the example sits inside the write's content, and
  // the content then reaches its own parameter closer, the invoke's and the block's. The restart
  // rule is tentative while a value is open: the example is read on, and the value's own closer
  // right after it proves it was text. Anything else (S02.3: the value never closes) and the
  // restart stands.
  const write = (content: string) =>
    live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n<{D}parameter name="content" string="true">`) +
    content +
    live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

  test("DSML write whose content holds a DSML example block: the write runs with its full content, the example never does", () => {
    const content = "Example:\n" + blk + "\n";
    expect(outcome(write(content))).toEqual({ calls: [{ filePath: "docs/calls.md", content }], text: "", broken: [], nudge: null });
  });

  test("two example blocks, an invoke alone, and prose between them: still the write's text", () => {
    const content = "Example:\n" + blk + "\nand again:\n" + blk + "\n" + inv + "\nDone.\n";
    expect(outcome(write(content)).calls).toEqual([{ filePath: "docs/calls.md", content }]);
  });

  test("Claude-style write whose content holds a DSML example block: the example never runs", () => {
    const content = "Example:\n" + blk + "\n";
    const input = `<function_calls>\n<invoke name="write">\n<parameter name="filePath">docs/calls.md</parameter>\n<parameter name="content">${content}</parameter>\n</invoke>\n</function_calls>`;
    expect(outcome(input).calls).toEqual([{ filePath: "docs/calls.md", content }]);
  });

  test("the example followed by anything but the value's closer: the restart rule stands (the example runs, the write is refused)", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a</{D}parameter>\n<{D}parameter name="content" string="true">x\n`) + blk + "\nDone.";
    const o = outcome(input);
    expect(o.calls).toEqual([{ command: "rm -rf x" }]);
    expect(o.nudge).toBe("truncated-call");
  });
});
