// D06: a tool call written in the reasoning channel, as when a server's reasoning parser misses the
// end of thinking and the whole answer arrives as reasoning with an empty content.
import type { RecoveredCall } from "../parse/types.ts";
import type { EngineSummary } from "../stream/types.ts";
import type { GuardedEngine } from "./guarded-engine.ts";

/**
 * Reasoning text runs through its own engine (same tools, echo guard, documentation rule), so
 * complete markup is taken out of the thinking the client shows. Its calls are only kept until the
 * reply ends: they run only when the reasoning was the whole answer, that is, the content channel
 * carried nothing but whitespace and no native call came. A model that thinks about a call and then
 * makes it (natively, or as markup in content) therefore never runs it twice.
 *
 * `open` makes one engine per reasoning stretch (a part, in the AI SDK): markup never spans two.
 */
export class ReasoningChannel {
  #open: () => GuardedEngine;
  #guard: GuardedEngine | undefined;
  #closed: GuardedEngine[] = [];
  #calls: RecoveredCall[] = [];
  #answered = false;
  #settled: RecoveredCall[] | undefined;
  #wasAnswer = false;

  constructor(open: () => GuardedEngine) {
    this.#open = open;
  }

  /** An engine holds reasoning text right now (a stretch is open). */
  get active(): boolean {
    return this.#guard !== undefined;
  }

  /** Content or a native call arrived: the reasoning was only thinking. */
  get answered(): boolean {
    return this.#answered;
  }

  /** The reasoning text to pass on now for this delta; markup that became a call is kept back. */
  feed(delta: string): string {
    if (delta === "" || this.#settled) return delta;
    this.#guard ??= this.#open();
    const events = this.#guard.feed(delta);
    // A failed engine handed back what it held; the rest of the stretch passes through.
    if (typeof events === "string") return events + delta;
    let text = "";
    for (const event of events) {
      if (event.type === "text") text += event.text;
      else this.#calls.push(event.call);
    }
    return text;
  }

  /** The stretch ended: what its engine still held. */
  close(): string {
    const guard = this.#guard;
    if (!guard) return "";
    this.#guard = undefined;
    this.#closed.push(guard);
    if (guard.done) return "";
    const step = guard.step({ flush: true });
    if (!step.ok) return step.held;
    let text = "";
    for (const event of step.events) {
      if (event.type === "text") text += event.text;
      else this.#calls.push(event.call);
    }
    return text;
  }

  /** Content text arrived; only text that is not whitespace makes it an answer. */
  noteContent(text: string): void {
    if (this.#answered) return;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
        this.#answered = true;
        return;
      }
    }
  }

  noteNative(): void {
    this.#answered = true;
  }

  /**
   * The reply ended (the caller closed the channel first): the calls to emit. `contentCalls` is how
   * many calls the content channel recovered; any of them means the reasoning was not the answer.
   */
  settle(contentCalls: number): RecoveredCall[] {
    if (this.#settled) return this.#settled;
    this.#wasAnswer = !this.#answered && contentCalls === 0;
    this.#settled = this.#wasAnswer ? this.#calls : [];
    return this.#settled;
  }

  /** The reasoning engines' reports, only when the reasoning was the answer (its nudges then count). */
  summaries(): EngineSummary[] {
    if (!this.#wasAnswer) return [];
    const out: EngineSummary[] = [];
    for (const guard of this.#closed) {
      const summary = guard.failed ? undefined : guard.summary();
      if (summary) out.push(summary);
    }
    return out;
  }
}
