/**
 * The Python readers (src/parse/dialects/pythonic.ts: LFM2 call lists; src/parse/python-literal.ts:
 * Python literals in values) refuse what parseJson refuses, so a Python spelling is never a way around the JSON reader
 * (review 4): a keyword argument or dict key named twice, a number out of range, and a number
 * JSON's grammar does not spell (a leading zero).
 */
import { describe, expect, test } from "bun:test";
import { parsePythonCalls } from "../../src/parse/dialects/pythonic.ts";
import { parsePythonLiteral } from "../../src/parse/python-literal.ts";
import { live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

/** The calls and broken shapes of a run, asserted the same at every split. */
function outcome(notation: string) {
  const input = live(notation);
  const r = runAtEverySplit(input, fixtureTools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => b.shape) };
}

describe("a name read twice is refused, never the last kept (review 4)", () => {
  test("a keyword argument named twice refuses the call list; distinct names, and one name in two calls, still read", () => {
    expect(parsePythonCalls("[bash(command='echo hi', command='rm -rf ~')]")).toBeNull();
    expect(parsePythonCalls("[read(filePath='/a', limit=5, limit=6)]")).toBeNull();
    expect(parsePythonCalls("[read(filePath='/a'), bash(command='ls', command='ls')]")).toBeNull();
    expect(parsePythonCalls("[bash(__proto__='a', __proto__='b', command='ls')]")).toBeNull();
    // Hard negatives.
    expect(parsePythonCalls("[bash(command='echo hi', description='greet')]")).toEqual([{ name: "bash", args: { command: "echo hi", description: "greet" } }]);
    expect(parsePythonCalls("[read(filePath='/a'), read(filePath='/b')]")).toEqual([
      { name: "read", args: { filePath: "/a" } },
      { name: "read", args: { filePath: "/b" } },
    ]);
    expect(parsePythonCalls("[bash(command='command=1, command=2')]")).toEqual([{ name: "bash", args: { command: "command=1, command=2" } }]);
  });

  test("a dict naming a key twice is refused at any depth, whatever the quotes; the same key in sibling or nested dicts still reads", () => {
    expect(parsePythonLiteral("{'status': 'pending', 'status': 'completed'}")).toEqual({ ok: false });
    expect(parsePythonLiteral(`{'status': 'pending', "status": 'completed'}`)).toEqual({ ok: false });
    expect(parsePythonLiteral("[{'content': 'a', 'x': {'k': 1, 'k': 2}}]")).toEqual({ ok: false });
    expect(parsePythonLiteral('[{"content": "a", "status": "pending", "status": "completed"}]')).toEqual({ ok: false });
    expect(parsePythonCalls("[todowrite(todos=[{'content': 'a', 'status': 'pending', 'status': 'completed'}])]")).toBeNull();
    // Hard negatives.
    expect(parsePythonLiteral("[{'status': 'pending'}, {'status': 'completed'}]")).toEqual({ ok: true, value: [{ status: "pending" }, { status: "completed" }] });
    expect(parsePythonLiteral("{'a': {'a': {'a': 1}}, 'b': 'a'}")).toEqual({ ok: true, value: { a: { a: { a: 1 } }, b: "a" } });
    expect(parsePythonLiteral("['a', 'a']")).toEqual({ ok: true, value: ["a", "a"] });
  });
});

describe("numbers as JSON spells them, and only finite ones (review 4)", () => {
  test("a number out of range (1e999) is refused, as a literal and as a keyword argument", () => {
    for (const text of ["1e999", "-1e999", "[1, 1E400]", "{'limit': 1e999}"]) expect(parsePythonLiteral(text)).toEqual({ ok: false });
    expect(parsePythonCalls("[read(filePath='/a', limit=1e999)]")).toBeNull();
    // Hard negatives.
    expect(parsePythonLiteral("1e308")).toEqual({ ok: true, value: 1e308 });
    expect(parsePythonCalls("[read(filePath='/a', limit=1e3)]")).toEqual([{ name: "read", args: { filePath: "/a", limit: 1000 } }]);
  });

  test("a leading zero (0755, a SyntaxError in Python 3) is no number; 0, 0.5, 10, -3, 1e3 still are", () => {
    for (const text of ["0755", "-0755", "00", "01.5", "[0755]", "{'mode': 0755}"]) expect(parsePythonLiteral(text)).toEqual({ ok: false });
    expect(parsePythonCalls("[chmod(path='/srv/app', mode=0755)]")).toBeNull();
    // Hard negatives.
    for (const [text, value] of [["0", 0], ["0.5", 0.5], ["10", 10], ["-3", -3], ["1e3", 1000], ["-0.25", -0.25], ["0e0", 0], ["755", 755]] as const) {
      expect(parsePythonLiteral(text)).toEqual({ ok: true, value });
    }
    expect(parsePythonCalls("[chmod(path='/srv/app', mode=755)]")).toEqual([{ name: "chmod", args: { path: "/srv/app", mode: 755 } }]);
    expect(parsePythonLiteral("['0755']")).toEqual({ ok: true, value: ["0755"] });
  });
});

describe("a dict key that is not a string is refused, never read and dropped (review args, finding 9)", () => {
  test("a number, None, True or tuple key refuses the literal and the call list; string keys in either quote still read", () => {
    for (const text of ["{'content': 'x', 1: 'y'}", "{None: 1}", "{True: 1}", "{(1, 2): 'a'}", "[{'a': 1, 2.5: 'b'}]"]) expect(parsePythonLiteral(text)).toEqual({ ok: false });
    expect(parsePythonCalls("[todowrite(todos=[{'content': 'x', 'status': 'pending', 1: 'y'}])]")).toBeNull();
    // Hard negatives.
    expect(parsePythonLiteral(`{'a': 1, "b": 2}`)).toEqual({ ok: true, value: { a: 1, b: 2 } });
    expect(parsePythonLiteral("{'1': 'y'}")).toEqual({ ok: true, value: { "1": "y" } });
  });

  test("LFM2 (O08) and a DSML string=\"false\" value: the call is refused, not run without the entry", () => {
    const todos = "[{'content': 'x', 'status': 'pending', 1: 'y'}]";
    expect(outcome(`<|tool_call_start|>[todowrite(todos=${todos})]<|tool_call_end|>`)).toEqual({ calls: [], broken: ["O08"] });
    expect(outcome(`<{D}tool_calls>\n<{D}invoke name="todowrite">\n<{D}parameter name="todos" string="false">${todos}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`).calls).toEqual([]);
    // Hard negative: the same list without the number key runs.
    const fine = "[{'content': 'x', 'status': 'pending'}]";
    expect(outcome(`<|tool_call_start|>[todowrite(todos=${fine})]<|tool_call_end|>`).calls).toEqual([{ tool: "todowrite", input: { todos: [{ content: "x", status: "pending" }] } }]);
  });
});

describe("string escapes are read as Python reads them, or refused (review args, finding 10)", () => {
  const str = (literal: string) => parsePythonLiteral(literal);

  test("hex, octal and Unicode escapes decode, beside the one-character ones (never half decoded)", () => {
    expect(str(String.raw`'\x41\t'`)).toEqual({ ok: true, value: "A\t" });
    expect(str(String.raw`'\101\0\012x'`)).toEqual({ ok: true, value: "A\0\nx" });
    expect(str(String.raw`'\777'`)).toEqual({ ok: true, value: "\u01ff" });
    expect(str(String.raw`'\u00e9\U0001F600'`)).toEqual({ ok: true, value: "\u00e9\u{1F600}" });
    expect(str(String.raw`'\a\b\f\v\r\n\\\'\"'`)).toEqual({ ok: true, value: "\x07\b\f\v\r\n\\'\"" });
    // A backslash before a line break continues the line; an escape Python does not know keeps its backslash.
    expect(str("'a\\\nb'")).toEqual({ ok: true, value: "ab" });
    expect(str(String.raw`'grep "\d+" \8'`)).toEqual({ ok: true, value: String.raw`grep "\d+" \8` });
  });

  test("an escape the reader cannot read exactly refuses: \\N{...}, a short hex escape, a surrogate, a code point past U+10FFFF", () => {
    for (const literal of [String.raw`'\N{BULLET}'`, String.raw`'\x4'`, String.raw`'\x4g'`, String.raw`'\u12'`, String.raw`'\ud83d'`, String.raw`'\U00110000'`, "'\\"]) {
      expect(str(literal)).toEqual({ ok: false });
    }
  });

  test("LFM2 (O08): \\x41 beside \\t runs as Python reads it", () => {
    expect(outcome(String.raw`<|tool_call_start|>[bash(command='printf "\x41\t"')]<|tool_call_end|>`).calls).toEqual([{ tool: "bash", input: { command: 'printf "A\t"' } }]);
    expect(outcome(String.raw`<|tool_call_start|>[bash(command='echo \N{BULLET}')]<|tool_call_end|>`)).toEqual({ calls: [], broken: ["O08"] });
  });
});
