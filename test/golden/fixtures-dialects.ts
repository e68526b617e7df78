/**
 * Issue 29 items 4, 7, 9 and 11: degraded leak forms no format spec lists, each recovered only when
 * the span is complete, the tool declared, the arguments valid for its schema, outside
 * documentation and not an echo. Every recovery sits beside its hard negatives: the same markup in
 * a fence, in inline code, in a blockquote, and in prose that discusses it. Ids: R<item>.n for
 * recoveries and nudges, N<item>.n for negatives. Inputs use the escaped notation of notation.ts.
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
const ls = (shape: string, command = "ls -la"): FixtureCall => ({ tool: "bash", input: { command }, shape });
const readA = (shape: string): FixtureCall => ({ tool: "read", input: { filePath: "/a" }, shape });
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

export const dialectFixtures: Fixture[] = [...typographicQuotes()];
