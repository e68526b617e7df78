/**
 * Review 55 (hostile, tests only): tool names across the older dialects (Hermes O01, Qwen3-Coder
 * O02, LFM2 O08, named T01) and the alias table (src/parse/aliases.ts). Every case runs whole, char
 * by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { withAliases } from "../../src/parse/aliases.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome } from "../support/outcome.ts";
import { runAtEverySplit, runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
const str = { type: "string" };

const hermes = (name: string, args: string) => `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;
const qwen = (name: string, key: string, value: string) => `<tool_call>\n<function=${name}>\n<parameter=${key}>\n${value}\n</parameter>\n</function>\n</tool_call>`;
const lfm2 = (body: string) => `<|tool_call_start|>[${body}]<|tool_call_end|>`;
const named = (name: string, body: string) => `<tool_call name="${name}">${body}</tool_call>`;

/** An MCP server's `execute_command`, as OpenCode names it (`<server>_<tool>`) and as Claude Code does (`mcp__<server>__<tool>`). */
const remoteShell: ToolSpec = { name: "remote_execute_command", parameters: obj({ command: str }, ["command"]) };
const mcpShell: ToolSpec = { name: "mcp__remote__execute_command", parameters: obj({ command: str }, ["command"]) };
/** The MCP filesystem server's `read_file` (sandboxed to its allowed directories), as OpenCode names it. */
const mcpRead: ToolSpec = { name: "filesystem_read_file", parameters: obj({ path: str }, ["path"]) };

describe("an alias re-targets a name that a declared namespaced tool carries as its own", () => {
  // Severity: wrong execution. The request declares an MCP tool whose own name is one of the alias
  // table's (`execute_command`, `read_file`), under the host's namespace: OpenCode declares it as
  // `remote_execute_command`, Claude Code style hosts as `mcp__remote__execute_command`. Models drop
  // such prefixes (they write `functions.bash` and `default_api.bash` for the same reason). A call to
  // the bare `execute_command` then runs as the local `bash` (and `read_file` as the local `read`,
  // outside the MCP server's allowed directories), though the tool the model most plausibly meant is
  // the remote one the request declared. Review 42 made an exactly declared or denied
  // `execute_command` reserved (withAliases `reserved`), so that "a call to it is that tool's or
  // nothing, never bash's"; a declared tool whose name ends in `_execute_command` (or `__read_file`)
  // is not, so the bare name is re-targeted to another tool.
  // Minimal input: tools bash + remote_execute_command; `<tool_call>{"name": "execute_command",
  //   "arguments": {"command": "ls"}}</tool_call>`.
  // Suspected: src/parse/aliases.ts withAliases() (only exact names are `taken`); the reserved
  // names the adapters pass (EngineOptions.reservedNames).
  // Expected: no call (undeclared-tool or broken-markup): which of the two tools was meant is
  // unknowable, so neither runs; the alias stays as it is when no declared name ends in it.
  // Fixed: an alias is not taken when any declared name (recoverable or reserved) ends in it after
  // a namespace separator (`_`, `__`, `.`, `-`, `/`, `:`), compared case-sensitively
  // (aliases.ts namespacedAliases, built once per tool list); the bare name is then undeclared.
  test("Hermes: execute_command does not run as bash when remote_execute_command is declared", () => {
    expect(outcome(hermes("execute_command", '{"command": "ls"}'), [...fixtureTools, remoteShell]).calls).toEqual([]);
  });

  test("Hermes: execute_command does not run as bash when mcp__remote__execute_command is declared", () => {
    expect(outcome(hermes("execute_command", '{"command": "ls"}'), [...fixtureTools, mcpShell]).calls).toEqual([]);
  });

  test("Qwen3-Coder: <function=execute_command> does not run as bash beside remote_execute_command", () => {
    expect(outcome(qwen("execute_command", "command", "ls"), [...fixtureTools, remoteShell]).calls).toEqual([]);
  });

  test("LFM2: read_file(path=...) does not run as the local read beside filesystem_read_file", () => {
    expect(outcome(lfm2("read_file(path='/etc/passwd')"), [...fixtureTools, mcpRead]).calls).toEqual([]);
  });

  test('named: <tool_call name="execute_command"> does not run as bash beside remote_execute_command', () => {
    expect(outcome(named("execute_command", '{"command": "ls"}'), [...fixtureTools, remoteShell]).calls).toEqual([]);
  });

  // Hard negatives: what must keep working.
  test("control (passes today): with no namespaced tool declared, the alias runs as bash", () => {
    expect(outcome(hermes("execute_command", '{"command": "ls"}')).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("control (passes today): the namespaced tool's own full name runs as itself", () => {
    expect(outcome(hermes("remote_execute_command", '{"command": "ls"}'), [...fixtureTools, remoteShell]).calls).toEqual([
      { tool: "remote_execute_command", input: { command: "ls" } },
    ]);
  });

  test("control (passes today): an unrelated namespaced tool leaves the alias alone", () => {
    const other: ToolSpec = { name: "remote_fetch_url", parameters: obj({ url: str }, ["url"]) };
    expect(outcome(lfm2("execute_command(command='ls')"), [...fixtureTools, other]).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("every namespace separator qualifies the bare name: `.`, `-`, `/`, `:` as `_` and `__` do", () => {
    for (const prefix of ["functions.", "remote-", "remote/", "remote:", "_"]) {
      const tool: ToolSpec = { name: `${prefix}execute_command`, parameters: obj({ command: str }, ["command"]) };
      expect({ prefix, calls: outcome(hermes("execute_command", '{"command": "ls"}'), [...fixtureTools, tool]).calls }).toEqual({ prefix, calls: [] });
    }
  });

  test("a namespaced tool that policy took out (a reserved name) qualifies the bare name too", () => {
    const input = hermes("execute_command", '{"command": "ls"}');
    const run = runEngine(input, [], fixtureTools, { reservedNames: ["mcp__remote__execute_command"] });
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(input);
  });

  test("the model's bare name is kept as text: nothing lost, the undeclared-tool nudge", () => {
    const input = hermes("execute_command", '{"command": "ls"}');
    const run = runAtEverySplit(input, [...fixtureTools, remoteShell]);
    expect(run.calls).toEqual([]);
    expect(run.text).toBe(input);
    expect(run.summary.nudge).toBe("undeclared-tool");
  });

  test("only the qualified alias is withheld: read_file still runs as read beside remote_execute_command", () => {
    expect(outcome(lfm2("read_file(path='/a')"), [...fixtureTools, remoteShell]).calls).toEqual([{ tool: "read", input: { filePath: "/a" } }]);
  });

  test("hard negative: a name that ends in the alias with no separator before it, or in another case, leaves the alias alone", () => {
    for (const name of ["myexecute_command", "remote_Execute_command", "remote_EXECUTE_COMMAND", "execute_command_remote"]) {
      const tool: ToolSpec = { name, parameters: obj({ command: str }, ["command"]) };
      expect({ name, calls: outcome(hermes("execute_command", '{"command": "ls"}'), [...fixtureTools, tool]).calls }).toEqual({
        name, calls: [{ tool: "bash", input: { command: "ls" } }],
      });
    }
  });

  test("the qualified names are found in work linear in the number of declared tools", () => {
    const toolsOf = (n: number) => Array.from({ length: n }, (_, i): ToolSpec => ({ name: `server${i}_execute_comman${i % 10}`, parameters: obj({ a: str }, []) }));
    const work = (n: number) => {
      const declared = [...fixtureTools, ...toolsOf(n)];
      return countWork(() => {
        const map = new Map(declared.map((t) => [t.name, t] as const));
        withAliases(map, declared.map((t) => `denied_${t.name}`));
      });
    };
    const small = work(500);
    const large = work(5000);
    expect(large).toBeLessThan(small * 10 * 1.5 + 1000);
  });
});

describe("names the model qualified or spelled otherwise never reach a declared tool", () => {
  // Hard negatives (pass today): a namespace the model added, a case variant that is no alias, a
  // name with white space or a NUL, a close but undeclared name. None runs anything.
  const cases: [string, string][] = [
    ["Hermes functions.bash", hermes("functions.bash", '{"command": "ls"}')],
    ["Hermes default_api.bash", hermes("default_api.bash", '{"command": "ls"}')],
    ["Hermes mcp__server__bash", hermes("mcp__server__bash", '{"command": "ls"}')],
    ["Hermes BASH", hermes("BASH", '{"command": "ls"}')],
    ["Hermes 'bash ' (trailing space)", hermes("bash ", '{"command": "ls"}')],
    ["Hermes bash\\u0000", hermes("bash\\u0000", '{"command": "ls"}')],
    ["Hermes bashh", hermes("bashh", '{"command": "ls"}')],
    ["Qwen functions.bash", qwen("functions.bash", "command", "ls")],
    ["Qwen BASH", qwen("BASH", "command", "ls")],
    ["LFM2 default_api.bash", lfm2("default_api.bash(command='ls')")],
    ["LFM2 BASH", lfm2("BASH(command='ls')")],
    ["LFM2 EXECUTE_COMMAND", lfm2("EXECUTE_COMMAND(command='ls')")],
    ["named ' bash '", named(" bash ", '{"command": "ls"}')],
    ["named functions.bash", named("functions.bash", '{"command": "ls"}')],
  ];
  for (const [label, input] of cases) {
    test(`${label}: no call, text kept`, () => {
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }

  test("two aliases of one declared tool in one list are two calls of it, each mapped on its own", () => {
    expect(outcome(lfm2("execute_command(command='ls', cwd='/tmp'), Bash(command='pwd', timeout=5)")).calls).toEqual([
      { tool: "bash", input: { command: "ls", workdir: "/tmp" } },
      { tool: "bash", input: { command: "pwd", timeout: 5 } },
    ]);
  });

  test("an alias carrying the declared tool's own parameter name (workdir) beside its own is refused", () => {
    expect(outcome(lfm2("execute_command(command='ls', workdir='/tmp')")).calls).toEqual([]);
  });
});
