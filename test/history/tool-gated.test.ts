/**
 * Shapes whose live verdict needs a declared tool (Hermes JSON that names one, a GLM zero-argument
 * call, a MiniMax bracket, a tool-named element): replayed history reads them with the request's
 * tools (OpenCode's built-ins when the caller has none to give), so executable-looking markup never
 * goes back to the model as written. A name no tool has stays prose, as in a live reply.
 */
import { describe, expect, test } from "bun:test";
import { REMOVED_NOTE, redactLeaks, sanitizeAssistantText } from "../../src/history/sanitize.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";

/** Golden O01e: an argument named twice, the second one destructive. */
const O01E = '<tool_call>\n{"name": "bash", "arguments": {"command": "echo hi", "command": "rm -rf ~"}}\n</tool_call>';
/** Golden G29.3: the JSON cut off, then closed. */
const G29_3 = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}\n</tool_call>';
/** Golden E29.9: a tool-named element with a child that is no parameter. */
const E29_9 = "<read>\n<filePath>src/a.ts</filePath>\n<path>b</path>\n</read>";
/** Golden E29.6: a tool-named element the live repair runs (O09). */
const E29_6 = "<read>\n<filePath>/etc/passwd</filePath>\n<limit>20</limit>\n</read>";
/** Golden A29.3: another agent's name for write, as an element. */
const A29_3 = "<write_to_file>\n<path>a.txt</path>\n<content>x</content>\n</write_to_file>";
/** Golden X29.11: a MiniMax bracket whose arguments cannot be read. */
const X29_11 = '[TOOL_CALL] {tool => "bash", args => { command "ls" }} [/TOOL_CALL]';
/** Golden O03.5: a GLM zero-argument call to a tool that requires one. */
const O03_5 = "<tool_call>bash</tool_call>";

const listSessions: ToolSpec = { name: "list_sessions", parameters: { type: "object", properties: { verbose: { type: "boolean" } }, required: [] } };

describe("history: tool-gated leak shapes", () => {
  test("with no tools given (the plugin), the shapes naming an OpenCode tool are replaced by the note, prose around them kept; hard negatives stay", () => {
    for (const leak of [O01E, G29_3, E29_9, E29_6, A29_3, X29_11, O03_5]) {
      expect(sanitizeAssistantText(`Cleaning up.\n${leak}\nDone.`)).toEqual({ text: `Cleaning up.\n${REMOVED_NOTE}\nDone.`, removed: 1 });
    }
    // Hard negatives: prose showing a format with a name no tool has, an HTML element, documentation.
    const prose = [
      "A <tool_call>Weather</tool_call> block names the tool.",
      'Hermes wraps it as <tool_call>{"name": "my_tool"}</tool_call> in the prompt.',
      'The format is [TOOL_CALL] {tool => "name", args => {...}} [/TOOL_CALL] on its own line.',
      "GLM once wrote <tool_call>Weather</arg_value> for a tool it did not have.",
      "<div>\n<p>hi</p>\n</div>",
      "```\n" + O01E + "\n```\n",
      "`" + O03_5 + "` is the GLM form.",
      "> " + E29_6.split("\n").join("\n> "),
    ];
    for (const text of prose) {
      expect(sanitizeAssistantText(text)).toEqual({ text, removed: 0 });
      expect(sanitizeAssistantText(text, {}, [listSessions])).toEqual({ text, removed: 0 });
    }
  });

  test("a well-formed call is redacted too and reads as a call that ran nothing; broken markup keeps its reason", () => {
    expect(redactLeaks(E29_6)).toMatchObject({ removed: 1, nudge: "undeclared-tool", shapes: ["O09"] });
    expect(redactLeaks(O01E)).toMatchObject({ removed: 1, nudge: "broken-markup", shapes: ["O01"] });
    // Hard negative: the format shown with a name no tool has reports nothing.
    const prose = 'Hermes wraps it as <tool_call>{"name": "my_tool", "x": 1}</tool_call> in the prompt.';
    expect(redactLeaks(prose)).toEqual({ text: prose, removed: 0, nudge: null, shapes: [] });
  });

  test("a tool the request declares (the proxy, the middleware) counts: a GLM zero-argument call to it is redacted", () => {
    const glm = "Listing.\n<tool_call>list_sessions</tool_call>";
    expect(sanitizeAssistantText(glm, {}, [listSessions])).toEqual({ text: `Listing.\n${REMOVED_NOTE}`, removed: 1 });
    // Hard negative: with no such tool the same words are prose, in history as in a live reply.
    expect(sanitizeAssistantText(glm, {}, [])).toEqual({ text: glm, removed: 0 });
  });

  test("the AI SDK middleware reads history with the call's declared tools; without that tool the words stay", async () => {
    const glm = "Listing.\n<tool_call>list_sessions</tool_call>";
    const prompt = [{ role: "assistant" as const, content: [{ type: "text" as const, text: glm }] }];
    const tool = { type: "function" as const, name: "list_sessions", description: "", inputSchema: listSessions.parameters as never };
    const run = async (tools: (typeof tool)[]) => {
      const params = { prompt, tools } as never;
      const out = await repairMiddleware().transformParams!({ params, type: "stream", model: {} as never });
      return (out.prompt[0]!.content[0] as { text: string }).text;
    };
    expect(await run([tool])).toBe(`Listing.\n${REMOVED_NOTE}`);
    expect(await run([])).toBe(glm);
  });
});
