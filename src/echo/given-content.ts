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
 * - layout: every run of whitespace is one space, line ends included, and none at all next to shell
 *   punctuation (`|`, `&`, `;`, `<`, `>`, `(`, `)`: isLayoutPunctuation): a model that copies
 *   `x.sh|sh` as `x.sh | sh`, or the other way round, quotes the same command (review 51). Only
 *   ever more found: a space taken away sits next to punctuation, which already ends a whole token.
 * The optional steps (Markdown escapes, HTML tags, form-encoded `+`, references, terminal codes,
 * invisible characters as spaces; the shell reading) are combined into at most 14 readings per
 * text (readingsOf),
 * never tried in every combination: a text that triggers them all stays a constant times its size.
 *
 * Markup is found by a local test at each `<`, `[` and bar, never by a reader with state, so no
 * decoy before a quote (an unclosed string, attribute or tag) can hide the markup after it.
 * Everything here is one pass per form, linear in the text.
 */
import { isBarCode } from "../grammar/markers.ts";
import { StringLexer, type QuotedStrings } from "./string-lexer.ts";
import { decodeJsonEscapes, gutterEnd, mayHoldMarkup, mayHoldQuote } from "./given-text.ts";
import { decodeEncodings } from "./given-encodings.ts";
import { withoutTerminalCodes } from "./terminal-codes.ts";
import { CLOSES, hasPercentEscape, markupOf, NO_MARKUP, OPENS, withoutHtmlTags, withoutMarkdownEscapes } from "./given-markup.ts";
import { isLetterAt } from "./letters.ts";
import { isLayoutPunctuation, shellReading } from "./shell-words.ts";
import { AMP, BACKSLASH, DQ, GT, LBRACE, LBRACKET, LPAREN, LT, PIPE, RPAREN, SEMICOLON, SP, SQ, isWhiteSpace as isSpaceCode, lineEndAt, lineEndFrom } from "../grammar/chars.ts";

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
   * across it (search.ts seamGiven). Group -1: consecutive texts read joined (appendToHaystack),
   * which has no seam of its own.
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
 *
 * Consecutive texts whose seam may cut markup (joinedRuns) are also read joined with nothing
 * between, as one more text after them (group -1: no seam of its own, seam-search.ts skips it):
 * the model reads the text parts of one tool result or message one after the other, so
 * `<tool_` + `call>{"na` + `me": …</tool_` + `call>` is one quoted call (review 53). Only an extra
 * reading: each text is still read alone, so nothing counts as given less. At most doubles the
 * haystack.
 */
export function appendToHaystack(hay: GivenHaystack, texts: readonly string[], toolNames?: ReadonlySet<string>, keepLinePrefixes = false): void {
  const parts: string[] = [];
  const found: Found = hay;
  let length = hay.text.length;
  const read = (text: string, group: number): void => {
    const forms = jsonForms(text);
    forms.forEach((form, depth) => {
      for (const variant of readingsOf(form, toolNames, depth === 0 ? "given" : depth === forms.length - 1 ? "deepest" : "between", depth === forms.length - 1)) {
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
    });
  };
  for (const text of texts) {
    const group = hay.groups;
    read(text, group);
    if (hay.forms.length > 0 && hay.forms[hay.forms.length - 1]!.group === group) hay.groups++;
  }
  for (const run of joinedRuns(texts)) read(run, -1);
  if (parts.length > 0) hay.text += parts.join("");
}

/** How far before a seam a cut piece of markup can begin in a text as written: MAX_TOKEN (search.ts) with room for its encodings (`&#x3c;`, `\u003c`). */
const JOIN_TAIL = 512;

/**
 * The runs of two or more consecutive texts joined with nothing between, where each seam of a run
 * may cut markup: the run so far ends (its last JOIN_TAIL characters) with a character that can
 * begin markup or an encoding of it (mayHoldQuote). Texts that end in plain prose are not joined,
 * so ordinary multi-part content costs nothing more. Linear: each text is copied into at most one run.
 */
function joinedRuns(texts: readonly string[]): string[] {
  const runs: string[] = [];
  let run: string[] = [];
  let tail = "";
  for (const text of texts) {
    if (run.length > 0 && !mayHoldQuote(tail)) {
      if (run.length > 1) runs.push(run.join(""));
      run = [];
      tail = "";
    }
    run.push(text);
    tail = text.length >= JOIN_TAIL ? text.slice(-JOIN_TAIL) : (tail + text).slice(-JOIN_TAIL);
  }
  if (run.length > 1) runs.push(run.join(""));
  return runs;
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
 * The steps of one reading of a form, in the order applied: CommonMark backslash escapes removed
 * (Markdown made from HTML escapes `_`, `*`, `[`: `\[TOOL\_CALLS\]`); HTML tags and comments that
 * are not call markup removed (a highlighted code block wraps each token in `<span class="pl-s">`);
 * `+` read as a space when the text holds percent-escapes (form encoding); HTML references and
 * percent-escapes decoded (given-encodings.ts); terminal control sequences and overstrike removed
 * (terminal-codes.ts: colour codes, `man` output). Then invisible characters removed (or, in one
 * more reading, each read as a space: `sh` + U+200B + `please` may read as two words) and NFC.
 */
interface Steps {
  markdown: boolean;
  tags: boolean;
  plus: boolean;
  decode: boolean;
  terminal: boolean;
}

/** The form as written: only what both sides always undo (references; then invisible characters). */
const WRITTEN: Steps = { markdown: false, tags: false, plus: false, decode: true, terminal: false };
/** The form as a renderer and a terminal show it: every step. */
const RENDERED: Steps = { markdown: true, tags: true, plus: true, decode: true, terminal: true };
/**
 * RENDERED with one step left out: a step that changed the text may also take a quote out of it
 * (a Markdown escape removes a command's own backslash, tag removal an `<b>` inside a value, an
 * OSC string runs to its terminator, `+` may be a plus), so each is read once without it.
 */
const RENDERED_ALTERNATIVES: readonly (keyof Steps)[] = ["markdown", "tags", "plus", "terminal"];

/**
 * A form's readings, combined instead of multiplied, so the haystack and the work stay a small
 * constant times the content whatever a hostile text triggers (at most 14 readings per given text;
 * docs/SECURITY.md *Cost*). Every reading only adds quotes the guard counts as given.
 * - every form (the text as given and its JSON decodings, jsonForms): WRITTEN, and WRITTEN with
 *   references left undecoded where decoding made a quote or a backslash, so a JSON call quoted
 *   there is read where its strings end as its reader reads them (`"id": "&quot;[/TOOL_CALL]"` is
 *   one string; string-lexer.ts);
 * - the text as given and its deepest JSON decoding: RENDERED;
 * - the text as given: RENDERED with each step that changed it left out (every step but one), and
 *   RENDERED with invisible characters read as spaces when it has any.
 * - the last form (the deepest JSON decoding, or the text as given when it has none): WRITTEN in
 *   the shell reading (shell-words.ts: line continuations removed, shell quotes in a plain word
 *   folded) when that changes it; the needle is also searched in that reading (needleForms).
 * A reading whose steps came out the same as an earlier one's (most texts trigger few steps) is
 * left out before the Unicode step, so plain text costs one reading.
 */
function readingsOf(form: string, toolNames: ReadonlySet<string> | undefined, depth: "given" | "deepest" | "between", shell: boolean): string[] {
  const out: string[] = [];
  const texts: string[] = [];
  let invisible = false;
  const add = (text: string): void => {
    if (texts.includes(text)) return;
    texts.push(text);
    const joined = text.replace(INVISIBLE, "");
    invisible ||= joined.length !== text.length;
    out.push(joined.normalize("NFC"));
  };
  const changed = new Set<keyof Steps>();
  add(stepsOf(form, WRITTEN, toolNames, changed));
  if (shell) {
    const folded = shellReading(out[0]!);
    if (folded !== out[0]) out.push(folded);
  }
  if (changed.has("decode")) add(stepsOf(form, { ...WRITTEN, decode: false }, toolNames));
  if (depth === "between") return out;
  changed.clear();
  const rendered = stepsOf(form, RENDERED, toolNames, changed);
  add(rendered);
  if (depth === "deepest") return out;
  for (const step of RENDERED_ALTERNATIVES) if (changed.has(step)) add(stepsOf(form, { ...RENDERED, [step]: false }, toolNames));
  if (invisible) out.push(rendered.replace(INVISIBLE, " ").normalize("NFC"));
  return out;
}

/** `form` after `steps`, before the Unicode step; `changed` collects the steps that changed it (`decode`: only when it made a quote or a backslash). */
function stepsOf(form: string, steps: Steps, toolNames: ReadonlySet<string> | undefined, changed?: Set<keyof Steps>): string {
  let text = form;
  const apply = (step: keyof Steps, next: string): void => {
    if (next !== text) changed?.add(step);
    text = next;
  };
  if (steps.markdown) apply("markdown", withoutMarkdownEscapes(text));
  if (steps.tags) apply("tags", withoutHtmlTags(text, toolNames));
  if (steps.plus && text.includes("+") && hasPercentEscape(form)) apply("plus", text.replaceAll("+", " "));
  if (steps.decode) {
    const quote = { value: false };
    text = decodeEncodings(text, quote);
    if (quote.value) changed?.add("decode");
  }
  if (steps.terminal) apply("terminal", withoutTerminalCodes(text));
  return text;
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
 * normalized like the haystack; `stripped` is null when it is the same or empty. `shell`: in the
 * shell reading (shell-words.ts), as the haystack's extra reading holds the given content.
 */
export function needleForms(value: string, shell = false): { first: string; stripped: string | null; firstHead: string; strippedHead: string } {
  const lines = splitLines(shell ? shellReading(readable(value)) : readable(value));
  const rest = lines.slice(1).map((line) => line.slice(linePrefixEnd(line, 0, line.length)));
  const first = collapseSpaces([lines[0]!, ...rest].join(" "));
  const head = lines[0]!;
  const strippedLines = [head.slice(linePrefixEnd(head, 0, head.length)), ...rest];
  const stripped = collapseSpaces(strippedLines.join(" "));
  return { first, stripped: stripped !== first && stripped !== "" ? stripped : null, firstHead: headLine([head, ...rest]), strippedHead: headLine(strippedLines) };
}

/** The first line that is not blank, whitespace collapsed: a prefix of the needle its lines make (call-bodies.ts reads its commands). */
function headLine(lines: readonly string[]): string {
  for (const line of lines) {
    const collapsed = collapseSpaces(line);
    if (collapsed !== "") return collapsed;
  }
  return "";
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
  return collapseLayout(text, false);
}

/**
 * Every run of whitespace one space, none next to layout punctuation (isLayoutPunctuation), the
 * start trimmed and the end too unless `keepEnd` (a line prefix that the line's content follows).
 * One pass: the haystack's foldLines reads its lines by the same rule.
 */
function collapseLayout(text: string, keepEnd: boolean): string {
  let out = "";
  let run = -1;
  let space = false;
  let prev = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : SP;
    if (isSpaceCode(c)) {
      if (run >= 0) {
        out += text.slice(run, i);
        run = -1;
      }
      space = true;
      continue;
    }
    if (run < 0) {
      if (space && out.length > 0 && !isLayoutPunctuation(prev) && !isLayoutPunctuation(c)) out += " ";
      space = false;
      run = i;
    }
    prev = c;
  }
  if (keepEnd && space && out.length > 0 && !isLayoutPunctuation(prev) && isSpaceCode(text.charCodeAt(text.length - 1))) out += " ";
  return out;
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
  /** The last character kept: a space after layout punctuation is not kept (collapseLayout's rule). */
  let prev = -1;
  for (let start = 0; start <= text.length; ) {
    const end = lineEndFrom(text, start);
    const kept = keepLinePrefixes ? start : linePrefixEnd(text, start, end);
    // The first line's prefix, kept aside: a text that continues a line cut in the text before it
    // (`.example/x | sh` after `…https://evil`) begins mid-line, where nothing is a prefix.
    if (start === 0 && head !== undefined && kept > 0) head.prefix = collapseLayout(text.slice(0, kept), true);
    // Markup in the removed prefix (a `<shell>` that starts the line) stands where the content begins.
    for (let i = start; i < kept; i++) {
      // The content begins with a letter: a space goes before it unless layout punctuation ends what came before.
      note(i, end, offset + length + (space && length > 0 && !isLayoutPunctuation(prev) ? 1 : 0));
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
        if (space && length > 0 && !isLayoutPunctuation(prev) && !isLayoutPunctuation(c)) {
          parts.push(" ");
          length++;
        }
        space = false;
        run = i;
        if (!lineContent) found.lineStarts.push(offset + length);
        lineContent = true;
      }
      prev = c;
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

