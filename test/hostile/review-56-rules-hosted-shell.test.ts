/**
 * Review 56 (hostile, tests only): round 55's UNSPELLED_TOOLS (src/options/engine.ts) makes a
 * hosted code sandbox (Responses `code_interpreter`, Anthropic `code_execution_*`; in the AI SDK
 * middleware `openai.code_interpreter`, `anthropic.code_execution_*`) reserve every alias and
 * costume name but `<bash>`, so code the model writes for the server's sandbox never runs on the
 * user's machine. Two hosted sandboxes are still missed: the Responses `shell` tool run in an
 * OpenAI container (`environment: {type: "container_auto"}` or `container_reference`), and in the
 * middleware its provider tool `openai.shell` with a container environment and Gemini's
 * `google.code_execution`.
 *
 * Tried and found clean (no failing test): Responses `mcp` `allowed_tools` as `{tool_names: null}`
 * (unlisted), `[]` and `{read_only: true, tool_names: []}` (no tool of that server given: the alias
 * stays on); Anthropic `mcp_toolset` with `default_config.enabled: false` and only another tool
 * enabled (alias on), a toolset for another server (the unlisted server still reserves),
 * `tool_configuration: {enabled: true}` or `allowed_tools: null` (reserves); middleware `openai.mcp`
 * `allowedTools` as `{readOnly: true}`, a string, null (reserves); a chat `tools` entry of type
 * `mcp` (reserves). A local shell (`{type: "shell"}` without a container, `local_shell`) is the
 * client's own shell: not pinned either way.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3ProviderTool, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { fn, leak, names, requestBody, run } from "./review-55-request-support.ts";

const PYTHON = "Checking the data in the container.\n<python>\nimport os\nprint(os.listdir('/mnt/data'))\n</python>";
const SHELL = "Listing it.\n<shell>\nls -lah /mnt/data && python --version\n</shell>";
const BASH_COSTUME = "<bash>\nls -la\n</bash>";
const EXEC = leak("execute_command", { command: "ls /mnt/data" });

const HOSTED_SHELLS = [
  { type: "shell", environment: { type: "container_auto" } },
  { type: "shell", environment: { type: "container_reference", container_id: "cntr_1" } },
];

describe("Responses: a hosted `shell` tool (an OpenAI container) is a hosted code sandbox", () => {
  // FINDING (wrong execution). OpenAI's Responses `shell` tool runs either in the client's runtime
  // or, with `environment: {type: "container_auto"}` (or `container_reference`), in a container
  // OpenAI provisions: a hosted sandbox exactly as `code_interpreter` is (its quickstart:
  // "Execute: ls -lah /mnt/data && python --version"). The tool carries no name, so nothing is
  // reserved: a `<shell>` or `<python>` costume, or a Hermes `execute_command`, the model writes
  // for that container runs as the local bash, on the user's machine, against their files.
  // Minimal input: Responses tools [bash, {type: "shell", environment: {type: "container_auto"}}];
  //   reply `<shell>\nls -lah /mnt/data\n</shell>` -> bash {command: "ls -lah /mnt/data"}.
  // Suspected: src/wires/declared-names.ts hostedCode (only `code_interpreter` and
  // `code_execution_*`).
  // Expected: a `shell` tool whose environment is a container reserves every alias and costume
  // name but `<bash>` (UNSPELLED_TOOLS), as `code_interpreter` does: no call for them.
  // Fixed: src/wires/declared-names.ts hostedCode reads a `shell` tool whose `environment.type`
  // is a container (`container_auto`, `container_reference`, OpenAI's documented hosted types) as
  // a hosted sandbox: every alias and costume name but `<bash>` is reserved. A `shell` with no
  // environment or a `local` one, and `local_shell`, are the client's own shell: unchanged.
  test("a <shell> costume does not run as the local bash", async () => {
    for (const hosted of HOSTED_SHELLS) {
      expect(names((await run("responses", requestBody("responses", [fn("responses", "bash"), hosted]), SHELL)).calls)).toEqual([]);
    }
  });

  test("a <python> costume does not run as the local bash", async () => {
    for (const hosted of HOSTED_SHELLS) {
      expect(names((await run("responses", requestBody("responses", [fn("responses", "bash"), hosted]), PYTHON)).calls)).toEqual([]);
    }
  });

  test("an execute_command alias does not run as the local bash", async () => {
    for (const hosted of HOSTED_SHELLS) {
      expect(names((await run("responses", requestBody("responses", [fn("responses", "bash"), hosted]), EXEC)).calls)).toEqual([]);
    }
  });

  describe("hard negatives (pass on main)", () => {
    test("beside a hosted shell, the declared bash and the runner's own <bash> still run", async () => {
      for (const hosted of HOSTED_SHELLS) {
        const body = requestBody("responses", [fn("responses", "bash"), hosted]);
        expect(names((await run("responses", body, BASH_COSTUME)).calls)).toEqual(["bash"]);
        expect(names((await run("responses", body, leak("bash"))).calls)).toEqual(["bash"]);
      }
    });

    test("`code_interpreter` already reserves the costumes (round 55)", async () => {
      const body = requestBody("responses", [fn("responses", "bash"), { type: "code_interpreter", container: { type: "auto" } }]);
      expect(names((await run("responses", body, PYTHON)).calls)).toEqual([]);
      expect(names((await run("responses", body, SHELL)).calls)).toEqual([]);
    });

    test("with no hosted tool the costumes run as bash", async () => {
      const body = requestBody("responses", [fn("responses", "bash")]);
      expect(names((await run("responses", body, PYTHON)).calls)).toEqual(["bash"]);
      expect(names((await run("responses", body, SHELL)).calls)).toEqual(["bash"]);
    });

    test("the client's own shell (`shell` with no or a local environment, `local_shell`) reserves nothing: the costumes and the alias run as bash, as before", async () => {
      for (const local of [{ type: "shell" }, { type: "shell", environment: { type: "local" } }, { type: "local_shell" }]) {
        const body = requestBody("responses", [fn("responses", "bash"), local]);
        expect(names((await run("responses", body, PYTHON)).calls)).toEqual(["bash"]);
        expect(names((await run("responses", body, SHELL)).calls)).toEqual(["bash"]);
        expect(names((await run("responses", body, EXEC)).calls)).toEqual(["bash"]);
      }
    });
  });
});

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const BASH: LanguageModelV3FunctionTool = { type: "function", name: "bash", inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
const provider = (id: `${string}.${string}`, name: string, args: Record<string, unknown> = {}): LanguageModelV3ProviderTool => ({ type: "provider", id, name, args });

/** The tool names the middleware's generate path recovers from `text` under these tools. */
async function sdkCalls(text: string, tools: LanguageModelV3CallOptions["tools"]): Promise<string[]> {
  const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
  const result = await model.doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools } as LanguageModelV3CallOptions);
  return result.content.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : []));
}

const SDK_SANDBOXES: [string, LanguageModelV3ProviderTool][] = [
  // @ai-sdk/openai: `openai.tools.shell({environment: {type: "containerAuto"}})`, provider-executed.
  ["openai.shell containerAuto", provider("openai.shell", "shell", { environment: { type: "containerAuto" } })],
  ["openai.shell containerReference", provider("openai.shell", "shell", { environment: { type: "containerReference", containerId: "cntr_1" } })],
  // @ai-sdk/google: `google.tools.codeExecution({})`, Gemini's hosted Python sandbox.
  ["google.code_execution", provider("google.code_execution", "code_execution")],
];

describe("AI SDK middleware: the same hosted sandboxes as provider tools", () => {
  // FINDING (wrong execution). The middleware reads `openai.code_interpreter` and
  // `anthropic.code_execution_*` as hosted sandboxes (call-options.ts declaredToolNames), but not
  // `openai.shell` with a container environment (the provider executes it: @ai-sdk/openai
  // isShellProviderExecuted) nor `google.code_execution` (Gemini runs the code). Their own names
  // (`shell`, `code_execution`) are reserved, so `<shell>` is refused, but a `<python>` costume
  // written for the hosted sandbox runs as the local bash.
  // Minimal input: tools [bash, provider openai.shell {environment: {type: "containerAuto"}}];
  //   text `<python>\nprint(1)\n</python>` -> bash.
  // Suspected: src/adapters/middleware/call-options.ts declaredToolNames.
  // Expected: UNSPELLED_TOOLS for them, as for `openai.code_interpreter`: no call.
  // Fixed: call-options.ts hostedSandbox reads `google.code_execution` and `openai.shell` with a
  // container environment (`containerAuto`, `containerReference`: @ai-sdk/openai's spelling, the
  // ones it has the provider execute) as hosted sandboxes. `openai.shell` with no environment or a
  // `local` one and `openai.local_shell` are the caller's own shell: only their names are reserved.
  for (const [label, sandbox] of SDK_SANDBOXES) {
    test(`${label}: a <python> costume does not run as the local bash`, async () => {
      expect(await sdkCalls(PYTHON, [BASH, sandbox])).toEqual([]);
    });
  }

  describe("hard negatives (pass on main)", () => {
    test("the declared bash and <bash> still run beside each; `openai.code_interpreter` already refuses <python>", async () => {
      for (const [, sandbox] of SDK_SANDBOXES) {
        expect(await sdkCalls(BASH_COSTUME, [BASH, sandbox])).toEqual(["bash"]);
        expect(await sdkCalls(leak("bash"), [BASH, sandbox])).toEqual(["bash"]);
      }
      expect(await sdkCalls(PYTHON, [BASH, provider("openai.code_interpreter", "code_interpreter")])).toEqual([]);
    });

    test("the provider tool's own name is reserved: `<shell>` beside openai.shell is not bash's", async () => {
      expect(await sdkCalls(SHELL, [BASH, SDK_SANDBOXES[0]![1]])).toEqual([]);
    });

    test("the caller's own shell (openai.shell local or without environment, openai.local_shell): <python> still runs as bash", async () => {
      for (const local of [provider("openai.shell", "shell"), provider("openai.shell", "shell", { environment: { type: "local" } }), provider("openai.local_shell", "local_shell")]) {
        expect(await sdkCalls(PYTHON, [BASH, local])).toEqual(["bash"]);
        expect(await sdkCalls(EXEC, [BASH, local])).toEqual(["bash"]);
      }
    });
  });
});
