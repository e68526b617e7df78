/**
 * One `<` in paragraph text, for the inline documentation tracker (doc-inline.ts): what follows
 * it, read as commonmark.js reads it (parseAutolink, then parseHtmlTag):
 * - an autolink: `<scheme:…>` (a scheme of 2 to 32 characters, then no space, `<`, `>` or
 *   control) or `<local@domain>` (the spec's e-mail pattern); no documentation, but opaque: no
 *   code span, bracket or tag inside it counts (it binds tighter than both);
 * - raw HTML: an open tag, a closing tag, and the openers of a comment, a processing
 *   instruction, a declaration or CDATA (whose end the inline tracker then looks for), read by
 *   the tag reader (doc-tag-reader.ts).
 * The attempts pending at once are doc-tags.ts's.
 */
import {
  BACKTICK,
  BANG,
  COLON,
  DASH,
  DOLLAR,
  DOT,
  EQ,
  GT,
  HASH,
  LBRACE,
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
  isAsciiLetter,
} from "../grammar/chars.ts";
import type { InlineBefore } from "./doc-links.ts";
import { BODY, DONE, S, TAG_STATES, bit, isAlnum, tagNext } from "./doc-tag-reader.ts";

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
export type OutcomeValue = (typeof Outcome)[keyof typeof Outcome];

const AT = 0x40;
const NAME_LIMIT = 12;

const lower = (c: number) => String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
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

/** One `<`'s attempt: a tag (or `<!`/`<?` opener) and an autolink read side by side, with the inline state before it. */
export class Attempt implements InlineBefore {
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

/** One character through a search for `target` (`-->`, `?>`, `>`, `]]>`): the length now matched. */
export function matchStep(target: string, pos: number, c: number): number {
  if (c === target.charCodeAt(pos)) return pos + 1;
  if (c !== target.charCodeAt(0)) return 0;
  // `--->`: the matched prefix is all one character, so a repeat of it keeps the match.
  for (let i = 1; i < pos; i++) if (target.charCodeAt(i) !== c) return 1;
  return pos > 0 ? pos : 1;
}
