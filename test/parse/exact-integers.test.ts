/**
 * Review 42 finding 6: an integer whose digits a double does not give back (most past 2^53) was
 * read rounded and sent on with digits the model never wrote (`1234567890123456789` went out as
 * ...800): a client behind the proxy in Python, Go or Rust reads integers exactly and got another
 * id. The readers (parseJson, the Python reader) now read such a literal as a bigint of its digits
 * (readNumberLiteral), which the schema gate refuses whatever the schema, naming the parameter
 * (invalid-arguments, as a number for a string parameter was refused before); a parameter value
 * written as text keeps it as text for the schema to decide. A literal with a fraction or an
 * exponent is a float to every reader, so it reads as before, unless (review 47) it reads as an
 * integer below 1e21 other than the one it denotes: JSON.stringify sends that as integer digits.
 */
import { describe, expect, test } from "bun:test";
import { numberReadsAsWritten, readNumberLiteral } from "../../src/grammar/json-syntax.ts";
import { parsePythonLiteral } from "../../src/parse/python-literal.ts";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import { coerceValue, parseJson } from "../../src/parse/values.ts";
import { parse } from "../../src/engine/parse.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { block, live } from "../golden/notation.ts";
import { openAiTools, throughFetch, completion } from "../security/support.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const ID = "1234567890123456789";
const BIG = BigInt(ID);
const integer: JsonSchema = { type: "integer" };

describe("which literals read as written", () => {
  test("an integer literal whose digits would not go out again does not, however the double is rounded", () => {
    // 2^60 (1152921504606846976) is a double exactly, but JSON.stringify writes it 1152921504606847000; 1e21 it writes 1e+21.
    for (const literal of [ID, `-${ID}`, "9007199254740993", "-9007199254740993", "12345678901234567890", "1152921504606846976", "1000000000000000000000", "99999999999999999999999"]) {
      expect(numberReadsAsWritten(literal)).toBe(false);
      expect(JSON.stringify(Number(literal))).not.toBe(literal);
    }
    // Hard negatives: every safe integer, 2^53 itself, larger integers written as they go out, -0, zero.
    for (const literal of ["0", "-0", "42", "-3", "9007199254740991", "-9007199254740991", "9007199254740992", "1152921504606847000", "100000000000000000000"]) {
      expect(numberReadsAsWritten(literal)).toBe(true);
    }
  });

  test("a literal with a fraction or an exponent is a float to every reader: kept unless out of range", () => {
    // A double that is no integer, or one of 1e21 and more, goes out as a float again (1.5e+300).
    for (const literal of ["0.1", "1.5e300", "1e20", "-2.5E-3", "1e3", "2.0", "1e21", "9007199254740994.0"]) expect(numberReadsAsWritten(literal)).toBe(true);
    for (const literal of ["1e999", "-1E400"]) expect(numberReadsAsWritten(literal)).toBe(false);
  });

  test("review 47: unless it reads as an integer below 1e21 that is not the one it denotes (that goes out as other digits)", () => {
    // JSON.stringify writes such a double as integer digits, which exact readers read as an integer:
    // 1.2345678901234567e18 went out as 1234567890123456800, 12345678901234567890.5 as ...7000,
    // 1.0000000000000001 as 1, 1e-400 as 0.
    for (const literal of ["1.2345678901234567e18", "12345678901234567890.5", "1234567890123456789.0", "1234567890123456789e0", "9007199254740993.0", "1.0000000000000001", "1e-400"]) {
      expect(numberReadsAsWritten(literal)).toBe(false);
    }
    expect(readNumberLiteral("1234567890123456789.0")).toBe(BIG);
    expect(readNumberLiteral("-123456789012345678.9e1")).toBe(-BIG);
    expect(readNumberLiteral("1.0000000000000001")).toBe(1n);
    // The integer it denotes is the one it goes out as: kept (as the plain spelling 1152921504606847000 is).
    for (const literal of ["42.0", "-0.0", "0e999999", "1152921504606847000.0", "1.152921504606847e18", "100000000000000000000.000"]) expect(numberReadsAsWritten(literal)).toBe(true);
  });
});

describe("every reader reads it as its digits, never as a rounded number", () => {
  test("readNumberLiteral: a bigint for such an integer, undefined for no finite number, else the number", () => {
    expect(readNumberLiteral(ID)).toBe(BIG);
    expect(readNumberLiteral(`-${ID}`)).toBe(-BIG);
    expect(readNumberLiteral("1e999")).toBeUndefined();
    expect(readNumberLiteral("9007199254740991")).toBe(9007199254740991);
    expect(readNumberLiteral("0.1")).toBe(0.1);
    expect(Object.is(readNumberLiteral("-0"), -0)).toBe(true);
  });

  test("parseJson, at any depth; strings and keys made of digits are text and stay; a key named twice is still refused", () => {
    expect(parseJson(`{"id":${ID}}`)).toEqual({ ok: true, value: { id: BIG } });
    expect(parseJson(` [1, [2, {"a": -${ID}, "b": [true, false, null, "x", 0.5, {}, []]}]] `)).toEqual({ ok: true, value: [1, [2, { a: -BIG, b: [true, false, null, "x", 0.5, {}, []] }]] });
    expect(parseJson(ID)).toEqual({ ok: true, value: BIG });
    expect(parseJson(`{"n": 9007199254740993, "s": "a\\"b"}`)).toEqual({ ok: true, value: { n: 9007199254740993n, s: 'a"b' } });
    // Review 47: a key that names a prototype member is refused, no longer dropped (the call ran without it).
    expect(parseJson(`{"n": 9007199254740993, "__proto__": {"x": 1}, "s": "a\\"b"}`)).toEqual({ ok: false, prototypeKey: true });
    expect(parseJson(`{"__proto__": {"polluted": 1}, "n": ${ID}}`)).toEqual({ ok: false, prototypeKey: true });
    expect(parseJson(`{"n": ${ID}, "n": 1}`)).toEqual({ ok: false });
    expect(parseJson(`{"n": ${ID}, "m": 1e999}`)).toEqual({ ok: false });
    // Hard negatives: nothing changes without such an integer.
    expect(parseJson(`{"id":"${ID}"}`)).toEqual({ ok: true, value: { id: ID } });
    expect(parseJson(`{"${ID}":1}`)).toEqual({ ok: true, value: { [ID]: 1 } });
    expect(parseJson(`{"command":"echo ${ID}","n":9007199254740991,"x":-1.5e-7}`)).toEqual({ ok: true, value: { command: `echo ${ID}`, n: 9007199254740991, x: -1.5e-7 } });
    expect(parseJson('{"s":"\\"123456789012345678901\\""}')).toEqual({ ok: true, value: { s: '"123456789012345678901"' } });
  });

  test("the Python reader, as a literal", () => {
    expect(parsePythonLiteral(ID)).toEqual({ ok: true, value: BIG });
    expect(parsePythonLiteral(`[1, ${ID}]`)).toEqual({ ok: true, value: [1, BIG] });
    expect(parsePythonLiteral(`{'id': -${ID}}`)).toEqual({ ok: true, value: { id: -BIG } });
    expect(parsePythonLiteral(`'${ID}'`)).toEqual({ ok: true, value: ID });
    expect(parsePythonLiteral("[9007199254740991, 0.1]")).toEqual({ ok: true, value: [9007199254740991, 0.1] });
  });

  test("coerceValue: no number for a number parameter (the text stays, the schema decides); a string parameter keeps the text", () => {
    for (const hint of [undefined, "false"] as const) {
      expect(coerceValue(ID, integer, hint)).toBe(ID);
      expect(coerceValue(` ${ID}\n`, { type: "number" }, hint)).toBe(` ${ID}\n`);
      expect(coerceValue(ID, { type: ["integer", "string"] }, hint)).toBe(ID);
      expect(coerceValue(ID, { type: "string" }, hint)).toBe(ID);
      // In a container the digits are read as a bigint, for the gate to refuse.
      expect(coerceValue(`[${ID}]`, { type: "array" }, hint)).toEqual([BIG]);
    }
    // Hard negatives.
    expect(coerceValue("9007199254740991", integer, undefined)).toBe(9007199254740991);
    expect(coerceValue("1e20", integer, undefined)).toBe(1e20);
  });

  test("the schema gate refuses a bigint at any depth, whatever the schema, even none, naming the parameter only when the schema declares it", () => {
    const gate = new SchemaGate();
    for (const parameters of [undefined, {}, { type: "object" }, { type: "object", properties: { ids: { type: "array" } } }] as (JsonSchema | undefined)[]) {
      const tool: ToolSpec = { name: "t", parameters };
      // Review 44: a key no schema declares may be anything the model pasted, so it is not repeated.
      const expected = parameters?.properties
        ? { ok: false as const, detail: "parameter ids holds an integer whose digits cannot be sent as written", parameter: "ids" }
        : { ok: false as const, detail: "the arguments hold an integer whose digits cannot be sent as written" };
      expect(gate.check(tool, { ids: [1, { deep: [BIG] }] })).toEqual(expected);
      expect(gate.check(tool, { "<bad name>": BIG }).ok).toBe(false);
      expect(gate.check(tool, { ids: [1, 2] }).ok).toBe(true);
    }
  });
});

describe("end to end", () => {
  const getter: ToolSpec = { name: "get_message", parameters: { type: "object", properties: { id: integer }, required: ["id"] } };
  const byName: ToolSpec = { name: "get_thread", parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } };
  const tools = [getter, byName];
  const calls = (text: string) => parse(text, tools).calls.map((c) => ({ tool: c.tool, input: c.input }));
  const dsml = (tool: string, value: string, hint?: string) => live(block("tool_calls", [[tool, [["id", value, hint]]]]));

  test("an integer parameter: DSML, Hermes, Mistral and LFM2 run nothing (invalid-arguments, naming id); the same with a safe id runs", () => {
    const cases: [string, { tool: string; input: Record<string, unknown> }[]][] = [[ID, []], ["9007199254740991", [{ tool: "get_message", input: { id: 9007199254740991 } }]]];
    for (const [id, want] of cases) {
      expect(calls(dsml("get_message", id, "false"))).toEqual(want);
      expect(calls(dsml("get_message", id))).toEqual(want);
      expect(calls(`<tool_call>\n{"name": "get_message", "arguments": {"id": ${id}}}\n</tool_call>`)).toEqual(want);
      expect(calls(`[TOOL_CALLS]get_message[ARGS]{"id": ${id}}`)).toEqual(want);
      expect(calls(`<|tool_call_start|>[get_message(id=${id})]<|tool_call_end|>`)).toEqual(want);
    }
    for (const text of [dsml("get_message", ID, "false"), `<tool_call>\n{"name": "get_message", "arguments": {"id": ${ID}}}\n</tool_call>`, `[TOOL_CALLS]get_message[ARGS]{"id": ${ID}}`, `<|tool_call_start|>[get_message(id=${ID})]<|tool_call_end|>`]) {
      const result = parse(text, tools);
      expect(result.broken.map((b) => [b.reason, b.parameter])).toEqual([["invalid-arguments", "id"]]);
      expect(result.text).toBe(text);
    }
  });

  test("a string parameter keeps the digits, written bare or quoted", () => {
    const want = [{ tool: "get_thread", input: { id: ID } }];
    expect(calls(dsml("get_thread", ID, "false"))).toEqual(want);
    expect(calls(dsml("get_thread", ID, "true"))).toEqual(want);
    expect(calls(dsml("get_thread", ID))).toEqual(want);
    expect(calls(`<tool_call>\n{"name": "get_thread", "arguments": {"id": "${ID}"}}\n</tool_call>`)).toEqual(want);
    // A bare JSON number for a string parameter was refused before (the gate saw a number) and still is.
    expect(calls(`<tool_call>\n{"name": "get_thread", "arguments": {"id": ${ID}}}\n</tool_call>`)).toEqual([]);
    expect(parse(`<tool_call>\n{"name": "get_thread", "arguments": {"id": ${ID}}}\n</tool_call>`, tools).nudge).toBe("invalid-arguments");
  });

  test("whole, char by char and random splits agree: the DSML call is refused and its text kept", () => {
    const input = `Fetching:\n${dsml("get_message", ID, "false")}`;
    const run = (cuts: number[]) => observable(runEngine(input, cuts, tools));
    const whole = run([]);
    expect(whole.calls).toEqual([]);
    expect(whole.nudge).toBe("invalid-arguments");
    expect(whole.text).toBe(input);
    expect(run(everyChar(input.length))).toEqual(whole);
    for (let seed = 1; seed <= 10; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
  });

  test("through the fetch adapter a string id goes out digit for digit", async () => {
    const { out } = await throughFetch({ messages: [{ role: "user", content: "go" }], tools: openAiTools(tools) }, { json: completion(`x\n${dsml("get_thread", ID, "false")}`) });
    expect(out.calls.map((c) => c.arguments)).toEqual([`{"id":"${ID}"}`]);
  });
});
