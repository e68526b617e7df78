/**
 * Hostile review of the round-55 source diff (main..int55), part a: the request-side fixes
 * (src/adapters/request-keys.ts keyWrittenTwice, src/wires/declared-names.ts reserved names).
 * Each finding is a `test.failing` with its comment block; hard negatives beside it pass.
 * Every case goes through the fetch adapter (repairFetch) with a fake upstream answering JSON.
 */
import { describe, expect, test } from "bun:test";
import { fn, leak, requestBody, run } from "./review-55-request-support.ts";

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
  test.failing("a user message writing `content` twice: the echoed quoted call does not run", async () => {
    const body = chatMessages(`{"role":"user","content":${JSON.stringify(QUOTING)},"content":"hi"}`);
    expect((await run("chat", body, RM)).calls).toEqual([]);
  });

  test.failing("a tool writing `function.name` twice (read, then bash): no bash call is recovered", async () => {
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
  test.failing("a `namespace` holding execute_command: the alias does not run as the local bash", async () => {
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
  test.failing("Responses `mcp` without allowed_tools: execute_command does not run as bash", async () => {
    const tools = [fn("responses", "bash"), { type: "mcp", server_label: "remote", server_url: "https://mcp.example", require_approval: "never" }];
    expect((await run("responses", requestBody("responses", tools), EXEC)).calls).toEqual([]);
  });

  test.failing("Anthropic `mcp_servers` without a tool list: execute_command does not run as bash", async () => {
    const body = requestBody("anthropic", [fn("anthropic", "bash"), { type: "mcp_toolset", mcp_server_name: "remote" }], { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "remote" }] });
    expect((await run("anthropic", body, EXEC)).calls).toEqual([]);
  });

  test("hard negative: no MCP server at all: execute_command runs as bash (the alias)", async () => {
    expect((await run("responses", requestBody("responses", [fn("responses", "bash")]), EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
    expect((await run("anthropic", requestBody("anthropic", [fn("anthropic", "bash")]), EXEC)).calls).toEqual([{ name: "bash", args: { command: "ls" } }]);
  });

  test("hard negative: Anthropic mcp_servers listing execute_command reserve it: no call", async () => {
    const body = requestBody("anthropic", [fn("anthropic", "bash")], { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "remote", tool_configuration: { enabled: true, allowed_tools: ["execute_command"] } }] });
    expect((await run("anthropic", body, EXEC)).calls).toEqual([]);
  });
});
