import { DOUBLE_VERTICAL_LINE, FULLWIDTH_BAR, GT, isWhiteSpace, LT, SLASH } from "../../../grammar/chars.ts";
import { dsmlLike, isBarCode } from "../../../grammar/markers.ts";

// P02: a garbled parameter closer at a value's end. A hand-written scanner (docs/SECURITY.md: no
// new regex), bounded to the value's last 64 characters before its trailing layout, so a value is
// read in constant work here.
//
// Review 50 (leaks): the closer's sentinel word is garbled as often as its bars (`DSL`, `DSM`,
// `DMSL`, a lost first bar `</DSML{BAR}`, a doubled `/`). The closer is cut where it starts (its
// `<`, with any `/`), never at a later bar inside it: a value must never end in a partial closer
// (`ls -la</{BAR}DSL` run as a command). Where a closer led by a bare bar may have started earlier
// (a DSML-like word or a `/` glued before its bar), the start is unclear and the call is refused.

const isSentinelBar = (c: number) => c === FULLWIDTH_BAR || c === DOUBLE_VERTICAL_LINE;
/** What a closer's head repeats around its sentinel word: bars, `>` and `/`. */
const isHeadCode = (c: number) => isBarCode(c) || c === GT || c === SLASH;
const isLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
/** Words spelled like `parameter`, cut short or with one letter lost; never a plural (`parameters`, `params`). */
const PARAMETER_LIKE: ReadonlySet<string> = new Set(["param", "parame", "paramet", "paramete", "parameter", "parametr", "paramter", "paramer"]);


/** Whether `param` (any case) is written at `at`. */
function paramAt(s: string, at: number): boolean {
  if (at + 5 > s.length) return false;
  for (let i = 0; i < 5; i++) if ((s.charCodeAt(at + i) | 0x20) !== "param".charCodeAt(i)) return false;
  return true;
}

/** Up to `max` head characters from `at`: where they end, or -1 when more follow. */
function headRun(s: string, at: number, max: number): number {
  let k = at;
  while (k < s.length && isHeadCode(s.charCodeAt(k))) if (++k - at > max) return -1;
  return k;
}

type Read = { bar: boolean; word: boolean; gt: boolean; param: string };

/**
 * A garbled closer from `i` to the end of `s` (only layout after it): `<` or a sentinel bar; bars,
 * `>` or `/` (up to 10); an optional DSML-like word and up to 8 more of those; a word starting with
 * `param` and at most 8 more letters; an optional `>`. Null when `s` from `i` is no such closer.
 */
function readCloser(s: string, i: number): Read | null {
  const led = s.charCodeAt(i) === LT;
  if (!led && !isSentinelBar(s.charCodeAt(i))) return null;
  const first = led ? i + 1 : i;
  let k = headRun(s, first, 10);
  if (k < 0) return null;
  let word = false;
  if (!paramAt(s, k)) {
    // The sentinel word, its bars lost on either side or not (`</DSMLparameter>` keeps none).
    let end = k;
    while (end < s.length && isLetter(s.charCodeAt(end)) && end - k < 6 && !(end - k >= 3 && paramAt(s, end))) end++;
    if (!dsmlLike(s.slice(k, end))) return null;
    word = true;
    const after = headRun(s, end, 8);
    if (after < 0 || !paramAt(s, after)) return null;
    k = after;
  }
  const head = s.slice(first, k);
  const wordStart = k;
  k += 5;
  while (k < s.length && isLetter(s.charCodeAt(k))) if (++k - wordStart > 13) return null;
  const param = s.slice(wordStart, k).toLowerCase();
  let gt = head.includes(">");
  if (k < s.length && s.charCodeAt(k) === GT) {
    gt = true;
    k++;
  }
  for (; k < s.length; k++) if (!isWhiteSpace(s.charCodeAt(k))) return null;
  let bar = false;
  for (let j = 0; j < head.length; j++) bar ||= isBarCode(head.charCodeAt(j));
  return { bar: bar || !led, word, gt, param };
}

/**
 * P02: where a garbled parameter closer starts at the end of a value, or null. `unclear`: where it
 * starts cannot be told (a closer led by a bare bar with a DSML-like word or a `/` glued before
 * it, `ls -la/DSL{BAR}parameter>`); the call is refused (walk.ts).
 *
 * It starts with a sentinel bar (fullwidth U+FF5C or U+2016) or with `<`: an ASCII `|` alone is a
 * shell pipe (`make | paramfix`), not a closer; one led by `<` shows a bar or a DSML-like word
 * (`<b>param` is no closer). No whitespace inside it (`名称 {BAR} parameters` is a table cell), and
 * one led by a bare sentinel bar shows markup (a `>` or a DSML-like word in it,
 * `{BAR}>{BAR}parameter`, `{DVL}parameter>`) or is glued to the value and spelled like `parameter`
 * (`{BAR}param`): a bar after a space, or before an ordinary word (`{BAR}parameters`), is the
 * value's text, kept. The leftmost start that reads as a closer is the one judged.
 */
export function garbledCloser(value: string): { at: number; unclear: boolean } | null {
  let end = value.length;
  while (end > 0 && isWhiteSpace(value.charCodeAt(end - 1))) end--;
  // The last 64 characters, and the few before them that may show where a closer started.
  const base = Math.max(0, end - 72);
  const s = value.slice(base, end);
  for (let i = Math.max(0, s.length - 64); i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== LT && !isSentinelBar(c)) continue;
    const r = readCloser(s, i);
    if (!r) continue;
    if (c === LT) return r.bar || r.word ? { at: base + i, unclear: false } : null;
    const glued = base + i === 0 || !isWhiteSpace(s.charCodeAt(i - 1));
    if (!r.gt && !r.word && !(glued && PARAMETER_LIKE.has(r.param))) return null;
    return { at: base + i, unclear: i > 0 && startsBefore(s, i) };
  }
  return null;
}

/**
 * A closer's lost start before its first bar: glued to it, a `/`, `<` or a letter run ending in a
 * DSML-like word (`/DSL{BAR}parameter>`, `DSL{BAR}parameter>`); a space apart, the same after a
 * closer's head (`</{BAR}DSL {BAR}parameter>`), never a word of prose (`the DSL {BAR}...`).
 */
function startsBefore(s: string, at: number): boolean {
  let k = at;
  while (k > 0 && at - k < 3 && (s.charCodeAt(k - 1) === 0x20 || s.charCodeAt(k - 1) === 0x09)) k--;
  const spaced = k < at;
  if (k === 0) return false;
  const c = s.charCodeAt(k - 1);
  if (c === SLASH || c === LT || (spaced && isHeadCode(c))) return true;
  for (let n = 3; n <= 5 && n <= k; n++) {
    const from = k - n;
    let letters = true;
    for (let j = from; j < k; j++) letters &&= isLetter(s.charCodeAt(j));
    if (!letters) break;
    if (!dsmlLike(s.slice(from, k))) continue;
    if (!spaced) return true;
    const before = from > 0 ? s.charCodeAt(from - 1) : -1;
    if (before === LT || isHeadCode(before)) return true;
  }
  return false;
}

/** The start of a garbled closer at the value's end (garbledCloser), or -1. */
export function garbledCloserAt(value: string): number {
  return garbledCloser(value)?.at ?? -1;
}

/**
 * A parameter closer tag that lost its `<` (read from its `/`, `<//{D}parameter>`) whose `<` stands
 * a few head characters before it: where the closer starts, the `<`, so the value keeps no `</`
 * (review 50). `at` otherwise. `from`: the value's start.
 */
export function closerHeadStart(span: string, from: number, at: number): number {
  if (span.charCodeAt(at) === LT) return at;
  let k = at;
  while (k > from && at - k < 10 && isHeadCode(span.charCodeAt(k - 1))) k--;
  return k > from && k < at && span.charCodeAt(k - 1) === LT ? k - 1 : at;
}
