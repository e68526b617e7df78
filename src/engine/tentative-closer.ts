import { NEED_MORE, type Tag } from "../grammar/tags.ts";
import { BACKTICK, COMMA, CR, DQ, GT, LBRACKET, LF, LPAREN, LT, RPAREN, SLASH, SP, SQ, STAR, TAB, TILDE, UNDERSCORE } from "../grammar/chars.ts";
import { closerWasContent, type CloserRule } from "../parse/closer-in-value.ts";
import { isDsmlCallCloser, MORE_CLOSER_LINES } from "../parse/closer-ends-call.ts";
import { isLineSpace } from "./line-ends.ts";
import type { ValueTracker } from "./value-tracker.ts";

/**
 * Where the candidate (candidate.ts) stands after a unit's closer: the span trails (it takes the
 * layout after the closer and ends at the next thing written), and a closer that may be content
 * (SpanReader.tentatively) waits here for what comes next to say whether it
 * ended the value (parse/closer-in-value.ts, the walk's rule too) or was the value's text, when
 * reading goes on inside the value as if it had never been read. This keeps that state and the
 * rule's small moves; the candidate's scan asks it only at a tag, a line end or the first thing
 * written after the closer, never for a character of a body. The span's endsInBlock stays the
 * candidate's: what it was before the closer is handed in, and handed back when the closer was text.
 */
export class TentativeCloser {
  /**
   * Inside a block (or legacy section), each call is its own candidate: after a unit's closer the
   * span takes the whitespace that follows and ends at the next thing written, so a call is read
   * as soon as its own boundary is known and the layout between calls belongs to the calls (it
   * goes out at the block's closer: engine/output.ts holdCall).
   * Read by the candidate's scan per character; set only here (trail, hold, resume).
   */
  trailing = false;
  /** Where a trailing span ends unless a wrapper closer comes next (Candidate.takeCloser), or -1: it takes the layout too. */
  trailBack = -1;
  /**
   * A closer that may be content: its rule, whether a line ended since, what reading it as content
   * restores (endsInBlock before the closer; that the value, a sentinel or a plain one, is still
   * open), and how many further DSML closers were held with it (closerAfterCloser). Null otherwise.
   */
  private pending: { rule: CloserRule; lineEnded: boolean; endsInBlock: boolean; inValue: boolean; plainValue: boolean; more: number; lead: number } | null = null;

  constructor(
    /** The candidate's open values: a closer held here was read with their state before it, and restores it when it was text. */
    private readonly values: ValueTracker,
  ) {}

  /** A closer is held that may be content. */
  get held(): boolean {
    return this.pending !== null;
  }

  /** A unit closed: the span trails; `back`, where it ends unless a wrapper closer comes next (Candidate.takeCloser). */
  trail(back?: number): void {
    this.trailing = true;
    if (back !== undefined) this.trailBack = back;
  }

  /** Where the trailing span ends when the next thing written starts at `at`: its own end, or `at` when it takes the layout. */
  endAt(at: number): number {
    return this.trailBack >= 0 ? this.trailBack : at;
  }

  /** Holds the closer just read by `rule` (SpanReader.tentatively); `endsInBlock`: the span's before it; `end`: where the span would end. */
  hold(rule: CloserRule, endsInBlock: boolean, end?: number): void {
    if (end !== undefined) this.trail(end);
    this.crAt = -2;
    this.pending = { rule, lineEnded: false, endsInBlock, inValue: this.values.openBefore, plainValue: this.values.plainBefore, more: 0, lead: 0 };
  }

  /** What comes next (a tag, or null for content) proves the held closer was the value's text. */
  wasContent(next: Tag | null): boolean {
    return this.pending !== null && closerWasContent(this.pending.rule, next, this.pending.lineEnded);
  }

  /** The held closer is a costume's: it ends its span where it stands, whatever comes next. */
  standsAlone(): boolean {
    return this.pending?.rule.valueCloser === null;
  }

  /**
   * A line ended (`c`, LF or CR, at absolute `at`) after the held closer: true when that ends the
   * span at trailBack (a costume's closer); nothing later can change that. A costume opened inside a
   * paragraph (CloserRule.nextLine) waits for the next line: a second line end (a blank line; CR LF
   * is one) ends it there too, its first content decides (paragraphProse).
   */
  lineEnds(c?: number, at = -1): boolean {
    const p = this.pending;
    if (p === null) return false;
    if (p.rule.valueCloser === null) {
      if (!p.rule.nextLine) return true;
      if (c === LF && at >= 0 && at === this.crAt + 1) return false;
      this.crAt = c === CR ? at : -2;
      if (p.lineEnded) return true;
      p.lineEnded = true;
      return false;
    }
    p.lineEnded = true;
    return false;
  }

  /** Where a CR after a paragraph costume's closer stood (lineEnds), so the LF right after it is the same line end. */
  private crAt = -2;

  /**
   * A costume opened inside a paragraph whose closer's line ended: waiting for the next
   * line. Text there: the paragraph runs on around it, so it was prose showing the tag; the reply's
   * end: the costume ended at its closer (golden N48.1, C48.5).
   */
  nextLineOfParagraph(): boolean {
    const p = this.pending;
    return p !== null && p.rule.valueCloser === null && p.rule.nextLine === true && p.lineEnded;
  }

  /**
   * The next character (no space) of the line after a paragraph costume's closer line.
   * true: the sentence goes on (a lower-case letter, or a letter of a caseless script: Han, kana,
   * Hangul, Arabic, Devanagari have no capital to start a new sentence with, and the costume was
   * opened inside a paragraph, so its line before left the sentence open; also after up to LEAD_MAX
   * of SENTENCE_LEAD: `(in its replies).`, `*in*`, `, in`, `— in`, `¿en`); false: something starts
   * anew (a capital, a digit, markup, a list, heading or quote marker, `* ` as a list item); null: read on.
   * A Unicode space or zero-width character (isLineSpace: `\u00a0in its replies.`) is read past as a
   * space is, counting for nothing (review 50, finding 5).
   */
  sentenceGoesOn(c: number): boolean | null {
    const p = this.pending!;
    if (p.lead === STAR_SPACE) return false;
    if (isLineSpace(c)) return null;
    if (LOWER_CASE.test(String.fromCharCode(c))) return true;
    const count = p.lead === STAR_FIRST ? 1 : p.lead;
    if (count >= LEAD_MAX || !SENTENCE_LEAD.has(c)) return false;
    p.lead = count === 0 && c === STAR ? STAR_FIRST : count + 1;
    return null;
  }

  /** Nothing but spaces yet on the line after a paragraph costume's closer line. */
  atNextLineStart(): boolean {
    return this.pending !== null && this.pending.lead === 0;
  }

  /** A costume chained after the paragraph costume ended its closer's line (`c` at `at`): the next line decides again (golden N48.3). */
  chainLineEnd(c: number, at: number): void {
    this.crAt = c === CR ? at : -2;
    this.pending!.lead = 0;
  }

  /** A space on that line: right after a first `*` it makes a list item. */
  sentenceSpace(): void {
    const p = this.pending;
    if (p !== null && p.lead === STAR_FIRST) p.lead = STAR_SPACE;
  }

  /**
   * Golden A45.5, E45.11 (Candidate.exampleAfterCloser): the held closer was a DSML closer that ended
   * its line inside an open value, so an example may come next that shows it was the value's text.
   */
  endedValueLine(): boolean {
    const p = this.pending;
    return p !== null && p.lineEnded && p.rule.valueCloser === "dsml" && p.inValue;
  }

  /**
   * Golden A45.8: further DSML invoke or block closers (at most MORE_CLOSER_LINES) after a closer
   * that ended its line in an open value, before an example (none being read, `exampleReading`):
   * held with it, as the walk's closerEndsCall skips them. The span's end is where this closer
   * would have ended the trailing span (trailBack; a block's closer also ends the block, which the
   * candidate records), so a reply that shows no example after them ends exactly as before.
   */
  closerAfterCloser(tag: Tag, base: number, closesBlock: boolean, exampleReading: boolean): boolean {
    if (!this.endedValueLine() || exampleReading || this.pending!.more >= MORE_CLOSER_LINES || !isDsmlCallCloser(tag)) return false;
    this.pending!.more++;
    if (closesBlock) this.trailBack = base + tag.end;
    else if (this.trailBack < 0) this.trailBack = base + tag.start;
    return true;
  }

  /** Closers were held with this one (closerAfterCloser) for an example that may still come. */
  heldMore(): boolean {
    return this.pending !== null && this.pending.more > 0;
  }

  /** The held closer ended the call after all (a stray parameter next): it is let go; where the span ends unless what follows refuses the call. */
  endsCall(): number {
    this.pending = null;
    return this.trailBack;
  }

  /** The span was refused whole after its call's closer (SpanKind.refusesAfterCall): it no longer trails, nothing is held. */
  drop(): void {
    this.pending = null;
    this.trailing = false;
    this.trailBack = -1;
  }

  /** The held closer was the value's text: reading goes on inside the value. Returns the span's endsInBlock from before the closer. */
  resume(): boolean {
    const p = this.pending!;
    this.pending = null;
    this.trailing = false;
    this.trailBack = -1;
    if (p.rule.valueCloser !== null) {
      this.values.open = p.inValue;
      // A plain parameter's value (M07.5) read on: still open, as the walk keeps it.
      if (p.plainValue) this.values.plain = true;
    }
    return p.endsInBlock;
  }
}

/** A lower-case letter, or a letter of a caseless script (\p{Lo}: no \p{Lu}/\p{Lt} capital exists to mark a new sentence). */
const LOWER_CASE = /^[\p{Ll}\p{Lo}]$/u;
/** Lead states (pending.lead): a count of punctuation, or these. */
const STAR_FIRST = 100;
const STAR_SPACE = 101;
const LEAD_MAX = 4;
/**
 * What may stand before a running sentence's next word, so its first letter decides: `(` or a `)`
 * closing the aside the costume stood in, emphasis and strikethrough (`*`, `_`, `~~`), quotes, a
 * comma (ASCII, fullwidth, ideographic), a dash or an ellipsis going on, Spanish opening `¿`/`¡`, an
 * inline code span's backtick or a link's `[`. A `-` is not here: `- in` is a list item.
 */
const SENTENCE_LEAD = new Set([
  LPAREN, RPAREN, STAR, UNDERSCORE, TILDE, DQ, SQ, COMMA, BACKTICK, LBRACKET,
  0x201c, 0x2018, 0xab, // “ ‘ «
  0xff0c, 0x3001, 0xff08, 0xff09, 0x300c, 0x300e, // ， 、 （ ） 「 『
  0x2013, 0x2014, 0x2026, // – — …
  0xbf, 0xa1, // ¿ ¡
]);

/** Inline HTML elements looked past on the line after a paragraph costume's closer line (inlineElementEnd). */
const INLINE_ELEMENTS = new Set(["a", "abbr", "b", "cite", "code", "em", "i", "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "tt", "u", "var"]);
/** How far an inline element's tag is looked for (its line, up to its `>`). */
const INLINE_TAG_REACH = 200;

/**
 * An inline HTML element's opening or closing tag at `i` (`<code>`, `<b>`,
 * `<a href="x">`, `</em>`), on one line: where it ends, -1 when none stands there, or NEED_MORE
 * while the text so far could still be one. The line after a paragraph costume's closer line that
 * opens with one is weighed by the first letter after it (consistent with the chain rule).
 */
export function inlineElementEnd(s: string, i: number, final: boolean): number | typeof NEED_MORE {
  let k = i + 1;
  if (k < s.length && s.charCodeAt(k) === SLASH) k++;
  const nameStart = k;
  while (k < s.length && k - i < INLINE_TAG_REACH) {
    const c = s.charCodeAt(k) | 0x20;
    if (c < 0x61 || c > 0x7a) break;
    k++;
  }
  if (k >= s.length) return final ? -1 : NEED_MORE;
  if (!INLINE_ELEMENTS.has(s.slice(nameStart, k).toLowerCase())) return -1;
  const after = s.charCodeAt(k);
  if (after === GT) return k + 1;
  if (after !== SP && after !== TAB) return -1;
  while (k < s.length && k - i < INLINE_TAG_REACH) {
    const c = s.charCodeAt(k);
    if (c === GT) return k + 1;
    if (c === LT || c === LF || c === CR) return -1;
    k++;
  }
  return k >= s.length && !final && k - i < INLINE_TAG_REACH ? NEED_MORE : -1;
}
