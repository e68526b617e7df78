/**
 * Review 50 (hostile, tests only): how a raw parameter text is typed when the parameter's schema is
 * reached through the OBJECT's applicators (allOf / anyOf / oneOf / if-then, additionalProperties,
 * patternProperties) rather than through `properties`. Review 47 fixed "one markup gives one
 * argument" for a place whose own schema spells a string in another way (a type array, anyOf,
 * allOf, a local $ref: src/parse/schema-walk.ts placeTypes). The walk to the place itself
 * (propertySchema) still follows only `properties` and `$ref`.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { parse } from "../../src/engine/parse.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { completion, openAiTools, sdkTools, textStream, throughFetch, throughMiddleware, type Json } from "../security/support.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** A DSML call to bash; params as [name, raw value, string attribute]. */
const dsml = (params: [string, string, "true" | "false"][]) =>
  live(`Cleaning up.\n<{D}tool_calls>\n<{D}invoke name="bash">\n${params.map(([k, v, s]) => `<{D}parameter name="${k}" string="${s}">${v}</{D}parameter>`).join("\n")}\n</{D}invoke>\n</{D}tool_calls>`);
/** `string="false"` holding a JSON string literal: decoded it is two shell commands, raw it is one quoted word. */
const LITERAL = '"echo a\\nrm -rf ~"';
const REPLY = dsml([["command", LITERAL, "false"]]);
const bash = (parameters: JsonSchema): ToolSpec => ({ name: "bash", parameters });
const STRING = { type: "string" } as const;

/** The reference reading (review 47's rule): a string place keeps the raw text. */
const PLAIN = bash({ type: "object", properties: { command: STRING }, required: ["command"] });

const inputs = (reply: string, tools: ToolSpec[]) => parse(reply, tools).calls.map((c) => c.input);

describe("a string parameter declared through the object's applicators is JSON-decoded", () => {
  // Severity: argument coerced wrongly (medium: the call runs with a value other than the one the
  // same markup gives for `properties: {command: {type: "string"}}`; here a second shell command).
  // zod 4 writes `a.and(b)` as a root `allOf`, a discriminated union as a root `oneOf`/`anyOf`
  // (Pydantic alike), `z.record(z.string())` as `additionalProperties: {type: "string"}`.
  // Minimal input: bash with {type: object, allOf: [{properties: {command: {type: string}}}]};
  // `<parameter name="command" string="false">"echo a\nrm -rf ~"</parameter>` runs
  // {command: "echo a<LF>rm -rf ~"}; with `properties` it runs {command: "\"echo a\\nrm -rf ~\""}.
  // docs/PATTERNS.md (Values): "string-typed parameters always keep the raw text ... and so does
  // every parameter whose schema admits a string, however it says so". Suspected:
  // src/parse/schema-walk.ts propertySchema() (follows `properties` and `$ref` only; undefined
  // here), then src/parse/values.ts coerceValue() with no schema (`types.size === 0` and
  // `string="false"`: parseJson) from src/parse/invoke-input.ts buildAnyInput(); the gate's ajv
  // finds the string place and accepts the decoded text. Expected: the same argument as PLAIN
  // gives (raw text), or the call refused as unreadable (as UNFOLLOWED_PLACE is), never decoded.
  test("hard negative (passes today): `properties` keeps the raw text", () => {
    expect(inputs(REPLY, [PLAIN])).toEqual([{ command: LITERAL }]);
  });

  const shapes: [string, ToolSpec][] = [
    ["root allOf (zod .and())", bash({ type: "object", allOf: [{ properties: { command: STRING }, required: ["command"] }] })],
    ["root anyOf of objects", bash({ anyOf: [{ type: "object", properties: { command: STRING }, required: ["command"] }] })],
    ["root oneOf (a discriminated union)", bash({ type: "object", oneOf: [{ properties: { command: STRING }, required: ["command"] }, { properties: { script: STRING }, required: ["script"] }] })],
    ["if/then", bash({ type: "object", properties: { mode: STRING }, if: { properties: { mode: { const: "shell" } } }, then: { properties: { command: STRING } } })],
    ["additionalProperties {type: string}", bash({ type: "object", additionalProperties: STRING })],
    ["patternProperties", bash({ type: "object", patternProperties: { "^comm": STRING }, additionalProperties: false })],
  ];
  for (const [name, tool] of shapes) {
    test.failing(`${name}: the literal is not decoded into two commands`, () => {
      const calls = inputs(REPLY, [tool]);
      for (const input of calls) expect(input.command).toBe(LITERAL);
    });
  }

  test.failing("streaming, char by char and at random splits: the same (root allOf)", () => {
    const run = runAtEverySplit(REPLY, [shapes[0]![1]]);
    for (const call of run.calls) expect(call.input.command).toBe(LITERAL);
  });

  test.failing("chat completions through the fetch adapter (root allOf)", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools([shapes[0]![1]]) }, { json: completion(REPLY) });
    for (const call of out.calls) expect(JSON.parse(call.arguments).command).toBe(LITERAL);
  });

  test.failing("Anthropic Messages through the fetch adapter (root oneOf)", async () => {
    const tool = shapes[2]![1];
    const answer = { id: "msg_50", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: REPLY }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
    const upstream = (async () => new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
    const request = { model: "m", max_tokens: 64, tools: [{ name: tool.name, input_schema: tool.parameters }], messages: [{ role: "user", content: "go" }] };
    const res = await repairFetch({}, upstream)("http://model.test/v1/messages", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
    const uses = ((await res.json()) as Json).content as Json[];
    for (const block of uses.filter((b) => b.type === "tool_use")) expect((block.input as Json).command).toBe(LITERAL);
  });

  test.failing("AI SDK middleware (additionalProperties)", async () => {
    const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "go" }] }];
    const run = await throughMiddleware(prompt, textStream(REPLY), {}, { tools: sdkTools([shapes[4]![1]]) });
    for (const call of run.calls) expect(JSON.parse(call.input).command).toBe(LITERAL);
  });
});

describe("hard negatives (pass today): what the same schemas must keep doing", () => {
  const allOf = bash({ type: "object", allOf: [{ properties: { command: STRING, timeout: { type: "integer" } }, required: ["command"] }] });

  test("string=\"true\" keeps the raw text under every shape", () => {
    expect(inputs(dsml([["command", LITERAL, "true"]]), [allOf])).toEqual([{ command: LITERAL }]);
  });

  test("plain text under string=\"false\" (no JSON) stays as written", () => {
    expect(inputs(dsml([["command", "ls -la", "false"]]), [allOf])).toEqual([{ command: "ls -la" }]);
  });

  test("a value that is no string for the place is refused by the gate, not run", () => {
    for (const raw of ["600", "true", "null", '{"a": 1}']) {
      expect(inputs(dsml([["command", raw, "false"]]), [allOf])).toEqual([]);
    }
  });

  test("a required parameter declared only in a branch is still required", () => {
    expect(inputs(dsml([["timeout", "5", "false"]]), [allOf])).toEqual([]);
  });
});
