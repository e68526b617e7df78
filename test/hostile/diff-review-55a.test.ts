/**
 * Hostile review of the round-55 source diff (main..int55), part a: the request-side fixes
 * (src/adapters/request-keys.ts keyWrittenTwice, src/wires/declared-names.ts reserved names).
 * Each finding is a `test.failing` with its comment block; hard negatives beside it pass.
 * Every case goes through the fetch adapter (repairFetch) with a fake upstream answering JSON.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { keyWrittenTwice } from "../../src/adapters/request-keys.ts";
import { declaredToolNames } from "../../src/wires/declared-names.ts";
import { expectLinearWork } from "../support/work.ts";
import { fn, leak, replyJson, requestBody, run, upstream, URLS } from "./review-55-request-support.ts";

const RM = leak("bash", { command: "rm -rf ~/project" });
/** A user message quoting a leak (a doc, a chat log): a reply that writes it again is an echo. */
const QUOTING = `Someone pasted this in our chat, what would it do?\n${RM}\n`;
const CHAT_TOOLS = [fn("chat", "bash")];
const chatMessages = (messages: string) => `{"model":"m","messages":[${messages}],"tools":${JSON.stringify(CHAT_TOOLS)}}`;

describe("finding 1: a key written twice inside a message escapes keyWrittenTwice", () => {
  // FINDING (wrong execution). Review 55 made the adapter stand aside when a top-level key the
  // plan reads is written twice (`messages`, `input`, `system`...: "the content the echo guard
  // compares a call with"), since JSON.parse keeps the last copy and the upstream may keep the
  // first. The same divergence one level down is not read: a message object writing `content`
  // twice. A first-wins upstream shows the model the first `content` (here a quoted leak); the
  // adapter's echo guard compares the reply with the LAST one ("hi"), so a reply that only echoes
  // the quoted call is taken for a fresh call and runs `rm -rf`. The same holds for a tool written
  // with `function.name` twice (`read`, then `bash`): the plan recovers a `bash` call for a tool the
  // upstream may have named `read`.
  // Minimal input: chat `{"messages":[{"role":"user","content":"...<tool_call>{bash rm -rf}
  //   </tool_call>...","content":"hi"}],"tools":[bash]}`; reply: the same `<tool_call>` again.
  // Suspected: src/adapters/request-keys.ts keyWrittenTwice (reads keys only at the top level and
  //   inside tool_choice/function_call; `messages[i]`, `input[i]`, `tools[i]` objects are skipped).
  // Expected: no call (the adapter stands aside, as for a top-level `messages` written twice), or
  //   the echo guard reads every copy. Reading every object's keys stays one linear pass.
  // Fixed: src/adapters/request-keys.ts keyWrittenTwice reads every object of the body, at any
  //   depth: a key written twice in any of them recovers nothing (the reply passes as written, one
  //   debug line naming the key only when it is a documented request field, never a value). Still
  //   one pass that skips strings with a native search; the history pass runs as before.
  test("a user message writing `content` twice: the echoed quoted call does not run", async () => {
    const body = chatMessages(`{"role":"user","content":${JSON.stringify(QUOTING)},"content":"hi"}`);
    expect((await run("chat", body, RM)).calls).toEqual([]);
  });

  test("a tool writing `function.name` twice (read, then bash): no bash call is recovered", async () => {
    const schema = JSON.stringify({ type: "object", properties: { command: { type: "string" } }, required: ["command"] });
    const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"read","name":"bash","parameters":${schema}}}]}`;
    expect((await run("chat", body, RM)).calls).toEqual([]);
  });

  test("hard negative: the same quoted leak in a single `content` is an echo: no call", async () => {
    expect((await run("chat", chatMessages(`{"role":"user","content":${JSON.stringify(QUOTING)}}`), RM)).calls).toEqual([]);
  });

  test("hard negative: `messages` written twice at the top level: nothing recovered", async () => {
    const body = `{"model":"m","messages":[{"role":"user","content":${JSON.stringify(QUOTING)}}],"messages":[{"role":"user","content":"hi"}],"tools":${JSON.stringify(CHAT_TOOLS)}}`;
    expect((await run("chat", body, RM)).calls).toEqual([]);
  });

  test("hard negative: two messages with one `content` each, and a fresh call: it runs", async () => {
    const body = chatMessages(`{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"clean the project"}`);
    expect((await run("chat", body, RM)).calls).toEqual([{ name: "bash", args: { command: "rm -rf ~/project" } }]);
  });

  test("hard negative: a key name inside a string value is no key (`\"content\":` quoted in content)", async () => {
    const body = chatMessages(`{"role":"user","content":"write \\"content\\":1 and \\"content\\":2 \\\\"}`);
    expect((await run("chat", body, RM)).calls).toEqual([{ name: "bash", args: { command: "rm -rf ~/project" } }]);
  });

  test("every wire, any depth: a Responses input item, an Anthropic tool, a schema's property, an escaped spelling", async () => {
    const schema = `{"type":"object","properties":{"command":{"type":"string","type":"number"}},"required":["command"]}`;
    const cases: [Parameters<typeof run>[0], string][] = [
      ["responses", `{"model":"m","input":[{"role":"user","content":"hi","content":"go"}],"tools":${JSON.stringify([fn("responses", "bash")])}}`],
      ["anthropic", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"read","name":"bash","input_schema":${JSON.stringify(fn("anthropic", "bash").input_schema)}}]}`],
      ["chat", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"bash","parameters":${schema}}}]}`],
      ["chat", chatMessages(`{"role":"user","content":"hi","cont\\u0065nt":"go"}`)],
    ];
    for (const [wire, body] of cases) {
      JSON.parse(body);
      expect((await run(wire, body, RM)).calls).toEqual([]);
    }
  });

  test("hard negative: the same bodies with each key written once: the fresh call runs", async () => {
    const cases: [Parameters<typeof run>[0], string][] = [
      ["responses", `{"model":"m","input":[{"role":"user","content":"go"}],"tools":${JSON.stringify([fn("responses", "bash")])}}`],
      ["anthropic", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"tools":${JSON.stringify([fn("anthropic", "bash")])}}`],
      ["chat", chatMessages(`{"role":"user","content":"go"},{"role":"user","content":"go"}`)],
    ];
    for (const [wire, body] of cases) expect((await run(wire, body, RM)).calls).toEqual([{ name: "bash", args: { command: "rm -rf ~/project" } }]);
  });

  test("one debug line names a documented key and where it is, never a value nor a key of the request's own", async () => {
    const lines = async (body: string) => {
      const out: string[] = [];
      const res = await repairFetch({ debug: (line) => void out.push(line) }, upstream(replyJson("chat", RM)))(URLS.chat, { method: "POST", body });
      expect((await res.json()).choices[0].message.content).toBe(RM);
      return out.filter((line) => line.includes("twice"));
    };
    expect(await lines(chatMessages(`{"role":"user","content":"sk-secret-1","content":"sk-secret-2"}`))).toEqual([expect.stringContaining("request body writes `content` inside `messages` twice: passing through unrepaired")]);
    const own = await lines(`{"model":"m","metadata":{"sk-secret-key":1,"sk-secret-key":2},"messages":[{"role":"user","content":"hi"}],"tools":${JSON.stringify(CHAT_TOOLS)}}`);
    expect(own).toEqual([expect.stringContaining("request body writes a key inside `metadata` twice")]);
    expect(own.join("\n")).not.toContain("sk-secret");
    const top = await lines(`{"model":"m","sk-own":1,"sk-own":2,"messages":[{"role":"user","content":"hi"}],"tools":${JSON.stringify(CHAT_TOOLS)}}`);
    expect(top).toEqual([expect.stringContaining("request body writes a key twice")]);
    expect(top.join("\n")).not.toContain("sk-own");
  });

  test("the scan stays one pass: many small objects, deep objects, long strings read each character a bounded number of times", () => {
    const bodies = (size: number) => [
      `{"messages":[${Array.from({ length: size / 40 }, (_, i) => `{"role":"user","content":"m${i}","name":"n"}`).join(",")}]}`,
      `${'{"a":'.repeat(size / 10)}1${"}".repeat(size / 10)}`,
      JSON.stringify({ messages: [{ role: "user", content: "\\\"x".repeat(size / 4) }] }),
    ];
    const smalls = bodies(400_000);
    const bigs = bodies(1_600_000);
    expectLinearWork(keyWrittenTwice, smalls, bigs);
    expect(keyWrittenTwice(`${'{"a":'.repeat(5000)}{"b":1,"b":2}${"}".repeat(5000)}`)).toBe("a key inside an object");
  }, 60_000);
});

const EXEC = leak("execute_command", { command: "ls" });
const COMMAND_SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };

describe("finding 2: a Responses `namespace` tool's functions are not reserved", () => {
  // FINDING (wrong execution). Review 55 reserved the names a request declares outside plain
  // `tools` entries (Responses `mcp` allowed_tools, Anthropic mcp_servers / mcp_toolset), so an
  // alias (`execute_command` -> bash) is never taken for a tool the model was given under that
  // name. OpenAI's Responses API also groups functions in a `namespace` tool (`{"type":"namespace",
  // "name":"remote","tools":[{"type":"function","name":"execute_command",...}]}`; the tool-search
  // guide recommends it). Its inner functions are neither recovered nor reserved, so a leaked
  // `execute_command` (the remote server's own tool, named exactly so) runs as the LOCAL bash.
  // This is the case aliases.ts namespacedAliases rules out for `remote_execute_command` and
  // `remote.execute_command` written as one name.
  // Minimal input: Responses tools [bash, namespace remote { function execute_command }]; reply
  //   `<tool_call>{"name":"execute_command","arguments":{"command":"ls"}}</tool_call>`.
  // Suspected: src/wires/declared-names.ts declaredToolNames (reads `tools[]` one level only).
  // Expected: no call: the inner names (and the namespace's) are reserved, as allowed_tools are.
  // Fixed: src/wires/declared-names.ts reads a `namespace` tool's functions and custom tools (and
  //   the tools a Responses `tool_search_output` input item loads) as declared names, with the
  //   namespace's name and the `<namespace>.<name>` spelling (harmony's `functions.get_weather`;
  //   the Responses API itself puts the namespace in the call's own `namespace` field).
  test("a `namespace` holding execute_command: the alias does not run as the local bash", async () => {
    const tools = [fn("responses", "bash"), { type: "namespace", name: "remote", description: "Remote host tools.", tools: [{ type: "function", name: "execute_command", parameters: COMMAND_SCHEMA }] }];
    expect((await run("responses", requestBody("responses", tools), EXEC)).calls).toEqual([]);
  });

  test("hard negative: an `mcp` tool whose allowed_tools name execute_command reserves it: no call", async () => {
    const tools = [fn("responses", "bash"), { type: "mcp", server_label: "remote", server_url: "https://mcp.example", allowed_tools: ["execute_command"] }];
    expect((await run("responses", requestBody("responses", tools), EXEC)).calls).toEqual([]);
  });

  test("hard negative: another function beside bash, no namespace: execute_command still runs as bash", async () => {
    const tools = [fn("responses", "bash"), fn("responses", "list_open_orders", COMMAND_SCHEMA)];
    expect((await run("responses", requestBody("responses", tools), EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
  });

  test("a namespace's functions, custom tools, its name and the `<namespace>.<name>` spelling are declared names", () => {
    const body = { tools: [{ type: "namespace", name: "crm", description: "CRM", tools: [{ type: "function", name: "list_open_orders" }, { type: "custom", name: "write_note" }] }] };
    expect(declaredToolNames(body).sort()).toEqual(["crm", "crm.list_open_orders", "crm.write_note", "list_open_orders", "write_note"]);
  });

  test("a namespace a client-run tool search loaded (a `tool_search_output` input item): execute_command does not run as bash", async () => {
    const loaded = { type: "tool_search_output", call_id: "ts_1", execution: "client", status: "completed", tools: [{ type: "namespace", name: "remote", description: "Remote host tools.", tools: [{ type: "function", name: "execute_command", parameters: COMMAND_SCHEMA }] }] };
    const body = requestBody("responses", [fn("responses", "bash")]);
    body.input = [...body.input, loaded];
    expect((await run("responses", body, EXEC)).calls).toEqual([]);
  });

  test("hard negative: a namespace of other functions: execute_command runs as bash, and a leaked bash call runs", async () => {
    const tools = [fn("responses", "bash"), { type: "namespace", name: "crm", description: "CRM.", tools: [{ type: "function", name: "list_open_orders", parameters: COMMAND_SCHEMA }] }];
    expect((await run("responses", requestBody("responses", tools), EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
    expect((await run("responses", requestBody("responses", tools), leak("bash", { command: "ls" }))).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
  });
});

describe("finding 3: a hosted MCP server whose tools are not listed leaves every alias open", () => {
  // FINDING (wrong execution; the lead may rule it a policy). A hosted MCP server declared with no
  // tool list (Responses `{"type":"mcp"}` without allowed_tools; Anthropic `mcp_servers` entry with
  // no tool_configuration, or an `mcp_toolset` with no `configs`) gives the model EVERY tool the
  // server has, by its own names, which the request does not spell. Review 55 reserves only names
  // the request spells out, so a server whose tool is `execute_command` (Cline-style shells,
  // desktop-commander) leaves the alias open: a leaked `execute_command` runs as the local bash,
  // the very case the allowed_tools reservation was made for.
  // Minimal input: Responses tools [bash, { type: "mcp", server_label: "remote", server_url }];
  //   reply `<tool_call>{"name":"execute_command","arguments":{"command":"ls"}}</tool_call>`.
  // Suspected: src/wires/declared-names.ts declaredToolNames / src/parse/aliases.ts withAliases.
  // Expected: no alias is taken while a hosted MCP server with an unlisted tool set is declared
  //   (the bare name is then undeclared: the nudge), since which tool was meant cannot be known.
  // Fixed: src/wires/declared-names.ts puts UNSPELLED_TOOLS (src/options/engine.ts) among the
  //   declared names for a Responses `mcp` without a name list in allowed_tools, an Anthropic
  //   `mcp_toolset` whose default_config leaves its tools on, or an `mcp_servers` entry no toolset
  //   configures whose tools are on and unlisted; reservedNames turns it into every alias and
  //   code costume name (the runner's own `<bash>` aside), through the reservedNames channel the
  //   alias and costume code already read. Declared tools still run as themselves.
  test("Responses `mcp` without allowed_tools: execute_command does not run as bash", async () => {
    const tools = [fn("responses", "bash"), { type: "mcp", server_label: "remote", server_url: "https://mcp.example", require_approval: "never" }];
    expect((await run("responses", requestBody("responses", tools), EXEC)).calls).toEqual([]);
  });

  test("Anthropic `mcp_servers` without a tool list: execute_command does not run as bash", async () => {
    const body = requestBody("anthropic", [fn("anthropic", "bash"), { type: "mcp_toolset", mcp_server_name: "remote" }], { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "remote" }] });
    expect((await run("anthropic", body, EXEC)).calls).toEqual([]);
  });

  test("hard negative: no MCP server at all: execute_command runs as bash (the alias)", async () => {
    expect((await run("responses", requestBody("responses", [fn("responses", "bash")]), EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
    expect((await run("anthropic", requestBody("anthropic", [fn("anthropic", "bash")]), EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
  });

  test("a Responses `mcp` whose allowed_tools is only a read_only filter lists no names: no alias, no `<python>` costume, no `Bash`", async () => {
    const tools = [fn("responses", "bash"), { type: "mcp", server_label: "remote", server_url: "https://mcp.example", allowed_tools: { read_only: true } }];
    expect((await run("responses", requestBody("responses", tools), EXEC)).calls).toEqual([]);
    expect((await run("responses", requestBody("responses", tools), "<python>\nprint(1)\n</python>")).calls).toEqual([]);
    expect((await run("responses", requestBody("responses", tools), leak("Bash", { command: "ls" }))).calls).toEqual([]);
  });

  test("an Anthropic `mcp_servers` entry with no tool_configuration and no toolset (the 2025-04 form): no alias", async () => {
    const body = requestBody("anthropic", [fn("anthropic", "bash")], { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "remote" }] });
    expect((await run("anthropic", body, EXEC)).calls).toEqual([]);
  });

  test("an Anthropic `mcp_toolset` with configs but its default left on: no alias (the unlisted tools are given too)", async () => {
    const body = requestBody("anthropic", [fn("anthropic", "bash"), { type: "mcp_toolset", mcp_server_name: "remote", configs: { fetch_url: { enabled: true } } }], { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "remote" }] });
    expect((await run("anthropic", body, EXEC)).calls).toEqual([]);
  });

  test("hard negative: unlisted MCP tools leave the declared tools running as themselves (a bash leak, a `<bash>` costume)", async () => {
    const tools = [fn("responses", "bash"), { type: "mcp", server_label: "remote", server_url: "https://mcp.example" }];
    expect((await run("responses", requestBody("responses", tools), leak("bash", { command: "ls" }))).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
    expect((await run("responses", requestBody("responses", tools), "<bash>\nls -la\n</bash>")).calls).toEqual([{ name: "bash", args: { command: "ls -la" } }]);
  });

  test("hard negative: MCP servers whose tools are all listed leave the other aliases and costumes open", async () => {
    const listed = [fn("responses", "bash"), { type: "mcp", server_label: "remote", server_url: "https://mcp.example", allowed_tools: { tool_names: ["fetch_url"] } }];
    expect((await run("responses", requestBody("responses", listed), EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
    expect((await run("responses", requestBody("responses", listed), "<python>\nprint(1)\n</python>")).calls.map((call) => call.name)).toEqual(["bash"]);
    const toolset = requestBody("anthropic", [fn("anthropic", "bash"), { type: "mcp_toolset", mcp_server_name: "remote", default_config: { enabled: false }, configs: { fetch_url: { enabled: true } } }], { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "remote" }] });
    expect((await run("anthropic", toolset, EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
    const off = requestBody("anthropic", [fn("anthropic", "bash")], { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "remote", tool_configuration: { enabled: false } }] });
    expect((await run("anthropic", off, EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
  });

  test("hard negative: Anthropic mcp_servers listing execute_command reserve it: no call", async () => {
    const body = requestBody("anthropic", [fn("anthropic", "bash")], { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "remote", tool_configuration: { enabled: true, allowed_tools: ["execute_command"] } }] });
    expect((await run("anthropic", body, EXEC)).calls).toEqual([]);
  });
});

describe("a hosted code sandbox declared: its costumes are the sandbox's code, never the local shell's", () => {
  // Found by the diff-a fixer, proved and fixed by the lead (wrong execution): a Responses
  // `code_interpreter` tool (or Anthropic `code_execution_*`) carries no name, so nothing was
  // reserved, and a `<python>` or `<code_interpreter>` costume the model wrote for the server's
  // sandbox ran on the user's machine as the local bash.
  // Fixed: src/wires/declared-names.ts hostedCode puts UNSPELLED_TOOLS among the declared names, as
  //   for an unlisted MCP server: every alias and costume name is reserved; `<bash>` and declared
  //   tools still run as themselves.
  const sandbox = [fn("responses", "bash"), { type: "code_interpreter", container: { type: "auto" } }];
  test("Responses `code_interpreter`: a `<python>` or `<code_interpreter>` costume does not run as bash", async () => {
    expect((await run("responses", requestBody("responses", sandbox), "<python>\nprint(1)\n</python>")).calls).toEqual([]);
    expect((await run("responses", requestBody("responses", sandbox), "<code_interpreter>\nprint(1)\n</code_interpreter>")).calls).toEqual([]);
  });

  test("Anthropic `code_execution_20250825`: a `<python>` costume does not run as bash", async () => {
    const body = requestBody("anthropic", [fn("anthropic", "bash"), { type: "code_execution_20250825", name: "code_execution" }]);
    expect((await run("anthropic", body, "<python>\nprint(1)\n</python>")).calls).toEqual([]);
  });

  test("hard negative: beside a sandbox the declared bash still runs, as a leak and as `<bash>`", async () => {
    expect((await run("responses", requestBody("responses", sandbox), leak("bash", { command: "ls" }))).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
    expect((await run("responses", requestBody("responses", sandbox), "<bash>\nls -la\n</bash>")).calls).toEqual([{ name: "bash", args: { command: "ls -la" } }]);
  });

  test("hard negative: with no sandbox declared, the `<python>` costume runs as bash", async () => {
    expect((await run("responses", requestBody("responses", [fn("responses", "bash")]), "<python>\nprint(1)\n</python>")).calls.map((call) => call.name)).toEqual(["bash"]);
  });
});
