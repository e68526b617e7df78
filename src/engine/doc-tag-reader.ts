/**
 * The raw HTML tag reader of an inline `<` attempt (doc-tag-attempt.ts): an open tag, a closing
 * tag, and the openers of a comment, a processing instruction, a declaration or CDATA, read
 * character by character as commonmark.js's parseHtmlTag matches them.
 *
 * White space inside a tag is JavaScript's `\s` (isWhiteSpace: also U+00A0 and the other Unicode
 * spaces, vertical tab, form feed), as commonmark.js matches it, where the 0.31 spec text allows
 * only space, tab and a line ending: where either reading makes a tag, it is raw HTML
 * (documentation), the safe side. In an unquoted attribute value a Unicode space may also be
 * part of the value (only ASCII controls and space end one), so both readings are followed: the
 * tag reader is a set of live states (a bit mask), two where they part.
 */
import {
  BACKTICK,
  BANG,
  COLON,
  DASH,
  DOT,
  DQ,
  EQ,
  GT,
  LBRACKET,
  LT,
  QUESTION,
  SLASH,
  SP,
  SQ,
  UNDERSCORE,
  isAsciiDigit,
  isAsciiLetter,
  isWhiteSpace,
} from "../grammar/chars.ts";

/** States of a raw HTML tag being read (bit positions in a mask of live states: a Unicode space in an unquoted value goes on with two). */
export const S = {
  Lt: 0,
  Bang: 1,
  BangDash: 2,
  Cdata: 3,
  Name: 4,
  AttrSep: 5,
  AttrName: 6,
  AfterAttr: 7,
  BeforeValue: 8,
  Unquoted: 9,
  Double: 10,
  Single: 11,
  AfterValue: 12,
  SelfClose: 13,
  CloseStart: 14,
  CloseName: 15,
  CloseWs: 16,
} as const;
export const bit = (s: number) => 1 << s;
/** An open or closing tag is complete. */
export const DONE = -2;
/** A comment, processing instruction, declaration or CDATA opened: its end string is looked for. */
export const BODY = -3;
/** States in which the attempt may still be an open or closing tag (not a `<!` form; a lone `<` may be either). */
export const TAG_STATES = ~(bit(S.Bang) | bit(S.BangDash) | bit(S.Cdata));

const CDATA = "[CDATA[";

export const isAlnum = (c: number) => isAsciiLetter(c) || isAsciiDigit(c);
/** An unquoted attribute value's character (commonmark.js: `[^"'=<>`\x00-\x20]`). */
const isUnquoted = (c: number) => c > SP && c !== DQ && c !== SQ && c !== EQ && c !== LT && c !== GT && c !== BACKTICK;

/**
 * One state of the tag reader after `c`: a mask of states (two for a Unicode space where an
 * unquoted value may go on or end), 0 when `c` cannot continue it, DONE or BODY.
 */
export function tagNext(state: number, c: number, cdata: number): number {
  const ws = isWhiteSpace(c);
  const nameStart = isAsciiLetter(c) || c === UNDERSCORE || c === COLON;
  switch (state) {
    case S.Lt:
      if (isAsciiLetter(c)) return bit(S.Name);
      if (c === SLASH) return bit(S.CloseStart);
      if (c === BANG) return bit(S.Bang);
      return c === QUESTION ? BODY : 0;
    case S.Bang:
      if (c === DASH) return bit(S.BangDash);
      if (c === LBRACKET) return bit(S.Cdata);
      return isAsciiLetter(c) ? BODY : 0;
    case S.BangDash:
      return c === DASH ? BODY : 0;
    case S.Cdata:
      if (c !== CDATA.charCodeAt(cdata)) return 0;
      return cdata === CDATA.length - 1 ? BODY : bit(S.Cdata);
    case S.Name:
      if (isAlnum(c) || c === DASH) return bit(S.Name);
      return ws ? bit(S.AttrSep) : c === SLASH ? bit(S.SelfClose) : c === GT ? DONE : 0;
    case S.AttrSep:
      if (ws) return bit(S.AttrSep);
      if (nameStart) return bit(S.AttrName);
      return c === SLASH ? bit(S.SelfClose) : c === GT ? DONE : 0;
    case S.AttrName:
      if (nameStart || isAsciiDigit(c) || c === DOT || c === DASH) return bit(S.AttrName);
      if (ws) return bit(S.AfterAttr);
      return c === EQ ? bit(S.BeforeValue) : c === SLASH ? bit(S.SelfClose) : c === GT ? DONE : 0;
    case S.AfterAttr:
      if (ws) return bit(S.AfterAttr);
      if (nameStart) return bit(S.AttrName);
      return c === EQ ? bit(S.BeforeValue) : c === SLASH ? bit(S.SelfClose) : c === GT ? DONE : 0;
    case S.BeforeValue:
      // A Unicode space is white space before the value, or the value's first character.
      if (ws) return c > SP ? bit(S.BeforeValue) | bit(S.Unquoted) : bit(S.BeforeValue);
      if (c === DQ) return bit(S.Double);
      if (c === SQ) return bit(S.Single);
      return isUnquoted(c) ? bit(S.Unquoted) : 0;
    case S.Unquoted:
      // A Unicode space goes on with the value, or ends it.
      if (ws) return c > SP ? bit(S.Unquoted) | bit(S.AttrSep) : bit(S.AttrSep);
      if (c === GT) return DONE;
      return isUnquoted(c) ? bit(S.Unquoted) : 0;
    case S.Double:
      return c === DQ ? bit(S.AfterValue) : bit(S.Double);
    case S.Single:
      return c === SQ ? bit(S.AfterValue) : bit(S.Single);
    case S.AfterValue:
      if (ws) return bit(S.AttrSep);
      return c === SLASH ? bit(S.SelfClose) : c === GT ? DONE : 0;
    case S.SelfClose:
      return c === GT ? DONE : 0;
    case S.CloseStart:
      return isAsciiLetter(c) ? bit(S.CloseName) : 0;
    case S.CloseName:
      if (isAlnum(c) || c === DASH) return bit(S.CloseName);
      return ws ? bit(S.CloseWs) : c === GT ? DONE : 0;
    case S.CloseWs:
      if (ws) return bit(S.CloseWs);
      return c === GT ? DONE : 0;
    default:
      return 0;
  }
}
