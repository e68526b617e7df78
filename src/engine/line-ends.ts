import { BACKSLASH, COMMA, CR, DASH, LBRACKET, LF, LPAREN, SP, TAB } from "../grammar/chars.ts";

// Text mode's line tracker (text-mode.ts) in its own file: whether the line before an opener ends
// mid-sentence decides if a tag continues a paragraph (openers' continuesParagraph, a candidate's
// openerPlace), and reading line ends is a self-contained job apart from text mode's scan.

/**
 * The raw text's line ends, read in order (text mode's scan, a plain delta, a
 * candidate's span): `before` is the last non-space character of the line before the current one
 * (-1 for a blank line or none), `last` that of the current line so far. Space is any Unicode space
 * or zero-width character (isLineSpace), and a CommonMark backslash hard break (`like\`) keeps the
 * line open: the character before its backslash is the line's last (lastKey).
 *
 * Reading is lazy: `read` only notes the piece (and its last character, `prev`), and the pieces are
 * folded in when a fact is asked for (a tag's decision, a candidate opening) or when too many wait.
 * Only the last two line ends matter then, so folding starts at the newest piece that ends the line
 * before the line before, and never reads the characters of the pieces before it: the hot path reads
 * each character once (its scan), not twice. Folding applies each piece exactly as an eager reader
 * would (`apply`), so the facts are the same whatever the pieces and whenever they are asked for.
 */
export class LineEnds {
  #settledBefore = -1;
  /** The line before ended with a candidate's markup (a call, a costume read as text): no running sentence. */
  #settledBeforeMarkup = false;
  #last = -1;
  /** What decides the current line so far: `last`, or the character before it when `last` is a hard break's backslash. */
  #lastKey = -1;
  #lastMarkup = false;
  /** Markup shown as text (a candidate that proved no call) touched the current line. */
  #lineShown = false;
  /** The first non-space character of the line before, and of the current line so far (-1: none yet). */
  #beforeFirst = -1;
  #first = -1;
  /** The text read last ended with a CR: an LF right after it is the same line end. */
  #crEnded = false;
  /** The current line so far when it is only spaces and tabs (a container's indentation), else null. */
  #settledLead: string | null = "";

  /** The last character folded in (-1: none yet). */
  #settledPrev = -1;

  /**
   * Pieces read and not folded in yet (oldest first): the text, and where each is in it (a
   * candidate's span has its start stored as ~start, one shown as text its end as ~end). Arrays that grow only as far as
   * pieces wait (an engine holding one candidate keeps them small), and folding clears the texts so
   * none is kept alive past it.
   */
  readonly #texts: string[] = [];
  readonly #froms: number[] = [];
  readonly #tos: number[] = [];
  #waiting = 0;
  #waitingChars = 0;

  /** `markup`: the text is a candidate's span (LineMarkup says how it marks its lines). */
  read(s: string, from: number, to: number, markup?: LineMarkup): void {
    if (to <= from) return;
    const n = this.#waiting;
    this.#texts[n] = s;
    this.#froms[n] = markup !== undefined ? ~from : from;
    this.#tos[n] = markup === "shown" ? ~to : to;
    this.#waiting = n + 1;
    if ((this.#waitingChars += to - from) >= MAX_WAITING_CHARS || n + 1 === MAX_WAITING) this.settle();
  }

  /** The last character read (-1: none yet): the character before a `<`-lost opener (stray-opener.ts). */
  get prev(): number {
    const n = this.#waiting;
    return n === 0 ? this.#settledPrev : this.#texts[n - 1]!.charCodeAt(end(this.#tos[n - 1]!) - 1);
  }

  /** The text read so far ended in markup cut off at a part's end: the next part has no character before it (its bar is no `<`-lost opener's). */
  forgetPrev(): void {
    this.settle();
    this.#settledPrev = -1;
  }

  get before(): number {
    this.settle();
    return this.#settledBefore;
  }

  get beforeMarkup(): boolean {
    this.settle();
    return this.#settledBeforeMarkup;
  }

  get lead(): string | null {
    this.settle();
    return this.#settledLead;
  }

  /**
   * Folds the waiting pieces in. The facts after them depend only on the newest piece ending a
   * line (its line before may reach back to the piece ending the line before that) and what came
   * after it, so folding starts at that earlier line-ending piece: its own line end resets every
   * fact of the current line, and `apply` reads it and the pieces after it as they came.
   */
  private settle(): void {
    const n = this.#waiting;
    if (n === 0) return;
    let start = 0;
    let found = 0;
    for (let i = n - 1; i >= 0; i--) {
      if (!this.endsLine(i)) continue;
      if (++found === 2) {
        start = i;
        break;
      }
    }
    this.#settledPrev = this.prev;
    if (start > 0) this.#crEnded = this.#texts[start - 1]!.charCodeAt(end(this.#tos[start - 1]!) - 1) === CR;
    for (let i = start; i < n; i++) {
      const from = this.#froms[i]!;
      const to = this.#tos[i]!;
      this.apply(this.#texts[i]!, from < 0 ? ~from : from, to < 0 ? ~to : to, from < 0 ? (to < 0 ? "shown" : "call") : undefined);
    }
    this.#texts.fill("", 0, n);
    this.#waiting = 0;
    this.#waitingChars = 0;
  }

  /** Waiting piece `i` ends a line for `apply`: it holds a line end other than the LF of a CR LF begun by the piece before. */
  private endsLine(i: number): boolean {
    const s = this.#texts[i]!;
    const stored = this.#froms[i]!;
    const from = stored < 0 ? ~stored : stored;
    let k = end(this.#tos[i]!) - 1;
    while (k >= from && s.charCodeAt(k) !== LF && s.charCodeAt(k) !== CR) k--;
    if (k < from) return false;
    if (k !== from || s.charCodeAt(k) !== LF) return true;
    const crBefore = i === 0 ? this.#crEnded : this.#texts[i - 1]!.charCodeAt(end(this.#tos[i - 1]!) - 1) === CR;
    return !crBefore;
  }

  /** One piece read in order: the eager reader. */
  private apply(s: string, from: number, to: number, markup: LineMarkup | undefined): void {
    let k = to - 1;
    while (k >= from && s.charCodeAt(k) !== LF && s.charCodeAt(k) !== CR) k--;
    // The LF of a CR LF whose CR ended the text read before: that line end was read already.
    const crLf = k === from && this.#crEnded && s.charCodeAt(k) === LF;
    this.#crEnded = s.charCodeAt(to - 1) === CR;
    if (crLf) from = k + 1;
    else if (k >= from) {
      // A line end in the text: the line before the current one ends at it.
      let m = k - 1;
      if (s.charCodeAt(k) === LF && m >= from && s.charCodeAt(m) === CR) m--;
      while (m >= from && isLineSpace(s.charCodeAt(m))) m--;
      const inText = m >= from && s.charCodeAt(m) !== LF && s.charCodeAt(m) !== CR;
      this.#settledBefore = m >= from ? (inText ? this.keyAt(s, from, m) : -1) : this.#lastKey;
      let b = m;
      while (b >= from && s.charCodeAt(b) !== LF && s.charCodeAt(b) !== CR) b--;
      // Markup last on the line before (a call's closer), or markup shown as text anywhere on it:
      // no running sentence. Prose after a call on its line is the line's end, as after any other text.
      const shown = markup === "shown" || (b < from && this.#lineShown);
      this.#settledBeforeMarkup = shown || (m >= from ? inText && markup !== undefined : this.#lastMarkup);
      let f = b < from ? from : b + 1;
      while (f < k && isLineSpace(s.charCodeAt(f))) f++;
      this.#beforeFirst = b < from && this.#first >= 0 ? this.#first : f < k ? s.charCodeAt(f) : -1;
      this.#first = -1;
      this.#last = -1;
      this.#lastKey = -1;
      this.#lastMarkup = false;
      this.#lineShown = false;
      this.#settledLead = "";
      from = k + 1;
    }
    if (this.#first < 0) {
      let f = from;
      while (f < to && isLineSpace(s.charCodeAt(f))) f++;
      if (f < to) this.#first = s.charCodeAt(f);
    }
    if (this.#settledLead !== null) this.#settledLead = markup !== undefined || !isIndent(s, from, to) ? null : this.#settledLead + s.slice(from, to);
    let m = to - 1;
    while (m >= from && isLineSpace(s.charCodeAt(m))) m--;
    if (m >= from) {
      this.#lastKey = this.keyAt(s, from, m);
      this.#last = s.charCodeAt(m);
      this.#lastMarkup = markup !== undefined;
    }
    if (markup === "shown") this.#lineShown = true;
  }

  /**
   * What decides a line whose last non-space character is at `m` (the piece from `from`; the
   * current line's facts are those before the piece): that character, or for a CommonMark hard
   * break's backslash the non-space character before it (`like\` runs on as `like` does; `C:\\`
   * ends in a backslash). Only the spaces before `m` are read, once.
   */
  private keyAt(s: string, from: number, m: number): number {
    if (s.charCodeAt(m) !== BACKSLASH) return s.charCodeAt(m);
    let p = m - 1;
    while (p >= from && isLineSpace(s.charCodeAt(p))) p--;
    if (p < from) return this.#last;
    const c = s.charCodeAt(p);
    return c === LF || c === CR ? -1 : c;
  }

  /**
   * The line before ends mid-sentence and is prose: its last character leaves the sentence open (a
   * letter or mark of any script, a digit, or OPEN_AT_END). Anything else ends or introduces: `.`,
   * `!`, `?`, `:`, `;` and their fullwidth forms, a closing `)`/`]`/quote/emphasis, a tag's `>`.
   */
  endsMidSentence(): boolean {
    this.settle();
    const c = this.#settledBefore;
    // A line opening with `[` may be a link reference definition (`[fmt]: /u`), no sentence: not counted.
    if (this.#settledBeforeMarkup || this.#beforeFirst === LBRACKET || c < 0) return false;
    // A hyphen cut at the line end (`so-`) leaves the word open; a line of dashes (`---`, `- -`) is a rule or a setext underline.
    if (c === DASH) return this.#beforeFirst !== DASH;
    return OPEN_AT_END.has(c) || MID_SENTENCE.test(String.fromCharCode(c));
  }
}

/** Pieces (and characters) waiting at most before they are folded in: what is kept stays small. */
const MAX_WAITING = 256;
const MAX_WAITING_CHARS = 1024;

/**
 * How a candidate's span marks the lines it is on: "call", markup that made a call, marks a line
 * only when it ends it (prose after a call's closer on its line is the line's end); "shown",
 * markup that proved no call and is shown as text, marks every line it touches, as before (such a
 * line is no sentence a later costume could sit in; and a costume refused before prose on its line
 * keeps the next costume a line-start one, so a run of them is read once, not again per costume).
 */
export type LineMarkup = "call" | "shown";

/** A stored end (a "shown" piece's is stored as ~end). */
function end(stored: number): number {
  return stored < 0 ? ~stored : stored;
}

function isIndent(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c !== SP && c !== TAB) return false;
  }
  return true;
}

/**
 * Space within a line, where the paragraph rule reads a line's last character and the next line's
 * first: spaces and tabs, every other Unicode space separator (\p{Zs}: the no-break spaces U+00A0
 * and U+202F of French typography, the ideographic U+3000 of CJK text, the en/em/thin spaces) and the
 * characters that render as nothing (zero-width space, non-joiner, joiner, word joiner, BOM). A line
 * ending in one is no more finished than one ending in a space (review 50, finding 5).
 */
export function isLineSpace(c: number): boolean {
  if (c === SP || c === TAB) return true;
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200d) || c === 0x202f || c === 0x205f || c === 0x2060 || c === 0x3000 || c === 0xfeff;
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
