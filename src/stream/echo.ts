/**
 * The echo guard's matcher. Content the model was given (tool results, user and system text) is
 * normalized once, lazily, the first time a call is about to be recovered: the passthrough path
 * never pays for it. Both sides are attacker-shaped text, so the search is linear (KMP).
 */
export function normalizeForEcho(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Markup shorter than this is too generic to call an echo. */
const MIN_ECHO = 8;
/** Identical calls in one reply are decided once; bounded because a reply can hold many calls. */
const MEMO_LIMIT = 64;

/**
 * The matcher handed to the engine as `isEchoed`: O(given + markup) per call, whatever the text.
 * String.prototype.includes is O(given * markup) in the worst case (JavaScriptCore, measured).
 */
export function createEchoGuard(given: () => readonly string[]): (markup: string) => boolean {
  let haystack: string | null = null;
  const memo = new Map<string, boolean>();
  return (markup) => {
    const needle = normalizeForEcho(markup);
    if (needle.length < MIN_ECHO) return false;
    const known = memo.get(needle);
    if (known !== undefined) return known;
    haystack ??= withoutGutters([...given()]).map(normalizeForEcho).join("\u0000");
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

function failureTable(needle: string): Int32Array {
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

/**
 * Tools number the lines they return (OpenCode's read "12: ", `cat -n` "    12<TAB>", grep
 * "Line 12: ", older "00012| "). A model quoting a file quotes it without that gutter, so each
 * numbered text is also given without it.
 */
function withoutGutters(given: string[]): string[] {
  const count = given.length;
  for (let i = 0; i < count; i++) {
    const stripped = stripLineGutters(given[i]!);
    if (stripped !== given[i]) given.push(stripped);
  }
  return given;
}

export function stripLineGutters(text: string): string {
  let out = "";
  let changed = false;
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline + 1;
    const gutter = gutterLength(text, start, end);
    if (gutter > 0) changed = true;
    out += text.slice(start + gutter, end);
    start = end;
  }
  return changed ? out : text;
}

const MAX_LINE_NUMBER_DIGITS = 9;

function gutterLength(s: string, from: number, end: number): number {
  let i = from;
  while (i < end && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09)) i++;
  if (s.startsWith("Line ", i)) i += 5;
  const digits = i;
  while (i < end && i - digits < MAX_LINE_NUMBER_DIGITS && isDigit(s.charCodeAt(i))) i++;
  if (i === digits || i >= end) return 0;
  const c = s.charCodeAt(i);
  if (c === 0x09) return i + 1 - from;
  if (c !== 0x3a && c !== 0x7c) return 0;
  i++;
  return (i < end && s.charCodeAt(i) === 0x20 ? i + 1 : i) - from;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
