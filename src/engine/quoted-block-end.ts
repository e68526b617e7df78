import { CR, LF, SP, TAB } from "../grammar/chars.ts";

/**
 * A block quoted with an indent (a bug report pasting a leak between paragraphs) ends at a blank
 * line followed by a line indented less than its opener: what follows is the writer's prose, so
 * the markup never completes from a closer or an invoke the prose happens to write. The candidate
 * (candidate.ts) then gives the quote up as text and the rest is scanned again. Each offset is
 * looked at once (a carry read again is skipped), so the candidate may ask for every character.
 */
export class QuotedBlockEnd {
  /** The last offset looked at, the current line's column and blankness, the line before's. */
  private seen = -1;
  private col = 0;
  private lineBlank = false;
  private blankBefore = false;
  /** The character looked at before was a CR: an LF now completes its CR LF, no second line end. */
  private cr = false;

  constructor(
    /** The opener's indentation (DocContext.quoteIndent), above 0. */
    private readonly indent: number,
  ) {}

  /** The character `c` at absolute offset `at` starts the prose after the quote. */
  endsAt(c: number, at: number): boolean {
    if (at <= this.seen) return false;
    this.seen = at;
    // A line ends at LF, CR LF or a lone CR (CommonMark; golden Q46.1).
    const crlf = c === LF && this.cr;
    this.cr = c === CR;
    if (crlf) return false;
    if (c === LF || c === CR) {
      this.blankBefore = this.lineBlank;
      this.lineBlank = true;
      this.col = 0;
      return false;
    }
    if (!this.lineBlank) return false;
    if (c === SP) this.col++;
    else if (c === TAB) this.col = (this.col & ~3) + 4;
    else {
      this.lineBlank = false;
      return this.blankBefore && this.col < this.indent;
    }
    return false;
  }
}
