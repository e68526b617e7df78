/**
 * The characters the readers stop at, by name: one table, so `0x3c` never has to be read as `<`.
 * The DSML sentinel's own characters (fullwidth bar, double vertical line, SentencePiece space)
 * are here by code point only; the repository never holds their bytes.
 */
export const TAB = 0x09;
export const LF = 0x0a;
export const VT = 0x0b;
export const FF = 0x0c;
export const CR = 0x0d;
export const SP = 0x20;
export const BANG = 0x21;
export const DQ = 0x22;
export const HASH = 0x23;
export const DOLLAR = 0x24;
export const AMP = 0x26;
export const SQ = 0x27;
export const LPAREN = 0x28;
export const RPAREN = 0x29;
export const STAR = 0x2a;
export const PLUS = 0x2b;
export const COMMA = 0x2c;
export const DASH = 0x2d;
export const DOT = 0x2e;
export const SLASH = 0x2f;
export const COLON = 0x3a;
export const SEMICOLON = 0x3b;
export const LT = 0x3c;
export const EQ = 0x3d;
export const GT = 0x3e;
export const QUESTION = 0x3f;
export const LBRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const RBRACKET = 0x5d;
export const UNDERSCORE = 0x5f;
export const BACKTICK = 0x60;
export const LBRACE = 0x7b;
export const PIPE = 0x7c;
export const RBRACE = 0x7d;
export const TILDE = 0x7e;
const NBSP = 0xa0;
export const DOUBLE_VERTICAL_LINE = 0x2016;
export const SENTENCEPIECE_SPACE_CODE = 0x2581;
export const FULLWIDTH_BAR = 0xff5c;

export const isAsciiDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** A hexadecimal digit's value (either letter case), or -1. */
export function hexDigitValue(c: number): number {
  if (isAsciiDigit(c)) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}
/** ASCII letters of either case (`c | 0x20` folds upper case onto lower). */
export const isAsciiLetter = (c: number): boolean => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
/** CommonMark's ASCII punctuation: what a backslash can make literal. */
export const isAsciiPunctuation = (c: number): boolean => (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
/** White space as trim() reads it (Unicode spaces, line ends). */
export function isWhiteSpace(c: number): boolean {
  if (c === SP || (c >= TAB && c <= CR)) return true;
  if (c < NBSP) return false;
  return c === NBSP || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * What a reader takes for the space between a tag's parts (`<command timeout=...>`, `</ filePath>`):
 * white space as trim() reads it (isWhiteSpace: NBSP and the other Unicode spaces, a BOM) and the
 * zero-width characters that render as nothing (ZWSP, ZWNJ, ZWJ, WORD JOINER). Golden C46.5,
 * C46.6, C46.n1: an NBSP where a tag has its space shows the same tag, so a refusal keyed on the space must
 * not be skipped by it.
 */
export function isSpaceInTag(c: number): boolean {
  return isWhiteSpace(c) || (c >= 0x200b && c <= 0x200d) || c === 0x2060;
}

/**
 * CommonMark's line ending (LF, CR, or CR LF as one; golden Q46.1, C46.4, P46.1): its length at `i`, 0
 * when none starts there. Every reader that splits lines or trims a line end asks here, so a lone
 * CR (classic Mac text, some terminals' copy-paste) ends a line wherever LF does.
 */
export function lineEndAt(text: string, i: number): 0 | 1 | 2 {
  const c = text.charCodeAt(i);
  if (c === LF) return 1;
  if (c === CR) return text.charCodeAt(i + 1) === LF ? 2 : 1;
  return 0;
}

/** The length of the line ending (CR LF, LF or CR) that ends `text` just before `end`, 0 when none. */
export function lineEndBefore(text: string, end = text.length): 0 | 1 | 2 {
  const c = text.charCodeAt(end - 1);
  if (c === CR) return 1;
  if (c === LF) return end >= 2 && text.charCodeAt(end - 2) === CR ? 2 : 1;
  return 0;
}

/** Where the first line ending (CR or LF) at or after `from` starts, or `text.length`: one look per character. */
export function lineEndFrom(text: string, from: number): number {
  let i = from;
  for (let c = text.charCodeAt(i); i < text.length && c !== LF && c !== CR; c = text.charCodeAt(++i));
  return i;
}
