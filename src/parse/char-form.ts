/**
 * Char-level forms: spans whose body is JSON or a name rather than tags (I10 named calls, O06
 * Mistral, the start of a `<tool_call>` body) are read one character at a time by a small state
 * machine their dialect owns; these are the pieces they share.
 */
import { BACKSLASH, COLON, CR, DASH, DOT, DQ, LBRACE, LBRACKET, LF, RBRACKET, SP, TAB, UNDERSCORE } from "../grammar/chars.ts";
export { HAND_OFF, type CharState } from "./span-kind.ts";

export const NAME_LIMIT = 64;

export const isSpaceCode = (c: number) => c === SP || c === TAB || c === LF || c === CR;

/** Where one JSON value ends, one character at a time: depth outside strings, escapes inside. */
export class JsonExtent {
  private depth = 0;
  #inString = false;
  private escaped = false;

  /** Inside a string literal, as of the last character stepped. */
  get inString(): boolean {
    return this.#inString;
  }

  /** Open objects and arrays, as of the last character stepped. */
  get level(): number {
    return this.depth;
  }

  /** True at the character that closes the outermost object or array. */
  step(c: number): boolean {
    if (this.#inString) {
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === DQ) this.#inString = false;
      return false;
    }
    if (c === DQ) this.#inString = true;
    else if (c === LBRACE || c === LBRACKET) this.depth++;
    else if (c === 0x7d || c === RBRACKET) return --this.depth === 0;
    return false;
  }
}

export const isNameCode = (c: number) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === UNDERSCORE || c === DASH || c === DOT || c === COLON;
