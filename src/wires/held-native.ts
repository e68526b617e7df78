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
// At most one call is held at a time: a wire releases or decides the held call before it holds another.
// While nothing is held an event costs one field read (holding): nothing is kept or allocated for it.
import type { RecoveredCall } from "../parse/types.ts";
import { HELD_NATIVE_CHARS, HELD_NATIVE_EVENTS, SentCalls } from "./sent-calls.ts";

/** The native call held: its id on the wire, its tool, its events so far and its arguments text so far. */
export interface HeldCall<E> {
  /** What the wire tells the call's events by (a block index, an output_index, a part id, an entry index). */
  readonly id: unknown;
  readonly tool: unknown;
  /** The events kept, in order, to go out as they came (a wire that sends the call otherwise keeps only the first). */
  readonly events: E[];
  /** Events of the call so far, kept or not. */
  count: number;
  args: string;
}

export class HeldNative<E> {
  #sent = new SentCalls();
  #held: HeldCall<E> | undefined;
  /** stop() came: nothing is held any more. */
  #stopped = false;

  /** A recovered call went out to the client. */
  add(call: RecoveredCall): void {
    this.#sent.add(call);
  }

  /** A call is held (the common case, none, is one field read). */
  get holding(): boolean {
    return this.#held !== undefined;
  }

  /** The call held, if any. */
  get call(): HeldCall<E> | undefined {
    return this.#held;
  }

  /** A native call for `tool` may repeat a call sent: the wire holds it (hold()) until its input is complete. */
  mayRepeat(tool: unknown): boolean {
    return !this.#stopped && this.#sent.has(tool);
  }

  /**
   * Holds a native call from its first event (`first`, when the wire has it yet) and the arguments
   * text that event carries. The wire released or decided any call held before.
   */
  hold(id: unknown, tool: unknown, first?: E, args = ""): void {
    this.#held = first === undefined ? { id, tool, events: [], count: 0, args } : { id, tool, events: [first], count: 1, args };
  }

  /**
   * One more event of the call held, adding `args` to its arguments (`event` undefined: counted, not
   * kept): true while it stays held; false past the bound (HELD_NATIVE_CHARS, HELD_NATIVE_EVENTS):
   * the wire sends it as it came (release()).
   */
  part(event: E | undefined, args?: string): boolean {
    const held = this.#held!;
    if (event !== undefined) held.events.push(event);
    held.count++;
    if (args !== undefined) held.args += args;
    return held.args.length <= HELD_NATIVE_CHARS && held.count <= HELD_NATIVE_EVENTS;
  }

  /**
   * The call held is complete, `input` its whole input (a JSON text or the object), `end` the event
   * that ended it: true when it repeats a call sent, which it uses up: dropped, nothing of it goes
   * out. False: `end` joins its events and the wire sends them as they came (release()).
   */
  complete(input: unknown, end?: E): boolean {
    const held = this.#held!;
    if (this.#sent.take(held.tool, input)) {
      this.#held = undefined;
      return true;
    }
    if (end !== undefined) {
      held.events.push(end);
      held.count++;
    }
    return false;
  }

  /** A native call not held (no event of it came before the one that carries its whole input): true when it repeats a call sent, which it uses up. */
  repeats(tool: unknown, input: unknown): boolean {
    return this.#sent.take(tool, input);
  }

  /** The call held goes out as it came, undecided: the wire sends its events in order. Undefined when none is held. */
  release(): HeldCall<E> | undefined {
    const held = this.#held;
    this.#held = undefined;
    return held;
  }

  /** The repair stands aside: the call held goes out as it came (as release()), and no call is held any more. */
  stop(): HeldCall<E> | undefined {
    this.#stopped = true;
    return this.release();
  }
}
