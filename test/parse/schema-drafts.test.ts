/**
 * Review 42 finding 3: the schema gate reads a schema under its own draft. ajv (strict: false)
 * skips a keyword its class does not know in silence, so compiling every schema with the draft-07
 * class let calls run that break `prefixItems`, `unevaluatedProperties`, `dependentRequired`,
 * `dependentSchemas` (draft 2020-12, what zod 4 and so OpenCode write). The class now follows
 * `$schema`; with none, 2020-12, and 2019-09 for a schema 2020-12 cannot compile (a draft-07 tuple).
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { block, live } from "../golden/notation.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";
const DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema";
const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

const str = { type: "string" };
const int = { type: "integer" };
/** A tool whose one parameter `to` has the given schema, under the given `$schema` (none when undefined). */
const withTo = ($schema: string | undefined, to: JsonSchema): ToolSpec => ({
  name: "move",
  parameters: { ...($schema === undefined ? {} : { $schema }), type: "object", properties: { to }, required: ["to"] },
});
const verdict = (tool: ToolSpec, input: Record<string, unknown>) => new SchemaGate().check(tool, input);
const runs = (tool: ToolSpec, input: Record<string, unknown>) => verdict(tool, input).ok;

describe("2020-12 (declared, or no $schema): prefixItems is a tuple", () => {
  const tuple2020 = { type: "array", prefixItems: [str, int] };
  for (const $schema of [DRAFT_2020, undefined, "https://json-schema.org/draft/2020-12/schema#", "http://json-schema.org/draft/2020-12/schema"]) {
    test(`$schema ${$schema ?? "absent"}: a tuple of the wrong types does not run; one that fits does`, () => {
      const tool = withTo($schema, tuple2020);
      expect(runs(tool, { to: ["x", "rm -rf ~"] })).toBe(false);
      expect(runs(tool, { to: ["x", 2.5] })).toBe(false);
      // A number where only a string fits is written back as its text (600 -> "600"), as for any parameter.
      expect(verdict(tool, { to: [1, 2] })).toEqual({ ok: true, input: { to: ["1", 2] } });
      expect(verdict(tool, { to: ["x", 3] })).toEqual({ ok: true, input: { to: ["x", 3] } });
    });
  }

  test("prefixItems with items: false (a closed tuple) accepts a tuple that fits and refuses a longer one (draft-07 refused every tuple)", () => {
    const tool = withTo(DRAFT_2020, { type: "array", prefixItems: [str, int], items: false });
    expect(verdict(tool, { to: ["x", 3] })).toEqual({ ok: true, input: { to: ["x", 3] } });
    expect(runs(tool, { to: ["x"] })).toBe(true);
    expect(runs(tool, { to: ["x", 3, "rm -rf ~"] })).toBe(false);
    // The same without $schema.
    expect(runs(withTo(undefined, { type: "array", prefixItems: [str, int], items: false }), { to: ["x", 3] })).toBe(true);
  });

  test("prefixItems with a rest schema (zod's tuple(...).rest(...))", () => {
    const tool = withTo(DRAFT_2020, { type: "array", prefixItems: [str], items: int });
    expect(runs(tool, { to: ["x", 1, 2] })).toBe(true);
    expect(runs(tool, { to: ["x", 1, "y"] })).toBe(false);
  });

  test("a tuple element written as text is typed by its own place, as an array item is", () => {
    const tool = withTo(DRAFT_2020, { type: "array", prefixItems: [str, int], items: false });
    expect(verdict(tool, { to: ["7", "3"] })).toEqual({ ok: true, input: { to: ["7", 3] } });
    expect(verdict(withTo(DRAFT_2020, { type: "array", prefixItems: [str], items: int }), { to: ["a", "1", "2"] })).toEqual({ ok: true, input: { to: ["a", 1, 2] } });
    expect(runs(tool, { to: ["x", "three"] })).toBe(false);
  });

  test("unevaluatedProperties, dependentRequired, dependentSchemas, minContains are checked", () => {
    const strict: ToolSpec = { name: "deploy", parameters: { $schema: DRAFT_2020, type: "object", properties: { env: str }, required: ["env"], unevaluatedProperties: false } };
    expect(runs(strict, { env: "staging" })).toBe(true);
    expect(verdict(strict, { env: "staging", force: true })).toEqual({ ok: false, detail: "an argument is not a parameter of this tool", undeclaredArgument: true });
    const guarded = (rule: JsonSchema): ToolSpec => ({ name: "wipe", parameters: { $schema: DRAFT_2020, type: "object", properties: { force: { type: "boolean" }, confirm: str }, ...rule } });
    for (const rule of [{ dependentRequired: { force: ["confirm"] } }, { dependentSchemas: { force: { required: ["confirm"] } } }]) {
      expect(runs(guarded(rule), { force: true, confirm: "yes" })).toBe(true);
      expect(verdict(guarded(rule), { force: true })).toEqual({ ok: false, detail: "parameter confirm is required but missing", parameter: "confirm" });
    }
    const two = withTo(DRAFT_2020, { type: "array", contains: str, minContains: 2 });
    expect(runs(two, { to: ["a", "b"] })).toBe(true);
    expect(runs(two, { to: ["a", 1] })).toBe(false);
  });

  test("what zod 4 writes for OpenCode: a tuple and a strict object", () => {
    const parameters = z.toJSONSchema(z.object({ to: z.tuple([z.string(), z.number().int()]), rest: z.tuple([z.string()]).rest(z.boolean()).optional() }).strict()) as JsonSchema;
    expect(parameters.$schema).toBe(DRAFT_2020);
    const tool: ToolSpec = { name: "move", parameters };
    expect(runs(tool, { to: ["x", 3], rest: ["a", true] })).toBe(true);
    expect(runs(tool, { to: ["x", "rm -rf ~"] })).toBe(false);
    expect(runs(tool, { to: ["x", 3], rest: ["a", "yes"] })).toBe(false);
    expect(runs(tool, { to: ["x", 3], extra: 1 })).toBe(false);
  });
});

describe("draft-07 tuples (items as an array) are still checked", () => {
  const tuple07 = { type: "array", items: [str, int], additionalItems: false };
  for (const $schema of [DRAFT_07, "https://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema#", DRAFT_2019, undefined]) {
    test(`$schema ${$schema ?? "absent (2020-12 cannot compile it: read as 2019-09)"}`, () => {
      const tool = withTo($schema, tuple07);
      expect(verdict(tool, { to: ["x", 3] })).toEqual({ ok: true, input: { to: ["x", 3] } });
      expect(verdict(tool, { to: ["x", "3"] })).toEqual({ ok: true, input: { to: ["x", 3] } });
      expect(runs(tool, { to: ["x", "rm -rf ~"] })).toBe(false);
      expect(runs(tool, { to: ["x", 3, 4] })).toBe(false);
    });
  }

  test("additionalItems as a schema types and checks the rest", () => {
    const tool = withTo(DRAFT_07, { type: "array", items: [str], additionalItems: int });
    expect(verdict(tool, { to: ["a", "1", 2] })).toEqual({ ok: true, input: { to: ["a", 1, 2] } });
    expect(runs(tool, { to: ["a", "b"] })).toBe(false);
  });

  test("no $schema, with both prefixItems and the array form of items: 2020-12 cannot compile it and 2019-09 would skip prefixItems, so it fails closed", () => {
    const tool = withTo(undefined, { type: "array", prefixItems: [str, int], items: [str, int] });
    const v = verdict(tool, { to: ["x", 3] });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.detail).toContain("could not be compiled");
  });

  test("a declared 2020-12 schema with the array form of items does not compile under its own draft: it fails closed", () => {
    expect(runs(withTo(DRAFT_2020, { type: "array", items: [str, int] }), { to: ["x", 3] })).toBe(false);
  });
});

describe("the draft a $schema names decides; an unknown one is read as none", () => {
  test("2019-09: dependentRequired and unevaluatedProperties are checked", () => {
    const tool: ToolSpec = { name: "wipe", parameters: { $schema: DRAFT_2019, type: "object", properties: { force: { type: "boolean" }, confirm: str }, dependentRequired: { force: ["confirm"] }, unevaluatedProperties: false } };
    expect(runs(tool, { force: true, confirm: "y" })).toBe(true);
    expect(runs(tool, { force: true })).toBe(false);
    expect(runs(tool, { confirm: "y", other: 1 })).toBe(false);
  });

  test("an unknown or non-string $schema is read as no $schema (2020-12)", () => {
    for (const $schema of ["https://example.com/my-dialect", "json-schema.org/draft/2020-12/schema", 7]) {
      const tool: ToolSpec = { name: "move", parameters: { $schema, type: "object", properties: { to: { type: "array", prefixItems: [str, int] } } } as JsonSchema };
      expect(runs(tool, { to: ["x", "y"] })).toBe(false);
      expect(runs(tool, { to: ["x", 3] })).toBe(true);
    }
  });

  test("draft-04 (read by the draft-07 class, as before): a boolean exclusiveMaximum does not compile and fails closed; a plain draft-04 schema checks", () => {
    const d4 = "http://json-schema.org/draft-04/schema#";
    expect(runs({ name: "t", parameters: { $schema: d4, type: "object", properties: { n: { type: "number", maximum: 5, exclusiveMaximum: true } } } }, { n: 1 })).toBe(false);
    const plain: ToolSpec = { name: "t", parameters: { $schema: d4, type: "object", properties: { n: { type: "number" } }, required: ["n"] } };
    expect(verdict(plain, { n: "5" })).toEqual({ ok: true, input: { n: 5 } });
    expect(runs(plain, { n: "five" })).toBe(false);
  });
});

describe("through the engine: whole, char by char, seeded random splits", () => {
  const tools: ToolSpec[] = [withTo(DRAFT_2020, { type: "array", prefixItems: [str, int], items: false })];
  const cases: [string, string, number][] = [
    ["a tuple of the wrong types", live(block("tool_calls", [["move", [["to", '["x", "rm -rf ~"]', "false"]]]])), 0],
    ["a tuple too long", live(block("tool_calls", [["move", [["to", '["x", 3, 4]', "false"]]]])), 0],
    ["a tuple that fits", live(block("tool_calls", [["move", [["to", '["x", 3]', "false"]]]])), 1],
  ];
  for (const [name, input, calls] of cases) {
    test(name, () => {
      const run = (cuts: number[]) => observable(runEngine(input, cuts, tools));
      const whole = run([]);
      expect(whole.calls.length).toBe(calls);
      if (calls === 0) {
        expect(whole.nudge).toBe("invalid-arguments");
        expect(whole.text).toBe(input);
      } else expect(whole.calls[0]!.input).toEqual({ to: ["x", 3] });
      expect(run(everyChar(input.length))).toEqual(whole);
      for (let seed = 1; seed <= 10; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
    });
  }
});
