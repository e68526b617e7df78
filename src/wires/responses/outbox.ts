// What goes downstream for a streamed Responses reply, in order. A part that ended while the
// reply has not decided the text its engine holds after a call (text-parts.ts) stays open
// downstream: a slot goes out where the part ended, and everything after it waits here behind it
// until the reply decides it. Every upstream sequence_number is set as its event goes out, moved
// by the events put in and dropped before it; an event put in takes the next number.
import { HELD_EVENT_LIMIT, type Piece, RAW, type Rewritten, type SseEvent, typedEvent } from "../../sse/rewrite.ts";
import type { Json } from "../../sse/json.ts";
import { concatBytes } from "../../sse/framing.ts";

/** Where an ended part's undecided text goes: once `decided`, the delta it became (`fill`), if any, and events that waited for it (`after`: its annotations). */
export interface Slot {
  kind: "slot";
  decided: boolean;
  fill?: Json;
  after?: Json[];
}

/**
 * What goes out for an upstream event, in order: the event itself (its output_index and texts set
 * when it was read, its sequence_number as it goes out), an event put in, the event dropped, or a
 * slot. An event that waits keeps its own bytes (copied: an SseEvent is valid only during its
 * call), and its parsed form only when it changed.
 */
export type Out =
  | { kind: "event"; event: Json | undefined; data: string | undefined; type: string | undefined; seq: number | undefined; changed: boolean; bytes?: Uint8Array }
  | { kind: "new"; event: Json }
  | { kind: "drop" }
  | Slot;

/** The upstream event as read, `changed` when its output_index or texts were set. */
export function upstream(event: Json & { type: string }, changed: boolean): Out {
  return { kind: "event", event, data: undefined, type: event.type, seq: sequenceOf(event), changed };
}

/** Events that repeat their part's text: set again as they go out once a slot was filled. */
const DONE_EVENTS = new Set(["response.output_text.done", "response.content_part.done", "response.output_item.done"]);

interface OutboxHooks {
  /** A `done` event, after a slot was filled: its part's text as it went out; true when that changed it. */
  refresh(event: Json): boolean;
  /** What waits passed HELD_EVENT_LIMIT: the reply's undecided text is released, never lost; what that puts in goes last. */
  overflow(): Out[];
}

export class Outbox {
  #hooks: OutboxHooks;
  /** Added to every upstream sequence_number as it goes out: events put in minus events dropped. */
  #seqShift = 0;
  #lastSeq: number | undefined;
  /** What waits to go out behind a slot not yet decided, and the upstream bytes it took. */
  #queue: Out[] = [];
  #queued = 0;
  /** Slots filled so far: `done` texts of their parts are set again as they go out. */
  #filled = 0;

  constructor(hooks: OutboxHooks) {
    this.#hooks = hooks;
  }

  /**
   * An event nothing was put in around and nothing of it changed: null (it goes out as it came,
   * with its own number) unless something waits, its number moves or its `done` text may be set
   * again. The usual event, so it builds nothing on its way.
   */
  unchanged(event: Json & { type: string }, sse: SseEvent): Rewritten | null {
    const seq = sequenceOf(event);
    if (this.#queue.length === 0 && (seq === undefined || this.#seqShift === 0) && !(this.#filled > 0 && DONE_EVENTS.has(event.type))) {
      if (seq !== undefined) this.#lastSeq = seq;
      return null;
    }
    return this.put([{ kind: "event", event, data: undefined, type: event.type, seq, changed: false }], sse);
  }

  /** An event with no typed JSON: as it came, or behind what waits. */
  untyped(sse: SseEvent): Rewritten | null {
    if (this.#queue.length === 0) return null;
    return this.put([{ kind: "event", event: undefined, data: sse.data, type: undefined, seq: undefined, changed: false }], sse);
  }

  /** What goes out for an event while something waits (or it waits itself): the queue up to its first slot not yet decided. */
  put(outs: Out[], sse: SseEvent): Rewritten | null {
    if (this.#queue.length === 0 && !outs.some(undecided)) return this.#send(outs, false);
    for (const out of outs) this.#queue.push(out);
    this.#queued += sse.bytes.length;
    // Past the bound the reply's undecided text is released as text (as a tail past bufferLimit), so it is never lost; the calls stand.
    if (this.#queued > HELD_EVENT_LIMIT) for (const out of this.#hooks.overflow()) this.#queue.push(out);
    let ready = 0;
    while (ready < this.#queue.length && !undecided(this.#queue[ready]!)) ready++;
    const sent = this.#queue.splice(0, ready);
    for (const out of this.#queue) {
      // The event's own, staying in the queue: its bytes are copied now.
      if (out.kind !== "event" || out.bytes) continue;
      out.bytes = copyOf(sse);
      out.data = sse.data;
      if (!out.changed) out.event = undefined;
    }
    if (this.#queue.length === 0) this.#queued = 0;
    else if (ready > 0) this.#queued = sse.bytes.length;
    return this.#send(sent, false) ?? { pieces: [RAW] };
  }

  /** The number an upstream event streaming past (nothing waits then) goes out with. */
  passing(seq: number): number {
    this.#lastSeq = seq + this.#seqShift;
    return this.#lastSeq;
  }

  /** The body ended: what waited, then `outs`, as JSON (re-serialized: nothing of theirs is lost but their own bytes). */
  drain(outs: Out[]): Json[] {
    const queued = [...this.#queue, ...outs];
    this.#queue = [];
    this.#queued = 0;
    return (this.#send(queued, true)?.pieces ?? []) as Json[];
  }

  /** The reply decided a slot: `fill` is the text delta it became, if any; `after`, events that go out right after it. */
  fill(slot: Slot, fill: Json | undefined, after: Json[] = []): void {
    slot.decided = true;
    if (after.length > 0) slot.after = after;
    if (fill === undefined) return;
    slot.fill = fill;
    this.#filled++;
  }

  /**
   * Pieces for `outs`, numbered as they go out: an upstream event moves by the events put in and
   * dropped before it, one put in takes the next number. `json`: every piece as JSON (the body
   * ended). null: the one event goes out as it came.
   */
  #send(outs: Out[], json: boolean): Rewritten | null {
    const pieces: Piece[] = [];
    let original: Json | undefined;
    for (const out of outs) {
      if (out.kind === "drop") this.#seqShift--;
      else if (out.kind === "new") pieces.push(this.#numbered(out.event));
      else if (out.kind === "slot") {
        if (out.fill) pieces.push(this.#numbered(out.fill));
        for (const event of out.after ?? []) pieces.push(this.#numbered(event));
      } else {
        let event = out.event;
        let changed = out.changed;
        if (out.seq !== undefined) {
          const seq = out.seq + this.#seqShift;
          this.#lastSeq = seq;
          if (seq !== out.seq && (event ??= parse(out))) {
            event.sequence_number = seq;
            changed = true;
          }
        }
        if (this.#filled > 0 && DONE_EVENTS.has(out.type!) && (event ??= parse(out)) && this.#hooks.refresh(event)) changed = true;
        if ((changed || json) && (event ??= parse(out))) {
          pieces.push(event);
          if (!out.bytes) original = event;
        } else if (!json) pieces.push(out.bytes ?? RAW);
      }
    }
    if (pieces.length === 1 && pieces[0] === RAW) return null;
    return original ? { pieces, original } : { pieces };
  }

  #numbered(piece: Json): Json {
    if (this.#lastSeq !== undefined) {
      piece.sequence_number = ++this.#lastSeq;
      this.#seqShift++;
    }
    return piece;
  }
}

function sequenceOf(event: Json): number | undefined {
  return typeof event.sequence_number === "number" ? event.sequence_number : undefined;
}

/** A waiting event's parsed form, read again from its data. */
function parse(out: { data: string | undefined }): Json | undefined {
  return typedEvent(out.data) ?? undefined;
}

function undecided(out: Out): boolean {
  return out.kind === "slot" && !out.decided;
}

const CR = 13;
const LF_BYTE = Uint8Array.of(10);

/**
 * An event's bytes to send later. One reported at a CR may still get the LF of its CR LF as the
 * next chunk's first byte (dropped then, as nothing went out for it): it goes out with that LF
 * whatever the split.
 */
function copyOf(sse: SseEvent): Uint8Array {
  return sse.bytes.at(-1) === CR ? concatBytes([sse.bytes, LF_BYTE]) : sse.bytes.slice();
}
