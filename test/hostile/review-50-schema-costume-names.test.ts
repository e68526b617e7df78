/**
 * Review 50 (hostile, tests only): the trust gate between a parsed call and an executed one, seen
 * from the tool NAME side. Review 42 found that another agent's name for a tool (`execute_command`,
 * `Bash`) re-targeted a call the model wrote to a declared, denied or not-offered tool onto the local
 * one; the fix (EngineOptions.reservedNames, src/options/engine.ts) covers the alias table only. The
 * code costumes are the same kind of name mapping (`<python>`, `<execute_ipython>`,
 * `<code_interpreter>`, `<tool_call><tool_name>execute</tool_name>`... all run as `bash`), and they
 * never look at what the request declared or what denyTools names.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { parse } from "../../src/engine/parse.ts";
import { server } from "../../src/plugin/index.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { assemble, completion, openAiTools, sdkTools, textStream, throughFetch, throughMiddleware, type Json } from "../security/support.ts";
import { runAtEverySplit } from "../support/run-engine.ts";
import { leakScope } from "../support/wire-leak.ts";

/** An MCP sandbox (a Jupyter kernel, a container, a remote host) declared under a costume's name. */
const sandbox = (name: string): ToolSpec => ({ name, parameters: { type: "object", properties: { code: { type: "string" } }, required: ["code"] } });
const CODE = 'import shutil; shutil.rmtree("build")';
const ELEMENT = (tag: string) => `Running it in the sandbox:\n<${tag}>\n${CODE}\n</${tag}>`;
const XML_EXECUTE = (tool: string) => `Running it in the sandbox:\n<tool_call><tool_name>${tool}</tool_name><tool_args><language>python</language><code>${CODE}</code></tool_args></tool_call>`;
const INTERPRETER = `Running it in the sandbox:\n<code_interpreter lang="python">\n${CODE}\n</code_interpreter>`;
const USER: Json[] = [{ role: "user", content: "Clean the build in the sandbox." }];
const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "Clean the build in the sandbox." }] }];

const ranAs = (reply: string, tools: ToolSpec[]) => parse(reply, tools).calls.map((c) => c.tool);

async function chat(tools: readonly ToolSpec[], reply: string, options = {}) {
  const { out } = await throughFetch({ messages: USER, tools: openAiTools(tools) }, { json: completion(reply) }, options);
  return out.calls.map((c) => c.name);
}

describe("a code costume named after a tool the request declares runs as the local bash", () => {
  // Severity: wrong execution (high). The request declares its own `python` (or `execute_ipython`,
  // `code_interpreter`, `execute`, `execute_code`...) tool, say an MCP sandbox; the model writes
  // its code in that tool's name: `<python>\ncode\n</python>`, or the XML execute costume naming
  // `execute`. The costume reader maps the name onto `bash` (python3 heredoc) without asking
  // whether the name is a declared tool, so the code the model addressed to the sandbox runs on
  // the user's machine. The alias table has exactly this guard (a declared name is never an
  // alias: EngineOptions.reservedNames, docs/PATTERNS.md "Another agent's tool names"); the
  // costume names have none. Minimal input: tools [bash, python{code}], reply
  // "<python>\nprint(1)\n</python>" -> bash {command: "python3 - <<'PYEOF'\nprint(1)\nPYEOF"}.
  // Suspected: src/parse/costume.ts codeCall() (`ctx.tools.get("bash")` for any costume name),
  // src/parse/tool-element.ts costumeAsToolElement() (sees the declared tool, but hands a code
  // body back to the costume reader), src/parse/costume-xml.ts runsCode()/xmlToolCall().
  // Expected: a costume whose name is a declared tool (or a reserved name) is that tool's call or
  // nothing (a nudge naming it), never bash's.
  // Fixed: src/parse/costume.ts codeCall() asks addressedElsewhere() first: a costume whose written
  // name (the tag's, or the `<tool_call>` costume's tool name), compared case-insensitively, is a
  // declared tool's is refused as broken markup naming that tool (text kept), unless the element
  // reader (costumeAsToolElement) or the JSON-args reader already read it as that tool's own call;
  // the runner's own name (`<bash>`) still names bash.
  for (const [name, reply] of [
    ["<python>", ELEMENT("python")],
    ["<execute_ipython>", ELEMENT("execute_ipython")],
    ["<code_interpreter lang>", INTERPRETER],
  ] as const) {
    const tool = name.slice(1).split(/[ >]/)[0]!;
    test(`parse(): ${name} with a declared ${tool} tool does not run as bash`, () => {
      expect(ranAs(reply, [...fixtureTools, sandbox(tool)])).not.toContain("bash");
    });
  }

  for (const tool of ["execute", "execute_code", "code_interpreter"]) {
    test(`parse(): the XML execute costume naming the declared ${tool} does not run as bash`, () => {
      expect(ranAs(XML_EXECUTE(tool), [...fixtureTools, sandbox(tool)])).not.toContain("bash");
    });
  }

  test("streaming, char by char and at random splits: the same", () => {
    expect(runAtEverySplit(ELEMENT("python"), [...fixtureTools, sandbox("python")]).calls.map((c) => c.tool)).not.toContain("bash");
  });

  test("chat completions through the fetch adapter: the same", async () => {
    expect(await chat([...fixtureTools, sandbox("python")], ELEMENT("python"))).not.toContain("bash");
  });

  test("AI SDK middleware: the same", async () => {
    const run = await throughMiddleware(prompt, textStream(ELEMENT("python")), {}, { tools: sdkTools([...fixtureTools, sandbox("python")]) });
    expect(run.calls.map((c) => c.toolName)).not.toContain("bash");
  });

  test("hard negative (passes today): with no such tool declared, <python> runs as bash (C04 policy)", () => {
    expect(ranAs(ELEMENT("python"), fixtureTools)).toEqual(["bash"]);
  });

  test("hard negative (passes today): the declared tool's own element form runs as that tool", () => {
    const reply = `Running it in the sandbox:\n<python>\n<code>print(1)</code>\n</python>`;
    expect(parse(reply, [...fixtureTools, sandbox("python")]).calls.map((c) => [c.tool, c.input])).toEqual([["python", { code: "print(1)" }]]);
  });
});

describe("a denied or not-offered tool is reached through its costume", () => {
  // Severity: wrong execution (high). Same root as above, through policy: the user denies the
  // sandbox tool (`denyTools: ["python"]`), recoverableTools() removes it, and the costume the
  // model wrote for it runs as the local bash. docs/CONFIGURATION.md: denyTools is "matched
  // against the name the model wrote as well as the tool the call would run as ... denying a
  // declared `execute_command` (or `["read_*"]`) never lets its calls run as `bash`". Expected:
  // no call (the undeclared-tool nudge a denied tool gets). Suspected: as above, plus
  // src/options/engine.ts reservedNames() (reserves declared names and TOOL_ALIASES names only).
  // Fixed: the costume reader asks the reserved names too (every declared name, so a denied or
  // not-offered sandbox's costume is an undeclared-tool nudge naming it), and reservedNames() now
  // reserves every code costume name denyTools matches, in any case (grammar/dialects.ts codeCostumeNames).
  test("chat: denyTools [python] with a declared python sandbox: <python> does not run as bash", async () => {
    expect(await chat([...fixtureTools, sandbox("python")], ELEMENT("python"), { responseFix: { denyTools: ["python"] } })).toEqual([]);
  });

  test("chat: denyTools [execute] with a declared execute sandbox: the XML execute costume does not run as bash", async () => {
    expect(await chat([...fixtureTools, sandbox("execute")], XML_EXECUTE("execute"), { responseFix: { denyTools: ["execute"] } })).toEqual([]);
  });

  test("middleware: denyTools [python] holds there too", async () => {
    const run = await throughMiddleware(prompt, textStream(ELEMENT("python")), { responseFix: { denyTools: ["python"] } }, { tools: sdkTools([...fixtureTools, sandbox("python")]) });
    expect(run.calls).toEqual([]);
  });

  // Severity: wrong execution (medium; debatable, as review 42's `denyTools: ["Bash"]`, which was
  // fixed: "denying the name a call is written with stops it too"). No sandbox declared; the user
  // writes the name of the thing they do not want run. The costume runs as bash anyway.
  // Fixed: as above (reservedNames() reserves the costume names denyTools matches).
  for (const [deny, reply] of [
    ["python", ELEMENT("python")],
    ["execute_ipython", ELEMENT("execute_ipython")],
    ["code_interpreter", INTERPRETER],
    ["execute", XML_EXECUTE("execute")],
  ] as const) {
    test(`chat: denyTools [${deny}] (the name the model wrote) stops that costume`, async () => {
      expect(await chat(fixtureTools, reply, { responseFix: { denyTools: [deny] } })).toEqual([]);
    });
  }

  test("the 1.18 plugin's wire route (options from the plugin tuple): denyTools [python] stops <python>", async () => {
    const scope = leakScope(() => ELEMENT("python"));
    const hooks = await server({ client: { app: { log: async () => undefined } } } as never, { providers: ["*"], responseFix: { denyTools: ["python"] } }, scope);
    expect(await pluginCalls(hooks, scope)).toEqual([]);
  });

  test("hard negative (passes today): the plugin's wire route with no deny list runs <python> as bash", async () => {
    const scope = leakScope(() => ELEMENT("python"));
    const hooks = await server({ client: { app: { log: async () => undefined } } } as never, { providers: ["*"] }, scope);
    expect(await pluginCalls(hooks, scope)).toEqual(["bash"]);
  });

  test("hard negative (passes today): denyTools [bash] stops every costume", async () => {
    for (const reply of [ELEMENT("python"), XML_EXECUTE("execute"), INTERPRETER]) {
      expect(await chat(fixtureTools, reply, { responseFix: { denyTools: ["bash"] } })).toEqual([]);
    }
  });

  test("hard negative (passes today): tool_choice forcing the sandbox offers no bash for its costume", async () => {
    const run = await throughMiddleware(prompt, textStream(ELEMENT("python")), {}, { tools: sdkTools([...fixtureTools, sandbox("python")]), toolChoice: { type: "tool", toolName: "python" } });
    expect(run.calls).toEqual([]);
  });

  test("hard negative (passes today): denyTools [Bash] stops the Bash alias (the written-name rule these costumes miss)", async () => {
    const reply = `Listing:\n<tool_call>\n{"name": "Bash", "arguments": {"command": "ls"}}\n</tool_call>`;
    expect(await chat(fixtureTools, reply)).toEqual(["bash"]);
    expect(await chat(fixtureTools, reply, { responseFix: { denyTools: ["Bash"] } })).toEqual([]);
  });
});

describe("fix 50 (costume names): hard negatives and the refusal's shape", () => {
  test("the refusal keeps the text and names the declared tool as broken markup (the correction asks for its own call)", () => {
    const result = parse(ELEMENT("python"), [...fixtureTools, sandbox("python")]);
    expect(result.calls).toEqual([]);
    expect(result.text).toBe(ELEMENT("python"));
    expect(result.broken.map((b) => [b.reason, b.tool])).toEqual([["broken-markup", "python"]]);
  });

  test("the XML execute costume for a declared execute: broken markup naming it; its JSON-args form runs as that tool", () => {
    const tools = [...fixtureTools, sandbox("execute")];
    expect(parse(XML_EXECUTE("execute"), tools).broken.map((b) => [b.reason, b.tool])).toEqual([["broken-markup", "execute"]]);
    const json = `<tool_call><tool_name>execute</tool_name><tool_args>{"code": "print(1)"}</tool_args></tool_call>`;
    expect(parse(json, tools).calls.map((c) => [c.tool, c.input])).toEqual([["execute", { code: "print(1)" }]]);
  });

  test("names compare case-insensitively, as costume tags are read: <PYTHON> for python, <python> for Python", () => {
    expect(ranAs(ELEMENT("PYTHON"), [...fixtureTools, sandbox("python")])).toEqual([]);
    expect(ranAs(ELEMENT("python"), [...fixtureTools, sandbox("Python")])).toEqual([]);
    expect(ranAs(XML_EXECUTE("EXECUTE"), [...fixtureTools, sandbox("execute")])).toEqual([]);
  });

  test("a declared tool with another name leaves every costume alone", () => {
    // Diff review 57a: `python_sandbox` now holds the word `python` (the costume's), so it would take `<python>`; `pythonic_sandbox` does not.
    const tools = [...fixtureTools, sandbox("pythonic_sandbox"), sandbox("runpython")];
    expect(ranAs(ELEMENT("python"), tools)).toEqual(["bash"]);
    expect(ranAs(XML_EXECUTE("execute"), tools)).toEqual(["bash"]);
    expect(ranAs(INTERPRETER, tools)).toEqual(["bash"]);
    // Review 56: `run_python` carries `python` after a namespace separator, as an MCP server's
    // `python` under the prefix `run` would: `<python>` may be meant for it, so it is refused
    // (review-56-rules-costume-names.test.ts); the other costumes still run.
    const prefixed = [...fixtureTools, sandbox("run_python")];
    expect(ranAs(ELEMENT("python"), prefixed)).toEqual([]);
    expect(ranAs(XML_EXECUTE("execute"), prefixed)).toEqual(["bash"]);
    expect(ranAs(INTERPRETER, prefixed)).toEqual(["bash"]);
  });

  test("a declared python sandbox stops only its own name: <shell> and <bash> still run as bash", () => {
    const tools = [...fixtureTools, sandbox("python")];
    expect(ranAs("Listing:\n<shell>\nls\n</shell>", tools)).toEqual(["bash"]);
    expect(ranAs("Listing:\n<bash>\nls\n</bash>", tools)).toEqual(["bash"]);
  });

  test("<bash> names the tool it runs as: the Bash alias in the tool map, or denyTools [Bash], leaves it running", async () => {
    expect(ranAs("Listing:\n<bash>\nls\n</bash>", fixtureTools)).toEqual(["bash"]);
    expect(await chat(fixtureTools, "Listing:\n<bash>\nls\n</bash>", { responseFix: { denyTools: ["Bash"] } })).toEqual(["bash"]);
    expect(await chat(fixtureTools, `Listing:\n<tool_call><tool_name>bash</tool_name><tool_args><language>bash</language><code>ls</code></tool_args></tool_call>`, { responseFix: { denyTools: ["Bash"] } })).toEqual(["bash"]);
  });

  test("denyTools in another case, or as a pattern, stops the costume it names; others still run", async () => {
    expect(await chat(fixtureTools, ELEMENT("python"), { responseFix: { denyTools: ["Python"] } })).toEqual([]);
    expect(await chat(fixtureTools, ELEMENT("execute_ipython"), { responseFix: { denyTools: ["execute_*"] } })).toEqual([]);
    expect(await chat(fixtureTools, ELEMENT("python"), { responseFix: { denyTools: ["execute_*"] } })).toEqual(["bash"]);
    expect(await chat(fixtureTools, ELEMENT("python"), { responseFix: { denyTools: ["read"] } })).toEqual(["bash"]);
  });

  test("denyTools [python] stops <python>, not <py>: each written name is its own", async () => {
    expect(await chat(fixtureTools, ELEMENT("python"), { responseFix: { denyTools: ["python"] } })).toEqual([]);
    expect(await chat(fixtureTools, ELEMENT("py"), { responseFix: { denyTools: ["python"] } })).toEqual(["bash"]);
  });
});

type HeaderHook = (input: unknown, output: { headers: Record<string, string> }) => Promise<void>;

/** One DeepSeek chat request through the started plugin's fetch (as test/support/wire-leak.ts wireReply), the calls OpenCode gets. */
async function pluginCalls(hooks: { "chat.headers"?: unknown }, scope: ReturnType<typeof leakScope>): Promise<(string | undefined)[]> {
  const output = { headers: {} as Record<string, string> };
  const model = { id: "deepseek-chat", providerID: "deepseek", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
  await (hooks["chat.headers"] as HeaderHook)({ sessionID: "ses_50", agent: "build", provider: { id: "deepseek" }, model, message: { id: "msg_50" } }, output);
  const body: Json = { model: "deepseek-chat", stream: true, messages: USER, tools: openAiTools() };
  const response = await scope.fetch("https://api.deepseek.com/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json", ...output.headers }, body: JSON.stringify(body) });
  return assemble(await response.text()).calls.map((c) => c.name);
}
