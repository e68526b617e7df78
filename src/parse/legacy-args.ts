import type { Tag } from "../grammar/tags.ts";
import { JsonExtent } from "./char-form.ts";

/** Where the characters between two tags are read: the whole span, or the streaming span read so far (SpanReader). */
export interface TextSource {
  textBetween(from: number, to: number): string;
}

/**
 * Which legacy tokens (DeepSeek V3/V3.1 L01-L07, Kimi K2 O04) inside a call's JSON arguments are
 * the text of a string value there (review 57): a write whose content documents the model's own
 * call format holds, inside a JSON string, a call's begin token and its end token. Those must not
 * end the write and run the example; the call ends only at its own end token outside strings.
 *
 * The arguments' string state is read the linear way (JsonExtent: a `"` opens or closes a string,
 * a backslash escapes the next character), from the call's first separator token on, over every
 * character of the span between the legacy tokens, each once. Inside a string a begin token
 * (a section's, a call's, LFM2's start) opens an example and an end token closes the innermost
 * one: both are the value's text. An end token inside a string with no example open is the call's
 * own end, as before (its value was cut: `{"command": "l<section end>`, R11.8), so a call cut
 * mid-string and closed still ends there and a real call after it runs. With the example's quotes
 * left raw (the write's JSON malformed), the quotes pair up across the example, so its end token
 * still falls inside a string: the write reaches its own end token and is refused as broken
 * markup, text kept; the example never runs.
 *
 * The span's parser (legacy.ts parseLegacySpan) and its streaming boundary rules (LEGACY_CALL,
 * LEGACY_SECTION) both ask this reader about the same legacy tags over the same characters, so a
 * reply read whole and one read at any split agree by construction.
 */
export class LegacyArgs {
  /** The arguments' string state from the call's separator on; null before it (or with no call open). */
  private json: JsonExtent | null = null;
  /** A call's begin token was read as structure and no separator or end token of it since. */
  private callOpen = false;
  /** Examples opened inside strings of the arguments and not yet closed. */
  private examples = 0;
  /** Where the characters not yet stepped begin (the offset space the caller reads in). */
  private from = 0;

  /**
   * The legacy tag at [start, end) (offsets in the caller's space; `source.textBetween(from, to)`
   * gives the characters between two of them, each asked for once): true when it is the text of a
   * string value in the open call's arguments, false when it is the span's structure.
   */
  inValue(tag: Tag, start: number, end: number, source: TextSource): boolean {
    if (this.json !== null && start > this.from) {
      const between = source.textBetween(this.from, start);
      for (let i = 0; i < between.length; i++) this.json.step(between.charCodeAt(i));
    }
    if (this.json !== null) this.from = end;
    if (this.json !== null && this.json.inString) {
      if (tag.legacy === "call-begin" || tag.legacy === "section-begin" || tag.legacy === "call-start") {
        this.examples++;
        return true;
      }
      const ends = tag.legacy === "call-end" || tag.legacy === "section-end";
      if (!ends) return true;
      if (this.examples > 0) {
        this.examples--;
        return true;
      }
    }
    this.structure(tag, end);
    return false;
  }

  /** A legacy tag read as structure: a call's begin starts a call whose arguments begin at its separator; an end ends it. */
  private structure(tag: Tag, end: number): void {
    switch (tag.legacy) {
      case "call-begin":
        this.callOpen = true;
        this.json = null;
        this.examples = 0;
        break;
      case "sep":
        // The first separator of the open call starts its arguments (parseLegacySpan reads only that one).
        if (this.callOpen) {
          this.callOpen = false;
          this.json = new JsonExtent();
          this.examples = 0;
          this.from = end;
        }
        break;
      case "call-end":
      case "section-end":
        this.callOpen = false;
        this.json = null;
        this.examples = 0;
        break;
      default:
        break;
    }
  }
}
