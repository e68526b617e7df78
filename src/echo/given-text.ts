/**
 * The forms in which the model may have read a given text: as written, with JSON string escapes
 * decoded (a tool result that is JSON carries a quoted file as `\n` and `\"`), and without the line
 * prefixes tools and Markdown put before each line. Every form is linear in the text.
 */
import { BACKSLASH, COLON, CR, DASH, DOUBLE_VERTICAL_LINE, FULLWIDTH_BAR, GT, LBRACE, LBRACKET, LF, LT, PIPE, SP, TAB, isAsciiDigit } from "../grammar/chars.ts";

/** A JSON document inside a JSON string (a tool that returns JSON of another tool's JSON) is decoded twice. */
const JSON_DEPTH = 2;

export function givenForms(text: string): string[] {
  const forms = [text];
  let decoded = text;
  for (let depth = 0; depth < JSON_DEPTH; depth++) {
    const next = decodeJsonEscapes(decoded);
    if (next === decoded) break;
    forms.push(next);
    decoded = next;
  }
  const count = forms.length;
  for (let i = 0; i < count; i++) {
    const stripped = stripLinePrefixes(forms[i]!);
    if (stripped !== forms[i]) forms.push(stripped);
  }
  return forms;
}

/** Whether a text holds a character that can start a marker (`<`, the bars, the `[` of Mistral and MiniMax, the `{` of a JSON call). */
export function mayHoldMarkup(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LT || c === PIPE || c === FULLWIDTH_BAR || c === DOUBLE_VERTICAL_LINE || c === LBRACKET || c === LBRACE) return true;
  }
  return false;
}

/**
 * The characters without which no form of a text the haystack reads holds one that starts a
 * marker: mayHoldMarkup's, plus what begins an encoding that decodes to one (`&` of an HTML
 * reference, `%` of a percent-escape, the backslash of a JSON escape). Keep in step with both.
 */
const QUOTE_STARTS = [LT, PIPE, FULLWIDTH_BAR, DOUBLE_VERTICAL_LINE, LBRACKET, LBRACE, 0x26, 0x25, BACKSLASH].map((c) => String.fromCharCode(c));

/**
 * Whether some form of `text` (JSON-unescaped, HTML- or percent-decoded) may hold markup: false
 * for base64 and other blobs, which the echo guard then never normalizes. Native scans, no
 * per-character loop, so a megabyte image costs little to rule out.
 */
export function mayHoldQuote(text: string): boolean {
  return QUOTE_STARTS.some((c) => text.includes(c));
}

/** JSON's escapes, and `\'` (Python literals, LFM2's call lists): a quote the model read as `'`. */
const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f", '"': '"', "'": "'", "\\": "\\", "/": "/" };

/**
 * JSON string escapes decoded wherever they stand: which quotes delimit a string literal does not
 * matter for what the model read, so no literal is paired. Anything that is not an escape stays.
 */
export function decodeJsonEscapes(text: string): string {
  let slash = text.indexOf("\\");
  if (slash < 0) return text;
  let out = "";
  let from = 0;
  while (slash >= 0 && slash + 1 < text.length) {
    const next = text[slash + 1]!;
    const simple = SIMPLE_ESCAPES[next];
    let decoded: string | undefined;
    let length = 2;
    if (simple !== undefined) decoded = simple;
    else if (next === "u" && isHex4(text, slash + 2)) {
      decoded = String.fromCharCode(Number.parseInt(text.slice(slash + 2, slash + 6), 16));
      length = 6;
    }
    if (decoded === undefined) {
      slash = text.indexOf("\\", slash + 1);
      continue;
    }
    out += text.slice(from, slash) + decoded;
    from = slash + length;
    slash = text.indexOf("\\", from);
  }
  return from === 0 ? text : out + text.slice(from);
}

function isHex4(s: string, at: number): boolean {
  if (at + 4 > s.length) return false;
  for (let i = at; i < at + 4; i++) {
    const c = s.charCodeAt(i) | 0x20;
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/**
 * Tools number the lines they return (OpenCode's read "12: ", `cat -n` "    12<TAB>", grep
 * "Line 12: ", `grep -n` "path:12:", older OpenCode "00012| ") and Markdown quotes them with "> ".
 * A model quoting such a text quotes it without those prefixes.
 */
export function stripLinePrefixes(text: string): string {
  let out = "";
  let changed = false;
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline + 1;
    const prefix = prefixLength(text, start, end);
    if (prefix > 0) changed = true;
    out += text.slice(start + prefix, end);
    start = end;
  }
  return changed ? out : text;
}

const MAX_LINE_NUMBER_DIGITS = 9;

function prefixLength(s: string, from: number, end: number): number {
  const gutter = gutterEnd(s, from, end);
  let i = gutter;
  // Blockquote markers, nested or not: "> ", ">> ", "> > ".
  for (let j = skipSpaces(s, i, end); j < end && s.charCodeAt(j) === GT; j = skipSpaces(s, i, end)) {
    i = j + 1;
    if (i < end && s.charCodeAt(i) === SP) i++;
  }
  return i - from;
}

/** Where a line-number gutter ends (`from` when there is none). */
export function gutterEnd(s: string, from: number, end: number): number {
  let i = skipSpaces(s, from, end);
  if (s.startsWith("Line ", i)) i += 5;
  const digits = i;
  i = skipDigits(s, i, end);
  if (i === digits) return grepPrefixEnd(s, from, end);
  if (i >= end) return from;
  const c = s.charCodeAt(i);
  if (c === TAB) return i + 1;
  if (c !== COLON && c !== PIPE) return from;
  i++;
  return i < end && s.charCodeAt(i) === SP ? i + 1 : i;
}

/** `grep -n` and ripgrep: "path:12:" on a match, "path-12-" on a context line. The path has no spaces. */
function grepPrefixEnd(s: string, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === SP || c === TAB || c === LF || c === CR) return from;
    if ((c !== COLON && c !== DASH) || i === from) continue;
    const after = skipDigits(s, i + 1, end);
    if (after > i + 1 && after < end && s.charCodeAt(after) === c) return after + 1;
  }
  return from;
}

function skipSpaces(s: string, i: number, end: number): number {
  while (i < end && (s.charCodeAt(i) === SP || s.charCodeAt(i) === TAB)) i++;
  return i;
}

function skipDigits(s: string, i: number, end: number): number {
  const start = i;
  while (i < end && i - start < MAX_LINE_NUMBER_DIGITS && isAsciiDigit(s.charCodeAt(i))) i++;
  return i;
}
