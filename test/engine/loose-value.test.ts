/**
 * Review 46 (differential) finding 1: a parameter opened outside any readable invoke. The model
 * wrote a call whose invoke tag the grammar cannot read (NBSP or a zero-width space in it, a
 * fullwidth letter, entity-escaped quotes, `<call name=...>`, bars drawn as U+2502), so its
 * parameter openers reach text mode, yet a value is open there: a call example in it, up to that
 * value's own closer, is the value's text and never runs (src/engine/loose-value.ts, read by the
 * documentation context as a quoted call's value). The opener is broken markup (D08, a nudge);
 * every character stays visible; whole, char by char and random splits agree (runAtEverySplit).
 * The finding's own cases are in test/hostile/review-46-differential-bytes.test.ts; these pin the
 * rule's edges.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const QWEN_EXAMPLE = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>\n</tool_call>";
const REAL_LS = '<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>';

const commands = (text: string) => {
  const run = runAtEverySplit(text, fixtureTools);
  return { run, bash: run.calls.filter((c) => c.tool === "bash").map((c) => (c.input as { command?: unknown }).command) };
};

describe("a value opened outside any readable invoke is text up to its closer", () => {
  test("S02.9 with an NBSP in the invoke tag (proposed golden S46.1): no call, the text as written, nudge broken-markup", () => {
    const text = `<function_calls>\n<invoke\u00A0name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n${QWEN_EXAMPLE}\n</parameter>\n</invoke>\n</function_calls>`;
    const { run } = commands(text);
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(text);
    expect(run.summary.nudge).toBe("broken-markup");
    // One report, from the first parameter opener to the last closer of that call read (the rest is
    // that quote's own markup): history replaces all of it (test/history/loose-value.test.ts).
    const markup = `<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n${QWEN_EXAMPLE}\n</parameter>\n</invoke>`;
    expect(run.summary.broken.map((b) => [b.shape, text.slice(b.span[0], b.span[1])])).toEqual([["D08", markup]]);
  });

  test("a bare invoke (no wrapper) with a zero-width space: the example does not run", () => {
    const text = `<invoke\u200B name="write">\n<parameter name="content">Example:\n${QWEN_EXAMPLE}\n</parameter>\n</invoke>\n`;
    const { run } = commands(text);
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(text);
    expect(run.summary.nudge).toBe("broken-markup");
  });

  test("Qwen3-Coder with an unreadable function tag: the example in <parameter=content> does not run", () => {
    const text = `<tool_call>\n<function\u00A0=write>\n<parameter=filePath>\na.md\n</parameter>\n<parameter=content>\nExample:\n${QWEN_EXAMPLE}\n</parameter>\n</function>\n</tool_call>`;
    const { run } = commands(text);
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(text);
    expect(run.summary.nudge).toBe("broken-markup");
  });

  test("after the value's closer and the invoke's, a real call later in the reply still runs", () => {
    const text = `Writing it.\n<invoke\u00A0name="write">\n<parameter name="content">Example:\n${QWEN_EXAMPLE}\n</parameter>\n</invoke>\nNow:\n${REAL_LS}`;
    const { run, bash } = commands(text);
    expect(bash).toEqual(["ls"]);
    expect(run.summary.nudge).toBe("broken-markup");
  });

  test("a value that never closes keeps what follows text (nothing runs, the model is told)", () => {
    // Trust first: with the invoke unreadable there is no call whose restart rule (S02.3) could
    // say the model started over; the later block may as well be the value's text.
    const text = `<invoke\u00A0name="bash">\n<parameter name="command">cut off\n${REAL_LS.replace("ls", "rm -rf x")}`;
    const { run } = commands(text);
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(text);
    expect(run.summary.nudge).toBe("broken-markup");
  });

  test("nested parameters of the example are counted: the outer closer ends the value, not the example's", () => {
    const text = `<invoke\u00A0name="write">\n<parameter name="content">Doc:\n<parameter name="x">\n${QWEN_EXAMPLE}\n</parameter>\n${QWEN_EXAMPLE}\n</parameter>\n</invoke>\n${REAL_LS}`;
    const { bash } = commands(text);
    expect(bash).toEqual(["ls"]);
  });

  test("A45.3 with its invoke unreadable and a second example after the tool-named one: the I11 example's closers do not end the value", () => {
    const text = live(
      `<{D}tool_calls>\n<{D}invoke\u00A0name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n<{D}parameter name="content" string="true"># Doc\n<{D}bash>\n<{D}command>ls</{D}parameter>\n</{D}invoke>\nThen:\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    const { run } = commands(text);
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(text);
    expect(run.summary.nudge).toBe("broken-markup");
  });

  test("a second broken call after one whose own markup gave way to prose: its example does not run either", () => {
    const write = (n: string) => `<invoke\u00A0name="write">\n<parameter name="content">${n}:\n${QWEN_EXAMPLE.replace("rm -rf x", `rm -rf ${n}`)}\n</parameter>\n`;
    const text = `${write("a")}Prose after it.\n\n${write("b")}</invoke>\n`;
    const { run } = commands(text);
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(text);
  });

  test("DSML bars drawn as U+2502: the value holds its example up to its lookalike closer, a real call after it runs", () => {
    const text = live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="content" string="true">Example:\n${QWEN_EXAMPLE}\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>\n`).replaceAll("\uFF5C", "\u2502") + REAL_LS;
    const { run, bash } = commands(text);
    expect(bash).toEqual(["ls"]);
    expect(run.summary.nudge).toBe("broken-markup");
  });
});

describe("controls: what the rule leaves alone", () => {
  test("a parameter opener mentioned inside a sentence opens no value: the real call after it runs, no nudge", () => {
    const text = `Set <parameter name="command"> to the command, then:\n${REAL_LS}`;
    const { run, bash } = commands(text);
    expect(bash).toEqual(["ls"]);
    expect(run.summary.nudge).toBeNull();
  });

  test("a value of a readable invoke cut off, then a new block: the restart rule runs it, as golden S02.3", () => {
    const text = live(
      `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">cut off\n<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
    );
    expect(commands(text).bash).toEqual(["ls"]);
  });

  test("a lone Claude-style parameter opener at a line start with no example: no call, text as written (as before), nudged", () => {
    const text = `Here:\n<parameter name="command">ls</parameter>\nDone.`;
    const r = parse(text, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(r.text).toBe(text);
    expect(r.nudge).toBe("broken-markup");
  });

  test("readable outer invoke (golden S02.9): the write runs with the example in its content", () => {
    const text = `<function_calls>\n<invoke name="write">\n<parameter name="filePath">calls.md</parameter>\n<parameter name="content">Example:\n${QWEN_EXAMPLE}\n</parameter>\n</invoke>\n</function_calls>`;
    const { run } = commands(text);
    expect(run.calls.map((c) => c.tool)).toEqual(["write"]);
  });
});
