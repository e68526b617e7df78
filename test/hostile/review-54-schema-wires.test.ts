/**
 * Review 54 (hostile, tests only): the request's tool choice holds for EVERY dialect reader on
 * every wire (chat completions, Anthropic Messages, Responses, through the fetch adapter). All
 * pass on main: `tool_choice` none runs nothing, a choice naming another tool runs nothing, the
 * named tool runs, and an alias or a costume reaches bash only where the choice offers bash.
 * (The one-call switches are pinned per reader in review-54-schema-dialects.test.ts and per wire
 * in test/adapters/one-call.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { fixtureTools } from "../golden/tools.ts";
import { live } from "../golden/notation.ts";
import { completion, openAiTools, throughFetch, type Json } from "../security/support.ts";

/** `bash {command: "ls"}` leaked in each reader's spelling (and under another agent's name, and as code). */
const LEAKS: Record<string, string> = {
  dsml: live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
  "legacy deepseek": live('<{BAR}tool{SP}calls{SP}begin{BAR}><{BAR}tool{SP}call{SP}begin{BAR}>bash<{BAR}tool{SP}sep{BAR}>{"command":"ls"}<{BAR}tool{SP}call{SP}end{BAR}><{BAR}tool{SP}calls{SP}end{BAR}>'),
  hermes: `<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>`,
  "qwen3-coder": `<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>`,
  glm: `<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>ls</arg_value>\n</tool_call>`,
  "minimax bracket": `[TOOL_CALL] {tool => "bash", args => { --command "ls" }} [/TOOL_CALL]`,
  "minimax xml": `<minimax:tool_call>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</minimax:tool_call>`,
  kimi: `<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls"}<|tool_call_end|><|tool_calls_section_end|>`,
  mistral: `[TOOL_CALLS]bash[ARGS]{"command":"ls"}`,
  pythonic: `<|tool_call_start|>[bash(command="ls")]<|tool_call_end|>`,
  claude: `<function_calls>\n<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>\n</function_calls>`,
  "element form": `<bash>\n<command>ls</command>\n</bash>`,
  "<shell>": `<shell>\nls\n</shell>`,
  "pre/code": `<pre><code class="language-bash">ls</code></pre>`,
  "xml execute": `<tool_call><tool_name>execute</tool_name><tool_args><language>sh</language><code>ls</code></tool_args></tool_call>`,
  "alias execute_command": `<tool_call>\n{"name": "execute_command", "arguments": {"command": "ls"}}\n</tool_call>`,
  "alias Bash": `<tool_call>\n{"name": "Bash", "arguments": {"command": "ls"}}\n</tool_call>`,
};

const USER: Json[] = [{ role: "user", content: "List the files." }];
const ANTHROPIC = "http://model.test/v1/messages";
const RESPONSES = "http://model.test/v1/responses";

async function post(url: string, body: Json, reply: Json): Promise<Json> {
  const base = (async () => new Response(JSON.stringify(reply), { status: 200, headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
  const res = await repairFetch({}, base)(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return (await res.json()) as Json;
}
const message = (text: string) => ({ id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } });
const response = (text: string) => ({
  id: "resp_1", object: "response", status: "completed", model: "m",
  output: [{ id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }],
  usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
});
const anthropicTools = fixtureTools.map((t) => ({ name: t.name, description: t.name, input_schema: t.parameters }));
const responsesTools = fixtureTools.map((t) => ({ type: "function", name: t.name, description: t.name, parameters: t.parameters }));

async function chatRan(text: string, toolChoice?: unknown): Promise<string[]> {
  const { out } = await throughFetch({ messages: USER, tools: openAiTools(), ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}) }, { json: completion(text) });
  return out.calls.map((c) => c.name ?? "");
}
async function anthropicRan(text: string, toolChoice?: unknown): Promise<string[]> {
  const out = await post(ANTHROPIC, { model: "m", max_tokens: 64, messages: USER, tools: anthropicTools, ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}) }, message(text));
  return (out.content as Json[]).filter((b) => b.type === "tool_use").map((b) => b.name as string);
}
async function responsesRan(text: string, toolChoice?: unknown): Promise<string[]> {
  const out = await post(RESPONSES, { model: "m", input: "List the files.", tools: responsesTools, ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}) }, response(text));
  return (out.output as Json[]).filter((i) => i.type === "function_call").map((i) => i.name as string);
}

describe("tool choice, every reader, every wire", () => {
  for (const [name, leak] of Object.entries(LEAKS)) {
    const text = `Listing them.\n${leak}`;
    test(`${name}: auto runs bash; none and a choice of read run nothing; a choice of bash runs bash`, async () => {
      expect(await chatRan(text)).toEqual(["bash"]);
      expect(await chatRan(text, "none")).toEqual([]);
      expect(await chatRan(text, { type: "function", function: { name: "read" } })).toEqual([]);
      expect(await chatRan(text, { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "read" } }] } })).toEqual([]);
      expect(await chatRan(text, { type: "function", function: { name: "bash" } })).toEqual(["bash"]);
      expect(await anthropicRan(text)).toEqual(["bash"]);
      expect(await anthropicRan(text, { type: "none" })).toEqual([]);
      expect(await anthropicRan(text, { type: "tool", name: "read" })).toEqual([]);
      expect(await responsesRan(text)).toEqual(["bash"]);
      expect(await responsesRan(text, "none")).toEqual([]);
      expect(await responsesRan(text, { type: "function", name: "read" })).toEqual([]);
    });
  }

  test("a choice naming the tool in another case or under an alias offers nothing (fail closed)", async () => {
    const text = `Listing them.\n${LEAKS.hermes}`;
    expect(await chatRan(text, { type: "function", function: { name: "Bash" } })).toEqual([]);
    expect(await chatRan(text, { type: "function", function: { name: "execute_command" } })).toEqual([]);
    expect(await anthropicRan(text, { type: "tool", name: "BASH" })).toEqual([]);
    expect(await responsesRan(text, { type: "function", name: "bash_tool" })).toEqual([]);
  });
});
