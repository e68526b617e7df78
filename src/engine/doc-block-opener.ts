import { HtmlBlockStart } from "./doc-html.ts";
import { BACKTICK, DASH, DOT, HASH, LT, PLUS, RPAREN, SP, STAR, TAB, TILDE } from "../grammar/chars.ts";

/**
 * A construct pending at a block start, for the documentation context's block reader
 * (doc-blocks.ts): `#`s that open an ATX heading if a space or the line end follows, a backtick
 * or tilde run that opens a fence if it is three or more long, a list marker (`-`, `*`, `+`,
 * `1.`, `1)`) and the spaces after it, or a `<` that may open an HTML block of types 1-6. The
 * characters it took are kept (at most 16): if it fails they are replayed as paragraph text.
 */

/** What a pending construct turned out to be. */
export const Opens = {
  /** Not decided yet: the character was taken (if asked to). */
  Pending: 0,
  /** Nothing: its characters are paragraph text. */
  Text: 1,
  /** An ATX heading (the character, a space, starts its text). */
  Heading: 2,
  /** A fence (the character starts its info string). */
  Fence: 3,
  /** A list item (the character is its content, unless an ordinal other than 1 interrupts a paragraph). */
  Item: 4,
  /** An HTML block of type `htmlType`. */
  Html: 5,
} as const;
export type OpensValue = (typeof Opens)[keyof typeof Opens];

const Kind = { Hash: 0, Run: 1, Marker: 2, Html: 3 } as const;
type KindValue = (typeof Kind)[keyof typeof Kind];

/** At most nine digits make an ordered list marker. */
const MAX_ORDINAL_DIGITS = 9;

const isSpace = (c: number) => c === SP || c === TAB;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

export class BlockOpener {
  /** The characters taken so far. */
  taken = "";
  private kind: KindValue = Kind.Hash;
  /** `#`s read, or the length of the backtick or tilde run. */
  private runLen = 0;
  private runChar = 0;
  // A list marker: whether it is ordered (its digits, and its number capped at 10), whether a space followed it.
  private markOrdinal = false;
  private markDigits = 0;
  private markValue = 0;
  private markSpaced = false;
  /** The column right after the marker (0 while an ordinal has no `.` or `)` yet). */
  private markEnd = 0;
  private readonly html = new HtmlBlockStart();
  /** The HTML block type once it opens one. */
  htmlType = 0;

  /** Whether `c` at a block start may open one of them. */
  static starts(c: number): boolean {
    return c === HASH || c === BACKTICK || c === TILDE || c === LT || c === DASH || c === STAR || c === PLUS || isDigit(c);
  }

  /** Starts with `c` (one `starts` accepts), read at column `col`. */
  begin(c: number, col: number): void {
    this.taken = String.fromCharCode(c);
    this.runLen = 1;
    if (c === HASH) this.kind = Kind.Hash;
    else if (c === BACKTICK || c === TILDE) {
      this.kind = Kind.Run;
      this.runChar = c;
    } else if (c === LT) {
      this.kind = Kind.Html;
      this.html.begin();
    } else {
      this.kind = Kind.Marker;
      this.markOrdinal = isDigit(c);
      this.markDigits = 1;
      this.markValue = this.markOrdinal ? c - 0x30 : 0;
      this.markSpaced = false;
      this.markEnd = this.markOrdinal ? 0 : col + 1;
    }
  }

  /**
   * One more character, at column `col`. Same contract as the reader's step: with take false it
   * only tells what `c` decides, Pending without taking it.
   */
  step(c: number, take: boolean, col: number): OpensValue {
    switch (this.kind) {
      case Kind.Hash:
        if (c === HASH && this.runLen < 7) return this.tookRun(c, take);
        return this.runLen <= 6 && isSpace(c) ? Opens.Heading : Opens.Text;
      case Kind.Run:
        if (c === this.runChar) return this.tookRun(c, take);
        return this.runLen >= 3 ? Opens.Fence : Opens.Text;
      case Kind.Marker:
        return this.markerStep(c, take, col);
      default: {
        const type = this.html.step(c, take);
        if (type === 0) return this.took(c, take);
        if (type < 0) return Opens.Text;
        this.htmlType = type;
        return Opens.Html;
      }
    }
  }

  /** The line ended with it pending (`#`s alone make an empty heading, a marker alone an empty item). */
  atLineEnd(): OpensValue {
    switch (this.kind) {
      case Kind.Hash:
        return this.runLen <= 6 ? Opens.Heading : Opens.Text;
      case Kind.Run:
        return this.runLen >= 3 ? Opens.Fence : Opens.Text;
      case Kind.Marker:
        return !this.markOrdinal || this.markEnd > 0 ? Opens.Item : Opens.Text;
      default:
        this.htmlType = this.html.atLineEnd();
        return this.htmlType > 0 ? Opens.Html : Opens.Text;
    }
  }

  /** The fence's character and length (read as its info string goes on: a backtick there undoes a backtick fence). */
  get fenceChar(): number {
    return this.runChar;
  }

  get fenceLength(): number {
    return this.runLen;
  }

  /** A list item it opens may interrupt a paragraph: a bullet, or the ordinal 1. */
  get mayInterruptParagraph(): boolean {
    return !this.markOrdinal || this.markValue === 1;
  }

  /** Where the item's content starts when it is first read at column `col` (five or more spaces: indented code one column past the marker). */
  contentColumn(col: number): number {
    const spaces = col - this.markEnd;
    return this.markEnd + (spaces >= 5 ? 1 : spaces);
  }

  /** Where an empty item's content starts: one column past the marker. */
  get emptyContentColumn(): number {
    return this.markEnd + 1;
  }

  private markerStep(c: number, take: boolean, col: number): OpensValue {
    if (!this.markSpaced) {
      if (this.markOrdinal && this.markEnd === 0) {
        if (isDigit(c) && this.markDigits < MAX_ORDINAL_DIGITS) {
          if (take) {
            this.markValue = Math.min(this.markValue * 10 + c - 0x30, 10);
            this.markDigits++;
          }
          return this.took(c, take);
        }
        if (c === DOT || c === RPAREN) {
          if (take) this.markEnd = col + 1;
          return this.took(c, take);
        }
        return Opens.Text;
      }
      if (!isSpace(c)) return Opens.Text;
      if (!take) return Opens.Pending;
      this.markSpaced = true;
    }
    return isSpace(c) ? this.took(c, take) : Opens.Item;
  }

  private tookRun(c: number, take: boolean): OpensValue {
    if (take) this.runLen++;
    return this.took(c, take);
  }

  private took(c: number, take: boolean): OpensValue {
    if (take) this.taken += String.fromCharCode(c);
    return Opens.Pending;
  }
}
