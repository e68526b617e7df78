import { SP, TAB } from "../grammar/chars.ts";

/**
 * The open fenced code block of the documentation context's block reader (doc-blocks.ts): its
 * character and length, and whether the current line inside it closes it (at most three columns
 * of indentation, a run of the fence character at least as long, then only spaces), read one
 * character at a time.
 */

const Line = {
  /** Fence content: nothing on the line matters. */
  Content: 0,
  /** A run of the fence character at the line's start: a closer? */
  Run: 1,
  /** A long enough run was read: only spaces may follow. */
  Spaces: 2,
} as const;

const isSpace = (c: number) => c === SP || c === TAB;

export class OpenFence {
  private char = 0;
  private len = 0;
  private line: number = Line.Content;
  private run = 0;

  open(char: number, len: number): void {
    this.char = char;
    this.len = len;
  }

  /** A line inside the fence, its first non-space character `c` at `indent` columns. */
  beginLine(c: number, indent: number): void {
    this.line = indent <= 3 && c === this.char ? Line.Run : Line.Content;
    this.run = 0;
  }

  /** Same contract as the reader's step: with take false only what `c` decides about earlier characters. */
  step(c: number, take: boolean): void {
    if (this.line === Line.Run) {
      if (c === this.char) {
        if (take) this.run++;
        return;
      }
      this.line = this.run >= this.len && isSpace(c) ? Line.Spaces : Line.Content;
    } else if (this.line === Line.Spaces && !isSpace(c)) this.line = Line.Content;
  }

  /** The line is fence content: until it ends nothing changes. */
  get content(): boolean {
    return this.line === Line.Content;
  }

  /** At the line end: the line closed the fence. */
  get closes(): boolean {
    return this.line === Line.Spaces || (this.line === Line.Run && this.run >= this.len);
  }
}
