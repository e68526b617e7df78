/**
 * Review 48: calls a demanding user would expect to run, missed today (lower severity: a missed
 * repair, the text stays visible and the reply gets a nudge). Every case runs whole, char by char
 * and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

describe("missed repairs (fixed: tool_name + JSON tool_args)", () => {
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
  // known gap: raw line breaks in a Hermes JSON string stay unread. fx48-dialects-a makes a
  // <tool_call> body whose JSON breaks (a raw line break included) refuse whole up to the
  // wrapper's closer (review 48 finding 1: a costume inside such a write's content must never
  // run); reading the string to its closing quote instead is a policy change to coordinate with
  // that rule, not a local repair. Pinned: nothing runs (trust holds; the model gets a nudge or
  // sees its text).
  test("known gap: Hermes write whose content string holds raw line breaks (nothing runs)", () => {
    const input = '<tool_call>\n{"name":"write","arguments":{"filePath":"a.md","content":"line 1\nline 2"}}\n</tool_call>';
    expect(outcome(input).calls).toEqual([]);
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
  // Fixed (review 57, src/parse/legacy-args.ts): in the Kimi and DeepSeek legacy readers a token
  // inside a JSON string of the call's arguments is the value's text (a begin token opens an
  // example its end token closes), in the stream and in the span parser alike; the call ends only
  // at its own end token outside strings. The write runs with its whole content.
  test("fixed: Kimi write whose content documents a Kimi call runs with its whole content", () => {
    const input = `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>${JSON.stringify({ filePath: "a.md", content })}<|tool_call_end|><|tool_calls_section_end|>`;
    const o = outcome(input);
    expect(o.calls).toEqual([{ tool: "write", input: { filePath: "a.md", content } }]);
    expect(o.broken).toEqual([]);
  });
  // known gap: a special token is never a Python string's text in the LFM2 reader (its call list's
  // `<|tool_call_end|>` ends the call wherever it stands). Review 57 taught the JSON-argument
  // readers (Kimi, DeepSeek legacy) string state; LFM2's pythonic strings (both quote kinds) are
  // left: the refusal is safe (nothing runs, the model is nudged). Pinned: no call, so never a truncated write.
  test("known gap: LFM2 write whose content documents a Kimi call (refused, nothing runs)", () => {
    const input = `<|tool_call_start|>[write(filePath="a.md", content=${JSON.stringify(content)})]<|tool_call_end|>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken.length).toBeGreaterThan(0);
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
  // known gap (here): the stream releases the body as text at the prose after the mid-line
  // `</arg_value>` (src/parse/dialects/tool-call-body.ts, the glm-pair-next phase), the file
  // fx48-dialects-a is reworking for finding 1 (a body that broke after it proved to be a call is
  // refused whole, with a report). The report belongs to that rule; pinned here only what holds
  // either way: no write runs with a cut content and the whole text stays visible.
  test("known gap: `Close a value with </arg_value> in GLM.` (nothing runs, text kept; the report is fx48-dialects-a's)", () => {
    const content = "Close a value with </arg_value> in GLM.\nmore\n";
    const o = outcome(glmWrite(content));
    expect(o.calls).toEqual([]);
    expect(o.text).toBe(glmWrite(content));
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
