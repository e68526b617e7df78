/**
 * What follows a `<` in paragraph text, for the inline documentation tracker (doc-inline.ts),
 * read as commonmark.js reads it (parseAutolink, then parseHtmlTag):
 * - an autolink: `<scheme:…>` (a scheme of 2 to 32 characters, then no space, `<`, `>` or
 *   control) or `<local@domain>` (the spec's e-mail pattern); no documentation, but opaque: no
 *   code span, bracket or tag inside it counts (it binds tighter than both);
 * - raw HTML: an open tag, a closing tag, and the openers of a comment, a processing
 *   instruction, a declaration or CDATA (whose end the inline tracker then looks for).
 *
 * Each `<` opens an attempt that reads the characters after it beside the inline state, which
 * goes on as if the `<` were literal (commonmark.js: a failed attempt leaves the `<` as text and
 * reads everything after it again). An attempt that fails is dropped: its characters have
 * already been read as prose, so a `[`, `<!--`, `<?`, backtick or nested `<tag` inside a failed
 * "attribute value" is live, without a rescan. One that completes puts back the inline state
 * from its `<` (a copy of four fields) and drops what opened after it. While pending, an attempt
 * that may still be raw HTML is documentation (an unfinished tag counts until it fails); one that
 * can only be an autolink is documentation only where the state it would put back is (inside
 * link text, say). Attempts opened inside each other are followed up to MAX_ATTEMPTS at once;
 * more make the paragraph documentation until one opened before them completes. Each character
 * costs O(MAX_ATTEMPTS), no allocation.
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
  DOLLAR,
  DOT,
  DQ,
  EQ,
  GT,
  HASH,
  LBRACE,
  LBRACKET,
  LT,
  PIPE,
  PLUS,
  QUESTION,
  RBRACE,
  SLASH,
  SP,
  SQ,
  STAR,
  TILDE,
  UNDERSCORE,
  isAsciiDigit,
  isAsciiLetter,
  isWhiteSpace,
} from "../grammar/chars.ts";
import type { InlineBefore } from "./doc-links.ts";

/** States of a raw HTML tag being read (bit positions in a mask of live states: a Unicode space in an unquoted value goes on with two). */
const S = {
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
const bit = (s: number) => 1 << s;
/** An open or closing tag is complete. */
const DONE = -2;
/** A comment, processing instruction, declaration or CDATA opened: its end string is looked for. */
const BODY = -3;
/** States in which the attempt may still be an open or closing tag (not a `<!` form; a lone `<` may be either). */
const TAG_STATES = ~(bit(S.Bang) | bit(S.BangDash) | bit(S.Cdata));

/** Where an autolink attempt is. */
const Auto = {
  Dead: 0,
  /** Right after the `<`. */
  Start: 1,
  /** A scheme and/or an e-mail local part. */
  Head: 2,
  /** After `scheme:`. */
  Url: 3,
  /** After the `@` or a `.`: a domain label must start. */
  LabelStart: 4,
  Label: 5,
} as const;
const SCHEME_MAX = 32;
const LABEL_MAX = 63;

/** What a character did to an attempt. */
export const Outcome = {
  Pending: 0,
  Fail: 1,
  /** An open or closing tag ended (its `>`). */
  Tag: 2,
  Autolink: 3,
  /** A comment, processing instruction, declaration or CDATA opened: its end is the inline tracker's. */
  Body: 4,
} as const;
type OutcomeValue = (typeof Outcome)[keyof typeof Outcome];

const CDATA = "[CDATA[";
const AT = 0x40;
const NAME_LIMIT = 12;
const MAX_ATTEMPTS = 8;

const isAlnum = (c: number) => isAsciiLetter(c) || isAsciiDigit(c);
const lower = (c: number) => String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
/** An unquoted attribute value's character (commonmark.js: `[^"'=<>`\x00-\x20]`). */
const isUnquoted = (c: number) => c > SP && c !== DQ && c !== SQ && c !== EQ && c !== LT && c !== GT && c !== BACKTICK;
const isSchemeChar = (c: number) => isAlnum(c) || c === DOT || c === PLUS || c === DASH;
/** The e-mail autolink's local part: `[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]`. */
function isLocalChar(c: number): boolean {
  if (isAlnum(c)) return true;
  switch (c) {
    case DOT:
    case BANG:
    case HASH:
    case DOLLAR:
    case 0x25: // %
    case 0x26: // &
    case SQ:
    case STAR:
    case PLUS:
    case SLASH:
    case EQ:
    case QUESTION:
    case 0x5e: // ^
    case UNDERSCORE:
    case BACKTICK:
    case LBRACE:
    case PIPE:
    case RBRACE:
    case TILDE:
    case DASH:
      return true;
    default:
      return false;
  }
}

/**
 * One state of the tag reader after `c`: a mask of states (two for a Unicode space where an
 * unquoted value may go on or end), 0 when `c` cannot continue it, DONE or BODY.
 */
function tagNext(state: number, c: number, cdata: number): number {
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

/** One `<`'s attempt: a tag (or `<!`/`<?` opener) and an autolink read side by side, with the inline state before it. */
class Attempt implements InlineBefore {
  bracket = 0;
  element = "";
  math = false;
  escapedLt = false;
  seq = 0;

  /** Live tag states (a bit mask), 0 once it cannot be a tag. */
  private mask = 0;
  /** Its lower-cased tag name (at most NAME_LIMIT + 1 characters). */
  name = "";
  close = false;
  private cdata = 0;

  private auto: number = Auto.Dead;
  /** Scheme characters so far, 0 once it cannot be a scheme. */
  private scheme = 0;
  /** It may still be an e-mail local part. */
  private local = false;
  private label = 0;
  private hyphen = false;

  /**
   * The end of the comment, processing instruction, declaration or CDATA it opened, and how much
   * of it is matched; the opener is pending while an e-mail autolink may still be read from the
   * same `<` (`<!--a@b.c>` and `<?x@y.z>` are autolinks: commonmark.js tries them first).
   */
  body = "";
  bodyPos = 0;

  begin(seq: number, bracket: number, element: string, math: boolean, escapedLt: boolean): void {
    this.seq = seq;
    this.bracket = bracket;
    this.element = element;
    this.math = math;
    this.escapedLt = escapedLt;
    this.mask = bit(S.Lt);
    this.name = "";
    this.close = false;
    this.cdata = 0;
    this.auto = Auto.Start;
    this.scheme = 0;
    this.local = false;
    this.label = 0;
    this.hyphen = false;
    this.body = "";
    this.bodyPos = 0;
  }

  /** An open or closing tag may still be read. */
  get tagLive(): boolean {
    return (this.mask & TAG_STATES) !== 0;
  }

  /**
   * Documentation while pending: it may still be raw HTML; an autolink (no documentation) only
   * where the state it would put back is (inside link text, an example element, math).
   */
  get inDoc(): boolean {
    if (this.mask !== 0 || this.body !== "") return true;
    return this.bracket > 0 || this.element !== "" || this.math || this.escapedLt;
  }

  /** `c` through it; with take false only whether it fails (nothing changes). */
  advance(c: number, take: boolean): OutcomeValue {
    // The autolink: a scheme or a local part, then the URL or the domain.
    let auto: number = Auto.Dead;
    let scheme = 0;
    let local = false;
    let label = 0;
    let hyphen = false;
    switch (this.auto) {
      case Auto.Start:
        scheme = isAsciiLetter(c) ? 1 : 0;
        local = isLocalChar(c);
        if (scheme > 0 || local) auto = Auto.Head;
        break;
      case Auto.Head:
        if (c === COLON && this.scheme >= 2) auto = Auto.Url;
        else if (c === AT && this.local) auto = Auto.LabelStart;
        else {
          scheme = this.scheme > 0 && this.scheme < SCHEME_MAX && isSchemeChar(c) ? this.scheme + 1 : 0;
          local = this.local && isLocalChar(c);
          if (scheme > 0 || local) auto = Auto.Head;
        }
        break;
      case Auto.Url:
        if (c === GT) return take ? Outcome.Autolink : Outcome.Pending;
        // `[^<>\x00-\x20]`
        if (c > SP && c !== LT) auto = Auto.Url;
        break;
      case Auto.LabelStart:
        if (isAlnum(c)) {
          auto = Auto.Label;
          label = 1;
        }
        break;
      case Auto.Label:
        // 1 to 63 letters, digits and hyphens, not ending in a hyphen.
        if (!this.hyphen && c === GT) return take ? Outcome.Autolink : Outcome.Pending;
        if (!this.hyphen && c === DOT) auto = Auto.LabelStart;
        else if ((isAlnum(c) || c === DASH) && this.label < LABEL_MAX) {
          auto = Auto.Label;
          label = this.label + 1;
          hyphen = c === DASH;
        }
        break;
    }

    // A `<!` or `<?` opener pending while an e-mail autolink may still be read: it holds once that fails.
    if (this.body !== "") {
      const pos = matchStep(this.body, this.bodyPos, c);
      if (!take) return Outcome.Pending;
      this.bodyPos = pos;
      if (auto === Auto.Dead || pos === this.body.length) return Outcome.Body;
      this.setAuto(auto, scheme, local, label, hyphen);
      return Outcome.Pending;
    }

    // The tag: every live state steps.
    let mask = 0;
    for (let m = this.mask; m !== 0; m &= m - 1) {
      const state = 31 - Math.clz32(m & -m);
      const next = tagNext(state, c, this.cdata);
      if (next === DONE) return take ? Outcome.Tag : Outcome.Pending;
      if (next === BODY) {
        if (!take) return Outcome.Pending;
        this.body = state === S.BangDash ? "-->" : state === S.Cdata ? "]]>" : state === S.Lt ? "?>" : ">";
        // `<!-->` and `<!--->` are complete comments: the two dashes count toward `-->`.
        this.bodyPos = state === S.BangDash ? 2 : 0;
        if (auto === Auto.Dead) return Outcome.Body;
        this.mask = 0;
        this.setAuto(auto, scheme, local, label, hyphen);
        return Outcome.Pending;
      }
      mask |= next;
    }
    if (mask === 0 && auto === Auto.Dead) return Outcome.Fail;
    if (!take) return Outcome.Pending;
    this.setAuto(auto, scheme, local, label, hyphen);
    if (mask === bit(S.Name) || mask === bit(S.CloseName)) {
      if (this.mask === bit(S.CloseStart)) this.close = true;
      if (this.name.length <= NAME_LIMIT) this.name += lower(c);
    } else if (mask === bit(S.Cdata)) this.cdata = this.mask === bit(S.Bang) ? 1 : this.cdata + 1;
    this.mask = mask;
    return Outcome.Pending;
  }

  private setAuto(auto: number, scheme: number, local: boolean, label: number, hyphen: boolean): void {
    this.auto = auto;
    this.scheme = scheme;
    this.local = local;
    this.label = label;
    this.hyphen = hyphen;
  }
}

/**
 * The attempts pending, outermost (earliest `<`) first, in a fixed array. Tags and the inline
 * links (doc-links.ts) share one opening order (`seq`): whichever completes drops what opened
 * after it, of both kinds.
 */
export class InlineTags {
  private readonly attempts: Attempt[] = Array.from({ length: MAX_ATTEMPTS }, () => new Attempt());
  private count = 0;
  /** The opening number of the first `<` past MAX_ATTEMPTS (0: none): documentation until it is dropped. */
  private overflowSeq = 0;
  /** How the attempt step() returned completed. */
  outcome: OutcomeValue = Outcome.Pending;

  get pending(): boolean {
    return this.count > 0;
  }

  get inDoc(): boolean {
    if (this.overflowSeq !== 0) return true;
    for (let i = 0; i < this.count; i++) if (this.attempts[i]!.inDoc) return true;
    return false;
  }

  /** The attempt opened as `seq` is pending and may still be an open or closing tag. */
  tagPending(seq: number): boolean {
    for (let i = 0; i < this.count; i++) {
      const attempt = this.attempts[i]!;
      if (attempt.seq === seq) return attempt.tagLive;
    }
    return false;
  }

  /** A `<` opened as `seq`, after the inline state given. */
  open(seq: number, bracket: number, element: string, math: boolean, escapedLt: boolean): void {
    if (this.count === MAX_ATTEMPTS) {
      if (this.overflowSeq === 0) this.overflowSeq = seq;
      return;
    }
    this.attempts[this.count++]!.begin(seq, bracket, element, math, escapedLt);
  }

  /** Drops the attempts `c` cannot continue: their characters were prose. */
  dropFailed(c: number): void {
    for (let i = this.count - 1; i >= 0; i--) if (this.attempts[i]!.advance(c, false) === Outcome.Fail) this.drop(i);
  }

  /**
   * `c` through the attempts, outermost first: the first one `c` completed (how: `outcome`;
   * those opened after it are dropped), or null.
   */
  step(c: number): Attempt | null {
    for (let i = 0; i < this.count; i++) {
      const attempt = this.attempts[i]!;
      const outcome = attempt.advance(c, true);
      if (outcome === Outcome.Pending) continue;
      if (outcome === Outcome.Fail) {
        this.drop(i--);
        continue;
      }
      this.outcome = outcome;
      this.count = i;
      if (this.overflowSeq > attempt.seq) this.overflowSeq = 0;
      return attempt;
    }
    return null;
  }

  /** Something opened as `seq` completed: what opened after it was inside it. */
  dropAfter(seq: number): void {
    while (this.count > 0 && this.attempts[this.count - 1]!.seq > seq) this.count--;
    if (this.overflowSeq > seq) this.overflowSeq = 0;
  }

  reset(): void {
    this.count = 0;
    this.overflowSeq = 0;
  }

  private drop(i: number): void {
    const dropped = this.attempts[i]!;
    for (let j = i; j < this.count - 1; j++) this.attempts[j] = this.attempts[j + 1]!;
    this.attempts[--this.count] = dropped;
  }
}

/** One character through a search for `target` (`-->`, `?>`, `>`, `]]>`): the length now matched. */
export function matchStep(target: string, pos: number, c: number): number {
  if (c === target.charCodeAt(pos)) return pos + 1;
  if (c !== target.charCodeAt(0)) return 0;
  // `--->`: the matched prefix is all one character, so a repeat of it keeps the match.
  for (let i = 1; i < pos; i++) if (target.charCodeAt(i) !== c) return 1;
  return pos > 0 ? pos : 1;
}
