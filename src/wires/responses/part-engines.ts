// The engines that read a streamed Responses reply's text parts (text-parts.ts): the reply's first
// engine, then one per part, each reading on where the part before it ended (one documentation
// context and one count of calls for the reply). Its own file: which engine reads the next part is
// decided apart from what becomes of each part's text.
import type { AnswerSoFar, EngineSummary } from "../../engine/types.ts";
import type { GuardedEngine } from "../../engine/guarded.ts";
import type { EngineFor } from "../wire.ts";

export class PartEngines {
  #first: GuardedEngine | undefined;
  #more: EngineFor;
  #all: GuardedEngine[] = [];
  /** Where the reply's text stood when the last part ended, for the next part's engine. */
  #carry: AnswerSoFar | undefined;
  /** A native call item came: every engine from then on strips markup instead of recovering it. */
  #native = false;
  /** stop(): no engine reads text any more. */
  #stopped = false;

  constructor(first: GuardedEngine, more: EngineFor) {
    this.#first = first;
    this.#more = more;
  }

  /** Every engine begun so far, in the order of their parts. */
  get all(): readonly GuardedEngine[] {
    return this.#all;
  }

  /**
   * The engine of a part that begins: the reply's first engine, then one per part that reads on
   * where the part before it ended. Once an engine failed that reading is lost, so every later
   * part passes through as it came (its engine is done).
   */
  next(): GuardedEngine {
    const previous = this.#all.at(-1);
    if (previous?.failed) return previous;
    // Stopped: a done engine, so the part passes as it comes (the first one, stopped, if none was used).
    if (this.#stopped) return previous ?? this.#first!;
    const first = this.#first;
    this.#first = undefined;
    const guard = first ?? this.#more(undefined, this.#carry);
    this.#all.push(guard);
    if (this.#native && !guard.done) guard.step({ native: true });
    return guard;
  }

  /** A part that `guard` read ended: where the reply's text stands, for the next part's engine. */
  carryFrom(guard: GuardedEngine): AnswerSoFar | undefined {
    this.#carry = guard.carryOver();
    return this.#carry;
  }

  /** The next part's engine holds nothing after a call: the reply decided that text. */
  carryNoTail(): void {
    if (this.#carry?.tail === undefined) return;
    const { tail: _, ...rest } = this.#carry;
    this.#carry = rest;
  }

  /** A native call item came: engines begun from now on strip markup. */
  nativeCall(): void {
    this.#native = true;
  }

  /** No engine reads text any more: the next parts pass as they come. */
  stop(): void {
    this.#stopped = true;
    this.#carry = undefined;
    this.#first?.stop();
  }

  /** The summaries of every engine after the first; undefined when the first failed (the reply then reports nothing). */
  laterSummaries(): EngineSummary[] | undefined {
    const [first, ...rest] = this.#all;
    if (first?.failed) return undefined;
    const more: EngineSummary[] = [];
    for (const guard of rest) {
      const summary = guard.failed ? undefined : guard.summary();
      if (summary) more.push(summary);
    }
    return more;
  }
}
