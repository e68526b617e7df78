import type { EngineEvent, EngineSummary, RepairEngine } from "../stream/types.ts";
import { HeldText } from "../stream/held-text.ts";
import { describeError } from "./describe-error.ts";

export type Step = { ok: true; events: EngineEvent[] } | { ok: false; held: string };

/**
 * Shields the host stream from engine failures. Held text is always a suffix of what was fed,
 * so remembering the recent deltas lets a failure hand back exactly the text the engine swallowed.
 */
export class GuardedEngine {
  #engine: RepairEngine;
  #onError: (line: string) => void;
  /** The last deltas, at least the held suffix; compact like the engine's own held text (64K held must not cost 1 MB). */
  #recent = new HeldText();
  #held = 0;
  #failed = false;
  #flushed = false;
  #recovered = 0;

  constructor(engine: RepairEngine, onError: (line: string) => void) {
    this.#engine = engine;
    this.#onError = onError;
  }

  /** No more engine work: it either failed or was flushed. */
  get done(): boolean {
    return this.#failed || this.#flushed;
  }

  get failed(): boolean {
    return this.#failed;
  }

  get held(): number {
    return this.#held;
  }

  /** Calls handed to the host so far; they stay emitted even if the engine fails later. */
  get recovered(): number {
    return this.#recovered;
  }

  /** One unit of work, all-or-nothing: on failure none of its events were emitted, so the caller can replay the original. */
  step(work: { native?: boolean; delta?: string; flush?: boolean }): Step {
    if (this.done) return { ok: false, held: "" };
    try {
      if (work.native) this.#engine.noteNativeToolCall();
      // feed() and flush() return fresh arrays: pass them on instead of copying.
      let events: EngineEvent[] = work.delta ? this.#engine.feed(work.delta) : [];
      if (work.flush) {
        const flushed = this.#engine.flush();
        events = events.length === 0 ? flushed : events.concat(flushed);
      }
      const held = work.flush ? 0 : this.#engine.held;
      this.#remember(work.delta ?? "", held);
      if (work.flush) this.#flushed = true;
      for (const event of events) if (event.type === "call") this.#recovered++;
      return { ok: true, events };
    } catch (error) {
      return { ok: false, held: this.#fail(error) };
    }
  }

  /**
   * step({ delta }) without a work or a result object, for the once-per-chunk path. A string
   * means the step failed and is the text to hand back, as `held` is for step().
   */
  feed(delta: string): EngineEvent[] | string {
    if (this.done) return "";
    try {
      const events = delta ? this.#engine.feed(delta) : [];
      this.#remember(delta, this.#engine.held);
      for (let i = 0; i < events.length; i++) if (events[i]!.type === "call") this.#recovered++;
      return events;
    } catch (error) {
      return this.#fail(error);
    }
  }

  /**
   * True when the engine let `delta` through whole and unchanged, with nothing held: the caller
   * passes its own part or event on. False: nothing happened, feed() it. Nothing to remember
   * either way, since nothing is held before or after such a delta.
   */
  passes(delta: string): boolean {
    if (this.done || this.#held !== 0) return false;
    try {
      return this.#engine.passes?.(delta) === true;
    } catch {
      // feed() meets the same fault and hands back what the engine held.
      return false;
    }
  }

  summary(): EngineSummary | undefined {
    try {
      return this.#engine.summary();
    } catch (error) {
      this.#onError(`engine summary failed: ${describeError(error)}`);
      return undefined;
    }
  }

  #remember(delta: string, held: number): void {
    this.#held = held;
    if (held === 0) {
      // Most deltas are released at once: keep that case free of allocation.
      if (this.#recent.length !== 0) this.#recent = new HeldText();
      return;
    }
    this.#recent.append(delta);
    // Compacting only when far past the held size keeps the cost amortized O(delta).
    if (this.#recent.length > 2 * held + 4096) {
      const kept = this.#heldText();
      this.#recent = new HeldText();
      this.#recent.append(kept);
    }
  }

  #fail(error: unknown): string {
    this.#failed = true;
    this.#onError(`engine failed, passing the rest through: ${describeError(error)}`);
    return this.#heldText();
  }

  #heldText(): string {
    if (this.#held === 0) return "";
    return this.#recent.from(Math.max(0, this.#recent.length - this.#held));
  }
}
