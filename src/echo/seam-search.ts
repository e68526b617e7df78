// The echo search across a seam between two given texts (a value a file read in two parts cut in
// half), apart from search.ts's search inside one text: its own KMP passes, forwards over the
// first text's tail and backwards over the second's head.
import { failureTable, firstAtOrAfter } from "./linear-search.ts";
import type { GivenHaystack } from "./given-content.ts";
import { isAlnumAt } from "./letters.ts";
import { SP } from "../grammar/chars.ts";

/**
 * Whether `needle` is cut between two consecutive given texts A and B (a file read in two parts at
 * an offset, a message or tool result of two text parts): needle = P + S, or P + " " + S (the cut
 * at a line break), where P ends a line of A and S begins a line of B, P's start and S's end
 * delimited like a whole token; both within reach of the seam (A's last and B's first `room`,
 * search.ts's window plus its longest markup token, plus the needle's length: room for a tool's
 * trailer such as "(File has more lines…)"), and the seam inside a quote: A's last markup an
 * opener within that reach, P after it (seamQuote). A coincidental split of a value the texts
 * quoted is a false refusal, never a wrong execution. A value cut over three texts or more is
 * not looked for.
 *
 * Work: per seam inside a quote, one KMP pass over A's tail and one (of the reversed needle)
 * over B's head, both at most the reach, plus the failure chains at line ends; per form, a
 * constant; per call, the needle's tables once. All of it is counted in `cost`, so the scan
 * budget bounds it. The tables of prefix and suffix lengths found are never cleared per seam
 * (that cost seams times the needle's length, uncounted): an entry holds the stamp of the seam
 * that set it, and only the prefix lengths a seam found are checked.
 */
export function acrossSeam(hay: GivenHaystack, needle: string, room: number, cost: { scanned: number }): boolean {
  const m = needle.length;
  if (m < 2 || hay.groups < 2) return false;
  const reach = room + m;
  const fail = failureTable(needle);
  // A surrogate pair reversed is two lone surrogates: compared code unit by code unit, the same on both sides.
  const reversedUnits = Array.from({ length: m }, (_, i) => needle.charCodeAt(m - 1 - i));
  const rfail = failureTableOf(reversedUnits);
  const startsAlnum = isAlnumAt(needle, 0);
  const endsAlnum = isAlnumAt(needle, m - 1);
  // Stamped with the seam that found the length (0: none yet); `found` lists the prefix lengths this seam found.
  const prefixes = new Int32Array(m + 1);
  const suffixes = new Int32Array(m + 1);
  const found: number[] = [];
  let stamp = 0;
  cost.scanned += 4 * (m + 1);
  const forms = hay.forms;
  // Forms are in order of their group: A's forms are [a, b), B's [after, c) (past any joined texts' forms between).
  for (let a = 0; a < forms.length; ) {
    const group = forms[a]!.group;
    let b = a;
    while (b < forms.length && forms[b]!.group === group) b++;
    // Texts read joined (group -1, given-content.ts appendToHaystack) stand after the texts they join: no seam of theirs.
    if (group < 0) {
      cost.scanned += b - a;
      a = b;
      continue;
    }
    let after = b;
    while (after < forms.length && forms[after]!.group < 0) after++;
    let c = after;
    while (c < forms.length && forms[c]!.group === group + 1) c++;
    // The seam counts only inside a quote the first text opened and left open (seamQuote).
    let open = false;
    cost.scanned += c - a;
    for (let f = a; f < b && !open; f++) open = seamQuote(hay, forms[f]!, reach) >= 0;
    if (c > after && open) {
      stamp++;
      found.length = 0;
      for (let f = a; f < b; f++) {
        const form = forms[f]!;
        const quote = seamQuote(hay, form, reach);
        if (quote < 0) continue;
        lineEndPrefixes(hay, needle, fail, Math.max(quote, form.end - reach), form.end, form.start, startsAlnum, { lengths: prefixes, stamp, found }, cost);
      }
      if (found.length > 0) {
        for (let f = after; f < c; f++) {
          const form = forms[f]!;
          lineStartSuffixes(hay, reversedUnits, rfail, form, Math.min(form.end, form.start + reach), endsAlnum, { lengths: suffixes, stamp }, cost);
        }
      }
      cost.scanned += found.length;
      for (const p of found) {
        if (p >= m) continue;
        if (suffixes[m - p] === stamp) return true;
        if (needle.charCodeAt(p) === SP && p + 1 < m && suffixes[m - p - 1] === stamp) return true;
      }
    }
    a = b;
  }
  return false;
}

/**
 * Where the quote that encloses the seam after `form` (a form of the first text) opens: its last
 * markup is an opener (a call or costume opener, not a closer) within reach of its end, so the
 * text runs on past the seam inside that quote's value, as a file read in two parts cuts a
 * quoted command. -1 when there is none: a value made of the first text's last word and the next
 * text's first (an example call closed earlier in a doc, then a grep listing) was never quoted
 * across the seam, and the model's own call runs. Only the part of the form after the opener is
 * searched for the value's first half.
 */
function seamQuote(hay: GivenHaystack, form: GivenHaystack["forms"][number], reach: number): number {
  const k = firstAtOrAfter(hay.markup, form.end) - 1;
  if (k < 0) return -1;
  const at = hay.markup[k]!;
  return at >= form.start && at >= form.end - reach && hay.closes[k] === false ? at : -1;
}

/** Lengths found at one seam: `lengths[L] === stamp` when length L was; `found` (prefixes) lists each once. */
interface Marks {
  lengths: Int32Array;
  stamp: number;
  found?: number[];
}

function markLength(out: Marks, len: number): void {
  if (out.lengths[len] === out.stamp) return;
  out.lengths[len] = out.stamp;
  out.found?.push(len);
}

/** Marks in `out` every length L such that needle[0, L) ends a given line in [from, to), its start delimited. */
function lineEndPrefixes(hay: GivenHaystack, needle: string, fail: Int32Array, from: number, to: number, formStart: number, startsAlnum: boolean, out: Marks, cost: { scanned: number }): void {
  const text = hay.text;
  const ends = hay.lineEnds;
  let e = firstAtOrAfter(ends, from + 1);
  const m = needle.length;
  let k = 0;
  cost.scanned += to - from;
  for (let i = from; i < to && e < ends.length && ends[e]! <= to; i++) {
    const ch = text.charCodeAt(i);
    while (k > 0 && (k === m || ch !== needle.charCodeAt(k))) k = fail[k - 1]!;
    if (ch === needle.charCodeAt(k)) k++;
    while (e < ends.length && ends[e]! < i + 1) e++;
    if (e >= ends.length || ends[e] !== i + 1) continue;
    for (let len = k; len > 0; len = fail[len - 1]!) {
      cost.scanned++;
      const start = i + 1 - len;
      if (!startsAlnum || start === formStart || !isAlnumAt(text, start - 1)) markLength(out, len);
    }
  }
}

/**
 * Marks in `out` every length S such that needle's last S characters begin a given line in the
 * form's head [form.start, to), their end delimited. The form's first line is read with its prefix
 * too (form.head): the text may begin mid-line, continuing a line the text before it cut.
 */
function lineStartSuffixes(hay: GivenHaystack, reversed: readonly number[], fail: Int32Array, form: GivenHaystack["forms"][number], to: number, endsAlnum: boolean, out: Marks, cost: { scanned: number }): void {
  const text = hay.text;
  const from = form.start;
  const starts = hay.lineStarts;
  let s = firstAtOrAfter(starts, to) - 1;
  const m = reversed.length;
  let k = 0;
  cost.scanned += to - from + form.head.length;
  const mark = (start: number, length: number, charAfter: (len: number) => number) => {
    for (let len = length; len > 0; len = fail[len - 1]!) {
      cost.scanned++;
      const end = start + len;
      if (!endsAlnum || end === form.end || !isAlnumCode(charAfter(len))) markLength(out, len);
    }
  };
  for (let i = to - 1; i >= from; i--) {
    const ch = text.charCodeAt(i);
    while (k > 0 && (k === m || ch !== reversed[k])) k = fail[k - 1]!;
    if (ch === reversed[k]) k++;
    while (s >= 0 && starts[s]! > i) s--;
    if (s < 0 || starts[s] !== i) continue;
    mark(i, k, (len) => text.charCodeAt(i + len));
  }
  if (form.head === "") return;
  // On into the first line's prefix, right to left: where it begins, the line as written begins.
  const head = form.head;
  for (let i = head.length - 1; i >= 0; i--) {
    const ch = head.charCodeAt(i);
    while (k > 0 && (k === m || ch !== reversed[k])) k = fail[k - 1]!;
    if (ch === reversed[k]) k++;
  }
  const line = head + text.slice(from, Math.min(form.end, from + m + 1));
  mark(0, k, (len) => line.charCodeAt(len));
}

function isAlnumCode(c: number): boolean {
  return Number.isNaN(c) ? false : isAlnumAt(String.fromCharCode(c), 0);
}

function failureTableOf(units: readonly number[]): Int32Array {
  const fail = new Int32Array(units.length);
  let k = 0;
  for (let i = 1; i < units.length; i++) {
    while (k > 0 && units[i] !== units[k]) k = fail[k - 1]!;
    if (units[i] === units[k]) k++;
    fail[i] = k;
  }
  return fail;
}
