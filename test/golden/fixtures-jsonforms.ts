/**
 * Issue 29 items 8, 10, 12 and the nudges: the JSON-shaped leaks (MiniMax's bracket form, double-encoded
 * arguments, a JSON call standing alone) and calls cut off in every dialect. Each recovered form has
 * hard negatives beside it: the same markup in a fence, in inline code, in a blockquote, and in prose
 * that discusses it. Spread into build-fixtures.ts's list.
 */
import type { Fixture, FixtureCall } from "./build-fixtures.ts";
import type { Shape } from "../../src/grammar/shapes.ts";
import { ok, bad, none, ls } from "./fixture-kit.ts";

const fence = "```";
const quoted = (text: string) => `> ${text.split("\n").join("\n> ")}\n`;
const fenced = (text: string) => `${fence}\n${text}\n${fence}\n`;
const todo = (shape: Shape): FixtureCall => ({ tool: "todowrite", input: { todos: [{ content: "a", status: "pending" }] }, shape });
/** JSON text as a JSON string literal: what a double-encoding model writes. */
const encoded = (json: string) => JSON.stringify(json);

export function jsonForms(): Fixture[] {
  return [...minimaxBrackets(), ...doubleEncoded(), ...cutOffCalls(), ...standaloneJson()];
}

/**
 * Item 8: MiniMax's bracket form, `[TOOL_CALL]` one object `[/TOOL_CALL]`, Perl-style arrows or
 * JSON, one line or several; both exact tokens, a declared tool, arguments that fit.
 */
function minimaxBrackets(): Fixture[] {
  const arrow = (tool: string, pairs: string) => `[TOOL_CALL] {tool => "${tool}", args => { ${pairs} }} [/TOOL_CALL]`;
  const lsArrow = arrow("bash", '--command "ls -la"');
  const readA: FixtureCall = { tool: "read", input: { filePath: "/a", limit: 5 }, shape: "O05" };
  return [
    ok("X29.1", "minimax-bracket-arrow-one-line", lsArrow, [ls("O05")]),
    ok("X29.2", "minimax-bracket-arrow-multiline", 'Let me look.\n[TOOL_CALL]\n{tool => "read", args => {\n  --filePath "/a"\n  --limit 5\n}}\n[/TOOL_CALL]', [readA], "Let me look.\n"),
    ok("X29.3", "minimax-bracket-json", '[TOOL_CALL] {"tool": "bash", "args": {"command": "ls -la"}} [/TOOL_CALL]', [ls("O05")]),
    ok("X29.4", "minimax-bracket-json-multiline", '[TOOL_CALL]\n{"tool": "read", "args": {"filePath": "/a", "limit": 5}}\n[/TOOL_CALL]', [readA]),
    ok("X29.5", "minimax-bracket-arrow-json-args", '[TOOL_CALL]{tool => "read", args => {"filePath": "/a", "limit": 5}}[/TOOL_CALL]', [readA]),
    ok("X29.6", "minimax-bracket-arrow-colons-and-commas", '[TOOL_CALL]{tool => "read", args => { --filePath: "/a", --limit: 5 }}[/TOOL_CALL]', [readA]),
    ok("X29.7", "minimax-bracket-zero-arguments", '[TOOL_CALL]{tool => "list_sessions"}[/TOOL_CALL]', [{ tool: "list_sessions", input: {}, shape: "O05" }]),
    ok("X29.8", "minimax-bracket-two-calls-after-prose", `Both at once.${lsArrow}\n${arrow("read", '--filePath "/a" --limit 5')}`, [ls("O05"), readA], "Both at once.\n"),
    ok("X29.9", "minimax-bracket-escaped-quote-in-value", arrow("bash", '--command "echo \\"hi\\""'), [ls("O05", 'echo "hi"')]),
    bad("X29.10", "minimax-bracket-undeclared", arrow("web.search", '--q "x"'), "undeclared-tool", ["O05"]),
    bad("X29.11", "minimax-bracket-unreadable-arguments", arrow("bash", 'command "ls"'), "broken-markup", ["O05"]),
    bad("X29.12", "minimax-bracket-missing-required", arrow("read", "--limit 5"), "broken-markup", ["O05"]),
    bad("X29.13", "minimax-bracket-truncated", 'Checking.\n[TOOL_CALL]\n{tool => "bash", args => {\n  --command "l', "truncated-call", ["O05"]),
    bad("X29.14", "minimax-bracket-wrong-type", arrow("read", '--filePath "/a" --limit all'), "invalid-arguments", ["O05"]),
    { ...none("X29.15", "minimax-bracket-switched-off", lsArrow), options: { dialects: { minimax: false } } },
    // Hard negatives: documentation, and prose that discusses the format.
    none("N29.20", "minimax-bracket-in-fence", fenced(lsArrow)),
    none("N29.21", "minimax-bracket-in-inline-code", `MiniMax writes \`${lsArrow}\` when it leaks.`),
    none("N29.22", "minimax-bracket-in-blockquote", quoted(lsArrow)),
    none("N29.23", "minimax-bracket-format-in-prose", 'The format is [TOOL_CALL] {tool => "name", args => {...}} [/TOOL_CALL] on its own line.'),
    none("N29.24", "minimax-bracket-tokens-in-prose", "Wrap each call in [TOOL_CALL] and [/TOOL_CALL] tokens."),
    none("N29.25", "minimax-bracket-brace-then-paragraph", "Use [TOOL_CALL] {\n\nthen describe the call in words [/TOOL_CALL]."),
  ];
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

/**
 * Nudges: a call cut off is reported in every dialect, never passed through silently. The reply
 * ending inside a tag (`<{D}invoke name=`, `</tool_ca`) is as truncated as one ending after it; a
 * Hermes object or a MiniMax bracket object the model abandoned for prose on a new line is a
 * cut-off call when it names a declared tool.
 */
function cutOffCalls(): Fixture[] {
  const hermesCut = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"\n\nI will wait for the output.';
  return [
    bad("T29.1", "dsml-reply-ends-inside-invoke-tag", "Let me check.\n<{D}tool_calls>\n<{D}invoke name=", "truncated-call", ["S02"]),
    bad("T29.2", "hermes-reply-ends-inside-closer", '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_ca', "truncated-call", ["O01"]),
    bad("T29.3", "minimax-reply-ends-inside-invoke-opener", '<minimax:tool_call>\n<invoke name="bash"', "truncated-call", ["O05"]),
    bad("T29.4", "claude-xml-reply-ends-inside-invoke-opener", '<function_calls>\n<invoke name="read"', "truncated-call", ["O07"]),
    bad("T29.5", "glm-reply-ends-inside-value-tag", "<tool_call>read\n<arg_key>filePath</arg_key>\n<arg_val", "truncated-call", ["O03"]),
    bad("T29.6", "qwen3-coder-reply-ends-inside-parameter-tag", "<tool_call>\n<function=bash>\n<parameter=comm", "truncated-call", ["O02"]),
    bad("T29.7", "kimi-reply-ends-inside-token", "<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_be", "truncated-call", ["L07"]),
    bad("T29.8", "hermes-cut-mid-json-then-prose", hermesCut, "broken-markup", ["O01"]),
    bad("T29.9", "hermes-cut-mid-string-then-prose", '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -l\nDone.', "broken-markup", ["O01"]),
    bad("T29.10", "minimax-bracket-cut-then-prose", '[TOOL_CALL]\n{tool => "bash", args => {\n  --command "ls -la"\n\nWaiting for the result.', "broken-markup", ["O05"]),
    // Hard negatives: prose, documentation, and a format description that names no declared tool.
    none("N29.30", "hermes-sketch-on-two-lines-undeclared", 'Hermes writes <tool_call>{"name": "my_tool", "arguments": {\n...\n}} for each call.'),
    none("N29.31", "hermes-cut-off-in-fence", fenced(hermesCut)),
    none("N29.32", "hermes-cut-off-in-inline-code", 'The log ends with `<tool_call>{"name": "bash", "arguments": {` and nothing else.'),
    none("N29.33", "hermes-cut-off-in-blockquote", quoted(hermesCut)),
    none("N29.34", "reply-ends-inside-tag-in-inline-code", "The reply ended with `<invoke name="),
    none("N29.35", "reply-ends-inside-tag-in-open-fence", `${fence}\n<{D}tool_calls>\n<{D}invoke name=`),
    none("N29.36", "bracket-object-sketch-then-paragraph", "Write [TOOL_CALL] {tool => NAME,\n\nand so on."),
  ];
}

/**
 * Item 12 (J01, off by default; switched on here): a JSON call standing alone as a whole paragraph.
 * Everything short of a clean call of a declared tool is text, never a nudge; documentation, a
 * paragraph shared with prose, and an off switch stay text. Measured against a corpus of negatives
 * in test/engine/standalone-json.test.ts.
 */
function standaloneJson(): Fixture[] {
  const on = { standaloneJson: true };
  const withOn = (f: Fixture): Fixture => ({ ...f, options: on });
  const call = '{"name": "bash", "arguments": {"command": "ls -la"}}';
  const readA: FixtureCall = { tool: "read", input: { filePath: "/a" }, shape: "J01" };
  return [
    withOn(ok("A29.1", "standalone-json-call-whole-reply", call, [ls("J01")])),
    withOn(ok("A29.2", "standalone-json-call-after-a-paragraph", `I'll list the files.\n\n${call}`, [ls("J01")], "I'll list the files.\n\n")),
    withOn(ok("A29.3", "standalone-json-call-list", `[${call}, {"name": "read", "arguments": {"filePath": "/a"}}]`, [ls("J01"), readA])),
    withOn(ok("A29.4", "standalone-json-tool-calls-envelope", `{"tool_calls": [${call}]}`, [ls("J01")])),
    withOn(ok("A29.5", "standalone-json-pretty-printed", '{\n  "name": "read",\n  "parameters": {\n    "filePath": "/a"\n  }\n}\n', [readA])),
    withOn(ok("A29.6", "standalone-json-double-encoded-arguments", '{"name": "read", "arguments": "{\\"filePath\\": \\"/a\\"}"}', [readA])),
    none("A29.7", "standalone-json-off-by-default", call),
    // Hard negatives with the option on: documentation, prose around it, and anything short of a clean call.
    withOn(none("N29.40", "standalone-json-in-fence", fenced(call))),
    withOn(none("N29.41", "standalone-json-in-inline-code", `Reply with \`${call}\` to run it.`)),
    withOn(none("N29.42", "standalone-json-in-blockquote", quoted(call))),
    withOn(none("N29.43", "standalone-json-in-list-item", `- ${call}\n`)),
    withOn(none("N29.44", "standalone-json-indented-code", `    ${call}\n`)),
    withOn(none("N29.45", "standalone-json-mid-sentence", `Models such as Devstral write ${call} with no marker.`)),
    withOn(none("N29.46", "standalone-json-same-paragraph-as-prose", `For example:\n${call}`)),
    withOn(none("N29.47", "standalone-json-prose-on-the-next-line", `${call}\nis the shape to expect.`)),
    withOn(none("N29.48", "standalone-json-undeclared-tool", '{"name": "get_weather", "arguments": {"city": "Paris"}}')),
    withOn(none("N29.49", "standalone-json-invalid-arguments-no-nudge", '{"name": "read", "arguments": {"limit": "all"}}')),
    withOn(none("N29.50", "standalone-json-name-only", '{"name": "bash"}')),
    withOn(none("N29.51", "standalone-json-config-object", '{"name": "my-app", "version": "1.0.0"}')),
    withOn(none("N29.52", "standalone-json-tool-definition", '{"name": "bash", "description": "Run a command", "parameters": {"type": "object"}}')),
  ];
}
