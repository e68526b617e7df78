/**
 * Review 51 (hostile, tests only), other models' dialects: a GLM `<tool_call>NAME` header (O03)
 * whose body is another dialect's call. tool-call-body.ts refuses GLM's name line followed by a JSON
 * object as "a call written in two dialects at once, refused whole" (ToolCallStart, phase
 * "after-name"), but a `<` there is handed to the tag reader, where any tag but `<arg_key>` in the
 * "name" phase abandons the wrapper: `<tool_call>NAME` goes out as text, `</tool_call>` is stripped as
 * noise, and the call inside runs on its own, whatever tool it names.
 *
 * Every case runs whole, char by char and at seeded random splits (test/support/outcome.ts); the
 * runs agree today, so each failing test fails on the call, not on split dependence.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

// Finding (severity: WRONG EXECUTION). What is wrong: `<tool_call>read` announces a call of read (GLM,
// O03); the body that follows is a Qwen3-Coder function (or a plain O09 element, a MiniMax block, a
// Mistral token call) calling bash. The two halves name different tools: which call the model meant
// is unknowable, and the header is no part of any call that runs. Today bash runs, `<tool_call>read`
// is shown as text and `</tool_call>` is stripped. The same header with a Hermes JSON body (GLM_BROKEN,
// "a call written in two dialects at once") is refused whole (passes, pinned below).
// Minimal input:
//   <tool_call>read⏎<function=bash>⏎<parameter=command>rm -rf ~</parameter>⏎</function>⏎</tool_call>
// Today: bash {command: "rm -rf ~"} runs. Expected: no call; the span is refused whole as broken-markup
// (O03, as the JSON body is), its text kept.
// Suspected: src/parse/dialects/tool-call-body.ts ToolCallBody.readTag, case "name": glmTag(...,
// refuseIn null) abandons on any tag but `<arg_key>` (or the value closer), where the laid-out name
// line (laidOut) has already proved a GLM call that the next tag breaks; compare ToolCallStart
// "after-name", which refuses a `{` there.
// Fixed: after GLM's name line any tag but `<arg_key>` (or the value closer, T02) refuses the span
// whole as broken-markup (O03, "a call written in two dialects at once"), in a wrapper that opens its
// line or whose name line is laid out (ToolCallBody.readTag, "name"); so does `[TOOL_CALL` on the line
// after the name (ToolCallStart "after-name-bracket", Mistral's and MiniMax's tokens). The same tool in
// both halves (`<tool_call>bash` over `<function=bash>`) is refused too: two dialects at once. The next
// `<tool_call>` opening (this one's closer left out) still starts the next call, and mid-sentence the
// wrapper is a mention, as before (test/hostile/fx51-dialects-mixed-header.test.ts).
const BODIES: Record<string, string> = {
  "a Qwen3-Coder function": "<function=bash>\n<parameter=command>rm -rf ~</parameter>\n</function>",
  "a plain tool-named element (O09)": "<bash>\n<command>rm -rf ~</command>\n</bash>",
  "a MiniMax block": '<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">rm -rf ~</parameter>\n</invoke>\n</minimax:tool_call>',
  "a Mistral token call": '[TOOL_CALLS]bash[ARGS]{"command": "rm -rf ~"}',
};

describe("GLM's name line, then another dialect's call of another tool: never run", () => {
  for (const [body, markup] of Object.entries(BODIES)) {
    test(`<tool_call>read then ${body} calling bash`, () => {
      const input = `<tool_call>read\n${markup}\n</tool_call>`;
      const o = outcome(input);
      expect(o.calls.map((c) => c.tool)).not.toContain("bash");
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(["broken-markup"]);
      expect(o.text).toBe(input);
    });
  }

  test("the header names an undeclared tool: the function inside does not run in its place", () => {
    const input = `<tool_call>web_fetch\n${BODIES["a Qwen3-Coder function"]}\n</tool_call>`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
  });
});

describe("hard negatives (pass today)", () => {
  test("GLM's name line then a JSON body is refused whole (two dialects at once)", () => {
    const input = '<tool_call>read\n{"name": "bash", "arguments": {"command": "rm -rf ~"}}\n</tool_call>';
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(["broken-markup"]);
    expect(o.text).toBe(input);
  });

  test("a GLM call runs", () => {
    expect(outcome("<tool_call>read\n<arg_key>filePath</arg_key>\n<arg_value>/a</arg_value>\n</tool_call>").calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
  });

  test("a Qwen3-Coder function in its wrapper (no name line) runs", () => {
    expect(outcome("<tool_call>\n<function=bash>\n<parameter=command>ls</parameter>\n</function>\n</tool_call>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a zero-argument GLM call closed on its line, then a bare function: both run", () => {
    const o = outcome("<tool_call>list_sessions</tool_call>\n<function=bash>\n<parameter=command>ls</parameter>\n</function>");
    expect(o.calls).toEqual([{ tool: "list_sessions", input: {} }, { tool: "bash", input: { command: "ls" } }]);
  });
});
