import { COMMA, CR, DASH, LBRACKET, LF, LPAREN, SP, TAB } from "../grammar/chars.ts";

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

  /**
   * The line before ends mid-sentence and is prose: its last character leaves the sentence open (a
   * letter or mark of any script, a digit, or OPEN_AT_END). Anything else ends or introduces: `.`,
   * `!`, `?`, `:`, `;` and their fullwidth forms, a closing `)`/`]`/quote/emphasis, a tag's `>`.
   */
  endsMidSentence(): boolean {
    const c = this.before;
    // A line opening with `[` may be a link reference definition (`[fmt]: /u`), no sentence: not counted.
    if (this.beforeMarkup || this.beforeFirst === LBRACKET || c < 0) return false;
    // A hyphen cut at the line end (`so-`) leaves the word open; a line of dashes (`---`, `- -`) is a rule or a setext underline.
    if (c === DASH) return this.beforeFirst !== DASH;
    return OPEN_AT_END.has(c) || MID_SENTENCE.test(String.fromCharCode(c));
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

/** A letter or digit of any script; a combining mark too (Devanagari words end in a vowel sign: `जैसे`). */
const MID_SENTENCE = /^[\p{L}\p{M}\p{N}]$/u;
/**
 * Punctuation that leaves a sentence open at a line end: it joins what comes next rather than
 * ending or introducing it. Commas (ASCII, fullwidth `，`, ideographic `、`, Arabic `،`), dashes
 * (en `–`, em `—`, horizontal bar `―`), ellipses (`…`, midline `⋯`) and openers waiting for their
 * content (`(`, `（`, `“`, `«`, `「`, `『`). Not here, so the costume after them still runs: `.`, `!`,
 * `?`, `:`, `;` (and `。`, `！`, `？`, `：`, `；`), which end a sentence or introduce what follows;
 * closers (`)`, `]`, `”`, `*`, `` ` ``, `>`), which end a unit that may itself end the sentence
 * (`(see above)`, `**Run:**`, `<b>x</b>`). `...` ends in `.` and reads as a full stop: only the last
 * character is kept.
 */
const OPEN_AT_END = new Set([COMMA, 0xff0c, 0x3001, 0x060c, 0x2013, 0x2014, 0x2015, 0x2026, 0x22ef, LPAREN, 0xff08, 0x201c, 0xab, 0x300c, 0x300e]);
