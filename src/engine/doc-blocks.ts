import { BlockOpener, Opens, type OpensValue } from "./doc-block-opener.ts";
import { OpenFence } from "./doc-fence.ts";
import { HtmlBlockEnd } from "./doc-html.ts";
import { InlineContext } from "./doc-inline.ts";
import { LineShapes } from "./doc-line-shapes.ts";
import { Leaf, OpenBlocks } from "./doc-open-blocks.ts";
import { BACKTICK, CR, GT, LF, LT, PIPE, SP, TAB } from "../grammar/chars.ts";

/**
 * The documentation context's block reader: CommonMark's block structure one character at a
 * time, as its reference parser builds it (commonmark.js, `incorporateLine`). Each line matches
 * the open containers (doc-open-blocks.ts), then either continues the innermost one's open leaf
 * (a fence: doc-fence.ts, an HTML block: doc-html.ts) or starts blocks (doc-block-opener.ts holds
 * a construct still pending there); what a line is as a whole (a break, a table delimiter row, a
 * type 7 tag) is settled at its end (doc-line-shapes.ts). DocContext (doc-context.ts) asks the
 * questions; this only reads.
 */

/** What the current line is, as far as it has been read. */
export const Mode = {
  /** Line start: whitespace and container markers (`>`, list item indentation). */
  Prefix: 0,
  /** A construct pending at a block start (the BlockOpener's): heading, fence, list marker, HTML block. */
  Opener: 1,
  /** Paragraph, heading or table text: the inline context decides. */
  Text: 2,
  /** The rest of a fence's opening line (its info string). */
  Info: 3,
  /** A line inside an open fence: content, or its closer (the OpenFence's). */
  Fence: 4,
  /** Indented code: nothing matters until the line end. */
  Code: 5,
  /** HTML block content. */
  Html: 6,
} as const;
type ModeValue = (typeof Mode)[keyof typeof Mode];

const isSpace = (c: number) => c === SP || c === TAB;

export class BlockReader {
  protected readonly inline = new InlineContext();
  protected readonly blocks = new OpenBlocks(this.inline);
  protected readonly fence = new OpenFence();

  // The current line.
  protected mode: ModeValue = Mode.Prefix;
  /** Nothing but whitespace consumed on this line. */
  protected fresh = true;
  /** A paragraph was open when this line began: text here would continue it (both paragraph-start questions). */
  protected paragraphBefore = false;
  private heading = false;
  /** A table row: the rest of the line is documentation. */
  protected row = false;
  /** The last character was a CR: an LF right after it is the same line end. */
  private cr = false;

  private readonly opener = new BlockOpener();
  protected readonly shapes = new LineShapes();
  /** HTML block end (types 1-5) on the current line. */
  protected readonly htmlEnd = new HtmlBlockEnd();

  /** After markup the engine removed from visible text: continue as paragraph text, outside any inline span. */
  afterMarkup(): void {
    switch (this.mode) {
      case Mode.Prefix:
        this.blocks.contentStarts();
        this.startText();
        break;
      case Mode.Opener:
        this.replayAsText();
        break;
    }
    this.fresh = false;
    this.shapes.afterMarkup();
    this.inline.afterMarkup();
  }

  advanceText(text: string, from = 0, to = text.length): void {
    for (let i = from; i < to; i++) this.advance(text.charCodeAt(i));
  }

  advance(c: number): void {
    if (c === CR) {
      this.endLine();
      this.cr = true;
      return;
    }
    if (c === LF) {
      if (this.cr) this.cr = false;
      else this.endLine();
      return;
    }
    this.cr = false;
    this.step(c, true);
    this.shapes.track(c);
  }

  /** How many containers (block quotes, list items) hold a character `c` (not a line ending) arriving now; a pure read, as inDoc. */
  containerDepth(c: number): number {
    this.step(c, false);
    return this.blocks.depth;
  }

  /**
   * Handles `c`. With take false it only settles what `c`'s arrival decides about earlier
   * characters (a pending marker that `c` does not continue, the containers a line matches) and
   * stops where `c` itself would be consumed; step(c, false) then step(c, true) is step(c, true).
   */
  protected step(c: number, take: boolean): void {
    for (;;) {
      switch (this.mode) {
        case Mode.Prefix:
          if (isSpace(c)) {
            if (take) this.blocks.space(c);
            return;
          }
          this.blocks.nonSpace();
          if (this.blocks.matching) {
            this.blocks.matchItems();
            if (this.blocks.continuesQuote(c)) {
              if (!take) return;
              this.blocks.matchQuote();
              this.fresh = false;
              return;
            }
            this.blocks.matching = false;
            if (this.blocks.allMatched && this.continueLeaf(c)) continue;
          }
          if (!this.blockStart(c, take)) return;
          continue;
        case Mode.Opener: {
          const opens = this.opener.step(c, take, this.blocks.col);
          if (opens === Opens.Pending) {
            if (take) this.blocks.pass(c);
            return;
          }
          this.openerDecided(opens);
          continue;
        }
        case Mode.Text:
          this.inline.step(c, take);
          if (!take) return;
          if (!isSpace(c)) {
            if (this.fresh && c === PIPE) this.row = true;
            this.fresh = false;
          }
          this.shapes.noteTag(c, this.inline);
          return;
        case Mode.Info:
          if (c === BACKTICK && this.opener.fenceChar === BACKTICK) {
            // Not a fence after all: paragraph text whose code span opened with the run.
            this.startText();
            this.inline.openedSpan(this.opener.fenceLength);
            continue;
          }
          return;
        case Mode.Fence:
          this.fence.step(c, take);
          return;
        case Mode.Code:
          return;
        case Mode.Html:
          if (take && this.blocks.htmlType <= 5) this.htmlEnd.step(c);
          return;
      }
    }
  }

  /** All containers matched: whether the open leaf takes this line (mode set); false lets block starts try. */
  private continueLeaf(c: number): boolean {
    const indent = this.blocks.indent;
    switch (this.blocks.leaf) {
      case Leaf.Fence:
        this.fence.beginLine(c, indent);
        this.mode = Mode.Fence;
        return true;
      case Leaf.Html:
        this.mode = Mode.Html;
        this.htmlEnd.begin(this.blocks.htmlType);
        return true;
      case Leaf.Code:
        if (indent >= 4) {
          this.mode = Mode.Code;
          return true;
        }
        this.blocks.leaf = Leaf.None;
        return false;
      default:
        return false;
    }
  }

  /** A non-space character after the matched containers: true when the mode changed and `c` must be stepped again. */
  private blockStart(c: number, take: boolean): boolean {
    const indent = this.blocks.indent;
    // A paragraph of only reference definitions is none a setext underline turns into a heading.
    this.shapes.blockStart(c, indent, this.blocks.interruptsParagraph && !this.inline.onlyDefinitions, this.blocks.enclosing);
    if (indent >= 4) {
      if (this.blocks.tipIsParagraph) this.startText();
      else {
        this.blocks.openLeaf(Leaf.Code);
        this.mode = Mode.Code;
      }
      return true;
    }
    if (c === GT) {
      if (!take) return false;
      this.blocks.openQuote();
      this.fresh = false;
      return false;
    }
    if (BlockOpener.starts(c)) {
      if (!take) return false;
      this.fresh = false;
      this.opener.begin(c, this.blocks.col);
      this.blocks.pass(c);
      this.mode = Mode.Opener;
      return false;
    }
    this.startText();
    return true;
  }

  /** The pending construct decided what it is (on a character it did not take). */
  private openerDecided(opens: OpensValue): void {
    switch (opens) {
      case Opens.Heading:
        this.blocks.openLeaf(Leaf.None);
        this.heading = true;
        this.mode = Mode.Text;
        break;
      case Opens.Fence:
        this.mode = Mode.Info;
        break;
      case Opens.Item:
        // A list item, unless an ordinal other than 1 would interrupt a paragraph.
        if (!this.opener.mayInterruptParagraph && this.blocks.interruptsParagraph) this.replayAsText();
        else this.openItem(this.opener.contentColumn(this.blocks.col));
        break;
      case Opens.Html:
        this.openHtml(this.opener.htmlType);
        break;
      default:
        this.replayAsText();
    }
  }

  private openItem(contentCol: number): void {
    this.blocks.openItem(contentCol);
    this.mode = Mode.Prefix;
  }

  private openHtml(type: number): void {
    this.blocks.openLeaf(Leaf.Html);
    this.blocks.htmlType = type;
    this.mode = Mode.Html;
    this.htmlEnd.begin(type);
    // The end condition is looked for from the `<` on: `<!-- a -->` opens and closes on one line.
    const taken = this.opener.taken;
    if (type <= 5) for (let i = 0; i < taken.length; i++) this.htmlEnd.step(taken.charCodeAt(i));
  }

  /** The pending construct proved to be text: the line is paragraph text, and its characters are replayed as such. */
  private replayAsText(): void {
    const taken = this.opener.taken;
    const tag = taken.charCodeAt(0) === LT && !this.blocks.tipIsParagraph;
    this.startText();
    if (tag) this.shapes.tagOpened();
    for (let i = 0; i < taken.length; i++) {
      const ch = taken.charCodeAt(i);
      this.inline.step(ch, true);
      this.shapes.noteTag(ch, this.inline);
    }
  }

  /** The line is paragraph text: a continuation (lazy when containers did not match) or a new paragraph. */
  private startText(): void {
    if (this.blocks.tipIsParagraph) {
      this.blocks.continueParagraph();
      if (this.blocks.leaf === Leaf.Table) this.row = true;
    } else {
      this.blocks.openLeaf(Leaf.Para);
      // A new paragraph may open with link reference definitions (a continuation line never does).
      this.inline.paragraphStart();
    }
    this.mode = Mode.Text;
  }

  /** The fence opened on this line: its info string held no backtick that undid it. */
  private openFence(): void {
    this.blocks.openLeaf(Leaf.Fence);
    this.fence.open(this.opener.fenceChar, this.opener.fenceLength);
  }

  private endLine(): void {
    // A setext underline ends the paragraph; a thematic break also the containers opened on its line.
    if (this.shapes.underline && this.blocks.allMatched && !this.blocks.lazy) this.blocks.closeLeaf();
    else if (this.shapes.thematicBreak) this.blocks.closeForBreak(this.shapes.breakDepth);
    else this.endLineIn(this.mode);
    this.newLine();
  }

  /** The line, no break, ends in `mode`. */
  private endLineIn(mode: ModeValue): void {
    switch (mode) {
      case Mode.Prefix:
        this.blocks.blankLine();
        break;
      case Mode.Opener:
        this.openerLineEnd();
        break;
      case Mode.Info:
        this.openFence();
        break;
      case Mode.Text:
        this.textLineEnd(false);
        break;
      case Mode.Fence:
        if (this.fence.closes) this.blocks.leaf = Leaf.None;
        break;
      case Mode.Html:
        if (this.blocks.htmlType <= 5 && this.htmlEnd.done) this.blocks.leaf = Leaf.None;
        break;
    }
  }

  /** The line ended with a construct pending at a block start. */
  private openerLineEnd(): void {
    switch (this.opener.atLineEnd()) {
      case Opens.Heading:
        this.blocks.openLeaf(Leaf.None);
        break;
      case Opens.Fence:
        this.openFence();
        break;
      case Opens.Item:
        // A marker and nothing else: an empty list item, which cannot interrupt a paragraph.
        if (this.blocks.interruptsParagraph) this.textLineEnd(true);
        else this.openItem(this.opener.emptyContentColumn);
        break;
      case Opens.Html:
        this.openHtml(this.opener.htmlType);
        break;
      default:
        this.textLineEnd(true);
    }
  }

  /** End of a paragraph, heading or table line (`replay`: a pending line start is text first). */
  private textLineEnd(replay: boolean): void {
    if (replay) this.replayAsText();
    this.inline.endLine();
    if (this.heading) this.blocks.closeLeaf();
    else if (this.shapes.tagLine) {
      // The paragraph's one line was a complete tag: an HTML block of type 7 holds it and what follows.
      this.blocks.closeLeaf();
      this.blocks.leaf = Leaf.Html;
      this.blocks.htmlType = 7;
    } else if (this.shapes.delimiterRow && this.blocks.leaf === Leaf.Para) this.blocks.leaf = Leaf.Table;
  }

  private newLine(): void {
    this.mode = Mode.Prefix;
    this.blocks.newLine();
    this.fresh = true;
    // After the line's counts reset: a paragraph open at its end.
    this.paragraphBefore = this.blocks.tipIsParagraph;
    this.heading = false;
    this.row = false;
    this.shapes.newLine();
    this.htmlEnd.begin(0);
  }
}
