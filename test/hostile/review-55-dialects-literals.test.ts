/**
 * Review 55 (hostile, tests only): arguments the older dialects read as literals (LFM2's pythonic
 * call list, src/parse/dialects/pythonic.ts and src/parse/python-literal.ts; Qwen3-Coder values
 * that fall back to a Python literal, src/parse/values.ts) against what Python and JSON read. Every
 * case runs whole, char by char and at seeded random splits (test/support/outcome.ts).
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const lfm2 = (body: string) => `<|tool_call_start|>[${body}]<|tool_call_end|>`;
const hermes = (args: string) => `<tool_call>\n{"name": "bash", "arguments": ${args}}\n</tool_call>`;
const todos = (value: string) => `<tool_call>\n<function=todowrite>\n<parameter=todos>\n${value}\n</parameter>\n</function>\n</tool_call>`;

describe("a Python string holding a raw line break (or other control character) is read, though Python and JSON refuse it", () => {
  // Severity: wrong execution (low): an argument neither language reads runs. `'ls<LF>rm -rf ~'`
  // with a real line break inside single quotes is a SyntaxError in Python ("unterminated string
  // literal"; only a triple-quoted string, which this reader refuses, may span lines), and the JSON
  // reader refuses the same raw line break in a Hermes or LFM2 JSON-mode body ("the call's JSON is
  // malformed"; review 48 refused bodies: "raw line breaks ... in its JSON"). python-literal.ts
  // says it "refuses what parseJson refuses, so a Python spelling is never a way around the JSON
  // reader"; here it is one: the same command with the same raw line break runs when written
  // `bash(command='...')` and is refused when written as JSON. A raw CR (which hides the text before
  // it on a terminal) and a raw NUL go through the same way. The Qwen3-Coder `todos` value falls
  // back to the Python reader and so runs a JSON array whose string holds a raw line break, which
  // parseJson refused.
  // Minimal input: `<|tool_call_start|>[bash(command='ls<LF>rm -rf ~')]<|tool_call_end|>`.
  // Suspected: src/parse/python-literal.ts PythonLiteralReader.string() (appends every character
  // but the quote and a backslash, line breaks included).
  // Expected: refused (broken-markup for LFM2; invalid-arguments for the Qwen value), as the JSON
  // reader refuses it; a backslash escape (`\n`) and a backslash-newline continuation stay read.
  // Fixed: python-literal.ts string() refuses a raw LF, CR or NUL inside a quoted string (and a NUL
  // after a backslash), as Python and parseJson do; what Python keeps raw (tab, form feed, U+2028,
  // U+2029) is read, and `\n` and a backslash-newline continuation stay read.
  test("LFM2: a raw LF inside '...' does not run", () => {
    expect(outcome(lfm2("bash(command='ls\nrm -rf ~')")).calls).toEqual([]);
  });

  test("LFM2: a raw CR inside '...' does not run", () => {
    expect(outcome(lfm2("bash(command='rm -rf ~\rls')")).calls).toEqual([]);
  });

  test("LFM2: a raw NUL inside '...' does not run", () => {
    expect(outcome(lfm2("bash(command='ls\u0000rm')")).calls).toEqual([]);
  });

  test("Qwen3-Coder: a JSON todos array whose string holds a raw LF is not run through the Python fallback", () => {
    expect(outcome(todos('[{"content": "a\nb", "status": "pending"}]')).calls).toEqual([]);
  });

  // Hard negatives: what must keep working.
  test("control (passes today): the JSON reader refuses the same raw LF in a Hermes body", () => {
    expect(outcome(hermes('{"command": "ls\nrm -rf ~"}')).calls).toEqual([]);
  });

  test("control (passes today): the escape \\n and a backslash-newline continuation are read", () => {
    expect(outcome(lfm2("bash(command='ls\\nrm')")).calls).toEqual([{ tool: "bash", input: { command: "ls\nrm" } }]);
    expect(outcome(lfm2("bash(command='ls \\\n-la')")).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });

  test("control (passes today): a line break between arguments, outside any string, is layout", () => {
    expect(outcome(lfm2("bash(\n  command='ls',\n  timeout=5,\n)")).calls).toEqual([{ tool: "bash", input: { command: "ls", timeout: 5 } }]);
  });

  test("a raw line break inside a double-quoted string and a NUL after a backslash do not run either", () => {
    expect(outcome(lfm2('bash(command="ls\nrm -rf ~")')).calls).toEqual([]);
    expect(outcome(lfm2("bash(command='ls\\\u0000rm')")).calls).toEqual([]);
    expect(outcome(lfm2("todowrite(todos=[{'content': 'a\nb', 'status': 'pending'}])")).calls).toEqual([]);
  });

  test("the refused call's text is kept whole", () => {
    const input = lfm2("bash(command='ls\nrm -rf ~')");
    expect(outcome(input).text).toBe(input);
  });

  test("hard negative: what Python keeps raw in a string is read (tab, form feed, U+2028, U+2029)", () => {
    for (const c of ["\t", "\f", "\u2028", "\u2029"]) {
      expect(outcome(lfm2(`bash(command='a${c}b')`)).calls).toEqual([{ tool: "bash", input: { command: `a${c}b` } }]);
    }
  });

  test("hard negative: a backslash-CRLF continuation and escaped \\r, \\0 are read", () => {
    expect(outcome(lfm2("bash(command='ls \\\r\n-la')")).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
    expect(outcome(lfm2("bash(command='a\\rb\\0c')")).calls).toEqual([{ tool: "bash", input: { command: "a\rb\0c" } }]);
  });

  test("hard negative: the Qwen3-Coder todos array laid out over lines, its strings on one line each, runs", () => {
    expect(outcome(todos("[\n  {'content': 'a', 'status': 'pending'},\n  {'content': 'b\\nc', 'status': 'completed'}\n]")).calls).toEqual([
      { tool: "todowrite", input: { todos: [{ content: "a", status: "pending" }, { content: "b\nc", status: "completed" }] } },
    ]);
  });
});

describe("Python spellings that are not literals never run (hard negatives, pass today)", () => {
  // Each is refused whole and its text kept: what was written is no keyword argument holding a literal.
  const refused: [string, string][] = [
    ["**kwargs", "bash(**{'command': 'ls'})"],
    ["a positional argument", "bash('ls')"],
    ["an f-string", "bash(command=f'ls {x}')"],
    ["a raw string", "bash(command=r'\\x41')"],
    ["implicit concatenation", "bash(command='rm ' '-rf ~')"],
    ["+ concatenation", "bash(command='rm ' + '-rf ~')"],
    ["a triple-quoted string", "bash(command='''ls''')"],
    ["a bytes literal", "bash(command=b'ls')"],
    ["a nested call", "bash(command=str('ls'))"],
    ["a walrus", "bash(command:='ls')"],
    ["a comment after the call", "bash(command='ls') # run"],
    ["\\N{...}", "bash(command='\\N{LATIN CAPITAL LETTER A}')"],
    ["float('nan')", "read(filePath='a', limit=float('nan'))"],
    ["1e999", "read(filePath='a', limit=1e999)"],
    ["a keyword named __proto__", "bash(command='ls', __proto__='x')"],
    ["a dict key spelled twice (u'' and an escape)", "todowrite(todos=[{'content': 'a', u'content': 'b', 'status': 'pending'}])"],
    ["a dict key named twice through \\x escapes", "todowrite(todos=[{'content': 'a', 'con\\x74ent': 'b', 'status': 'pending'}])"],
    ["two statements", "bash(command='ls'); bash(command='rm -rf ~')"],
  ];
  for (const [label, body] of refused) {
    test(`${label}: no call, text kept`, () => {
      const input = lfm2(body);
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }

  test("escapes read as Python reads them: \\x41, \\101 and \\u0041 are A", () => {
    expect(outcome(lfm2("bash(command='\\x41\\101\\u0041')")).calls).toEqual([{ tool: "bash", input: { command: "AAA" } }]);
  });

  test("None and True are no number for a number parameter", () => {
    expect(outcome(lfm2("bash(command='ls', timeout=None)")).calls).toEqual([]);
    expect(outcome(lfm2("bash(command='ls', timeout=True)")).calls).toEqual([]);
  });

  test("an integer past 2^53 is never sent as other digits", () => {
    expect(outcome(lfm2("read(filePath='a', limit=123456789012345678901234567890)")).calls).toEqual([]);
  });
});
