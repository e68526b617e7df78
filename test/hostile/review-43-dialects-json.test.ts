/**
 * Review 43, dialect families 1 and 4: the JSON-bodied readers. Mistral `[TOOL_CALLS]` (O06,
 * src/parse/dialects/mistral.ts), Hermes `<tool_call>{json}</tool_call>` and its named form T01
 * (src/parse/dialects/tool-call.ts), LFM2's JSON list and standalone JSON calls (J01,
 * src/parse/standalone-json.ts); values typed by src/parse/values.ts. A call runs with what the
 * JSON says, read strictly, or not at all. Every case runs whole, char by char and at seeded
 * random splits.
 */
import { describe, expect, test } from "bun:test";
import type { JsonSchema, ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { outcome as outcomeIn } from "../support/outcome.ts";

const obj = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: "object", properties, required });
const sleep: ToolSpec = { name: "sleep", parameters: obj({ seconds: { type: "number" } }, ["seconds"]) };
const toggle: ToolSpec = { name: "toggle", parameters: obj({ on: { type: "boolean" } }, ["on"]) };
const tools: ToolSpec[] = [...fixtureTools, sleep, toggle];

const outcome = (input: string) => outcomeIn(input, tools);

const hermes = (json: string) => `<tool_call>${json}</tool_call>`;

describe("T01: the opener names one tool, the body is a call object for another", () => {
  // Severity: wrong-execution (low-medium). Suspected: src/parse/dialects/tool-call.ts
  // namedToolCall(): a body that is a call object (`{"name": …, "arguments": …}`) is read as one
  // only when its name is the opener's; for any other name the whole object becomes the opener's
  // tool's arguments. `<tool_call name="list_sessions">{"name": "bash", "arguments": {...}}`
  // runs list_sessions with `{name: "bash", arguments: {...}}`, arguments that are no parameters of
  // it (any tool with no required parameter and no `additionalProperties: false` runs). Which tool
  // the model meant is unknowable, as for `<tool_call name="read" name="bash">` (R12.6, refused).
  // Expected: refused (broken-markup), naming no tool.
  test("list_sessions does not run with a bash call object as its arguments", () => {
    const o = outcome('<tool_call name="list_sessions">{"name": "bash", "arguments": {"command": "rm -rf ~"}}</tool_call>');
    expect(o.calls).toEqual([]);
  });

  test("control (passes today): the same name in opener and body reads the call object (R9.3)", () => {
    expect(outcome('<tool_call name="bash">{"name": "bash", "arguments": {"command": "ls"}}</tool_call>').calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
  });

  test("control (passes today): a different name with a required parameter missing is refused", () => {
    expect(outcome('<tool_call name="read">{"name": "bash", "arguments": {"command": "rm -rf ~"}}</tool_call>').calls).toEqual([]);
  });
});

describe("hard negatives: JSON read strictly (pass today)", () => {
  const refused: [string, string][] = [
    ["a trailing comma", hermes('{"name": "bash", "arguments": {"command": "ls",}}')],
    ["an unquoted key", hermes('{"name": "bash", "arguments": {command: "ls"}}')],
    ["single quotes", hermes("{'name': 'bash', 'arguments': {'command': 'ls'}}")],
    ["a comment", hermes('{"name": "bash", "arguments": {"command": "ls"} // list\n}')],
    ["NaN", hermes('{"name": "sleep", "arguments": {"seconds": NaN}}')],
    ["Infinity", hermes('{"name": "sleep", "arguments": {"seconds": Infinity}}')],
    ["a hex number", hermes('{"name": "sleep", "arguments": {"seconds": 0x10}}')],
    ["1e999", hermes('{"name": "sleep", "arguments": {"seconds": 1e999}}')],
    ["a key named twice", hermes('{"name": "bash", "arguments": {"command": "ls", "command": "rm -rf ~"}}')],
    ["two argument keys", hermes('{"name": "bash", "parameters": {"command": "ls"}, "arguments": {"command": "rm -rf ~"}}')],
    ["an unknown key beside the arguments", hermes('{"name": "bash", "arguments": {"command": "ls"}, "timeout": 5}')],
    ["the name inside function: {...}", hermes('{"function": {"name": "bash", "arguments": {"command": "ls"}}}')],
    ["double-encoded arguments with text after the object", hermes('{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"} rm -rf ~"}')],
    ["arguments as a list", hermes('{"name": "bash", "arguments": ["ls"]}')],
    ["Mistral: a key named twice", '[TOOL_CALLS]bash[ARGS]{"command": "ls", "command": "rm -rf ~"}'],
    ["Mistral: spaces around the name", '[TOOL_CALLS] bash [ARGS] {"command": "ls"}'],
    ["Mistral: the name after [ARGS]", '[TOOL_CALLS][ARGS]bash{"command": "ls"}'],
    ["Mistral: a list entry that is no object", '[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}}, 5]'],
  ];
  for (const [what, input] of refused) {
    test(`${what}: no call`, () => expect(outcome(input).calls).toEqual([]));
  }

  test("strings typed from the schema: 0x10, 1_000, yes and a fullwidth digit are no values; 1e3 and True are", () => {
    expect(outcome(hermes('{"name": "sleep", "arguments": {"seconds": "0x10"}}')).calls).toEqual([]);
    expect(outcome(hermes('{"name": "sleep", "arguments": {"seconds": "1_000"}}')).calls).toEqual([]);
    expect(outcome(hermes('{"name": "sleep", "arguments": {"seconds": "\uff11"}}')).calls).toEqual([]);
    expect(outcome(hermes('{"name": "toggle", "arguments": {"on": "yes"}}')).calls).toEqual([]);
    expect(outcome(hermes('{"name": "sleep", "arguments": {"seconds": "1e3"}}')).calls).toEqual([{ tool: "sleep", input: { seconds: 1000 } }]);
    expect(outcome(hermes('{"name": "toggle", "arguments": {"on": "True"}}')).calls).toEqual([{ tool: "toggle", input: { on: true } }]);
  });

  test("double-encoded arguments read as the object; escapes kept as JSON reads them", () => {
    expect(outcome(hermes('{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}')).calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome('[TOOL_CALLS]bash[ARGS]"{\\"command\\": \\"ls\\"}"').calls).toEqual([{ tool: "bash", input: { command: "ls" } }]);
    expect(outcome(hermes('{"name": "bash", "arguments": {"command": "a\\u0000b"}}')).calls).toEqual([{ tool: "bash", input: { command: "a\u0000b" } }]);
  });

  test("LFM2's JSON list and the Mistral list read each entry strictly", () => {
    expect(outcome('<|tool_call_start|>[{"name": "bash", "arguments": {"command": "ls"}, "extra": 1}]<|tool_call_end|>').calls).toEqual([]);
    expect(outcome('[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}}, {"name": "bash", "arguments": {"command": "pwd"}}]').calls).toEqual([
      { tool: "bash", input: { command: "ls" } },
      { tool: "bash", input: { command: "pwd" } },
    ]);
  });
});

describe("hard negatives: no positional value is mapped to a guessed parameter (pass today)", () => {
  const refused: [string, string][] = [
    ["LFM2 positional", "<|tool_call_start|>[web_search('foo')]<|tool_call_end|>"],
    ["Mistral: a JSON string after [ARGS]", '[TOOL_CALLS]bash[ARGS]"ls"'],
    ["Hermes: arguments as a plain string", hermes('{"name": "web_search", "arguments": "foo"}')],
    ["T01: a body that is no JSON", '<tool_call name="web_search">foo</tool_call>'],
    ["GLM: a value with no key", "<tool_call>bash\nls\n</tool_call>"],
    ["Qwen3-Coder: a body with no parameter", "<function=bash>ls</function>"],
    ["invoke markup: a text body", '<function_calls>\n<invoke name="web_search">foo</invoke>\n</function_calls>'],
    ["a tool-named element holding text (not a shell costume)", "<web_search>\nfoo\n</web_search>"],
    ["an alias element holding text", "<read_file>\n/a\n</read_file>"],
  ];
  for (const [what, input] of refused) {
    test(`${what}: no call`, () => expect(outcome(input).calls).toEqual([]));
  }
});
