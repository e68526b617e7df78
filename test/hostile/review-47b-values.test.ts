/**
 * Hostile review 47b: this round's value rules. A place admitting a string keeps the raw text
 * whatever string= says, the schema walk following $ref/allOf up to 16 levels
 * (src/parse/schema-walk.ts); prototype-named keys refuse the call (src/parse/values.ts); a garbled
 * closer ending the last value is cut (P02, src/parse/dialects/dsml/value-ends.ts). Each failing test
 * says what is wrong, its severity and the suspected file; passing tests are hard negatives.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";
import { sdkTools, textStream, throughMiddleware } from "../security/support.ts";

const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "Run it." }] }];

const VALUE = '"rm -rf /tmp/a\\nrm -rf ~"';
const call = live(`Running.\n<{D}tool_calls>\n<{D}invoke name="t">\n<{D}parameter name="v" string="false">${VALUE}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);

/** A tool whose parameter v reaches `{type: "string"}` through a chain of `depth` local $refs. */
function refChain(depth: number): ToolSpec {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) defs[`a${i}`] = { $ref: `#/$defs/a${i + 1}` };
  defs[`a${depth}`] = { type: "string" };
  return { name: "t", parameters: { type: "object", $defs: defs, properties: { v: { $ref: "#/$defs/a0" } }, required: ["v"] } } as ToolSpec;
}

/** A tool whose parameter v is `{type: "string"}` wrapped in `depth` allOfs. */
function allOfNest(depth: number): ToolSpec {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { allOf: [schema] };
  return { name: "t", parameters: { type: "object", properties: { v: schema }, required: ["v"] } } as ToolSpec;
}

const inputs = (tool: ToolSpec) => parse(call, [tool]).calls.map((c) => c.input);

describe("a string place reached past the schema walk's depth cap", () => {
  // Fixed (was FINDING 6, low-medium: the review-47 string="false" finding again, past 16 levels).
  // The gate (ajv) resolves the whole chain and sees a string place; the schema walk gave up after
  // 16 levels and read the place as taking no type, so string="false" decoded the JSON literal
  // (`\n` and all: two commands). Rule now (src/parse/schema-walk.ts placeTypes, propertySchema,
  // itemSchema): where the walk gives up (something left to follow at its depth cap), the place's
  // value is read as UNFOLLOWED_PLACE and the gate refuses the call (invalid-arguments, fail
  // closed), through parse(), the engine at every split and the middleware alike.
  const raw = [{ v: VALUE }];
  test("control (passes): a 15-level $ref chain keeps the raw text", () => {
    expect(inputs(refChain(15))).toEqual(raw);
  });
  test("fixed: a 16-level $ref chain no longer decodes the literal into two commands", () => {
    expect(inputs(refChain(16))).not.toEqual([{ v: "rm -rf /tmp/a\nrm -rf ~" }]);
  });
  test("fixed: a 17-level allOf nest no longer decodes the literal into two commands", () => {
    expect(inputs(allOfNest(17))).not.toEqual([{ v: "rm -rf /tmp/a\nrm -rf ~" }]);
  });
  test("fixed: past the cap the call is refused, reported invalid-arguments, at every split and through the middleware", async () => {
    for (const tool of [refChain(16), allOfNest(17), refChain(40)]) {
      expect(inputs(tool)).toEqual([]);
      const r = runAtEverySplit(call, [tool]);
      expect(r.calls).toEqual([]);
      expect(r.summary.broken.map((b) => b.reason)).toEqual(["invalid-arguments"]);
      expect(r.text).toContain(VALUE);
      const sdk = await throughMiddleware(prompt, textStream(call), {}, { tools: sdkTools([tool]) });
      expect(sdk.calls).toEqual([]);
    }
  });
  test("hard negative (passes): a ref cycle (a -> b -> a) refuses the call", () => {
    const cycle = { name: "t", parameters: { type: "object", $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, properties: { v: { $ref: "#/$defs/a" } }, required: ["v"] } } as ToolSpec;
    expect(runAtEverySplit(call, [cycle]).calls).toEqual([]);
  });
  test("fixed: the object's own properties reached past the cap (a $ref chain at the root) refuse the call too", () => {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) defs[`r${i}`] = { $ref: `#/$defs/r${i + 1}` };
    defs.r20 = { type: "object", properties: { v: { type: "string" } }, required: ["v"] };
    const tool = { name: "t", parameters: { $ref: "#/$defs/r0", $defs: defs } } as ToolSpec;
    expect(runAtEverySplit(call, [tool]).calls).toEqual([]);
  });
  test("fixed: a value in an array item or a Python-literal boolean under a place past the cap is refused too", () => {
    let deep: Record<string, unknown> = { type: "boolean" };
    for (let i = 0; i < 17; i++) deep = { allOf: [deep] };
    const tool = { name: "t", parameters: { type: "object", properties: { v: { type: "array", items: deep } }, required: ["v"] } } as ToolSpec;
    for (const v of ["[true]", "[True]", '["true"]']) {
      const input = live(`Running.\n<{D}tool_calls>\n<{D}invoke name="t">\n<{D}parameter name="v" string="false">${v}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
      expect(runAtEverySplit(input, [tool]).calls).toEqual([]);
    }
  });
  test("hard negative (passes): within the cap (16 allOfs, a 15-level $ref chain) the call runs with the raw text, at every split", () => {
    for (const tool of [allOfNest(16), refChain(15)]) expect(runAtEverySplit(call, [tool]).calls.map((c) => c.input)).toEqual(raw);
  });
  test("hard negative (passes): a recursive schema through properties (a tree) is followed value by value, not refused", () => {
    const tree = { name: "t", parameters: { type: "object", $defs: { node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } }, properties: { v: { $ref: "#/$defs/node" } }, required: ["v"] } } as ToolSpec;
    const value = '{"name":"a","children":[{"name":"b","children":[{"name":"c","children":[]}]}]}';
    const input = live(`Running.\n<{D}tool_calls>\n<{D}invoke name="t">\n<{D}parameter name="v" string="false">${value}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
    expect(runAtEverySplit(input, [tree]).calls.map((c) => c.input)).toEqual([{ v: JSON.parse(value) }]);
  });
});

describe("a prototype-named key in Mistral's list form", () => {
  // Fixed (was FINDING 7, low: refusal not reported; finding 9 of the brief).
  // `[TOOL_CALLS][{"name":...,"arguments":{"constructor":1}}]` (or `__proto__`, or
  // `\u0063onstructor`) was refused in silence: no broken span, so no nudge or retry, while the
  // `[TOOL_CALLS]name[ARGS]{...}` form, Hermes, Qwen3-Coder, MiniMax and DSML report it; a key
  // written twice was silent there too. Rule now (src/parse/dialects/mistral.ts refusedList): a
  // list that is valid JSON but that parseJson refuses (a prototype-named key, a key twice, a
  // number out of range) is broken-markup with shape O06, its text kept visible; text that is no
  // JSON list stays text.
  for (const key of ["constructor", "__proto__", "\\u0063onstructor"]) {
    test(`fixed: list form with a "${key}" key: refused and reported`, () => {
      const r = runAtEverySplit(`[TOOL_CALLS][{"name":"list_sessions","arguments":{"${key}":{"verbose":true}}}]`, fixtureTools);
      expect(r.calls).toEqual([]);
      expect(r.summary.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
    });
  }
  const listCases: [string, string][] = [
    ["a key twice in the arguments", `[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls","command":"rm -rf ~"}}]`],
    ["the name twice", `[TOOL_CALLS][{"name":"read","name":"bash","arguments":{"command":"ls"}}]`],
    ["a prototype key in the second call of two", `[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}},{"name":"bash","arguments":{"command":"pwd","__proto__":{}}}]`],
  ];
  for (const [name, input] of listCases) {
    test(`fixed: list form with ${name}: no call, broken-markup O06, the text kept, at every split`, () => {
      const r = runAtEverySplit(input, fixtureTools);
      expect(r.calls).toEqual([]);
      expect(r.summary.broken.map((b) => [b.reason, b.shape])).toEqual([["broken-markup", "O06"]]);
      expect(r.summary.nudge).not.toBeNull();
      expect(r.text).toContain(input.slice("[TOOL_CALLS]".length));
    });
  }
  test("fixed: through the middleware the refused list runs nothing and is reported", async () => {
    const input = `[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls","constructor":{}}}]`;
    const sdk = await throughMiddleware(prompt, textStream(input));
    expect(sdk.calls).toEqual([]);
    expect(sdk.results.flatMap((r) => r.summary.broken.map((b) => b.reason))).toEqual(["broken-markup"]);
  });
  test("hard negative (passes): a list that is no JSON is still text, nothing reported", () => {
    const r = runAtEverySplit(`[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}`, fixtureTools);
    expect(r.calls).toEqual([]);
  });
  test("hard negative (passes): a well-formed list still runs", () => {
    const r = runAtEverySplit(`[TOOL_CALLS][{"name":"bash","arguments":{"command":"ls"}}]`, fixtureTools);
    expect(r.calls.map((c) => c.input)).toEqual([{ command: "ls" }]);
  });
  test("control (passes): the [ARGS] form reports it", () => {
    const r = runAtEverySplit(`[TOOL_CALLS]list_sessions[ARGS]{"constructor":1}`, fixtureTools);
    expect(r.calls).toEqual([]);
    expect(r.summary.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  });
});

describe("P02 at the end of the last value: a fullwidth bar before a word", () => {
  // Fixed (review 47b finding 8). The rule now: a garbled closer has no whitespace inside it, and one
  // led by a bare sentinel bar shows markup (a `>` or DSML in it) or is glued to the value before a
  // word spelled like `parameter` (`{BAR}param`, `{BAR}parametr`); a bar after a space or before an
  // ordinary word (`{BAR} parameters`, `{BAR}parameters`) is the value's text, kept
  // (src/parse/dialects/dsml/value-ends.ts garbledCloserAt; more cases in test/parse/garbled-closer.test.ts).
  // What was wrong (FINDING 8, low: text lost in silence; new this round, main kept it). A last value whose own
  // closer was lost (ended by the invoke closer, P01) and whose text ends in a fullwidth-bar
  // separated word starting with "param" (a Chinese table cell `名称 {BAR} parameters`) is cut at the
  // bar: the file is written without ` {BAR} parameters`, and the cut text is neither visible nor
  // reported as stripped. GARBLED_CLOSER admits spaces between the bar and the word and any
  // `param[a-z]{0,8}`, with no `>`. Expected: a bar followed by a space and a plural word is kept
  // (no closer has a space after its bar and no `>`), or the cut is reported. Suspected:
  // src/parse/dialects/dsml/value-ends.ts GARBLED_CLOSER.
  const page = live(`Writing.\n<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">t.md</{D}parameter>\n<{D}parameter name="content" string="true">| 名称 {BAR} parameters\n</{D}invoke>\n</{D}tool_calls>`);
  test("fixed: the content keeps its last word or the cut is reported", () => {
    const r = runAtEverySplit(page, fixtureTools);
    const kept = r.calls.some((c) => c.input.content === live("| 名称 {BAR} parameters"));
    expect(kept || r.summary.stripped.length > 0 || r.summary.broken.length > 0).toBe(true);
  });
  test("hard negative (passes): the same text closed by its own closer is kept whole", () => {
    const closed = page.replace("\n</", `${live("</{D}parameter>")}\n</`);
    expect(runAtEverySplit(closed, fixtureTools).calls.map((c) => c.input.content)).toEqual([live("| 名称 {BAR} parameters")]);
  });
});

describe("a tool declared twice: the reading follows the first declaration only", () => {
  // Fixed (was FINDING 9, low: reading depended on declaration order; finding 10 of the brief).
  // A name declared twice must fit every declaration (gate), but values were read with the first:
  // [untyped v, string v] decoded string="false" `"a\nb"` (a newline: two lines of a command), the
  // reverse order kept it raw; both readings fit both schemas, so the gate could not tell. Rule now
  // (src/parse/span.ts sameUnderEveryDeclaration, SchemaGate.declarationsOf): a span with a call
  // to a name declared more than once with different schemas is read again with each other
  // declaration in the first one's place; a call any of them reads differently (other arguments,
  // another boundary, no call) is refused, invalid-arguments, whatever the order (fail closed);
  // identical readings run. The control below kept the raw text before; it is refused now too,
  // since the untyped declaration reads the same markup as the decoded text.
  const untyped = { name: "t", parameters: { type: "object", properties: { v: {} } } } as ToolSpec;
  const typed = { name: "t", parameters: { type: "object", properties: { v: { type: "string" } } } } as ToolSpec;
  const literal = live(`Running.\n<{D}tool_calls>\n<{D}invoke name="t">\n<{D}parameter name="v" string="false">"a\\nb"</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  test("fixed: [string, untyped] (kept the raw text) is refused: the other declaration reads it decoded", () => {
    expect(parse(literal, [typed, untyped]).calls.map((c) => c.input)).toEqual([]);
  });
  test("fixed: [untyped, string] no longer decodes it: the same outcome whatever the order", () => {
    expect(parse(literal, [untyped, typed]).calls.map((c) => c.input)).toEqual(parse(literal, [typed, untyped]).calls.map((c) => c.input));
  });
  test("fixed: refused and reported invalid-arguments in both orders, at every split and through the middleware", async () => {
    for (const tools of [[untyped, typed], [typed, untyped]]) {
      const r = runAtEverySplit(literal, tools);
      expect(r.calls).toEqual([]);
      expect(r.summary.broken.map((b) => b.reason)).toEqual(["invalid-arguments"]);
      expect(r.text).toContain('"a\\nb"');
      expect((await throughMiddleware(prompt, textStream(literal), {}, { tools: sdkTools(tools) })).calls).toEqual([]);
    }
  });
  test("fixed: the same in a Qwen3-Coder body and for a number read as text by one declaration", () => {
    const qwen = `<tool_call>\n<function=t>\n<parameter=v>\n5\n</parameter>\n</function>\n</tool_call>`;
    const number = { name: "t", parameters: { type: "object", properties: { v: { type: "number" } } } } as ToolSpec;
    const either = { name: "t", parameters: { type: "object", properties: { v: { type: ["string", "number"] } } } } as ToolSpec;
    expect(runAtEverySplit(qwen, [number, either]).calls).toEqual([]);
    expect(runAtEverySplit(qwen, [either, number]).calls).toEqual([]);
  });
  test("hard negative (passes): declarations that read the value alike run (a description apart, or an exact duplicate)", () => {
    const described = { name: "t", parameters: { type: "object", properties: { v: { type: "string", description: "the value" } } } } as ToolSpec;
    for (const tools of [[typed, described], [described, typed], [typed, typed]]) {
      expect(runAtEverySplit(literal, tools).calls.map((c) => c.input)).toEqual([{ v: '"a\\nb"' }]);
    }
  });
});

describe("number literals at the 1e21 boundary", () => {
  // Fixed (was FINDING 10, low, at the documented boundary; finding 11 of the brief). "A literal
  // with a fraction or an exponent that reads as an integer below 1e21 must denote exactly that
  // integer" tested the rounded double, so `999999999999999999999.9` (no integer) and
  // `9.999999999999999999e20` (...999900), both below 1e21 but read as the double 1e21, escaped it
  // and an integer parameter took 1e21. Rule now (src/grammar/json-syntax.ts readNumberLiteral):
  // "below 1e21" is the literal's own magnitude; such a literal reads as a bigint (the integer it
  // denotes, or the one it reads as), which the gate refuses whatever the schema, as it refuses
  // `123456789012345678.5`. Literals of 1e21 and more (`1.5e300`) still read as their double.
  const integer = { name: "t", parameters: { type: "object", properties: { v: { type: "integer" } }, required: ["v"] } } as ToolSpec;
  const withValue = (v: string) => live(`Running.\n<{D}tool_calls>\n<{D}invoke name="t">\n<{D}parameter name="v" string="false">${v}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  test("hard negative (passes): 1.5e300 and 1e21 still read as their double for a number place; 1e20 and 100000000000000000000.0 as the integer", () => {
    const number = { name: "t", parameters: { type: "object", properties: { v: { type: "number" } }, required: ["v"] } } as ToolSpec;
    expect(runAtEverySplit(withValue("1.5e300"), [number]).calls.map((c) => c.input)).toEqual([{ v: 1.5e300 }]);
    expect(runAtEverySplit(withValue("1e21"), [number]).calls.map((c) => c.input)).toEqual([{ v: 1e21 }]);
    for (const v of ["1e20", "100000000000000000000.0"]) expect(runAtEverySplit(withValue(v), [integer]).calls.map((c) => c.input)).toEqual([{ v: 1e20 }]);
  });
  test("fixed: past 1e21 a literal with a fraction (it reads as a whole double) is refused for an integer place, in every reader; a number place keeps its double", () => {
    const places = { name: "t", parameters: { type: "object", properties: { v: { type: "integer" }, a: { type: "array", items: { type: "integer" } } } } } as ToolSpec;
    const numbers = { name: "t", parameters: { type: "object", properties: { v: { type: "number" }, a: { type: "array", items: { type: "number" } } } } } as ToolSpec;
    for (const v of ["1000000000000000000000.5", "1.0000000000000000000005e21", "-12345678901234567890123.25"]) {
      const forms = [
        withValue(v),
        withValue(`[${v}]`).replace('name="v"', 'name="a"'),
        withValue(`[${v}, None]`).replace('name="v"', 'name="a"'),
        `<tool_call>\n{"name":"t","arguments":{"v":${v}}}\n</tool_call>`,
        `<tool_call>\n{"name":"t","arguments":{"a":[${v}]}}\n</tool_call>`,
        `[TOOL_CALLS]t[ARGS]{"v":${v}}`,
      ];
      for (const input of forms) {
        const r = runAtEverySplit(input, [places]);
        expect(r.calls).toEqual([]);
        expect(r.summary.broken.map((b) => b.reason)).toEqual(["invalid-arguments"]);
      }
      for (const input of [forms[0]!, forms[1]!, forms[3]!, forms[4]!, forms[5]!]) expect(runAtEverySplit(input, [numbers]).calls).toHaveLength(1);
    }
  });
  test("hard negative (passes): an integer literal past 1e21 (1e21, 1.5e300, 12345678901234567890123e0) still passes an integer place as before", () => {
    for (const v of ["1e21", "1.5e300", "12345678901234567890123e0"]) expect(runAtEverySplit(withValue(v), [integer]).calls).toHaveLength(1);
  });
  test("control (passes): 123456789012345678.5 is refused for an integer", () => {
    expect(parse(withValue("123456789012345678.5"), [integer]).calls).toEqual([]);
  });
  for (const v of ["999999999999999999999.9", "9.999999999999999999e20"]) {
    test(`fixed: ${v} (below 1e21, not the integer it reads as) is refused for an integer`, () => {
      expect(parse(withValue(v), [integer]).calls).toEqual([]);
    });
    test(`fixed: ${v} is refused at every split, through the middleware and in a JSON body too`, async () => {
      const r = runAtEverySplit(withValue(v), [integer]);
      expect(r.calls).toEqual([]);
      expect(r.summary.broken.map((b) => b.reason)).toEqual(["invalid-arguments"]);
      expect((await throughMiddleware(prompt, textStream(withValue(v)), {}, { tools: sdkTools([integer]) })).calls).toEqual([]);
      expect(runAtEverySplit(`<tool_call>\n{"name":"t","arguments":{"v":${v}}}\n</tool_call>`, [integer]).calls).toEqual([]);
    });
  }
});

describe("hard negatives (pass): prototype-named keys in other spellings are refused", () => {
  // Kept: no test elsewhere spells the key with JSON escapes, nests it in an array of objects, or
  // writes it as a Python literal inside a DSML value; every one is refused (broken-markup).
  const todos = (value: string) => live(`Planning.\n<{D}tool_calls>\n<{D}invoke name="todowrite">\n<{D}parameter name="todos" string="false">${value}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const cases: [string, string][] = [
    ["JSON-escaped __proto__ nested in an array item (DSML)", todos(String.raw`[{"content":"a","status":"pending","\u005f_proto__":{}}]`)],
    ["constructor in an array item (DSML)", todos(`[{"content":"a","status":"pending","constructor":{}}]`)],
    ["a Python-literal __proto__ key (DSML value)", todos(`[{'content':'a','status':'pending','__proto__':{}}]`)],
    ["fully escaped __proto__ (Hermes)", `<tool_call>\n{"name":"todowrite","arguments":{"todos":[{"content":"a","status":"pending","\\u005F\\u005Fproto\\u005F\\u005F":{}}]}}\n</tool_call>`],
    ["escaped prototype inside arguments given as a string (Hermes)", `<tool_call>\n{"name":"todowrite","arguments":"{\\"todos\\":[{\\"content\\":\\"a\\",\\"status\\":\\"pending\\",\\"proto\\\\u0074ype\\":1}]}"}\n</tool_call>`],
  ];
  for (const [name, input] of cases) {
    test(name, () => {
      const r = runAtEverySplit(input, fixtureTools);
      expect(r.calls).toEqual([]);
      expect(r.summary.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
    });
  }
});
