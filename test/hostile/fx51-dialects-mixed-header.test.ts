/**
 * Fix of review 51 (dialects) mixed-header finding (test/hostile/review-51-dialects-mixed-header.test.ts):
 * GLM's `<tool_call>NAME` line over another dialect's call is refused whole (O03, two dialects at
 * once). Here: the same tool in both halves, and what must keep working (a mention mid-sentence, the
 * next wrapper after a closer left out, a link after the name line, a GLM call).
 *
 * Every outcome runs whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const QWEN = "<function=bash>\n<parameter=command>ls</parameter>\n</function>";

describe("fx51: GLM's name line over another dialect's call", () => {
  test("the same tool in both halves is refused too (two dialects at once: which reading was meant is unknowable)", () => {
    const input = `<tool_call>bash\n${QWEN}\n</tool_call>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });

  test("a MiniMax bracket call under the name line is refused whole", () => {
    const input = '<tool_call>read\n[TOOL_CALL] {"tool": "bash", "args": {"command": "rm -rf ~"}} [/TOOL_CALL]\n</tool_call>';
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });

  test("the name and the function on one line, the wrapper opening its line: refused", () => {
    const input = `<tool_call>read ${QWEN}\n</tool_call>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(input);
  });
});

describe("fx51 hard negatives", () => {
  test("mid-sentence the wrapper with a name and a tag is a mention: text, nothing reported", () => {
    const input = "I wrote <tool_call>read <b>x</b> in the doc.";
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("a link on the line after the name line is not a bracket token: nothing refused", () => {
    const input = "<tool_call>read\n[see the docs](https://example.com/x)\n</tool_call>";
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual([]);
    expect(o.text).toBe(input);
  });

  test("the next wrapper opening after a name line whose closer was left out starts the next call, as before", () => {
    const o = outcome(`<tool_call>list_sessions\n<tool_call>\n${QWEN}\n</tool_call>`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a GLM call with its pairs still runs, a bracket call on its own still runs", () => {
    expect(outcome("<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n</tool_call>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome('[TOOL_CALLS]bash[ARGS]{"command": "ls"}').calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome('[TOOL_CALL] {"tool": "bash", "args": {"command": "ls"}} [/TOOL_CALL]').calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});
