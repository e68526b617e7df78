/**
 * fx48-dialects-a: the rule behind review 48's broken-body and two-example findings. A `<tool_call>`
 * that opens its line and whose body broke after it proved to be a call (a Hermes object, GLM pairs,
 * a Qwen3-Coder function) is refused whole: one broken-markup report up to the closer that balances
 * its own opener (an example's `<tool_call>`/`</tool_call>` inside it are counted), every character
 * kept; with the reply ended first, the report covers the markup up to where the body broke, its end
 * unknown: the rest is read again as text and no call there runs (overflowed-markup). Whole, char by char and at seeded splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const shell = "<shell>\nrm -rf build\n</shell>";
const brokenWrite = `<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Run:\n${shell}\n"}}\n</tool_call>`;
const realCall = '<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</tool_call>';

describe("a broken <tool_call> body is refused whole", () => {
  test("one broken-markup report, every character visible", () => {
    const o = outcome(brokenWrite);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(brokenWrite);
  });

  test("the span ends at its own closer: a real call after it runs", () => {
    const o = outcome(`${brokenWrite}\n${realCall}`);
    expect(o.calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(o.broken).toEqual(["broken-markup"]);
  });

  test("an example's <tool_call> pair inside the broken body does not end it: a costume after the example's closer stays text", () => {
    const input = `<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Page:\n${realCall}\n${shell}\nend"}}\n</tool_call>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });

  test("the reply ends before the wrapper's closer: the rest is read again as text, a costume there is reported and never runs", () => {
    const input = `<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"Run:\n${shell}\n`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup", "overflowed-markup"]);
    expect(o.text).toBe(input);
  });

  test("the reply ends before the wrapper's closer, prose after the break: one report, the prose kept", () => {
    const input = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -l\nDone.\n';
    expect(outcome(input)).toEqual({ calls: [], broken: ["broken-markup"], text: input });
  });

  test("a GLM value holding a GLM example then a costume refuses the call whole, up to its own closer", () => {
    const glmExample = "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>rm -rf build</arg_value>\n</tool_call>";
    const input = `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>Page:\n${glmExample}\n${shell}\nend</arg_value>\n</tool_call>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });
});

describe("hard negatives: what stays as before", () => {
  test("a <tool_call> named mid-sentence with broken JSON is prose, no report", () => {
    const input = 'Write <tool_call>{"name": ...} and then stop.';
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });

  test("a complete object then prose on its line is a mention, no report", () => {
    const input = '<tool_call>{"name": "bash", "arguments": {"command": "ls"}} is one line.';
    expect(outcome(input)).toEqual({ calls: [], broken: [], text: input });
  });

  test("one complete Claude-style example, then a costume, in a GLM value: the write runs with its whole content", () => {
    const content = `Page:\n<function_calls>\n<invoke name="bash">\n<parameter name="command">rm -rf build</parameter>\n</invoke>\n</function_calls>\n${shell}\nend`;
    const input = `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${content}</arg_value>\n</tool_call>`;
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  });

  test("the same write JSON-escaped runs with its content", () => {
    const input = `<tool_call>\n${JSON.stringify({ name: "write", arguments: { filePath: "a.md", content: `Run:\n${shell}\n` } })}\n</tool_call>`;
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: `Run:\n${shell}\n` } }]);
  });
});
