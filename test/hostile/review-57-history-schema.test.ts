/**
 * Review 57 (hostile, tests only): the schema gate on the schema forms the brief lists. All hard
 * negatives (pass on main): nothing here was found coerced into another meaning. Each pins that a
 * value either runs as the model wrote it or is refused, whole, char by char and at seeded random
 * splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { outcome, qwenCall } from "../support/outcome.ts";
import { runEngine } from "../support/run-engine.ts";
import { countWork } from "../support/work.ts";

const hermes = (args: string) => `<tool_call>\n{"name": "t", "arguments": ${args}}\n</tool_call>`;
const raw = (pairs: [string, string][]) => qwenCall("t", pairs.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>`).join("\n"));
const tool = (parameters: unknown): ToolSpec[] => [{ name: "t", parameters: parameters as JsonSchema }];
const props = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => tool({ type: "object", properties, ...extra });
const runs = (text: string, tools: ToolSpec[]) => outcome(text, tools).calls.map((c) => c.input);
const refused = (text: string, tools: ToolSpec[]) => {
  const o = outcome(text, tools);
  return o.calls.length === 0 && o.broken.length > 0;
};

describe("values keep their meaning", () => {
  test('["string","null"]: the raw text "null" stays the text; JSON null is null', () => {
    const t = props({ x: { type: ["string", "null"] } });
    expect(runs(raw([["x", "null"]]), t)).toEqual([{ x: "null" }]);
    expect(runs(hermes('{"x": null}'), t)).toEqual([{ x: null }]);
  });

  test("anyOf integer|string keeps a JSON string as the string written", () => {
    expect(runs(hermes('{"x": "5"}'), props({ x: { anyOf: [{ type: "integer" }, { type: "string" }] } }))).toEqual([{ x: "5" }]);
  });

  test("const and enum: the raw text is typed only where the schema says one type", () => {
    expect(runs(raw([["x", "5"]]), props({ x: { const: "5" } }))).toEqual([{ x: "5" }]);
    expect(runs(raw([["x", "5"]]), props({ x: { enum: [5, "5"] } }))).toEqual([{ x: "5" }]);
  });

  test("pattern, minLength, multipleOf, not, if/then are checked (refused, never trimmed or rounded)", () => {
    expect(refused(raw([["x", "ab1"]]), props({ x: { type: "string", pattern: "^[a-z]+$" } }))).toBe(true);
    expect(refused(raw([["x", "ab"]]), props({ x: { type: "string", minLength: 3 } }))).toBe(true);
    expect(refused(hermes('{"x": "3"}'), props({ x: { type: "integer", multipleOf: 2 } }))).toBe(true);
    expect(refused(raw([["x", "5"]]), props({ x: { not: { type: "string" } } }))).toBe(true);
    expect(refused(raw([["x", "5"]]), props({ x: { if: { type: "string" }, then: { minLength: 10 } } }))).toBe(true);
  });

  test("a schema default is never filled in", () => {
    expect(runs(hermes("{}"), props({ x: { type: "string", default: "rm -rf /" } }))).toEqual([{}]);
  });

  test("schema true runs as written; schema false and a property schema false refuse", () => {
    expect(runs(hermes('{"x": 1}'), tool(true))).toEqual([{ x: 1 }]);
    expect(refused(hermes('{"x": 1}'), tool(false))).toBe(true);
    expect(refused(hermes('{"x": 1}'), props({ x: false }))).toBe(true);
  });

  test("numbers: 1e400, an integer past 2^53, 0x10, NaN, Infinity and a fullwidth/Arabic digit are refused, never rounded", () => {
    expect(refused(hermes('{"x": 1e400}'), props({ x: { type: "number" } }))).toBe(true);
    expect(refused(hermes('{"x": 9007199254740993}'), props({ x: { type: "integer" } }))).toBe(true);
    expect(refused(hermes('{"x": 9007199254740993}'), props({ x: { type: "string" } }))).toBe(true);
    expect(refused(hermes('{"x": "0x10"}'), props({ x: { type: "integer" } }))).toBe(true);
    expect(refused(hermes('{"x": "NaN"}'), props({ x: { type: "number" } }))).toBe(true);
    expect(refused(hermes('{"x": "Infinity"}'), props({ x: { type: "number" } }))).toBe(true);
    expect(refused(hermes('{"x": "\\u0661"}'), props({ x: { type: "integer" } }))).toBe(true);
  });

  test("-0 for a string parameter is refused (String(-0) would send 0); a 1e2 for a string is refused", () => {
    expect(refused(hermes('{"x": -0}'), props({ x: { type: "string" } }))).toBe(true);
    expect(refused(hermes('{"x": 1e2}'), props({ x: { type: "string" } }))).toBe(true);
  });

  test("a boolean parameter takes no 1 and no yes", () => {
    expect(refused(raw([["x", "1"]]), props({ x: { type: "boolean" } }))).toBe(true);
    expect(refused(hermes('{"x": "yes"}'), props({ x: { type: "boolean" } }))).toBe(true);
  });
});

describe("additionalProperties, patternProperties, prefixItems, oneOf", () => {
  test("additionalProperties as a schema types an extra key as that schema says, and refuses what does not fit", () => {
    expect(runs(raw([["n", "5"]]), props({}, { additionalProperties: { type: "integer" } }))).toEqual([{ n: 5 }]);
    expect(refused(raw([["n", "five"]]), props({}, { additionalProperties: { type: "integer" } }))).toBe(true);
  });

  test("prefixItems (2020-12) and draft-07 tuple items are typed by position", () => {
    expect(runs(hermes('{"x": ["5", 6]}'), props({ x: { type: "array", prefixItems: [{ type: "integer" }, { type: "string" }] } }))).toEqual([{ x: [5, "6"] }]);
    const draft7 = tool({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { x: { type: "array", items: [{ type: "integer" }, { type: "string" }] } } });
    expect(runs(hermes('{"x": ["5", 6]}'), draft7)).toEqual([{ x: [5, "6"] }]);
    expect(refused(hermes('{"x": [1, "a", "b"]}'), props({ x: { type: "array", prefixItems: [{ type: "integer" }, { type: "string" }], items: false } }))).toBe(true);
  });

  test("oneOf of objects whose branches type one key two ways: the string written stays a string", () => {
    const t = props({ x: { oneOf: [{ type: "object", properties: { a: { type: "integer" } }, required: ["a"] }, { type: "object", properties: { a: { type: "string" } }, required: ["a"] }] } });
    expect(runs(hermes('{"x": {"a": "5"}}'), t)).toEqual([{ x: { a: "5" } }]);
  });
});

describe("$defs cycles stay linear and never hang", () => {
  test("a $ref loop with no content (a -> b -> a) is refused", () => {
    const t = tool({ $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, type: "object", properties: { x: { $ref: "#/$defs/a" } } });
    expect(refused(hermes('{"x": "5"}'), t)).toBe(true);
  });

  test("a recursive list type checks a deep value in linear work", () => {
    const t = tool({ $defs: { n: { type: "object", properties: { v: { type: "integer" }, next: { $ref: "#/$defs/n" } } } }, type: "object", properties: { x: { $ref: "#/$defs/n" } } });
    const nest = (depth: number) => `{"x": ${'{"v": 1, "next": '.repeat(depth)}{"v": 1}${"}".repeat(depth)}}`;
    expect(runs(hermes(nest(3)), t)).toEqual([{ x: { v: 1, next: { v: 1, next: { v: 1, next: { v: 1 } } } } }]);
    const work = (depth: number) => countWork(() => void runEngine(hermes(nest(depth)), [], t));
    // Deeper than the coercion bound (32) too: 4 times the depth costs about 4 times the work.
    const small = work(100);
    const large = work(400);
    expect(large / small).toBeLessThan(4 * 2.5);
  });
});
