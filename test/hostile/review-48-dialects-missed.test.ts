/**
 * Review 48: calls a demanding user would expect to run, missed today (lower severity: a missed
 * repair, the text stays visible and the reply gets a nudge). Every case runs whole, char by char
 * and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

describe("missed repairs", () => {
  // Severity: missed call (low). Suspected: src/parse/costume-xml.ts (the `<tool_call>` /
  // `<tool_name>` / `<tool_args>` reader takes only the execute skeleton with <language>/<code>
  // children, C01): a declared tool named in <tool_name> with a JSON object in <tool_args> is
  // refused as broken-markup. Expected: bash {command: "ls"} (the object is strict JSON, the tool
  // declared, the arguments fit its schema).
  test("<tool_name>bash</tool_name> with a JSON object in <tool_args>", () => {
    const input = '<tool_call><tool_name>bash</tool_name><tool_args>{"command":"ls"}</tool_args></tool_call>';
    expect(outcome(input).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  // Severity: missed call (low). Suspected: src/parse/dialects/tool-call-body.ts (strict JSON):
  // cheap models often write a file's content with raw line breaks inside the JSON string. The
  // call is refused (broken-markup). Expected: the write with the line breaks as written, as
  // LFM2's reader already accepts raw line breaks in a string. (Reading the string to its closing
  // quote would also keep the broken-body finding's costumes inside the content, see
  // review-48-dialects-broken-body.test.ts.)
  test("Hermes write whose content string holds raw line breaks", () => {
    const input = '<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"line 1\nline 2"}}\n</tool_call>';
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content: "line 1\nline 2" } }]);
  });
});

describe("a special-token example inside a special-token dialect's string argument", () => {
  // Severity: missed call (low; trust first holds, nothing runs). Suspected:
  // src/parse/dialects/common.ts / the Kimi and LFM2 readers: a `<|tool_call_end|>` (or a section
  // token) inside the JSON or Python string of the arguments ends the call, so a write documenting
  // the format is refused (truncated-call or broken-markup). Mistral and Hermes carry the same
  // content (controls below). Expected: the write with its whole content.
  const R = "rm -rf build";
  const kimiExample = `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"${R}"}<|tool_call_end|><|tool_calls_section_end|>`;
  const content = `Page:\n${kimiExample}\nend`;
  test("Kimi write whose content documents a Kimi call", () => {
    const input = `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>${JSON.stringify({ filePath: "a.md", content })}<|tool_call_end|><|tool_calls_section_end|>`;
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  });
  test("LFM2 write whose content documents a Kimi call", () => {
    const input = `<|tool_call_start|>[write(filePath="a.md", content=${JSON.stringify(content)})]<|tool_call_end|>`;
    expect(outcome(input).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  });
  test("control (passes today): Mistral and Hermes carry the same content", () => {
    expect(outcome(`[TOOL_CALLS]write[ARGS]${JSON.stringify({ filePath: "a.md", content })}`).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
    expect(outcome(`<tool_call>\n${JSON.stringify({ name: "write", arguments: { filePath: "a.md", content } })}\n</tool_call>`).calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
  });
});

describe("GLM: a closer mentioned mid-line in a value drops the write silently", () => {
  // Severity: missed call (low) and no report (no broken-markup, no nudge: the model is never
  // told). A40: a closer followed by text on its line is the value's text, and Claude-style reads
  // `x</invoke> y` that way. Suspected: src/parse/dialects/tool-call.ts (GLM branch). See the
  // wrong-execution case with a costume after the mention in review-48-dialects-examples.test.ts.
  // Expected: the write with its whole content, or refused with a nudge.
  const glmWrite = (c: string) => `<tool_call>write\n<arg_key>filePath</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${c}</arg_value>\n</tool_call>`;
  test("`Close a value with </arg_value> in GLM.`", () => {
    const content = "Close a value with </arg_value> in GLM.\nmore\n";
    const o = outcome(glmWrite(content));
    expect(o.calls.length + o.broken.length).toBeGreaterThan(0);
  });
});

describe("hard negatives (pass today)", () => {
  test("the execute skeleton runs; an undeclared tool name in <tool_name> does not", () => {
    expect(outcome("<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome("<tool_call><tool_name>run_shell</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>").calls).toEqual([]);
  });
  test("the execute skeleton inside documentation does not run", () => {
    const c = "<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>rm -rf build</code></tool_args></tool_call>";
    for (const input of ["```\n" + c + "\n```", "`" + c + "`", "> " + c, `[a](/u "${c}")`, `<a title='${c}'>x</a>`, `<!-- ${c} -->`]) {
      expect(outcome(input).calls).toEqual([]);
    }
  });
});
