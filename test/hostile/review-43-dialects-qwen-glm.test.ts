/**
 * Review 43, dialect family 5: Qwen3-Coder `<function=NAME><parameter=KEY>` (O02,
 * src/parse/dialects/qwen.ts) and GLM `<tool_call>NAME<arg_key>/<arg_value>` (O03,
 * src/parse/dialects/tool-call.ts glmPairs). A value is never cut short and never loses characters
 * the model wrote. Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome, qwenCall as qwen } from "../support/outcome.ts";

describe("Qwen3-Coder: a `<parameter=` inside a value cuts it short and the call runs", () => {
  // Severity: wrong-execution (a file written with its content cut short; a command cut short).
  // Suspected: src/parse/dialects/qwen.ts parseQwenFunctions(): every `<parameter=KEY>` opener ends
  // the open value (O02.4, a runaway parameter whose `</parameter>` was lost), wherever it stands,
  // even mid-line and even when KEY is no parameter of the tool. The value the model wrote runs as
  // its first few characters, the rest as a stray argument. The same markup in Claude-style XML
  // (`<parameter name="x">` inside a value, the DSML walk) is refused. PATTERNS.md (Runaway
  // parameters) documents "the value ends at the next `<parameter=`" for a value whose closer was
  // lost, as the reference parsers read it; here the evidence says otherwise (an opener mid-line,
  // or one naming no parameter of the tool, and one `</parameter>` for two openers), so which value
  // the model meant is unknowable. Expected: refused (broken-markup), or the whole text read as
  // the value; never the value's first few characters. (A narrower O02.4: the next opener ends a
  // value only at a line start and only for a parameter the tool declares and the call lacks.)
  test("write: content documenting `<parameter=x>` is not written as 'Use '", () => {
    const input = qwen("write", "<parameter=filePath>notes.md</parameter>\n<parameter=content>Use <parameter=x>b to set it.\n</parameter>");
    const o = outcome(input);
    expect(o.calls).not.toContainEqual({ tool: "write", input: { filePath: "notes.md", content: "Use ", x: "b to set it." } });
    expect(o.calls.every((c) => c.input.content !== "Use ")).toBe(true);
  });

  test("bash: a command cut mid-line at a declared parameter's opener does not run as 'echo '", () => {
    const input = qwen("bash", "<parameter=command>echo <parameter=description>x\n</parameter>");
    const o = outcome(input);
    expect(o.calls.every((c) => c.input.command !== "echo ")).toBe(true);
  });

  test("write: a line-start `<parameter=NAME>` naming no parameter of write does not cut the file short", () => {
    // Same finding, O02.4's own shape (the opener on its own line): a file documenting the format
    // is written as its first line, and `NAME` runs as a stray argument.
    const input = qwen("write", "<parameter=filePath>qwen.md</parameter>\n<parameter=content>\n# Qwen3-Coder calls\n<parameter=NAME>\nvalue\n</parameter>");
    const o = outcome(input);
    expect(o.calls.every((c) => c.input.content !== "# Qwen3-Coder calls")).toBe(true);
  });

  test("control (passes today): Claude-style XML refuses the same value", () => {
    const input = '<function_calls>\n<invoke name="write">\n<parameter name="filePath">notes.md</parameter>\n<parameter name="content">Use <parameter name="x">b to set it.\n</parameter>\n</invoke>\n</function_calls>';
    expect(outcome(input).calls).toEqual([]);
  });

  test("O02.4, a runaway value ended by the next parameter on its own line, is refused (review 47b: that opener may be the value's text)", () => {
    const input = qwen("read", "<parameter=filePath>\n/a/b.ts\n<parameter=limit>\n5\n</parameter>");
    expect(outcome(input).calls).toEqual([]);
    expect(outcome(input).broken).toEqual(["broken-markup"]);
  });
});

describe("a lone leading or trailing newline is content (P09b, P09c)", () => {
  // Severity: text-loss (a file's final newline, or its first empty line, is dropped). Suspected:
  // src/parse/dialects/common.ts trimLayoutNewlines(): it removes one newline at each end
  // independently, where PATTERNS.md's Values rule (P09) removes one only when it hugs *both* sides
  // (values.ts trimHuggingNewlines, used by DSML, invoke markup and tool-named elements: the same
  // value there keeps its newline). Note: vLLM's qwen3coder parser strips each side independently
  // too, so the lead may rule this dialect-specific; the README/PATTERNS rule says otherwise today.
  test("Qwen3-Coder: content 'x\\n' keeps its final newline", () => {
    const o = outcome(qwen("write", "<parameter=filePath>a.txt</parameter>\n<parameter=content>x\n</parameter>"));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "x\n" } }]);
  });

  test("Qwen3-Coder: content '\\nx' keeps its first empty line", () => {
    const o = outcome(qwen("write", "<parameter=filePath>a.md</parameter>\n<parameter=content>\nx</parameter>"));
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "\nx" } }]);
  });

  test("GLM: content 'x\\n' keeps its final newline", () => {
    const o = outcome("<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.txt</arg_value>\n<arg_key>content</arg_key>\n<arg_value>x\n</arg_value>\n</tool_call>");
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "x\n" } }]);
  });

  test("control (passes today): invoke markup and a tool-named element keep it", () => {
    const xml = '<function_calls>\n<invoke name="write">\n<parameter name="filePath">a.txt</parameter>\n<parameter name="content">x\n</parameter>\n</invoke>\n</function_calls>';
    expect(outcome(xml).calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "x\n" } }]);
    expect(outcome("<write>\n<filePath>a.txt</filePath>\n<content>x\n</content>\n</write>").calls).toEqual([{ tool: "write", input: { filePath: "a.txt", content: "x\n" } }]);
  });

  test("control (passes today): a newline hugging both sides is layout", () => {
    expect(outcome(qwen("bash", "<parameter=command>\nls\n</parameter>")).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });
});

describe("hard negatives (pass today)", () => {
  test("a parameter named twice refuses the call (Qwen3-Coder and GLM)", () => {
    expect(outcome(qwen("bash", "<parameter=command>ls</parameter>\n<parameter=command>rm -rf /</parameter>")).calls).toEqual([]);
    expect(outcome("<tool_call>bash\n<arg_key>command</arg_key><arg_value>ls</arg_value>\n<arg_key>command</arg_key><arg_value>rm</arg_value>\n</tool_call>").calls).toEqual([]);
  });

  test("`<parameter=command >` and `<parameter= command>` are not parameters", () => {
    expect(outcome(qwen("bash", "<parameter=command >ls</parameter>")).calls).toEqual([]);
    expect(outcome(qwen("bash", "<parameter= command>ls</parameter>")).calls).toEqual([]);
  });

  test("`</parameter` without `>` inside a value is the value's text", () => {
    expect(outcome(qwen("bash", '<parameter=command>echo "</parameter" ok</parameter>')).calls).toEqual([{ tool: "bash", input: { command: 'echo "</parameter" ok' } }]);
  });

  test("values typed from the schema: 0x10 and 1_000 are no numbers, yes no boolean", () => {
    const toggle: ToolSpec = { name: "toggle", parameters: { type: "object", properties: { on: { type: "boolean" } }, required: ["on"] } };
    expect(outcome(qwen("bash", "<parameter=command>ls</parameter>\n<parameter=timeout>0x10</parameter>")).calls).toEqual([]);
    expect(outcome("<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n<arg_key>timeout</arg_key>\n<arg_value>1_000</arg_value>\n</tool_call>").calls).toEqual([]);
    expect(outcome(qwen("toggle", "<parameter=on>yes</parameter>"), [...fixtureTools, toggle]).calls).toEqual([]);
  });
});
