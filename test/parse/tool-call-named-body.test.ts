/**
 * T01 (`<tool_call name="NAME">{json}</tool_call>`) whose body is itself a call object, review 43:
 * the body is read as that call only when it names the opener's tool; a call object naming another
 * tool is refused with no tool named (which one was meant is unknowable, as for `name=` written
 * twice, R12.6), unless every key of the body is a declared parameter of the opener's tool. Every
 * case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "../support/run-engine.ts";

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
/** A tool whose own parameters are `name` and `input`: its arguments look like a call object. */
const runWorkflow: ToolSpec = { name: "run_workflow", parameters: obj({ name: { type: "string" }, input: { type: "object" } }, ["name"]) };
/** A tool whose own parameter is called `tool` (review 44: another call spelling's key). */
const dispatch: ToolSpec = { name: "dispatch", parameters: obj({ tool: { type: "string" }, payload: { type: "object" } }, ["tool"]) };
/** A tool whose schema admits keys it does not declare (review 50: only such a schema takes them). */
const listOpen: ToolSpec = { name: "list_open", parameters: { ...(obj({ verbose: { type: "boolean" } }, []) as object), additionalProperties: true } };
const tools: ToolSpec[] = [...fixtureTools, runWorkflow, dispatch, listOpen];

function outcome(input: string) {
  const r = runAtEverySplit(input, tools);
  return {
    calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })),
    broken: r.summary.broken.map((b): { shape: string; reason: string; tool: string | undefined } => ({ shape: b.shape, reason: b.reason, tool: b.tool })),
    text: r.text,
  };
}

const named = (name: string, body: string) => `<tool_call name="${name}">${body}</tool_call>`;
const refusedNamingNone: { shape: string; reason: string; tool: string | undefined }[] = [{ shape: "T01", reason: "broken-markup", tool: undefined }];

describe("a call object for another tool under a named opener", () => {
  test("every argument key, a tool with no required parameter: refused, naming no tool", () => {
    for (const key of ["arguments", "parameters", "args", "input"]) {
      const o = outcome(named("list_sessions", `{"name": "bash", "${key}": {"command": "rm -rf ~"}}`));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(refusedNamingNone);
    }
  });

  test("a tool with a required parameter the call object lacks: refused, naming no tool", () => {
    const o = outcome(named("read", '{"name": "bash", "arguments": {"command": "rm -rf ~"}}'));
    expect(o.calls).toEqual([]);
    expect(o.broken).toEqual(refusedNamingNone);
  });

  test("an undeclared inner name, or one that is no string: refused as well", () => {
    expect(outcome(named("list_sessions", '{"name": "nuke", "arguments": {}}')).broken).toEqual(refusedNamingNone);
    expect(outcome(named("list_sessions", '{"name": 5, "arguments": {}}')).broken).toEqual(refusedNamingNone);
  });

  test("the refused markup stays visible, nothing is lost", () => {
    const input = `Cleaning up.\n${named("list_sessions", '{"name": "bash", "arguments": {"command": "rm -rf ~"}}')}`;
    const o = outcome(input);
    expect(o.calls).toEqual([]);
    expect(o.text).toContain("Cleaning up.");
  });
});

describe("controls", () => {
  test("the same name in opener and body reads the inner arguments (R9.3)", () => {
    expect(outcome(named("bash", '{"name": "bash", "arguments": {"command": "ls"}}')).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome(named("list_sessions", '{"name": "list_sessions", "arguments": {"verbose": true}}')).calls).toEqual([{ tool: "list_sessions", input: { verbose: true } }]);
  });

  test("the same name with a key the call object cannot place: refused, not run with the envelope as arguments", () => {
    expect(outcome(named("list_sessions", '{"name": "list_sessions", "arguments": {}, "extra": 1}')).calls).toEqual([]);
  });

  test("a body with a `name` but no argument key is the tool's arguments", () => {
    expect(outcome(named("run_workflow", '{"name": "deploy"}')).calls).toEqual([{ tool: "run_workflow", input: { name: "deploy" } }]);
  });

  test("a body whose keys are all parameters of the opener's tool is its arguments, whatever the name says", () => {
    expect(outcome(named("run_workflow", '{"name": "bash", "input": {"command": "ls"}}')).calls).toEqual([{ tool: "run_workflow", input: { name: "bash", input: { command: "ls" } } }]);
    // One key that is no parameter of it: a call object for bash after all.
    expect(outcome(named("run_workflow", '{"name": "bash", "arguments": {"command": "ls"}}')).broken).toEqual(refusedNamingNone);
  });
});

describe("review 44: a call object in any call spelling under a named opener", () => {
  test("tool, tool_name, function, function_call and tool_calls spellings naming another tool: refused, naming no tool", () => {
    for (const body of [
      '{"tool": "bash", "args": {"command": "rm -rf ~"}}',
      '{"tool_name": "bash", "tool_input": {"command": "rm -rf ~"}}',
      '{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}',
      '{"function_call": {"name": "bash", "arguments": "{}"}}',
      '{"tool_calls": []}',
      '{"name": "bash"}',
    ]) {
      const o = outcome(named("list_sessions", body));
      expect(o.calls).toEqual([]);
      expect(o.broken).toEqual(refusedNamingNone);
    }
  });

  test("the opener's own tool in another spelling is refused too, never run with the envelope as arguments", () => {
    expect(outcome(named("list_sessions", '{"tool": "list_sessions", "arguments": {"verbose": true}}')).calls).toEqual([]);
  });

  test("a flattened call object under its own name is refused unless `name` is a parameter of the tool", () => {
    const o = outcome(named("list_sessions", '{"name": "list_sessions", "verbose": true}'));
    expect(o.calls).toEqual([]);
    expect(o.broken.map((b) => b.reason)).toEqual(["broken-markup"]);
    expect(outcome(named("run_workflow", '{"name": "run_workflow"}')).calls).toEqual([{ tool: "run_workflow", input: { name: "run_workflow" } }]);
    // `name` alone under its own name: the call with no arguments, as a Hermes body reads it.
    expect(outcome(named("list_sessions", '{"name": "list_sessions"}')).calls).toEqual([{ tool: "list_sessions", input: {} }]);
  });

  test("controls: every key a declared parameter is the tool's arguments in any spelling; type alone is no call spelling", () => {
    expect(outcome(named("dispatch", '{"tool": "bash", "payload": {"x": 1}}')).calls).toEqual([{ tool: "dispatch", input: { tool: "bash", payload: { x: 1 } } }]);
    expect(outcome(named("dispatch", '{"tool": "bash", "args": {"x": 1}}')).broken).toEqual(refusedNamingNone);
    expect(outcome(named("list_open", '{"type": "recent"}')).calls).toEqual([{ tool: "list_open", input: { type: "recent" } }]);
    // Review 50: under a schema that does not admit it, the undeclared key refuses the call (broken markup), never run without it.
    expect(outcome(named("list_sessions", '{"type": "recent"}')).broken.map((b) => b.reason)).toEqual(["broken-markup"]);
  });
});
