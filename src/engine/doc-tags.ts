/**
 * The raw HTML and autolink attempts (doc-tag-attempt.ts) pending in paragraph text, for the
 * inline documentation tracker (doc-inline.ts).
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
 */
import { Attempt, Outcome, type OutcomeValue } from "./doc-tag-attempt.ts";

const MAX_ATTEMPTS = 8;

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
