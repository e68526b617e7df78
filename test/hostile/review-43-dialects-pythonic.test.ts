/**
 * Review 43, dialect family 3: Python-literal calls (LFM2 `<|tool_call_start|>[name(k=v)]<|tool_call_end|>`,
 * src/parse/dialects/pythonic.ts) and Python literals inside text values (coerceValue's fallback to
 * parsePythonLiteral for an array or object parameter, src/parse/values.ts). A call must run with
 * the value the model wrote, as Python reads it, or not at all. Every case runs whole, char by char
 * and at seeded random splits (runAtEverySplit).
 */
import { describe, expect, test } from "bun:test";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";
import { outcome as outcomeIn } from "../support/outcome.ts";

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
/** A tool whose one parameter takes a list (of strings), and one that takes any JSON value. */
const listTool: ToolSpec = { name: "stage", parameters: obj({ paths: { type: "array", items: { type: "string" } } }, ["paths"]) };
const anyTool: ToolSpec = { name: "store", parameters: obj({ value: {} }, ["value"]) };
const tools: ToolSpec[] = [...fixtureTools, listTool, anyTool];

const lfm2 = (body: string) => `<|tool_call_start|>${body}<|tool_call_end|>`;

const outcome = (input: string) => outcomeIn(input, tools);

describe("a parenthesised value is no tuple (Python: `(x)` is x; only `(x,)` is a one-item tuple)", () => {
  // Severity: wrong-execution. Suspected: src/parse/dialects/pythonic.ts Reader.value(): `(` is read
  // as a list opener whatever follows, so `('a')` comes out ['a'] and `(1)` [1]. Python reads a
  // parenthesised expression as the expression itself: `paths=('src')` is the string 'src', which a
  // list parameter refuses; the call runs instead with a list the model never wrote. Expected: the
  // call is refused (invalid-arguments: a string for a list), as `paths='src'` is.
  test("LFM2: stage(paths=('src')) does not run with ['src']", () => {
    const o = outcome(lfm2("[stage(paths=('src'))]"));
    expect(o.calls).toEqual([]);
  });

  test("LFM2: a dict in parentheses is a dict, not a list of one todo", () => {
    const o = outcome(lfm2("[todowrite(todos=({'content': 'ship it', 'status': 'completed'}))]"));
    expect(o.calls).toEqual([]);
  });

  test("LFM2: an untyped parameter keeps (1) as the number 1, never [1]", () => {
    const o = outcome(lfm2("[store(value=(1))]"));
    // Python: (1) == 1. Either the number or a refusal; never a list.
    expect(o.calls.map((c) => c.input.value)).not.toContainEqual([1]);
  });

  test("control (passes today): a real tuple (trailing comma) is a list", () => {
    expect(outcome(lfm2("[stage(paths=('src',))]")).calls).toEqual([{ tool: "stage", input: { paths: ["src"] } }]);
    expect(outcome(lfm2("[stage(paths=('a', 'b'))]")).calls).toEqual([{ tool: "stage", input: { paths: ["a", "b"] } }]);
  });

  // The same reader types a text value for a list parameter in every text-valued dialect
  // (coerceValue -> parsePythonLiteral): Qwen3-Coder, GLM, MiniMax bracket and invoke markup.
  // Severity: wrong-execution. Suspected: src/parse/dialects/pythonic.ts Reader.value() (reached from
  // src/parse/values.ts coerceValue).
  test("Qwen3-Coder: ('src') for a list parameter is no list", () => {
    const o = outcome("<tool_call>\n<function=stage>\n<parameter=paths>('src')</parameter>\n</function>\n</tool_call>");
    expect(o.calls).toEqual([]);
  });

  test("MiniMax invoke markup: ('src') for a list parameter is no list", () => {
    const o = outcome('<minimax:tool_call>\n<invoke name="stage">\n<parameter name="paths">(\'src\')</parameter>\n</invoke>\n</minimax:tool_call>');
    expect(o.calls).toEqual([]);
  });

  test("Hermes: a JSON string \"('src')\" for a list parameter is no list", () => {
    const o = outcome('<tool_call>{"name": "stage", "arguments": {"paths": "(\'src\')"}}</tool_call>');
    expect(o.calls).toEqual([]);
  });
});

describe("a Python boolean sent as a string is re-spelled", () => {
  // Severity: wrong-execution (low: a value re-spelled). Suspected: src/parse/values.ts coerceDeep():
  // a boolean where only a string fits is written back as String(value), which is JSON's spelling
  // ("true"); the model wrote Python's `True`, whose text is "True" (str(True)). For a JSON body
  // `true` -> "true" is exact, but from a Python call list the spelling the model wrote is lost.
  // An edit that replaces the text `True` runs as one that replaces `true`. Expected: refused
  // (invalid-arguments), as any value whose written spelling cannot be kept.
  test("LFM2: edit(oldString=True, newString=False) does not replace 'true' with 'false'", () => {
    const o = outcome(lfm2("[edit(filePath='flags.py', oldString=True, newString=False)]"));
    expect(o.calls).not.toContainEqual({ tool: "edit", input: { filePath: "flags.py", oldString: "true", newString: "false" } });
  });
});

describe("hard negatives: Python spellings the reader refuses or reads exactly (pass today)", () => {
  const refused = [
    ["implicit concatenation", "[bash(command='rm -rf ' 'build')]"],
    ["a raw string", "[bash(command=r'a\\nb')]"],
    ["a bytes literal", "[bash(command=b'ls')]"],
    ["an f-string", "[bash(command=f'ls {d}')]"],
    ["a triple-quoted string", "[bash(command='''ls''')]"],
    ["\\N{...}", "[bash(command='\\N{BULLET}')]"],
    ["a short \\x escape", "[bash(command='\\x4')]"],
    ["a number with underscores", "[read(filePath='/a', limit=1_000)]"],
    ["a hex number", "[read(filePath='/a', limit=0x10)]"],
    ["an octal number", "[read(filePath='/a', limit=0o7)]"],
    ["lowercase true", "[list_sessions(verbose=true)]"],
    ["a nested call as a value", "[bash(command=str('ls'))]"],
    ["a positional argument", "[bash('ls')]"],
    ["*args", "[bash(*['ls'])]"],
    ["**kwargs", "[bash(**{'command': 'ls'})]"],
    ["a comment inside the call", "[bash(command='ls' # list\n)]"],
    ["an unbalanced bracket after a string with brackets", "[bash(command='echo )]'"],
  ] as const;
  for (const [what, body] of refused) {
    test(`${what}: never a call`, () => {
      const input = lfm2(body);
      const o = outcome(input);
      expect(o.calls).toEqual([]);
      expect(o.text).toBe(input);
    });
  }

  test("escapes read as Python reads them; brackets inside strings are text", () => {
    expect(outcome(lfm2("[bash(command='a\\x41\\101\\u0041')]")).calls).toEqual([{ tool: "bash", input: { command: "aAAA" } }]);
    expect(outcome(lfm2("[bash(command='echo \"])\"')]")).calls).toEqual([{ tool: "bash", input: { command: 'echo "])"' } }]);
    expect(outcome(lfm2("[bash(command='ls \\\n-la')]")).calls).toEqual([{ tool: "bash", input: { command: "ls -la" } }]);
  });
});

describe("missed repairs (lower priority): valid Python the reader refuses", () => {
  // Severity: missed-repair. Suspected: src/parse/dialects/pythonic.ts call() and value(): a trailing
  // comma after the last keyword argument or dict entry, and a `u''` prefix, are valid Python 3
  // (the value is exactly what was written) but refuse the call list (broken-markup, a nudge).
  test("a trailing comma after the last keyword argument", () => {
    expect(outcome(lfm2("[bash(command='ls',)]")).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a u'' string prefix", () => {
    expect(outcome(lfm2("[bash(command=u'ls')]")).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("a trailing comma after the last dict entry", () => {
    expect(outcome(lfm2("[todowrite(todos=[{'content': 'a', 'status': 'pending',}])]")).calls).toEqual([
      { tool: "todowrite", input: { todos: [{ content: "a", status: "pending" }] } },
    ]);
  });
});
