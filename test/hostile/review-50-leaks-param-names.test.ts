/**
 * Review 50 (leaks): a parameter name the tool does not declare rides along as an extra argument.
 * Degradations a long-context reply writes into the name attribute (a space inside the quotes, a
 * letter's case, `work_dir` for `workdir`) give a key the tool has no parameter for. OpenCode
 * 1.18.33's built-in schemas (src/tools/opencode-builtins.ts, captured from the binary) carry no
 * `additionalProperties: false`, so the schema gate (ajv) lets the key through, and the host's zod
 * object schema strips it before the tool runs: the call executes with the tool's default in place
 * of what the model wrote (`rm -rf ./*` in the project instead of in /tmp/scratch).
 * Cases run whole, char by char and at seeded random splits (outcome()), with OpenCode's own tools.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { opencodeBuiltinTools } from "../../src/tools/opencode-builtins.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

const rmIn = (nameAttr: string) =>
  live(
    `Cleaning the scratch dir.\n<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf ./*</{D}parameter>\n<{D}parameter ${nameAttr} string="true">/tmp/scratch</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`,
  );

/** Keys of a recovered call that the tool's schema does not declare. */
function undeclaredKeys(tools: readonly ToolSpec[], call: { tool: string; input: Record<string, unknown> }): string[] {
  const props = (tools.find((t) => t.name === call.tool)?.parameters as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return Object.keys(call.input).filter((k) => !Object.hasOwn(props, k));
}

describe("finding: a misspelled parameter name runs the call without that argument", () => {
  // Severity: wrong execution (medium-high: the command the model meant for /tmp/scratch runs in
  // the session's directory; a `read` limit or an `edit` replaceAll is likewise dropped to its
  // default). Possibly judged a policy choice (ajv accepts the key; review 47 pinned only the
  // `additionalProperties: false` case), but the host discards the key, so the argument the model
  // wrote is not what runs: "a default filled in".
  // Minimal input: a bash invoke with `command` = `rm -rf ./*` and `<{D}parameter name="workdir "
  // string="true">/tmp/scratch</{D}parameter>` -> bash {command, "workdir ": "/tmp/scratch"}.
  // Suspected: src/parse/schema-gate.ts (only what ajv rejects is refused) and
  // src/parse/invoke-input.ts (every parameter name is taken as written).
  // Expected: a call carrying a key its tool's `properties` do not declare (for a tool that declares
  // properties) is refused (broken-markup / invalid-arguments, the correction already has the words
  // "one of its arguments is not a parameter of that tool"), or the name is mapped to the declared
  // one only when that is unambiguous (trimmed). Never run with the key silently dropped.
  for (const [name, attr] of [
    ["a space inside the quotes", `name="workdir "`],
    ["a letter's case", `name="Workdir"`],
    ["an underscore", `name="work_dir"`],
    ["one letter lost", `name="wrkdir"`],
  ] as const) {
    test.failing(name, () => {
      const o = outcome(rmIn(attr), opencodeBuiltinTools);
      for (const call of o.calls) expect(undeclaredKeys(opencodeBuiltinTools, call)).toEqual([]);
    });
  }
  test.failing("the same through parse(): a read whose `limit` was spelled `Limit` runs without a limit", () => {
    const text = live(`<{D}tool_calls>\n<{D}invoke name="read">\n<{D}parameter name="filePath" string="true">/var/log/big.log</{D}parameter>\n<{D}parameter name="Limit" string="false">20</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    const r = parse(text, opencodeBuiltinTools);
    for (const call of r.calls) expect(undeclaredKeys(opencodeBuiltinTools, call)).toEqual([]);
  });
});

describe("hard negatives (pass today)", () => {
  test("the declared name runs with its value", () => {
    expect(outcome(rmIn(`name="workdir"`), opencodeBuiltinTools).calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*", workdir: "/tmp/scratch" } }]);
  });
  test("an unquoted declared name runs with its value", () => {
    expect(outcome(rmIn(`name=workdir`), opencodeBuiltinTools).calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*", workdir: "/tmp/scratch" } }]);
  });
  test("a tool whose schema declares no properties (an open MCP tool) still takes any key", () => {
    const open: ToolSpec[] = [{ name: "bash", parameters: { type: "object" } }];
    expect(outcome(rmIn(`name="work_dir"`), open).calls).toEqual([{ tool: "bash", input: { command: "rm -rf ./*", work_dir: "/tmp/scratch" } }]);
  });
  test("under additionalProperties false the misspelled key is already refused", () => {
    const strict: ToolSpec[] = [{ name: "bash", parameters: { type: "object", properties: { command: { type: "string" }, workdir: { type: "string" } }, required: ["command"], additionalProperties: false } }];
    expect(outcome(rmIn(`name="work_dir"`), strict).calls).toEqual([]);
  });
});
