import { NEED_MORE } from "./tags.ts";
import { CR, LF, LT, SP, TAB } from "./chars.ts";

/**
 * Words models leave on a line of their own right before a Claude-style `<invoke>` whose wrapper
 * was lost (issue 29 item 7): what remains of `<function_calls>`. Lower case and exact: a
 * paragraph of prose does not start with one of them alone on its line.
 */
const STRAY_WORDS = ["call", "calls", "count"];
const LONGEST = Math.max(...STRAY_WORDS.map((w) => w.length));
/** Spaces or tabs after the word, and indentation before the next line's `<` (more is indented code). */
const MAX_TRAILING = 8;
const MAX_INDENT = 3;

/** Whether `c` can begin a stray wrapper line: the engine asks only at the start of a paragraph. */
export function mayStartStrayLine(c: number): boolean {
  return c === 0x63;
}

/**
 * Reads a stray wrapper line at `start`: one of STRAY_WORDS, optional spaces, a line end, then up
 * to three spaces. Returns where the next line's `<` is (the engine reads the invoke there), null
 * when this is no such line, or NEED_MORE when `text` ends before that is decided. Linear, and it
 * never looks past LONGEST + MAX_TRAILING + MAX_INDENT + 3 characters.
 */
export function readStrayLine(text: string, start: number, final: boolean): number | null | typeof NEED_MORE {
  const more = final ? null : NEED_MORE;
  let k = start;
  while (k < text.length && k - start <= LONGEST && isLower(text.charCodeAt(k))) k++;
  const word = text.slice(start, k);
  if (k === text.length) return STRAY_WORDS.some((w) => w.startsWith(word)) ? more : null;
  if (!STRAY_WORDS.includes(word)) return null;
  const wordEnd = k;
  while (k < text.length && k - wordEnd < MAX_TRAILING && isBlank(text.charCodeAt(k))) k++;
  if (k === text.length) return more;
  // The line ends at LF, CR LF or a lone CR.
  if (text.charCodeAt(k) === CR) {
    if (++k === text.length) return more;
    if (text.charCodeAt(k) === LF) k++;
  } else if (text.charCodeAt(k) === LF) k++;
  else return null;
  const lineStart = k;
  while (k < text.length && k - lineStart < MAX_INDENT && text.charCodeAt(k) === SP) k++;
  if (k === text.length) return more;
  return text.charCodeAt(k) === LT ? k : null;
}

const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isBlank = (c: number) => c === SP || c === TAB;
