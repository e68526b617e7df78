import { COSTUME_INNER, COSTUME_OPENERS, executeLanguage, nakedRole } from "../grammar/dialects.ts";
import { COLON, DASH, EQ, PIPE, SP, STAR, TAB, UNDERSCORE, isWhiteSpace } from "../grammar/chars.ts";
import type { InlineContext } from "./doc-inline.ts";

/**
 * Line shapes the documentation context's block reader (doc-blocks.ts) can only decide at the
 * line end, read one character at a time beside it: a thematic break or setext underline (one
 * kind of `-`, `*`, `_` or `=` and spaces), a table delimiter row (`|`, `-`, `:` and spaces), and
 * an HTML block of type 7 (the line is one complete tag, then only whitespace).
 */

/** Whether a shape may still be what the line is. */
const Line = { Off: 0, Live: 1, Dead: 2 } as const;
/**
 * A type 7 tag line: none; the line opened with a `<` (the next character noted is it); the tag
 * that `<` opened is being read and may make it one; the tag closed.
 */
const Tag = { None: 0, Lt: 1, Open: 2, Closed: 3 } as const;

const isSpace = (c: number) => c === SP || c === TAB;

/**
 * Tool-call markup names (`<shell>`, `<invoke>`, `<function>`...; `<tool_call>` is no HTML tag
 * name at all): a line holding only such a tag is the model's own markup (a call the engine did
 * not take, or its closer), not an HTML block of type 7 that would make the lines after it
 * documentation. `<pre>` and `<code>` are HTML elements first.
 */
const isMarkupName = (name: string) =>
  name !== "pre" && name !== "code" && (nakedRole(name) !== null || COSTUME_OPENERS.has(name) || COSTUME_INNER.has(name) || executeLanguage(name) !== null);

export class LineShapes {
  private brk: number = Line.Off;
  private brkChar = 0;
  private brkCount = 0;
  /** A space came after the run began: no setext underline any more. */
  private brkGap = false;
  private brkSetext = false;
  /** The containers a thematic break here leaves open. */
  private brkDepth = 0;
  private tbl: number = Line.Off;
  private tblPipe = false;
  private tblDash = false;
  private tag: number = Tag.None;
  /** The opening number of the tag the line's first `<` opened (InlineContext.openedTag). */
  private tagSeq = 0;

  newLine(): void {
    this.brk = Line.Off;
    this.tbl = Line.Off;
    this.tblPipe = false;
    this.tblDash = false;
    this.tag = Tag.None;
  }

  /** Markup the engine removed stood on the line: it is none of these shapes. */
  afterMarkup(): void {
    this.brk = Line.Dead;
    this.tbl = Line.Dead;
    this.tag = Tag.None;
  }

  /** A thematic break or a table delimiter row may still be the line: every character of it decides. */
  get live(): boolean {
    return this.brk === Line.Live || this.tbl === Line.Live;
  }

  /** A tag at the line's start may still make it an HTML block of type 7. */
  get tagPending(): boolean {
    return this.tag !== Tag.None;
  }

  /**
   * A non-space character `c` at a block start, `indent` columns past its containers. A thematic
   * break may start at every block start of the line (`- ***` is one inside an item); one already
   * running (`- - -`) wins while this character continues it. `underParagraph`: a paragraph
   * with text (not only reference definitions) is what the line would interrupt, so a run of
   * `-` or `=` may be its setext underline.
   */
  blockStart(c: number, indent: number, underParagraph: boolean, enclosing: number): void {
    if (this.brk !== Line.Live || c !== this.brkChar) {
      if (indent < 4 && (c === DASH || c === STAR || c === UNDERSCORE || c === EQ)) {
        this.brk = Line.Live;
        this.brkChar = c;
        this.brkCount = 0;
        this.brkGap = false;
        this.brkSetext = (c === DASH || c === EQ) && underParagraph;
        this.brkDepth = enclosing;
      } else this.brk = Line.Dead;
    }
    if (this.tbl !== Line.Live) this.tbl = indent < 4 && (c === PIPE || c === DASH || c === COLON) ? Line.Live : Line.Dead;
  }

  /** Every character of the line after its block start's. */
  track(c: number): void {
    if (this.brk === Line.Live) {
      if (c === this.brkChar) {
        this.brkCount++;
        if (this.brkGap) this.brkSetext = false;
      } else if (isSpace(c)) {
        if (this.brkCount > 0) this.brkGap = true;
      } else this.brk = Line.Dead;
    }
    if (this.tbl === Line.Live) {
      if (c === PIPE) this.tblPipe = true;
      else if (c === DASH) this.tblDash = true;
      else if (c !== COLON && !isSpace(c)) this.tbl = Line.Dead;
    }
  }

  /** Paragraph text opened with a `<` at a block start: it may be a type 7 tag line. */
  tagOpened(): void {
    this.tag = Tag.Lt;
  }

  /**
   * One character of the line's paragraph text, after `inline` read it. The line is a type 7
   * line only if the tag its first `<` opened completes: a tag a later `<` opens (`<Vec<u8>`,
   * `<a x=[ <span>`, or one inside the first tag's quoted value) is not it, and once the first
   * one failed the line is paragraph text (which may continue lazily).
   */
  noteTag(c: number, inline: InlineContext): void {
    if (this.tag === Tag.Lt) {
      this.tagSeq = inline.openedTag;
      this.tag = this.tagSeq !== 0 ? Tag.Open : Tag.None;
    } else if (this.tag === Tag.Open) {
      if (inline.closedTag === this.tagSeq) this.tag = isMarkupName(inline.closedTagName) ? Tag.None : Tag.Closed;
      else if (!inline.tagPending(this.tagSeq)) this.tag = Tag.None;
    } else if (this.tag === Tag.Closed && !isWhiteSpace(c)) this.tag = Tag.None; // `\s*$`: JavaScript's `\s`, as commonmark.js (doc-tag-reader.ts)
  }

  // At the line end.

  /** A setext underline (`-` or `=` only, no gap inside) under the paragraph this line would interrupt. */
  get underline(): boolean {
    return this.brk === Line.Live && this.brkSetext && (this.brkChar === DASH || this.brkChar === EQ);
  }

  /** Three or more of `-`, `*` or `_` and spaces. */
  get thematicBreak(): boolean {
    return this.brk === Line.Live && this.brkChar !== EQ && this.brkCount >= 3;
  }

  get breakDepth(): number {
    return this.brkDepth;
  }

  get delimiterRow(): boolean {
    return this.tbl === Line.Live && this.tblPipe && this.tblDash;
  }

  /** The line was one complete tag, then only whitespace: an HTML block of type 7. */
  get tagLine(): boolean {
    return this.tag === Tag.Closed;
  }
}
