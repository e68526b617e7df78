// Findings of the stop 40 hostile review of the day's new code, skipped until each is fixed;
// every fixer un-skips its own, moves it beside its kind, and the file goes once it is empty.
/**
 * Hostile review of the code that landed on 2026-12-06 (e1985a9..main). Every test here fails on
 * main at 811d475 for the reason its name gives; see the review report for root causes.
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const outcome = (notation: string) => {
  const r = runAtEverySplit(live(notation), fixtureTools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), text: r.text };
};

describe("closer rule: a bare CR ends a line (the documentation context says so), the closer rule does not", () => {
  test.skip("costume: `<bash>ls</bash>` CR `rm -rf x` LF `</bash>` never runs the next line as part of the command", () => {
    const o = outcome("<bash>ls</bash>\rrm -rf x\n</bash>\n");
    expect(o.calls.some((c) => String(c.input.command).includes("rm -rf x"))).toBe(false);
  });

  test.skip("DSML P01: an invoke closer that ends its CR line ends the value; the next line never joins the command", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}invoke>\rrm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(o.calls.some((c) => String(c.input.command).includes("rm -rf x"))).toBe(false);
  });
});

describe("closer rule: a block or wrapper closer inside a value, text after it on its line, cuts the value and the call runs", () => {
  // The file (or command) the model wrote holds the block's closer as text; the rule of review
  // finding 3 covers invoke closers only, so the value ends at the first block closer, the call
  // runs with what came before it and what came after is stripped.
  const FILE = `const END = "</{D}tool_calls>";\nexport default END;\n`;

  test.skip("DSML: write with `</{D}tool_calls>` mid-line in its content never runs with the content cut there", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">end.ts</{D}parameter>\n` +
        `<{D}parameter name="content" string="true">${FILE}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(o.calls.filter((c) => c.input.content === 'const END = "')).toEqual([]);
    for (const c of o.calls) expect(c.input).toEqual({ filePath: "end.ts", content: live(FILE) });
  });

  test.skip("DSML: bash with `</{D}tool_calls>` inside a quoted argument never runs `echo \"`", () => {
    const o = outcome(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo "</{D}tool_calls>" && rm -rf build</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
  });

  test.skip("Claude-style: `</function_calls>` inside a value never cuts it", () => {
    const o = outcome(`<function_calls>\n<invoke name="bash">\n<parameter name="command">echo "</function_calls>" && rm -rf build</parameter>\n</invoke>\n</function_calls>`);
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
  });

  test.skip("MiniMax: `</minimax:tool_call>` inside a value never cuts it", () => {
    const o = outcome(`<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">echo "</minimax:tool_call>" && rm -rf build</parameter>\n</invoke>\n</minimax:tool_call>`);
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
  });

  test.skip("Qwen3-Coder in <tool_call>: `</tool_call>` inside a value never cuts it", () => {
    const o = outcome(`<tool_call>\n<function=bash>\n<parameter=command>\necho "</tool_call>" && rm -rf build\n</parameter>\n</function>\n</tool_call>`);
    expect(o.calls.filter((c) => c.input.command === 'echo "')).toEqual([]);
  });
});

describe("restart rule: a complete example block inside a value that then reaches its own closers", () => {
  // The model writes a file documenting a call: the example block sits inside the write's content,
  // and the content then reaches its own parameter closer, the invoke's and the block's. The
  // restart rule ends the write at the example's block opener, so the example runs and the write is
  // lost (S02.3's rule, though here the first value is not cut off: it closes after the example).
  const EXAMPLE = `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf /</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;

  test.skip("DSML write whose content holds a DSML example block: the example never runs", () => {
    const o = outcome(
      `<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">docs/calls.md</{D}parameter>\n` +
        `<{D}parameter name="content" string="true">Example:\n${EXAMPLE}\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(o.calls.filter((c) => c.tool === "bash")).toEqual([]);
  });

  test.skip("Claude-style write whose content holds a DSML example block: the example never runs", () => {
    const o = outcome(`<function_calls>\n<invoke name="write">\n<parameter name="filePath">docs/calls.md</parameter>\n<parameter name="content">Example:\n${EXAMPLE}\n</parameter>\n</invoke>\n</function_calls>`);
    expect(o.calls.filter((c) => c.tool === "bash")).toEqual([]);
  });
});
