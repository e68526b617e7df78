import { describe, expect, test } from "bun:test";
import { coerceValue, parseJson } from "../../src/parse/values.ts";
import { block, live } from "../golden/notation.ts";
import { deltas, sseText, throughFetch } from "../security/support.ts";
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

describe("values read as the model wrote them, or not at all (review 2)", () => {
  test("a number too large to be one (1e999) is no number: it stays text, in every path a value takes", () => {
    expect(coerceValue("1e999", number, undefined)).toBe("1e999");
    expect(coerceValue("-1e999", number, "false")).toBe("-1e999");
    expect(coerceValue("1e308", number, undefined)).toBe(1e308);
    expect(parseJson('{"limit":1e999}')).toEqual({ ok: false });
    expect(parseJson('{"limit":[1,-1E400]}')).toEqual({ ok: false });
    expect(parseJson('{"limit":1e308}')).toEqual({ ok: true, value: { limit: 1e308 } });
  });

  test("an object that names a key twice is refused at any depth, keys compared as they decode; the same key in sibling objects is fine", () => {
    expect(parseJson('{"command":"echo hi","command":"rm -rf ~"}')).toEqual({ ok: false });
    expect(parseJson('{"a":{"b":1,"c":[{"x":1,"x":2}]}}')).toEqual({ ok: false });
    expect(parseJson('{"name":"read","arguments":{},"\\u006eame":"bash"}')).toEqual({ ok: false });
    expect(parseJson('[{"a":1},{"a":2}]')).toEqual({ ok: true, value: [{ a: 1 }, { a: 2 }] });
    expect(parseJson('{"a":{"a":{"a":1}},"b":"a,\\"a\\":"}')).toEqual({ ok: true, value: { a: { a: { a: 1 } }, b: 'a,"a":' } });
    expect(parseJson('["a","a"]')).toEqual({ ok: true, value: ["a", "a"] });
  });

  test("through the fetch adapter: Hermes naming an argument or the tool twice, or carrying 1e999, runs nothing; DSML with 1e999 for a number runs nothing", async () => {
    const run = async (reply: string) => (await throughFetch({ messages: [{ role: "user", content: "hi" }] }, { sse: sseText(deltas(reply, 5)) })).out.calls;
    expect(await run('<tool_call>{"name":"bash","arguments":{"command":"echo hi","command":"rm -rf ~"}}</tool_call>')).toEqual([]);
    expect(await run('<tool_call>{"name":"read","arguments":{"filePath":"a.ts"},"name":"bash"}</tool_call>')).toEqual([]);
    expect(await run('<tool_call>{"name":"read","arguments":{"filePath":"a.ts","limit":1e999}}</tool_call>')).toEqual([]);
    expect(await run(live(block("tool_calls", [["read", [["filePath", "a.ts"], ["limit", "1e999", "false"]]]])))).toEqual([]);
    // The same calls read once each still run.
    expect((await run('<tool_call>{"name":"bash","arguments":{"command":"echo hi"}}</tool_call>')).map((c) => c.arguments)).toEqual(['{"command":"echo hi"}']);
    expect((await run(live(block("tool_calls", [["read", [["filePath", "a.ts"], ["limit", "10", "false"]]]])))).map((c) => c.arguments)).toEqual(['{"filePath":"a.ts","limit":10}']);
  });
});
