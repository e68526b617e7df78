import type { Tag } from "../grammar/tags.ts";
import type { ExampleInValue } from "../parse/example-in-value.ts";
import type { PlainRunInValue } from "../parse/plain-run-in-value.ts";

/**
 * How an example the candidate held settles: read again from `rewind` (from the example's opener
 * when it proved none, from the held closer when that closer ends the value, `atHeldCloser`), or
 * the span ends at `end` (the closer before the example ended the value after all, P01; `from`:
 * where the example's opener stood, where the run after the cut value may start, Candidate.settle).
 */
export type ExampleSettled = { rewind: number; atHeldCloser?: boolean } | { end: number; endsInBlock: boolean; trailBack?: number; from?: number };

/**
 * An example written inside an open value (golden S02.8-S02.16; parse/example-in-value.ts
 * ExampleInValue, or a DSML value's plain markup, parse/plain-run-in-value.ts PlainRunInValue),
 * which the candidate (candidate.ts) reads on while it may be the value's text: its tags change
 * nothing else. Proved no example, the text from its opener is read again as before, and none
 * starts before the tag that proved it (mayStartAt; a plain run once per value, the value
 * tracker's plainRunTried), so each character is read a bounded number of times. The candidate
 * decides where an example starts; this keeps the one being read and says how it settled.
 */
export class HeldExample {
  private example: ExampleInValue | PlainRunInValue | null = null;
  /** Where the example's opener starts (absolute). */
  private start = -1;
  private noneBefore = 0;
  /** Where a prefix-less closer held after an example starts (ExampleInValue.heldCloser). */
  private heldCloserAt = -1;
  /** An example read after a closer that ended its line in a value (Candidate.exampleAfterCloser): where the span ends if it proves none. */
  private fallback: { end: number; endsInBlock: boolean; trailBack: number } | null = null;

  /** An example is being read. */
  get reading(): boolean {
    return this.example !== null;
  }

  /** An example may start at absolute offset `at`: none starts before the tag that proved the last one none. */
  mayStartAt(at: number): boolean {
    return at >= this.noneBefore;
  }

  /** Reads `example`, whose opener starts at `at`; `fallback`: where the span ends if it proves none (a closer before it ended its line). */
  hold(example: ExampleInValue | PlainRunInValue, at: number, fallback: { end: number; endsInBlock: boolean; trailBack: number } | null = null): void {
    this.example = example;
    this.start = at;
    this.fallback = fallback;
  }

  /**
   * A tag (at absolute `at`) while an example is read: null, it is the example's (read on);
   * "read": it is the value's own closer, which the candidate reads as always; or how the example settled.
   */
  step(tag: Tag, at: number): ExampleSettled | "read" | null {
    const example = this.example!;
    const verdict = example.step(tag);
    if (verdict === null) {
      if (example.heldCloser) this.heldCloserAt = at;
      return null;
    }
    // Content at a held prefix-less closer (a tag came right after it): read again from that closer.
    if (verdict === "content" && example.contentAtHeld) return this.contentAtHeld();
    // Not an example: the restart rule and every other rule read it again from its opener.
    if (verdict === "fail") return this.fail(at);
    this.end();
    return "read";
  }

  /**
   * A character between tags (at absolute `at`): a closer inside the example's own value waits
   * for it (ExampleInValue.char). Null: nothing settled.
   */
  char(c: number, at: number): ExampleSettled | null {
    if (!this.example?.awaitsChar) return null;
    const waited = this.example.char(c);
    if (waited === "fail") return this.fail(at);
    // A held prefix-less closer ended its line: it is the value's closer, read again from it (heldCloserAt).
    if (waited === "content") return this.contentAtHeld();
    return null;
  }

  /** Proved no example at `at` (Infinity: the reply ended inside it). */
  fail(at: number): ExampleSettled {
    const fallback = this.fallback;
    const from = this.start;
    this.end();
    // The closer before the example ended the value after all (P01): the span ends there, unless the run after the cut value holds what follows (Candidate.settle).
    if (fallback) return { ...fallback, from };
    this.noneBefore = Math.max(this.noneBefore, at);
    return { rewind: this.start };
  }

  /**
   * Restart follow-up: after an example in a DSML value, a prefix-less parameter closer that ended
   * its line (or met a tag) is the value's closer after all (ExampleInValue.heldCloser): the example
   * was the value's text, and reading goes on from that closer as when it is met directly.
   */
  private contentAtHeld(): ExampleSettled {
    this.end();
    return { rewind: this.heldCloserAt, atHeldCloser: true };
  }

  private end(): void {
    this.example = null;
    this.fallback = null;
  }
}
