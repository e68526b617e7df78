// One native tool call held while it may repeat a recovered call already sent (sent-calls.ts says
// why: a recovered call goes out as soon as it is read, for latency, so a native call for the same
// tool with the same input after it would run twice). The streamed wires (chat, Anthropic,
// Responses) and the middleware's stream share this decision; each keeps reading its own events
// (which event starts a call, continues it, ends it) and hands them here:
//   - hold(): a native call for a tool a sent call has starts: its events are held from here on;
//   - part(): one more event of it, with the arguments text it adds; past HELD_NATIVE_CHARS
//     characters of arguments or HELD_NATIVE_EVENTS events it is no longer held: the wire sends
//     what was held as it came (release()) and the rest of the call streams on, undecided;
//   - complete(): its input is complete: dropped when it repeats a sent call (the client already
//     has it), otherwise the wire sends it as it came (release());
//   - release(): another call, the reply's end or a cut before it was complete: it goes out as it
//     came, nothing decided; stop(): the same, and nothing is held any more (the repair stood aside).
//   - settle(): the hold ends without the call's own end (a cut, the stand-aside, the reply's end
//     on a wire that has no end-of-call event): a call whose arguments so far are complete JSON
//     and repeat a sent call is dropped (a client that finishes calls at the stream's end would
//     run it); any other goes out as it came.
// A wire whose calls stream one after another (Anthropic, Responses) releases or decides the held
// call before it holds another; one whose calls may interleave (chat, the middleware's stream)
// holds each by its id, the bounds counting every call held together.
// While nothing is held an event costs one field read (holding): nothing is kept or allocated for it.
import type { RecoveredCall, ToolSpec } from "../parse/types.ts";
import { HELD_NATIVE_CHARS, HELD_NATIVE_EVENTS, SentCalls } from "./sent-calls.ts";

/** The native call held: its id on the wire, its tool, its events so far and its arguments text so far. */
export interface HeldCall<E> {
  /** What the wire tells the call's events by (a block index, an output_index, a part id, an entry index). */
  readonly id: unknown;
  /** The events kept, in order, to go out as they came (a wire that sends the call otherwise keeps only the first). */
  readonly events: E[];
  /** Events of the call so far, kept or not. */
  count: number;
  args: string;
  /** The tool, once known (a chat call may name it after its first delta: undefined until then). */
  tool: unknown;
}

export class HeldNative<E> {
  #sent: SentCalls;
  /** The calls held, by id, in the order they were held. */
  #held = new Map<unknown, HeldCall<E>>();
  /** Characters of arguments and events of every call held, for the bounds. */
  #chars = 0;
  #events = 0;
  /** stop() came: nothing is held any more. */
  #stopped = false;

  /** `tools`: the request's tools, whose schemas a native input is read under before it is compared (SentCalls). */
  constructor(tools: readonly ToolSpec[] = []) {
    this.#sent = new SentCalls(tools);
  }

  /** A recovered call went out to the client. */
  add(call: RecoveredCall): void {
    this.#sent.add(call);
  }

  /** A call is held (the common case, none, is one field read). */
  get holding(): boolean {
    return this.#held.size > 0;
  }

  /** The call held first, if any (a wire that holds one call at a time: that call). */
  get call(): HeldCall<E> | undefined {
    if (this.#held.size === 0) return undefined;
    return this.#held.values().next().value;
  }

  /** The call held under `id`, if any. */
  get(id: unknown): HeldCall<E> | undefined {
    return this.#held.size === 0 ? undefined : this.#held.get(id);
  }

  /** A native call for `tool` may repeat a call sent: the wire holds it (hold()) until its input is complete. */
  mayRepeat(tool: unknown): boolean {
    return !this.#stopped && this.#sent.has(tool);
  }

  /** A native call whose tool is not named yet may still repeat a call sent: some sent call is not matched yet. */
  mayRepeatUnnamed(): boolean {
    return !this.#stopped && this.#sent.any;
  }

  /**
   * Holds a native call from its first event (`first`, when the wire has it yet) and the arguments
   * text that event carries (`tool` undefined: not named yet). A wire that holds one call at a time
   * released or decided any call held before.
   */
  hold(id: unknown, tool: unknown, first?: E, args = ""): void {
    const call: HeldCall<E> = first === undefined ? { id, tool, events: [], count: 0, args } : { id, tool, events: [first], count: 1, args };
    this.#held.set(id, call);
    this.#chars += args.length;
    this.#events += call.count;
  }

  /**
   * One more event of the call held under `id` (the first held, by default), adding `args` to its
   * arguments (`event` undefined: counted, not kept): true while the calls stay held; false past
   * the bound (HELD_NATIVE_CHARS, HELD_NATIVE_EVENTS, over every call held): the wire sends what it
   * holds as it came (release()).
   */
  part(event: E | undefined, args?: string, id?: unknown): boolean {
    const held = id === undefined ? this.call! : this.#held.get(id)!;
    if (event !== undefined) held.events.push(event);
    held.count++;
    this.#events++;
    if (args !== undefined) {
      held.args += args;
      this.#chars += args.length;
    }
    return this.#chars <= HELD_NATIVE_CHARS && this.#events <= HELD_NATIVE_EVENTS;
  }

  /**
   * The call held under `id` (the first held, by default) is complete, `input` its whole input (a
   * JSON text or the object), `end` the event that ended it: true when it repeats a call sent,
   * which it uses up: dropped, nothing of it goes out. False: `end` joins its events and the wire
   * sends them as they came (release()).
   */
  complete(input: unknown, end?: E, id?: unknown): boolean {
    const held = id === undefined ? this.call! : this.#held.get(id)!;
    if (this.#sent.take(held.tool, input)) {
      this.#forget(held);
      return true;
    }
    if (end !== undefined) {
      held.events.push(end);
      held.count++;
      this.#events++;
    }
    return false;
  }

  /** A native call not held (no event of it came before the one that carries its whole input): true when it repeats a call sent, which it uses up. */
  repeats(tool: unknown, input: unknown): boolean {
    return this.#sent.take(tool, input);
  }

  /** The call held under `id` (the first held, by default) goes out as it came, undecided: the wire sends its events in order. Undefined when none is held. */
  release(id?: unknown): HeldCall<E> | undefined {
    const held = id === undefined ? this.call : this.get(id);
    if (held !== undefined) this.#forget(held);
    return held;
  }

  /** Every call held goes out as it came, undecided, in the order they were held. */
  releaseAll(): HeldCall<E>[] {
    if (this.#held.size === 0) return [];
    const all = [...this.#held.values()];
    this.#held.clear();
    this.#chars = 0;
    this.#events = 0;
    return all;
  }

  /**
   * The hold ends before the calls' own ends (a cut, the stand-aside, or the reply's end on a wire
   * with no end-of-call event, where the client finishes what it has): each call held whose input
   * so far (`inputOf`, its arguments by default) is complete JSON and repeats a call sent is
   * dropped (`dropped`); the others go out as they came (`released`), in the order they were held.
   */
  settle(inputOf: (call: HeldCall<E>) => unknown = (call) => call.args): { released: HeldCall<E>[]; dropped: HeldCall<E>[] } {
    const released: HeldCall<E>[] = [];
    const dropped: HeldCall<E>[] = [];
    for (const held of this.releaseAll()) (this.#sent.take(held.tool, inputOf(held)) ? dropped : released).push(held);
    return { released, dropped };
  }

  /** As settle(), for the call held under `id` alone (another call took its place on the wire). */
  settleOne(id: unknown, inputOf: (call: HeldCall<E>) => unknown = (call) => call.args): { released: HeldCall<E>[]; dropped: HeldCall<E>[] } {
    const held = this.release(id);
    if (held === undefined) return { released: [], dropped: [] };
    return this.#sent.take(held.tool, inputOf(held)) ? { released: [], dropped: [held] } : { released: [held], dropped: [] };
  }

  /** The repair stands aside: the call held goes out as it came (as release()), and no call is held any more. */
  stop(): HeldCall<E> | undefined {
    this.#stopped = true;
    return this.release();
  }

  /** The repair stands aside, or the reply was cut: as settle(), and nothing is held from here on. */
  stopAll(inputOf?: (call: HeldCall<E>) => unknown): { released: HeldCall<E>[]; dropped: HeldCall<E>[] } {
    this.#stopped = true;
    return this.settle(inputOf);
  }

  #forget(held: HeldCall<E>): void {
    this.#held.delete(held.id);
    this.#chars -= held.args.length;
    this.#events -= held.count;
  }
}
