import { DOUBLE_VERTICAL_LINE, FULLWIDTH_BAR } from "../grammar/chars.ts";

/**
 * What the hot path stops at (the engine's plain-delta check and its text mode): line ends (LF and
 * CR), every trigger character, and what changes documentation context mid-line: a backtick, `<`,
 * `[`, `]`, `$`, a backslash (doc-inline.ts). Everything else, mid-line with nothing held, is
 * released untouched. One byte per ASCII code; the two triggers past ASCII are compared directly.
 */
const STOP = new Uint8Array(0x80);
for (const c of "\n\r`<|[]$\\") STOP[c.charCodeAt(0)] = 1;

/** Index of the first character at or after `from` the hot path stops at, or -1. */
export function stopAt(s: string, from: number): number {
  for (let k = from; k < s.length; k++) {
    const b = s.charCodeAt(k);
    if (b < 0x80 ? STOP[b] === 1 : b === FULLWIDTH_BAR || b === DOUBLE_VERTICAL_LINE) return k;
  }
  return -1;
}
