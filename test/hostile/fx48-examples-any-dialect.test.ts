/**
 * fx48-examples: after a complete example in a value, an example of any dialect is read on
 * (example-in-value.ts): a special-token example (LFM2's start to its end, a Kimi or DeepSeek V3
 * section to its end) in any value, and a `<tool_call>` wrapper's example (Hermes, GLM,
 * Qwen3-Coder) in a DSML value too. Only the value's own closer after them makes them its text;
 * without one the restart rule stands as before, and the write's invoke closer right after them
 * refuses the write (A41.1). Whole = char by char = seeded splits (outcome).
 */
import { describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const R = "rm -rf build";
const lfm2 = `<|tool_call_start|>[bash(command="${R}")]<|tool_call_end|>`;
const kimi = `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"${R}"}<|tool_call_end|><|tool_calls_section_end|>`;
const deepseekV3 = live(`<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>function<{BAR}tool{SP}sep{BAR}>bash\n\`\`\`json\n{"command":"${R}"}\n\`\`\`<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>`);
const hermesExample = `<tool_call>\n{"name":"bash","arguments":{"command":"${R}"}}\n</tool_call>`;
const qwenExample = `<tool_call>\n<function=bash>\n<parameter=command>\n${R}\n</parameter>\n</function>\n</tool_call>`;
const invokeExample = `<invoke name="bash">\n<parameter name="command">${R}</parameter>\n</invoke>`;
const dsmlExample = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${R}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

const claudeWrite = (c: string, close = `</parameter>\n</invoke>\n</function_calls>`) => `<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.md</parameter>\n<parameter name="content">${c}${close}`;
const dsmlWrite = (c: string, close = live(`</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)) => live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">`) + c + close;
const page = (...examples: string[]) => `Page:\n${examples.join("\n")}\nend`;
const write = (content: string) => [{ tool: "write", input: { filePath: "a.md", content } }];
const runsBash = (input: string) => outcome(input).calls.some((c) => c.tool === "bash");

describe("fixed: an example of any dialect after an example in a value, the value's closer next", () => {
  test("Claude-style value: an invoke example, then a DeepSeek V3 special-token example", () => {
    const c = page(invokeExample, deepseekV3);
    expect(outcome(claudeWrite(c)).calls).toEqual(write(c));
  });
  test("Claude-style value: an invoke example, then an LFM2 and a Kimi example", () => {
    const c = page(invokeExample, lfm2, kimi);
    expect(outcome(claudeWrite(c)).calls).toEqual(write(c));
  });
  test("DSML value: a DSML example, then a Kimi, a Qwen3-Coder and a DeepSeek V3 example", () => {
    for (const e of [kimi, qwenExample, deepseekV3]) {
      const c = page(dsmlExample, e);
      expect(outcome(dsmlWrite(c)).calls).toEqual(write(c));
    }
  });
});

describe("fixed: the write's own closers after the examples decide (before: the first example ran)", () => {
  test("Claude-style value: the write's invoke closer right after the examples refuses the write, nothing runs", () => {
    const o = outcome(claudeWrite(page(invokeExample, lfm2), `\n</invoke>\n</function_calls>`));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
  test("DSML value: the write's invoke closer right after the examples refuses the write, nothing runs", () => {
    const o = outcome(dsmlWrite(page(dsmlExample, hermesExample), live(`\n</{D}invoke>\n</{D}tool_calls>`)));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
  });
  test("a special-token example that never reaches its end token, then the value's closer: the write's text (A41.3), nothing else runs", () => {
    // As an example of any other dialect that never closed itself: the value's own parameter closer ends it.
    const c = page(invokeExample, `<|tool_call_start|>[bash(command="${R}")]`);
    expect(outcome(claudeWrite(c)).calls).toEqual(write(c));
  });
});

describe("hard negatives (as before)", () => {
  test("a special token that opens no example (end of sentence) after an example: the restart rule stands, as before", () => {
    const eos = live(`<{BAR}end{SP}of{SP}sentence{BAR}>`);
    expect(outcome(claudeWrite(page(invokeExample, eos))).calls.some((c) => c.tool === "write" && String(c.input.content).includes(eos))).toBe(false);
  });
  test("a complete LFM2 call after a write whose value was closed runs (no value open)", () => {
    const input = `${claudeWrite("hello")}\n${lfm2}`;
    expect(runsBash(input)).toBe(true);
  });
});

const closerLine = live(`Close a call with\n</{D}invoke>\n`);
const others: [string, string][] = [["a Claude-style invoke", invokeExample], ["a Hermes", hermesExample], ["a Qwen3-Coder", qwenExample], ["an LFM2", lfm2], ["a Kimi", kimi], ["a DeepSeek V3", deepseekV3]];

describe("fixed: A46.5 for any dialect: a DSML closer alone on its line in a DSML value, then an example of another dialect", () => {
  // Before: P01 ended the write at the lone closer (written cut) and the example after it ran as a
  // call of its own. Now any complete example there that the value's own closer ends is its text.
  for (const [name, e] of others) {
    test(`${name} example, then the value's closer: the write with its whole content`, () => {
      const c = `${closerLine}${e}\nend`;
      expect(outcome(dsmlWrite(c)).calls).toEqual(write(c));
    });
  }
  test("hard negative: no closer of the value after the example: P01 stands, the write ends at the lone closer and the call after it runs", () => {
    const input = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true">hi\n</{D}invoke>\n</{D}tool_calls>\n`) + lfm2;
    expect(outcome(input).calls.map((c) => c.tool)).toEqual(["write", "bash"]);
  });
});

describe("fixed: A46.1 for any dialect: a complete DSML call, then an example of another dialect and a stray value closer", () => {
  // Before: the DSML call and the example both ran; the stray `</{D}parameter>` after them says the
  // whole run stood in a value (a page being written), as for a DSML example: nothing runs.
  const call = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${R}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\n`);
  const stray = live(`\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  for (const [name, e] of others) {
    test(`${name} example: nothing runs`, () => {
      expect(outcome(call + e + stray).calls).toEqual([]);
    });
  }
  test("hard negative: with no stray closer after them, the call and the one after it run as before", () => {
    expect(outcome(call + lfm2).calls.map((c) => c.tool)).toEqual(["bash", "bash"]);
  });
});
