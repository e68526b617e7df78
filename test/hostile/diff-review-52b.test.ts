/**
 * Diff review 52 b (hostile, tests only): the round's history, schema-reference, wake-race, chat
 * SSE and quote hand-over changes. Failing tests are findings; every other test is a hard negative
 * that passes on int52.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

/** A DSML call to bash with one `command` parameter and its string attribute. */
const dsml = (value: string, string: "true" | "false") =>
  live(`Cleaning up.\n<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="${string}">${value}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
/** `string="false"` holding a JSON string literal: decoded it is two shell commands, raw it is one quoted word. */
const LITERAL = '"echo a\\nrm -rf ~"';
const bashWith = (parameters: Record<string, unknown>): ToolSpec[] => [{ name: "bash", parameters: parameters as JsonSchema }];
const inputs = (reply: string, tools: ToolSpec[]) => parse(reply, tools).calls.map((c) => c.input);

describe("finding: a nested `$id` that resolves to the walk's private base URI makes every reference of the schema unresolved", () => {
  // Severity: missed call (low; fails closed, never a wrong execution).
  // What is wrong: schema-refs.ts resolves relative `$id`s against ROOT_BASE
  // ("https://dsml-fix.invalid/schema") in place of ajv's "" and registers the root under that URI
  // last. A nested `$id: "schema"` (or "./schema") resolves to that same URI, so the root's key is
  // "named twice" (ambiguous) and every reference into the root, or to that `$id`, is unresolved:
  // placeTypes gives up and the call is refused. The gate's ajv resolves "schema" against "" and
  // compiles the schema; it accepts the call.
  // Minimal input: bash {properties: {command: {$ref: "schema"}}, $defs: {c: {$id: "schema", type: "string"}}},
  // `<parameter name="command" string="true">ls -la</parameter>` recovers no call.
  // Suspected: src/parse/schema-refs.ts indexOf()/ROOT_BASE (the private base is a URI a schema can spell).
  // Expected: {command: "ls -la"}, as with `$id: "Cmd"`; e.g. a base no relative reference can reach
  // (a URI with a unique, non-path-like last segment), or the root registered apart from `$id`s.
  // Fixed: the private base's last segment is one no schema writes as an `$id`
  // (dsml-fix-root-schema.json), so `$id: "schema"` and `"./schema"` are URIs of their own.
  test("`$id: \"schema\"` referenced by `$ref: \"schema\"`: the call is recovered", () => {
    expect(inputs(dsml("ls -la", "true"), bashWith({ type: "object", properties: { command: { $ref: "schema" } }, $defs: { c: { $id: "schema", type: "string" } } }))).toEqual([{ command: "ls -la" }]);
  });

  test("a nested `$id: \"./schema\"` elsewhere leaves a plain `#/$defs` pointer resolvable", () => {
    expect(inputs(dsml("ls -la", "true"), bashWith({ type: "object", properties: { command: { $ref: "#/$defs/c" } }, $defs: { c: { type: "string" }, other: { $id: "./schema", type: "integer" } } }))).toEqual([{ command: "ls -la" }]);
  });

  test("hard negative: TypeBox's `$id: \"Cmd\"` keeps the raw text of string=\"false\"", () => {
    expect(inputs(dsml(LITERAL, "false"), bashWith({ type: "object", properties: { command: { $ref: "Cmd" } }, $defs: { c: { $id: "Cmd", type: "string" } } }))).toEqual([{ command: LITERAL }]);
  });

  test("hard negative: `$id: \"schema\"` never decodes the literal (refused or raw, never two commands)", () => {
    const got = inputs(dsml(LITERAL, "false"), bashWith({ type: "object", properties: { command: { $ref: "schema" } }, $defs: { c: { $id: "schema", type: "string" } } }));
    expect(got.some((i) => i.command === "echo a\nrm -rf ~")).toBe(false);
  });
});

describe("hard negatives: references the walk resolves as ajv does", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["`%2F` in a pointer token is a `/` inside the token (ajv: the same)", { type: "object", properties: { command: { $ref: "#/$defs/a%2Fb" } }, $defs: { "a/b": { type: "string" }, a: { b: { type: "integer" } } } }],
    ["`~1` is `/` and `%25` is `%`", { type: "object", properties: { command: { $ref: "#/$defs/a~1b%25" } }, $defs: { "a/b%": { type: "string" } } }],
    ["an `$anchor` inside a nested `$id` is not the root's", { type: "object", properties: { command: { $ref: "#cmd" } }, $defs: { inner: { $id: "inner", $defs: { c: { $anchor: "cmd" } } }, c: { $anchor: "cmd", type: "string" } } }],
    ["a root URN `$id` with a `#/$defs` pointer", { $id: "urn:example:root", type: "object", properties: { command: { $ref: "#/$defs/c" } }, $defs: { c: { type: "string" } } }],
    ["an `$id` inside `const` names nothing", { type: "object", properties: { command: { $ref: "https://k.test/c" } }, $defs: { c: { $id: "https://k.test/c", type: "string" }, d: { const: { $id: "https://k.test/c" } } } }],
  ];
  for (const [name, schema] of cases) {
    test(`${name}: string="false" keeps the raw text`, () => {
      expect(inputs(dsml(LITERAL, "false"), bashWith(schema))).toEqual([{ command: LITERAL }]);
    });
  }
});

describe("hard negatives: the quote hand-over keeps common real calls", () => {
  const call = (cmd: string) => live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">${cmd}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const hermes = (cmd: string) => `<tool_call>\n{"name": "bash", "arguments": {"command": "${cmd}"}}\n</tool_call>`;
  const cases: [string, string][] = [
    ["a fenced DSML example, closed, then the real call", "The format looks like this:\n\n```\n" + call("echo example") + "\n```\n\nNow the real one:\n\n" + call("ls -la")],
    ["a fenced Hermes example, then the real call", "Format:\n\n```xml\n" + hermes("echo example") + "\n```\n\nRunning it now.\n" + hermes("ls -la")],
    ["a quoted Hermes example in prose, then the real call", 'The JSON is "<tool_call>{}</tool_call>".\n\n' + hermes("ls -la")],
    ["a reply that is only the call (prefill)", call("ls -la")],
  ];
  for (const [name, reply] of cases) {
    test(`${name}: one call, ls -la (whole, char by char, split)`, () => {
      expect(outcome(reply).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    });
  }
});
