// A chat stream's native tool_calls entries that may repeat a recovered call already sent
// (sent-calls.ts): an entry that starts a call for a tool a sent call has is held, with the
// entries that continue it (same index), until the call is complete: an entry of another call
// comes, the choice finishes or the stream ends. Then it is dropped when it repeats a sent call
// (its index is never numbered, so later calls keep consecutive indices), or goes out as one entry.
import type { RecoveredCall } from "../../parse/types.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { HELD_NATIVE_CHARS, HELD_NATIVE_EVENTS, SentCalls } from "../sent-calls.ts";

interface Held {
  index: number;
  /** The call's first entry (id, type, function name), its arguments gathered here. */
  first: Json;
  args: string;
  entries: number;
}

export class NativeRepeats {
  #sent = new SentCalls();
  #held = new Map<number, Held>();
  /** Upstream indices that went out (or are going out) as they came: never held again. */
  #passed = new Set<number>();
  #off = false;

  /** A recovered call went out. */
  add(call: RecoveredCall): void {
    this.#sent.add(call);
  }

  /** Anything held, or an entry in `toolCalls` that may start holding. */
  wants(toolCalls: readonly unknown[] | undefined): boolean {
    if (this.#held.size > 0) return true;
    if (this.#off || !toolCalls) return false;
    return toolCalls.some((entry) => isObject(entry) && isObject(entry.function) && this.#sent.has(entry.function.name) && !this.#passed.has(entry.index as number));
  }

  /** The repair stands aside: what is held goes out as it came, undecided, and nothing more is held. */
  stop(): Json[] {
    this.#off = true;
    return [...this.#held.values()].flatMap((held) => this.#release(held));
  }

  /**
   * A chunk's choice-0 entries, in order: those held are taken out; the calls they completed are
   * decided. `released`: entries of held calls that go out, before the chunk. `rest`: the chunk's
   * own entries that go on.
   */
  filter(toolCalls: readonly unknown[]): { released: Json[]; rest: unknown[] } {
    const released: Json[] = [];
    const rest: unknown[] = [];
    for (const entry of toolCalls) {
      const index = isObject(entry) && typeof entry.index === "number" ? entry.index : undefined;
      const held = index === undefined ? undefined : this.#held.get(index);
      if (held && isObject(entry)) {
        if (isObject(entry.function) && typeof entry.function.arguments === "string") held.args += entry.function.arguments;
        held.entries++;
        // Past the bound it goes out as it came, undecided, and streams on.
        if (held.args.length > HELD_NATIVE_CHARS || held.entries > HELD_NATIVE_EVENTS) released.push(...this.#release(held));
        continue;
      }
      // An entry of another call: the calls held are complete.
      released.push(...this.decideAll());
      if (index !== undefined && isObject(entry) && !this.#off && !this.#passed.has(index) && isObject(entry.function) && this.#sent.has(entry.function.name)) {
        const args = typeof entry.function.arguments === "string" ? entry.function.arguments : "";
        this.#held.set(index, { index, first: entry, args, entries: 1 });
        continue;
      }
      if (index !== undefined) this.#passed.add(index);
      rest.push(entry);
    }
    return { released, rest };
  }

  /** The calls held are complete (another call, the finish, the stream's end): the entries that go out. */
  decideAll(): Json[] {
    if (this.#held.size === 0) return [];
    const out: Json[] = [];
    for (const held of [...this.#held.values()]) {
      const fn = held.first.function as Json;
      if (this.#sent.take(fn.name, held.args)) {
        this.#held.delete(held.index);
        this.#passed.add(held.index);
        continue;
      }
      out.push(...this.#release(held));
    }
    return out;
  }

  #release(held: Held): Json[] {
    this.#held.delete(held.index);
    this.#passed.add(held.index);
    const fn = held.first.function as Json;
    return [{ ...held.first, function: { ...fn, arguments: held.args } }];
  }
}
