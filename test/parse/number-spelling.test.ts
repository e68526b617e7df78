/**
 * Review 44: a number where only a string fits goes out as text only when that text is what the
 * model wrote (a safe integer written as its own digits). A number written in another spelling
 * (`6e2`, `1e3`, `1.0`, `1.5e3`) stays a number, and the string parameter refuses it
 * (invalid-arguments), as it refuses `0.1`; one rule for JSON bodies and Python calls, at every
 * depth, through argument copies (coerceObject, the alias mapping). A number parameter still takes
 * every spelling. Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { block, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
const tools: ToolSpec[] = [
  ...fixtureTools,
  { name: "note", parameters: obj({ text: { type: "string" } }, ["text"]) },
  { name: "stage", parameters: obj({ paths: { type: "array", items: { type: "string" } } }, ["paths"]) },
  { name: "configure", parameters: obj({ settings: obj({ label: { type: "string" }, limit: { type: "number" } }, []) }, ["settings"]) },
];

function outcome(input: string) {
  const r = runAtEverySplit(input, tools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => b.reason) };
}
const hermes = (name: string, args: string) => `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;
const lfm2 = (body: string) => `<|tool_call_start|>[${body}]<|tool_call_end|>`;
const refused = (input: string) => expect(outcome(input)).toEqual({ calls: [], broken: ["invalid-arguments"] });

describe("JSON bodies", () => {
  test("another spelling of an integer for a string parameter is refused, never sent as other digits", () => {
    for (const n of ["6e2", "6E2", "6e+2", "600.0", "6.00e2", "60000e-2"]) refused(hermes("web_search", `{"query": ${n}}`));
  });

  test("control: the digits as written still become the text (V29.20)", () => {
    expect(outcome(hermes("web_search", '{"query": 600}')).calls).toEqual([{ tool: "web_search", input: { query: "600" } }]);
    expect(outcome(hermes("web_search", '{"query": -3}')).calls).toEqual([{ tool: "web_search", input: { query: "-3" } }]);
  });

  test("at every depth, and in arguments that arrive as a JSON string", () => {
    refused(hermes("stage", '{"paths": ["a", 1e3]}'));
    refused(hermes("configure", '{"settings": {"label": 1.0}}'));
    refused(hermes("note", '"{\\"text\\": 1e3}"'));
    expect(outcome(hermes("stage", '{"paths": ["a", 1000]}')).calls).toEqual([{ tool: "stage", input: { paths: ["a", "1000"] } }]);
  });

  test("a number parameter takes every spelling, beside a respelled string one", () => {
    expect(outcome(hermes("read", '{"filePath": "/a", "limit": 1e1, "offset": 5.0}')).calls).toEqual([{ tool: "read", input: { filePath: "/a", limit: 10, offset: 5 } }]);
    expect(outcome(hermes("configure", '{"settings": {"limit": 1e3}}')).calls).toEqual([{ tool: "configure", input: { settings: { limit: 1000 } } }]);
  });

  test("through another agent's tool name (the alias mapping copies the arguments)", () => {
    refused(hermes("Bash", '{"command": 6e2}'));
  });

  test("a DSML string=false object value and a MiniMax JSON args object", () => {
    refused(live(block("tool_calls", [["configure", [["settings", '{"label": 6e2}', "false"]]]])));
    refused('[TOOL_CALL] {tool => "note", args => {"text": 1e3}} [/TOOL_CALL]');
  });
});

describe("Python calls (LFM2) and literals", () => {
  test("another spelling for a string parameter or item is refused", () => {
    for (const body of ["note(text=1e3)", "note(text=1.5e3)", "note(text=1.0)", "note(text=(1e3))", "stage(paths=[1e3])", "stage(paths=('a', 6e2))", "configure(settings={'label': 1E3})"]) refused(lfm2(body));
  });

  test("control: digits as written become the text; a number parameter takes every spelling", () => {
    expect(outcome(lfm2("note(text=1000)")).calls).toEqual([{ tool: "note", input: { text: "1000" } }]);
    expect(outcome(lfm2("stage(paths=[1000, 'b'])")).calls).toEqual([{ tool: "stage", input: { paths: ["1000", "b"] } }]);
    expect(outcome(lfm2("read(filePath='/a', limit=1e1)")).calls).toEqual([{ tool: "read", input: { filePath: "/a", limit: 10 } }]);
    expect(outcome(lfm2("configure(settings={'limit': 2.50})")).calls).toEqual([{ tool: "configure", input: { settings: { limit: 2.5 } } }]);
  });

  test("a Python literal in a text value (DSML without a type hint) follows the same rule", () => {
    refused(live(block("tool_calls", [["stage", [["paths", "[1e3, 'b']", "false"]]]])));
  });
});
