/**
 * Issue 29 items 4, 7, 9 and 11: degraded leak forms no format spec lists, each recovered only when
 * the span is complete, the tool declared, the arguments valid for its schema, outside
 * documentation and not an echo. Every recovery sits beside its hard negatives: the same markup in
 * a fence, in inline code, in a blockquote, and in prose that discusses it. Ids: R<item>.n for
 * recoveries and nudges, N<item>.n for negatives. Inputs use the escaped notation of notation.ts.
 */
import type { Fixture, FixtureCall } from "./build-fixtures.ts";
import type { Shape } from "../../src/grammar/shapes.ts";
import { ok, bad, none, ls, readA } from "./fixture-kit.ts";


const fence = "```";
/** The documentation copies every recovery is checked against: fenced, inline code, blockquote. */
const fenced = (markup: string) => `The leak looked like this:\n\n${fence}\n${markup}\n${fence}\n`;
const inlineCode = (markup: string) => `The leak looked like \`${markup.replaceAll("\n", " ")}\` in the log.`;
const quoted = (markup: string) => `> ${markup.split("\n").join("\n> ")}\n`;

/** Typographic quote characters, written as escapes (they are no marker bytes, but read clearer so). */
const LDQ = "\u201C";
const RDQ = "\u201D";
const LSQ = "\u2018";
const RSQ = "\u2019";
const FWQ = "\uFF02";

/**
 * Item 4: typographic quotes around attribute values (a client's or the model's smart quotes), in
 * every dialect that has attributes. Read once, in the shared tag scanner (src/grammar/tags.ts).
 */
function typographicQuotes(): Fixture[] {
  const dsml = `<{D}tool_calls>\n<{D}invoke name=${LDQ}bash${RDQ}>\n<{D}parameter name=${LDQ}command${RDQ} string=${LDQ}true${RDQ}>ls -la</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`;
  const claude = `<function_calls>\n<invoke name=${LSQ}read${RSQ}>\n<parameter name=${LSQ}filePath${RSQ}>/a</parameter>\n</invoke>\n</function_calls>`;
  return [
    ok("R4.1", "dsml-curly-double-quotes", dsml, [ls("Q01")]),
    ok("R4.2", "claude-xml-curly-single-quotes", claude, [readA("O07")]),
    ok("R4.3", "minimax-fullwidth-quotes", `<minimax:tool_call>\n<invoke name=${FWQ}read${FWQ}>\n<parameter name=${FWQ}filePath${FWQ}>/a</parameter>\n</invoke>\n</minimax:tool_call>`, [readA("O05")]),
    ok("R4.4", "dsml-right-quotes-on-both-sides", `<{D}tool_calls>\n<{D}invoke name=${RDQ}read${RDQ}>\n<{D}parameter name=${RDQ}filePath${RDQ} string=${RDQ}true${RDQ}>/a</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`, [readA("Q01")]),
    ok("R4.5", "qwen3-coder-quoted-function-name", `<tool_call>\n<function=${LDQ}bash${RDQ}>\n<parameter=command>\nls -la\n</parameter>\n</function>\n</tool_call>`, [ls("O02")]),
    ok("R4.6", "html-code-class-in-curly-quotes", `<pre><code class=${LDQ}language-bash${RDQ}>ls -la</code></pre>`, [ls("C03")]),
    bad("R4.7", "curly-quote-never-closes", `<{D}tool_calls>\n<{D}invoke name=${LDQ}bash>\n<{D}parameter name=${LDQ}command${RDQ} string=${LDQ}true${RDQ}>ls</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`, "broken-markup", ["I01"]),
    bad("R4.8", "curly-quotes-undeclared-tool", `<{D}tool_calls>\n<{D}invoke name=${LDQ}AgenticSearch${RDQ}>\n<{D}parameter name=${LDQ}query${RDQ} string=${LDQ}true${RDQ}>x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`, "undeclared-tool", ["B06"]),
    none("N4.1", "curly-quoted-block-in-fence", fenced(dsml)),
    none("N4.2", "curly-quoted-block-in-inline-code", inlineCode(dsml)),
    none("N4.3", "curly-quoted-block-in-blockquote", quoted(claude)),
    none("N4.4", "curly-quoted-opener-discussed-in-prose", `Some models write <{D}invoke name=${LDQ}bash${RDQ}> with smart quotes.`),
  ];
}

/**
 * Item 9: `<tool_call name="NAME">{json args}</tool_call>` (DeepSeek V4 Pro: the name in the opener,
 * the body the arguments), and GLM closing a zero-argument call with its value closer,
 * `<tool_call>NAME</arg_value>`. Both keep the `<tool_call>` structural gate: the body is checked
 * as it streams, so prose after the opener releases it at once.
 */
function toolCallForms(): Fixture[] {
  const named = '<tool_call name="bash">{"command": "ls -la"}</tool_call>';
  const glmZero = "<tool_call>list_sessions</arg_value>";
  const sessions: FixtureCall = { tool: "list_sessions", input: {}, shape: "T02" };
  return [
    ok("R9.1", "tool-call-name-attribute-json-arguments", named, [ls("T01")]),
    ok("R9.2", "tool-call-name-attribute-after-prose-multiline", `Listing it.\n<tool_call name="read">\n{"filePath": "/a", "limit": "5"}\n</tool_call>`, [
      { tool: "read", input: { filePath: "/a", limit: 5 }, shape: "T01" },
    ], "Listing it.\n"),
    ok("R9.3", "tool-call-name-attribute-wrapping-a-call-object", '<tool_call name="bash">{"name": "bash", "arguments": {"command": "ls -la"}}</tool_call>', [ls("T01")]),
    ok("R9.4", "tool-call-name-attribute-curly-quotes", `<tool_call name=${LDQ}bash${RDQ}>{"command": "ls -la"}</tool_call>`, [ls("T01")]),
    bad("R9.5", "tool-call-name-attribute-truncated", '<tool_call name="bash">{"command": "l', "truncated-call", ["T01"]),
    bad("R9.6", "tool-call-name-attribute-json-cut-off-then-closed", '<tool_call name="bash">{"command": "ls"</tool_call>', "broken-markup", ["T01"]),
    bad("R9.7", "tool-call-name-attribute-undeclared", '<tool_call name="Weather">{"city": "Paris"}</tool_call>', "undeclared-tool", ["T01"]),
    bad("R9.8", "tool-call-name-attribute-invalid-arguments", '<tool_call name="read">{"filePath": "/a", "limit": "all"}</tool_call>', "invalid-arguments", ["T01"]),
    ok("R9.9", "glm-zero-argument-closed-by-value-closer", glmZero, [sessions]),
    ok("R9.10", "glm-zero-argument-value-closer-then-wrapper-closer", "<tool_call>list_sessions</arg_value></tool_call>", [sessions]),
    bad("R9.11", "glm-value-closer-for-tool-with-required", "<tool_call>bash</arg_value>", "broken-markup", ["T02"]),
    none("N9.1", "tool-call-name-attribute-in-fence", fenced(named)),
    none("N9.2", "tool-call-name-attribute-in-inline-code", inlineCode(named)),
    none("N9.3", "tool-call-name-attribute-in-blockquote", quoted(named)),
    none("N9.4", "tool-call-name-attribute-discussed-in-prose", 'DeepSeek V4 Pro writes <tool_call name="bash"> followed by the arguments as JSON.'),
    none("N9.5", "glm-value-closer-in-inline-code", inlineCode(glmZero)),
    none("N9.6", "glm-value-closer-in-fence", fenced(glmZero)),
    none("N9.7", "glm-value-closer-undeclared-tool", "GLM once wrote <tool_call>Weather</arg_value> for a tool it did not have."),
  ];
}

/**
 * Item 7: a Claude-style `<invoke name>` with `<parameter name>` children and no `function_calls`
 * wrapper. The wrapper's loss must show: a stray wrapper line right before the invoke (`call`,
 * `calls`, `count` alone on a line that starts a paragraph), a namespaced wrapper around it
 * (`<xx:function_calls>`, which must open and close like O07's), or a lone wrapper closer right
 * after it. The stray line and the lone closer are the call's markup (inside its span). A bare
 * invoke with none of these stays text (O07b), and a stray word that continues a paragraph is prose.
 */
function wrapperlessInvoke(): Fixture[] {
  const invoke = (tool: string, key: string, value: string) => `<invoke name="${tool}">\n<parameter name="${key}">${value}</parameter>\n</invoke>`;
  const bash = invoke("bash", "command", "ls -la");
  const read = invoke("read", "filePath", "/a");
  const ns = (body: string) => `<xx:function_calls>\n${body}\n</xx:function_calls>`;
  const w = (shape: Shape) => ls(shape);
  return [
    ok("R7.1", "stray-call-line-then-bare-invoke", `call\n${bash}`, [w("W01")]),
    ok("R7.2", "stray-count-line-after-a-paragraph", `Let me list it.\n\ncount\n${bash}\n`, [w("W01")], "Let me list it.\n\n"),
    ok("R7.3", "stray-lines-before-two-invokes", `call\n${bash}\n\ncalls\n${read}`, [w("W01"), readA("W01")], "\n\n"),
    ok("R7.4", "namespaced-wrapper", ns(bash), [w("W02")]),
    ok("R7.5", "namespaced-wrapper-two-invokes", ns(`${bash}\n${read}`), [w("W02"), readA("W02")]),
    ok("R7.6", "namespaced-wrapper-invoke-and-parameters", '<xx:function_calls><xx:invoke name="bash"><xx:parameter name="command">ls -la</xx:parameter></xx:invoke></xx:function_calls>', [w("W02")]),
    ok("R7.7", "lone-namespaced-closer-after-bare-invoke", `${bash}\n</xx:function_calls>`, [w("W01")]),
    ok("R7.8", "lone-wrapper-closer-after-bare-invoke", `I will list it.\n${bash}\n</function_calls>`, [w("W01")], "I will list it.\n"),
    bad("R7.9", "namespaced-wrapper-truncated", `<xx:function_calls>\n${bash}`, "truncated-call", ["W02"]),
    bad("R7.10", "stray-line-then-invoke-truncated", `call\n<invoke name="bash">\n<parameter name="command">ls -`, "truncated-call", ["B07"]),
    bad("R7.11", "stray-line-then-undeclared-tool", `call\n${invoke("Weather", "city", "Paris")}`, "undeclared-tool", ["B06"]),
    bad("R7.12", "stray-line-then-text-beside-parameters", `call\n<invoke name="bash">\n<parameter name="command">ls</parameter>\ntimeout: 5\n</invoke>`, "broken-markup", ["I04"]),
    bad("R7.13", "namespaced-wrapper-invalid-arguments", ns(invoke("read", "limit", "5")), "broken-markup", ["I05"]),
    none("N7.1", "stray-line-and-invoke-in-fence", fenced(`call\n${bash}`)),
    none("N7.2", "namespaced-wrapper-in-inline-code", inlineCode(ns(bash))),
    none("N7.3", "stray-line-and-invoke-in-blockquote", quoted(`call\n${bash}`)),
    none("N7.4", "stray-word-continuing-a-paragraph-is-prose", `When it is done I will\ncall\n${bash}`),
    none("N7.5", "stray-line-then-invoke-discussed-in-prose", 'call\n<invoke name="bash"> is how the block starts.'),
    none("N7.6", "namespaced-wrapper-discussed-in-prose", "Claude wraps calls in <xx:function_calls> tags."),
    none("N7.7", "lone-namespaced-closer-in-prose", "The block ends with </xx:function_calls> as usual."),
    none("N7.8", "bare-invoke-then-prose", `${bash}\n\nThat is the whole format.`),
    none("N7.9", "stray-word-at-the-end", "Whom should I\n\ncall\n"),
  ];
}

/**
 * Item 11: Kimi without its section opener (and its end token closing a call whose own end is
 * missing), and markers whose `<` a client stripped: DSML openers and closers (`/{D}invoke>`), and
 * Kimi's tokens (`|tool_call_begin|>`). The text mode holds only when a sentinel or a tool token's
 * bar-and-word start appears; prose without one is never held.
 */
function lostOpeners(): Fixture[] {
  const K = (words: string) => `<|${words}|>`;
  const lostK = (words: string) => `|${words}|>`;
  const kimi = (tool: string, args: string, end = K("tool_call_end")) => `${K("tool_call_begin")}functions.${tool}:0${K("tool_call_argument_begin")}${args}${end}`;
  const lostKimi = `${lostK("tool_call_begin")}functions.bash:0${lostK("tool_call_argument_begin")}{"command": "ls -la"}${lostK("tool_call_end")}`;
  const lostDsml = `{D}tool_calls>\n{D}invoke name="bash">\n{D}parameter name="command" string="true">ls -la/{D}parameter>\n/{D}invoke>\n/{D}tool_calls>`;
  return [
    ok("R11.1", "kimi-no-section-opener-closed-by-section-end", `Running it.\n${kimi("bash", '{"command": "ls -la"}', K("tool_calls_section_end"))}`, [ls("O04")], "Running it.\n"),
    ok("R11.2", "kimi-no-section-opener-two-calls", `${kimi("bash", '{"command": "ls"}')}${kimi("read", '{"filePath": "/a"}')}${K("tool_calls_section_end")}`, [ls("O04", "ls"), readA("O04")]),
    ok("R11.3", "kimi-tokens-without-their-lt", lostKimi, [ls("O04")]),
    ok("R11.4", "kimi-section-opener-without-its-lt", `${lostK("tool_calls_section_begin")}${kimi("read", '{"filePath": "/a"}')}${K("tool_calls_section_end")}`, [readA("O04")]),
    ok("R11.5", "dsml-every-marker-without-its-lt", lostDsml, [ls("B04")]),
    ok("R11.6", "dsml-ascii-orphan-invoke-closers-without-their-lt", `Reading.\n|DSML|invoke name="read">\n|DSML|parameter name="filePath" string="true">/a/|DSML|parameter>\n/|DSML|invoke>`, [readA("B05")], "Reading.\n"),
    ok("R11.10", "dsml-orphan-invoke-then-block-closer-without-their-lt", `{D}invoke name="bash">\n{D}parameter name="command" string="true">ls -la/{D}parameter>\n/{D}invoke>\n/{D}tool_calls>`, [ls("B05")]),
    bad("R11.7", "kimi-without-lt-truncated", `${lostK("tool_call_begin")}functions.bash:0${lostK("tool_call_argument_begin")}{"command": "l`, "truncated-call", ["L07"]),
    bad("R11.8", "kimi-malformed-arguments-closed-by-section-end", kimi("bash", '{"command": "l', K("tool_calls_section_end")), "broken-markup", ["O04"]),
    bad("R11.9", "kimi-call-without-separator-closed-by-section-end", `${K("tool_call_begin")}functions.bash:0${K("tool_calls_section_end")}`, "broken-markup", ["L07"]),
    none("N11.1", "kimi-without-lt-in-fence", fenced(lostKimi)),
    none("N11.2", "dsml-without-lt-in-inline-code", inlineCode(lostDsml)),
    none("N11.3", "dsml-without-lt-in-blockquote", quoted(lostDsml)),
    none("N11.4", "kimi-token-without-lt-discussed-in-prose", "Kimi opens each call with |tool_call_begin|> and a function id."),
    none("N11.5", "pipes-and-tool-words-in-prose", "a |tool| b |tool_call_begin| c || tools"),
    none("N11.6", "dsml-opener-without-lt-discussed-in-prose", 'The marker {D}invoke name="bash"> shows up when the client strips brackets.'),
    none("N11.7", "kimi-section-end-mentioned-in-prose", `Kimi ends the section with ${K("tool_calls_section_end")} after the last call.`),
  ];
}

export const dialectFixtures: Fixture[] = [...typographicQuotes(), ...toolCallForms(), ...wrapperlessInvoke(), ...lostOpeners()];
