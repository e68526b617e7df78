// Review 55 (hostile, tests only): which tools a request declares, as the fetch adapter reads them
// (src/wires/*/wire.ts declaredTools, src/wires/declared-names.ts) on all three wires. Each
// failing test says what is wrong, its severity, a minimal input, the suspected file and what is
// expected; the hard negatives beside them pass on main and must keep passing.
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { textStream, throughMiddleware } from "../security/support.ts";
import { BASH_SCHEMA, NO_SCHEMA, READ_SCHEMA, WIRES, chatStreamNames, fn, leak, names, requestBody, run } from "./review-55-request-support.ts";

/** Another agent's name for bash (src/parse/aliases.ts TOOL_ALIASES), here the name of a tool of its own. */
const EXEC_SCHEMA = { type: "object", properties: { command: { type: "string" }, cwd: { type: "string" } }, required: ["command"] };
const EXEC_LEAK = `Deploying.\n${leak("execute_command", { command: "deploy --prod" })}`;

describe("a name the request declares outside `tools[].function` is never re-targeted by an alias", () => {
  // FINDING (wrong execution). A chat request may still send the deprecated `functions` list beside
  // `tools` (servers that honour `function_call` read it; the adapter itself reads `function_call`,
  // tool-choice.ts readLegacyFunctionCall). Here `functions` declares the client's own
  // `execute_command` (a remote deploy runner) and `tools` declares bash. The model calls its
  // declared `execute_command`; declaredToolNames reads only `body.tools`, so the name is not
  // reserved and the alias table maps `execute_command` onto bash: `deploy --prod` runs as a local
  // shell command, a tool other than the one the model called.
  // Minimal input: tools [bash], functions [{name: "execute_command"}], reply
  // `<tool_call>{"name":"execute_command","arguments":{"command":"deploy --prod"}}</tool_call>`.
  // Suspected: src/wires/declared-names.ts declaredToolNames (reads `tools` only).
  // Expected: every name in `functions` is a declared name (no alias stands for it): no bash call.
  // Fixed: declaredToolNames reads `functions` names too (EngineOptions.reservedNames). They are
  // reserved only, never tools a call is recovered for (the safer reading): a client declaring its
  // tools in `functions` reads `message.function_call`, not the `tool_calls` a recovered call is
  // written as, so the call would vanish with its markup; a `functions` entry named like a `tools`
  // one is a further declaration of it, which a recovered call must fit as well.
  test("chat: a legacy `functions` entry named execute_command is not run as bash (JSON and streamed)", async () => {
    const body = requestBody("chat", [fn("chat", "bash")], { functions: [{ name: "execute_command", parameters: EXEC_SCHEMA }] });
    expect(names((await run("chat", body, EXEC_LEAK)).calls)).toEqual([]);
    for (const got of await chatStreamNames(body, EXEC_LEAK)) expect(got).toEqual([]);
  });

  // FINDING (wrong execution). The same re-targeting through a hosted MCP server whose tools the
  // request names: Responses `{type: "mcp", server_label, allowed_tools: ["execute_command"]}`
  // (also the `{tool_names: [...]}` form), Anthropic's MCP connector
  // (`mcp_servers[].tool_configuration.allowed_tools`, and `mcp_toolset` tools with per-tool
  // `configs`). The model calls the server's `execute_command`; the adapter runs bash with it.
  // Suspected: src/wires/declared-names.ts declaredToolNames (reads `name`, `function.name`,
  // `custom.name` only). Expected: a tool name a request lists for an MCP server is reserved too.
  // Fixed: declaredToolNames reserves Responses `mcp` tools' `allowed_tools` (both forms),
  // Anthropic `mcp_servers[].tool_configuration.allowed_tools` and `mcp_toolset` `configs` names.
  test("Responses: an MCP server's allowed tool execute_command is not run as bash", async () => {
    for (const allowed of [["execute_command"], { tool_names: ["execute_command"] }]) {
      const mcp = { type: "mcp", server_label: "ops", server_url: "https://ops.example/mcp", allowed_tools: allowed, require_approval: "never" };
      expect(names((await run("responses", requestBody("responses", [fn("responses", "bash"), mcp]), EXEC_LEAK)).calls)).toEqual([]);
    }
  });

  test("Anthropic: an MCP connector's allowed tool execute_command is not run as bash", async () => {
    const servers = [{ type: "url", url: "https://ops.example/mcp", name: "ops", tool_configuration: { enabled: true, allowed_tools: ["execute_command"] } }];
    expect(names((await run("anthropic", requestBody("anthropic", [fn("anthropic", "bash")], { mcp_servers: servers }), EXEC_LEAK)).calls)).toEqual([]);
    const toolset = { type: "mcp_toolset", mcp_server_name: "ops", configs: { execute_command: { enabled: true } } };
    const plain = [{ type: "url", url: "https://ops.example/mcp", name: "ops" }];
    expect(names((await run("anthropic", requestBody("anthropic", [fn("anthropic", "bash"), toolset], { mcp_servers: plain }), EXEC_LEAK)).calls)).toEqual([]);
  });

  describe("hard negatives (pass on main)", () => {
    test("a name declared in `tools` as another kind is reserved on every wire: chat custom, Anthropic server tool, Responses custom", async () => {
      const chat = requestBody("chat", [fn("chat", "bash"), { type: "custom", custom: { name: "execute_command" } }]);
      expect(names((await run("chat", chat, EXEC_LEAK)).calls)).toEqual([]);
      const anthropic = requestBody("anthropic", [fn("anthropic", "bash"), { type: "bash_20250124", name: "Bash" }]);
      expect(names((await run("anthropic", anthropic, `Running.\n${leak("Bash")}`)).calls)).toEqual([]);
      const responses = requestBody("responses", [fn("responses", "bash"), { type: "custom", name: "execute_command", format: { type: "text" } }]);
      expect(names((await run("responses", responses, EXEC_LEAK)).calls)).toEqual([]);
    });

    test("a declared but not offered execute_command is never bash's alias under a forced bash", async () => {
      for (const wire of WIRES) {
        const force = wire === "chat" ? { type: "function", function: { name: "bash" } } : wire === "anthropic" ? { type: "tool", name: "bash" } : { type: "function", name: "bash" };
        const body = requestBody(wire, [fn(wire, "bash"), fn(wire, "execute_command", EXEC_SCHEMA)], { tool_choice: force });
        expect(names((await run(wire, body, EXEC_LEAK)).calls)).toEqual([]);
      }
    });

    test("functions and MCP names that collide with nothing change nothing: the declared bash still runs", async () => {
      const chat = requestBody("chat", [fn("chat", "bash")], { functions: [{ name: "deploy", parameters: EXEC_SCHEMA }] });
      expect(names((await run("chat", chat, `Running.\n${leak("bash")}`)).calls)).toEqual(["bash"]);
      const mcp = { type: "mcp", server_label: "ops", server_url: "https://ops.example/mcp", allowed_tools: { tool_names: ["deploy"] } };
      expect(names((await run("responses", requestBody("responses", [fn("responses", "bash"), mcp]), `Running.\n${leak("bash")}`)).calls)).toEqual(["bash"]);
      const servers = [{ type: "url", url: "https://ops.example/mcp", name: "ops", tool_configuration: { allowed_tools: ["deploy"] } }];
      expect(names((await run("anthropic", requestBody("anthropic", [fn("anthropic", "bash")], { mcp_servers: servers }), `Running.\n${leak("bash")}`)).calls)).toEqual(["bash"]);
    });

    test("a request declaring its tools in `functions` only (the legacy API) gets no call recovered: the reply passes as written", async () => {
      const body = { model: "m", messages: [{ role: "user", content: "list" }], functions: [{ name: "bash", parameters: BASH_SCHEMA }] };
      const reply = `Running.\n${leak("bash")}`;
      const got = await run("chat", body, reply);
      expect(got.calls).toEqual([]);
      expect(got.text).toBe(reply);
    });

    test("a `functions` entry named like a `tools` one is a further declaration: the call must fit both", async () => {
      const body = requestBody("chat", [fn("chat", "bash")], { functions: [{ name: "bash", parameters: READ_SCHEMA }] });
      expect(names((await run("chat", body, `Running.\n${leak("bash")}`)).calls)).toEqual([]);
      const same = requestBody("chat", [fn("chat", "bash")], { functions: [{ name: "bash", parameters: BASH_SCHEMA }] });
      expect(names((await run("chat", same, `Running.\n${leak("bash")}`)).calls)).toEqual(["bash"]);
    });

    test("the alias still works when nothing declares its name: execute_command runs as bash on every wire", async () => {
      for (const wire of WIRES) {
        const got = await run(wire, requestBody(wire, [fn(wire, "bash")]), EXEC_LEAK);
        expect(got.calls).toEqual([{ name: "bash", args: { command: "deploy --prod" } }]);
      }
    });
  });
});

describe("a function tool declared without `parameters`", () => {
  // FINDING (wrong execution; against a documented policy, PATTERNS "only an absent schema means
  // none"). OpenAI's chat-completions and Responses APIs define a function whose `parameters` are
  // omitted as one with an EMPTY parameter list ("Omitting parameters defines a function with an
  // empty parameter list"), and with `strict: true` the server enforces it: the model natively can
  // only call `reset_cache({})`. The adapter reads the absent key as "no schema" and runs a leaked
  // `reset_cache({"scope": "all"})` with arguments the tool was never declared to take: exactly
  // the case review 52 closed for `properties: {}` (`reset_cache(scope="thumbnails")` would run
  // unnarrowed), reopened by leaving the key out.
  // Minimal input: chat tools [{type: "function", function: {name: "reset_cache", strict: true}}],
  // reply `<tool_call>{"name":"reset_cache","arguments":{"scope":"all"}}</tool_call>`.
  // Suspected: src/wires/declared-names.ts declaredTool (schema undefined → `{ name }`), as the
  // chat and Responses wires call it. Expected: on these two wires an absent `parameters` reads as
  // `{type: "object", properties: {}}`: `{}` runs, any key is refused (broken markup, text kept).
  // Fixed: src/wires/declared-names.ts declaredFunction reads an absent `parameters` as
  // `{type: "object", properties: {}}` on chat (also a `functions` entry) and Responses. Anthropic
  // (whose API requires `input_schema`), the AI SDK middleware and parse() keep "an absent schema
  // means none" (no schema given at all there).
  const SCOPED = `Clearing.\n${leak("reset_cache", { scope: "all" })}`;
  test("chat and Responses: a key passed to a tool declared with no parameters is refused (strict or not)", async () => {
    for (const wire of ["chat", "responses"] as const) {
      for (const extra of [{}, { strict: true }]) {
        const got = await run(wire, requestBody(wire, [fn(wire, "reset_cache", NO_SCHEMA, extra)]), SCOPED);
        expect(got.calls).toEqual([]);
        expect(got.text).toBe(SCOPED);
      }
    }
  });

  test("hard negative: the same tool called with no arguments runs, on every wire", async () => {
    for (const wire of WIRES) {
      const got = await run(wire, requestBody(wire, [fn(wire, "reset_cache", NO_SCHEMA)]), `Clearing.\n${leak("reset_cache", {})}`);
      expect(got.calls).toEqual([{ name: "reset_cache", args: {} }]);
    }
  });

  test("hard negative: parse() and the middleware, given no schema at all, still check none", async () => {
    expect(parse(leak("reset_cache", { scope: "all" }), [{ name: "reset_cache" }]).calls.map((call) => call.input)).toEqual([{ scope: "all" }]);
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }];
    const out = await throughMiddleware(prompt, textStream(SCOPED), {}, { tools: [{ type: "function", name: "reset_cache", inputSchema: undefined as never }] });
    expect(out.calls).toHaveLength(1);
  });

  test("hard negative: `properties: {}` already refuses the key (review 52), on every wire", async () => {
    for (const wire of WIRES) {
      const got = await run(wire, requestBody(wire, [fn(wire, "reset_cache", { type: "object", properties: {} })]), SCOPED);
      expect(got.calls).toEqual([]);
    }
  });
});

describe("Anthropic tools with an Anthropic-defined schema (client tools, not server tools)", () => {
  // FINDING (missed call, lowest). `bash_20250124` and `text_editor_*` are client tools: the
  // client runs them, the API only supplies their schema (bash: `{command, restart}`). The
  // Anthropic wire skips every typed tool as a server tool ("server tools … are typed and have
  // none"), so a request whose only shell is the Anthropic bash tool gets no leaked `bash` call
  // recovered at all (the reply passes through with the markup as text).
  // Minimal input: tools [{type: "bash_20250124", name: "bash"}], reply
  // `<tool_call>{"name":"bash","arguments":{"command":"ls -la"}}</tool_call>`.
  // Suspected: src/wires/anthropic/wire.ts declaredTools. Expected: the Anthropic-defined client
  // tools are declared with their published schema (bash: command string, restart boolean).
  // Known gap: left as is (fx-55). The schemas are Anthropic's, versioned by the type
  // (`bash_20241022`, `bash_20250124`, four `text_editor_*` with different commands and names),
  // and not sent in the request: a copy here that drifts from the published one would run calls
  // whose arguments the client's tool reads differently. The cost is a missed call (the markup
  // stays visible), the lowest severity; every such name is still reserved (declaredToolNames).
  test.failing("a leaked call of the Anthropic bash tool is recovered under its published schema", async () => {
    const got = await run("anthropic", requestBody("anthropic", [{ type: "bash_20250124", name: "bash" }]), `Running.\n${leak("bash")}`);
    expect(got.calls).toEqual([{ name: "bash", args: { command: "ls -la" } }]);
  });

  test("hard negative: a server tool (web search) never becomes a recovered call, a client tool beside it still does", async () => {
    const tools = [{ type: "web_search_20250305", name: "web_search", max_uses: 1 }, fn("anthropic", "bash")];
    expect(names((await run("anthropic", requestBody("anthropic", tools), `Searching.\n${leak("web_search", { query: "x" })}`)).calls)).toEqual([]);
    expect(names((await run("anthropic", requestBody("anthropic", tools), `Running.\n${leak("bash")}`)).calls)).toEqual(["bash"]);
  });
});

describe("hard negatives (pass on main): odd but valid declarations", () => {
  test("a tool declared twice with different schemas runs with neither reading alone, on every wire", async () => {
    for (const wire of WIRES) {
      const body = requestBody(wire, [fn(wire, "bash"), fn(wire, "bash", READ_SCHEMA)]);
      expect(names((await run(wire, body, `Running.\n${leak("bash")}`)).calls)).toEqual([]);
      expect(names((await run(wire, body, `Running.\n${leak("bash", { path: "/a" })}`)).calls)).toEqual([]);
    }
  });

  test("an exact duplicate declaration changes nothing", async () => {
    for (const wire of WIRES) {
      expect(names((await run(wire, requestBody(wire, [fn(wire, "bash"), fn(wire, "bash")]), `Running.\n${leak("bash")}`)).calls)).toEqual(["bash"]);
    }
  });

  test("Responses built-ins and custom tools are never function calls; a function beside them still is", async () => {
    const builtins = [{ type: "web_search" }, { type: "file_search", vector_store_ids: ["vs_1"] }, { type: "local_shell" }, { type: "custom", name: "bash", format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } }];
    expect(names((await run("responses", requestBody("responses", builtins), `Running.\n${leak("bash")}`)).calls)).toEqual([]);
    expect(names((await run("responses", requestBody("responses", builtins), `Running.\n${leak("local_shell", { command: "ls" })}`)).calls)).toEqual([]);
    const mixed = [...builtins.slice(0, 3), fn("responses", "read", READ_SCHEMA)];
    expect(names((await run("responses", requestBody("responses", mixed), `Reading.\n${leak("read", { path: "/a" })}`)).calls)).toEqual(["read"]);
  });

  test("a chat custom tool is never a function call", async () => {
    const body = requestBody("chat", [{ type: "custom", custom: { name: "bash" } }, fn("chat", "read", READ_SCHEMA)]);
    expect(names((await run("chat", body, `Running.\n${leak("bash")}`)).calls)).toEqual([]);
  });

  test("names differing by case or by Unicode never stand for a declared tool (bash declared)", async () => {
    // `Bash` is an alias (TOOL_ALIASES) and is left out; every other spelling is a different name.
    for (const name of ["BASH", "bash ", "ba\u200bsh", "\uff42\uff41\uff53\uff48", "ba\u0073\u0307h", "b\u0430sh"]) {
      for (const wire of WIRES) expect(names((await run(wire, requestBody(wire, [fn(wire, "bash")]), `Running.\n${leak(name)}`)).calls)).toEqual([]);
    }
  });

  test("two tools whose names differ only by case are two tools: each runs under its own schema", async () => {
    for (const wire of WIRES) {
      const body = requestBody(wire, [fn(wire, "read", READ_SCHEMA), fn(wire, "Read", BASH_SCHEMA)]);
      expect((await run(wire, body, `Reading.\n${leak("Read", { command: "x" })}`)).calls).toEqual([{ name: "Read", args: { command: "x" } }]);
      expect(names((await run(wire, body, `Reading.\n${leak("read", { command: "x" })}`)).calls)).toEqual([]);
    }
  });

  test("NFC and NFD spellings of a declared name are different names (exact match)", async () => {
    for (const wire of WIRES) {
      expect(names((await run(wire, requestBody(wire, [fn(wire, "cafe\u0301")]), `Running.\n${leak("caf\u00e9")}`)).calls)).toEqual([]);
      expect(names((await run(wire, requestBody(wire, [fn(wire, "cafe\u0301")]), `Running.\n${leak("cafe\u0301")}`)).calls)).toEqual(["cafe\u0301"]);
    }
  });
});
