/**
 * Review 43 (fix-43-python): the Python reader (src/parse/dialects/pythonic.ts) reads a value as
 * Python does. `(x)` is x, only a comma makes a tuple; a text value for a list or object parameter
 * is read by the same reader in every text-valued dialect (coerceValue), so each dialect is checked
 * here, each with its control (a real tuple still reads as a list, so the reader is reached).
 * Every engine case runs whole, char by char and at seeded random splits (runAtEverySplit).
 */
import { describe, expect, test } from "bun:test";
import { parsePythonCalls } from "../../src/parse/dialects/pythonic.ts";
import { parsePythonLiteral } from "../../src/parse/python-literal.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
const listTool: ToolSpec = { name: "stage", parameters: obj({ paths: { type: "array", items: { type: "string" } } }, ["paths"]) };
const tools: ToolSpec[] = [...fixtureTools, listTool];

function outcome(notation: string) {
  const r = runAtEverySplit(live(notation), tools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => b.reason) };
}

describe("parsePythonLiteral: parentheses group, a comma makes a tuple", () => {
  test("(x) is x at any depth", () => {
    expect(parsePythonLiteral("('src')")).toEqual({ ok: true, value: "src" });
    expect(parsePythonLiteral("(1)")).toEqual({ ok: true, value: 1 });
    expect(parsePythonLiteral("((('a')))")).toEqual({ ok: true, value: "a" });
    expect(parsePythonLiteral("({'a': 1})")).toEqual({ ok: true, value: { a: 1 } });
    expect(parsePythonLiteral("[('a'), ('b')]")).toEqual({ ok: true, value: ["a", "b"] });
    expect(parsePythonLiteral("{('k'): ('v')}")).toEqual({ ok: true, value: { k: "v" } });
    expect(parsePythonLiteral("(['a'])")).toEqual({ ok: true, value: ["a"] });
  });

  test("a tuple is a list: (), (x,), (a, b), ((a, b))", () => {
    expect(parsePythonLiteral("()")).toEqual({ ok: true, value: [] });
    expect(parsePythonLiteral("('a',)")).toEqual({ ok: true, value: ["a"] });
    expect(parsePythonLiteral("('a', 'b')")).toEqual({ ok: true, value: ["a", "b"] });
    expect(parsePythonLiteral("('a', 'b',)")).toEqual({ ok: true, value: ["a", "b"] });
    expect(parsePythonLiteral("(('a', 'b'))")).toEqual({ ok: true, value: ["a", "b"] });
    expect(parsePythonLiteral("(('a',),)")).toEqual({ ok: true, value: [["a"]] });
  });

  test("what Python refuses stays refused", () => {
    for (const text of ["(,)", "('a',,)", "('a' 'b')", "('a' 1)", "(('a')", "('a'))", "{(1, 2): 'a'}", "{('a',): 1}"]) {
      expect(parsePythonLiteral(text)).toEqual({ ok: false });
    }
  });

  test("an LFM2 keyword argument in parentheses is its value", () => {
    expect(parsePythonCalls("[stage(paths=('src'))]")).toEqual([{ name: "stage", args: { paths: "src" } }]);
    expect(parsePythonCalls("[read(filePath=('/a'), limit=(5))]")).toEqual([{ name: "read", args: { filePath: "/a", limit: 5 } }]);
  });
});

describe("every text-valued dialect: ('src') for a list parameter is no list; ('src',) is", () => {
  const forms: [string, (value: string) => string][] = [
    ["LFM2 (O08)", (v) => `<|tool_call_start|>[stage(paths=${v})]<|tool_call_end|>`],
    ["Qwen3-Coder (O02)", (v) => `<tool_call>\n<function=stage>\n<parameter=paths>${v}</parameter>\n</function>\n</tool_call>`],
    ["GLM (O03)", (v) => `<tool_call>stage\n<arg_key>paths</arg_key>\n<arg_value>${v}</arg_value>\n</tool_call>`],
    ["MiniMax invoke (O05)", (v) => `<minimax:tool_call>\n<invoke name="stage">\n<parameter name="paths">${v}</parameter>\n</invoke>\n</minimax:tool_call>`],
    ["MiniMax bracket arrow", (v) => `[TOOL_CALL]\n{tool => "stage", args => {\n  --paths ${JSON.stringify(v)}\n}}\n[/TOOL_CALL]`],
    ["Claude-style invoke", (v) => `<function_calls>\n<invoke name="stage">\n<parameter name="paths">${v}</parameter>\n</invoke>\n</function_calls>`],
    ["DSML", (v) => `<{D}tool_calls>\n<{D}invoke name="stage">\n<{D}parameter name="paths" string="false">${v}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`],
    ["DSML without string=", (v) => `<{D}tool_calls>\n<{D}invoke name="stage">\n<{D}parameter name="paths">${v}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`],
    ["Hermes JSON string", (v) => `<tool_call>{"name": "stage", "arguments": {"paths": ${JSON.stringify(v)}}}</tool_call>`],
    ["Mistral JSON string", (v) => `[TOOL_CALLS]stage[ARGS]{"paths": ${JSON.stringify(v)}}`],
  ];
  for (const [dialect, form] of forms) {
    test(dialect, () => {
      const refused = outcome(form("('src')"));
      expect(refused.calls).toEqual([]);
      expect(refused.broken).toEqual(["invalid-arguments"]);
      // Control: a one-item tuple is a list, so this dialect does reach the Python reader.
      expect(outcome(form("('src',)")).calls).toEqual([{ tool: "stage", input: { paths: ["src"] } }]);
    });
  }
});

describe("valid Python the reader now reads: trailing commas and the u'' prefix (finding 3)", () => {
  test("a comma after the last keyword argument, dict entry, list item or call", () => {
    expect(parsePythonCalls("[read(filePath='/a', limit=5,)]")).toEqual([{ name: "read", args: { filePath: "/a", limit: 5 } }]);
    expect(parsePythonCalls("[bash(command='ls'),]")).toEqual([{ name: "bash", args: { command: "ls" } }]);
    expect(parsePythonCalls("[bash(command='ls'), read(filePath='/a',),]")).toEqual([
      { name: "bash", args: { command: "ls" } },
      { name: "read", args: { filePath: "/a" } },
    ]);
    expect(parsePythonLiteral("{'a': 1, 'b': {'c': 2,},}")).toEqual({ ok: true, value: { a: 1, b: { c: 2 } } });
    expect(parsePythonLiteral("['a', 'b',]")).toEqual({ ok: true, value: ["a", "b"] });
  });

  test("u'' and U\"\" are plain strings", () => {
    expect(parsePythonCalls("[bash(command=U\"ls\", description=u'list')]")).toEqual([{ name: "bash", args: { command: "ls", description: "list" } }]);
    expect(parsePythonLiteral("{u'content': u'a\\x41'}")).toEqual({ ok: true, value: { content: "aA" } });
  });

  test("what Python refuses stays refused: a lone or doubled comma, other or stacked prefixes, a prefix apart from its quote", () => {
    for (const text of ["[bash(,)]", "[bash(command='ls',,)]", "[,]", "[bash(command='ls'),,]", "[bash(command='ls') read(filePath='/a')]"]) {
      expect(parsePythonCalls(text)).toBeNull();
    }
    for (const text of ["{,}", "{'a': 1,,}", "[,]", "['a',,]", "ur'ls'", "Ur'ls'", "ub'ls'", "bu'ls'", "uu'ls'", "u 'ls'", "u", "U"]) {
      expect(parsePythonLiteral(text)).toEqual({ ok: false });
    }
  });

  test("LFM2 end to end: the calls run, the refused spellings stay text", () => {
    expect(outcome("<|tool_call_start|>[bash(command=u'ls',),]<|tool_call_end|>").calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome("<|tool_call_start|>[bash(command=ur'ls')]<|tool_call_end|>").calls).toEqual([]);
  });
});

describe("Python True/False where only a string fits is the text written, \"True\"; JSON true stays \"true\" (finding 2)", () => {
  const anyTool: ToolSpec = { name: "store", parameters: obj({ value: {} }, ["value"]) };
  const run = (input: string) => runAtEverySplit(live(input), [...tools, anyTool]).calls.map((c) => ({ tool: c.tool, input: c.input }));
  const lfm2 = (body: string) => `<|tool_call_start|>${body}<|tool_call_end|>`;

  test("LFM2: a string parameter gets the spelling written; a boolean or untyped one the boolean", () => {
    expect(run(lfm2("[edit(filePath='flags.py', oldString=True, newString=False, replaceAll=True)]"))).toEqual([
      { tool: "edit", input: { filePath: "flags.py", oldString: "True", newString: "False", replaceAll: true } },
    ]);
    expect(run(lfm2("[list_sessions(verbose=False)]"))).toEqual([{ tool: "list_sessions", input: { verbose: false } }]);
    expect(run(lfm2("[store(value=[True, {'k': False}])]"))).toEqual([{ tool: "store", input: { value: [true, { k: false }] } }]);
  });

  test("LFM2: at depth, in a tuple and in parentheses, each place by its own schema", () => {
    expect(run(lfm2("[todowrite(todos=[{'content': True, 'status': 'pending'}])]"))).toEqual([
      { tool: "todowrite", input: { todos: [{ content: "True", status: "pending" }] } },
    ]);
    expect(run(lfm2("[stage(paths=(True, False))]"))).toEqual([{ tool: "stage", input: { paths: ["True", "False"] } }]);
    expect(run(lfm2("[edit(filePath='a', oldString=(True), newString=('x'))]"))).toEqual([
      { tool: "edit", input: { filePath: "a", oldString: "True", newString: "x" } },
    ]);
    // (True) is True, a string for a list parameter: refused.
    expect(run(lfm2("[stage(paths=(True))]"))).toEqual([]);
  });

  test("a Python literal in a text value (Qwen3-Coder, a Hermes JSON string) keeps the spelling too", () => {
    expect(run("<tool_call>\n<function=stage>\n<parameter=paths>[True, 'x']</parameter>\n</function>\n</tool_call>")).toEqual([
      { tool: "stage", input: { paths: ["True", "x"] } },
    ]);
    expect(run(`<tool_call>{"name": "stage", "arguments": {"paths": "[False]"}}</tool_call>`)).toEqual([{ tool: "stage", input: { paths: ["False"] } }]);
  });

  test("controls: JSON true for a string parameter is still \"true\", as a JSON body and as JSON text in a value", () => {
    expect(run(`<tool_call>{"name": "edit", "arguments": {"filePath": "a", "oldString": true, "newString": false}}</tool_call>`)).toEqual([
      { tool: "edit", input: { filePath: "a", oldString: "true", newString: "false" } },
    ]);
    expect(run(`<tool_call>{"name": "stage", "arguments": {"paths": "[true]"}}</tool_call>`)).toEqual([{ tool: "stage", input: { paths: ["true"] } }]);
    expect(run(lfm2(`[{"name": "edit", "arguments": {"filePath": "a", "oldString": true, "newString": "x"}}]`))).toEqual([
      { tool: "edit", input: { filePath: "a", oldString: "true", newString: "x" } },
    ]);
  });

  test("without a schema the reader gives booleans; a True key is still refused", () => {
    expect(parsePythonCalls("[edit(oldString=True)]")).toEqual([{ name: "edit", args: { oldString: true } }]);
    expect(parsePythonLiteral("[True, (False)]")).toEqual({ ok: true, value: [true, false] });
    expect(parsePythonLiteral("[True, (False)]", { type: "array", items: { type: "string" } })).toEqual({ ok: true, value: ["True", "False"] });
    expect(parsePythonLiteral("{True: 1}", { type: "object" })).toEqual({ ok: false });
  });
});
