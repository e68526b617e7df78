import { describe, expect, test } from "bun:test";
import { SchemaGate } from "../../src/parse/schema-gate.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { block, live } from "../golden/notation.ts";
import { everyChar, observable, randomCuts, runEngine } from "../support/run-engine.ts";

const str = { type: "string" };
const todo: ToolSpec = {
  name: "todowrite",
  parameters: {
    type: "object",
    properties: {
      todos: {
        type: "array",
        items: {
          type: "object",
          properties: { content: str, status: { type: "string", enum: ["pending", "done"] }, priority: { type: "integer" } },
          required: ["content", "status"],
          additionalProperties: false,
        },
      },
      strict: { type: "boolean" },
      limit: { type: ["integer", "null"] },
    },
    required: ["todos"],
    additionalProperties: false,
  },
};
const check = (input: Record<string, unknown>, tool: ToolSpec = todo) => new SchemaGate().check(tool, input);
const rejected = (input: Record<string, unknown>, tool: ToolSpec = todo) => {
  const verdict = check(input, tool);
  if (verdict.ok) throw new Error(`accepted ${JSON.stringify(verdict.input)}`);
  return verdict;
};

describe("schema gate: values that fit (after coercion that cannot invent)", () => {
  test("a fitting input passes unchanged", () => {
    expect(check({ todos: [{ content: "a", status: "pending" }] })).toEqual({ ok: true, input: { todos: [{ content: "a", status: "pending" }] } });
  });

  test('"42" -> 42, "True" -> true, "None" -> null, at any depth', () => {
    expect(check({ todos: [{ content: "a", status: "done", priority: "42" }], strict: "True", limit: "None" })).toEqual({
      ok: true,
      input: { todos: [{ content: "a", status: "done", priority: 42 }], strict: true, limit: null },
    });
  });

  test("a number or boolean where only a string fits becomes its own text", () => {
    const tool: ToolSpec = { name: "t", parameters: { type: "object", properties: { s: str, b: str, either: { type: ["string", "number"] } } } };
    expect(check({ s: 600, b: false, either: 5 }, tool)).toEqual({ ok: true, input: { s: "600", b: "false", either: 5 } });
  });

  test("a JSON array written as a string for an array parameter is parsed", () => {
    expect(check({ todos: '[{"content": "a", "status": "pending"}]' })).toEqual({ ok: true, input: { todos: [{ content: "a", status: "pending" }] } });
  });

  test("no schema, or one that only says object, checks nothing", () => {
    expect(check({ anything: 1 }, { name: "free" })).toEqual({ ok: true, input: { anything: 1 } });
    expect(check({ anything: 1 }, { name: "free", parameters: { type: "object" } })).toEqual({ ok: true, input: { anything: 1 } });
  });

  test("a draft-2020 or draft-07 $schema is accepted", () => {
    for (const $schema of ["https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"]) {
      const tool: ToolSpec = { name: "t", parameters: { $schema, type: "object", properties: { n: { type: "number" } }, required: ["n"] } };
      expect(check({ n: "5" }, tool)).toEqual({ ok: true, input: { n: 5 } });
    }
  });
});

describe("schema gate: mismatches coercion cannot fix are refused, naming the parameter", () => {
  test("type: a string that is not an array for an array parameter", () => {
    const v = rejected({ todos: "[...]" });
    expect(v.parameter).toBe("todos");
    expect(v.detail).toBe("parameter todos must be array");
  });

  test("type: a word for an integer, a number for a boolean", () => {
    expect(rejected({ todos: [], limit: "all" }).parameter).toBe("limit");
    expect(rejected({ todos: [], strict: 1 }).parameter).toBe("strict");
  });

  test("required: a missing top-level parameter", () => {
    expect(rejected({ strict: true })).toEqual({ ok: false, detail: "parameter todos is required but missing", parameter: "todos" });
  });

  test("enum, nested inside array items", () => {
    const v = rejected({ todos: [{ content: "a", status: "doing" }] });
    expect(v.parameter).toBe("todos");
    expect(v.detail).toContain("allowed values");
  });

  test("required, nested inside array items", () => {
    expect(rejected({ todos: [{ content: "a" }] }).parameter).toBe("todos");
  });

  test("additionalProperties: false refuses a parameter the tool does not have, without naming it (review 44)", () => {
    expect(rejected({ todos: [], extra: 1 })).toEqual({ ok: false, detail: "an argument is not a parameter of this tool", undeclaredArgument: true });
  });

  test("coercion does not invent: null is not an empty string, true is not 1, a scalar is not an array", () => {
    const tool: ToolSpec = { name: "t", parameters: { type: "object", properties: { s: str, n: { type: "number" }, a: { type: "array" } } } };
    expect(rejected({ s: null }, tool).parameter).toBe("s");
    expect(rejected({ n: true }, tool).parameter).toBe("n");
    expect(rejected({ a: "x" }, tool).parameter).toBe("a");
  });

  test("review 44: only a name the schema declares is named; an invented key shaped like a name (a token) never is", () => {
    const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const extra = rejected({ todos: [], [token]: "x" });
    expect(extra).toEqual({ ok: false, detail: "an argument is not a parameter of this tool", undeclaredArgument: true });
    // Inside a value: the invented key in the path is shown as ?, the declared parameter is named.
    const nested = rejected({ todos: [{ content: "a", status: "pending", [token]: 1 }] });
    expect(nested.parameter).toBe("todos");
    expect(JSON.stringify(nested)).not.toContain(token);
    // An invented key the schema allows with a type (additionalProperties: {...}): not named either.
    // (null, which no coercion makes a string: since review 50 the additionalProperties place types
    // a key as `properties` would, so 5 there is "5", as for a declared string parameter.)
    const open: ToolSpec = { name: "env", parameters: { type: "object", properties: { name: str }, additionalProperties: { type: "string" } } };
    const typed = rejected({ name: "x", [token]: null }, open);
    expect(typed.parameter).toBeUndefined();
    expect(typed.undeclaredArgument).toBeUndefined();
    expect(JSON.stringify(typed)).not.toContain(token);
    // A typed additional key inside a declared object value: the path names the parameter, ? for the key.
    const deep: ToolSpec = { name: "env", parameters: { type: "object", properties: { vars: { type: "object", additionalProperties: { type: "string" } } } } };
    expect(rejected({ vars: { [token]: null } }, deep)).toEqual({ ok: false, detail: "parameter vars must be string (at ?)", parameter: "vars" });
    expect(check({ vars: { [token]: 5 } }, deep)).toEqual({ ok: true, input: { vars: { [token]: "5" } } });
    // Declared anywhere (allOf, $defs through $ref, required only) is declared.
    const composed: ToolSpec = {
      name: "c",
      parameters: { type: "object", allOf: [{ properties: { mode: { $ref: "#/$defs/mode" } } }], required: ["path"], $defs: { mode: { type: "string", enum: ["a", "b"] } } },
    };
    expect(rejected({ path: "p", mode: "z" }, composed).parameter).toBe("mode");
    expect(rejected({ mode: "a" }, composed).parameter).toBe("path");
    // A property declared in one place and an index in the path are kept.
    const list: ToolSpec = { name: "l", parameters: { type: "object", properties: { rows: { type: "array", items: { type: "object", properties: { n: { type: "integer" } } } } } } };
    expect(rejected({ rows: [{ n: 1 }, { n: "x" }] }, list).detail).toBe("parameter rows must be integer (at 1/n)");
  });

  test("a cyclic schema object (a JS schema) is walked for names without looping", () => {
    const cyclic: Record<string, unknown> = { type: "object", properties: { n: { type: "integer" } } };
    cyclic.self = cyclic;
    const gate = new SchemaGate();
    // JSON.stringify fails on a cycle, so the schema is uncompilable: refused; a bigint is refused first, naming n.
    expect(gate.check({ name: "t", parameters: cyclic as JsonSchema }, { n: 2n ** 64n })).toEqual({
      ok: false,
      detail: "parameter n holds an integer whose digits cannot be sent as written",
      parameter: "n",
    });
  });

  test("the detail never carries the value, and an invented name that is not a name is not echoed", () => {
    const secret = "hunter2-secret-value";
    expect(rejected({ todos: secret }).detail).not.toContain(secret);
    const v = rejected({ todos: [], ["<script>" + secret]: 1 });
    expect(v.parameter).toBeUndefined();
    expect(v.detail).not.toContain(secret);
  });
});

describe("schema gate: a schema that cannot be compiled fails closed, without throwing", () => {
  const hostile: [string, JsonSchema][] = [
    ["an unresolvable remote $ref", { type: "object", properties: { a: { $ref: "http://127.0.0.1:1/evil.json" } } }],
    ["an invalid type keyword", { type: "object", properties: { a: { type: "nonsense" } } }],
    ["a cyclic object", (() => { const s: JsonSchema = { type: "object", properties: {} }; s.properties!.self = s; return s; })()],
    ["a pattern that is not a regular expression", { type: "object", properties: { a: { type: "string", pattern: "(" } } }],
  ];
  test("a schema that is not an object (a host bug) fails closed; `true` accepts anything", () => {
    expect(check({ a: 1 }, { name: "t", parameters: "object" as unknown as JsonSchema }).ok).toBe(false);
    expect(check({ a: 1 }, { name: "t", parameters: [] as unknown as JsonSchema }).ok).toBe(false);
    expect(check({ a: 1 }, { name: "t", parameters: true as unknown as JsonSchema })).toEqual({ ok: true, input: { a: 1 } });
  });

  for (const [name, parameters] of hostile) {
    test(name, () => {
      const verdict = check({ a: "x" }, { name: "t", parameters });
      expect(verdict.ok).toBe(false);
    });
  }
});

describe("schema gate through the engine: whole, char by char, seeded random splits", () => {
  const tools: ToolSpec[] = [todo, { name: "bash", parameters: { type: "object", properties: { command: str, timeout: { type: "number" } }, required: ["command"] } }];
  const cases: [string, string, { calls: number; nudge: string | null; parameter?: string }][] = [
    ["elided array", live(block("tool_calls", [["todowrite", [["todos", "[...]", "false"]]]])), { calls: 0, nudge: "invalid-arguments", parameter: "todos" }],
    ["nested enum", live(block("tool_calls", [["todowrite", [["todos", '[{"content":"a","status":"x"}]', "false"]]]])), { calls: 0, nudge: "invalid-arguments", parameter: "todos" }],
    ["number word", `<tool_call>\n{"name": "bash", "arguments": {"command": "ls", "timeout": "soon"}}\n</tool_call>`, { calls: 0, nudge: "invalid-arguments", parameter: "timeout" }],
    ["coerced", `<tool_call>\n{"name": "bash", "arguments": {"command": "ls", "timeout": "5"}}\n</tool_call>`, { calls: 1, nudge: null }],
    ["one bad call beside a good one", `${live(block("tool_calls", [["bash", [["command", "ls"]]], ["todowrite", [["todos", "[...]", "false"]]]]))}`, { calls: 1, nudge: "invalid-arguments", parameter: "todos" }],
  ];
  for (const [name, input, want] of cases) {
    test(name, () => {
      const run = (cuts: number[]) => observable(runEngine(input, cuts, tools));
      const whole = run([]);
      expect(whole.calls.length).toBe(want.calls);
      expect(whole.nudge).toBe(want.nudge as typeof whole.nudge);
      if (want.parameter) expect(whole.broken.find((b) => b.reason === "invalid-arguments")?.parameter).toBe(want.parameter);
      if (want.calls === 0) expect(whole.text).toBe(input);
      expect(run(everyChar(input.length))).toEqual(whole);
      for (let seed = 1; seed <= 20; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
    });
  }
});
