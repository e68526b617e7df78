import type { HeldText } from "./held-text.ts";
import { heldStartsWithStrayOpener, STRAY_OPENER_HEAD } from "./stray-opener.ts";

/** What a tag does to the held text: the body refused itself at the wrapper's closer, the hold ends, or reading goes on (null). */
export type HoldVerdict = "refused" | "ends" | null;

/**
 * Text (or an element the tag grammar does not read) after a call complete inside its wrapper,
 * before the wrapper's closer (a line after a Qwen3-Coder `</function>`, SpanKind.holdsAfterCall):
 * the candidate holds it, its call not run, the text not shown (review 50, finding 4). The
 * wrapper's closer refuses the span whole (the wrapper held more than its call); the reply's end,
 * the next wrapper's opener or the buffer limit end the span at `end`, where it would have ended
 * at that text without the hold, and the text is read again as before (golden O02.8). The
 * candidate reads the held text only for its tags, each character once.
 */
export class WrapperHold {
  constructor(
    /** Where the held text began (absolute). */
    readonly from: number,
    /** Where the span ends when the hold ends without the wrapper's closer. */
    readonly end: number,
  ) {}

  /** The wrapper's closer never came (the reply's end, the next wrapper, the limit): the span ends where the text began, which is read again as before the hold. */
  get ended(): { kind: "complete"; end: number } {
    return { kind: "complete", end: this.end };
  }

  /**
   * A tag read while holding, at absolute `at`; `closes`: it is the wrapper's closer. Held text that
   * starts with a parameter opener the tag grammar reads as no tag (`<param:workdir>`) ends the hold
   * there: text mode's stray-parameter rule refuses the call, as before the hold (golden O50.1, I02).
   * Otherwise the kind decides (`kindVerdict`, SpanKind.tagWhileHeld).
   */
  verdict(at: number, closes: boolean, held: HeldText, lineStart: (at: number) => boolean, kindVerdict: () => HoldVerdict): HoldVerdict {
    if (closes && heldStartsWithStrayOpener(held.slice(this.from, Math.min(at, this.from + STRAY_OPENER_HEAD)), held.slice(this.from - 1, this.from).charCodeAt(0), lineStart(this.from))) return "ends";
    return kindVerdict();
  }
}
