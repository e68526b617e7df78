// A chat stream's native tool_calls entries that may repeat a recovered call already sent
// (sent-calls.ts, held-native.ts): an entry that starts a call for a tool a sent call has is held,
// with the entries that continue it (same index), until the call is complete: an entry of another
// call comes, the choice finishes or the stream ends. Then it is dropped when it repeats a sent call
// (its index is never numbered, so later calls keep consecutive indices), or goes out as one entry.
// Chat has no event that ends a call, so the decision comes from here (decideAll), and what is
// released is one entry, the first with every argument gathered.
import type { RecoveredCall } from "../../parse/types.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { type HeldCall, HeldNative } from "../held-native.ts";

export class NativeRepeats {
  /** The call held: its id is its upstream index, its first event the entry that started it. */
  #native = new HeldNative<Json>();
  /** Upstream indices that went out (or are going out) as they came: never held again. */
  #passed = new Set<number>();

  /** A recovered call went out. */
  add(call: RecoveredCall): void {
    this.#native.add(call);
  }

  /** Anything held, or an entry in `toolCalls` that may start holding. */
  wants(toolCalls: readonly unknown[] | undefined): boolean {
    if (this.#native.holding) return true;
    if (!toolCalls) return false;
    return toolCalls.some((entry) => isObject(entry) && isObject(entry.function) && this.#native.mayRepeat(entry.function.name) && !this.#passed.has(entry.index as number));
  }

  /** The repair stands aside: what is held goes out as it came, undecided, and nothing more is held. */
  stop(): Json[] {
    return this.#release(this.#native.stop());
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
      if (index !== undefined && isObject(entry) && this.#native.call?.id === index) {
        const args = isObject(entry.function) && typeof entry.function.arguments === "string" ? entry.function.arguments : undefined;
        // Past the bound it goes out as it came, undecided, and streams on.
        // Only the first entry is kept: the call goes out as one entry with every argument gathered.
        if (!this.#native.part(undefined, args)) released.push(...this.#release(this.#native.release()));
        continue;
      }
      // An entry of another call: the call held is complete.
      released.push(...this.decideAll());
      if (index !== undefined && isObject(entry) && !this.#passed.has(index) && isObject(entry.function) && this.#native.mayRepeat(entry.function.name)) {
        const args = typeof entry.function.arguments === "string" ? entry.function.arguments : "";
        this.#native.hold(index, entry.function.name, entry, args);
        continue;
      }
      if (index !== undefined) this.#passed.add(index);
      rest.push(entry);
    }
    return { released, rest };
  }

  /** The call held is complete (another call, the finish, the stream's end): the entries that go out. */
  decideAll(): Json[] {
    const held = this.#native.call;
    if (held === undefined) return [];
    if (this.#native.complete(held.args)) {
      this.#passed.add(held.id as number);
      return [];
    }
    return this.#release(this.#native.release());
  }

  /** The call held goes out as it came, as one entry: its first, with every argument gathered. */
  #release(held: HeldCall<Json> | undefined): Json[] {
    if (held === undefined) return [];
    this.#passed.add(held.id as number);
    const first = held.events[0]!;
    return [{ ...first, function: { ...(first.function as Json), arguments: held.args } }];
  }
}
