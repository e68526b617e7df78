/**
 * The given content as the echo guard searches it: every text the request gave the model, in the
 * forms the model may have read it, normalized so that nothing placed around a quoted call can
 * change how its values read, plus where tool-call markup of any dialect stands in it.
 *
 * Normalizing (the same for the given content and for a call's values, so both sides agree):
 * - forms: as written, and with JSON string escapes decoded once and twice (a tool result that is
 *   JSON, or JSON of JSON);
 * - encodings the model decodes when it quotes (given-encodings.ts): HTML character references
 *   (named ones for ASCII punctuation and spaces, decimal and hex numeric ones, all with their `;`)
 *   and ASCII percent-escapes (`%3C`); see docs/SECURITY.md for the encodings left out. A form
 *   whose decoding made a quote or a backslash is also kept undecoded, so where strings begin and
 *   end (string-lexer.ts) is read as written too: `"id": "&quot;[/TOOL_CALL]"` is one string to a
 *   reader of the JSON;
 * - Unicode: characters that render as nothing (format characters, default-ignorable code points
 *   such as U+200B, U+00AD, U+2060, U+FEFF and the variation selectors) removed, and canonical
 *   equivalents composed (NFC): `cafe` + U+0301 reads as `café`. Given content that holds such a
 *   character is also read with each one a space (a word break to a reader). NFC only: NFKC would also fold
 *   compatibility look-alikes (fullwidth letters), which the guard leaves out (docs/SECURITY.md);
 * - terminal control sequences (colour codes, `ESC [ … m`; OSC strings) read as nothing, as a
 *   terminal shows them; given content that holds one is read as written too (terminal-codes.ts);
 * - line prefixes: at the start of every line, a tool's line-number gutter (`12: `, `Line 12: `,
 *   `path:12:`) and then the whole run of characters that are not letters (`+`, `-`, `#`, `//`,
 *   ` * `, `> `, digits, bullets, box drawing). Not capped: a cap would let a value whose own lines
 *   start with such characters read differently behind a prefix than alone;
 * - layout: every run of whitespace is one space, line ends included.
 *
 * Markup is found by a local test at each `<`, `[` and bar, never by a reader with state, so no
 * decoy before a quote (an unclosed string, attribute or tag) can hide the markup after it.
 * Everything here is one pass per form, linear in the text.
 */
import { isBarCode } from "../grammar/markers.ts";
import { StringLexer, type QuotedStrings } from "./string-lexer.ts";
import { costumeTool, GENERIC_TAG_NAMES } from "../grammar/dialects.ts";
import { asLostLtCloser, readTagHead } from "../grammar/tags.ts";
import { standalonePrefixAt } from "../parse/standalone-json.ts";
import { isAliasName } from "../parse/aliases.ts";
import { decodeJsonEscapes, gutterEnd, mayHoldMarkup } from "./given-text.ts";
import { decodeEncodings } from "./given-encodings.ts";
import { withoutTerminalCodes } from "./terminal-codes.ts";
import { BACKSLASH, COLON, DASH, DQ, LBRACE, LBRACKET, LT, SENTENCEPIECE_SPACE_CODE, SLASH, SP, SQ, UNDERSCORE, isAsciiDigit, isAsciiLetter, isAsciiPunctuation, isWhiteSpace as isSpaceCode, lineEndAt, lineEndFrom } from "../grammar/chars.ts";

export interface GivenHaystack extends QuotedStrings {
  /** The normalized forms of every given text, separated by " \u0000 ". */
  text: string;
  /** Where call markup begins in `text`, ascending. */
  markup: number[];
  /** Per entry of `markup`: true for a closing tag or end token (`</shell>`, `<|tool_call_end|>`), false for an opener. */
  closes: boolean[];
  /** The tools named by a code costume that opens somewhere in `text` (`<shell>`, `<py>`: bash; dialects.ts costumeTool). */
  costumeTools: Set<string>;
  /** Where a given line's content ends in `text` (a line of a form, after its prefix), ascending. */
  lineEnds: number[];
  /** Where a given line's content begins in `text`, ascending. */
  lineStarts: number[];
  /**
   * Every form in `text`, in order: its span and the given text it reads (`group`, counted over
   * the texts that entered the haystack). Forms of consecutive groups meet at a seam: a value cut
   * between two given texts (a file read in two parts, a message of two text parts) is searched
   * across it (search.ts seamGiven).
   */
  forms: { group: number; start: number; end: number; head: string }[];
  /** How many given texts entered the haystack (the next group). */
  groups: number;
}

export const NO_MARKUP = 0;
export const OPENS = 1;
const CLOSES = 2;
type MarkupKind = typeof NO_MARKUP | typeof OPENS | typeof CLOSES;

/** A JSON document inside a JSON string (a tool that returns JSON of another tool's JSON) is decoded twice. */
const JSON_DEPTH = 2;
const SEPARATOR = " \u0000 ";

/**
 * `toolNames`: the request's declared tools (and aliases), as written: a plain element named after
 * one (`<write>`, O09) is call markup in given content too, so quoting such a call is an echo.
 * `keepLinePrefixes`: the haystack for values without a letter or digit, which the line prefixes
 * would remove whole (a `:(){ :|:& };:` on a line of its own is all prefix): every line is kept
 * as written, only whitespace is collapsed.
 */
export function buildGivenHaystack(texts: readonly string[], toolNames?: ReadonlySet<string>, keepLinePrefixes = false): GivenHaystack {
  const hay: GivenHaystack = { text: "", markup: [], closes: [], costumeTools: new Set(), quoted: [], quotedOpener: [], lineEnds: [], lineStarts: [], forms: [], groups: 0 };
  appendToHaystack(hay, texts, toolNames, keepLinePrefixes);
  return hay;
}

/**
 * `texts` added at the end of a haystack, as buildGivenHaystack would have read them after its
 * own: content given later (a server tool's result inside the reply). Positions only grow, so
 * every list stays in order; the work is linear in the texts added (plus one copy of the text).
 */
export function appendToHaystack(hay: GivenHaystack, texts: readonly string[], toolNames?: ReadonlySet<string>, keepLinePrefixes = false): void {
  const parts: string[] = [];
  const found: Found = hay;
  let length = hay.text.length;
  for (const text of texts) {
    const group = hay.groups;
    for (const form of jsonForms(text)) {
      for (const base of renderedForms(form, toolNames)) {
        const decodedQuote = { value: false };
        const decoded = decodeEncodings(base, decodedQuote);
        const variants = readings(decoded);
        if (decodedQuote.value) variants.push(...readings(base));
        for (const variant of variants) {
          // A form without markup holds no quote; and a value is never "next to" another text's markup.
          if (!mayHoldMarkup(variant)) continue;
          if (parts.length > 0 || hay.text.length > 0) {
            parts.push(SEPARATOR);
            length += SEPARATOR.length;
          }
          const head = { prefix: "" };
          const folded = foldLines(variant, length, found, toolNames, keepLinePrefixes, head);
          hay.forms.push({ group, start: length, end: length + folded.length, head: head.prefix });
          parts.push(folded);
          length += folded.length;
        }
      }
    }
    if (hay.forms.length > 0 && hay.forms[hay.forms.length - 1]!.group === group) hay.groups++;
  }
  if (parts.length > 0) hay.text += parts.join("");
}

/** Format characters and default-ignorable code points (U+200B, U+00AD, U+2060, U+FEFF, the variation selectors, tags): they render as nothing. */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * A text as a reader sees it, the same on both sides: characters that render as nothing removed,
 * canonical equivalents composed (NFC). Never NFKC: it would fold look-alikes (fullwidth letters),
 * which the guard leaves out.
 */
function foldUnicode(text: string): string {
  return text.replace(INVISIBLE, "").normalize("NFC");
}

/**
 * decodeEncodings, then terminal control sequences removed, then foldUnicode (after it: a
 * reference may spell ESC, an invisible character or a combining mark).
 */
export function readable(text: string): string {
  return foldUnicode(withoutTerminalCodes(decodeEncodings(text)));
}

/**
 * A given text's readings (unicodeReadings), and when it holds terminal control sequences (colour
 * codes: `grep --color=always`, `git diff --color`) those of it without them too, as a reader
 * sees it and as the model repeats it. Both count: the reading as written stays, so no sequence
 * (an OSC string runs to its terminator) can take a quote out of the given content.
 */
function readings(text: string): string[] {
  const variants = unicodeReadings(text);
  const plain = withoutTerminalCodes(text);
  if (plain !== text) variants.push(...unicodeReadings(plain));
  return variants;
}

/**
 * The readings of a given text's invisible characters, each then NFC: removed (`cu` + U+200B +
 * `rl` reads `curl`, as a call's value is read) and, when it has any, a space as well (`sh` + U+200B
 * + `please` may read as two words: the command then ends at `sh`). Both count, so neither reading
 * lets a quote pass for prose.
 */
function unicodeReadings(text: string): string[] {
  const joined = text.replace(INVISIBLE, "");
  if (joined.length === text.length) return [text.normalize("NFC")];
  return [joined.normalize("NFC"), text.replace(INVISIBLE, " ").normalize("NFC")];
}

/**
 * A form as a renderer shows it, besides as written: with CommonMark backslash escapes of ASCII
 * punctuation removed (Markdown made from HTML escapes `_`, `*`, `[`: `\[TOOL\_CALLS\]`, `my\_data`);
 * with HTML tags and comments that are not call markup removed (a highlighted code block wraps
 * each token in `<span class="pl-s">`; `<!-- ok -->` shows as nothing); and, when the text holds
 * percent-escapes, with `+` read as a space (form encoding). Each one more form: only more quotes
 * count as given.
 */
function renderedForms(form: string, toolNames: ReadonlySet<string> | undefined): string[] {
  const forms = [form];
  const unescaped = withoutMarkdownEscapes(form);
  if (unescaped !== form) forms.push(unescaped);
  const untagged = withoutHtmlTags(form, toolNames);
  if (untagged !== form) forms.push(untagged);
  if (unescaped !== form && untagged !== form) {
    const both = withoutHtmlTags(unescaped, toolNames);
    if (both !== unescaped && both !== untagged) forms.push(both);
  }
  if (form.includes("+") && hasPercentEscape(form)) forms.push(form.replaceAll("+", " "));
  return forms;
}

/** Whether the text holds an ASCII percent-escape (`%3C`), which decodeEncodings decodes. */
function hasPercentEscape(text: string): boolean {
  for (let i = text.indexOf("%"); i >= 0; i = text.indexOf("%", i + 1)) {
    const hi = text.charCodeAt(i + 1);
    const lo = text.charCodeAt(i + 2);
    if (hi >= 0x30 && hi <= 0x37 && (isAsciiDigit(lo) || ((lo | 0x20) >= 0x61 && (lo | 0x20) <= 0x66))) return true;
  }
  return false;
}

/** CommonMark's backslash escapes (`\` before ASCII punctuation) removed: `\_` reads `_`, `\\` reads `\`. */
export function withoutMarkdownEscapes(text: string): string {
  let slash = text.indexOf("\\");
  if (slash < 0) return text;
  let out = "";
  let from = 0;
  while (slash >= 0 && slash + 1 < text.length) {
    if (!isAsciiPunctuation(text.charCodeAt(slash + 1))) {
      slash = text.indexOf("\\", slash + 1);
      continue;
    }
    out += text.slice(from, slash);
    from = slash + 1;
    slash = text.indexOf("\\", slash + 2);
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The longest HTML tag removed (attributes included); a longer one stays as written. */
const MAX_HTML_TAG = 1024;
/** Tags that end a line when rendered: read as a line break, so the words on either side stay apart. */
const BLOCK_TAGS = new Set(["br", "p", "div", "li", "ul", "ol", "tr", "td", "th", "table", "pre", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "section", "article", "header", "footer", "dd", "dt", "dl"]);

/**
 * HTML tags and comments removed as a browser shows the text, except tags that are call markup
 * (markupOf: `<shell>`, `<tool_call>`, a declared tool's element), which stay. A tag is `<` and a
 * letter (or `/` and a letter) up to the next `>` within MAX_HTML_TAG; a comment `<!--` up to
 * `-->`. One pass: the next `>`, `-->` and line end are each looked for again only once passed.
 */
export function withoutHtmlTags(text: string, toolNames?: ReadonlySet<string>): string {
  let lt = text.indexOf("<");
  if (lt < 0) return text;
  let out = "";
  let from = 0;
  let gt = -1;
  let commentEnd = -1;
  let lineEnd = -1;
  while (lt >= 0) {
    let end = -1;
    let replacement = "";
    if (text.startsWith("<!--", lt)) {
      if (commentEnd !== -2 && commentEnd < lt + 4) commentEnd = text.indexOf("-->", lt + 4);
      if (commentEnd < 0) commentEnd = -2;
      if (commentEnd >= 0) end = commentEnd + 3;
    } else {
      const slash = text.charCodeAt(lt + 1) === SLASH ? 1 : 0;
      if (isAsciiLetter(text.charCodeAt(lt + 1 + slash))) {
        if (gt !== -2 && gt < lt) gt = text.indexOf(">", lt);
        if (gt < 0) gt = -2;
        if (gt >= 0 && gt - lt <= MAX_HTML_TAG) {
          if (lineEnd < lt) lineEnd = lineEndFrom(text, lt);
          if (markupOf(text, lt, lineEnd, toolNames).kind === NO_MARKUP) {
            end = gt + 1;
            let k = lt + 1 + slash;
            while (k < gt && (isAsciiLetter(text.charCodeAt(k)) || isAsciiDigit(text.charCodeAt(k)))) k++;
            if (BLOCK_TAGS.has(text.slice(lt + 1 + slash, k).toLowerCase())) replacement = "\n";
          }
        }
      }
    }
    if (end < 0) {
      lt = text.indexOf("<", lt + 1);
      continue;
    }
    out += text.slice(from, lt) + replacement;
    from = end;
    lt = text.indexOf("<", end);
  }
  return from === 0 ? text : out + text.slice(from);
}

function jsonForms(text: string): string[] {
  const forms = [text];
  for (let depth = 0; depth < JSON_DEPTH; depth++) {
    const next = decodeJsonEscapes(forms[forms.length - 1]!);
    if (next === forms[forms.length - 1]) break;
    forms.push(next);
  }
  return forms;
}

/**
 * One value (or one markup span) as it must occur in the haystack. `first` keeps its first line
 * whole: a value that starts in the middle of a given line kept its leading characters there;
 * `stripped` loses them like every other line: a value that starts a given line lost them. Both
 * normalized like the haystack; `stripped` is null when it is the same or empty.
 */
export function needleForms(value: string): { first: string; stripped: string | null } {
  const lines = splitLines(readable(value));
  const rest = lines.slice(1).map((line) => line.slice(linePrefixEnd(line, 0, line.length)));
  const first = collapseSpaces([lines[0]!, ...rest].join(" "));
  const head = lines[0]!;
  const stripped = collapseSpaces([head.slice(linePrefixEnd(head, 0, head.length)), ...rest].join(" "));
  return { first, stripped: stripped !== first && stripped !== "" ? stripped : null };
}

/**
 * A value without a letter or digit as the haystack that keeps line prefixes holds it: each of
 * its lines, decoded and whitespace-collapsed, blank ones left out. Searched line by line, so a
 * prefix before each given line (`+`, `> `) cannot hide it.
 */
export function symbolLines(value: string): string[] {
  return splitLines(readable(value)).map(collapseSpaces).filter((line) => line !== "");
}

function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Where a line's content begins: past a line-number gutter, then past every character that is not a letter. */
function linePrefixEnd(s: string, from: number, end: number): number {
  let i = gutterEnd(s, from, end);
  while (i < end && !isLetterAt(s, i)) i += s.charCodeAt(i) >= 0xd800 && s.charCodeAt(i) <= 0xdbff ? 2 : 1;
  return Math.min(i, end);
}

/**
 * A combining mark counts with the letters: it belongs to the character before it, so it continues
 * a token (`cafe` + U+0301 holds no whole token `cafe`) and ends no word.
 */
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const LETTER_DIGIT_OR_MARK = /[\p{L}\p{N}\p{M}]/u;

/** A letter, or a combining mark (which belongs to the character before it). */
export function isLetterAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) return isAsciiLetter(c);
  return LETTER_OR_MARK.test(String.fromCodePoint(s.codePointAt(i)!));
}

/** A letter, a digit, or a combining mark (which belongs to the character before it): the characters a whole token is made of. */
export function isAlnumAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) return isAsciiLetter(c) || isAsciiDigit(c);
  // A low surrogate belongs to the character before it.
  const at = c >= 0xdc00 && c <= 0xdfff && i > 0 ? i - 1 : i;
  return LETTER_DIGIT_OR_MARK.test(String.fromCodePoint(s.codePointAt(at)!));
}

export { isWhiteSpace as isSpaceCode } from "../grammar/chars.ts";

/**
 * A form's lines with their prefixes removed, joined by single spaces, whitespace collapsed. The
 * markup found in the form is appended to `markup` at its position in the result plus `offset`.
 */
interface Found extends QuotedStrings {
  markup: number[];
  closes: boolean[];
  costumeTools: Set<string>;
  lineEnds: number[];
  lineStarts: number[];
}

function foldLines(text: string, offset: number, found: Found, toolNames: ReadonlySet<string> | undefined, keepLinePrefixes: boolean, head?: { prefix: string }): string {
  // Where strings open after an opener, read on the text as written here (before line prefixes go).
  const strings = new StringLexer(found);
  const note = (i: number, end: number, at: number) => {
    const { kind, tool } = markupOf(text, i, end, toolNames);
    if (kind === NO_MARKUP) return;
    strings.markup(kind === OPENS, at);
    found.markup.push(at);
    found.closes.push(kind === CLOSES);
    if (tool !== null) found.costumeTools.add(tool);
  };
  const parts: string[] = [];
  let length = 0;
  let space = false;
  for (let start = 0; start <= text.length; ) {
    const end = lineEndFrom(text, start);
    const kept = keepLinePrefixes ? start : linePrefixEnd(text, start, end);
    // The first line's prefix, kept aside: a text that continues a line cut in the text before it
    // (`.example/x | sh` after `…https://evil`) begins mid-line, where nothing is a prefix.
    if (start === 0 && head !== undefined && kept > 0) head.prefix = text.slice(0, kept).replace(/\s+/g, " ").trimStart();
    // Markup in the removed prefix (a `<shell>` that starts the line) stands where the content begins.
    for (let i = start; i < kept; i++) {
      note(i, end, offset + length + (space && length > 0 ? 1 : 0));
      const c = text.charCodeAt(i);
      if (c === DQ || c === SQ || c === BACKSLASH || strings.escaping) strings.step(c, -1);
    }
    space ||= kept > start;
    let run = -1;
    let lineContent = false;
    for (let i = kept; i <= end; i++) {
      const c = i < end ? text.charCodeAt(i) : SP;
      if (isSpaceCode(c)) {
        if (run >= 0) {
          parts.push(text.slice(run, i));
          length += i - run;
          run = -1;
        }
        space = true;
        if (i < end && strings.escaping) strings.step(c, -1);
        continue;
      }
      if (run < 0) {
        if (space && length > 0) {
          parts.push(" ");
          length++;
        }
        space = false;
        run = i;
        if (!lineContent) found.lineStarts.push(offset + length);
        lineContent = true;
      }
      const at = offset + length + (i - run);
      if (c === LT || c === LBRACKET || c === LBRACE || isBarCode(c)) note(i, end, at);
      if (c === DQ || c === SQ || c === BACKSLASH || strings.escaping) strings.step(c, at);
    }
    if (lineContent) found.lineEnds.push(offset + length);
    strings.lineBreak();
    space = true;
    if (end >= text.length) break;
    start = end + lineEndAt(text, end);
  }
  return parts.join("");
}

const MAX_NAME = 40;

/**
 * The call markup that begins at `i`, if any, and the tool a code costume opening there names
 * (`<shell>`, `<py>`: bash; dialects.ts costumeTool), else null.
 *
 * Found with the engine's own grammar, so no spelling the engine opens a candidate at can be
 * missing here (golden E45.1-E45.4): a tag is markup when the tag reader reads its head there
 * (grammar/tags.ts readTagHead: DSML and its degraded sentinels, a lost `<`, spaces after `<`,
 * namespaced Claude-style names, the legacy, Kimi and LFM2 tokens, Mistral's and MiniMax's bracket
 * tokens), whatever its attributes, except the generic words the reader knows only inside a span
 * (dialects.ts GENERIC_TAG_NAMES); a JSON call object is markup where a standalone JSON call
 * (J01) would open (parse/standalone-json.ts standalonePrefixAt), on any line, spaces and line
 * breaks after the brace included (issue 29 items 8, 12). The guard adds what only it needs: an
 * element named after a declared tool or an alias (`<read_file>`, O09), attributes and closer
 * allowed, and a special token of words the grammar does not know (`<|im_start|>`,
 * `</{BAR}tool_call_end{BAR}>`). More markup only makes more quotes count as given.
 *
 * Closing tags and end tokens (`</…`, a legacy token whose words say `end`) CLOSE; the rest OPENS.
 * Looks at most one token ahead (a head never crosses its line).
 */
export function markupOf(s: string, i: number, end: number, toolNames?: ReadonlySet<string>): { kind: MarkupKind; tool: string | null } {
  const c = s.charCodeAt(i);
  if ((c === LBRACE || c === LBRACKET) && standalonePrefixAt(s, i, true) === "open") return { kind: OPENS, tool: null };
  if (c !== LT && c !== LBRACKET && !isBarCode(c)) return NOTHING;
  const head = readTagHead(s, i);
  if (head !== null) {
    const tag = asLostLtCloser(head, i > 0 ? s.charCodeAt(i - 1) : 0);
    if (!GENERIC_TAG_NAMES.has(tag.name)) {
      if (tag.closing || (tag.family === "legacy" && tag.name.includes("end"))) return { kind: CLOSES, tool: null };
      return { kind: OPENS, tool: tag.family === "costume" ? costumeTool(tag.name) : null };
    }
  }
  return c === LT ? { kind: guardOnlyMarkup(s, i, end, toolNames), tool: null } : NOTHING;
}

const NOTHING = { kind: NO_MARKUP, tool: null } as const;

/**
 * At a `<` the grammar reads no tag at: an element named after a declared tool or alias (`<read>`,
 * `</read_file>`), or a special token (`<`, a bar, a word) of any words. Looks at most MAX_NAME characters.
 */
function guardOnlyMarkup(s: string, i: number, end: number, toolNames: ReadonlySet<string> | undefined): MarkupKind {
  let j = i + 1;
  const slash = j < end && s.charCodeAt(j) === SLASH;
  if (slash) j++;
  if (j < end && isBarCode(s.charCodeAt(j))) {
    let k = j + 1;
    while (k < end && k - j < 4 && (s.charCodeAt(k) === SP || s.charCodeAt(k) === SENTENCEPIECE_SPACE_CODE)) k++;
    if (k >= end || !isLetterAt(s, k)) return NO_MARKUP;
    if (slash) return CLOSES;
    const token = s.slice(k, Math.min(end, k + MAX_NAME));
    const close = token.indexOf(">");
    return (close < 0 ? token : token.slice(0, close)).toLowerCase().includes("end") ? CLOSES : OPENS;
  }
  let k = j;
  while (k < end && k - j < MAX_NAME && isNameCode(s.charCodeAt(k))) k++;
  // Another agent's tool name is that agent's call markup when written as an element (`<read_file>`, O09).
  if (k === j) return NO_MARKUP;
  const name = s.slice(j, k);
  if (!(isAliasName(name) || toolNames?.has(name))) return NO_MARKUP;
  return slash ? CLOSES : OPENS;
}

function isNameCode(c: number): boolean {
  return (isAsciiLetter(c)) || isAsciiDigit(c) || c === UNDERSCORE || c === COLON || c === DASH;
}
