/**
 * Review 42, area 2: another agent's tool names (src/parse/aliases.ts, issue 29 item 6). A call to
 * `execute_command`, `read_file`, `Bash`... runs as the declared OpenCode tool only "when the
 * request does not declare that name itself". The tests below declare the name (an MCP server's
 * tool, a custom tool) but take it out of what recovered calls may use (denyTools, allowTools,
 * tool_choice): the call the model wrote to that tool then runs as a different tool.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { fixtureTools } from "../golden/tools.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { dsml } from "../security/echo-spellings.ts";
import { completion, openAiTools, sdkTools, textStream, throughFetch, throughMiddleware, type Json } from "../security/support.ts";

/** An MCP server's shell (a sandbox, a remote host): declared under the name Cline gives bash. */
const MCP_EXEC: ToolSpec = { name: "execute_command", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
/** An MCP server's file reader, under the name Cline gives read. */
const MCP_READ: ToolSpec = { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };

const EXEC_LEAK = `Deploying on the build host:\n${dsml({ tool: "execute_command", input: { command: "make deploy" } })}`;
const READ_LEAK = `Reading the remote config:\n${dsml({ tool: "read_file", input: { path: "/etc/app.conf" } })}`;
const USER: Json[] = [{ role: "user", content: "Deploy it." }];

async function chat(tools: readonly ToolSpec[], reply: string, extra: Json = {}, options = {}) {
  const { out } = await throughFetch({ messages: USER, tools: openAiTools(tools), ...extra }, { json: completion(reply) }, options);
  return out.calls.map((c) => c.name);
}

describe("a declared tool taken out by policy is not re-targeted by its alias", () => {
  // Severity: wrong execution (high): the model called the MCP server's execute_command (say a
  // sandbox), which the user denied; the command runs in the local bash instead. Suspected:
  // src/parse/aliases.ts withAliases() (it checks `tools.has(alias)` on the tools left AFTER
  // src/options/engine.ts recoverableTools() and src/wires/tool-choice.ts offeredTools() removed
  // the denied / not-offered ones, so the declared name looks undeclared and the alias kicks in).
  // Expected: no call (the undeclared-tool nudge a denied tool's markup gets).
  test("control (passes today): with no policy the call runs as the declared execute_command", async () => {
    expect(await chat([...fixtureTools, MCP_EXEC], EXEC_LEAK)).toEqual(["execute_command"]);
  });

  test("denyTools [execute_command]: the denied MCP tool's call does not run as bash", async () => {
    expect(await chat([...fixtureTools, MCP_EXEC], EXEC_LEAK, {}, { responseFix: { denyTools: ["execute_command"] } })).toEqual([]);
  });

  test("denyTools pattern [read_*]: the denied MCP read_file call does not run as the local read", async () => {
    expect(await chat([...fixtureTools, MCP_READ], READ_LEAK, {}, { responseFix: { denyTools: ["read_*"] } })).toEqual([]);
  });

  test("allowTools [bash, read]: the MCP execute_command the list leaves out does not run as bash", async () => {
    expect(await chat([...fixtureTools, MCP_EXEC], EXEC_LEAK, {}, { responseFix: { allowTools: ["bash", "read"] } })).toEqual([]);
  });

  test("tool_choice forcing bash: a call to the declared, not offered execute_command does not run as bash", async () => {
    expect(await chat([...fixtureTools, MCP_EXEC], EXEC_LEAK, { tool_choice: { type: "function", function: { name: "bash" } } })).toEqual([]);
  });

  test("tool_choice allowed_tools [bash]: the same", async () => {
    const choice = { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "bash" } }] } };
    expect(await chat([...fixtureTools, MCP_EXEC], EXEC_LEAK, { tool_choice: choice })).toEqual([]);
  });

  // Same root: the chat wire only declares function tools to the engine, so a custom (free-text)
  // tool the request declares as execute_command looks undeclared and its call runs as bash.
  // Severity: wrong execution (high). Suspected: src/wires/chat/wire.ts declaredTools() together
  // with src/parse/aliases.ts withAliases().
  test("a custom tool declared as execute_command: its leaked call does not run as bash", async () => {
    const tools = [...openAiTools(fixtureTools), { type: "custom", custom: { name: "execute_command", description: "Runs a command in the sandbox" } }];
    const { out } = await throughFetch({ messages: USER, tools }, { json: completion(EXEC_LEAK) });
    expect(out.calls.map((c) => c.name)).toEqual([]);
  });

  test("Responses: a custom tool declared as execute_command: its leaked call does not run as bash", async () => {
    const tools = [...fixtureTools.map((t) => ({ type: "function", name: t.name, parameters: t.parameters })), { type: "custom", name: "execute_command", description: "Runs a command in the sandbox" }];
    const message = { id: "m1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: EXEC_LEAK, annotations: [] }] };
    const reply = { id: "resp_1", object: "response", status: "completed", model: "m", output: [message], usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } };
    const base = (async () => new Response(JSON.stringify(reply), { status: 200, headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
    const res = await repairFetch({}, base)("http://model.test/v1/responses", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", input: "Deploy it.", tools }) });
    const out = (await res.json()) as Json;
    expect((out.output as Json[]).filter((item) => item.type === "function_call").map((item) => item.name)).toEqual([]);
  });

  test("middleware: denyTools [execute_command] holds there too", async () => {
    const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "Deploy it." }] }];
    const run = await throughMiddleware(prompt, textStream(EXEC_LEAK), { responseFix: { denyTools: ["execute_command"] } }, { tools: sdkTools([...fixtureTools, MCP_EXEC]) });
    expect(run.calls.map((c) => c.toolName)).toEqual([]);
  });
});

describe("a name the user denied, written by the model, does not run under another name", () => {
  // Severity: wrong execution (medium; debatable, since bash itself is allowed): the user wrote
  // denyTools ["Bash"] (Claude Code's spelling), the model writes `Bash`, and it runs as bash,
  // because denyTools is matched against declared names only, never against the name the model
  // wrote. Suspected: src/options/engine.ts recoverableTools() / src/parse/aliases.ts. Expected: a
  // call whose written name is denied does not run (or the option warns that "Bash" names no
  // declared tool).
  test('denyTools ["Bash"]: a call the model writes to Bash does not run', async () => {
    const reply = `Listing:\n${dsml({ tool: "Bash", input: { command: "ls" } })}`;
    expect(await chat(fixtureTools, reply, {}, { responseFix: { denyTools: ["Bash"] } })).toEqual([]);
  });

  test('hard negative (passes today): denyTools ["bash"] stops the Bash alias too', async () => {
    const reply = `Listing:\n${dsml({ tool: "Bash", input: { command: "ls" } })}`;
    expect(await chat(fixtureTools, reply, {}, { responseFix: { denyTools: ["bash"] } })).toEqual([]);
  });
});

describe("hard negatives (pass today)", () => {
  test("an alias call with a parameter that has no exact counterpart does not run", async () => {
    const reply = `x\n${dsml({ tool: "execute_command", input: { command: "ls", requires_approval: "false" } })}`;
    expect(await chat(fixtureTools, reply)).toEqual([]);
  });

  test("an alias call with an extra parameter the table does not list does not run", async () => {
    const reply = `x\n${dsml({ tool: "read_file", input: { path: "a.ts", line_range: "1-5" } })}`;
    expect(await chat(fixtureTools, reply)).toEqual([]);
  });

  test("a case variant of an alias (EXECUTE_COMMAND, bash vs BASH) is no alias", async () => {
    expect(await chat(fixtureTools, `x\n${dsml({ tool: "EXECUTE_COMMAND", input: { command: "ls" } })}`)).toEqual([]);
    expect(await chat(fixtureTools, `x\n${dsml({ tool: "BASH", input: { command: "ls" } })}`)).toEqual([]);
  });

  test("an alias whose target is not declared maps to nothing", async () => {
    const reply = `x\n${dsml({ tool: "execute_command", input: { command: "ls" } })}`;
    expect(await chat(fixtureTools.filter((t) => t.name !== "bash"), reply)).toEqual([]);
  });
});
