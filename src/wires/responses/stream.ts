// Per-event decisions for a streamed Responses API reply. The text deltas of every output_text
// part of every message item are fed, each part to an engine of its own (markup never spans two
// parts) that reads on where the part before it ended (one reply is one documentation context and
// one count of calls: a fence opened in one part still holds in the next); recovered calls go out
// as function_call items right after the message item they were written in closes (items follow
// one another, and the AI SDK keys tool calls by output_index).
// Every later sequence_number and output_index moves by the events and items put in or taken out.
// When the request allows one call, recovered calls wait for the reply's end instead (after every
// item), so a native call item that comes first still wins: they are withdrawn, never sent. The
// text a part's engine holds after such a call waits with it: that part's closing events, and every
// event after them, are kept back until the reply decides it (#waiting).
import type { RecoveredCall } from "../../parse/types.ts";
import type { EngineEvent, EngineSummary } from "../../engine/types.ts";
import { type EventRewriter, HELD_EVENT_LIMIT, type Piece, RAW, type Rewritten, type SseEvent, typedEvent } from "../../sse/rewrite.ts";
import { type Json, isObject } from "../../sse/json.ts";
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
  /** It waited (#waiting) and the reply decided what it held: its end is never waited for again. */
  decided?: boolean;
}

/**
 * A part ended while its engine held text after a call held back: whether that text is the
 * model's own (a native call comes: the call is withdrawn) or a fabricated result (the reply ends:
 * stripped) is not known yet, so the part stays open downstream and its closing events, with every
 * later event, wait here.
 */
interface Waiting {
  part: FedPart;
  /** Kept back as they came (their bytes copied: an SseEvent is valid only during its call). */
  events: SseEvent[];
  bytes: number;
}

/** How the reply decided the text a waiting part holds. */
type Decision = "withdraw" | "end" | "release";

const END_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

export class ResponsesStreamRewriter implements EventRewriter {
  #first: GuardedEngine | undefined;
  #more: EngineFor;
  #engines: GuardedEngine[] = [];
  #onFinal: (more?: readonly EngineSummary[]) => void;
  #reported = false;
  #native = false;
  /** Added to every upstream sequence_number: events put in minus events dropped. */
  #seqShift = 0;
  #lastSeq: number | undefined;
  /** Items put in so far, all before any later upstream item. */
  #itemsIn = 0;
  #indices = new Map<number, number>();
  /** The part being fed, and every part fed so far by item id and content index. */
  #part: FedPart | undefined;
  #parts = new Map<string, FedPart[]>();
  /** Downstream output_index of the last message item that carried text. */
  #lastTextIndex: number | undefined;
  #pending: RecoveredCall[] = [];
  /** Recovered items already out, with the output_index they took; response.completed lists them too. */
  #emitted: { index: number; item: Json }[] = [];
  /** The request allows one call: recovered calls wait in #pending until the reply ends. */
  #hold: boolean;
  #waiting: Waiting | undefined;
  /** end() is releasing: what was kept back goes out as JSON pieces only. */
  #ended = false;

  constructor(guard: GuardedEngine, onFinal: (more?: readonly EngineSummary[]) => void, more: EngineFor = () => guard, oneCall = false) {
    this.#first = guard;
    this.#onFinal = onFinal;
    this.#more = more;
    this.#hold = oneCall;
  }

  event(sse: SseEvent): Rewritten | null {
    if (this.#waiting) return this.#wait(sse, this.#waiting);
    const event = typedEvent(sse.data);
    if (event === null) return null;
    const lead = this.#partEnding(event);
    if (this.#waiting) {
      this.#keep(sse, this.#waiting);
      for (const piece of lead) this.#numberSynthetic(piece);
      return { pieces: lead };
    }
    return this.#decide(event, lead);
  }

  /**
   * With one call allowed, an event that ends the part being fed (its closing events, or the next
   * part's first delta) while its engine holds text after a call held back: the part's markup is
   * decided as at its end (what that releases goes out now, into the part), and when text after
   * the call is still held the event starts #waiting.
   */
  #partEnding(event: Json): Json[] {
    const part = this.#part;
    if (!this.#hold || !part || part.decided || part.guard.done || part.guard.held === 0 || !this.#ends(event, part)) return [];
    const step = part.guard.step({ endSpan: true });
    const text = step.ok ? this.#take(step.events) : step.held;
    const lead = text === "" ? [] : [this.#partDelta(part, text)];
    if (step.ok && part.guard.held > 0 && this.#pending.length > 0) this.#waiting = { part, events: [], bytes: 0 };
    return lead;
  }

  #ends(event: Json, part: FedPart): boolean {
    switch (event.type) {
      case "response.output_text.done":
      case "response.content_part.done":
        return this.#partOf(event) === part;
      case "response.output_item.done":
        return isObject(event.item) && event.item.id === part.item;
      case "response.output_text.delta":
        return typeof event.item_id === "string" && this.#partOf(event) === undefined;
      default:
        return false;
    }
  }

  /**
   * An event while a part waits: a native call item decides its text is the model's own, the
   * reply's end that it is stripped; anything else is kept back too. Past HELD_EVENT_LIMIT bytes
   * kept back the text is released as text (as a tail past bufferLimit), the call still held.
   */
  #wait(sse: SseEvent, waiting: Waiting): Rewritten | null {
    const event = typedEvent(sse.data);
    const native = event?.type === "response.output_item.added" && isObject(event.item) && NATIVE_ITEMS.has(event.item.type as string);
    if (native || END_EVENTS.has(event?.type as string)) {
      const pieces = this.#release(native ? "withdraw" : "end");
      const own = this.event(sse);
      return { pieces: [...pieces, ...(own?.pieces ?? [RAW])], ...(own?.original ? { original: own.original } : {}) };
    }
    this.#keep(sse, waiting);
    if (waiting.bytes <= HELD_EVENT_LIMIT) return { pieces: [] };
    return { pieces: this.#release("release") };
  }

  #keep(sse: SseEvent, waiting: Waiting): void {
    // An event reported at a CR may still get the LF of its CR LF as the next chunk's first byte
    // (dropped now, as nothing went out for it): it goes out with that LF whatever the split.
    const bytes = sse.bytes.at(-1) === CR ? concat(sse.bytes, LF_BYTE) : sse.bytes.slice();
    waiting.events.push({ bytes, data: sse.data, hasMeta: sse.hasMeta, canWait: true });
    waiting.bytes += bytes.length;
  }

  /**
   * The reply decided what the waiting part holds: that text goes out into the part (or is
   * stripped when it closes), then every event kept back, through the usual path as if it came now.
   */
  #release(decision: Decision): Piece[] {
    const waiting = this.#waiting!;
    this.#waiting = undefined;
    waiting.part.decided = true;
    const lead: Json[] = [];
    if (decision === "withdraw") {
      // Every part from here on was written before a native call the reply made.
      this.#native = true;
      this.#withdraw(lead);
    } else if (decision === "release") {
      const step = waiting.part.guard.step({ releaseTail: true });
      const text = step.ok ? this.#take(step.events) : step.held;
      if (text !== "") lead.push(this.#partDelta(waiting.part, text));
    }
    for (const piece of lead) this.#numberSynthetic(piece);
    const pieces: Piece[] = [...lead];
    for (const held of waiting.events) {
      const out = this.event(held);
      for (const piece of out?.pieces ?? [RAW]) {
        if (piece !== RAW) pieces.push(piece);
        else if (!this.#ended) pieces.push(held.bytes);
        else {
          const event = typedEvent(held.data);
          if (event !== null) pieces.push(event);
        }
      }
    }
    return pieces;
  }

  /** One upstream event, `lead` the pieces to go out before it. */
  #decide(event: Json & { type: string }, lead: Json[]): Rewritten | null {
    const before: Json[] = lead;
    const after: Json[] = [];
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
      case "response.output_text.done": {
        const part = this.#partOf(event);
        if (part) {
          if (part === this.#part) before.push(...this.#flush());
          changed = setText(part, event, "text");
        }
        break;
      }
      case "response.content_part.done": {
        const part = this.#partOf(event);
        if (part && isObject(event.part)) changed = setText(part, event.part, "text");
        break;
      }
      case "response.output_item.done":
        if (isObject(event.item) && typeof event.item.id === "string" && this.#parts.has(event.item.id)) {
          before.push(...this.#flush());
          changed = this.#setItemText(event.item);
          if (!this.#hold) after.push(...this.#callItems(this.#indexOf(event)));
        }
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        before.push(...this.#flush(), ...this.#callItems(this.#endIndex()));
        this.#final();
        changed = this.#completed(event);
        break;
    }
    return this.#out(event, before, keep, changed, after);
  }

  end(): Json[] {
    // Kept back events go out first, as JSON (they are re-serialized: nothing of theirs is lost but their own bytes).
    this.#ended = true;
    const kept: Json[] = [];
    while (this.#waiting) kept.push(...(this.#release("end") as Json[]));
    const pieces = [...this.#flush(), ...this.#callItems(this.#endIndex())];
    this.#final();
    for (const piece of pieces) this.#numberSynthetic(piece);
    return [...kept, ...pieces];
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

  #added(event: Json, before: Json[]): void {
    const item = event.item;
    if (typeof event.output_index === "number") this.#indices.set(event.output_index, event.output_index + this.#itemsIn);
    if (!isObject(item) || !NATIVE_ITEMS.has(item.type as string)) return;
    // Native calls win: the part being fed, and every later one, strips markup instead of recovering it.
    this.#native = true;
    if (this.#hold && this.#pending.length > 0) return this.#withdraw(before);
    if (this.#part && !this.#part.guard.done) this.#part.guard.step({ native: true });
  }

  /**
   * A native call came while recovered calls were held back: they never go out, every engine of
   * the reply reports as if the native call had come first, and the text the current part's
   * engine held after them goes out as one more delta of that part.
   */
  #withdraw(before: Json[]): void {
    this.#pending = [];
    for (const guard of this.#engines) {
      const part = this.#part;
      if (part?.guard !== guard || guard.done) {
        guard.withdrawAfterFlush();
        continue;
      }
      const step = guard.step({ withdraw: true });
      const text = step.ok ? this.#take(step.events) : step.held;
      if (text !== "") before.push(this.#partDelta(part, text));
    }
  }

  /** The part a text delta belongs to, begun when it is new (what the part before still held goes out first). */
  #fed(event: Json, before: Json[]): FedPart | undefined {
    if (typeof event.item_id !== "string") return undefined;
    const content = typeof event.content_index === "number" ? event.content_index : 0;
    const current = this.#part;
    if (current && current.item === event.item_id && current.content === content) return current;
    const known = this.#partOf(event);
    if (known) return known;
    before.push(...this.#flush());
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
   * The engine of a part that begins (the part before it is flushed by now): the reply's first
   * engine, then one per part that reads on where the part before it ended. Once an engine failed
   * that reading is lost, so every later part passes through as it came (its engine is done).
   */
  #engine(): GuardedEngine {
    const previous = this.#engines.at(-1);
    if (previous?.failed) return previous;
    const first = this.#first;
    this.#first = undefined;
    const guard = first ?? this.#more(undefined, previous?.carryOver());
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
    // A part that already ended (flushed), or whose engine failed, passes its text on as it is.
    if (typeof delta !== "string" || delta === "" || part !== this.#part || part.guard.done) {
      if (typeof delta === "string") part.visible += delta;
      return { keep: true, changed: false };
    }
    const step = part.guard.step({ delta });
    const text = step.ok ? this.#take(step.events) : step.held + delta;
    part.visible += text;
    if (text === delta) return { keep: true, changed: false };
    part.changed = true;
    if (text === "") return { keep: false, changed: false };
    event.delta = text;
    return { keep: true, changed: true };
  }

  /** Engine events: text is returned, calls wait for the message item to close. */
  #take(events: EngineEvent[]): string {
    return textOf(events, this.#pending);
  }

  /** The part being fed ended: what its engine holds goes out as one more text delta of it. */
  #flush(): Json[] {
    const part = this.#part;
    if (!part) return [];
    this.#part = undefined;
    if (part.guard.done) return [];
    const step = part.guard.step({ flush: true });
    const text = step.ok ? this.#take(step.events) : step.held;
    return text === "" ? [] : [this.#partDelta(part, text)];
  }

  /** Text the engine released outside a delta of the part: one more text delta of it. */
  #partDelta(part: FedPart, text: string): Json {
    part.visible += text;
    part.changed = true;
    return { type: "response.output_text.delta", item_id: part.item, output_index: part.index, content_index: part.content, delta: text, logprobs: [] };
  }

  /** The four events of each waiting call, as items right after `afterIndex`. */
  #callItems(afterIndex: number | undefined): Json[] {
    if (this.#pending.length === 0) return [];
    // Once they go out the reply is over: holding ends.
    this.#hold = false;
    const out: Json[] = [];
    let index = (afterIndex ?? -1) + 1;
    for (const call of this.#pending) {
      const item = functionCallItem(call, "completed");
      const itemId = item.id as string;
      out.push(
        { type: "response.output_item.added", output_index: index, item: functionCallItem(call, "in_progress") },
        { type: "response.function_call_arguments.delta", item_id: itemId, output_index: index, delta: item.arguments },
        { type: "response.function_call_arguments.done", item_id: itemId, output_index: index, arguments: item.arguments },
        { type: "response.output_item.done", output_index: index, item },
      );
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

  /** Numbers what goes out: synthetic events continue the sequence, upstream ones move by the shift. */
  #out(event: Json, before: Json[], keep: boolean, changed: boolean, after: Json[]): Rewritten | null {
    for (const piece of before) this.#numberSynthetic(piece);
    if (!keep) {
      this.#seqShift--;
      for (const piece of after) this.#numberSynthetic(piece);
      return { pieces: [...before, ...after] };
    }
    if (typeof event.sequence_number === "number") {
      const seq = event.sequence_number + this.#seqShift;
      if (seq !== event.sequence_number) {
        event.sequence_number = seq;
        changed = true;
      }
      this.#lastSeq = seq;
    }
    const index = this.#indexOf(event);
    if (index !== undefined && index !== event.output_index) {
      event.output_index = index;
      changed = true;
    }
    for (const piece of after) this.#numberSynthetic(piece);
    if (!changed && before.length === 0 && after.length === 0) return null;
    const own: Piece = changed ? event : RAW;
    return { pieces: [...before, own, ...after], original: event };
  }

  #numberSynthetic(piece: Json): void {
    if (this.#lastSeq === undefined) return;
    piece.sequence_number = ++this.#lastSeq;
    this.#seqShift++;
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

const CR = 13;
const LF_BYTE = Uint8Array.of(10);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
