/**
 * Tracks Markdown documentation context one character at a time, so the engine never treats
 * quoted markup as a call: fences (backtick or tilde, any length), indented code blocks,
 * blockquotes and inline code spans, inside CommonMark's containers (list items, blockquotes).
 * Decisions depend only on earlier characters, which keeps whole-text and chunked runs identical.
 *
 * Where CommonMark's answer depends on what comes later, or on container state this class does
 * not keep, it takes the reading under which more text is documentation: calling a quote
 * documentation only costs a missed repair, running one is a wrong execution.
 * - A fence opens at any indentation, after list markers (`- `, `* `, `+ `, `1. `, `1) `) too.
 * - A fence opened at column k closes only at a run of its character, at least as long, with
 *   nothing after it, at a column c with k <= c <= max(k, 3): a closer in that range is a closer
 *   whatever list item holds the fence. A shallower run may be a container ending and a new
 *   fence opening, so it keeps the text in a fence; a deeper one is content.
 * - An inline code span runs on across lines until its closing run or the end of the paragraph.
 */
const BACKTICK = 0x60;
const TILDE = 0x7e;
const NEWLINE = 0x0a;
/** At most nine digits make an ordered list marker. */
const MAX_ORDINAL_DIGITS = 9;

/** Where the start of a line is, before its first content character. */
const Prefix = {
  /** Only spaces so far. */
  Indent: 0,
  /** A bullet (`-`, `*`, `+`) was read: a space or tab makes it a list marker. */
  Bullet: 1,
  /** Digits were read: `.` or `)` and then a space or tab make an ordered list marker. */
  Digits: 2,
  /** `1.` or `1)` was read: a space or tab makes it a list marker. */
  Ordinal: 3,
} as const;
type PrefixState = (typeof Prefix)[keyof typeof Prefix];

export class DocContext {
  private fenceChar = 0;
  private fenceLen = 0;
  /** Column of the open fence's run. */
  private fenceCol = 0;
  /** A closing run was read; it closes the fence only if nothing but spaces follows on its line. */
  private closePending = false;
  /** No content character seen on this line yet (spaces and container prefixes only). */
  private lineStart = true;
  /** Line-start spaces or list markers were read: some content must decide what they were. */
  private prefix: PrefixState = Prefix.Indent;
  private prefixLen = 0;
  /** Column of the next character at the start of a line (tabs to the next multiple of 4). */
  private indent = 0;
  /** A list marker on this line: the content after it is not at the true start of the line. */
  private afterListMarker = false;
  private lineDoc = false;
  private lineBlank = true;
  private prevBlank = true;
  private prevIndented = false;
  private lineIndented = false;
  private inlineLen = 0;
  private runChar = 0;
  private runLen = 0;
  private runAtLineStart = false;
  private runCol = 0;

  /** Whether a non-backtick character arriving now would be documentation. */
  inDoc(): boolean {
    this.resolveRun();
    if (this.fenceChar !== 0 || this.lineDoc || this.inlineLen > 0) return true;
    if (this.lineStart && !this.afterListMarker) return this.indent >= 4 && (this.prevBlank || this.prevIndented);
    return false;
  }

  /**
   * Mid-line with nothing pending: until the next newline, backtick or trigger, characters
   * cannot change any state here, so the engine may skip them without calling advance().
   */
  get midLine(): boolean {
    return !this.lineStart && this.runLen === 0 && !this.closePending;
  }

  /**
   * The columns (1 to 3) of indentation before a marker opening at the start of a line, else 0. A
   * candidate opened there is an indented (quoted) block: a paragraph indented less than it, after
   * a blank line, is no longer part of it (src/stream/candidate.ts).
   */
  quoteIndent(): number {
    return this.atLineStart() ? Math.min(this.indent, 3) : 0;
  }

  /** At the start of a line (only spaces so far) and not in documentation. */
  atLineStart(): boolean {
    return this.lineStart && !this.afterListMarker && this.prefix === Prefix.Indent && !this.inDoc();
  }

  /** After markup the engine removed from visible text: continue mid-line, outside any span. */
  afterMarkup(): void {
    this.runLen = 0;
    this.inlineLen = 0;
    this.closePending = false;
    this.lineStart = false;
    this.lineBlank = false;
    this.prefix = Prefix.Indent;
  }

  advanceText(text: string, from = 0, to = text.length): void {
    for (let i = from; i < to; i++) this.advance(text.charCodeAt(i));
  }

  advance(c: number): void {
    if (this.runLen > 0) {
      if (c === this.runChar) {
        this.runLen++;
        return;
      }
      this.resolveRun();
    }
    if (c === NEWLINE) {
      this.endLine();
      return;
    }
    if (this.closePending) {
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d) this.closePending = false;
      return;
    }
    if (this.lineStart) {
      if (this.readPrefix(c)) return;
      this.startLine(c);
      if (this.runLen > 0) return;
    }
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) this.lineBlank = false;
    if (c === BACKTICK && this.fenceChar === 0 && !this.lineDoc) {
      this.runChar = c;
      this.runLen = 1;
      this.runAtLineStart = false;
    }
  }

  /** Line-start spaces and list markers; true when `c` was taken as part of them. */
  private readPrefix(c: number): boolean {
    const space = c === 0x20 || c === 0x09;
    switch (this.prefix) {
      case Prefix.Indent:
        if (space) {
          this.indent = c === 0x09 ? (this.indent & ~3) + 4 : this.indent + 1;
          return true;
        }
        if (c === 0x0d) return true;
        // In a fence, or on an indented code line, a marker is only text.
        if (this.fenceChar !== 0 || this.lineDoc) return false;
        if (this.indent >= 4 && !this.afterListMarker && (this.prevBlank || this.prevIndented)) return false;
        if (c === 0x2d || c === 0x2a || c === 0x2b) {
          this.prefix = Prefix.Bullet;
          this.prefixLen = 1;
          return true;
        }
        if (c >= 0x30 && c <= 0x39) {
          this.prefix = Prefix.Digits;
          this.prefixLen = 1;
          return true;
        }
        return false;
      case Prefix.Digits:
        if (c >= 0x30 && c <= 0x39 && this.prefixLen < MAX_ORDINAL_DIGITS) {
          this.prefixLen++;
          return true;
        }
        if (c === 0x2e || c === 0x29) {
          this.prefix = Prefix.Ordinal;
          this.prefixLen++;
          return true;
        }
        break;
      case Prefix.Bullet:
      case Prefix.Ordinal:
        if (space) {
          // A list marker: what follows is the item's content, and may itself open a fence.
          this.indent += this.prefixLen;
          this.prefix = Prefix.Indent;
          this.afterListMarker = true;
          return this.readPrefix(c);
        }
        break;
    }
    // Not a marker after all: the characters read so far were the line's first content.
    this.prefix = Prefix.Indent;
    this.lineStart = false;
    this.lineBlank = false;
    return false;
  }

  private startLine(c: number): void {
    this.lineStart = false;
    this.lineBlank = false;
    if (this.fenceChar !== 0) {
      if (c === this.fenceChar) this.beginRun(c);
      return;
    }
    if (this.indent >= 4 && !this.afterListMarker && (this.prevBlank || this.prevIndented)) {
      this.lineDoc = true;
      this.lineIndented = true;
      return;
    }
    if (c === 0x3e) {
      this.lineDoc = true;
      return;
    }
    if (c === BACKTICK || c === TILDE) this.beginRun(c);
  }

  private beginRun(c: number): void {
    this.runChar = c;
    this.runLen = 1;
    this.runAtLineStart = true;
    this.runCol = this.indent;
  }

  private resolveRun(): void {
    if (this.runLen === 0) return;
    const len = this.runLen;
    const ch = this.runChar;
    this.runLen = 0;
    if (this.fenceChar !== 0) {
      if (!this.runAtLineStart || ch !== this.fenceChar || len < this.fenceLen) return;
      const col = this.runCol;
      if (col < this.fenceCol) {
        // Maybe a container ended and this run opens a new fence: text stays in a fence either way.
        this.fenceLen = len;
        this.fenceCol = col;
      } else if (col <= Math.max(this.fenceCol, 3)) {
        this.closePending = true;
      }
      return;
    }
    if (this.runAtLineStart && len >= 3) {
      this.fenceChar = ch;
      this.fenceLen = len;
      this.fenceCol = this.runCol;
      this.inlineLen = 0;
      return;
    }
    if (ch !== BACKTICK || this.lineDoc) return;
    if (this.inlineLen === 0) this.inlineLen = len;
    else if (this.inlineLen === len) this.inlineLen = 0;
  }

  private endLine(): void {
    this.resolveRun();
    if (this.closePending) {
      this.fenceChar = 0;
      this.fenceLen = 0;
      this.closePending = false;
    }
    // A code span ends with its paragraph: a blank line, or a line that is a block of its own.
    if (this.lineBlank || this.lineDoc || this.fenceChar !== 0) this.inlineLen = 0;
    this.prevBlank = this.lineBlank;
    this.prevIndented = this.lineIndented;
    this.lineStart = true;
    this.lineBlank = true;
    this.lineIndented = false;
    this.lineDoc = false;
    this.indent = 0;
    this.prefix = Prefix.Indent;
    this.afterListMarker = false;
  }
}
