// Per-event decisions for a streamed Responses API reply. The text deltas of every output_text
// part of every message item are fed, each part to an engine of its own (markup never spans two
// parts) that reads on where the part before it ended (one reply is one documentation context and
// one count of calls: a fence opened in one part still holds in the next); recovered calls go out
// as function_call items right after the message item they were written in closes (items follow
// one another, and the AI SDK keys tool calls by output_index).
// A part's end is not the reply's: text its engine holds after a recovered call then (S03: it may be
// a fabricated tool result) stays undecided, and the next part's engine holds its own text after
// that call too, until the reply decides it: a later call shows it where it stood, the reply's end
// strips it, as parse() on the one text does. Until then the part stays open downstream: what goes
// out after its end waits in a queue (#queue), behind the slot its text may still fill.
// Every later sequence_number (set as an event goes out) and output_index moves by the events and
// items put in or taken out.
// When the request allows one call, recovered calls wait for the reply's end instead (after every
// item), so a native call item that comes first still wins: they are withdrawn, never sent, and
// the text held after them is the model's own again.
import type { RecoveredCall } from "../../parse/types.ts";
import type { AnswerSoFar, EngineEvent, EngineSummary } from "../../engine/types.ts";
import { type EventRewriter, HELD_EVENT_LIMIT, type Piece, RAW, type Rewritten, type SseEvent, typedEvent } from "../../sse/rewrite.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { concatBytes } from "../../sse/framing.ts";
import type { GuardedEngine } from "../../engine/guarded.ts";
import type { EngineFor } from "../wire.ts";
import { NATIVE_ITEMS, functionCallItem, textOf } from "./items.ts";

/** One output_text part as it went out. */
interface FedPart {
  item: string;
  content: number;
  /** Downstream output_index of its message item. */
  index: number | undefined;
  guard: GuardedEngine;
  visible: string;
  changed: boolean;
  /** It ended while its engine held text after a call: where that text goes once the reply decides it. */
  slot?: Slot;
}

/** Where an ended part's undecided text goes: once `decided`, the delta it became (`fill`), if any. */
interface Slot {
  kind: "slot";
  part: FedPart;
  decided: boolean;
  fill?: Json;
}

/**
 * What goes out for an upstream event, in order: the event itself (its output_index and texts set
 * when it was read, its sequence_number as it goes out), an event put in, the event dropped, or a
 * slot. An event that waits in the queue keeps its own bytes (copied: an SseEvent is valid only
 * during its call), and its parsed form only when it changed.
 */
type Out =
  | { kind: "event"; event: Json | undefined; data: string | undefined; type: string | undefined; seq: number | undefined; changed: boolean; bytes?: Uint8Array }
  | { kind: "new"; event: Json }
  | { kind: "drop" }
  | Slot;

const END_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);
const DONE_EVENTS = new Set(["response.output_text.done", "response.content_part.done", "response.output_item.done"]);

export class ResponsesStreamRewriter implements EventRewriter {
  #first: GuardedEngine | undefined;
  #more: EngineFor;
  #engines: GuardedEngine[] = [];
  #onFinal: (more?: readonly EngineSummary[]) => void;
  #reported = false;
  #native = false;
  /** Added to every upstream sequence_number as it goes out: events put in minus events dropped. */
  #seqShift = 0;
  #lastSeq: number | undefined;
  /** Items put in so far, all before any later upstream item. */
  #itemsIn = 0;
  #indices = new Map<number, number>();
  /** The part being fed, and every part fed so far by item id and content index. */
  #part: FedPart | undefined;
  #parts = new Map<string, FedPart[]>();
  /** Where the reply's text stood when the last part ended, for the next part's engine. */
  #carry: AnswerSoFar | undefined;
  /** Parts that ended while their engine held text after the reply's last call, undecided. */
  #tails: FedPart[] = [];
  /** What waits to go out behind a slot not yet decided, and the upstream bytes it took. */
  #queue: Out[] = [];
  #queued = 0;
  /** Slots filled so far: `done` texts of their parts are set again as they go out. */
  #filled = 0;
  /** Downstream output_index of the last message item that carried text. */
  #lastTextIndex: number | undefined;
  #pending: RecoveredCall[] = [];
  /** Recovered items already out, with the output_index they took; response.completed lists them too. */
  #emitted: { index: number; item: Json }[] = [];
  /** The request allows one call: recovered calls wait in #pending until the reply ends. */
  #hold: boolean;

  constructor(guard: GuardedEngine, onFinal: (more?: readonly EngineSummary[]) => void, more: EngineFor = () => guard, oneCall = false) {
    this.#first = guard;
    this.#onFinal = onFinal;
    this.#more = more;
    this.#hold = oneCall;
  }

  event(sse: SseEvent): Rewritten | null {
    const event = typedEvent(sse.data);
    if (event === null) return this.#queue.length === 0 ? null : this.#wait([{ kind: "event", event: undefined, data: sse.data, type: undefined, seq: undefined, changed: false }], sse);
    const outs = this.#decide(event);
    if (outs !== undefined) return this.#wait(outs, sse);
    // The usual event: nothing put in before or after it, nothing of it changed, and it goes out now with its own number.
    const seq = typeof event.sequence_number === "number" ? event.sequence_number : undefined;
    if (this.#queue.length === 0 && (seq === undefined || this.#seqShift === 0) && !(this.#filled > 0 && DONE_EVENTS.has(event.type))) {
      if (seq !== undefined) this.#lastSeq = seq;
      return null;
    }
    return this.#wait([{ kind: "event", event, data: undefined, type: event.type, seq, changed: false }], sse);
  }

  /** What goes out for an event while something waits (or it waits itself): the queue up to its first slot not yet decided. */
  #wait(outs: Out[], sse: SseEvent): Rewritten | null {
    if (this.#queue.length === 0 && !outs.some(undecided)) return this.#send(outs, false);
    for (const out of outs) this.#queue.push(out);
    this.#queued += sse.bytes.length;
    // Past the bound the reply's undecided text is released as text (as a tail past bufferLimit), so it is never lost; the calls stand.
    if (this.#queued > HELD_EVENT_LIMIT && this.#tails.length > 0) this.#releaseAll();
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

  /** One upstream event: what goes out for it, in order; undefined when that is the event alone, unchanged. */
  #decide(event: Json & { type: string }): Out[] | undefined {
    const before: Out[] = [];
    const after: Out[] = [];
    let keep = true;
    let changed = false;
    switch (event.type) {
      case "response.output_item.added":
        this.#added(event, before);
        break;
      case "response.output_text.delta": {
        const part = this.#fed(event, before);
        if (part) ({ keep, changed } = this.#delta(part, event));
        break;
      }
      case "response.output_text.done":
      case "response.content_part.done": {
        const part = this.#partOf(event);
        if (part) {
          if (part === this.#part) before.push(...this.#endPart());
          if (event.type === "response.output_text.done") changed = setText(part, event, "text");
          else if (isObject(event.part)) changed = setText(part, event.part, "text");
        }
        break;
      }
      case "response.output_item.done":
        if (isObject(event.item) && typeof event.item.id === "string" && this.#parts.has(event.item.id)) {
          before.push(...this.#endPart());
          changed = this.#setItemText(event.item);
          if (!this.#hold) after.push(...this.#callItems(this.#indexOf(event)));
        }
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        before.push(...this.#endReply());
        before.push(...this.#callItems(this.#endIndex()));
        this.#final();
        changed = this.#completed(event);
        break;
    }
    if (!keep) return [...before, { kind: "drop" }, ...after];
    const index = this.#indexOf(event);
    if (index !== undefined && index !== event.output_index) {
      event.output_index = index;
      changed = true;
    }
    if (!changed && before.length === 0 && after.length === 0) return undefined;
    const seq = typeof event.sequence_number === "number" ? event.sequence_number : undefined;
    return [...before, { kind: "event", event, data: undefined, type: event.type, seq, changed }, ...after];
  }

  end(): Json[] {
    const outs = [...this.#endReply(), ...this.#callItems(this.#endIndex())];
    this.#final();
    const queued = [...this.#queue, ...outs];
    this.#queue = [];
    this.#queued = 0;
    // What waited goes out first, as JSON (re-serialized: nothing of theirs is lost but their own bytes).
    return (this.#send(queued, true)?.pieces ?? []) as Json[];
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
        if (this.#filled > 0 && DONE_EVENTS.has(out.type!) && (event ??= parse(out)) && this.#refresh(event)) changed = true;
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

  /** A `done` event of a part whose slot was filled after it was read: its text as it went out. */
  #refresh(event: Json): boolean {
    if (event.type === "response.output_item.done") {
      return isObject(event.item) && typeof event.item.id === "string" && (this.#parts.get(event.item.id) ?? []).some((part) => part.slot?.fill) && this.#setItemText(event.item);
    }
    const part = this.#partOf(event);
    if (!part?.slot?.fill) return false;
    if (event.type === "response.output_text.done") return setText(part, event, "text");
    return isObject(event.part) && setText(part, event.part, "text");
  }

  /** Where waiting calls go at the reply's end: after the last message item that carried text, or after every item when they were held. */
  #endIndex(): number {
    const fallback = this.#itemsIn + this.#indices.size;
    if (!this.#hold) return this.#lastTextIndex ?? fallback;
    let last = -1;
    for (const index of this.#indices.values()) last = Math.max(last, index);
    for (const { index } of this.#emitted) last = Math.max(last, index);
    return last === -1 ? fallback : last;
  }

  #added(event: Json, before: Out[]): void {
    const item = event.item;
    if (typeof event.output_index === "number") this.#indices.set(event.output_index, event.output_index + this.#itemsIn);
    if (!isObject(item) || !NATIVE_ITEMS.has(item.type as string)) return;
    // Native calls win: the part being fed, and every later one, strips markup instead of recovering it.
    this.#native = true;
    if (this.#hold && this.#pending.length > 0) return this.#withdraw(before);
    // Calls already out stand: the text held after them can no longer be shown by a later call (markup is now a native call's duplicate), so the reply decided it.
    this.#decideTails("end");
    if (this.#part && !this.#part.guard.done) this.#part.guard.step({ native: true });
  }

  /**
   * A native call came while recovered calls were held back: they never go out, every engine of
   * the reply reports as if the native call had come first, and the text they held after them is
   * the model's own again: into the part it was written in (its slot, or a delta of the part being fed).
   */
  #withdraw(before: Out[]): void {
    this.#pending = [];
    const tails = this.#tails;
    this.#tails = [];
    for (const guard of this.#engines) {
      const tail = tails.find((part) => part.guard === guard);
      if (tail) {
        const step = guard.step({ withdraw: true });
        this.#fill(tail, (step.ok ? textOf(step.events, []) : step.held) + this.#flushed(guard));
        continue;
      }
      const part = this.#part;
      if (part?.guard !== guard || guard.done) {
        guard.withdrawAfterFlush();
        continue;
      }
      const step = guard.step({ withdraw: true });
      const text = step.ok ? textOf(step.events, []) : step.held;
      if (text !== "") before.push(this.#partDelta(part, text));
    }
    this.#carryNoTail();
  }

  /** The part a text delta belongs to, begun when it is new (the part before it ends first). */
  #fed(event: Json, before: Out[]): FedPart | undefined {
    if (typeof event.item_id !== "string") return undefined;
    const content = typeof event.content_index === "number" ? event.content_index : 0;
    const current = this.#part;
    if (current && current.item === event.item_id && current.content === content) return current;
    const known = this.#partOf(event);
    if (known) return known;
    before.push(...this.#endPart());
    const guard = this.#engine();
    const part: FedPart = { item: event.item_id, content, index: this.#indexOf(event), guard, visible: "", changed: false };
    this.#part = part;
    this.#lastTextIndex = part.index;
    const list = this.#parts.get(part.item);
    if (list) list.push(part);
    else this.#parts.set(part.item, [part]);
    return part;
  }

  /**
   * The engine of a part that begins: the reply's first engine, then one per part that reads on
   * where the part before it ended. Once an engine failed that reading is lost, so every later
   * part passes through as it came (its engine is done).
   */
  #engine(): GuardedEngine {
    const previous = this.#engines.at(-1);
    if (previous?.failed) return previous;
    const first = this.#first;
    this.#first = undefined;
    const guard = first ?? this.#more(undefined, this.#carry);
    this.#engines.push(guard);
    if (this.#native && !guard.done) guard.step({ native: true });
    return guard;
  }

  #partOf(event: Json): FedPart | undefined {
    if (typeof event.item_id !== "string") return undefined;
    const content = typeof event.content_index === "number" ? event.content_index : 0;
    return this.#parts.get(event.item_id)?.find((part) => part.content === content);
  }

  #delta(part: FedPart, event: Json): { keep: boolean; changed: boolean } {
    const delta = event.delta;
    // A part that already ended, or whose engine failed, passes its text on as it is.
    if (typeof delta !== "string" || delta === "" || part !== this.#part || part.guard.done) {
      if (typeof delta === "string") part.visible += delta;
      return { keep: true, changed: false };
    }
    const step = part.guard.step({ delta });
    const text = step.ok ? this.#take(step.events) : step.held + delta;
    // Its engine failed (the rest passes as it came), or let go of the text it held after the call
    // before (past the tail limit): what the parts before held shows too.
    if (this.#tails.length > 0 && (!step.ok || !part.guard.afterCall)) this.#decideTails("release");
    part.visible += text;
    if (text === delta) return { keep: true, changed: false };
    part.changed = true;
    if (text === "") return { keep: false, changed: false };
    event.delta = text;
    return { keep: true, changed: true };
  }

  /** Engine events: text is returned, calls wait for the message item to close. A call shows what the parts before held after the call before it. */
  #take(events: EngineEvent[]): string {
    const found = this.#pending.length;
    const text = textOf(events, this.#pending);
    if (this.#pending.length > found) this.#decideTails("release");
    return text;
  }

  /**
   * The part being fed ended, the reply not: its markup is decided (endSpan), and text its engine
   * holds after a call waits for the reply in the part's slot, the part still open downstream.
   */
  #endPart(): Out[] {
    const part = this.#part;
    if (!part) return [];
    this.#part = undefined;
    if (part.guard.done) return [];
    const out: Out[] = [];
    const step = part.guard.step({ endSpan: true });
    if (!step.ok) {
      this.#decideTails("release");
      if (step.held !== "") out.push(this.#partDelta(part, step.held));
      return out;
    }
    const text = this.#take(step.events);
    if (text !== "") out.push(this.#partDelta(part, text));
    const carry = part.guard.carryOver();
    this.#carry = carry;
    if (carry?.tail !== undefined && part.guard.held > 0) {
      const slot: Slot = { kind: "slot", part, decided: false };
      part.slot = slot;
      this.#tails.push(part);
      out.push(slot);
      return out;
    }
    // No text after the call here: what the parts before held (its engine let go of it) shows.
    if (carry?.tail === undefined) this.#decideTails("release");
    const more = this.#flushed(part.guard);
    if (more !== "") out.push(this.#partDelta(part, more));
    return out;
  }

  /** The reply ended: the part being fed is flushed, then the text every earlier part held after the last call is stripped (S03). */
  #endReply(): Out[] {
    const part = this.#part;
    this.#part = undefined;
    const out: Out[] = [];
    if (part && !part.guard.done) {
      const text = this.#flushed(part.guard);
      if (text !== "") out.push(this.#partDelta(part, text));
    }
    this.#decideTails("end");
    return out;
  }

  /** What flushing an engine released (a failed one hands back what it held). */
  #flushed(guard: GuardedEngine): string {
    const step = guard.step({ flush: true });
    return step.ok ? this.#take(step.events) : step.held;
  }

  /**
   * The reply decided the text every waiting part holds after its last call: shown where it
   * stood ("release": another call came, or it can wait no longer) or stripped ("end").
   */
  #decideTails(decision: "release" | "end"): void {
    this.#carryNoTail();
    const tails = this.#tails;
    if (tails.length === 0) return;
    this.#tails = [];
    for (const part of tails) {
      let text = "";
      if (decision === "release") {
        const step = part.guard.step({ releaseTail: true });
        text = step.ok ? textOf(step.events, []) : step.held;
      }
      this.#fill(part, text + this.#flushed(part.guard));
    }
  }

  /** Past the bound on what waits: every part's undecided text, the part being fed's too, is released as text. */
  #releaseAll(): void {
    this.#decideTails("release");
    const part = this.#part;
    if (!part || part.guard.done || !part.guard.afterCall) return;
    const step = part.guard.step({ releaseTail: true });
    const text = step.ok ? textOf(step.events, []) : step.held;
    if (text !== "") this.#queue.push(this.#partDelta(part, text));
  }

  #fill(part: FedPart, text: string): void {
    const slot = part.slot!;
    slot.decided = true;
    if (text === "") return;
    slot.fill = this.#partDelta(part, text).event;
    this.#filled++;
  }

  /** The next part's engine holds nothing after a call: the reply decided that text. */
  #carryNoTail(): void {
    if (this.#carry?.tail === undefined) return;
    const { tail: _, ...rest } = this.#carry;
    this.#carry = rest;
  }

  /** Text the engine released outside a delta of the part: one more text delta of it. */
  #partDelta(part: FedPart, text: string): { kind: "new"; event: Json } {
    part.visible += text;
    part.changed = true;
    return { kind: "new", event: { type: "response.output_text.delta", item_id: part.item, output_index: part.index, content_index: part.content, delta: text, logprobs: [] } };
  }

  /** The four events of each waiting call, as items right after `afterIndex`. */
  #callItems(afterIndex: number | undefined): Out[] {
    if (this.#pending.length === 0) return [];
    // Once they go out the reply is over: holding ends.
    this.#hold = false;
    const out: Out[] = [];
    let index = (afterIndex ?? -1) + 1;
    for (const call of this.#pending) {
      const item = functionCallItem(call, "completed");
      const itemId = item.id as string;
      for (const event of [
        { type: "response.output_item.added", output_index: index, item: functionCallItem(call, "in_progress") },
        { type: "response.function_call_arguments.delta", item_id: itemId, output_index: index, delta: item.arguments },
        { type: "response.function_call_arguments.done", item_id: itemId, output_index: index, arguments: item.arguments },
        { type: "response.output_item.done", output_index: index, item },
      ])
        out.push({ kind: "new", event });
      this.#emitted.push({ index, item });
      index++;
      this.#itemsIn++;
    }
    this.#pending = [];
    return out;
  }

  /** A message item's parts, as they went out. */
  #setItemText(item: Json): boolean {
    if (typeof item.id !== "string" || !Array.isArray(item.content)) return false;
    let changed = false;
    for (const part of this.#parts.get(item.id) ?? []) {
      const held = item.content[part.content];
      if (isObject(held) && setText(part, held, "text")) changed = true;
    }
    return changed;
  }

  /** The final response object lists the output as it went out. */
  #completed(event: Json): boolean {
    const response = event.response;
    if (!isObject(response) || !Array.isArray(response.output)) return false;
    let changed = false;
    for (const item of response.output) if (isObject(item) && this.#setItemText(item)) changed = true;
    for (const { index, item } of this.#emitted) {
      response.output.splice(Math.min(index, response.output.length), 0, item);
      changed = true;
    }
    return changed;
  }

  #indexOf(event: Json): number | undefined {
    const index = event.output_index;
    if (typeof index !== "number") return undefined;
    return this.#indices.get(index) ?? index + this.#itemsIn;
  }

  /** Once, at the end: the first engine's report with every other one's. */
  #final(): void {
    if (this.#reported) return;
    this.#reported = true;
    const [first, ...rest] = this.#engines;
    if (first?.failed) return;
    const more: EngineSummary[] = [];
    for (const guard of rest) {
      const summary = guard.failed ? undefined : guard.summary();
      if (summary) more.push(summary);
    }
    this.#onFinal(more);
  }
}

/** The part's text as it went out, into `holder[key]`, when the engines changed it. */
function setText(part: FedPart, holder: Json, key: string): boolean {
  if (!part.changed || holder[key] === part.visible) return false;
  holder[key] = part.visible;
  return true;
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
