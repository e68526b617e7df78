/**
 * Linear substring search (KMP) for the echo guard, whose both sides are attacker-shaped text:
 * the failure table and firstAtOrAfter are shared with src/echo/search.ts and seam-search.ts.
 * createMarkupMatcher is the former byte net (whitespace-normalized markup occurring in the given
 * content); the guard now searches the reply's markup in its own normalized haystack instead.
 */
export function normalizeForEcho(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Markup shorter than this is too generic to call an echo. */
const MIN_ECHO = 8;
/** Identical calls in one reply are decided once; bounded because a reply can hold many calls. */
const MEMO_LIMIT = 64;

/**
 * Whether markup occurs in the given texts: O(given + markup) per markup, whatever the text. The
 * texts are normalized and joined once, the first time markup long enough to judge is asked about.
 * String.prototype.includes is O(given * markup) in the worst case (JavaScriptCore, measured).
 */
export function createMarkupMatcher(given: () => readonly string[]): (markup: string) => boolean {
  let haystack: string | null = null;
  const memo = new Map<string, boolean>();
  return (markup) => {
    const needle = normalizeForEcho(markup);
    if (needle.length < MIN_ECHO) return false;
    const known = memo.get(needle);
    if (known !== undefined) return known;
    haystack ??= given().map(normalizeForEcho).join("\u0000");
    const found = occursIn(haystack, needle);
    if (memo.size < MEMO_LIMIT) memo.set(needle, found);
    return found;
  };
}

/**
 * Knuth-Morris-Pratt: each haystack character is compared a bounded number of times. While no
 * prefix is matched, indexOf of one character skips ahead natively, which is linear too.
 */
export function occursIn(haystack: string, needle: string): boolean {
  const m = needle.length;
  if (m === 0) return true;
  if (m > haystack.length) return false;
  const fail = failureTable(needle);
  const first = needle[0]!;
  let k = 0;
  for (let i = 0; i < haystack.length; i++) {
    if (k === 0) {
      i = haystack.indexOf(first, i);
      if (i < 0 || haystack.length - i < m) return false;
      k = 1;
    } else {
      const c = haystack.charCodeAt(i);
      while (k > 0 && c !== needle.charCodeAt(k)) k = fail[k - 1]!;
      if (c === needle.charCodeAt(k)) k++;
    }
    if (k === m) return true;
  }
  return false;
}

export function failureTable(needle: string): Int32Array {
  const fail = new Int32Array(needle.length);
  let k = 0;
  for (let i = 1; i < needle.length; i++) {
    const c = needle.charCodeAt(i);
    while (k > 0 && c !== needle.charCodeAt(k)) k = fail[k - 1]!;
    if (c === needle.charCodeAt(k)) k++;
    fail[i] = k;
  }
  return fail;
}

/** Binary search: the index of the first markup position >= at. */
export function firstAtOrAfter(marks: readonly number[], at: number): number {
  let lo = 0;
  let hi = marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (marks[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
