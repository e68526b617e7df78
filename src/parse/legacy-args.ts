import type { Tag } from "../grammar/tags.ts";
import { JsonExtent } from "./char-form.ts";
import { CR, LF, SP, TAB } from "../grammar/chars.ts";

/**
 * Where the characters between two tags are read: the whole span, or the streaming span read so far (SpanReader).
 * `codeAt` (the whole span only; NaN past its end) lets a held end token be decided at once by what follows it.
 */
export interface TextSource {
  textBetween(from: number, to: number): string;
  codeAt?(at: number): number;
}

/**
 * What a legacy tag is to the open call's arguments: the value's text, the span's structure, or
 * (the stream only) an end token inside a string with no example open, held until what follows
 * it decides (SpanReader.tentatively with LEGACY_END_IN_VALUE).
 */
export type LegacyRole = "value" | "structure" | "held";

/**
 * Finding 1 of diff review 57a: after an end token inside a string with no example open, what
 * follows on its line decides. Nothing (only spaces, then a line break, another legacy token or
 * the span's end): the call's own end, its value cut (R11.8). Anything else (`. Example: ...`):
 * the string goes on, so the token was the value's text, a mention of the format. A raw line
 * break can stand in no JSON string, so a value that goes on never breaks its line there.
 */
export function endTokenEnds(after: string | ((i: number) => number)): boolean {
  const at = typeof after === "string" ? (i: number) => after.charCodeAt(i) : after;
  for (let i = 0; ; i++) {
    const c = at(i);
    if (Number.isNaN(c) || c === LF || c === CR) return true;
    if (c !== SP && c !== TAB) return false;
  }
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
 * own end when nothing but spaces follows it on its line (its value was cut: `{"command": "l<section
 * end>`, R11.8), so a call cut mid-string and closed still ends there and a real call right after
 * it runs; with text after it on its line it is the value's text (endTokenEnds, diff review 57a:
 * `Calls end with <call end>. Example: <whole call>` in a write's content runs no example). A call
 * begun right after a call so cut (`...with <call end><call begin>example<call end>"}<call end>`:
 * the mention followed at once by an example) is read the same way at its own end token, inside a
 * string or not: text after it on its line (the write's `"}`) makes it text, and that call runs
 * only with arguments that then still read (they do not: the write's tail is in them). With the example's quotes
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
  /** An end token held (the stream's "held"): the tag, until the next legacy tag's offset decides it. */
  private held: Tag | null = null;
  /** The last call ended at an end token inside a string (cut), and nothing structural came after it yet. */
  private cut = false;
  /** The open call was begun right after a cut one: its end token outside strings is weighed as one inside (endTokenEnds). */
  private suspect = false;

  /**
   * The legacy tag at [start, end) (offsets in the caller's space; `source.textBetween(from, to)`
   * gives the characters between two of them, each asked for once): true when it is the text of a
   * string value in the open call's arguments, false when it is the span's structure.
   */
  inValue(tag: Tag, start: number, end: number, source: TextSource): LegacyRole {
    if (this.held !== null) {
      // The stream reads on past a held end token only when text followed it (the engine's tentative rule); decided the same here.
      const heldTag = this.held;
      this.held = null;
      if (endTokenEnds(source.textBetween(this.from, start))) this.endHeld(heldTag, this.from, this.heldInString);
    }
    if (this.json !== null && start > this.from) {
      const between = source.textBetween(this.from, start);
      for (let i = 0; i < between.length; i++) this.json.step(between.charCodeAt(i));
    }
    if (this.json !== null) this.from = end;
    if (this.json !== null && this.json.inString) {
      if (tag.legacy === "call-begin" || tag.legacy === "section-begin" || tag.legacy === "call-start") {
        this.examples++;
        return "value";
      }
      const ends = tag.legacy === "call-end" || tag.legacy === "section-end";
      if (!ends) return "value";
      if (this.examples > 0) {
        this.examples--;
        return "value";
      }
      return this.weighEnd(tag, end, source, true);
    }
    if (this.suspect && this.json !== null && (tag.legacy === "call-end" || tag.legacy === "section-end")) return this.weighEnd(tag, end, source, false);
    this.structure(tag, end);
    return "structure";
  }

  /** An end token that is the call's end only when nothing follows it on its line (endTokenEnds): held by the stream, looked ahead by the span's parser. */
  private weighEnd(tag: Tag, end: number, source: TextSource, inString: boolean): LegacyRole {
    if (source.codeAt === undefined) {
      this.held = tag;
      this.heldInString = inString;
      return "held";
    }
    const codeAt = source.codeAt;
    if (!endTokenEnds((i) => codeAt(end + i))) return "value";
    this.endHeld(tag, end, inString);
    return "structure";
  }

  /** Whether the held end token stood inside a string (a cut value) or was a suspect call's end outside one. */
  private heldInString = false;

  /** A weighed end token proved the call's end: inside a string, it cut the value, so the next call is suspect. */
  private endHeld(tag: Tag, end: number, inString: boolean): void {
    this.structure(tag, end);
    this.cut = inString;
  }

  /** A legacy tag read as structure: a call's begin starts a call whose arguments begin at its separator; an end ends it. */
  private structure(tag: Tag, end: number): void {
    const afterCut = this.cut;
    this.cut = false;
    switch (tag.legacy) {
      case "call-begin":
        this.suspect = afterCut;
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
        this.suspect = false;
        this.json = null;
        this.examples = 0;
        break;
      default:
        break;
    }
  }
}
