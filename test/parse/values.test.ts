import { describe, expect, test } from "bun:test";
import { coerceValue } from "../../src/parse/values.ts";
import type { JsonSchema } from "../../src/parse/types.ts";

const boolean: JsonSchema = { type: "boolean" };
const integer: JsonSchema = { type: "integer" };
const number: JsonSchema = { type: "number" };

describe("schema-typed coercion of text values (issue 11 item 5)", () => {
  test("Python and JSON spellings of booleans, for a boolean parameter", () => {
    for (const [raw, value] of [["True", true], ["False", false], ["true", true], ["false", false], ["TRUE", true], ["\nFalse\n", false]] as const) {
      expect(coerceValue(raw, boolean, undefined)).toBe(value);
      expect(coerceValue(raw, boolean, "false")).toBe(value);
    }
  });

  test("None and null only where the schema takes null", () => {
    const nullableInteger: JsonSchema = { anyOf: [{ type: "integer" }, { type: "null" }] };
    expect(coerceValue("None", nullableInteger, undefined)).toBeNull();
    expect(coerceValue("null", { type: ["boolean", "null"] }, undefined)).toBeNull();
    expect(coerceValue("None", boolean, undefined)).toBe("None");
    expect(coerceValue("True", nullableInteger, undefined)).toBe("True");
  });

  test("a string-typed parameter is never coerced, also in a union", () => {
    expect(coerceValue("True", { type: "string" }, undefined)).toBe("True");
    expect(coerceValue("None", { type: ["string", "null"] }, undefined)).toBe("None");
    expect(coerceValue(" 5 ", { type: ["string", "number"] }, "true")).toBe(" 5 ");
    // Only the model's own string="false" lets a union with string take another type.
    expect(coerceValue("True", { type: ["string", "boolean"] }, "false")).toBe(true);
  });

  test("numbers with surrounding whitespace; an integer parameter takes only integers", () => {
    expect(coerceValue("  42\n", integer, undefined)).toBe(42);
    expect(coerceValue("\t-1.5 ", number, undefined)).toBe(-1.5);
    expect(coerceValue("2.0", integer, undefined)).toBe(2);
    expect(coerceValue("2.5", integer, undefined)).toBe("2.5");
    expect(coerceValue("2.5", { type: ["integer", "number"] }, undefined)).toBe(2.5);
    expect(coerceValue("1e3", integer, undefined)).toBe(1000);
  });

  test("Python list and dict literals for array and object parameters", () => {
    const array: JsonSchema = { type: "array" };
    expect(coerceValue("[{'content': 'a', 'done': True}, None]", array, undefined)).toEqual([{ content: "a", done: true }, null]);
    expect(coerceValue("{'a': (1, 2)}", { type: "object" }, undefined)).toEqual({ a: [1, 2] });
    expect(coerceValue("[1, 2] trailing", array, undefined)).toBe("[1, 2] trailing");
    expect(coerceValue("{'__proto__': 1}", { type: "object" }, undefined)).toEqual({});
  });
});
