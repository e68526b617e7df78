import { GT, LT, SLASH } from "../../grammar/chars.ts";
import { isSpaceCode } from "../char-form.ts";

// Split from tool-call-body.ts (a Hermes body's JSON strings are read there one character at a time).

/**
 * Counts `<tool_call>` openers (`<tool_call>`, `<tool_call ...`) and closers (`</tool_call>`) in
 * characters read one at a time (a JSON body's strings, which the tag scanner never sees).
 */
export class WrapperCount {
  opened = 0;
  closed = 0;
  /** Letters of "tool_call" matched after `<` or `</`, or -1. */
  private matched = -1;
  private closing = false;

  step(c: number): void {
    if (c === LT) {
      this.matched = 0;
      this.closing = false;
    } else if (this.matched === 0 && !this.closing && c === SLASH) this.closing = true;
    else if (this.matched >= 0 && this.matched < WRAPPER.length && lower(c) === WRAPPER.charCodeAt(this.matched)) this.matched++;
    else {
      if (this.matched === WRAPPER.length && (c === GT || (!this.closing && isSpaceCode(c)))) {
        if (this.closing) this.closed++;
        else this.opened++;
      }
      this.matched = -1;
    }
  }
}
const WRAPPER = "tool_call";
const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
