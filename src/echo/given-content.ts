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
import { decodeJsonEscapes, gutterEnd, mayHoldMarkup } from "./given-text.ts";
import { decodeEncodings } from "./given-encodings.ts";
import { withoutTerminalCodes } from "./terminal-codes.ts";
import { CLOSES, hasPercentEscape, markupOf, NO_MARKUP, OPENS, withoutHtmlTags, withoutMarkdownEscapes } from "./given-markup.ts";
import { isLetterAt } from "./letters.ts";
import { BACKSLASH, DQ, LBRACE, LBRACKET, LT, SP, SQ, isWhiteSpace as isSpaceCode, lineEndAt, lineEndFrom } from "../grammar/chars.ts";

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

