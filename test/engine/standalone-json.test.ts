import { describe, expect, test } from "bun:test";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, runEngine } from "../support/run-engine.ts";

/**
 * Issue 29 item 12, the evidence for J01's default (docs/PATTERNS.md, "A JSON call standing alone").
 * A corpus of replies that hold JSON but are no tool call: examples in prose, API documentation,
 * config objects, JSON replies the user asked for. Each is read outside and inside a fence with
 * parse.standaloneJson switched on; the ones that still become a call are the false calls the
 * option would make. They are exactly the replies that are a call-shaped object of a declared tool
 * as a paragraph of their own: the reader cannot tell them from a call, which is why J01 is off.
 */
const negatives: Record<string, string> = {
  "example-mid-sentence": 'Send {"name": "bash", "arguments": {"command": "ls"}} to run a command.',
  "example-after-colon-same-paragraph": 'Like this:\n{"name": "bash", "arguments": {"command": "ls"}}',
  "example-then-explanation-same-paragraph": '{"name": "bash", "arguments": {"command": "ls"}}\nis what the model should emit.',
  "api-doc-undeclared-tool": 'The tool call object looks like this:\n\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n\nThe server replies with the result.',
  "api-doc-declared-tool": 'Example request body:\n\n{"name": "read", "arguments": {"filePath": "/etc/hosts"}}\n\nReplace the path with yours.',
  "api-doc-openai-envelope": '{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}}]}',
  "api-doc-tool-definition": '{"name": "bash", "description": "Run a command", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}',
  "api-doc-tool-parameters-only": '{"name": "bash", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}',
  "config-package-json": '{\n  "name": "my-app",\n  "version": "1.0.0",\n  "scripts": {"test": "bun test"}\n}',
  "config-name-and-arguments-list": '{"name": "launch", "arguments": ["--port", "8080"]}',
  "reply-person-record": '{"name": "Alice", "age": 30}',
  "reply-people-list": '[{"name": "Alice", "arguments": {"x": 1}}, {"name": "Bob", "arguments": {"x": 2}}]',
  "reply-jsonl-log": '{"name": "read", "arguments": {"filePath": "/a"}}\n{"name": "bash", "arguments": {"command": "ls"}}',
  "reply-name-only": '{"name": "bash"}',
  "reply-asked-for-a-call-as-json": '{"name": "bash", "arguments": {"command": "ls -la"}}',
  "reply-asked-for-a-search-call": 'Here is the JSON you asked for:\n\n{"name": "web_search", "arguments": {"query": "weather in Paris"}}',
};
const fence = "```";
const corpus = Object.entries(negatives).flatMap(([id, text]) => [
  [`${id} (plain)` as string, text] as const,
  [`${id} (fenced)` as string, `${fence}json\n${text}\n${fence}\n`] as const,
]);
/** The measured false calls with the option on: call-shaped objects of declared tools, each a paragraph of its own. */
const FALSE_CALLS = ["api-doc-declared-tool (plain)", "reply-asked-for-a-call-as-json (plain)", "reply-asked-for-a-search-call (plain)"];

describe("J01 measured against negatives", () => {
  test(`switched on: ${FALSE_CALLS.length} false calls in ${corpus.length} negatives, all plain, none fenced`, () => {
    const calling = corpus.filter(([, text]) => parse(text, fixtureTools, { standaloneJson: true }).calls.length > 0).map(([id]) => id);
    expect(calling).toEqual(FALSE_CALLS);
  });

  test("off by default: no call and no nudge from any of them", () => {
    for (const [id, text] of corpus) {
      const result = parse(text, fixtureTools);
      expect({ id, calls: result.calls.length, nudge: result.nudge, text: result.text }).toEqual({ id, calls: 0, nudge: null, text });
    }
  });

  test("switched on, a negative is never a nudge and its text is unchanged unless it became a call", () => {
    for (const [id, text] of corpus) {
      const result = parse(text, fixtureTools, { standaloneJson: true });
      expect({ id, nudge: result.nudge }).toEqual({ id, nudge: null });
      if (!FALSE_CALLS.includes(id)) expect({ id, text: result.text }).toEqual({ id, text });
    }
  });
});

describe("J01 holds nothing on prose", () => {
  const on = { parse: { standaloneJson: true } };
  test("a paragraph starting with a brace that is no call prefix is released at once", () => {
    for (const text of ['{"names": [1, 2, 3]} and more text after it', "{ this is a set } of words", "[1, 2, 3] is a list", '[{"id": 1}]']) {
      const run = runEngine(text, everyChar(text.length), fixtureTools, on);
      expect({ text, maxHeld: run.maxHeld <= '{"name"'.length }).toEqual({ text, maxHeld: true });
    }
  });

  test("mid-paragraph JSON is never held", () => {
    const text = 'We send {"name": "bash", "arguments": {"command": "ls"}} each time.';
    expect(runEngine(text, everyChar(text.length), fixtureTools, on).maxHeld).toBe(0);
  });
});
