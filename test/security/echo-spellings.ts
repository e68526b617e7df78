/**
 * One call, many spellings: every dialect and layout the parser reads as the same call. The echo
 * tests quote a call in given content in one spelling and echo it in another. Markup characters
 * come from notation.ts only. Values must be plain: no `<`, `&`, quotes or backslashes, no newline.
 */
import { BAR, SP, live } from "../golden/notation.ts";

export type Call = { tool: string; input: Record<string, string> };

export interface DsmlStyle {
  /** "one": no layout; "lines": DeepSeek's newline per tag; "value": newlines around each value too. */
  layout: "one" | "lines" | "value";
  sentinel: "fullwidth" | "ascii";
  lowerCase: boolean;
  quote: '"' | "'";
  stringAttr: boolean;
  /** false: an orphan invoke, no block around it. */
  wrapped: boolean;
}

export const CANONICAL_DSML: DsmlStyle = { layout: "lines", sentinel: "fullwidth", lowerCase: false, quote: '"', stringAttr: true, wrapped: true };

export function dsml(call: Call, style: Partial<DsmlStyle> = {}): string {
  const s = { ...CANONICAL_DSML, ...style };
  const nl = s.layout === "one" ? "" : "\n";
  const around = s.layout === "value" ? "\n" : "";
  const q = s.quote;
  const params = Object.entries(call.input).map(
    ([k, v]) => `<{D}parameter name=${q}${k}${q}${s.stringAttr ? ` string=${q}true${q}` : ""}>${around}${v}${around}</{D}parameter>`,
  );
  const invoke = `<{D}invoke name=${q}${call.tool}${q}>${nl}${params.join(nl)}${nl}</{D}invoke>`;
  let text = s.wrapped ? `<{D}tool_calls>${nl}${invoke}${nl}</{D}tool_calls>` : invoke;
  text = live(text);
  if (s.sentinel === "ascii") text = text.replaceAll(`${BAR}DSML${BAR}`, "|DSML|");
  return s.lowerCase ? text.replaceAll("DSML", "dsml") : text;
}

export const hermes = (call: Call, pretty: boolean): string =>
  `<tool_call>\n${pretty ? JSON.stringify({ name: call.tool, arguments: call.input }, null, 2) : JSON.stringify({ name: call.tool, arguments: call.input })}\n</tool_call>`;

/** DeepSeek V3.1's special tokens; `space` replaces U+2581 between their words. */
export function legacy(call: Call, space: string = SP): string {
  const token = (words: string) => `<${BAR}${words.split(" ").join(space)}${BAR}>`;
  return `${token("tool calls begin")}${token("tool call begin")}${call.tool}${token("tool sep")}${JSON.stringify(call.input)}${token("tool call end")}${token("tool calls end")}`;
}

/** Only for bash with a lone command. */
export const shell = (call: Call, lines: boolean): string => (lines ? `<shell>\n${call.input.command}\n</shell>` : `<shell>${call.input.command}</shell>`);

export const qwen3coder = (call: Call): string =>
  `<tool_call>\n<function=${call.tool}>\n${Object.entries(call.input).map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>`).join("\n")}\n</function>\n</tool_call>`;

export const glm = (call: Call): string =>
  `<tool_call>${call.tool}\n${Object.entries(call.input).map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>`).join("\n")}\n</tool_call>`;

export const kimi = (call: Call): string =>
  `<|tool_calls_section_begin|><|tool_call_begin|>functions.${call.tool}:0<|tool_call_argument_begin|>${JSON.stringify(call.input)}<|tool_call_end|><|tool_calls_section_end|>`;

const xmlInvoke = (call: Call) => `<invoke name="${call.tool}">\n${Object.entries(call.input).map(([k, v]) => `<parameter name="${k}">${v}</parameter>`).join("\n")}\n</invoke>`;
export const minimax = (call: Call): string => `<minimax:tool_call>\n${xmlInvoke(call)}\n</minimax:tool_call>`;
export const claudeXml = (call: Call): string => `<function_calls>\n${xmlInvoke(call)}\n</function_calls>`;
export const mistral = (call: Call): string => `[TOOL_CALLS]${call.tool}[ARGS]${JSON.stringify(call.input)}`;

/** Every spelling of a call the parser reads by default (shell only for a lone bash command). */
export function spellings(call: Call): [string, string][] {
  const out: [string, string][] = [
    ["DSML, DeepSeek layout", dsml(call)],
    ["DSML on one line", dsml(call, { layout: "one" })],
    ["DSML with newlines around values", dsml(call, { layout: "value" })],
    ["DSML with ASCII pipes", dsml(call, { sentinel: "ascii" })],
    ["lower-case dsml", dsml(call, { lowerCase: true })],
    ["single-quoted attributes", dsml(call, { quote: "'" })],
    ["no string= attribute", dsml(call, { stringAttr: false })],
    ["an orphan invoke", dsml(call, { wrapped: false })],
    ["Hermes JSON, minified", hermes(call, false)],
    ["Hermes JSON, pretty-printed", hermes(call, true)],
    ["legacy tokens", legacy(call)],
    ["legacy tokens with spaces", legacy(call, " ")],
    ["Qwen3-Coder", qwen3coder(call)],
    ["GLM", glm(call)],
    ["Kimi K2", kimi(call)],
    ["MiniMax", minimax(call)],
    ["Claude-style XML", claudeXml(call)],
    ["Mistral", mistral(call)],
  ];
  if (call.tool === "bash" && Object.keys(call.input).length === 1) out.push(["<shell> on one line", shell(call, false)], ["<shell> on its own lines", shell(call, true)]);
  return out;
}

/** How given content may carry a quote: a tool's line numbers, a Markdown fence or quote, JSON. */
export const CARRIERS: [string, (quote: string) => string][] = [
  ["as written", (q) => `Setup notes.\n\n${q}\n\nThanks.`],
  ["OpenCode read gutters", (q) => `<content>\n${numbered(`# Notes\n${q}\nend`, (n) => `${n}: `)}\n</content>`],
  ["cat -n gutters", (q) => numbered(q, (n) => `${String(n).padStart(6)}\t`)],
  ["grep -n prefixes", (q) => numbered(q, (n) => `docs/setup.md:${n + 11}:`)],
  ["a Markdown fence", (q) => `Example:\n\n\`\`\`\n${q}\n\`\`\`\n`],
  ["a Markdown blockquote", (q) => `Quoted:\n\n${q.split("\n").map((l) => `> ${l}`).join("\n")}\n`],
  ["an indented code block", (q) => `Example:\n\n${q.split("\n").map((l) => `    ${l}`).join("\n")}\n`],
  ["a JSON string", (q) => JSON.stringify({ path: "docs/setup.md", body: `intro\n${q}\noutro` })],
  ["JSON inside a JSON string", (q) => JSON.stringify({ result: JSON.stringify({ body: q }) })],
  ["an inline code span", (q) => `Run \`${q.replaceAll("\n", " ")}\` first.`],
];

function numbered(text: string, gutter: (n: number) => string): string {
  return text.split("\n").map((line, i) => `${gutter(i + 1)}${line}`).join("\n");
}
