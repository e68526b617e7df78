import type { AnswerSoFar, EngineEvent, EngineSummary, RepairEngine } from "./types.ts";
import { describeError } from "./describe-error.ts";

/**
 * Text to feed, the response's native calls to note (which may release the text held after a
 * recovered call), the end of a span or the end to flush: any of them, in that order. `withdraw` notes a native call too, and withdraws every call this engine
 * recovered (the caller held them all back: RepairEngine.withdrawCalls). `releaseTail` alone
 * releases the text held after a recovered call (RepairEngine.releaseTail).
 */
interface Work {
  native?: boolean;
  withdraw?: boolean;
  releaseTail?: boolean;
  delta?: string;
  endSpan?: boolean;
  flush?: boolean;
}

/** What a step released, or that it failed (then `held` is the text to hand back, nothing else ran). */
export type Step = { ok: true; events: EngineEvent[] } | { ok: false; held: string };

/** Every step after the engine is done: nothing ran, nothing to hand back. */
const NOTHING: Step = Object.freeze({ ok: false, held: "" });

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
  /** The caller stopped reading with this engine (stop()): done, though it neither failed nor was flushed. */
  #stopped = false;
  /** The last step ended a span (endSpan or flush) and nothing was fed since: carryOver() may be read. */
  #spanEnded = false;
  #recovered = 0;

  constructor(engine: RepairEngine, onError: (line: string) => void) {
    this.#engine = engine;
    this.#onError = onError;
  }

  /** No more engine work: it either failed or was flushed. */
  get done(): boolean {
    return this.#failed || this.#flushed || this.#stopped;
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

  /**
   * The one entry: one unit of work, all-or-nothing. On failure none of its events were emitted,
   * and `held` is the text the engine held, for the caller to hand back before replaying the original.
   */
  step(work: Work): Step {
    if (this.done) return NOTHING;
    // A feed drops from the engine what it releases; a flush failing after it must still hand
    // back what was held before the step. Read first, and only when the step does more than one thing.
    let before: string | undefined;
    try {
      const { delta, flush } = work;
      // More than one engine call: a later one failing must still hand back what an earlier one dropped.
      if ((delta && (flush || work.endSpan)) || ((work.withdraw || work.native) && (delta || flush || work.endSpan))) before = this.#heldBefore();
      // null until an engine call answers: a text delta alone (once per token) allocates no array of its own.
      let events: EngineEvent[] | null = null;
      if (work.withdraw) events = this.#withdrawn();
      else if (work.native) events = this.#engine.noteNativeToolCall() ?? [];
      else if (work.releaseTail && this.#engine.releaseTail) events = this.#engine.releaseTail();
      // feed() and flush() return fresh arrays: pass them on instead of copying.
      if (delta) events = events === null || events.length === 0 ? this.#engine.feed(delta) : events.concat(this.#engine.feed(delta));
      events ??= [];
      if (work.endSpan && !flush && this.#engine.endSpan) events = events.concat(this.#engine.endSpan());
      if (flush) {
        const flushed = this.#engine.flush();
        events = events.length === 0 ? flushed : events.concat(flushed);
      }
      const held = flush ? 0 : this.#engine.held;
      this.#fed += delta?.length ?? 0;
      this.#held = held;
      if (flush) this.#flushed = true;
      if (flush || work.endSpan) this.#spanEnded = true;
      else if (delta) this.#spanEnded = false;
      for (let i = 0; i < events.length; i++) if (events[i]!.type === "call") this.#recovered++;
      return { ok: true, events };
    } catch (error) {
      this.#failed = true;
      this.#onError(`engine failed, passing the rest through: ${describeError(error)}`);
      return { ok: false, held: before ?? this.#heldBefore() };
    }
  }

  /**
   * The caller reads no more text with this engine (what would come next is no longer one text
   * with what came before it): the text it held, exactly as it was fed, for the caller to hand
   * on as text; from then on it is done. Unlike a failure, the calls it recovered and its summary
   * stand; nothing it held is decided, so no markup in it runs and none is stripped.
   */
  stop(): string {
    if (this.done) return "";
    const held = this.#heldBefore();
    this.#stopped = true;
    this.#held = 0;
    return held;
  }

  /**
   * step({ withdraw: true }) for an engine already flushed (a Responses part that ended before the
   * native call came): nothing is released any more, only the report changes. False: it failed.
   */
  withdrawAfterFlush(): boolean {
    if (this.#failed || !this.#flushed) return !this.#failed;
    try {
      this.#withdrawn();
      return true;
    } catch (error) {
      this.#failed = true;
      this.#onError(`engine failed withdrawing its calls: ${describeError(error)}`);
      return false;
    }
  }

  /**
   * RepairEngine.unrunCalls: the calls this engine recovered, all held back by the caller, never
   * run; their markup, to show as text (before what stop() hands back, which follows it). Also
   * after stop() or a flush. undefined when there is nothing to give (no call recovered, the engine
   * failed or cannot say): the caller then does what it did before.
   */
  unrunCalls(): string | undefined {
    if (this.#failed || this.#recovered === 0 || !this.#engine.unrunCalls) return undefined;
    try {
      const markup = this.#engine.unrunCalls();
      this.#recovered = 0;
      return markup;
    } catch (error) {
      this.#failed = true;
      this.#onError(`engine failed giving up its calls: ${describeError(error)}`);
      return undefined;
    }
  }

  /** The engine's withdrawal (a plain native note for an engine without one): no call it made is handed on. */
  #withdrawn(): EngineEvent[] {
    const engine = this.#engine;
    const events = engine.withdrawCalls ? engine.withdrawCalls() : (engine.noteNativeToolCall() ?? []);
    this.#recovered = 0;
    return events;
  }

  /**
   * Where the reply's text stood when this engine was flushed or its span ended, for the engine of
   * its next part; undefined when there is nothing sound to give: mid-span, failed, or an engine
   * that cannot say.
   */
  carryOver(): AnswerSoFar | undefined {
    if (!this.#spanEnded || this.#failed || this.#stopped) return undefined;
    try {
      return this.#engine.carryOver?.();
    } catch (error) {
      this.#onError(`engine carry-over failed: ${describeError(error)}`);
      return undefined;
    }
  }

  /**
   * The engine holds text after a recovered call, undecided (AnswerSoFar.tail), read at any point:
   * false once that text was released (another call, the tail limit) or decided.
   */
  get afterCall(): boolean {
    if (this.#failed || this.#flushed || this.#stopped) return false;
    try {
      return this.#engine.carryOver?.().tail !== undefined;
    } catch {
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
