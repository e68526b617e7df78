/**
 * Terminal control sequences (ECMA-48: colour codes, OSC strings), which a terminal shows as
 * nothing, and backspace overstrike (man pages' bold and underline), which it shows as one character. Given content often holds them (`grep --color=always`, `git diff --color`), and the
 * model repeats what the terminal showed, so the echo guard reads such content without them too
 * (given-content.ts). Its own file: a small ECMA-48 scanner with no bearing on markup.
 */
import { BACKSLASH, LBRACKET } from "../grammar/chars.ts";

const ESC = 0x1b;
const BEL = 0x07;
const DEL = 0x7f;
/** The 8-bit forms of CSI, OSC and ST. */
const C1_CSI = 0x9b;
const C1_OSC = 0x9d;
const C1_ST = 0x9c;
/** After ESC: the strings ended by ST (or BEL): DCS `P`, SOS `X`, OSC `]`, PM `^`, APC `_`. */
const STRING_INTRODUCERS = "PX]^_";

/**
 * `text` without its terminal control sequences (ECMA-48), which a terminal shows as nothing: CSI
 * (`ESC [`, parameter bytes, intermediate bytes, a final byte; SGR colours are these), the control
 * strings (OSC `ESC ]` and DCS, SOS, PM, APC) up to BEL or ST, and the other escape sequences
 * (`ESC ( B`, `ESC 7`); their 8-bit CSI and OSC forms too. What is not a whole sequence stays as
 * written. Linear: a sequence's scan stops at the next control character, where the next scan
 * may begin. Then backspace overstrike (`c BS c` bold, `_ BS c` underline) as the terminal shows it.
 */
export function withoutTerminalCodes(text: string): string {
  return withoutOverstrike(withoutControlSequences(text));
}

function withoutControlSequences(text: string): string {
  if (!(text.includes("\u001b") || text.includes("\u009b") || text.includes("\u009d"))) return text;
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== ESC && c !== C1_CSI && c !== C1_OSC) continue;
    const end = controlSequenceEnd(text, i);
    if (end < 0) continue;
    out += text.slice(from, i);
    from = end;
    i = end - 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Where the terminal control sequence that begins at `i` ends (exclusive), or -1 when none does. */
function controlSequenceEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === C1_CSI) return csiEnd(s, i + 1);
  if (c === C1_OSC) return controlStringEnd(s, i + 1);
  const next = s.charCodeAt(i + 1);
  if (next === LBRACKET) return csiEnd(s, i + 2);
  if (i + 1 < s.length && STRING_INTRODUCERS.includes(s[i + 1]!)) return controlStringEnd(s, i + 2);
  let j = i + 1;
  while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
  const final = s.charCodeAt(j);
  return final >= 0x30 && final <= 0x7e ? j + 1 : -1;
}

/** A CSI's parameter bytes, intermediate bytes and final byte from `j`. */
function csiEnd(s: string, j: number): number {
  while (j < s.length && s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x3f) j++;
  while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
  const final = s.charCodeAt(j);
  return final >= 0x40 && final <= 0x7e ? j + 1 : -1;
}

/** A control string's characters from `j` up to BEL or ST (`ESC \`, or its 8-bit form); any other control character ends it unread. */
function controlStringEnd(s: string, j: number): number {
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === BEL || c === C1_ST) return j + 1;
    if (c === ESC) return s.charCodeAt(j + 1) === BACKSLASH ? j + 2 : -1;
    if (c < 0x20 || c === DEL) return -1;
  }
  return -1;
}

const BS = 0x08;
const UNDERSCORE = 0x5f;

/**
 * Backspace overstrike as a terminal shows it: `man`, `nroff` and `ul` write bold as `c BS c` and
 * underline as `_ BS c`; a terminal shows one `c`, and the model repeats `c`. `X BS Y` reads as
 * `Y`, or as `X` when `Y` is the underline `_` (`c BS _`); chains (`_ BS c BS c`) fold left to
 * right. A backspace with no character before it on its line, or none after it, stays as written.
 * One pass, linear.
 */
function withoutOverstrike(text: string): string {
  let bs = text.indexOf("\b");
  if (bs < 0) return text;
  const out: string[] = [];
  let from = 0;
  /** Where the last fold ended: a backspace right there overstrikes the character it showed (a chain). */
  let foldEnd = -1;
  for (; bs >= 0; bs = text.indexOf("\b", bs + 1)) {
    const chained = bs === foldEnd;
    const prev = chained ? out[out.length - 1]!.charCodeAt(0) : bs > from ? text.charCodeAt(bs - 1) : -1;
    const next = bs + 1 < text.length ? text.charCodeAt(bs + 1) : -1;
    if (!shows(prev) || !shows(next)) continue;
    const shown = String.fromCharCode(next === UNDERSCORE ? prev : next);
    if (chained) out[out.length - 1] = shown;
    else out.push(text.slice(from, bs - 1), shown);
    from = foldEnd = bs + 2;
  }
  out.push(text.slice(from));
  return out.join("");
}

/** A character that overstrike can show: printable, one code unit (no line end, no control, no surrogate half). */
function shows(c: number): boolean {
  return c >= 0x20 && c !== DEL && !(c >= 0x80 && c < 0xa0) && !(c >= 0xd800 && c <= 0xdfff);
}
