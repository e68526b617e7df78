import { COSTUME_INNER, COSTUME_OPENERS, executeLanguage, nakedRole } from "../grammar/dialects.ts";
import { HtmlBlockEnd, HtmlBlockStart } from "./doc-html.ts";
import { InlineContext } from "./doc-inline.ts";
import { BACKTICK, COLON, CR, DASH, DOT, EQ, GT, HASH, LF, LT, PIPE, PLUS, RPAREN, SP, STAR, TAB, TILDE, UNDERSCORE } from "../grammar/chars.ts";

/**
 * Tracks where a reply is documentation, one character at a time, by following CommonMark's
 * block structure the way its reference parser does (commonmark.js, `incorporateLine`): a stack
 * of containers (blockquotes, list items with their content column), the open leaf of the
 * innermost one (paragraph, fence, indented code, HTML block, table), lazy continuation lines,
 * indented code only where a paragraph cannot continue, tabs to the next multiple of 4, and CR,
 * LF and CRLF line ends. Inline documentation (code spans, raw HTML, `<code>`-like elements,
 * link text, a link's destination and title, `$$` math) is the InlineContext's, and so are link
 * reference definitions: a new paragraph tells it that one may start there. test/property/commonmark-oracle.test.ts checks
 * the answers against commonmark.js.
 *
 * Documentation is: code (fenced, indented, spans, a fence's info string), anything inside a
 * blockquote (lazy lines included), raw HTML (blocks of types 1-7, inline tags, comments), table
 * rows, and the inline places of doc-inline.ts (a link's destination and title and a link
 * reference definition among them, read by doc-links.ts). Decisions depend only on earlier characters, so
 * whole-text and chunked runs agree. Where CommonMark's answer depends on later text (a backtick
 * fence whose info string later holds a backtick, an inline tag that may never close) the
 * reading under which more text is documentation is taken: calling a quote documentation only
 * costs a missed repair, running one is a wrong execution.
 *
 * Linear: every character is handled once in O(1) plus at most a few bounded replays (a line
 * start's pending marker, at most 16 characters); containers nest at most MAX_DEPTH deep (deeper
 * nesting is documentation as a whole), so a blank line costs O(1).
 */

/** Deeper nesting than this is documentation as a whole (keeps a blank line O(1)). */
const MAX_DEPTH = 32;
/** At most nine digits make an ordered list marker. */
const MAX_ORDINAL_DIGITS = 9;

/** What the current line is, as far as it has been read. */
const Mode = {
  /** Line start: whitespace and container markers (`>`, list item indentation). */
  Prefix: 0,
  /** `#` at a block start: an ATX heading if a space or the line end follows. */
  Hash: 1,
  /** A backtick or tilde run at a block start: a fence if it is three or more long. */
  Run: 2,
  /** A list marker at a block start (`-`, `*`, `+`, `1.`, `1)`) and the spaces after it. */
  Marker: 3,
  /** `<` at a block start: an HTML block of types 1-6 is being recognized. */
  HtmlStart: 4,
  /** Paragraph, heading or table text: the inline context decides. */
  Text: 5,
  /** The rest of a fence's opening line (its info string). */
  Info: 6,
  /** Code content (fenced or indented): nothing matters until the line end. */
  Code: 7,
  /** A run of the open fence's character at the start of a fence line: a closer? */
  CloseRun: 8,
  /** A closing run was read: only spaces may follow. */
  Close: 9,
  /** HTML block content. */
  Html: 10,
} as const;
type ModeValue = (typeof Mode)[keyof typeof Mode];

const Leaf = { None: 0, Para: 1, Table: 2, Fence: 3, Code: 4, Html: 5 } as const;
type LeafValue = (typeof Leaf)[keyof typeof Leaf];

const Line = { Off: 0, Live: 1, Dead: 2 } as const;

const isSpace = (c: number) => c === SP || c === TAB;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const nextTabStop = (col: number) => (col & ~3) + 4;
/**
 * Tool-call markup names (`<shell>`, `<invoke>`, `<function>`...; `<tool_call>` is no HTML tag
 * name at all): a line holding only such a tag is the model's own markup (a call the engine did
 * not take, or its closer), not an HTML block of type 7 that would make the lines after it
 * documentation. `<pre>` and `<code>` are HTML elements first.
 */
const isMarkupName = (name: string) =>
  name !== "pre" && name !== "code" && (nakedRole(name) !== null || COSTUME_OPENERS.has(name) || COSTUME_INNER.has(name) || executeLanguage(name) !== null);

export class DocContext {
  // Containers, innermost last: a blockquote, or a list item needing `need` columns of indentation.
  private readonly quote: boolean[] = [];
  private readonly need: number[] = [];
  /** A list item with no content yet: a blank line ends it. */
  private readonly empty: boolean[] = [];
  /** Blockquotes among containers 0..i. */
  private readonly quotesTo: number[] = [];
  private depth = 0;
  /** Containers beyond MAX_DEPTH were opened: everything is documentation until one closes. */
  private deep = false;
  /** The open leaf block of the innermost container. */
  private leaf: LeafValue = Leaf.None;
  private fenceChar = 0;
  private fenceLen = 0;
  private htmlType = 0;

  // The current line.
  private mode: ModeValue = Mode.Prefix;
  /** Column of the next character (tabs to the next multiple of 4). */
  private col = 0;
  /** Column where the content of the last matched (or opened) container starts. */
  private base = 0;
  /** Containers matched so far on this line. */
  private matched = 0;
  private matching = true;
  /** Containers opened on this line. */
  private opened = 0;
  /** After `>`: one following space or tab column belongs to the marker. */
  private quoteSpace = false;
  /** This line continues a paragraph lazily: the unmatched containers stay open. */
  private lazy = false;
  /** Nothing but whitespace consumed on this line. */
  private fresh = true;
  /** A paragraph was open when this line began: text here would continue it (both paragraph-start questions). */
  private paragraphBefore = false;
  private heading = false;
  /** A table row: the rest of the line is documentation. */
  private row = false;
  /** The last character was a CR: an LF right after it is the same line end. */
  private cr = false;

  // A construct pending at a block start, and the characters it took (replayed as text if it fails).
  private pend = "";
  private runChar = 0;
  private runLen = 0;
  private markCol = 0;
  private markWidth = 0;
  private markOrdinal = false;
  private markValue = 0;
  private markSpaced = false;
  private markEnd = 0;
  private readonly htmlStart = new HtmlBlockStart();
  /** The fence opened on this line (committed at the line end: a backtick in the info string undoes it). */
  private infoChar = 0;
  private infoLen = 0;

  // Line shapes decided at the line end: thematic break / setext underline, table delimiter row, HTML block type 7.
  private brk: number = Line.Off;
  private brkChar = 0;
  private brkCount = 0;
  private brkGap = false;
  private brkSetext = false;
  private brkDepth = 0;
  private tbl: number = Line.Off;
  private tblPipe = false;
  private tblDash = false;
  /** 1: the line opened with a tag that may make it an HTML block of type 7; 2: the tag closed. */
  private t7 = 0;

  /** HTML block end (types 1-5) on the current line. */
  private readonly htmlEnd = new HtmlBlockEnd();

  private readonly inline = new InlineContext();

  /** Whether a character `c` (a trigger: `<`, a bar, `[`, a name start) arriving now would be documentation. */
  inDoc(c = LT): boolean {
    if (c === LF || c === CR) return false;
    this.step(c, false);
    return this.docNow() || (this.mode === Mode.Text && this.inline.escapes(c));
  }

  /**
   * Mid-line with nothing pending: until the next character the engine stops at (see
   * SPECIAL in engine.ts), characters cannot change any state here.
   */
  get midLine(): boolean {
    // A thematic break or a table delimiter row is decided by every character of its line.
    if (this.brk === Line.Live || this.tbl === Line.Live) return false;
    switch (this.mode) {
      case Mode.Code:
        return true;
      case Mode.Info:
        return true;
      case Mode.Html:
        return this.htmlType >= 6 || this.htmlEnd.done;
      case Mode.Text:
        // A fresh line may still hold a line-start construct (a costume, a residue name) the engine checks for.
        return !this.fresh && this.t7 === 0 && this.inline.quiet;
      default:
        return false;
    }
  }

  /**
   * The columns (1 to 3) of indentation before a marker opening at the start of a line (past its
   * containers' prefixes), else 0. A candidate opened there is an indented (quoted) block: a
   * paragraph indented less than it, after a blank line, is no longer part of it
   * (src/engine/candidate.ts).
   */
  quoteIndent(c = LT): number {
    return this.atLineStart(c) ? Math.min(this.col - this.base, 3) : 0;
  }

  /** At the start of a line (only whitespace and matched list indentation so far) and not in documentation. */
  atLineStart(c = LT): boolean {
    if (c === LF || c === CR) return false;
    this.step(c, false);
    return this.fresh && this.opened === 0 && !this.docNow();
  }

  /** At the start of a line that opens a new paragraph (it continues none) and not in documentation. */
  atParagraphStart(c = LT): boolean {
    return this.atLineStart(c) && !this.paragraphBefore;
  }

  /**
   * At the start of a paragraph at the top level (no container, no indentation, nothing or a
   * blank line or another block before it) and not in documentation: where a JSON call may stand
   * alone (issue 29 item 12). A line that would continue a paragraph is not one.
   */
  atTopLevelParagraphStart(c = LT): boolean {
    return this.atLineStart(c) && this.depth === 0 && this.col === 0 && this.mode === Mode.Text && !this.paragraphBefore;
  }

  /** After markup the engine removed from visible text: continue as paragraph text, outside any inline span. */
  afterMarkup(): void {
    switch (this.mode) {
      case Mode.Prefix:
        if (this.matching) {
          this.matchItems();
          this.matching = false;
        }
        this.startText();
        break;
      case Mode.Hash:
      case Mode.Run:
      case Mode.Marker:
      case Mode.HtmlStart:
        this.replayAsText();
        break;
    }
    this.fresh = false;
    this.brk = Line.Dead;
    this.tbl = Line.Dead;
    this.t7 = 0;
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
    this.trackShapes(c);
  }

  private docNow(): boolean {
    if (this.deep) return true;
    switch (this.mode) {
      case Mode.Code:
      case Mode.Info:
      case Mode.CloseRun:
      case Mode.Close:
      case Mode.Html:
        return true;
      case Mode.Text:
        return this.quoted || this.row || this.inline.inDoc;
      default:
        // Undecided line start: it may still continue the paragraph (lazily, inside every open container).
        if (this.tipIsParagraph) return this.quoted || this.leaf === Leaf.Table || this.inline.inDoc;
        // Whatever starts here closes the containers the line did not match.
        return this.matched > 0 && this.quotesTo[this.matched - 1]! > 0;
    }
  }

  /**
   * Handles `c`. With take false it only settles what `c`'s arrival decides about earlier
   * characters (a pending marker that `c` does not continue, the containers a line matches) and
   * stops where `c` itself would be consumed; step(c, false) then step(c, true) is step(c, true).
   */
  private step(c: number, take: boolean): void {
    for (;;) {
      switch (this.mode) {
        case Mode.Prefix:
          if (isSpace(c)) {
            if (!take) return;
            if (this.quoteSpace) {
              this.quoteSpace = false;
              this.base = this.col + 1;
            }
            this.col = c === TAB ? nextTabStop(this.col) : this.col + 1;
            return;
          }
          this.quoteSpace = false;
          if (this.matching) {
            this.matchItems();
            if (this.matched < this.depth && this.quote[this.matched] && c === GT && this.col - this.base <= 3) {
              if (!take) return;
              this.col++;
              this.base = this.col;
              this.matched++;
              this.quoteSpace = true;
              this.fresh = false;
              return;
            }
            this.matching = false;
            if (this.matched === this.depth && this.continueLeaf(c)) continue;
          }
          if (!this.blockStart(c, take)) return;
          continue;
        case Mode.Hash:
          if (c === HASH && this.runLen < 7) {
            if (!take) return;
            this.runLen++;
            this.pend += "#";
            return;
          }
          if (this.runLen <= 6 && isSpace(c)) {
            this.openLeaf(Leaf.None);
            this.pend = "";
            this.heading = true;
            this.mode = Mode.Text;
          } else this.replayAsText();
          continue;
        case Mode.Run:
          if (c === this.runChar) {
            if (!take) return;
            this.runLen++;
            this.pend += String.fromCharCode(c);
            return;
          }
          if (this.runLen >= 3) {
            this.infoChar = this.runChar;
            this.infoLen = this.runLen;
            this.pend = "";
            this.mode = Mode.Info;
          } else this.replayAsText();
          continue;
        case Mode.Marker:
          if (!this.markerStep(c, take)) return;
          continue;
        case Mode.HtmlStart: {
          const r = this.htmlStart.step(c, take);
          if (r === 0) {
            if (take) {
              this.pend += String.fromCharCode(c);
              this.col++;
            }
            return;
          }
          if (r > 0) this.openHtml(r);
          else this.replayAsText();
          continue;
        }
        case Mode.Text:
          this.inline.step(c, take);
          if (!take) return;
          if (!isSpace(c)) {
            if (this.fresh && c === PIPE) this.row = true;
            this.fresh = false;
          }
          this.noteTag(c);
          return;
        case Mode.Info:
          if (c === BACKTICK && this.infoChar === BACKTICK) {
            // Not a fence after all: paragraph text whose code span opened with the run.
            this.startText();
            this.inline.openedSpan(this.infoLen);
            this.mode = Mode.Text;
            continue;
          }
          return;
        case Mode.Code:
          return;
        case Mode.CloseRun:
          if (c === this.fenceChar) {
            if (take) this.runLen++;
            return;
          }
          this.mode = this.runLen >= this.fenceLen && isSpace(c) ? Mode.Close : Mode.Code;
          continue;
        case Mode.Close:
          if (!isSpace(c)) {
            this.mode = Mode.Code;
            continue;
          }
          return;
        case Mode.Html:
          if (take && this.htmlType <= 5) this.htmlEnd.step(c);
          return;
      }
    }
  }

  /** Every list item whose indentation the line's leading whitespace covers. */
  private matchItems(): void {
    while (this.matched < this.depth && !this.quote[this.matched] && this.col - this.base >= this.need[this.matched]!) {
      this.base += this.need[this.matched]!;
      this.matched++;
    }
  }

  /** All containers matched: whether the open leaf takes this line (mode set); false lets block starts try. */
  private continueLeaf(c: number): boolean {
    const indent = this.col - this.base;
    switch (this.leaf) {
      case Leaf.Fence:
        if (indent <= 3 && c === this.fenceChar) {
          this.mode = Mode.CloseRun;
          this.runLen = 0;
        } else this.mode = Mode.Code;
        return true;
      case Leaf.Html:
        this.mode = Mode.Html;
        this.htmlEnd.begin(this.htmlType);
        return true;
      case Leaf.Code:
        if (indent >= 4) {
          this.mode = Mode.Code;
          return true;
        }
        this.leaf = Leaf.None;
        return false;
      default:
        return false;
    }
  }

  /** A blockquote among the open containers (all of them on a lazy line, which keeps them open). */
  private get quoted(): boolean {
    return this.depth > 0 && this.quotesTo[this.depth - 1]! > 0;
  }

  private get tipIsParagraph(): boolean {
    return this.opened === 0 && (this.leaf === Leaf.Para || this.leaf === Leaf.Table);
  }

  /** The paragraph is the matched container itself: a list marker here interrupts it. */
  private get interruptsParagraph(): boolean {
    return this.tipIsParagraph && this.matched === this.depth;
  }

  /** A non-space character after the matched containers: true when the mode changed and `c` must be stepped again. */
  private blockStart(c: number, take: boolean): boolean {
    const indent = this.col - this.base;
    // A thematic break may start at every block start of the line (`- ***` is one inside an item);
    // one already running (`- - -`) wins while this character continues it.
    if (this.brk !== Line.Live || c !== this.brkChar) {
      if (indent < 4 && (c === DASH || c === STAR || c === UNDERSCORE || c === EQ)) {
        this.brk = Line.Live;
        this.brkChar = c;
        this.brkCount = 0;
        this.brkGap = false;
        this.brkSetext = (c === DASH || c === EQ) && this.interruptsParagraph;
        this.brkDepth = this.opened > 0 ? this.depth : this.matched;
      } else this.brk = Line.Dead;
    }
    if (this.tbl !== Line.Live) this.tbl = indent < 4 && (c === PIPE || c === DASH || c === COLON) ? Line.Live : Line.Dead;
    if (indent >= 4) {
      if (this.tipIsParagraph) this.startText();
      else {
        this.openLeaf(Leaf.Code);
        this.mode = Mode.Code;
      }
      return true;
    }
    switch (c) {
      case GT:
        if (!take) return false;
        this.push(true, 0);
        this.col++;
        this.base = this.col;
        this.quoteSpace = true;
        this.fresh = false;
        return false;
      case HASH:
      case BACKTICK:
      case TILDE:
      case LT:
      case DASH:
      case STAR:
      case PLUS:
        if (!take) return false;
        this.fresh = false;
        this.pend = String.fromCharCode(c);
        this.col++;
        if (c === HASH) {
          this.mode = Mode.Hash;
          this.runLen = 1;
        } else if (c === BACKTICK || c === TILDE) {
          this.mode = Mode.Run;
          this.runChar = c;
          this.runLen = 1;
        } else if (c === LT) {
          this.mode = Mode.HtmlStart;
          this.htmlStart.begin();
        } else this.beginMarker(false, 1);
        return false;
      default:
        if (isDigit(c)) {
          if (!take) return false;
          this.fresh = false;
          this.pend = String.fromCharCode(c);
          this.col++;
          this.beginMarker(true, 1);
          this.markValue = c - 0x30;
          return false;
        }
        this.startText();
        return true;
    }
  }

  private beginMarker(ordinal: boolean, width: number): void {
    this.mode = Mode.Marker;
    this.markCol = this.col - width;
    this.markWidth = width;
    this.markOrdinal = ordinal;
    this.markValue = 0;
    this.markSpaced = false;
    this.markEnd = ordinal ? 0 : this.col;
  }

  /** One character after a list marker's first: true when the mode changed and `c` must be stepped again. */
  private markerStep(c: number, take: boolean): boolean {
    if (!this.markSpaced) {
      if (this.markOrdinal && this.markEnd === 0) {
        if (isDigit(c) && this.markWidth < MAX_ORDINAL_DIGITS) {
          if (!take) return false;
          this.markValue = Math.min(this.markValue * 10 + c - 0x30, 10);
          this.markWidth++;
          this.col++;
          this.pend += String.fromCharCode(c);
          return false;
        }
        if (c === DOT || c === RPAREN) {
          if (!take) return false;
          this.markWidth++;
          this.col++;
          this.markEnd = this.col;
          this.pend += String.fromCharCode(c);
          return false;
        }
        this.replayAsText();
        return true;
      }
      if (!isSpace(c)) {
        this.replayAsText();
        return true;
      }
      if (!take) return false;
      this.markSpaced = true;
    }
    if (isSpace(c)) {
      if (!take) return false;
      this.col = c === TAB ? nextTabStop(this.col) : this.col + 1;
      this.pend += String.fromCharCode(c);
      return false;
    }
    // Content after the marker: a list item, unless an ordinal other than 1 would interrupt a paragraph.
    if (this.markOrdinal && this.markValue !== 1 && this.interruptsParagraph) {
      this.replayAsText();
      return true;
    }
    const spaces = this.col - this.markEnd;
    this.openItem(spaces >= 5 ? 1 : spaces);
    return true;
  }

  private openItem(padding: number): void {
    const contentCol = this.markEnd + padding;
    this.push(false, contentCol - this.base);
    this.base = contentCol;
    this.pend = "";
    this.mode = Mode.Prefix;
    this.matching = false;
  }

  private openHtml(type: number): void {
    const pend = this.pend;
    this.pend = "";
    this.openLeaf(Leaf.Html);
    this.htmlType = type;
    this.mode = Mode.Html;
    this.htmlEnd.begin(type);
    // The end condition is looked for from the `<` on: `<!-- a -->` opens and closes on one line.
    if (type <= 5) for (let i = 0; i < pend.length; i++) this.htmlEnd.step(pend.charCodeAt(i));
  }

  /** A pending line-start construct proved to be text: the line is paragraph text, and its characters are replayed as such. */
  private replayAsText(): void {
    const pend = this.pend;
    this.pend = "";
    const tag = pend.charCodeAt(0) === LT && !this.tipIsParagraph;
    this.startText();
    if (tag) this.t7 = 1;
    for (let i = 0; i < pend.length; i++) {
      const ch = pend.charCodeAt(i);
      this.inline.step(ch, true);
      this.noteTag(ch);
    }
  }

  /** HTML block type 7: the line is one complete tag, then only whitespace. */
  private noteTag(c: number): void {
    if (this.t7 === 1) {
      if (this.inline.tagClosed) this.t7 = isMarkupName(this.inline.closedTagName) ? 0 : 2;
      else if (!this.inline.inTag) this.t7 = 0;
    } else if (this.t7 === 2 && !isSpace(c)) this.t7 = 0;
  }

  /** The line is paragraph text: a continuation (lazy when containers did not match) or a new paragraph. */
  private startText(): void {
    if (this.tipIsParagraph) {
      if (this.matched < this.depth) this.lazy = true;
      if (this.leaf === Leaf.Table) this.row = true;
    } else {
      this.openLeaf(Leaf.Para);
      // A new paragraph may open with link reference definitions (a continuation line never does).
      this.inline.paragraphStart();
    }
    this.mode = Mode.Text;
  }

  /** Closes the containers this line did not match (a new block starts), and opens `leaf` in the innermost. */
  private openLeaf(leaf: LeafValue): void {
    this.closeUnmatched();
    this.leaf = leaf;
    this.inline.reset();
    if (this.depth > 0) this.empty[this.depth - 1] = false;
  }

  private closeUnmatched(): void {
    if (this.matched >= this.depth) return;
    this.depth = this.matched;
    this.deep = false;
    this.leaf = Leaf.None;
    this.inline.reset();
  }

  private push(quote: boolean, need: number): void {
    this.closeUnmatched();
    if (this.depth > 0) this.empty[this.depth - 1] = false;
    this.leaf = Leaf.None;
    this.inline.reset();
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

  /** Thematic break / setext underline and table delimiter row candidates, for the line end. */
  private trackShapes(c: number): void {
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

  private endLine(): void {
    if (this.brk === Line.Live && this.endsAsBreak()) {
      this.newLine();
      return;
    }
    switch (this.mode) {
      case Mode.Prefix:
        if (this.matching) this.blankLine();
        break;
      case Mode.Hash:
        if (this.runLen <= 6) this.openLeaf(Leaf.None);
        else this.textLineEnd(true);
        break;
      case Mode.Run:
        if (this.runLen >= 3) this.openFence(this.runChar, this.runLen);
        else this.textLineEnd(true);
        break;
      case Mode.Info:
        this.openFence(this.infoChar, this.infoLen);
        break;
      case Mode.Marker:
        if (!this.markOrdinal || this.markEnd > 0) {
          // A marker and nothing else: an empty list item, which cannot interrupt a paragraph.
          if (this.interruptsParagraph) this.textLineEnd(true);
          else this.openItem(1);
        } else this.textLineEnd(true);
        break;
      case Mode.HtmlStart:
        if (this.htmlStart.atLineEnd() > 0) this.openHtml(this.htmlStart.atLineEnd());
        else this.textLineEnd(true);
        break;
      case Mode.Text:
        this.textLineEnd(false);
        break;
      case Mode.CloseRun:
        if (this.runLen >= this.fenceLen) this.leaf = Leaf.None;
        break;
      case Mode.Close:
        this.leaf = Leaf.None;
        break;
      case Mode.Html:
        if (this.htmlType <= 5 && this.htmlEnd.done) this.leaf = Leaf.None;
        break;
    }
    this.newLine();
  }

  /** The line was only one kind of `-`, `*`, `_` or `=` and spaces: a setext underline or a thematic break ends the paragraph. */
  private endsAsBreak(): boolean {
    const ch = this.brkChar;
    if (this.brkSetext && this.matched === this.depth && !this.lazy && (ch === DASH || ch === EQ)) {
      this.leaf = Leaf.None;
      this.inline.reset();
      return true;
    }
    if (ch === EQ || this.brkCount < 3) return false;
    this.matched = this.brkDepth;
    this.lazy = false;
    this.closeUnmatched();
    if (this.depth > this.brkDepth) this.depth = this.brkDepth;
    this.leaf = Leaf.None;
    this.inline.reset();
    return true;
  }

  /** Only whitespace after the matched containers: list items with content match, blockquotes do not. */
  private blankLine(): void {
    while (this.matched < this.depth && !this.quote[this.matched] && !this.empty[this.matched]) this.matched++;
    if (this.matched < this.depth) {
      this.closeUnmatched();
      return;
    }
    if (this.leaf === Leaf.Para || this.leaf === Leaf.Table || (this.leaf === Leaf.Html && this.htmlType >= 6)) {
      this.leaf = Leaf.None;
      this.inline.reset();
    }
  }

  private openFence(ch: number, len: number): void {
    this.openLeaf(Leaf.Fence);
    this.fenceChar = ch;
    this.fenceLen = len;
  }

  /** End of a paragraph, heading or table line (`replay`: a pending line start is text first). */
  private textLineEnd(replay: boolean): void {
    if (replay) this.replayAsText();
    this.inline.endLine();
    if (this.heading) {
      this.leaf = Leaf.None;
      this.inline.reset();
    } else if (this.t7 === 2) {
      this.leaf = Leaf.Html;
      this.htmlType = 7;
      this.inline.reset();
    } else if (this.tbl === Line.Live && this.tblPipe && this.tblDash && this.leaf === Leaf.Para) this.leaf = Leaf.Table;
  }

  private newLine(): void {
    this.mode = Mode.Prefix;
    this.col = 0;
    this.base = 0;
    this.matched = 0;
    this.matching = true;
    this.opened = 0;
    this.quoteSpace = false;
    this.lazy = false;
    this.fresh = true;
    this.paragraphBefore = this.tipIsParagraph;
    this.heading = false;
    this.row = false;
    this.pend = "";
    this.brk = Line.Off;
    this.tbl = Line.Off;
    this.tblPipe = false;
    this.tblDash = false;
    this.t7 = 0;
    this.htmlEnd.begin(0);
  }
}
