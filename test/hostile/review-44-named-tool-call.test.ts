/**
 * Review 44, rule 5: a named `<tool_call name="NAME">` body (src/parse/dialects/tool-call.ts
 * namedToolCall, T01). R43.1 refuses a body that is another tool's call object, but only when the
 * object is spelled `{"name": ..., "arguments"|"parameters"|"args"|"input": ...}` (isCallObject).
 * Every case runs whole, char by char and at seeded random splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

const named = (name: string, body: string) => `<tool_call name="${name}">${body}</tool_call>`;

describe("another tool's call object in another spelling still runs the opener's tool with it as arguments", () => {
  // Severity: wrong-execution (the opener's tool runs, with a call object meant for another tool as
  // its arguments; any declared tool whose schema does not set additionalProperties: false accepts
  // it, as list_sessions here and most MCP tools do). Suspected: src/parse/dialects/tool-call.ts
  // namedToolCall() / isCallObject(): only a body with a `name` key AND an argument key counts as a
  // call object; `{"tool": ..., "arguments": ...}` (MiniMax's JSON bracket spelling, read as a call
  // elsewhere in this package), `{"function": {"name": ..., "arguments": ...}}` (OpenAI's
  // tool_calls entry), `{"tool_name": ..., "tool_input": ...}` and a bare `{"name": "bash"}` fall
  // through to callOutcome(name, body) and run. Expected: broken-markup, as R43.1 (the body names a
  // tool other than the opener's; which one was meant is unknowable), unless every key of it is a
  // parameter of the named tool (the documented exception).
  test('{"tool": "bash", "arguments": {...}} under name="list_sessions" does not run list_sessions', () => {
    const o = outcome(named("list_sessions", '{"tool": "bash", "arguments": {"command": "rm -rf ~"}}'));
    expect(o.calls).toEqual([]);
  });

  test('an OpenAI tool_calls entry {"function": {"name": "bash", ...}} does not run list_sessions', () => {
    const o = outcome(named("list_sessions", '{"type": "function", "function": {"name": "bash", "arguments": "{\\"command\\": \\"rm -rf ~\\"}"}}'));
    expect(o.calls).toEqual([]);
  });

  test('{"name": "bash"} alone (another tool named, no arguments key) does not run list_sessions', () => {
    const o = outcome(named("list_sessions", '{"name": "bash"}'));
    expect(o.calls).toEqual([]);
  });

  test('{"tool_calls": [{"name": "bash", ...}]} does not run list_sessions', () => {
    const o = outcome(named("list_sessions", '{"tool_calls": [{"name": "bash", "arguments": {"command": "rm -rf ~"}}]}'));
    expect(o.calls).toEqual([]);
  });
});

describe("a flattened call object under its own name runs with `name` as an argument", () => {
  // Severity: wrong arguments (low: an argument the model wrote as the call's envelope, not as a
  // parameter, reaches the tool; a tool with a `name`-free, permissive schema takes it). Suspected:
  // src/parse/dialects/tool-call.ts namedToolCall(): `{"name": "list_sessions", "verbose": true}`
  // has no argument key, so it is no call object and the whole body, `name` included, becomes the
  // arguments. The same flattened shape in a Hermes body is refused (readJsonCall: keys that are
  // neither its name nor its arguments). Expected: refused (broken-markup), or read as the call
  // object it is (`{"verbose": true}`); never `name` passed as an argument.
  test('{"name": "list_sessions", "verbose": true} under name="list_sessions" does not pass name', () => {
    const o = outcome(named("list_sessions", '{"name": "list_sessions", "verbose": true}'));
    expect(o.calls.some((c) => "name" in c.input)).toBe(false);
  });

  test("control (passes today): the same flattened object in a Hermes body is refused", () => {
    expect(outcome('<tool_call>{"name": "list_sessions", "verbose": true}</tool_call>').calls).toEqual([]);
  });
});

describe("hard negatives (pass today)", () => {
  test("R43.1 as written is refused; a case-different or extra-keyed call object is refused", () => {
    expect(outcome(named("list_sessions", '{"name": "bash", "arguments": {"command": "x"}}')).calls).toEqual([]);
    expect(outcome(named("bash", '{"name": "Bash", "arguments": {"command": "ls"}}')).calls).toEqual([]);
    expect(outcome(named("bash", '{"name": "bash", "arguments": {"command": "ls"}, "command": "rm -rf ~"}')).calls).toEqual([]);
    expect(outcome(named("list_sessions", '{"verbose": true, "name": "bash", "arguments": {"command": "x"}}')).calls).toEqual([]);
  });
  test("an alias opener over a call object naming the declared tool is refused, never run as another", () => {
    expect(outcome(named("read_file", '{"name": "read", "arguments": {"filePath": "a"}}')).calls).toEqual([]);
  });
  test("a list body is no arguments object", () => {
    expect(outcome(named("list_sessions", '[{"name": "bash", "arguments": {"command": "x"}}]')).calls).toEqual([]);
  });
});
