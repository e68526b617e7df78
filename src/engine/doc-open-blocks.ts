import type { InlineContext } from "./doc-inline.ts";
import { GT, TAB } from "../grammar/chars.ts";

/**
 * The open blocks of the documentation context's block structure (doc-blocks.ts reads the lines
 * into them): CommonMark's containers (blockquotes and list items), innermost last, and the open
 * leaf of the innermost one; and where the current line's start stands among them: the columns
 * read (tabs to the next multiple of 4), the containers matched by its `>` markers and
 * indentation, and those it opened. Closing or opening a leaf resets the paragraph's inline
 * context, which is shared with the reader.
 *
 * Containers nest at most MAX_DEPTH deep (deeper nesting is documentation as a whole), so every
 * walk here is bounded and a blank line costs O(1).
 */

/** Deeper nesting than this is documentation as a whole (keeps a blank line O(1)). */
const MAX_DEPTH = 32;

const nextTabStop = (col: number) => (col & ~3) + 4;

export const Leaf = { None: 0, Para: 1, Table: 2, Fence: 3, Code: 4, Html: 5 } as const;
type LeafValue = (typeof Leaf)[keyof typeof Leaf];

export class OpenBlocks {
  // The containers, innermost last.
  /** A blockquote; else a list item needing `need` columns of indentation. */
  private readonly quote: boolean[] = [];
  private readonly need: number[] = [];
  /** A list item with no content yet: a blank line ends it. */
  private readonly empty: boolean[] = [];
  /** Blockquotes among containers 0..i. */
  private readonly quotesTo: number[] = [];
  depth = 0;
  /** Containers beyond MAX_DEPTH were opened: everything is documentation until one closes. */
  deep = false;
  /** The open leaf block of the innermost container. */
  leaf: LeafValue = Leaf.None;
  /** The open HTML block's type (1-7). */
  htmlType = 0;

  // The current line.
  /** Column of the line's next character. */
  col = 0;
  /** Column where the content of the last matched (or opened) container starts. */
  base = 0;
  /** After `>`: one following space or tab column belongs to the marker. */
  private quoteSpace = false;
  /** Still matching: nothing but container markers and indentation read on this line. */
  matching = true;
  /** Containers matched so far on this line. */
  matched = 0;
  /** Containers opened on this line. */
  opened = 0;
  /** This line continues a paragraph lazily: the containers it did not match stay open. */
  lazy = false;

  constructor(private readonly inline: InlineContext) {}

  newLine(): void {
    this.col = 0;
    this.base = 0;
    this.quoteSpace = false;
    this.matching = true;
    this.matched = 0;
    this.opened = 0;
    this.lazy = false;
  }

  /** Columns of indentation past the matched (or opened) containers. */
  get indent(): number {
    return this.col - this.base;
  }

  /** Every container matched so far: the line continues the innermost one's open leaf. */
  get allMatched(): boolean {
    return this.matched === this.depth;
  }

  /** A blockquote among the open containers (all of them on a lazy line, which keeps them open). */
  get quoted(): boolean {
    return this.depth > 0 && this.quotesTo[this.depth - 1]! > 0;
  }

  /** A blockquote among the matched containers: whatever starts here is inside it. */
  get matchedQuoted(): boolean {
    return this.matched > 0 && this.quotesTo[this.matched - 1]! > 0;
  }

  /** The containers a block starting now stands in: all open ones once the line opened one, else the matched ones. */
  get enclosing(): number {
    return this.opened > 0 ? this.depth : this.matched;
  }

  /** The leaf is a paragraph (or table) and no container opened on this line: text here may continue it. */
  get tipIsParagraph(): boolean {
    return this.opened === 0 && (this.leaf === Leaf.Para || this.leaf === Leaf.Table);
  }

  /** The paragraph is the matched container's own: a block starting here interrupts it. */
  get interruptsParagraph(): boolean {
    return this.tipIsParagraph && this.matched === this.depth;
  }

  // The line's start.

  /** A space or tab before the line's content. */
  space(c: number): void {
    if (this.quoteSpace) {
      this.quoteSpace = false;
      this.base = this.col + 1;
    }
    this.pass(c);
  }

  /** A non-space character at the line's start: no later space belongs to a `>`. */
  nonSpace(): void {
    this.quoteSpace = false;
  }

  /** Any other character taken at the line's start (a list marker's, a construct's pending there). */
  pass(c: number): void {
    this.col = c === TAB ? nextTabStop(this.col) : this.col + 1;
  }

  /** Matches every list item whose indentation the line's leading whitespace covers. */
  matchItems(): void {
    while (this.matched < this.depth && !this.quote[this.matched] && this.col - this.base >= this.need[this.matched]!) {
      this.base += this.need[this.matched]!;
      this.matched++;
    }
  }

  /** The line's content starts here: it matches the list items its indentation covers, and no more containers. */
  contentStarts(): void {
    if (!this.matching) return;
    this.matchItems();
    this.matching = false;
  }

  /** `c` is the `>` that continues the next container, a blockquote. */
  continuesQuote(c: number): boolean {
    return c === GT && this.matched < this.depth && this.quote[this.matched]! && this.col - this.base <= 3;
  }

  matchQuote(): void {
    this.matched++;
    this.quoteMarker();
  }

  openQuote(): void {
    this.openContainer(true, 0);
    this.quoteMarker();
  }

  /** A list item whose content starts at column `contentCol`: the line goes on inside it. */
  openItem(contentCol: number): void {
    this.openContainer(false, contentCol - this.base);
    this.base = contentCol;
    this.matching = false;
  }

  // Leaves.

  /** Closes the containers this line did not match (a new block starts), and opens `leaf` in the innermost. */
  openLeaf(leaf: LeafValue): void {
    this.closeUnmatched();
    this.filled();
    this.leaf = leaf;
    this.inline.reset();
  }

  /** The line's text continues the open paragraph (lazily when containers did not match). */
  continueParagraph(): void {
    if (this.matched < this.depth) this.lazy = true;
  }

  /** The leaf ended; so does any inline documentation in it. */
  closeLeaf(): void {
    this.leaf = Leaf.None;
    this.inline.reset();
  }

  /** A thematic break: it ends the leaf, and the containers beyond the first `depth` (those opened on its line). */
  closeForBreak(depth: number): void {
    this.matched = depth;
    this.closeUnmatched();
    this.closeLeaf();
  }

  /**
   * The line ended at its start. Still matching, it was blank: list items with content match it,
   * blockquotes and empty items do not (they close), and a paragraph, table or HTML block of
   * type 6 or 7 ends.
   */
  blankLine(): void {
    if (!this.matching) return;
    while (this.matched < this.depth && !this.quote[this.matched] && !this.empty[this.matched]) this.matched++;
    if (this.matched < this.depth) {
      this.closeUnmatched();
      this.closeLeaf();
      return;
    }
    if (this.leaf === Leaf.Para || this.leaf === Leaf.Table || (this.leaf === Leaf.Html && this.htmlType >= 6)) this.closeLeaf();
  }

  /** The `>` at `col`: the blockquote's content starts right after it. */
  private quoteMarker(): void {
    this.col++;
    this.base = this.col;
    this.quoteSpace = true;
  }

  /** Opens a blockquote or a list item (content `need` columns in) inside the matched containers, closing the rest. */
  private openContainer(quote: boolean, need: number): void {
    this.closeUnmatched();
    this.filled();
    this.closeLeaf();
    this.opened++;
    if (this.depth >= MAX_DEPTH) {
      this.deep = true;
      return;
    }
    const d = this.depth++;
    this.quote[d] = quote;
    this.need[d] = need;
    this.empty[d] = !quote;
    this.quotesTo[d] = (d > 0 ? this.quotesTo[d - 1]! : 0) + (quote ? 1 : 0);
    this.matched = this.depth;
  }

  private closeUnmatched(): void {
    if (this.matched >= this.depth) return;
    this.depth = this.matched;
    this.deep = false;
  }

  /** The innermost container holds a block now: a blank line no longer ends it. */
  private filled(): void {
    if (this.depth > 0) this.empty[this.depth - 1] = false;
  }
}
