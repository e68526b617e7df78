// The chained costume a candidate reads through (candidate.ts chain), apart from its main scan: a
// costume opened right at the start of the line after a paragraph costume's closer line, two
// costumes shown in one running sentence (golden N48.3).
import { CR, LF, SP, TAB } from "../grammar/chars.ts";
import { isTriggerCode } from "../grammar/markers.ts";
import { NEED_MORE, readTag } from "../grammar/tags.ts";

/**
 * A costume chained after a paragraph costume: its body is skipped up to its own closer, and the
 * line after that closer's line decides for both (the paragraph costume's rule).
 */
export class CostumeChain {
  private closed = false;

  constructor(private readonly name: string) {}

  /**
   * One character at `i`: its closer, then only spaces to the line's end, hands the next line back
   * to the paragraph costume's rule ("line-end", at the line break). Text after that closer on its
   * line is "after-closer" (the candidate weighs it as the paragraph rule's next line); another tag
   * there is "end": the first costume stood as its own block and ends at its closer, as before.
   * Otherwise the next index to read, or "more" while a tag is cut off.
   */
  read(s: string, i: number, final: boolean): number | "more" | "line-end" | "after-closer" | "end" {
    const c = s.charCodeAt(i);
    if (isTriggerCode(c)) {
      const r = readTag(s, i, final);
      if (r === NEED_MORE) return "more";
      if (r !== null) {
        if (this.closed) return "end";
        if (r.closing && r.family === "costume" && r.name === this.name) this.closed = true;
        return r.end;
      }
    }
    if (!this.closed) return i + 1;
    if (c === SP || c === TAB) return i + 1;
    if (c === LF || c === CR) return "line-end";
    return "after-closer";
  }
}
