import { describe, expect, test } from "bun:test";
import { coerceDeep, coerceValue, parseJson } from "../../src/parse/values.ts";
import { parse } from "../../src/engine/parse.ts";
import { block, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { deltas, sseText, throughFetch } from "../security/support.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { everyChar, observable, runEngine } from "../support/run-engine.ts";

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
    // Review 47: string="false" no longer lets a union with string take another type (it read the
    // same markup as text for "string" and as JSON for ["string","null"]): a place that takes a
    // string keeps the raw text, however the schema spells the type.
    expect(coerceValue("True", { type: ["string", "boolean"] }, "false")).toBe("True");
    expect(coerceValue('"a\\nb"', { type: ["string", "null"] }, "false")).toBe('"a\\nb"');
    expect(coerceValue("null", { anyOf: [{ type: "string" }, { type: "null" }] }, "false")).toBe("null");
    expect(coerceValue("42", { allOf: [{ type: "string" }] }, "false")).toBe("42");
    // Without a string, string="false" still reads JSON.
    expect(coerceValue("null", { type: ["integer", "null"] }, "false")).toBe(null);
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

describe("review 4: no Python way around parseJson, no leading-zero number, no number rewritten as other digits", () => {
  const array: JsonSchema = { type: "array" };
  const object: JsonSchema = { type: "object" };
  const chmod: ToolSpec = { name: "chmod", parameters: { type: "object", properties: { path: { type: "string" }, mode: { type: "integer" } }, required: ["path", "mode"] } };
  const configure: ToolSpec = { name: "configure", parameters: { type: "object", properties: { settings: object }, required: ["settings"] } };
  const tools = [...fixtureTools, chmod, configure];
  const calls = (text: string) => parse(text, tools).calls.map((c) => ({ tool: c.tool, input: c.input }));
  const dsml = (tool: string, params: [string, string, string?][]) => live(block("tool_calls", [[tool, params]]));

  test("text parseJson refuses (a key named twice, 1e999) is not read by the Python fallback either, JSON or Python spelled", () => {
    for (const hint of [undefined, "false"] as const) {
      expect(coerceValue('[{"content": "a", "status": "pending", "status": "completed"}]', array, hint)).toBe('[{"content": "a", "status": "pending", "status": "completed"}]');
      expect(coerceValue("[{'content': 'a', 'status': 'pending', 'status': 'completed'}]", array, hint)).toBe("[{'content': 'a', 'status': 'pending', 'status': 'completed'}]");
      expect(coerceValue('{"limit": 1e999}', object, hint)).toBe('{"limit": 1e999}');
      expect(coerceValue("{'limit': -1e999}", object, hint)).toBe("{'limit': -1e999}");
      // Hard negatives: each key once, a finite number, in either spelling.
      expect(coerceValue('[{"content": "a", "status": "pending"}]', array, hint)).toEqual([{ content: "a", status: "pending" }]);
      expect(coerceValue("[{'content': 'a', 'status': 'pending'}, {'content': 'b', 'status': 'pending'}]", array, hint)).toEqual([
        { content: "a", status: "pending" },
        { content: "b", status: "pending" },
      ]);
      expect(coerceValue("{'limit': 1e3}", object, hint)).toEqual({ limit: 1000 });
    }
  });

  test("a leading zero is no number: 0755 stays text for a number or integer parameter; 0, 0.5, 10, -3, 1e3 are numbers", () => {
    for (const raw of ["0755", "-0755", "00", "007", "01.5", "0755e1"]) {
      expect(coerceValue(raw, integer, undefined)).toBe(raw);
      expect(coerceValue(raw, number, "false")).toBe(raw);
    }
    expect(coerceValue("[0755]", array, undefined)).toBe("[0755]");
    // Hard negatives.
    for (const [raw, value] of [["0", 0], ["0.5", 0.5], ["10", 10], ["-3", -3], ["1e3", 1000], ["-0.5", -0.5], ["0e2", 0], ["755", 755]] as const) {
      expect(coerceValue(raw, number, undefined)).toBe(value);
    }
    expect(coerceValue("0755", { type: "string" }, undefined)).toBe("0755");
  });

  test("a number where only a string fits becomes text only as a safe integer; other numbers stay numbers for the gate to refuse", () => {
    const string: JsonSchema = { type: "string" };
    expect(coerceDeep(12345678901234567890, string)).toBe(12345678901234567890);
    expect(coerceDeep(1.1, string)).toBe(1.1);
    expect(coerceDeep(2 ** 53, string)).toBe(2 ** 53);
    expect(Object.is(coerceDeep(-0, string), -0)).toBe(true);
    expect(coerceDeep({ q: 0.5 }, { type: "object", properties: { q: string } })).toEqual({ q: 0.5 });
    // Hard negatives: safe integers and booleans are still written back as their text.
    for (const [value, text] of [[600, "600"], [0, "0"], [-3, "-3"], [1e3, "1000"], [Number.MAX_SAFE_INTEGER, "9007199254740991"], [true, "true"]] as const) {
      expect(coerceDeep(value, string)).toBe(text);
    }
    expect(coerceDeep({ q: 10 }, { type: "object", properties: { q: string } })).toEqual({ q: "10" });
    expect(coerceDeep(1.5, number)).toBe(1.5);
  });

  test("end to end: LFM2 and Python dicts naming a key twice, and 1e999, run nothing; the same once still runs", () => {
    expect(calls("<|tool_call_start|>[bash(command='echo hi', command='rm -rf ~')]<|tool_call_end|>")).toEqual([]);
    expect(parse("<|tool_call_start|>[bash(command='echo hi', command='rm -rf ~')]<|tool_call_end|>", tools).nudge).toBe("broken-markup");
    expect(calls("<|tool_call_start|>[todowrite(todos=[{'content': 'a', 'status': 'pending', 'status': 'completed'}])]<|tool_call_end|>")).toEqual([]);
    expect(calls("<|tool_call_start|>[read(filePath='/a', limit=1e999)]<|tool_call_end|>")).toEqual([]);
    expect(calls(dsml("todowrite", [["todos", "[{'content': 'a', 'status': 'pending', 'status': 'completed'}]", "false"]]))).toEqual([]);
    expect(calls(dsml("todowrite", [["todos", '[{"content": "a", "status": "pending", "status": "completed"}]', "false"]]))).toEqual([]);
    expect(calls(dsml("configure", [["settings", '{"limit": 1e999}', "false"]]))).toEqual([]);
    expect(calls('<tool_call>{"name":"todowrite","arguments":{"todos":"[{\\"content\\": \\"a\\", \\"status\\": \\"pending\\", \\"status\\": \\"completed\\"}]"}}</tool_call>')).toEqual([]);
    // Hard negatives.
    expect(calls("<|tool_call_start|>[bash(command='echo hi')]<|tool_call_end|>")).toEqual([{ tool: "bash", input: { command: "echo hi" } }]);
    expect(calls("<|tool_call_start|>[read(filePath='/a', limit=10)]<|tool_call_end|>")).toEqual([{ tool: "read", input: { filePath: "/a", limit: 10 } }]);
    expect(calls(dsml("todowrite", [["todos", '[{"content": "a", "status": "completed"}]', "false"]]))).toEqual([{ tool: "todowrite", input: { todos: [{ content: "a", status: "completed" }] } }]);
    expect(calls(dsml("configure", [["settings", '{"limit": 1e3}', "false"]]))).toEqual([{ tool: "configure", input: { settings: { limit: 1000 } } }]);
    expect(calls('<tool_call>{"name":"todowrite","arguments":{"todos":"[{\\"content\\": \\"a\\", \\"status\\": \\"completed\\"}]"}}</tool_call>')).toEqual([
      { tool: "todowrite", input: { todos: [{ content: "a", status: "completed" }] } },
    ]);
  });

  test("end to end: mode 0755 never runs as 755, in DSML (no hint and string=false), GLM, LFM2 and MiniMax; 755 written as 755 does", () => {
    const written = (mode: string) => [
      live(`<{D}tool_calls>\n<{D}invoke name="chmod">\n<{D}parameter name="path" string="true">/srv/app</{D}parameter>\n<{D}parameter name="mode">${mode}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`),
      dsml("chmod", [["path", "/srv/app"], ["mode", mode, "false"]]),
      `<tool_call>chmod\n<arg_key>path</arg_key>\n<arg_value>/srv/app</arg_value>\n<arg_key>mode</arg_key>\n<arg_value>${mode}</arg_value>\n</tool_call>`,
      `<|tool_call_start|>[chmod(path='/srv/app', mode=${mode})]<|tool_call_end|>`,
      `[TOOL_CALL]\n{tool => "chmod", args => {\n  --path "/srv/app"\n  --mode ${mode}\n}}\n[/TOOL_CALL]`,
    ];
    for (const text of written("0755")) {
      expect(calls(text)).toEqual([]);
      expect(parse(text, tools).nudge).not.toBeNull();
    }
    for (const text of written("755")) expect(calls(text)).toEqual([{ tool: "chmod", input: { path: "/srv/app", mode: 755 } }]);
    for (const text of written("0")) expect(calls(text)).toEqual([{ tool: "chmod", input: { path: "/srv/app", mode: 0 } }]);
  });

  test("end to end: Hermes 12345678901234567890 or 1.10 for a string parameter is refused (invalid-arguments), never other digits; 600 still runs as \"600\"", () => {
    for (const n of ["12345678901234567890", "1.10", "0.5"]) {
      const text = `<tool_call>{"name":"web_search","arguments":{"query":${n}}}</tool_call>`;
      expect(calls(text)).toEqual([]);
      expect(parse(text, tools).nudge).toBe("invalid-arguments");
    }
    expect(calls('<tool_call>{"name":"web_search","arguments":{"query":600}}</tool_call>')).toEqual([{ tool: "web_search", input: { query: "600" } }]);
    expect(calls('<tool_call>{"name":"web_search","arguments":{"query":"1.10"}}</tool_call>')).toEqual([{ tool: "web_search", input: { query: "1.10" } }]);
  });
});

describe("P09: only a newline on both sides of a value is layout (review args, finding 13)", () => {
  const write = (opener: string, content: string) =>
    live(`<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">a.md</{D}parameter>\n${opener}${content}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
  const content = (input: string) => {
    const whole = runEngine(input, [], fixtureTools);
    expect(observable(runEngine(input, everyChar(input.length), fixtureTools))).toEqual(observable(whole));
    return whole.calls.map((c) => c.input.content);
  };
  const opener = `<{D}parameter name="content" string="true">`;

  test("a lone leading newline is content (a file that starts with a blank line)", () => {
    expect(content(write(opener, "\n# Title"))).toEqual(["\n# Title"]);
  });

  test("a newline on both sides is layout; a lone trailing one is content", () => {
    expect(content(write(opener, "\n# Title\n"))).toEqual(["# Title"]);
    expect(content(write(opener, "# Title\n"))).toEqual(["# Title\n"]);
  });

  test("an opener that lost its > at the line end (B03): that newline is the opener's", () => {
    expect(content(write(`<{D}parameter name="content" string="true"`, "\n# Title"))).toEqual(["# Title"]);
  });
});
