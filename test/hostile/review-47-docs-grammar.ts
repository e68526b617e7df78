/**
 * Review 47: a grammar of oddly nested Markdown for the documentation-context oracle tests
 * (review-47-docs-*.test.ts), deeper and odder than test/property/commonmark-oracle.test.ts:
 * block quotes inside list items inside block quotes to any depth, list items with 1-6 spaces
 * or a tab after the marker and continuation lines indented as required, one less, one more or
 * with tabs standing for columns, ordered lists starting at 0 or 9 digits (and 10 digits: no
 * list), lazy lines, fences of 2-4 backticks or tildes with backticks and tildes in the info
 * string and closers of the other kind, shorter, longer, indented or with text, indented code
 * after a blank line and after a paragraph (continuation text, not code), HTML blocks of types
 * 1-7 with their end conditions on the same or a later line, link reference definitions over
 * lines, setext underlines, pipe tables (paragraphs to commonmark.js), thematic breaks, entity
 * and backslash escapes next to backticks, and LF, CRLF, lone CR or mixed line ends. A hole
 * (HOLE, a line of its own or inside a line) is where the leaked call goes: DSML over lines or on
 * one, Hermes `<tool_call>` over lines or on one, a `<shell>` costume, Claude-style
 * `<function_calls>` and a bare `<invoke>`, Mistral `[TOOL_CALLS]`; its later lines carry the hole line's container prefix or not.
 */
import fc from "fast-check";
import { Parser, type Node } from "commonmark";
import { expect } from "bun:test";
import { D, escaped } from "../golden/notation.ts";
import { fixtureTools as tools } from "../golden/tools.ts";
import { parse } from "../../src/engine/parse.ts";
import { accountsForEveryCharacter, everyChar, randomCuts, runEngine } from "../support/run-engine.ts";

export const TOKEN = "ZQXJ7";
const COMMAND = `echo ${TOKEN}`;
export const CALL_LINES: Record<string, string[]> = {
  dsml: [`<${D}tool_calls>`, `<${D}invoke name="bash">`, `<${D}parameter name="command" string="true">${COMMAND}</${D}parameter>`, `</${D}invoke>`, `</${D}tool_calls>`],
  dsmlOneLine: [`<${D}tool_calls><${D}invoke name="bash"><${D}parameter name="command" string="true">${COMMAND}</${D}parameter></${D}invoke></${D}tool_calls>`],
  hermes: ["<tool_call>", JSON.stringify({ name: "bash", arguments: { command: COMMAND } }), "</tool_call>"],
  hermesOneLine: [`<tool_call>${JSON.stringify({ name: "bash", arguments: { command: COMMAND } })}</tool_call>`],
  costume: [`<shell>${COMMAND}</shell>`],
  claude: ["<function_calls>", '<invoke name="bash">', `<parameter name="command">${COMMAND}</parameter>`, "</invoke>", "</function_calls>"],
  // A bare Claude-style invoke is text by design (golden O07b); kept for the documentation direction.
  invoke: ['<invoke name="bash">', `<parameter name="command">${COMMAND}</parameter>`, "</invoke>"],
  mistral: [`[TOOL_CALLS]bash[ARGS]{"command":"${COMMAND}"}`],
};

type L = { text: string; lazy: boolean };
type B = L[];
const line = (text: string, lazy = false): L => ({ text, lazy });
export const HOLE = "\u0000";

const WORDS = ["alpha", "beta", "`code`", "``a ` b``", "`open", "\\`", "&#96;", "&#x60;x&#96;", "\\\\`", "*em*", "[l](/u 't')", "<span>", "<a href='x`'>", "<!-- c -->", "a | b", "|", "&amp;", "\\<", "1.", "-", "~~~", "```", "\t"];
const word = fc.constantFrom(...WORDS);
const words = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(" "));
const hole = fc.constantFrom(HOLE, `${HOLE}`, `see ${HOLE}`, `\`x\` ${HOLE}`, `${HOLE} tail`);

const paragraph: fc.Arbitrary<B> = fc
  .array(fc.oneof({ weight: 4, arbitrary: words }, { weight: 1, arbitrary: hole }), { minLength: 1, maxLength: 3 })
  .map((ls) => ls.map((t, i) => line(t, i > 0)));
const setext: fc.Arbitrary<B> = fc.tuple(words, fc.constantFrom("===", "---", "  -", "= =", "----  ")).map(([w, u]) => [line(w), line(u)]);
const atx: fc.Arbitrary<B> = fc.tuple(fc.constantFrom("#", "###", "#######", "#\t"), fc.oneof(words, hole)).map(([h, w]) => [line(`${h} ${w}`)]);
const thematic: fc.Arbitrary<B> = fc.constantFrom("***", "---", "- - -", "_\t_\t_", " * * *", "**").map((t) => [line(t)]);
const codeBody = fc.oneof({ weight: 3, arbitrary: fc.constantFrom("npm test", "x = `y`", "<div>", "> q", "- li", "", "```", "~~~", "    deep", "\tx", "</pre>", "-->") }, { weight: 2, arbitrary: fc.constant(HOLE) });
const fence: fc.Arbitrary<B> = fc
  .tuple(
    fc.constantFrom("```", "~~~", "````", "~~~~", "``", "~~"),
    fc.constantFrom("", "bash", "a`b", " `x`", "~x", "js {a=`1`}", "\t~~~"),
    fc.array(codeBody, { maxLength: 3 }),
    fc.constantFrom("same", "longer", "shorter", "none", "indented4", "indented3", "other", "trail"),
    fc.constantFrom("", " ", "  ", "   ", "\t"),
  )
  .map(([open, info, body, close, ind]) => {
    const other = open[0] === "`" ? "~".repeat(open.length) : "`".repeat(open.length);
    const closer = close === "same" ? open : close === "longer" ? open + open[0] : close === "shorter" ? open.slice(1) : close === "indented4" ? `    ${open}` : close === "indented3" ? `   ${open}` : close === "other" ? other : close === "trail" ? `${open} x` : null;
    const ls = [line(`${ind}${open}${info}`), ...body.map((b) => line(b === "" ? "" : ind + b))];
    if (closer !== null) ls.push(line(closer));
    return ls;
  });
const indented: fc.Arbitrary<B> = fc
  .tuple(fc.constantFrom("    ", "\t", "  \t", "   \t", "     ", " \t"), fc.array(codeBody, { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(([pad, body, afterBlank]) => [...(afterBlank ? [line("")] : []), ...body.map((b) => line(b === "" ? "" : pad + b))]);
const paraThenIndented: fc.Arbitrary<B> = fc.tuple(words, fc.constantFrom("    ", "\t", "        ")).map(([w, pad]) => [line(w), line(pad + HOLE, true)]);
const HTML: [string, string][] = [
  ["<script>", "</script>"],
  ["<pre class='x`'>", "x </pre> y"],
  ["<style>", "</style>"],
  ["<textarea>", "</textarea>"],
  ["<!--", "-->"],
  ["<!-- a", "b --> c"],
  ["<?php", "?>"],
  ["<!DOCTYPE x", ">"],
  ["<!X", "y>"],
  ["<![CDATA[", "]]>"],
  ["<div>", ""],
  ["</table>", ""],
  ["<DETAILS open>", ""],
  ["<custom-el a='1'>", ""],
  ["<b>", ""],
  ["</em >", ""],
  ["<a\thref=x>", ""],
  ["<img src=`x`/>", ""],
];
const htmlBlock: fc.Arbitrary<B> = fc
  .tuple(fc.constantFrom(...HTML), fc.array(fc.constantFrom("text", "", HOLE, "<b>b</b>", "`x`"), { maxLength: 3 }), fc.constantFrom("", " ", "  "))
  .map(([[o, c], body, ind]) => [line(ind + o), ...body.map((b) => line(b)), ...(c ? [line(c)] : [])]);
const defs: fc.Arbitrary<B> = fc
  .constantFrom(
    ["[a]: /u 't", `${HOLE}'`],
    ["[a]:", "/u", `"${HOLE}"`],
    ["[a]: <b c>", `(${HOLE}`, ")"],
    ["[a", `b]: /u '${HOLE}'`],
    ["[a]: /u", `'x' ${HOLE}`],
    [`[a]: /${HOLE}`],
    ["[a]:", `${HOLE}`],
  )
  .map((ls) => ls.map((t, i) => line(t, i > 0)));
const table: fc.Arbitrary<B> = fc.constantFrom(
  ["| a | b |", "|---|---|", `| \`x\` | ${HOLE} |`],
  ["a | b", "--|--", `${HOLE} | c`],
  [`| \`a | ${HOLE}\` |`],
).map((ls) => ls.map((t) => line(t)));
const escapes: fc.Arbitrary<B> = fc
  .constantFrom(`\\\`${HOLE}\``, `\`\\\`${HOLE}\``, `&#96;${HOLE}\``, `\`a\\\` ${HOLE} \``, `\\\\\`${HOLE}\``, `\`\`${HOLE}\\\`\``, `\`${HOLE}\n\``, `[x](/u "${HOLE}")`, `[x](<${HOLE}>)`, `<a title="${HOLE}">`, `*\`${HOLE}\`*`)
  .map((t) => t.split("\n").map((x, i) => line(x, i > 0)));
const blank: fc.Arbitrary<B> = fc.constant([line("")]);
const holeLine: fc.Arbitrary<B> = fc.constant([line(HOLE, true)]);

const leaf = fc.oneof(
  { weight: 4, arbitrary: paragraph },
  { weight: 1, arbitrary: setext },
  { weight: 1, arbitrary: atx },
  { weight: 1, arbitrary: thematic },
  { weight: 3, arbitrary: fence },
  { weight: 2, arbitrary: indented },
  { weight: 1, arbitrary: paraThenIndented },
  { weight: 3, arbitrary: htmlBlock },
  { weight: 1, arbitrary: defs },
  { weight: 1, arbitrary: table },
  { weight: 2, arbitrary: escapes },
  { weight: 2, arbitrary: blank },
  { weight: 2, arbitrary: holeLine },
);

const blocksOf = (inner: fc.Arbitrary<B>, max: number): fc.Arbitrary<B> =>
  fc.array(fc.tuple(inner, fc.boolean()), { minLength: 1, maxLength: max }).map((bs) => bs.flatMap(([b, gap], i) => (gap && i > 0 ? [line(""), ...b] : b)));

const quoteOf = (inner: fc.Arbitrary<B>): fc.Arbitrary<B> =>
  fc
    .tuple(blocksOf(inner, 3), fc.constantFrom("> ", ">", " > ", ">\t", "   > ", ">  "), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }))
    .map(([ls, p, lazy]) => ls.map((l, i) => (l.lazy && lazy[i % 8] ? l : line(l.text === "" ? p.trimEnd() : p + l.text, l.lazy))));

const MARKERS = ["-", "*", "+", "1.", "2)", "10.", "123456789.", "999999999)", "0.", "1234567890."];
const itemOf = (inner: fc.Arbitrary<B>): fc.Arbitrary<B> =>
  fc
    .tuple(
      fc.array(fc.tuple(blocksOf(inner, 2), fc.constantFrom(...MARKERS), fc.constantFrom(" ", "  ", "   ", "    ", "     ", "      ", "\t", " \t"), fc.constantFrom("ok", "less", "more", "tabs")), { minLength: 1, maxLength: 3 }),
      fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      fc.constantFrom("", " ", "  ", "   ", "\t"),
    )
    .map(([items, lazy, outer]) =>
      items.flatMap(([ls, marker, gap, indent]) => {
        const spaces = gap === "\t" ? 4 - ((outer.length + marker.length) % 4) : gap === " \t" ? 1 + (4 - ((outer.length + marker.length + 1) % 4)) : gap.length;
        const outerW = outer === "\t" ? 4 : outer.length;
        const width = outerW + marker.length + (spaces >= 5 ? 1 : spaces);
        const w = indent === "less" ? Math.max(0, width - 1) : indent === "more" ? width + 1 : width;
        const pad = indent === "tabs" ? "\t".repeat(Math.floor(w / 4)) + " ".repeat(w % 4) : " ".repeat(w);
        return ls.map((l, i) => (i === 0 ? line(`${outer}${marker}${l.text === "" ? "" : gap}${l.text}`) : l.lazy && lazy[i % 8] ? l : line(l.text === "" ? "" : pad + l.text, l.lazy)));
      }),
    );

const { block } = fc.letrec<{ block: B }>((tie) => ({
  block: fc.oneof(
    { depthSize: "medium", withCrossShrink: true },
    { weight: 5, arbitrary: leaf },
    { weight: 3, arbitrary: quoteOf(tie("block") as fc.Arbitrary<B>) },
    { weight: 3, arbitrary: itemOf(tie("block") as fc.Arbitrary<B>) },
  ),
}));

const EOLS = ["\n", "\r\n", "\r"];
export interface Doc {
  doc: string;
  kind: string;
  at: number;
  /** The document without the call. */
  plain?: string;
}
/** Documents with exactly one call: the first hole holds it (its later lines carry the hole line's prefix or not), the other holes are removed. */
export const documents: fc.Arbitrary<Doc> = fc
  .tuple(blocksOf(block, 5), fc.constantFrom("lf", "crlf", "cr", "mixed"), fc.array(fc.nat(2), { minLength: 8, maxLength: 8 }), fc.constantFrom(...Object.keys(CALL_LINES)), fc.boolean(), fc.nat())
  .map(([ls, kind, mix, callKind, prefixed, pick]) => {
    const texts = ls.map((l) => l.text);
    let holes = texts.map((t, i) => (t.includes(HOLE) ? i : -1)).filter((i) => i >= 0);
    if (holes.length === 0) {
      texts.splice(pick % (texts.length + 1), 0, HOLE);
      holes = [texts.indexOf(HOLE)];
    }
    const chosen = holes[pick % holes.length]!;
    const eol = (i: number) => (kind === "lf" ? "\n" : kind === "crlf" ? "\r\n" : kind === "cr" ? "\r" : EOLS[mix[i % 8]!]!);
    const lineText = texts[chosen]!;
    const before = lineText.slice(0, lineText.indexOf(HOLE));
    const prefix = prefixed && /^[ \t>]*(?:(?:[-*+]|\d{1,10}[.)])[ \t]+[ \t>]*)?$/.test(before) ? before.replace(/[-*+]|\d{1,10}[.)]/g, (m) => " ".repeat(m.length)) : "";
    const call = CALL_LINES[callKind]!.join(eol(chosen) + prefix);
    let doc = "";
    let at = -1;
    texts.forEach((t, i) => {
      if (i === chosen) {
        const k = t.indexOf(HOLE);
        at = doc.length + k;
        t = t.slice(0, k) + call + t.slice(k + 1);
      }
      doc += t.split(HOLE).join("") + eol(i);
    });
    const plain = texts.map((t, i) => t.split(HOLE).join("") + eol(i)).join("");
    return { doc, kind: callKind, at, plain };
  });

const parser = new Parser();
/** Where commonmark.js renders the token: code, html, link, quote (text inside a block quote), text, own-html, unseen; plus the containers. */
export function verdict(doc: string, kind?: string, token = TOKEN): { where: string; path: string; paragraphStart: boolean } {
  const TOKEN = token;
  const w = parser.parse(doc).walker();
  let found: Node | null = null;
  let attr = false;
  for (let ev = w.next(); ev; ev = w.next()) {
    const n = ev.node;
    if (!ev.entering && n.isContainer) continue;
    if (n.literal?.includes(TOKEN)) { found = n; break; }
    if (n.info?.includes(TOKEN) || n.destination?.includes(TOKEN) || n.title?.includes(TOKEN)) { found = n; attr = true; break; }
  }
  if (!found) return { where: "unseen", path: "", paragraphStart: false };
  let where = found.type === "code" || found.type === "code_block" ? "code" : attr ? "link" : found.type === "html_inline" ? "html" : found.type === "html_block" ? (kind && CALL_LINES[kind]!.some((l) => found!.literal!.replace(/^[ \t]+/, "").startsWith(l)) ? "own-html" : "html") : "text";
  let path = found.type;
  for (let p = found.parent; p; p = p.parent) {
    path += ` < ${p.type}`;
    if (p.type === "block_quote" && where === "text") where = "quote";
    if ((p.type === "link" || p.type === "image") && where === "text") where = "link";
  }
  const para = found.parent;
  const paragraphStart = found.type === "text" && para?.type === "paragraph" && para.firstChild === found;
  return { where, path, paragraphStart };
}

/** The same documents with the call at any offset instead of a hole (never between a CR and its LF). */
export const anywhere: fc.Arbitrary<Doc> = fc.tuple(documents, fc.nat(), fc.constantFrom(...Object.keys(CALL_LINES))).map(([{ plain }, n, kind]) => {
  const base = plain!;
  let at = n % (base.length + 1);
  if (at > 0 && base[at - 1] === "\r" && base[at] === "\n") at++;
  const eol = base.slice(0, at).match(/\r\n|\r|\n/g)?.[0] ?? "\n";
  return { doc: base.slice(0, at) + CALL_LINES[kind]!.join(eol) + base.slice(at), kind, at };
});

export const DOCUMENTATION = new Set(["code", "html", "link", "quote", "unseen"]);

export interface Tally {
  documents: number;
  documentation: number;
  recovered: number;
  byWhere: Record<string, number>;
}
export const newTally = (): Tally => ({ documents: 0, documentation: 0, recovered: 0, byWhere: {} });

/**
 * One document against commonmark.js: parse(), and the engine whole, char by char and at two
 * seeded random splits must agree (text and calls); where commonmark.js shows the call's argument as code, raw
 * HTML, a link's destination or title or link text, inside a block quote, or nowhere (an unused
 * definition), no call runs; every input character is visible or inside a recovered call or a
 * stripped span; and a DSML or Hermes call that opens a top-level paragraph on its own line runs.
 */
export function checkDocument({ doc, kind, at }: Doc, splitSeed: number, tally: Tally): void {
  const v = verdict(doc, kind);
  const whole = runEngine(doc, [], tools);
  tally.documents++;
  tally.byWhere[v.where] = (tally.byWhere[v.where] ?? 0) + 1;
  const context = `${kind} in ${v.where} (${v.path}): ${JSON.stringify(escaped(doc))}`;
  const seen = (r: { text: string; calls: unknown[] }) => `${context} -> ${r.calls.length} calls, text ${JSON.stringify(escaped(r.text))}`;
  expect(seen(parse(doc, tools))).toBe(seen(whole));
  for (const cuts of [everyChar(doc.length), randomCuts(doc.length, splitSeed), randomCuts(doc.length, splitSeed + 1, 5)]) {
    expect(seen(runEngine(doc, cuts, tools))).toBe(seen(whole));
  }
  expect(`${context}: every character accounted for ${accountsForEveryCharacter(doc, whole)}`).toBe(`${context}: every character accounted for true`);
  if (DOCUMENTATION.has(v.where)) {
    tally.documentation++;
    expect(`${context} -> ${whole.calls.length} calls`).toBe(`${context} -> 0 calls`);
  } else if (whole.calls.length > 0) tally.recovered++;
  const lineStart = at === 0 || doc[at - 1] === "\n" || doc[at - 1] === "\r";
  if (v.where === "text" && v.paragraphStart && v.path === "text < paragraph < document" && lineStart && /^(dsml|hermes)/.test(kind)) {
    expect(`${context} -> ${whole.calls.map((c) => `${c.tool} ${String(c.input.command)}`).join(", ")}`).toBe(`${context} -> bash echo ${TOKEN}`);
  }
}
