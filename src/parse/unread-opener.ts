import { COLON, CR, DASH, DOT, DOUBLE_VERTICAL_LINE, DQ, EQ, FULLWIDTH_BAR, GT, isWhiteSpace, LF, LT, PIPE, SENTENCEPIECE_SPACE_CODE, SLASH, SP, SQ, TAB, UNDERSCORE } from "../grammar/chars.ts";
import { dsmlLike, isBarCode, isOpenerBarCode } from "../grammar/markers.ts";
import { NEED_MORE, readTag } from "../grammar/tags.ts";

// P03 by spelling (golden P48.6, P48.7, O48.1): a parameter opener the tag grammar reads as no tag, inside a value.
// The value's end is still found (a garbled closer at its end, P02; the invoke's or block's closer,
// P01; the value's own closer), so without this the value swallows the next parameter and the
// call runs with it (`rm -rf ./*` then `<{BAR}parameter name="workdir" ...>/tmp/scratch` as one
// command). Such a value refuses its call as a runaway (P03, O02 in Qwen3-Coder), as it does when
// the opener is a tag. Hand-written scanners (no new regex, docs/SECURITY.md): each start looks
// at a bounded number of characters, so a value is scanned in linear time.

const isLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isWordCode = (c: number) => isLetter(c) || (c >= 0x30 && c <= 0x39) || c === UNDERSCORE;
const isSentinelBar = (c: number) => c === FULLWIDTH_BAR || c === DOUBLE_VERTICAL_LINE;
/** A letter of a name outside ASCII (`répertoire`): no space, no bar, no DSML marker. */
const isWideLetter = (c: number) => c >= 0xc0 && !isWhiteSpace(c) && !isBarCode(c) && c !== SENTENCEPIECE_SPACE_CODE;
/**
 * The characters a degraded prefix may repeat: bars, `>` and `/` (dialects/dsml/garbled-closer.ts),
 * and in an opener the bars' lookalikes too (grammar/markers.ts isOpenerBarCode: text mode reads
 * `<\u2502parameter name=...>` as a parameter opener, so a value holding one is a runaway).
 */
const isPrefixCode = (c: number) => isOpenerBarCode(c) || c === GT || c === SLASH || c === SENTENCEPIECE_SPACE_CODE;
/** The first character of a degraded prefix after `<`: a bar or its lookalike, or U+2581 (the third DSML marker). */
const isPrefixStart = (c: number) => isOpenerBarCode(c) || c === SENTENCEPIECE_SPACE_CODE;

/**
 * Where the degraded prefix of an opener at `i` (a `<`) starts: right after the `<`, or past
 * `DSML` when its first bar was lost (`<DSML{BAR}parameter`).
 */
function prefixStart(s: string, i: number, to: number): number {
  return wordAt(s, i + 1, "dsml") && i + 5 < to && isOpenerBarCode(s.charCodeAt(i + 5)) ? i + 5 : i + 1;
}

/**
 * Whether the text at `i` (a `<`) may begin a parameter opener dsmlOpenerAt reads: `<` and a
 * prefix's first character, or `<DSML` and a bar; NEED_MORE while the text ends before that is
 * known. Text mode's stray watch (engine/stray-opener.ts) asks this before it reads the opener's
 * line, so the runaway rule and the stray watch take the same spellings, and the `<` of ordinary
 * markup (`<div>`, `<details>`) costs a comparison or five.
 */
export function mayStartUnreadOpener(s: string, i: number, final: boolean): boolean | typeof NEED_MORE {
  if (i + 1 >= s.length) return final ? false : NEED_MORE;
  if (isPrefixStart(s.charCodeAt(i + 1))) return true;
  const word = "dsml";
  for (let k = 0; k < word.length; k++) {
    if (i + 1 + k >= s.length) return final ? false : NEED_MORE;
    if ((s.charCodeAt(i + 1 + k) | 0x20) !== word.charCodeAt(k)) return false;
  }
  if (i + 5 >= s.length) return final ? false : NEED_MORE;
  return isOpenerBarCode(s.charCodeAt(i + 5));
}

/** Whether `word` (lower case) is written at `at`, any case. */
function wordAt(s: string, at: number, word: string): boolean {
  if (at + word.length > s.length) return false;
  for (let i = 0; i < word.length; i++) if ((s.charCodeAt(at + i) | 0x20) !== word.charCodeAt(i)) return false;
  return true;
}

/** Up to `max` prefix characters from `at`: where they end, or -1 when more follow (the closer's spelling allows no more). */
function prefixRun(s: string, at: number, to: number, max: number): number {
  let k = at;
  while (k < to && isPrefixCode(s.charCodeAt(k))) if (++k - at > max) return -1;
  return k;
}

/**
 * From the first bar at `bar`, a garbled closer's spelling without its `/`: that bar, up to 8
 * bars, `>` or `/`, an optional `DSML` and up to 8 more of those, a word starting with `param`
 * and at most 8 more letters. Where it ends, or -1. After a sentinel bar (never an ASCII `|`
 * alone: `f <| params` is F# or Elm) spaces may stand before the DSML word or `param`
 * (`<{BAR} parameter`, `<{BAR}DSML parameter`): a degraded stream's, no code's.
 */
function prefixedWordEnd(s: string, bar: number, to: number): number {
  const sentinel = s.charCodeAt(bar) !== PIPE;
  let k = prefixRun(s, bar + 1, to, 8);
  if (k < 0) return -1;
  if (sentinel) k = lineSpacesEnd(s, k, to);
  const word = sentinelWordEnd(s, k, to);
  if (word > 0) {
    k = prefixRun(s, word, to, 8);
    if (k < 0) return -1;
    if (sentinel) k = lineSpacesEnd(s, k, to);
  }
  if (k + 5 > to || !wordAt(s, k, "param")) return -1;
  k += 5;
  const letters = k;
  while (k < to && isLetter(s.charCodeAt(k))) if (++k - letters > 8) return -1;
  return k;
}

/**
 * Where the sentinel word from `k` ends, or -1: `DSML` (glued to what follows or not), or a word
 * spelled like it with one edit (`DSL`, `DMSL`, `DSMLL`: dsmlLike, as a garbled closer's) that a
 * bar or a space ends, so a degraded opener reads the same as the closer it pairs with.
 */
function sentinelWordEnd(s: string, k: number, to: number): number {
  let e = k;
  while (e < to && e - k < 6 && isAsciiLetter(s.charCodeAt(e))) e++;
  const ended = e < to && (isPrefixCode(s.charCodeAt(e)) || s.charCodeAt(e) === SP);
  if (ended && e - k >= 3 && e - k <= 5 && dsmlLike(s.slice(k, e))) return e;
  return wordAt(s, k, "dsml") && k + 4 <= to ? k + 4 : -1;
}

const isAsciiLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);

/**
 * A parameter name from `k`: a letter (any script) or `_`, then word characters, letters of any
 * script, `-` or `.` (`work-dir`, `work.dir`, `répertoire`); where it ends, or -1.
 */
function nameEnd(s: string, k: number, to: number): number {
  if (k >= to) return -1;
  const c = s.charCodeAt(k);
  if (!isLetter(c) && c !== UNDERSCORE && !isWideLetter(c)) return -1;
  while (k < to) {
    const d = s.charCodeAt(k);
    if (!isWordCode(d) && d !== DASH && d !== DOT && !isWideLetter(d)) break;
    k++;
  }
  return k;
}

const isLineSpace = (c: number) => c === SP || c === TAB;

/** Past the spaces and tabs from `k`. */
function lineSpacesEnd(s: string, k: number, to: number): number {
  while (k < to && isLineSpace(s.charCodeAt(k))) k++;
  return k;
}

/**
 * What follows an opener's word at `at` reads as a parameter opener's name, on the same
 * line: `=NAME` (spaces around the `=` allowed, the name quoted or not, then `>`, a space or the
 * line's end when unquoted), or attributes of which `name` holds a NAME (`name="workdir"`,
 * `name = "workdir"`, `string="true" name="workdir"`), the first of them on the word's line or the
 * next (`<{BAR}parameter` then `name="workdir">`). A template or a parser building the opener as
 * text (`'<parameter=' + k + '>'`, `name=" + k`) or notes about it (`<{BAR}parameter=...>`) are
 * no such opener. Bounded by the line (and that one line break).
 */
function nameFollows(s: string, at: number, to: number): boolean {
  let k = lineSpacesEnd(s, at, to);
  if (k < to && s.charCodeAt(k) === EQ) return valueIsName(s, k + 1, to, true);
  if (k < to && s.charCodeAt(k) === CR) k++;
  if (k < to && s.charCodeAt(k) === LF) k++;
  k = lineSpacesEnd(s, k, to);
  if (k === at) return false;
  for (let attrs = 0; attrs < 8; attrs++) {
    const end = nameEnd(s, k, to);
    if (end < 0) return false;
    const isName = end - k === 4 && wordAt(s, k, "name");
    k = end;
    while (k < to && isLineSpace(s.charCodeAt(k))) k++;
    if (k >= to || s.charCodeAt(k) !== EQ) return false;
    k++;
    if (isName) return valueIsName(s, k, to, true);
    // Another attribute's value: quoted on the line, or a bare word.
    while (k < to && isLineSpace(s.charCodeAt(k))) k++;
    const q = k < to ? s.charCodeAt(k) : -1;
    if (q === DQ || q === SQ) {
      k++;
      while (k < to && s.charCodeAt(k) !== q && s.charCodeAt(k) !== LF && s.charCodeAt(k) !== CR) k++;
      if (k >= to || s.charCodeAt(k) !== q) return false;
      k++;
    } else {
      while (k < to && !isLineSpace(s.charCodeAt(k)) && s.charCodeAt(k) !== GT && s.charCodeAt(k) !== LF && s.charCodeAt(k) !== CR) k++;
    }
    const spaced = k;
    while (k < to && isLineSpace(s.charCodeAt(k))) k++;
    if (k === spaced) return false;
  }
  return false;
}

/** From `k` (after the `=`): spaces (`spaces`), then a NAME, quoted and closed, or bare and followed by `>`, a space or the line's end. */
function valueIsName(s: string, k: number, to: number, spaces: boolean): boolean {
  if (spaces) while (k < to && isLineSpace(s.charCodeAt(k))) k++;
  const q = k < to ? s.charCodeAt(k) : -1;
  const quoted = q === DQ || q === SQ;
  const end = nameEnd(s, quoted ? k + 1 : k, to);
  if (end < 0) return false;
  const next = end < to ? s.charCodeAt(end) : LF;
  if (quoted) return next === q;
  return next === GT || next === LF || next === CR || isLineSpace(next) || next === SLASH;
}

/**
 * Every DSML parameter opener spelling whose closer the garbled-closer rule accepts (value-ends.ts
 * garbledCloserAt), so the two rules agree on the same tag: `<` then a bar (fullwidth, ASCII or
 * U+2016) and the rest of a closer's spelling, then no name character (`<{BAR}parameter
 * name=...>`, `<|parameter>`, `<{DVL}param=...`); the same with lookalike bars
 * (`<\u2502parameter name=...>`, `<\u2223DSML\u2223parameter name=...>`, which text mode reads as
 * openers too) or with the first bar lost (`<DSML{BAR}parameter name=...>`); or, its `<` lost, a
 * sentinel bar (never an ASCII `|` alone, a shell pipe) not glued to markup or a word before it (the second bar of
 * `<{D}parameter` is the tag's), the same spelling, then an attribute or `=`
 * (`{BAR}parameter name="workdir">`), which a closer never carries. No whitespace inside the
 * prefix, as in a closer: `f <| params` (F#, Elm) is code.
 */
function dsmlOpenerAt(s: string, i: number, from: number, to: number): boolean {
  const c = s.charCodeAt(i);
  if (c === LT) {
    if (i + 1 >= to) return false;
    const first = prefixStart(s, i, to);
    if (!isPrefixStart(s.charCodeAt(first))) return false;
    const end = prefixedWordEnd(s, first, to);
    if (end < 0) return false;
    const next = end < to ? s.charCodeAt(end) : -1;
    return !isWordCode(next) && next !== DASH && nameFollows(s, end, to);
  }
  if (!isSentinelBar(c)) return false;
  if (i > from) {
    const before = s.charCodeAt(i - 1);
    if (before === LT || before === GT || before === SLASH || isWordCode(before) || isBarCode(before)) return false;
  }
  const end = prefixedWordEnd(s, i, to);
  return end >= 0 && nameFollows(s, end, to);
}

/**
 * A Qwen3-Coder parameter opener (`<parameter=NAME>`) with a stray space or bar the tag grammar
 * does not read (`<parameter= workdir>`, `<parameter=workdir >`, `<{BAR}parameter=workdir>`): its
 * `</parameter>` closes the value as the walk reads it. `<`, up to two bars, `parameter` or
 * `param`, then `=`; spaces before the `=` count only at a line start (`echo <parameter =
 * description>x` is the value's text, review 44). Or `:` with the name right after it
 * (`<parameter:workdir>`, `<param:workdir>`), as `=`.
 */
function qwenOpenerAt(s: string, i: number, from: number, to: number, lineStart?: boolean): boolean {
  if (s.charCodeAt(i) !== LT) return false;
  let k = i + 1;
  while (k < to && isBarCode(s.charCodeAt(k)) && k - i <= 2) k++;
  if (k + 9 <= to && wordAt(s, k, "parameter")) k += 9;
  else if (k + 5 <= to && wordAt(s, k, "param")) k += 5;
  else return false;
  if (k < to && s.charCodeAt(k) === COLON) return valueIsName(s, k + 1, to, false);
  const spaces = k;
  k = lineSpacesEnd(s, k, to);
  if (k >= to || s.charCodeAt(k) !== EQ) return false;
  return (k === spaces || (lineStart ?? startsLine(s, i, from))) && valueIsName(s, k + 1, to, true);
}

/**
 * Where in `span[from, to)` (a value's text) a parameter opener of `kind` stands that the tag
 * grammar reads as no tag, or -1. A spelling it does read as a tag is no runaway here: the walk
 * read it as markup, or skipped it as text (an example written in the value). Linear in the value.
 */
export function unreadParameterOpenerIn(span: string, from: number, to: number, kind: "dsml" | "qwen"): number {
  const at = kind === "dsml" ? dsmlOpenerAt : qwenOpenerAt;
  for (let i = from; i < to; i++) {
    const c = span.charCodeAt(i);
    if (c !== LT && !isSentinelBar(c)) continue;
    if (at(span, i, from, to) && readTag(span, i, true) === null) return i;
  }
  return -1;
}

/**
 * A Qwen3-Coder parameter opener the tag grammar reads as no tag at `i` (qwenOpenerAt's rule:
 * `<param=workdir>`, `<param:workdir>`, `<parameter:workdir>`), in `span[i, to)` (its line):
 * text mode weighs it as a stray parameter, as the walk does inside a value (golden P47.15 for the
 * canonical spelling). `lineStart`: only spaces stand before it on its line (the documentation
 * context knows, across chunks), which lets spaces stand before the `=`.
 */
export function unreadQwenOpenerAt(span: string, i: number, to: number, lineStart: boolean): boolean {
  return qwenOpenerAt(span, i, i, to, lineStart) && readTag(span, i, true) === null;
}

/** Only spaces or tabs between the value's start or a line break and `at`. */
function startsLine(span: string, at: number, from: number): boolean {
  for (let i = at - 1; i >= from; i--) {
    const c = span.charCodeAt(i);
    if (c === LF || c === CR) return true;
    if (c !== SP && c !== TAB) return false;
  }
  return true;
}

/**
 * A DSML parameter opener whose `<` was lost at `i` (a sentinel bar, never an ASCII
 * `|`; `before` is the character before it, -1 for none), dsmlOpenerAt's rule, in `span[i, to)`
 * (its line): text mode weighs it as a stray parameter as unreadParameterOpenerIn does in a value.
 */
export function lostLtParameterOpenerAt(span: string, i: number, to: number, before: number): boolean {
  if (!isSentinelBar(span.charCodeAt(i))) return false;
  if (before === LT || before === GT || before === SLASH || isWordCode(before) || isBarCode(before)) return false;
  return dsmlOpenerAt(span, i, i, to) && readTag(span, i, true) === null;
}
