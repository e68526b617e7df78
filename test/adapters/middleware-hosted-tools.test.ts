/**
 * Diff review 55a's fixer left it, the lead fixed it: the middleware reserved only a provider
 * tool's own name, while the fetch route reads the same request's hosted tools
 * (src/wires/declared-names.ts). An `openai.mcp` provider tool without allowed tools, an
 * Anthropic MCP server in the provider options without a tool list, or a hosted code sandbox
 * (`openai.code_interpreter`, `anthropic.code_execution_*`) left every alias and costume open, so a
 * leaked `execute_command` or a `<python>` written for the hosted tool ran as the local bash.
 * Now src/adapters/middleware/call-options.ts declaredToolNames reads them as the fetch route does:
 * listed tools are reserved, unlisted ones reserve every alias and costume but `<bash>`.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3ProviderTool, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const BASH: LanguageModelV3FunctionTool = { type: "function", name: "bash", inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
const provider = (id: `${string}.${string}`, name: string, args: Record<string, unknown> = {}): LanguageModelV3ProviderTool => ({ type: "provider", id, name, args });
const EXEC = `ok <tool_call>${JSON.stringify({ name: "execute_command", arguments: { command: "ls" } })}</tool_call>`;
const PYTHON = "<python>\nprint(1)\n</python>";
const BASH_COSTUME = "<bash>\nls -la\n</bash>";

/** The tool names the middleware's generate path recovers from `text` under these call options. */
async function calls(text: string, extra: Partial<LanguageModelV3CallOptions>): Promise<string[]> {
  const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
  const result = await model.doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], ...extra } as LanguageModelV3CallOptions);
  return result.content.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : []));
}

describe("hosted tools the middleware's call declares", () => {
  test("an `openai.mcp` tool without allowed tools: no alias, no `<python>` costume", async () => {
    const tools = [BASH, provider("openai.mcp", "mcp", { serverLabel: "remote", serverUrl: "https://mcp.example" })];
    expect(await calls(EXEC, { tools })).toEqual([]);
    expect(await calls(PYTHON, { tools })).toEqual([]);
  });

  test("an `openai.mcp` tool listing execute_command reserves it; listing another leaves the alias open", async () => {
    expect(await calls(EXEC, { tools: [BASH, provider("openai.mcp", "mcp", { serverLabel: "remote", allowedTools: ["execute_command"] })] })).toEqual([]);
    expect(await calls(EXEC, { tools: [BASH, provider("openai.mcp", "mcp", { serverLabel: "remote", allowedTools: { toolNames: ["execute_command"] } })] })).toEqual([]);
    expect(await calls(EXEC, { tools: [BASH, provider("openai.mcp", "mcp", { serverLabel: "remote", allowedTools: ["fetch_url"] })] })).toEqual(["bash"]);
  });

  test("a hosted code sandbox: a `<python>` costume does not run as bash; `<bash>` and the declared bash still do", async () => {
    for (const sandbox of [provider("openai.code_interpreter", "code_interpreter"), provider("anthropic.code_execution_20250825", "code_execution")]) {
      const tools = [BASH, sandbox];
      expect(await calls(PYTHON, { tools })).toEqual([]);
      expect(await calls(BASH_COSTUME, { tools })).toEqual(["bash"]);
      expect(await calls(`ok <tool_call>${JSON.stringify({ name: "bash", arguments: { command: "ls" } })}</tool_call>`, { tools })).toEqual(["bash"]);
    }
  });

  test("an Anthropic MCP server in the provider options: unlisted reserves every alias, listed only its names, off none", async () => {
    const withServer = (toolConfiguration?: Record<string, string[] | boolean>): Partial<LanguageModelV3CallOptions> => ({ tools: [BASH], providerOptions: { anthropic: { mcpServers: [{ type: "url", name: "remote", url: "https://mcp.example", ...(toolConfiguration ? { toolConfiguration } : {}) }] } } });
    expect(await calls(EXEC, withServer())).toEqual([]);
    expect(await calls(EXEC, withServer({ allowedTools: ["execute_command"] }))).toEqual([]);
    expect(await calls(EXEC, withServer({ allowedTools: ["fetch_url"] }))).toEqual(["bash"]);
    expect(await calls(EXEC, withServer({ enabled: false }))).toEqual(["bash"]);
  });

  test("hard negative: no hosted tool, the alias and the `<python>` costume run as bash", async () => {
    expect(await calls(EXEC, { tools: [BASH] })).toEqual(["bash"]);
    expect(await calls(PYTHON, { tools: [BASH] })).toEqual(["bash"]);
  });
});
