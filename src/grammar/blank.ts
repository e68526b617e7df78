// Whitespace left alone beside a recovered call: one rule for every route that writes text parts
// (the Anthropic wire's stream and JSON, src/wires/anthropic; the AI SDK middleware's stream and
// generate, src/adapters/middleware). A text part of whitespace alone is replayed in the next
// request, and the Messages API refuses it ("text content blocks must contain non-whitespace
// text"); on any other API it is a part that says nothing. So whitespace while no text part is
// open (or while the open one shows no words) waits for words: it goes with them, is dropped when
// a call is taken out of that text, and at the text's end is shown only when no call was taken.
// Pure text, at the bottom layer, so both can import it.
import { CR, SP, TAB } from "./chars.ts";

/**
 * Unicode White_Space (tab, LF, VT, FF, CR, space, NEL, NBSP, U+1680, U+2000-U+200A, U+2028,
 * U+2029, U+202F, U+205F, U+3000), as an API's whitespace check reads it (Python's str.isspace, Rust's
 * char::is_whitespace). Not JavaScript's trim(): that also strips U+FEFF (a byte-order mark), which
 * is no whitespace, so a BOM before a call would be lost.
 */
export function isUnicodeWhiteSpace(c: number): boolean {
  if (c === SP || (c >= TAB && c <= CR)) return true;
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** Whitespace alone (Unicode White_Space), as an API reads a text part's; an empty text counts, as it is refused too. */
export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isUnicodeWhiteSpace(text.charCodeAt(i))) return false;
  return true;
}

/**
 * The whitespace waiting in one text (a text block, a text part) while it shows no words, and
 * whether a call was taken out of that text. `limit`: the most that waits (a stream's bound for
 * what it holds); past it, it is shown.
 */
export class BlankWait {
  /** Whitespace waiting for words. */
  text = "";
  /** A call was taken out of the text since it started: whitespace left alone in it is not sent. */
  removed = false;

  constructor(private readonly limit = Number.POSITIVE_INFINITY) {}

  /** A new text starts: nothing was taken out of it yet. */
  start(): void {
    this.text = "";
    this.removed = false;
  }

  /** Shown text while the text shows no words: true when it waits (empty, or whitespace alone within the limit). */
  waits(text: string): boolean {
    if (text === "") return true;
    if (!isBlank(text) || this.text.length + text.length > this.limit) return false;
    this.text += text;
    return true;
  }

  /** Words come (or everything passes as written): the whitespace that waited goes before them. */
  take(): string {
    const text = this.text;
    this.text = "";
    return text;
  }

  /** A call was taken out of the text: the whitespace that waited before it is not sent. */
  callTaken(): void {
    this.text = "";
    this.removed = true;
  }

  /** The text ends: the whitespace still waiting, when it is shown (no call was taken out of the text, or `failed`: everything passes as written); "" otherwise. */
  atEnd(failed = false): string {
    const text = this.text;
    this.text = "";
    return !this.removed || failed ? text : "";
  }
}
