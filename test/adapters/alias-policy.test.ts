/**
 * Another agent's name for a tool (src/parse/aliases.ts) against the request's declarations and
 * the user's policy, on every adapter: an alias applies only when the written name is no tool the
 * request declared, of any kind, before allowTools / denyTools / tool_choice narrowed them; and
 * denyTools is matched against the written name as well as the tool it would run as. The review's
 * own cases are in test/hostile/review-42-aliases.test.ts; these add what else the rule covers
 * (streams at several splits, the report and the visible text, Anthropic, provider tools) and
 * what it must leave alone.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterOptions, AdapterResult } from "../../src/adapters/options.ts";
import { engineOptions, reservedNames } from "../../src/options/engine.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { declaredToolNames } from "../../src/wires/declared-names.ts";
import { fixtureTools } from "../golden/tools.ts";
import { dsml } from "../security/echo-spellings.ts";
import { completion, deltas, openAiTools, sdkTools, sseText, textStream, throughFetch, throughMiddleware, type Json } from "../security/support.ts";
import { postInit } from "./wire-support.ts";

const MCP_EXEC: ToolSpec = { name: "execute_command", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
const EXEC_LEAK = `Deploying on the build host:\n${dsml({ tool: "execute_command", input: { command: "make deploy" } })}`;
const BASH_LEAK = (name: string) => `Listing:\n${dsml({ tool: name, input: { command: "ls" } })}`;
const USER: Json[] = [{ role: "user", content: "Deploy it." }];
const DENY_EXEC: AdapterOptions = { responseFix: { denyTools: ["execute_command"] } };

/** The broken spans every report holds, as [reason, tool]. */
const brokenOf = (results: AdapterResult[]) => results.flatMap((r) => r.summary.broken.map((b) => [b.reason, b.tool]));

describe("a declared name taken out by policy: no call, the text kept, the undeclared-tool nudge", () => {
  for (const size of [1, 7, 64, 100_000]) {
    test(`chat stream, deltas of ${size}: denyTools [execute_command]`, async () => {
      const { out, results } = await throughFetch({ messages: USER, tools: openAiTools([...fixtureTools, MCP_EXEC]) }, { sse: sseText(deltas(EXEC_LEAK, size)) }, DENY_EXEC);
      expect(out.calls).toEqual([]);
      expect(out.content).toBe(EXEC_LEAK);
      expect(results.map((r) => r.summary.nudge)).toEqual(["undeclared-tool"]);
      expect(brokenOf(results)).toEqual([["undeclared-tool", "execute_command"]]);
    });
  }

  test("chat JSON: the nudge names the tool the model wrote, never bash", async () => {
    const { out, results } = await throughFetch({ messages: USER, tools: openAiTools([...fixtureTools, MCP_EXEC]) }, { json: completion(EXEC_LEAK) }, DENY_EXEC);
    expect(out.calls).toEqual([]);
    expect(out.content).toBe(EXEC_LEAK);
    expect(brokenOf(results)).toEqual([["undeclared-tool", "execute_command"]]);
    expect(results[0]!.summary.broken[0]!.declared).toBeUndefined();
  });

  test("control: the same reply without the MCP tool declared runs as bash (the alias itself still works)", async () => {
    const { out } = await throughFetch({ messages: USER, tools: openAiTools(fixtureTools) }, { json: completion(EXEC_LEAK) }, {});
    expect(out.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([["bash", { command: "make deploy" }]]);
  });

  test("control: denying the MCP tool leaves the other aliases alone (read_file still runs as read)", async () => {
    const reply = `Reading:\n${dsml({ tool: "read_file", input: { path: "a.ts" } })}`;
    const { out } = await throughFetch({ messages: USER, tools: openAiTools([...fixtureTools, MCP_EXEC]) }, { json: completion(reply) }, DENY_EXEC);
    expect(out.calls.map((c) => c.name)).toEqual(["read"]);
  });

  test('chat tool_choice "none" next to a declared execute_command: nothing runs', async () => {
    const { out } = await throughFetch({ messages: USER, tools: openAiTools([...fixtureTools, MCP_EXEC]), tool_choice: "none" }, { json: completion(EXEC_LEAK) });
    expect(out.calls).toEqual([]);
  });

  test("Anthropic Messages: a client tool execute_command that denyTools removes does not run as bash", async () => {
    const tools = [...fixtureTools, MCP_EXEC].map((t) => ({ name: t.name, input_schema: t.parameters }));
    expect(await anthropicCalls(tools, EXEC_LEAK, DENY_EXEC)).toEqual([]);
    expect(await anthropicCalls(tools, EXEC_LEAK)).toEqual(["execute_command"]);
  });

  test("Anthropic Messages: a typed (server) tool named execute_command is declared too: no alias stands for it", async () => {
    const tools = [...fixtureTools.map((t) => ({ name: t.name, input_schema: t.parameters })), { type: "sandbox_exec_20250101", name: "execute_command" }];
    expect(await anthropicCalls(tools, EXEC_LEAK)).toEqual([]);
    // Control: without it, the alias runs as bash.
    expect(await anthropicCalls(tools.slice(0, -1), EXEC_LEAK)).toEqual(["bash"]);
  });

  test("middleware: a provider tool named execute_command is declared too", async () => {
    const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "Deploy it." }] }];
    const provider = { type: "provider" as const, id: "sandbox.execute_command" as const, name: "execute_command", args: {} };
    const run = await throughMiddleware(prompt, textStream(EXEC_LEAK), {}, { tools: [...sdkTools(fixtureTools), provider] });
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(EXEC_LEAK);
    const control = await throughMiddleware(prompt, textStream(EXEC_LEAK), {}, { tools: sdkTools(fixtureTools) });
    expect(control.calls.map((c) => c.toolName)).toEqual(["bash"]);
  });
});

describe("denyTools matches the name the model wrote; allowTools the declared tool only", () => {
  const run = async (reply: string, responseFix: AdapterOptions["responseFix"]) => {
    const { out, results } = await throughFetch({ messages: USER, tools: openAiTools(fixtureTools) }, { json: completion(reply) }, { responseFix });
    return { calls: out.calls.map((c) => c.name), content: out.content, broken: brokenOf(results) };
  };

  test('denyTools ["Bash"]: the Bash call stays text with the undeclared-tool nudge; a call written to bash still runs', async () => {
    expect(await run(BASH_LEAK("Bash"), { denyTools: ["Bash"] })).toEqual({ calls: [], content: BASH_LEAK("Bash"), broken: [["undeclared-tool", "Bash"]] });
    expect((await run(BASH_LEAK("bash"), { denyTools: ["Bash"] })).calls).toEqual(["bash"]);
  });

  test('a pattern matches the written name too: denyTools ["B*"] stops Bash, ["*_command"] stops execute_command', async () => {
    expect((await run(BASH_LEAK("Bash"), { denyTools: ["B*"] })).calls).toEqual([]);
    expect((await run(EXEC_LEAK, { denyTools: ["*_command"] })).calls).toEqual([]);
    // Control: a pattern matching neither name leaves the alias alone.
    expect((await run(EXEC_LEAK, { denyTools: ["*_file"] })).calls).toEqual(["bash"]);
  });

  test('allowTools ["bash"]: a Bash call runs as bash (the allow list names declared tools, unchanged)', async () => {
    expect((await run(BASH_LEAK("Bash"), { allowTools: ["bash"] })).calls).toEqual(["bash"]);
    // Listing only the written name allows nothing: Bash is no declared tool.
    expect((await run(BASH_LEAK("Bash"), { allowTools: ["Bash"] })).calls).toEqual([]);
  });
});

describe("what the engine is told", () => {
  test("declaredToolNames: function, custom and named server tools on every wire's shape; junk skipped", () => {
    const body = {
      tools: [
        { type: "function", function: { name: "bash", parameters: {} } },
        { type: "custom", custom: { name: "execute_command" } },
        { type: "function", name: "read" },
        { type: "custom", name: "read_file" },
        { type: "web_search_20250305", name: "web_search" },
        { type: "web_search" },
        null,
        "write",
        { name: "" },
        { name: 7 },
        { type: "function", name: "bash" },
      ],
    };
    expect(declaredToolNames(body)).toEqual(["bash", "execute_command", "read", "read_file", "web_search"]);
    expect(declaredToolNames({ tools: "x" })).toEqual([]);
    expect(declaredToolNames({})).toEqual([]);
  });

  test("reservedNames: every declared name, plus each alias name denyTools matches", () => {
    expect(reservedNames({}, ["bash", "execute_command"])).toEqual(["bash", "execute_command"]);
    expect(reservedNames({ responseFix: { denyTools: ["Bash", "read_*"] } }, ["bash"])).toEqual(["bash", "Bash", "read_file"]);
    // allowTools reserves nothing: it is matched against declared tools only.
    expect(reservedNames({ responseFix: { allowTools: ["bash"] } }, ["bash"])).toEqual(["bash"]);
  });

  test("engineOptions: the tools narrowed by policy, the names reserved from before it", () => {
    const out = engineOptions({ responseFix: { denyTools: ["execute_command"] } }, [...fixtureTools, MCP_EXEC], ["execute_command", "custom_one"]);
    expect(out.tools.map((t) => t.name)).not.toContain("execute_command");
    expect(out.reservedNames).toEqual(expect.arrayContaining(["execute_command", "custom_one", "bash"]));
  });
});

async function anthropicCalls(tools: Json[], text: string, options: AdapterOptions = {}): Promise<string[]> {
  const reply = { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } };
  const base = (async () => new Response(JSON.stringify(reply), { status: 200, headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
  const res = await repairFetch(options, base)("http://model.test/v1/messages", postInit({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "Deploy it." }], tools }));
  const out = (await res.json()) as Json;
  return (out.content as Json[]).filter((block) => block.type === "tool_use").map((block) => block.name as string);
}
