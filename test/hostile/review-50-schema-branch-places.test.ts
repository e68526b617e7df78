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
import { placeTypes, propertySchema } from "../../src/parse/schema-walk.ts";
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
  // Fixed: src/parse/schema-walk.ts propertySchema() collects every place the object's schema may
  // hold the key (`properties`, a matching `patternProperties` pattern, else
  // `additionalProperties`/`unevaluatedProperties`, in the object and in every schema that applies
  // to it: allOf/anyOf/oneOf, if/then/else, dependentSchemas, a local $ref); several places are read
  // as their anyOf, so one that admits a string keeps the raw text. A pattern is matched only when
  // it is literal text with ^/$ anchors (no RegExp built from a schema); any other counts as a
  // possible place. Past MAX_DEPTH or MAX_VISITS, or around a cycle, the place is unfollowed: refused.
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
    test(`${name}: the literal is not decoded into two commands`, () => {
      const calls = inputs(REPLY, [tool]);
      for (const input of calls) expect(input.command).toBe(LITERAL);
    });
  }

  test("streaming, char by char and at random splits: the same (root allOf)", () => {
    const run = runAtEverySplit(REPLY, [shapes[0]![1]]);
    for (const call of run.calls) expect(call.input.command).toBe(LITERAL);
  });

  test("chat completions through the fetch adapter (root allOf)", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools([shapes[0]![1]]) }, { json: completion(REPLY) });
    for (const call of out.calls) expect(JSON.parse(call.arguments).command).toBe(LITERAL);
  });

  test("Anthropic Messages through the fetch adapter (root oneOf)", async () => {
    const tool = shapes[2]![1];
    const answer = { id: "msg_50", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: REPLY }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
    const upstream = (async () => new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
    const request = { model: "m", max_tokens: 64, tools: [{ name: tool.name, input_schema: tool.parameters }], messages: [{ role: "user", content: "go" }] };
    const res = await repairFetch({}, upstream)("http://model.test/v1/messages", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
    const uses = ((await res.json()) as Json).content as Json[];
    for (const block of uses.filter((b) => b.type === "tool_use")) expect((block.input as Json).command).toBe(LITERAL);
  });

  test("AI SDK middleware (additionalProperties)", async () => {
    const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "go" }] }];
    const run = await throughMiddleware(prompt, textStream(REPLY), {}, { tools: sdkTools([shapes[4]![1]]) });
    for (const call of run.calls) expect(JSON.parse(call.input).command).toBe(LITERAL);
  });
});

describe("hard negatives: what the same schemas must keep doing", () => {
  const allOf = bash({ type: "object", allOf: [{ properties: { command: STRING, timeout: { type: "integer" } }, required: ["command"] }] });

  test("string=\"true\" keeps the raw text (root allOf)", () => {
    expect(inputs(dsml([["command", LITERAL, "true"]]), [allOf])).toEqual([{ command: LITERAL }]);
  });

  test("plain text under string=\"false\" (no JSON) stays as written", () => {
    expect(inputs(dsml([["command", "ls -la", "false"]]), [allOf])).toEqual([{ command: "ls -la" }]);
  });

  // Fix 50: this hard negative first asserted that these were refused, which they were only because
  // the literal was decoded (600 the number, no string). Under `properties` the same markup keeps
  // the raw text ("600") and runs (review 47's rule); one markup gives one argument, so the branch
  // place reads them as that place does.
  test("a JSON literal that is no string reads as under `properties`: the raw text", () => {
    for (const raw of ["600", "true", "null", '{"a": 1}']) {
      expect(inputs(dsml([["command", raw, "false"]]), [allOf])).toEqual(inputs(dsml([["command", raw, "false"]]), [PLAIN]));
      expect(inputs(dsml([["command", raw, "false"]]), [allOf])).toEqual([{ command: raw }]);
    }
  });

  test("a required parameter declared only in a branch is still required", () => {
    expect(inputs(dsml([["timeout", "5", "false"]]), [allOf])).toEqual([]);
  });
});

describe("fix 50 (branch places): hard negatives", () => {
  const allOf = bash({ type: "object", allOf: [{ properties: { command: STRING, timeout: { type: "integer" } }, required: ["command"] }] });

  test("a non-string place reached through a branch is still typed: an integer is read as one", () => {
    expect(inputs(dsml([["command", "ls", "true"], ["timeout", "5", "false"]]), [allOf])).toEqual([{ command: "ls", timeout: 5 }]);
    const union = bash({ type: "object", oneOf: [{ properties: { command: STRING }, required: ["command"] }, { properties: { retries: { type: "integer" } }, required: ["retries"] }] });
    expect(inputs(dsml([["retries", "3", "false"]]), [union])).toEqual([{ retries: 3 }]);
  });

  test("branches that disagree: one admits a string, so the raw text; the gate checks the rest", () => {
    const split = bash({ type: "object", anyOf: [{ properties: { command: { type: "array", items: STRING } } }, { properties: { command: STRING } }], required: ["command"] });
    expect(inputs(REPLY, [split])).toEqual([{ command: LITERAL }]);
    // allOf of a string place and an integer place: nothing fits both, so no call (never a decoded value).
    const clash = bash({ type: "object", allOf: [{ properties: { command: STRING } }, { properties: { command: { type: "integer" } } }], required: ["command"] });
    expect(inputs(dsml([["command", "5", "false"]]), [clash])).toEqual([]);
    expect(inputs(REPLY, [clash])).toEqual([]);
  });

  test("additionalProperties: false with a pattern the key misses: no place, the gate refuses the key", () => {
    const strict = bash({ type: "object", properties: { command: STRING }, patternProperties: { "^x-": STRING }, additionalProperties: false, required: ["command"] });
    expect(inputs(dsml([["command", LITERAL, "false"], ["x-note", LITERAL, "false"]]), [strict])).toEqual([{ command: LITERAL, "x-note": LITERAL }]);
    expect(inputs(dsml([["command", "ls", "true"], ["extra", "1", "false"]]), [strict])).toEqual([]);
  });

  test("an empty additionalProperties schema gives no place (as `true`), a keyword-less schema says nothing", () => {
    expect(propertySchema({ type: "object", additionalProperties: {} }, "command")).toBeUndefined();
    expect(propertySchema({ type: "object", additionalProperties: true }, "command")).toBeUndefined();
    expect(propertySchema({ type: "object", additionalProperties: STRING }, "command")).toEqual(STRING);
  });

  test("a $ref cycle among the object's own schemas terminates, unfollowed: the call is refused", () => {
    const cyclic = bash({ type: "object", $defs: { a: { allOf: [{ $ref: "#/$defs/b" }] }, b: { allOf: [{ $ref: "#/$defs/a" }], properties: { command: STRING } } }, allOf: [{ $ref: "#/$defs/a" }], required: ["command"] });
    expect(placeTypes(propertySchema(cyclic.parameters, "command"))).toBeNull();
    expect(inputs(REPLY, [cyclic])).toEqual([]);
    expect(inputs(dsml([["command", "ls", "true"]]), [cyclic])).toEqual([]);
  });

  test("a pattern more than literal text is never run as a regular expression here: a possible place (the raw text), ajv decides", () => {
    const dotted = bash({ type: "object", patternProperties: { "^c.m+and$": STRING }, required: ["command"] });
    expect(inputs(REPLY, [dotted])).toEqual([{ command: LITERAL }]);
    // With the integer place it may be, the string place still keeps the raw text; the gate refuses what fits neither.
    const either = bash({ type: "object", patternProperties: { "^c.m": STRING, "^[0-9]+$": { type: "integer" } }, required: ["command"] });
    expect(inputs(REPLY, [either])).toEqual([{ command: LITERAL }]);
    // A pattern no regular expression reads: ajv cannot compile the schema, so no call.
    const broken = bash({ type: "object", patternProperties: { "(": STRING }, required: ["command"] });
    expect(inputs(REPLY, [broken])).toEqual([]);
  });

  test("literal patterns are matched as JSON Schema searches: anchored at ^ and $ only where written", () => {
    const at = (pattern: string) => propertySchema({ type: "object", patternProperties: { [pattern]: STRING }, additionalProperties: false }, "command");
    for (const hit of ["^comm", "and$", "^command$", "mma", "", "^", "$"]) expect(at(hit)).toEqual(STRING);
    for (const miss of ["^mma", "comm$", "^comman$", "x"]) expect(at(miss)).toBeUndefined();
  });

  /** Definitions d0..d{levels}, each an anyOf of `width` refs to the next, the last holding the place; reads of `anyOf` counted. */
  function diamond(levels: number, width: number, at: "object" | "place") {
    let reads = 0;
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < levels; i++) {
      const branches = Array.from({ length: width }, () => ({ $ref: `#/$defs/d${i + 1}` }));
      defs[`d${i}`] = Object.defineProperty({}, "anyOf", { enumerable: true, get: () => (reads++, branches) });
    }
    defs[`d${levels}`] = at === "object" ? { properties: { command: STRING } } : STRING;
    const parameters = (at === "object" ? { type: "object", $defs: defs, allOf: [{ $ref: "#/$defs/d0" }], required: ["command"] } : { type: "object", $defs: defs, properties: { command: { $ref: "#/$defs/d0" } }, required: ["command"] }) as JsonSchema;
    return { parameters, reads: () => reads };
  }

  test("a wide diamond of definitions is walked once per definition (counted, not timed): the place is found", () => {
    for (const at of ["object", "place"] as const) {
      const { parameters, reads } = diamond(6, 12, at);
      expect(placeTypes(propertySchema(parameters, "command"))).toEqual(new Set(["string"]));
      // 12^6 paths; each definition's branches are read once by the walk, and once more by the
      // index of `$id`s and anchors its references resolve against (review 52, schema-refs.ts),
      // built once per schema.
      expect(reads()).toBeLessThanOrEqual(12);
    }
  });

  test("a schema past the visit budget ends unfollowed after a bounded walk: refused, never decoded", () => {
    // Each branch its own object, so nothing is shared: 40 x 40 branches at the object level.
    const wide = { anyOf: Array.from({ length: 40 }, () => ({ anyOf: Array.from({ length: 40 }, () => ({ properties: { command: STRING } })) })) };
    const tool = bash({ type: "object", allOf: [wide], required: ["command"] });
    expect(placeTypes(propertySchema(tool.parameters, "command"))).toBeNull();
    expect(inputs(REPLY, [tool])).toEqual([]);
  });
});
