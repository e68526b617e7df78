/**
 * Tracks Markdown documentation context one character at a time, so the engine never treats
 * quoted markup as a call: fences (backtick or tilde, any length), indented code blocks,
 * blockquotes and inline code spans. Decisions depend only on earlier characters, which keeps
 * whole-text and chunked runs identical.
 *
 * Simplification (documented in PATTERNS.md): an inline code span ends at the end of its line.
 */
const BACKTICK = 0x60;
const TILDE = 0x7e;
const NEWLINE = 0x0a;

export class DocContext {
  private fenceChar = 0;
  private fenceLen = 0;
  private closeFenceAtEol = false;
  /** No non-space character seen on this line yet. */
  private lineStart = true;
  private indent = 0;
  private lineDoc = false;
  private lineBlank = true;
  private prevBlank = true;
  private prevIndented = false;
  private lineIndented = false;
  private inlineLen = 0;
  private runChar = 0;
  private runLen = 0;
  private runAtLineStart = false;

  /** Whether a non-backtick character arriving now would be documentation. */
  inDoc(): boolean {
    this.resolveRun();
    if (this.fenceChar !== 0 || this.lineDoc || this.inlineLen > 0) return true;
    if (this.lineStart) return this.indent >= 4 && (this.prevBlank || this.prevIndented);
    return false;
  }

  /**
   * Mid-line with no backtick run pending: until the next newline, backtick or trigger, characters
   * cannot change any state here, so the engine may skip them without calling advance().
   */
  get midLine(): boolean {
    return !this.lineStart && this.runLen === 0;
  }

  /** At the start of a line (only spaces so far) and not in documentation. */
  atLineStart(): boolean {
    return this.lineStart && !this.inDoc();
  }

  /** After markup the engine removed from visible text: continue mid-line, outside any span. */
  afterMarkup(): void {
    this.runLen = 0;
    this.inlineLen = 0;
    this.lineStart = false;
    this.lineBlank = false;
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
    if (this.lineStart) {
      if (c === 0x20) {
        this.indent++;
        return;
      }
      if (c === 0x09) {
        this.indent += 4;
        return;
      }
      if (c === 0x0d) return;
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

  private startLine(c: number): void {
    this.lineStart = false;
    this.lineBlank = false;
    if (this.fenceChar !== 0) {
      if (c === this.fenceChar && this.indent <= 3) {
        this.runChar = c;
        this.runLen = 1;
        this.runAtLineStart = true;
      }
      return;
    }
    if (this.indent >= 4 && (this.prevBlank || this.prevIndented)) {
      this.lineDoc = true;
      this.lineIndented = true;
      return;
    }
    if (c === 0x3e && this.indent <= 3) {
      this.lineDoc = true;
      return;
    }
    if ((c === BACKTICK || c === TILDE) && this.indent <= 3) {
      this.runChar = c;
      this.runLen = 1;
      this.runAtLineStart = true;
    }
  }

  private resolveRun(): void {
    if (this.runLen === 0) return;
    const len = this.runLen;
    const ch = this.runChar;
    this.runLen = 0;
    if (this.fenceChar !== 0) {
      if (this.runAtLineStart && ch === this.fenceChar && len >= this.fenceLen) this.closeFenceAtEol = true;
      return;
    }
    if (this.runAtLineStart && len >= 3) {
      this.fenceChar = ch;
      this.fenceLen = len;
      return;
    }
    if (ch !== BACKTICK || this.lineDoc) return;
    if (this.inlineLen === 0) this.inlineLen = len;
    else if (this.inlineLen === len) this.inlineLen = 0;
  }

  private endLine(): void {
    this.resolveRun();
    if (this.closeFenceAtEol) {
      this.fenceChar = 0;
      this.fenceLen = 0;
      this.closeFenceAtEol = false;
    }
    this.prevBlank = this.lineBlank;
    this.prevIndented = this.lineIndented;
    this.lineStart = true;
    this.lineBlank = true;
    this.lineIndented = false;
    this.lineDoc = false;
    this.indent = 0;
    this.inlineLen = 0;
  }
}
