/**
 * Review 57, rules (hostile, tests only): round 56's hosted sandboxes (src/adapters/middleware/
 * call-options.ts hostedSandbox, src/wires/declared-names.ts hostedCode) and costume names after a
 * namespace (src/parse/aliases.ts namedAfterNamespace, src/parse/costume.ts addressedElsewhere).
 *
 * Tried and found clean (no failing test): the middleware's `anthropic.code_execution_20250825`,
 * `google.code_execution`, `openai.shell` with a container environment (any `container…` type);
 * a `code_execution_20250825` tool on the Anthropic, Responses and chat wires; a declared
 * `sandbox_python`, `sandbox__python`, `jupyter.python`. Not pinned: a Responses `shell` whose
 * `environment` is a bare string (`"container_auto"`; not a shape OpenAI documents) runs costumes
 * as bash; a name with a Unicode separator (`jupyter\uFF0Epython`, `sandbox\u00B7python`) does too.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3ProviderTool, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { outcome } from "../support/outcome.ts";
import { fixtureTools } from "../golden/tools.ts";
import { leak } from "./review-55-request-support.ts";
import { runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

const PYTHON = "Checking the data in the sandbox.\n<python>\nimport os\nprint(os.listdir('/mnt/data'))\n</python>";
const SHELL = "Listing it.\n<shell>\nls -lah /mnt/data && python --version\n</shell>";
const BASH_COSTUME = "<bash>\nls -la\n</bash>";

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

// @ai-sdk/xai: `xai.tools.codeExecution()` (vercel/ai packages/xai/src/tool/code-execution.ts,
// id 'xai.code_execution'), Grok's server-side Python sandbox, as `google.code_execution` is Gemini's.
const XAI = provider("xai.code_execution", "code_execution");

describe("finding 1: the middleware's xai.code_execution is no hosted sandbox", () => {
  // FINDING (wrong execution). call-options.ts hostedSandbox knows `openai.code_interpreter`,
  // `anthropic.code_execution_*`, `google.code_execution` and `openai.shell` in a container, but
  // not xAI's `xai.code_execution` (@ai-sdk/xai's server-side code execution: xAI runs the Python).
  // Only its own name `code_execution` is reserved, so a `<python>` or `<shell>` costume Grok
  // writes for its sandbox runs as the local bash, on the user's machine.
  // Minimal input: tools [bash, provider xai.code_execution]; text `<python>\nprint(1)\n</python>`
  //   -> bash runs.
  // Suspected: src/adapters/middleware/call-options.ts hostedSandbox.
  // Expected: UNSPELLED_TOOLS for it, as for `google.code_execution`: no call.
  // Fixed: hostedSandbox reads the tool type after the provider's prefix: any provider's
  // `code_interpreter`, `code_execution` or `code_execution_<version>` (xAI's, Gemini's,
  // Anthropic's, OpenAI's, and one a provider adds under the same type) is a hosted sandbox.
  test("a <python> costume does not run as the local bash", async () => {
    expect(await sdkCalls(PYTHON, [BASH, XAI])).toEqual([]);
  });
  test("a <shell> costume does not run as the local bash", async () => {
    expect(await sdkCalls(SHELL, [BASH, XAI])).toEqual([]);
  });
  test("an execute_command alias does not run as the local bash", async () => {
    expect(await sdkCalls(leak("execute_command", { command: "ls /mnt/data" }), [BASH, XAI])).toEqual([]);
  });

  describe("hard negatives (pass on main)", () => {
    test("beside it the declared bash and the runner's own <bash> still run", async () => {
      expect(await sdkCalls(BASH_COSTUME, [BASH, XAI])).toEqual(["bash"]);
      expect(await sdkCalls(leak("bash"), [BASH, XAI])).toEqual(["bash"]);
    });
    test("google.code_execution (round 56) refuses the same <python>; with no provider tool it runs as bash", async () => {
      expect(await sdkCalls(PYTHON, [BASH, provider("google.code_execution", "code_execution")])).toEqual([]);
      expect(await sdkCalls(PYTHON, [BASH])).toEqual(["bash"]);
    });
    test("another xAI provider tool (web search) takes nothing from bash", async () => {
      expect(await sdkCalls(PYTHON, [BASH, provider("xai.web_search", "web_search")])).toEqual(["bash"]);
    });
    test("the caller's own shell (openai.local_shell, openai.shell run locally) and a tool merely named like a sandbox take nothing", async () => {
      for (const tool of [provider("openai.local_shell", "local_shell"), provider("openai.shell", "shell", { environment: { type: "local" } }), provider("xai.code_search", "code_search"), provider("acme.run_code_execution", "x")]) {
        expect(await sdkCalls(PYTHON, [BASH, tool])).toEqual(["bash"]);
      }
    });
  });
  describe("hard negatives (added with the fix)", () => {
    test("the same type under another provider or a later version is a hosted sandbox too", async () => {
      for (const id of ["azure.code_interpreter", "vertex.code_execution", "anthropic.code_execution_20260120", "xai.code_execution"] as const) {
        expect(await sdkCalls(PYTHON, [BASH, provider(id, "code")])).toEqual([]);
        // The runner's own <bash> and the declared bash still run beside it.
        expect(await sdkCalls(BASH_COSTUME, [BASH, provider(id, "code")])).toEqual(["bash"]);
      }
    });
  });
});

describe("finding 2: a declared camelCase sandbox (`sandboxPython`, `executePython`, `runPython`) does not stop <python>", () => {
  // FINDING (wrong execution). Round 56 made a code costume named after a declared tool's name
  // past a namespace separator that tool's (`<python>` beside `sandbox_python`, `jupyter.python`,
  // a declared `execute_python`): the model drops the host's prefix, so the code is meant for that
  // sandbox and never runs as the local bash. namedAfterNamespace only knows `_ . - / :`; a
  // camelCase name (MCP servers and JS hosts name tools so: `executePython`, `runPython`) is no
  // namespace to it, so the same `<python>` runs as bash on the user's machine.
  // Minimal input: tools [...fixture, executePython {code}]; text `<python>\nprint(1)\n</python>`
  //   -> bash {command: python3 …} runs.
  // Suspected: src/parse/aliases.ts namedAfterNamespace (and so costume.ts addressedElsewhere).
  // Expected: a declared name whose last camelCase word is the costume's name (`…Python`,
  // compared ignoring case at a lower-to-upper boundary) takes the costume as `sandbox_python`
  // does: no bash call (the costume is refused).
  // Fixed: aliases.ts namedAfterNamespace (the one rule for aliases and costume names) also reads
  // `<namespace><Bare>`: each `_`-separated word of the bare name capitalised, after a lower-case
  // letter or digit (or the whole name, for two words or more: `readFile`); a costume name is
  // compared ignoring case but for that upper-case letter. So `sandboxPython` carries `python`,
  // `serverExecuteCommand` carries the alias `execute_command`; `CPython`, `pythonic` do not.
  const code = { type: "object", properties: { code: { type: "string" } }, required: ["code"] };
  const withTool = (name: string) => [...fixtureTools, { name, parameters: code }];
  for (const name of ["sandboxPython", "executePython", "runPython"]) {
    test(`declared ${name}: <python> never runs as bash`, () => {
      expect(outcome(PYTHON, withTool(name) as never).calls.map((c) => c.tool)).not.toContain("bash");
    });
  }
  describe("hard negatives (pass on main)", () => {
    test("declared sandbox_python (round 56) takes <python>", () => {
      expect(outcome(PYTHON, withTool("sandbox_python") as never).calls).toEqual([]);
    });
    // Diff review 57a (the lead's decision): `pythonVersion` holds the word `python`, so it takes `<python>` now (golden D57.7); `pythonicVersion` does not.
    test("an unrelated camelCase tool (runTests, pythonicVersion) leaves <python> to bash", () => {
      for (const name of ["runTests", "pythonicVersion"]) expect(outcome(PYTHON, withTool(name) as never).calls.map((c) => c.tool)).toEqual(["bash"]);
    });
    test("a name that only ends in the letters (`cpython`, `mypython`) is no namespace", () => {
      for (const name of ["cpython", "mypython"]) expect(outcome(PYTHON, withTool(name) as never).calls.map((c) => c.tool)).toEqual(["bash"]);
    });
  });
  describe("hard negatives (added with the fix)", () => {
    const bashOf = (input: string, tools: unknown[]) => outcome(input, tools as never).calls.map((c) => c.tool);
    const hermes = (name: string) => `<tool_call>\n{"name": "${name}", "arguments": {"command": "ls"}}\n</tool_call>`;
    const command = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
    // Diff review 57a: `PythonRunner` holds the word `python` (first) and takes `<python>` now (diff-review-57a.test.ts).
    test("<python> with no such tool still runs; `pythonic`, `typhon`, `CPython`, `PythonicRunner`, `sandboxPythonic` take nothing", () => {
      expect(bashOf(PYTHON, fixtureTools)).toEqual(["bash"]);
      for (const name of ["pythonic", "typhon", "CPython", "runCPython", "PythonicRunner", "sandboxPythonic", "sandbox_Pythonx"]) expect(bashOf(PYTHON, withTool(name))).toEqual(["bash"]);
    });
    test("camelCase words of a two-word costume name: `<execute_ipython>` beside `jupyterExecuteIPython`, `<code_interpreter>` beside `e2bCodeInterpreter`", () => {
      expect(bashOf("<execute_ipython>\nprint(1)\n</execute_ipython>", withTool("jupyterExecuteIPython"))).toEqual([]);
      expect(bashOf('<code_interpreter lang="python">\nprint(2)\n</code_interpreter>', withTool("e2bCodeInterpreter"))).toEqual([]);
      // `sandbox2Python`: after a digit too.
      expect(bashOf(PYTHON, withTool("sandbox2Python"))).toEqual([]);
    });
    test("the alias rule reads the same boundary: `serverExecuteCommand` and `ExecuteCommand` stop execute_command; `serverexecutecommand` does not", () => {
      for (const name of ["serverExecuteCommand", "ExecuteCommand", "executeCommand"]) {
        expect(bashOf(hermes("execute_command"), [...fixtureTools, { name, parameters: command }])).toEqual([]);
      }
      for (const name of ["serverexecutecommand", "serverExecutecommand", "EXECUTE_COMMAND"]) {
        expect(bashOf(hermes("execute_command"), [...fixtureTools, { name, parameters: command }])).toEqual(["bash"]);
      }
    });
    test("camelCase names are read in work linear in the number of declared and reserved tools", () => {
      const work = (n: number) => {
        const tools = [...fixtureTools, ...Array.from({ length: n }, (_, i) => ({ name: `server${i}ExecuteIpytho${i % 10}`, parameters: code }))];
        const reservedNames = tools.map((t) => `denied${t.name}ExecuteComman${t.name.length % 10}`);
        return countWork(() => void runEngine("<execute_ipython>\nprint(1)\n</execute_ipython>", [], tools as never, { reservedNames }));
      };
      const small = work(500);
      const large = work(5000);
      expect(large).toBeLessThan(small * 10 * 1.5 + 1000);
    });
    test("`bash` itself is unchanged: the alias `Bash` still runs beside the declared bash, `<bash>` beside `sandboxBash`", () => {
      expect(bashOf(hermes("Bash"), fixtureTools)).toEqual(["bash"]);
      expect(bashOf("<bash>\nls -la\n</bash>", withTool("sandboxBash"))).toEqual(["bash"]);
    });
  });
});
