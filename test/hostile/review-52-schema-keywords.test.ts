/**
 * Review 52 (hostile, tests only): which schema keywords decide how a value is read, and which
 * keys a tool that declares no parameters takes. Failing tests are findings; every other test is a
 * hard negative that passes on main. Streams are checked whole, char by char and at seeded random
 * splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { completion, throughFetch } from "../security/support.ts";
import { outcome, qwenCall } from "../support/outcome.ts";

describe("finding: a tool whose schema declares an empty `properties` runs a call that carries arguments", () => {
  // Severity: wrong execution (low; a policy question: docs/PATTERNS.md "Schema gate" limits the
  // review-50 undeclared-key rule to a NON-EMPTY `properties`, and review 50 keeps an open
  // `{type: "object"}` MCP tool taking any key, which the hard negative below keeps).
  // What is wrong: `{type: "object", properties: {}}` is how a tool says "no parameters" (zod's
  // `z.object({})`, the MCP SDK for a tool without input, OpenAI's examples). The model writes an
  // argument the tool does not have, meant to narrow it (`reset_cache` with `scope: "thumbnails"`);
  // the call runs, the host's schema strips the unknown key (as review 50 says of zod and
  // OpenCode), and the tool runs unnarrowed: every cache is reset. That is the very outcome review
  // 50 refused for `work_dir` beside a declared `workdir` (the call runs without what was written).
  // Minimal input: reset_cache {type: object, properties: {}};
  // `<invoke name="reset_cache"><parameter name="scope">thumbnails</parameter></invoke>`.
  // Suspected: src/parse/schema-gate.ts undeclaredKeyIn() (`!object.declares` returns false for an
  // empty `properties`), src/parse/schema-walk.ts objectKeys() (`declares` only for a non-empty
  // `properties`). Expected: refused as broken markup, text kept (as review 50's undeclared key),
  // when the schema's `properties` is present and empty and nothing admits extra keys.
  // Fixed: objectKeys (src/parse/schema-walk.ts) counts any `properties`, `{}` included, as a
  // declaration, so review 50's undeclared-key rule refuses the call (broken-markup with the
  // undeclared-argument correction, text kept); `{type: "object"}` with no `properties` stays open.
  const NO_PARAMS: ToolSpec[] = [{ name: "reset_cache", parameters: { type: "object", properties: {} } }];
  const DSML = live(`Clearing it.\n<{D}tool_calls>\n<{D}invoke name="reset_cache">\n<{D}parameter name="scope" string="true">thumbnails</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const HERMES = `Clearing it.\n<tool_call>\n{"name": "reset_cache", "arguments": {"scope": "thumbnails"}}\n</tool_call>`;

  test("hard negative (passes today): the call with no arguments runs", () => {
    const o = outcome(`Clearing it.\n<tool_call>\n{"name": "reset_cache", "arguments": {}}\n</tool_call>`, NO_PARAMS);
    expect(o.calls).toEqual([{ tool: "reset_cache", input: {} }]);
  });

  test("hard negative (passes today): an open `{type: object}` tool still takes any key (review 50's policy)", () => {
    const open: ToolSpec[] = [{ name: "reset_cache", parameters: { type: "object" } }];
    expect(outcome(HERMES, open).calls).toEqual([{ tool: "reset_cache", input: { scope: "thumbnails" } }]);
  });

  test("hard negative (passes today): with additionalProperties false the argument is refused", () => {
    const strict: ToolSpec[] = [{ name: "reset_cache", parameters: { type: "object", properties: {}, additionalProperties: false } }];
    expect(outcome(HERMES, strict).calls).toEqual([]);
  });

  test("hard negative (passes today): `properties: {}` with additionalProperties true takes the key", () => {
    const extra: ToolSpec[] = [{ name: "reset_cache", parameters: { type: "object", properties: {}, additionalProperties: true } }];
    expect(outcome(HERMES, extra).calls).toEqual([{ tool: "reset_cache", input: { scope: "thumbnails" } }]);
  });

  test("DSML: the call carrying `scope` does not run without it; its text is kept (split parity)", () => {
    const o = outcome(DSML, NO_PARAMS);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("thumbnails");
  });

  test("Hermes: the same (split parity)", () => {
    const o = outcome(HERMES, NO_PARAMS);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("thumbnails");
  });

  test("refused as review 50 refuses an undeclared key: the undeclared-argument correction, never naming the key", () => {
    const out = parse(HERMES, NO_PARAMS);
    expect(out.calls).toEqual([]);
    expect(out.broken.map((b) => [b.reason, b.undeclaredArgument])).toEqual([["broken-markup", true]]);
  });

  test("hard negative: `properties: {}` beside `patternProperties` takes a key the pattern admits", () => {
    const tools: ToolSpec[] = [{ name: "reset_cache", parameters: { type: "object", properties: {}, patternProperties: { "^s": { type: "string" } } } as JsonSchema }];
    expect(outcome(HERMES, tools).calls).toEqual([{ tool: "reset_cache", input: { scope: "thumbnails" } }]);
  });

  test("chat completions through the fetch adapter: the same", async () => {
    const tools = [{ type: "function", function: { name: "reset_cache", parameters: { type: "object", properties: {} } } }];
    const { out } = await throughFetch({ messages: [{ role: "user", content: "clear the thumbnails" }], tools }, { json: completion(HERMES) });
    expect(out.calls).toEqual([]);
    expect(out.content).toContain("thumbnails");
  });
});

describe("finding: a place typed only by `enum`, `const` or OpenAPI `nullable` is read as untyped text", () => {
  // Severity: missed call (low: the call is refused, text kept, a correction costs a turn).
  // What is wrong: placeTypes (src/parse/schema-walk.ts) reads only `type` (and the branches and
  // `$ref`s it follows). A place `{enum: [1, 2, 3]}` (no `type`: Pydantic writes a Literal[1, 2, 3]
  // that way, and so do hand-written schemas) or `{const: true}` gets no type, so a Qwen3-Coder
  // or GLM value `2` stays the text "2" and ajv refuses it; `{type: "integer", nullable: true}`
  // (OpenAPI 3.0, Gemini-style schemas; ajv 8 reads `nullable`, so a JSON null fits) refuses a DSML
  // `string="false"` null, since coercion does not know the place takes null. docs/PATTERNS.md
  // (Values): "Values are coerced to the declared schema type"; these places declare it by their
  // values. Minimal input: `<function=scale><parameter=replicas>2</parameter></function>` with
  // replicas `{enum: [1, 2, 3]}`. Suspected: src/parse/schema-walk.ts placeTypes(). Expected: the
  // call runs with 2 (the enum's own value), true, null; a string enum keeps the text.
  // Fixed: placeTypes (ownTypes) reads an `enum` or `const` made only of numbers, booleans or null
  // as those types, and `nullable: true` beside a `type` as adding null; an enum or const holding
  // a string, array or object adds no type (read as before).
  const scale = (replicas: JsonSchema): ToolSpec[] => [{ name: "scale", parameters: { type: "object", properties: { replicas }, required: ["replicas"] } as JsonSchema }];
  const QWEN = (value: string) => qwenCall("scale", `<parameter=replicas>\n${value}\n</parameter>`);
  const DSML_FALSE = (value: string) => live(`<{D}tool_calls>\n<{D}invoke name="scale">\n<{D}parameter name="replicas" string="false">${value}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

  test("hard negative (passes today): `type: integer` with the same enum reads 2", () => {
    expect(outcome(QWEN("2"), scale({ type: "integer", enum: [1, 2, 3] } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: 2 } }]);
  });

  test("hard negative (passes today): a string enum keeps the text", () => {
    expect(outcome(QWEN("2"), scale({ enum: ["1", "2"] } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: "2" } }]);
  });

  test("hard negative (passes today): `type: [integer, null]` reads null", () => {
    expect(outcome(DSML_FALSE("null"), scale({ type: ["integer", "null"] } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: null } }]);
  });

  test("hard negative (passes today): a nullable string keeps the text null", () => {
    expect(outcome(DSML_FALSE("null"), scale({ type: "string", nullable: true } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: "null" } }]);
  });

  test("hard negative (passes today): a value outside the enum is refused", () => {
    expect(outcome(QWEN("7"), scale({ enum: [1, 2, 3] } as JsonSchema)).calls).toEqual([]);
  });

  test("Qwen3-Coder: `{enum: [1, 2, 3]}` reads 2 as the enum's 2", () => {
    expect(outcome(QWEN("2"), scale({ enum: [1, 2, 3] } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: 2 } }]);
  });

  test("Qwen3-Coder: `{const: true}` reads true", () => {
    expect(outcome(QWEN("true"), scale({ const: true } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: true } }]);
  });

  test("DSML string=\"false\": `{type: integer, nullable: true}` reads null", () => {
    expect(outcome(DSML_FALSE("null"), scale({ type: "integer", nullable: true } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: null } }]);
  });

  test("hard negative: a mixed enum (strings and numbers) reads as before: the text 2, which the enum refuses", () => {
    expect(outcome(QWEN("2"), scale({ enum: ["auto", 2] } as JsonSchema)).calls).toEqual([]);
  });

  test("hard negative: a mixed enum still takes its string", () => {
    expect(outcome(QWEN("auto"), scale({ enum: ["auto", 2] } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: "auto" } }]);
  });

  test("hard negative: string=\"false\" at a string enum reads the JSON string as before", () => {
    expect(outcome(DSML_FALSE('"b"'), scale({ enum: ["a", "b"] } as JsonSchema)).calls).toEqual([{ tool: "scale", input: { replicas: "b" } }]);
  });

  test("hard negative: a fraction where the enum holds only integers stays text and is refused", () => {
    expect(outcome(QWEN("2.5"), scale({ enum: [1, 2, 3] } as JsonSchema)).calls).toEqual([]);
  });

  test("hard negative: `nullable: false` adds no null (the text null, which the integer refuses)", () => {
    expect(outcome(DSML_FALSE("null"), scale({ type: "integer", nullable: false } as JsonSchema)).calls).toEqual([]);
  });
});
