/**
 * Letters and whole-token characters as the echo guard reads them (Unicode, combining marks with the
 * letters): where a line prefix ends, where a token begins and ends. Its own file so the markup
 * reader (given-markup.ts) and the haystack (given-content.ts) share it.
 */
import { isAsciiDigit, isAsciiLetter } from "../grammar/chars.ts";

/**
 * A combining mark counts with the letters: it belongs to the character before it, so it continues
 * a token (`cafe` + U+0301 holds no whole token `cafe`) and ends no word.
 */
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const LETTER_DIGIT_OR_MARK = /[\p{L}\p{N}\p{M}]/u;

/** A letter, or a combining mark (which belongs to the character before it). */
export function isLetterAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) return isAsciiLetter(c);
  return LETTER_OR_MARK.test(String.fromCodePoint(s.codePointAt(i)!));
}

/** A letter, a digit, or a combining mark (which belongs to the character before it): the characters a whole token is made of. */
export function isAlnumAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) return isAsciiLetter(c) || isAsciiDigit(c);
  // A low surrogate belongs to the character before it.
  const at = c >= 0xdc00 && c <= 0xdfff && i > 0 ? i - 1 : i;
  return LETTER_DIGIT_OR_MARK.test(String.fromCodePoint(s.codePointAt(at)!));
}
