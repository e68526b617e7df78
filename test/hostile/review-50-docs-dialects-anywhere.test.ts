/**
 * Review 50: review 47's oddly nested documents (review-47-docs-grammar.ts: fences of backticks and
 * tildes with odd info strings and closers, tabs, lists, block quotes with lazy lines, HTML blocks
 * of types 1-7, definitions, tables, escapes, setext underlines, CR/LF/CRLF) with the call in its
 * hole written in the dialects review 47 left out: Qwen3-Coder `<function=` (wrapped, bare, one
 * line), MiniMax invoke markup and its bracket form, LFM2 pythonic, GLM, Kimi, the `<bash>` element
 * and `<shell>` costume over lines, an HTML pre/code costume, a DSML tool-named element (I11), an
 * orphan DSML invoke, a plain `<bash>` element (O09) and Mistral's one-token form.
 *
 * No finding: ~40 000 documents (seeds 6001-6004, 10 000 runs each) gave no call where
 * commonmark.js shows documentation, no split dependence, no disagreement with parse() and no lost
 * character. Kept as a hard negative. REVIEW50_SEED / REVIEW50_RUNS explore further.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Parser, type Node } from "commonmark";
import { documents } from "./review-47-docs-grammar.ts";
import { accountsForEveryCharacter, everyChar, randomCuts, runEngine } from "../support/run-engine.ts";
import { fixtureTools as tools } from "../golden/tools.ts";
import { parse } from "../../src/engine/parse.ts";
import { D, escaped } from "../golden/notation.ts";

const SEED = Number(process.env.REVIEW50_SEED ?? 50_0001);
const RUNS = Number(process.env.REVIEW50_RUNS ?? 500);
const TOKEN = "ZQXJ7";
const COMMAND = `echo ${TOKEN}`;

const LINES: Record<string, string[]> = {
  qwen: ["<tool_call>", "<function=bash>", "<parameter=command>", COMMAND, "</parameter>", "</function>", "</tool_call>"],
  qwenBare: ["<function=bash>", `<parameter=command>${COMMAND}</parameter>`, "</function>"],
  qwenOneLine: [`<tool_call><function=bash><parameter=command>${COMMAND}</parameter></function></tool_call>`],
  minimax: ["<minimax:tool_call>", '<invoke name="bash">', `<parameter name="command">${COMMAND}</parameter>`, "</invoke>", "</minimax:tool_call>"],
  minimaxBracket: [`[TOOL_CALL] {tool => "bash", args => { --command "${COMMAND}" }} [/TOOL_CALL]`],
  lfm2: [`<|tool_call_start|>[bash(command='${COMMAND}')]<|tool_call_end|>`],
  bashElement: ["<bash>", `<command>${COMMAND}</command>`, "</bash>"],
  shellLines: ["<shell>", COMMAND, "</shell>"],
  glm: ["<tool_call>bash", "<arg_key>command</arg_key>", `<arg_value>${COMMAND}</arg_value>`, "</tool_call>"],
  kimi: [`<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"${COMMAND}"}<|tool_call_end|><|tool_calls_section_end|>`],
  preCode: [`<pre><code class="language-bash">${COMMAND}</code></pre>`],
  dsmlNamed: [`<${D}bash>`, `<${D}command>${COMMAND}</${D}command>`, `</${D}bash>`],
  orphanInvoke: [`<${D}invoke name="bash">`, `<${D}parameter name="command" string="true">${COMMAND}</${D}parameter>`, `</${D}invoke>`],
  mistralOneToken: [`[TOOL_CALLS]bash{"command":"${COMMAND}"}`],
};

const parser = new Parser();
/** Where commonmark.js renders the token (review-47-docs-grammar.ts's verdict, with these dialects' own lines as "own-html"). */
function verdict(doc: string, kind: string): { where: string; path: string } {
  const w = parser.parse(doc).walker();
  let found: Node | null = null;
  let attr = false;
  for (let ev = w.next(); ev; ev = w.next()) {
    const n = ev.node;
    if (!ev.entering && n.isContainer) continue;
    if (n.literal?.includes(TOKEN)) { found = n; break; }
    if (n.info?.includes(TOKEN) || n.destination?.includes(TOKEN) || n.title?.includes(TOKEN)) { found = n; attr = true; break; }
  }
  if (!found) return { where: "unseen", path: "" };
  const literal = found.literal ?? "";
  let where = found.type === "code" || found.type === "code_block" ? "code" : attr ? "link" : found.type === "html_inline" ? "html" : found.type === "html_block" ? (LINES[kind]!.some((l) => literal.replace(/^[ \t]+/, "").startsWith(l)) ? "own-html" : "html") : "text";
  let path: string = found.type;
  for (let p = found.parent; p; p = p.parent) {
    path += ` < ${p.type}`;
    if (p.type === "block_quote" && where === "text") where = "quote";
    if ((p.type === "link" || p.type === "image") && where === "text") where = "link";
  }
  return { where, path };
}
const DOCUMENTATION = new Set(["code", "html", "link", "quote", "unseen"]);

/** Review 47's documents with the hole's call swapped for one of these dialects (its later lines carry the hole line's container prefix on even offsets). */
const dialectDocuments = fc.tuple(documents, fc.constantFrom(...Object.keys(LINES))).map(([d, kind]) => {
  const plain = d.plain!;
  const before = plain.slice(0, d.at);
  const linePre = before.slice(Math.max(before.lastIndexOf("\n"), before.lastIndexOf("\r")) + 1);
  const eol = plain.slice(d.at).match(/\r\n|\r|\n/)?.[0] ?? "\n";
  const prefix = d.at % 2 === 0 && /^[ \t>]*(?:(?:[-*+]|\d{1,10}[.)])[ \t]+[ \t>]*)?$/.test(linePre) ? linePre.replace(/[-*+]|\d{1,10}[.)]/g, (m) => " ".repeat(m.length)) : "";
  return { doc: before + LINES[kind]!.join(eol + prefix) + plain.slice(d.at), kind };
});

describe("review 50: review 47's nested documents with the other dialects' calls in the hole", () => {
  test(`a call commonmark.js shows as documentation never runs, at any split (${RUNS} documents)`, () => {
    const byWhere: Record<string, number> = {};
    fc.assert(
      fc.property(dialectDocuments, fc.nat(), ({ doc, kind }, splitSeed) => {
        const v = verdict(doc, kind);
        byWhere[v.where] = (byWhere[v.where] ?? 0) + 1;
        const whole = runEngine(doc, [], tools);
        const context = `${kind} in ${v.where} (${v.path}): ${JSON.stringify(escaped(doc))}`;
        const seen = (r: { text: string; calls: unknown[] }) => `${context} -> ${r.calls.length} calls, text ${JSON.stringify(escaped(r.text))}`;
        expect(seen(parse(doc, tools))).toBe(seen(whole));
        for (const cuts of [everyChar(doc.length), randomCuts(doc.length, splitSeed), randomCuts(doc.length, splitSeed + 1, 5)]) expect(seen(runEngine(doc, cuts, tools))).toBe(seen(whole));
        expect(`${context}: every character accounted for ${accountsForEveryCharacter(doc, whole)}`).toBe(`${context}: every character accounted for true`);
        if (DOCUMENTATION.has(v.where)) expect(`${context} -> ${whole.calls.length} calls`).toBe(`${context} -> 0 calls`);
      }),
      { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
    );
    // The sweep reaches documentation and text alike (it cannot pass by never placing the call).
    expect(byWhere.code ?? 0).toBeGreaterThan(RUNS / 10);
    expect(byWhere.quote ?? 0).toBeGreaterThan(RUNS / 20);
    expect(byWhere.text ?? 0).toBeGreaterThan(RUNS / 10);
  }, 120_000);

  // The sweep must be able to fail: each dialect's call at a top-level paragraph start runs, and in a fence does not.
  for (const [kind, lines] of Object.entries(LINES)) {
    test(`control: ${kind} runs at the top level and stays text in a fence`, () => {
      const call = lines.join("\n");
      expect(runEngine(`${call}\n`, [], tools).calls.map((c) => c.input.command)).toEqual([COMMAND]);
      expect(runEngine(`\`\`\`\n${call}\n\`\`\`\n`, [], tools).calls).toEqual([]);
    });
  }
});
