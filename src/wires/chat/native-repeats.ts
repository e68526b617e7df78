// A chat stream's native tool_calls entries that may repeat a recovered call already sent
// (sent-calls.ts, held-native.ts). Entries are told apart as the AI SDK's chat providers tell them
// (@ai-sdk/provider-utils StreamingToolCallTracker): by `index`; under an index already seen, a
// named entry starts another call when its `id` is another (servers that number every call 0) or
// when it opens a JSON value after that call's arguments closed; an entry without index (gateways streaming whole calls so, which @ai-sdk/openai-compatible reads)
// by its `id`, or, with neither, as a new call when it names a tool and as the last such call's
// continuation when it does not. A call is held from its first entry when it may repeat a sent
// call (its tool is one a sent call has, or it names no tool yet while a sent call is unmatched),
// and every later entry of it with it, several calls at once when their entries interleave. It is
// decided when its arguments close as JSON (an entry of another call ends nothing: chat has no
// end-of-call event): dropped when it repeats a sent call, and every later entry of it dropped too
// (no delta of a dropped call ever goes out; its index is never numbered, so later calls keep
// consecutive indices); otherwise it goes out as one entry (every field its entries carried, the
// arguments gathered) and its later entries pass. The choice's finish, the stream's end, a cut or
// the stand-aside decides what is still held the same way (HeldNative.settle: a call whose
// arguments are complete JSON and repeat a sent call is dropped, since the client finishes every
// call it has at the end, after an error too; anything else goes out as it came). Past the bounds
// every call held goes out undecided and streams on.
import type { RecoveredCall, ToolSpec } from "../../parse/types.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { type HeldCall, HeldNative } from "../held-native.ts";

/** One native call as the client tells it apart; the held call's id in HeldNative is the slot itself. */
interface Slot {
  /** Its wire id, when an entry gave one. */
  id: string | undefined;
  state: "held" | "passed" | "dropped";
  /** Its arguments read as JSON, piece by piece, while it is held: complete once they close. */
  scan: JsonEnd;
  /** Its arguments closed as JSON (read while it was held): a named entry opening a value after them is another call. */
  closed: boolean;
}

export class NativeRepeats {
  #native: HeldNative<Json>;
  /** A recovered call went out: from here on native entries are told apart (before, none can repeat one). */
  #tracking = false;
  /** The calls seen, by upstream index; those without index by id, and the last of them. */
  #byIndex = new Map<number, Slot>();
  #byId = new Map<string, Slot>();
  #lastUnindexed: Slot | undefined;

  /** `tools`: the request's tools, whose schemas a native input is read under before it is compared. */
  constructor(tools: readonly ToolSpec[] = []) {
    this.#native = new HeldNative<Json>(tools);
  }

  /** A recovered call went out. */
  add(call: RecoveredCall): void {
    this.#native.add(call);
    this.#tracking = true;
  }

  /**
   * Anything held, or entries to read: a recovered call went out. None is read before: the engine
   * strips markup after a native call as its duplicate, so a call is rarely sent while one streams
   * (and then that call's later entries are held as a call not named yet, and go out as they came
   * at the end: late, never lost).
   */
  wants(toolCalls: readonly unknown[] | undefined): boolean {
    if (this.#native.holding) return true;
    return toolCalls !== undefined && this.#tracking;
  }

  /** The repair stands aside, or the reply was cut: what is held is decided as at the end (settle), and nothing more is held. */
  stop(): Json[] {
    return this.#settled(this.#native.stopAll());
  }

  /**
   * A chunk's choice-0 entries, in order: those of held or dropped calls are taken out; the calls
   * they completed are decided. `released`: entries of held calls that go out, before the chunk.
   * `rest`: the chunk's own entries that go on.
   */
  filter(toolCalls: readonly unknown[]): { released: Json[]; rest: unknown[] } {
    const released: Json[] = [];
    const rest: unknown[] = [];
    for (const entry of toolCalls) {
      if (!isObject(entry)) {
        rest.push(entry);
        continue;
      }
      const fn = isObject(entry.function) ? entry.function : undefined;
      const name = nonBlank(fn?.name);
      const args = typeof fn?.arguments === "string" ? fn.arguments : undefined;
      const index = typeof entry.index === "number" ? entry.index : undefined;
      const id = nonBlank(entry.id);
      let slot = this.#find(index, id, name, args, released);
      if (slot === undefined) {
        slot = this.#start(index, id);
        if (name !== undefined ? this.#native.mayRepeat(name) : this.#native.mayRepeatUnnamed()) {
          slot.state = "held";
          slot.scan = new JsonEnd();
          this.#native.hold(slot, name, entry, args ?? "");
          slot.scan.add(args ?? "");
          released.push(...this.#decide(slot));
          continue;
        }
      }
      if (slot.state === "passed") rest.push(entry);
      if (slot.state !== "held") continue;
      const held = this.#native.get(slot)!;
      if (held.tool === undefined && name !== undefined) held.tool = name;
      // Past the bound every call held goes out as it came, undecided, and streams on.
      if (!this.#native.part(entry, args, slot)) {
        released.push(...this.#settled({ released: this.#native.releaseAll(), dropped: [] }));
        continue;
      }
      if (args !== undefined) slot.scan.add(args);
      released.push(...this.#decide(slot));
    }
    return { released, rest };
  }

  /** The choice finished or the stream ended: every call still held is decided (settle). */
  decideAll(): Json[] {
    if (!this.#native.holding) return [];
    return this.#settled(this.#native.settle());
  }

  /** The slot an entry continues; undefined: it starts a call (a held call it ends is decided into `released`). */
  #find(index: number | undefined, id: string | undefined, name: string | undefined, args: string | undefined, released: Json[]): Slot | undefined {
    let slot: Slot | undefined;
    if (index !== undefined) slot = this.#byIndex.get(index);
    else if (id !== undefined) slot = this.#byId.get(id);
    else return name !== undefined ? undefined : this.#lastUnindexed;
    if (slot === undefined) return undefined;
    // A named entry under the same index starts another call, as the client reads it, when its id
    // is another, or when it opens a JSON value after the call's arguments closed.
    if (name !== undefined && ((id !== undefined && slot.id !== undefined && id !== slot.id) || (slot.closed && opensValue(args)))) {
      if (slot.state === "held") released.push(...this.#settled(this.#native.settleOne(slot)));
      return undefined;
    }
    slot.id ??= id;
    return slot;
  }

  #start(index: number | undefined, id: string | undefined): Slot {
    const slot: Slot = { id, state: "passed", scan: DONE, closed: false };
    if (index !== undefined) this.#byIndex.set(index, slot);
    else {
      if (id !== undefined) this.#byId.set(id, slot);
      this.#lastUnindexed = slot;
    }
    return slot;
  }

  /** A held call after one more entry: dropped when its arguments closed and repeat a sent call, out when they closed otherwise or its tool cannot repeat one; held while undecided. */
  #decide(slot: Slot): Json[] {
    const held = this.#native.get(slot)!;
    if (held.tool !== undefined && !this.#native.mayRepeat(held.tool)) return this.#out(this.#native.release(slot));
    if (held.tool === undefined || !slot.scan.complete) return [];
    slot.closed = true;
    if (this.#native.complete(held.args, undefined, slot)) {
      slot.state = "dropped";
      slot.scan = DONE;
      return [];
    }
    return this.#out(this.#native.release(slot));
  }

  /** Calls the hold ended: the dropped ones never go out (nor any later entry of theirs), the others go out as they came. */
  #settled({ released, dropped }: { released: HeldCall<Json>[]; dropped: HeldCall<Json>[] }): Json[] {
    for (const held of dropped) {
      const slot = held.id as Slot;
      slot.state = "dropped";
      slot.closed = true;
      slot.scan = DONE;
    }
    return released.flatMap((held) => this.#out(held));
  }

  /** The held call goes out as it came, as one entry: every field its entries carried (the first's first), the arguments gathered. */
  #out(held: HeldCall<Json> | undefined): Json[] {
    if (held === undefined) return [];
    const slot = held.id as Slot;
    slot.state = "passed";
    slot.closed ||= slot.scan.complete;
    slot.scan = DONE;
    const entry: Json = {};
    const fn: Json = {};
    for (const event of held.events) {
      for (const key of Object.keys(event)) if (key !== "function" && entry[key] === undefined) entry[key] = event[key];
      if (isObject(event.function)) for (const key of Object.keys(event.function)) if (key !== "arguments" && fn[key] === undefined) fn[key] = event.function[key];
    }
    fn.arguments = held.args;
    entry.function = fn;
    return [entry];
  }
}

/** Arguments text that opens an object or an array (the client reads a named entry so as a call's start). */
function opensValue(args: string | undefined): boolean {
  if (args === undefined) return false;
  const first = args.trimStart().charCodeAt(0);
  return first === 123 || first === 91;
}

/** A string with something besides blanks in it (the client reads a blank name or id as none). */
function nonBlank(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/**
 * Where a JSON value streamed in pieces ends, read once per character: complete once an object or
 * array opened by the first non-blank character closed (what follows it is not read). A value that
 * opens otherwise never completes here: only the end decides it.
 */
class JsonEnd {
  #depth = 0;
  #opened = false;
  #inString = false;
  #escaped = false;
  #never = false;
  complete = false;

  add(piece: string): void {
    if (this.complete || this.#never) return;
    for (let at = 0; at < piece.length; at++) {
      const c = piece.charCodeAt(at);
      if (!this.#opened) {
        if (c === 32 || c === 9 || c === 10 || c === 13) continue;
        if (c !== 123 && c !== 91) {
          this.#never = true;
          return;
        }
        this.#opened = true;
        this.#depth = 1;
        continue;
      }
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === 92) this.#escaped = true;
        else if (c === 34) this.#inString = false;
        continue;
      }
      if (c === 34) this.#inString = true;
      else if (c === 123 || c === 91) this.#depth++;
      else if (c === 125 || c === 93) {
        if (--this.#depth === 0) {
          this.complete = true;
          return;
        }
      }
    }
  }
}

/** The scan of a call no longer held: nothing more to read. */
const DONE = new JsonEnd();
DONE.complete = true;
