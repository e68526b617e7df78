import { COMMA, CR, LBRACKET, LF, SP, TAB } from "../grammar/chars.ts";

// Text mode's line tracker (text-mode.ts) in its own file: whether the line before an opener ends
// mid-sentence decides if a tag continues a paragraph (openers' continuesParagraph, a candidate's
// openerPlace), and reading line ends is a self-contained job apart from text mode's scan.

/**
 * The raw text's line ends, read in order (text mode's scan, a plain delta, a
 * candidate's span): `before` is the last non-space character of the line before the current one
 * (-1 for a blank line or none), `last` that of the current line so far. Each character is read once.
 */
export class LineEnds {
  before = -1;
  /** The line before held a candidate's markup (a call, a costume read as text): no running sentence. */
  beforeMarkup = false;
  private last = -1;
  private lastMarkup = false;
  /** The first non-space character of the line before, and of the current line so far (-1: none yet). */
  private beforeFirst = -1;
  private first = -1;
  /** The text read last ended with a CR: an LF right after it is the same line end. */
  private crEnded = false;
  /** The current line so far when it is only spaces and tabs (a container's indentation), else null. */
  lead: string | null = "";

  /** The last character read (-1: none yet): the character before a `<`-lost opener (stray-opener.ts). */
  prev = -1;

  /** `markup`: the text is a candidate's span. */
  read(s: string, from: number, to: number, markup = false): void {
    if (to <= from) return;
    this.prev = s.charCodeAt(to - 1);
    let k = to - 1;
    while (k >= from && s.charCodeAt(k) !== LF && s.charCodeAt(k) !== CR) k--;
    // The LF of a CR LF whose CR ended the text read before: that line end was read already.
    const crLf = k === from && this.crEnded && s.charCodeAt(k) === LF;
    this.crEnded = s.charCodeAt(to - 1) === CR;
    if (crLf) from = k + 1;
    else if (k >= from) {
      // A line end in the text: the line before the current one ends at it.
      let m = k - 1;
      if (s.charCodeAt(k) === LF && m >= from && s.charCodeAt(m) === CR) m--;
      while (m >= from && isLineSpace(s.charCodeAt(m))) m--;
      const inText = m >= from && s.charCodeAt(m) !== LF && s.charCodeAt(m) !== CR;
      this.before = m >= from ? (inText ? s.charCodeAt(m) : -1) : this.last;
      let b = m;
      while (b >= from && s.charCodeAt(b) !== LF && s.charCodeAt(b) !== CR) b--;
      // The line began before this text: what was read of it so far counts too.
      this.beforeMarkup = markup || (b < from && this.lastMarkup);
      let f = b < from ? from : b + 1;
      while (f < k && isLineSpace(s.charCodeAt(f))) f++;
      this.beforeFirst = b < from && this.first >= 0 ? this.first : f < k ? s.charCodeAt(f) : -1;
      this.first = -1;
      this.last = -1;
      this.lastMarkup = false;
      this.lead = "";
      from = k + 1;
    }
    if (this.first < 0) {
      let f = from;
      while (f < to && isLineSpace(s.charCodeAt(f))) f++;
      if (f < to) this.first = s.charCodeAt(f);
    }
    if (this.lead !== null) this.lead = markup || !isIndent(s, from, to) ? null : this.lead + s.slice(from, to);
    let m = to - 1;
    while (m >= from && isLineSpace(s.charCodeAt(m))) m--;
    if (m >= from) this.last = s.charCodeAt(m);
    if (markup) this.lastMarkup = true;
  }

  /** The line before ends mid-sentence and is prose: a letter, a digit or a comma last (not `.`, `:`, `)`, a tag's `>`, ...). */
  endsMidSentence(): boolean {
    const c = this.before;
    // A line opening with `[` may be a link reference definition (`[fmt]: /u`), no sentence: not counted.
    return !this.beforeMarkup && this.beforeFirst !== LBRACKET && c >= 0 && (c === COMMA || MID_SENTENCE.test(String.fromCharCode(c)));
  }
}

function isIndent(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c !== SP && c !== TAB) return false;
  }
  return true;
}

function isLineSpace(c: number): boolean {
  return c === SP || c === TAB;
}

const MID_SENTENCE = /^[\p{L}\p{N}]$/u;
