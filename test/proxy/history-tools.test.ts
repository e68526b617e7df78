/**
 * The proxy's request side reads replayed history with the tools the body declares, on all three
 * wires: a leak whose verdict needs a declared tool (golden O01e; a GLM zero-argument call, O03) is
 * replaced and, being the newest model turn, gets the one correction. Hard negatives: the same GLM
 * words without that tool declared, and a sentence showing the format, go up as the client sent them.
 */
import { describe, expect, test } from "bun:test";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";

const O01E = '<tool_call>\n{"name": "bash", "arguments": {"command": "echo hi", "command": "rm -rf ~"}}\n</tool_call>';
const GLM = "<tool_call>list_sessions</tool_call>";
const PROSE = "A <tool_call>Weather</tool_call> block names the tool.";
const OPTIONS = { parse: {}, sanitize: true, correct: true };
const object = (properties: Record<string, unknown>, required: string[]) => ({ type: "object", properties, required });
const SCHEMAS: Record<string, unknown> = { bash: object({ command: { type: "string" } }, ["command"]), list_sessions: object({ verbose: { type: "boolean" } }, []) };

type Wire = "/v1/chat/completions" | "/v1/messages" | "/v1/responses";
const WIRES: Wire[] = ["/v1/chat/completions", "/v1/messages", "/v1/responses"];

/** A body on `wire` declaring `tools`, replaying `said` as the newest assistant turn. */
function body(wire: Wire, tools: string[], said: string): Uint8Array<ArrayBuffer> {
  const user = (text: string) => ({ role: "user", content: text });
  let json: Record<string, unknown>;
  if (wire === "/v1/chat/completions") {
    json = { model: "m", tools: tools.map((name) => ({ type: "function", function: { name, parameters: SCHEMAS[name] } })), messages: [user("clean up"), { role: "assistant", content: `Cleaning up.\n${said}` }, user("and?")] };
  } else if (wire === "/v1/messages") {
    json = { model: "m", max_tokens: 100, tools: tools.map((name) => ({ name, input_schema: SCHEMAS[name] })), messages: [user("clean up"), { role: "assistant", content: [{ type: "text", text: `Cleaning up.\n${said}` }] }, user("and?")] };
  } else {
    json = { model: "m", tools: tools.map((name) => ({ type: "function", name, parameters: SCHEMAS[name] })), input: [user("clean up"), { role: "assistant", content: [{ type: "output_text", text: `Cleaning up.\n${said}` }] }, user("and?")] };
  }
  return new Uint8Array(new TextEncoder().encode(JSON.stringify(json)));
}

const replayed = (wire: Wire, out: Uint8Array): string => {
  const json = JSON.parse(new TextDecoder().decode(out));
  // The correction may come first as a system message: the replayed turn is the assistant's.
  const turn = (wire === "/v1/responses" ? json.input : json.messages).find((t: { role: string }) => t.role === "assistant");
  return typeof turn.content === "string" ? turn.content : turn.content[0].text;
};

describe("proxy history reads the body's declared tools", () => {
  test.each(WIRES)("%s: O01e is replaced and corrected as broken markup; a prose mention is not touched", (wire) => {
    const out = sanitizeRequestBody(wire, body(wire, ["bash"], O01E), OPTIONS);
    expect([out.removed, out.correction, replayed(wire, out.body)]).toEqual([1, "broken-markup", `Cleaning up.\n${REMOVED_NOTE}`]);
    const prose = body(wire, ["bash"], PROSE);
    expect(sanitizeRequestBody(wire, prose, OPTIONS)).toEqual({ body: prose, removed: 0, turns: 0, correction: null });
  });

  test.each(WIRES)("%s: a GLM zero-argument call counts only when the body declares that tool", (wire) => {
    const out = sanitizeRequestBody(wire, body(wire, ["bash", "list_sessions"], GLM), OPTIONS);
    expect([out.removed, out.correction, replayed(wire, out.body)]).toEqual([1, "unexecuted-call", `Cleaning up.\n${REMOVED_NOTE}`]);
    const undeclared = body(wire, ["bash"], GLM);
    expect(sanitizeRequestBody(wire, undeclared, OPTIONS)).toEqual({ body: undeclared, removed: 0, turns: 0, correction: null });
  });
});
