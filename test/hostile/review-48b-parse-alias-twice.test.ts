/**
 * Review 48b (parse): an alias of a tool declared twice is read under every declaration (aliases.ts
 * aliasSpec, span.ts sameUnderEveryDeclaration), "so the reading never depends on declaration
 * order". Attack: two declarations of bash that differ in whether `workdir` exists (the second
 * allows extra keys, so the schema gate passes both). Every case runs whole, char by char and at
 * seeded random splits (run-engine.ts runAtEverySplit).
 */
import { describe, expect, test } from "bun:test";
import { runAtEverySplit } from "../support/run-engine.ts";
import { live } from "../golden/notation.ts";
import type { ToolSpec } from "../../src/parse/types.ts";

const withWorkdir: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, workdir: { type: "string" } }, required: ["command"] } };
const withoutWorkdir: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, timeout: { type: "string" } }, required: ["command"] } };
const calls = (input: string, tools: ToolSpec[]) => runAtEverySplit(input, tools).calls.map((c) => ({ tool: c.tool, input: c.input }));

const forms: [string, string][] = [
  ["DSML", live(`<{D}tool_calls>\n<{D}invoke name="execute_command">\n<{D}parameter name="command" string="true">ls</{D}parameter>\n<{D}parameter name="cwd" string="true">/</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`)],
  ["Qwen3-Coder", `<tool_call>\n<function=execute_command>\n<parameter=command>\nls\n</parameter>\n<parameter=cwd>\n/\n</parameter>\n</function>\n</tool_call>`],
  ["Hermes", `<tool_call>\n{"name":"execute_command","arguments":{"command":"ls","cwd":"/"}}\n</tool_call>`],
  ["tool_name/tool_args", `<tool_call><tool_name>execute_command</tool_name><tool_args>{"command":"ls","cwd":"/"}</tool_args></tool_call>`],
];

describe("fixed: execute_command's cwd is refused under either order when one of bash's declarations lacks workdir", () => {
  // Severity: low-medium (trust: the same reply runs `ls` in `/` under one order and is refused under
  // the other; a declaration without workdir never named the parameter the call is sent with). Not
  // new this round (main did the same for DSML, Qwen3-Coder and Hermes), but the round's alias fix
  // claims order independence. Suspected: src/parse/aliases.ts mapAliasCall / span.ts
  // sameUnderEveryDeclaration: the parameter renames are checked against the first declaration
  // (MAPPINGS' target) only; the rereads under the other declarations only compare readings.
  // Expected: the same outcome under both orders; fail closed (refused) when one declaration has
  // no counterpart for cwd.
  for (const [name, input] of forms) {
    test(`${name}: both orders give the same calls`, () => {
      expect(calls(input, [withWorkdir, withoutWorkdir])).toEqual(calls(input, [withoutWorkdir, withWorkdir]));
    });
  }
});

describe("fx48b: the alias's renames are checked against every declaration of its target", () => {
  const withWorkdirAndTimeout: ToolSpec = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, workdir: { type: "string" }, timeout: { type: "string" } }, required: ["command"] } };
  for (const [name, input] of forms) {
    test(`${name}: one declaration without workdir: refused under both orders`, () => {
      expect(calls(input, [withWorkdir, withoutWorkdir])).toEqual([]);
      expect(calls(input, [withoutWorkdir, withWorkdir])).toEqual([]);
    });
    test(`${name}: both declarations take workdir: it runs as bash with workdir`, () => {
      expect(calls(input, [withWorkdir, withWorkdirAndTimeout])).toEqual([{ tool: "bash", input: { command: "ls", workdir: "/" } }]);
    });
  }
});
