/**
 * Review 42, area 4: tool_choice and the one-call switches (src/wires/tool-choice.ts). No finding:
 * these are hard negatives (pass today) for the forms and reply shapes not covered elsewhere
 * (test/security/tool-policy.test.ts, test/adapters/one-call.test.ts): a leak in a Responses
 * reasoning summary beside leaks in several message items, several Anthropic text blocks, and
 * allowed_tools entries that name no function. Each one-call case has its control (the switch on).
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { fixtureTools } from "../golden/tools.ts";
import { dsml } from "../security/echo-spellings.ts";
import { completion, throughFetch, type Json } from "../security/support.ts";

const leak = (command: string) => dsml({ tool: "bash", input: { command } });

async function post(url: string, body: Json, reply: Json): Promise<Json> {
  const base = (async () => new Response(JSON.stringify(reply), { status: 200, headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
  const res = await repairFetch({}, base)(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return (await res.json()) as Json;
}

const ANTHROPIC = "http://model.test/v1/messages";
const RESPONSES = "http://model.test/v1/responses";
const anthropicTools = fixtureTools.map((t) => ({ name: t.name, description: t.name, input_schema: t.parameters }));
const responsesTools = fixtureTools.map((t) => ({ type: "function", name: t.name, description: t.name, parameters: t.parameters }));
const message = (content: Json[]) => ({ id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } });
const response = (output: Json[]) => ({ id: "resp_1", object: "response", status: "completed", model: "m", output, usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } });
const outputMessage = (id: string, text: string) => ({ id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
const anthropicCalls = (out: Json) => (out.content as Json[]).filter((b) => b.type === "tool_use").map((b) => b.input);
const responsesCalls = (out: Json) => (out.output as Json[]).filter((i) => i.type === "function_call").map((i) => i.arguments);

describe("one call per reply, across channels and items", () => {
  test("Anthropic disable_parallel_tool_use: two text blocks with a leak each give one call", async () => {
    const body = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], tools: anthropicTools, tool_choice: { type: "any", disable_parallel_tool_use: true } };
    const out = await post(ANTHROPIC, body, message([{ type: "text", text: `a\n${leak("ls")}` }, { type: "text", text: `b\n${leak("pwd")}` }]));
    expect(anthropicCalls(out)).toEqual([{ command: "ls" }]);
    const both = await post(ANTHROPIC, { ...body, tool_choice: { type: "any" } }, message([{ type: "text", text: `a\n${leak("ls")}` }, { type: "text", text: `b\n${leak("pwd")}` }]));
    expect(anthropicCalls(both)).toHaveLength(2);
  });

  // Changed by fix 54b: a part's end decides nothing, so a leak whose block closer ends a message
  // item (its line end unseen) never runs; each leak here ends its line inside its item.
  // Changed by fix 55: with its line end too (the run after a DSML call reads on past its block's
  // closer, A46.6), so each leak here has a prose line after it inside its item.
  test("Responses parallel_tool_calls false: a reasoning summary's leak and two message items' leaks give one call", async () => {
    const reasoning = { type: "reasoning", id: "r1", summary: [{ type: "summary_text", text: `Plan.\n${leak("whoami")}` }] };
    const out = await post(RESPONSES, { model: "m", input: "hi", tools: responsesTools, parallel_tool_calls: false }, response([reasoning, outputMessage("m1", `a\n${leak("ls")}\nDone.\n`), outputMessage("m2", `b\n${leak("pwd")}\nDone.\n`)]));
    expect(responsesCalls(out)).toHaveLength(1);
    const all = await post(RESPONSES, { model: "m", input: "hi", tools: responsesTools }, response([reasoning, outputMessage("m1", `a\n${leak("ls")}\nDone.\n`), outputMessage("m2", `b\n${leak("pwd")}\nDone.\n`)]));
    expect(responsesCalls(all).length).toBeGreaterThan(1);
  });
});

describe("which tools a choice offers", () => {
  test("Responses allowed_tools naming only non-function tools (an MCP server, a chat-shaped entry) offers no function", async () => {
    for (const tools of [[{ type: "mcp", server_label: "bash" }], [{ type: "function", function: { name: "bash" } }]]) {
      const out = await post(RESPONSES, { model: "m", input: "hi", tools: responsesTools, tool_choice: { type: "allowed_tools", mode: "auto", tools } }, response([outputMessage("m1", `a\n${leak("ls")}`)]));
      expect(responsesCalls(out)).toEqual([]);
    }
  });

  test("chat: a Responses-shaped forced function ({type, name} with no function object) fails closed", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "hi" }], tool_choice: { type: "function", name: "bash" } }, { json: completion(`a\n${leak("ls")}`) });
    expect(out.calls).toEqual([]);
  });

  test('chat: tool_choice "None" (not the API\'s spelling) fails closed', async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "hi" }], tool_choice: "None" }, { json: completion(`a\n${leak("ls")}`) });
    expect(out.calls).toEqual([]);
  });

  test("Anthropic tool_choice {type: tool, name: read}: a bash leak does not run, a read leak does", async () => {
    const body = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], tools: anthropicTools, tool_choice: { type: "tool", name: "read" } };
    const read = dsml({ tool: "read", input: { filePath: "a.ts" } });
    const out = await post(ANTHROPIC, body, message([{ type: "text", text: `a\n${leak("ls")}\n${read}` }]));
    expect(anthropicCalls(out)).toEqual([{ filePath: "a.ts" }]);
  });
});
