/**
 * Review 44, rule 3: Python literals (src/parse/dialects/pythonic.ts, src/parse/values.ts,
 * src/parse/schema-walk.ts). `(x)` is x, only a comma makes a tuple; `True` keeps its spelling for
 * a string parameter; trailing commas; `u''`. Every case runs whole, char by char and at seeded
 * random splits.
 */
import { describe, expect, test } from "bun:test";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome as outcomeIn } from "../support/outcome.ts";

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
const tools: ToolSpec[] = [
  ...fixtureTools,
  { name: "stage", parameters: obj({ paths: { type: "array", items: { type: "string" } } }, ["paths"]) },
  { name: "note", parameters: obj({ text: { type: "string" } }, ["text"]) },
  { name: "flag", parameters: obj({ mode: { anyOf: [{ type: "string" }, { type: "boolean" }] } }, ["mode"]) },
  { name: "pick", parameters: obj({ color: { type: "string", enum: ["True", "red"] } }, ["color"]) },
];

const lfm2 = (body: string) => `<|tool_call_start|>[${body}]<|tool_call_end|>`;

const outcome = (input: string) => outcomeIn(input, tools);

describe("a Python float in exponent form given to a string parameter is sent as other digits", () => {
  // Severity: wrong arguments (low: the value is equal as a number, but the text is one the model
  // never wrote; Python itself would give str(1e3) == "1000.0"). Suspected: src/parse/values.ts
  // coerceDeep() (a safe integer where only a string fits becomes String(value)) reached from
  // src/parse/dialects/pythonic.ts, which reads `1e3` as the JS number 1000. The rule is by value
  // because "the spelling it wrote is gone after JSON.parse" (documented: `6e2` comes out "600" for
  // a JSON body), but the Python reader keeps the spelling of `True` for exactly this reason
  // (review 43) and could keep a number's: `0.1` and `1.50` are refused today, `1e3` and `1.5e3`
  // go out as "1000" and "1500". Expected: refused (invalid-arguments), as `0.1` is, or "1e3".
  test("note(text=1e3) is not sent as '1000'", () => {
    expect(outcome(lfm2("note(text=1e3)")).calls).not.toContainEqual({ tool: "note", input: { text: "1000" } });
  });

  test("note(text=1.5e3) is not sent as '1500'", () => {
    expect(outcome(lfm2("note(text=1.5e3)")).calls).not.toContainEqual({ tool: "note", input: { text: "1500" } });
  });

  test("stage(paths=[1e3]) is not sent as ['1000']", () => {
    expect(outcome(lfm2("stage(paths=[1e3])")).calls).not.toContainEqual({ tool: "stage", input: { paths: ["1000"] } });
  });
});

describe("hard negatives (pass today)", () => {
  test("((x)) is x; ((x),) and ((('x',))) are one-item tuples", () => {
    expect(outcome(lfm2("stage(paths=(('src')))")).calls).toEqual([]);
    expect(outcome(lfm2("stage(paths=(('src'),))")).calls).toEqual([{ tool: "stage", input: { paths: ["src"] } }]);
    expect(outcome(lfm2("stage(paths=((('src',))))")).calls).toEqual([{ tool: "stage", input: { paths: ["src"] } }]);
  });
  test("a generator expression, implicit string concatenation, b'' and f'' are refused", () => {
    for (const body of ["stage(paths=(x for x in y))", "note(text='a' 'b')", "note(text=('a' 'b'))", "note(text=b'x')", "note(text=f'x{y}')"]) {
      expect(outcome(lfm2(body)).calls).toEqual([]);
    }
  });
  test("True keeps its spelling for string items, in parentheses and for a string enum; None is no string", () => {
    expect(outcome(lfm2("stage(paths=[True, 'x'])")).calls).toEqual([{ tool: "stage", input: { paths: ["True", "x"] } }]);
    expect(outcome(lfm2("note(text=(True))")).calls).toEqual([{ tool: "note", input: { text: "True" } }]);
    expect(outcome(lfm2("pick(color=True)")).calls).toEqual([{ tool: "pick", input: { color: "True" } }]);
    expect(outcome(lfm2("note(text=None)")).calls).toEqual([]);
    expect(outcome(lfm2("stage(paths=[None])")).calls).toEqual([]);
  });
  test("a string|boolean union takes True as the boolean and 'True' as the string", () => {
    expect(outcome(lfm2("flag(mode=True)")).calls).toEqual([{ tool: "flag", input: { mode: true } }]);
    expect(outcome(lfm2("flag(mode='True')")).calls).toEqual([{ tool: "flag", input: { mode: "True" } }]);
  });
  test("doubled commas are refused; one trailing comma is read", () => {
    expect(outcome(lfm2("stage(paths=('a',,))")).calls).toEqual([]);
    expect(outcome(lfm2("note(text='x',,)")).calls).toEqual([]);
    expect(outcome(lfm2("stage(paths=['a',],)")).calls).toEqual([{ tool: "stage", input: { paths: ["a"] } }]);
  });
});
