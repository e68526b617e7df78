/**
 * Issue 29 items 8, 10, 12 and the nudges: the JSON-shaped leaks (MiniMax's bracket form, double-encoded
 * arguments, a JSON call standing alone) and calls cut off in every dialect. Each recovered form has
 * hard negatives beside it: the same markup in a fence, in inline code, in a blockquote, and in prose
 * that discusses it. Spread into build-fixtures.ts's list.
 */
import type { Fixture, FixtureCall } from "./build-fixtures.ts";
import { live } from "./notation.ts";

const ok = (id: string, name: string, input: string, calls: FixtureCall[], text = ""): Fixture => ({
  id, name, input: live(input), expect: { calls, text: live(text), nudge: null, broken: [] },
});
const bad = (id: string, name: string, input: string, nudge: string, broken: string[], text = input, calls: FixtureCall[] = []): Fixture => ({
  id, name, input: live(input), expect: { calls, text: live(text), nudge, broken },
});
const none = (id: string, name: string, input: string): Fixture => ({
  id, name, input: live(input), expect: { calls: [], text: live(input), nudge: null, broken: [] },
});
const fence = "```";
const quoted = (text: string) => `> ${text.split("\n").join("\n> ")}\n`;
const fenced = (text: string) => `${fence}\n${text}\n${fence}\n`;
const ls = (shape: string, command = "ls -la"): FixtureCall => ({ tool: "bash", input: { command }, shape });
const todo = (shape: string): FixtureCall => ({ tool: "todowrite", input: { todos: [{ content: "a", status: "pending" }] }, shape });
/** JSON text as a JSON string literal: what a double-encoding model writes. */
const encoded = (json: string) => JSON.stringify(json);

export function jsonForms(): Fixture[] {
  return [...doubleEncoded()];
}

/**
 * Item 10: arguments written as a JSON string literal that holds the object, read once where every
 * JSON dialect's arguments are read (parse/values.ts argumentsObject), not per dialect.
 */
function doubleEncoded(): Fixture[] {
  const todos = '{"todos": [{"content": "a", "status": "pending"}]}';
  const kimi = (tool: string, args: string) =>
    `<|tool_calls_section_begin|><|tool_call_begin|>functions.${tool}:0<|tool_call_argument_begin|>${args}<|tool_call_end|><|tool_calls_section_end|>`;
  const hermes = (tool: string, args: string) => `<tool_call>\n{"name": "${tool}", "arguments": ${args}}\n</tool_call>`;
  const legacy = (words: string) => `<{BAR}${words.split(" ").join("{SP}")}{BAR}>`;
  const deepseek = (tool: string, args: string) =>
    `${legacy("tool calls begin")}${legacy("tool call begin")}${tool}${legacy("tool sep")}${args}${legacy("tool call end")}${legacy("tool calls end")}`;
  const dsmlArgs = (args: string) => `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="arguments" string="true">${args}</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;
  return [
    ok("J29.1", "kimi-double-encoded-arguments", kimi("todowrite", encoded(todos)), [todo("O04")]),
    ok("J29.2", "hermes-double-encoded-arguments-string", hermes("todowrite", encoded(encoded(todos))), [todo("O01")]),
    ok("J29.3", "mistral-double-encoded-arguments", `[TOOL_CALLS]todowrite[ARGS]${encoded(todos)}`, [todo("O06")]),
    ok("J29.4", "deepseek-legacy-double-encoded-arguments", deepseek("bash", encoded('{"command": "ls -la"}')), [ls("L02")]),
    ok("J29.5", "dsml-arguments-wrapper-double-encoded", dsmlArgs(encoded('{"command": "ls -la"}')), [ls("I03")]),
    ok("J29.6", "mistral-double-encoded-after-prose", `Updating the list.[TOOL_CALLS]todowrite[ARGS]${encoded(todos)}`, [todo("O06")], "Updating the list."),
    // A literal that holds no object, or an object that does not fit, is still a broken call, never a guess.
    bad("J29.7", "kimi-encoded-string-not-an-object", kimi("bash", encoded(encoded("ls -la"))), "broken-markup", ["O04"]),
    bad("J29.8", "mistral-encoded-array-not-an-object", `[TOOL_CALLS]bash[ARGS]${encoded('["ls"]')}`, "broken-markup", ["O06"]),
    bad("J29.9", "kimi-encoded-arguments-wrong-type", kimi("todowrite", encoded('{"todos": "a"}')), "invalid-arguments", ["O04"]),
    bad("J29.10", "mistral-encoded-arguments-truncated", `[TOOL_CALLS]todowrite[ARGS]"{\\"todos\\": [`, "truncated-call", ["O06"]),
    // Hard negatives: the same markup as documentation, or discussed in prose.
    none("N29.10", "kimi-double-encoded-in-fence", fenced(kimi("todowrite", encoded(todos)))),
    none("N29.11", "mistral-double-encoded-in-inline-code", `Mistral sometimes writes \`[TOOL_CALLS]todowrite[ARGS]${encoded(todos)}\` with the JSON quoted.`),
    none("N29.12", "hermes-double-encoded-in-blockquote", quoted(hermes("todowrite", encoded(encoded(todos))))),
    none("N29.13", "double-encoding-discussed-in-prose", `The arguments came back as ${encoded(todos)}, a string holding the JSON, which is why the tool failed.`),
  ];
}
