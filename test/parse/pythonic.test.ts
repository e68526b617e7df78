/**
 * The Python reader (src/parse/dialects/pythonic.ts: LFM2 call lists, Python literals in values)
 * refuses what parseJson refuses, so a Python spelling is never a way around the JSON reader
 * (review 4): a keyword argument or dict key named twice, a number out of range, and a number
 * JSON's grammar does not spell (a leading zero).
 */
import { describe, expect, test } from "bun:test";
import { parsePythonCalls, parsePythonLiteral } from "../../src/parse/dialects/pythonic.ts";

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
