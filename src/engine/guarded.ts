import type { EngineEvent, EngineSummary, RepairEngine } from "./types.ts";
import { describeError } from "./describe-error.ts";

export type Step = { ok: true; events: EngineEvent[] } | { ok: false; held: string };

/**
 * Shields the host stream from engine failures. Held text is always a suffix of what was fed, so
 * counting what was fed and what was held after the last good step tells which characters a
 * failure must hand back; the engine's own store gives them (one copy, not two: a 64K candidate
 * in 100 streams would cost 6.4 MB more). The count is kept here, not taken from the failed engine.
 */
export class GuardedEngine {
  #engine: RepairEngine;
  #onError: (line: string) => void;
  /** Characters fed by the steps that succeeded. */
  #fed = 0;
  /** Characters held after the last step that succeeded. */
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
    // A feed drops from the engine what it releases; a flush failing after it must still hand
    // back what was held before the step. Read first, once per response at most (the last step).
    let before: string | undefined;
    try {
      if (work.delta && work.flush) before = this.#heldBefore();
      if (work.native) this.#engine.noteNativeToolCall();
      // feed() and flush() return fresh arrays: pass them on instead of copying.
      let events: EngineEvent[] = work.delta ? this.#engine.feed(work.delta) : [];
      if (work.flush) {
        const flushed = this.#engine.flush();
        events = events.length === 0 ? flushed : events.concat(flushed);
      }
      this.#settle(work.delta?.length ?? 0, work.flush ? 0 : this.#engine.held);
      if (work.flush) this.#flushed = true;
      for (const event of events) if (event.type === "call") this.#recovered++;
      return { ok: true, events };
    } catch (error) {
      return { ok: false, held: this.#fail(error, before) };
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
      this.#settle(delta.length, this.#engine.held);
      for (let i = 0; i < events.length; i++) if (events[i]!.type === "call") this.#recovered++;
      return events;
    } catch (error) {
      return this.#fail(error);
    }
  }

  /**
   * True when the engine let `delta` through whole and unchanged, with nothing held: the caller
   * passes its own part or event on. False: nothing happened, feed() it. Only the count of what
   * was fed moves, since nothing is held before or after such a delta.
   */
  passes(delta: string): boolean {
    return this.#passes(delta.length, delta);
  }

  /** passes() for a delta known only by its length, every character of it passable (RepairEngine.passesPlain). */
  passesPlain(length: number): boolean {
    return this.#passes(length, undefined);
  }

  summary(): EngineSummary | undefined {
    try {
      return this.#engine.summary();
    } catch (error) {
      this.#onError(`engine summary failed: ${describeError(error)}`);
      return undefined;
    }
  }

  /** The engine's passes(delta), or passesPlain(length) without one, counted when it let the delta through. */
  #passes(length: number, delta: string | undefined): boolean {
    if (this.done || this.#held !== 0) return false;
    try {
      const passed = delta === undefined ? this.#engine.passesPlain?.(length) : this.#engine.passes?.(delta);
      if (passed !== true) return false;
    } catch (error) {
      // Nothing is held here, so nothing is handed back: the delta, and the rest, pass through.
      this.#fail(error);
      return false;
    }
    this.#fed += length;
    return true;
  }

  #settle(fed: number, held: number): void {
    this.#fed += fed;
    this.#held = held;
  }

  #fail(error: unknown, held?: string): string {
    this.#failed = true;
    this.#onError(`engine failed, passing the rest through: ${describeError(error)}`);
    return held ?? this.#heldBefore();
  }

  /** What the engine held after the last step that succeeded; asked of the engine's own store. */
  #heldBefore(): string {
    if (this.#held === 0) return "";
    try {
      return this.#engine.heldText(this.#fed - this.#held, this.#fed);
    } catch (lost) {
      this.#onError(`engine could not hand back the ${this.#held} characters it held: ${describeError(lost)}`);
      return "";
    }
  }
}
