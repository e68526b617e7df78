// Per-event decisions for a streamed Responses API reply. Text deltas of the first message item
// are fed to the engine; recovered calls go out as function_call items right after that message
// item closes (items follow one another, and the AI SDK keys tool calls by output_index). Every
// later sequence_number and output_index moves by the events and items put in or taken out.
import type { RecoveredCall } from "../parse/types.ts";
import type { EngineEvent } from "../stream/types.ts";
import { RAW, type Piece, type Rewritten } from "./chunk-rewriter.ts";
import { type EventRewriter, namedEventMeta, typedEvent } from "./event-stream.ts";
import { type Json, isObject } from "./openai.ts";
import type { GuardedEngine } from "./guarded-engine.ts";
import { NATIVE_ITEMS, functionCallItem, textOf } from "./responses-items.ts";

export class ResponsesStreamRewriter implements EventRewriter {
  #guard: GuardedEngine;
  #onFinal: () => void;
  #reported = false;
  /** Added to every upstream sequence_number: events put in minus events dropped. */
  #seqShift = 0;
  #lastSeq: number | undefined;
  /** Items put in so far, all before any later upstream item. */
  #itemsIn = 0;
  #indices = new Map<number, number>();
  /** The message item whose text is fed, and which content part. */
  #textItem: string | undefined;
  #textPart = 0;
  /** Downstream output_index of that item. */
  #textIndex: number | undefined;
  #visible = "";
  #textChanged = false;
  #pending: RecoveredCall[] = [];
  /** Recovered items already out, with the output_index they took; response.completed lists them too. */
  #emitted: { index: number; item: Json }[] = [];

  constructor(guard: GuardedEngine, onFinal: () => void) {
    this.#guard = guard;
    this.#onFinal = onFinal;
  }

  metaFor(piece: Json): readonly string[] {
    return namedEventMeta(piece);
  }

  event(payload: string): Rewritten | null {
    const event = typedEvent(payload);
    if (event === null) return null;
    const before: Json[] = [];
    const after: Json[] = [];
    let keep = true;
    let changed = false;
    switch (event.type) {
      case "response.output_item.added":
        this.#added(event);
        break;
      case "response.output_text.delta":
        if (this.#isFed(event)) ({ keep, changed } = this.#delta(event));
        break;
      case "response.output_text.done":
        if (this.#isFed(event)) {
          before.push(...this.#flush());
          changed = this.#setText(event, "text");
        }
        break;
      case "response.content_part.done":
        if (this.#isFed(event) && isObject(event.part)) changed = this.#setText(event.part, "text");
        break;
      case "response.output_item.done":
        if (isObject(event.item) && event.item.id === this.#textItem && this.#textItem !== undefined) {
          changed = this.#setItemText(event.item);
          after.push(...this.#callItems(this.#indexOf(event)));
        }
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        before.push(...this.#flush(), ...this.#callItems(this.#textIndex ?? this.#itemsIn + this.#indices.size));
        changed = this.#completed(event);
        break;
    }
    return this.#out(event, before, keep, changed, after);
  }

  end(): Json[] {
    const pieces = [...this.#flush(), ...this.#callItems(this.#textIndex ?? this.#itemsIn + this.#indices.size)];
    for (const piece of pieces) this.#numberSynthetic(piece);
    return pieces;
  }

  #added(event: Json): void {
    const item = event.item;
    if (typeof event.output_index === "number") this.#indices.set(event.output_index, event.output_index + this.#itemsIn);
    if (!isObject(item)) return;
    if (NATIVE_ITEMS.has(item.type as string) && !this.#guard.done) this.#guard.step({ native: true });
  }

  /** A text event of the message item being fed (the first one that streams text). */
  #isFed(event: Json): boolean {
    if (typeof event.item_id !== "string") return false;
    if (this.#textItem === undefined && event.type === "response.output_text.delta" && !this.#guard.done) {
      this.#textItem = event.item_id;
      this.#textPart = typeof event.content_index === "number" ? event.content_index : 0;
      this.#textIndex = this.#indexOf(event);
    }
    return event.item_id === this.#textItem && (event.content_index ?? 0) === this.#textPart;
  }

  #delta(event: Json): { keep: boolean; changed: boolean } {
    const delta = event.delta;
    if (typeof delta !== "string" || delta === "" || this.#guard.done) {
      if (typeof delta === "string") this.#visible += delta;
      return { keep: true, changed: false };
    }
    const events = this.#guard.feed(delta);
    const text = typeof events === "string" ? events + delta : this.#take(events);
    this.#visible += text;
    if (text === delta) return { keep: true, changed: false };
    this.#textChanged = true;
    if (text === "") return { keep: false, changed: false };
    event.delta = text;
    return { keep: true, changed: true };
  }

  /** Engine events: text is returned, calls wait for the message item to close. */
  #take(events: EngineEvent[]): string {
    return textOf(events, this.#pending);
  }

  /** Releases what the engine holds, as one more text delta of the fed part. */
  #flush(): Json[] {
    if (this.#guard.done) return [];
    const step = this.#guard.step({ flush: true });
    this.#final();
    const text = step.ok ? this.#take(step.events) : step.held;
    if (text === "" || this.#textItem === undefined) return [];
    this.#visible += text;
    this.#textChanged = true;
    return [{ type: "response.output_text.delta", item_id: this.#textItem, output_index: this.#textIndex, content_index: this.#textPart, delta: text, logprobs: [] }];
  }

  /** The four events of each waiting call, as items right after `afterIndex`. */
  #callItems(afterIndex: number | undefined): Json[] {
    if (this.#pending.length === 0) return [];
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

  #setText(holder: Json, key: string): boolean {
    if (!this.#textChanged || holder[key] === this.#visible) return false;
    holder[key] = this.#visible;
    return true;
  }

  #setItemText(item: Json): boolean {
    const part = Array.isArray(item.content) ? item.content[this.#textPart] : undefined;
    return isObject(part) ? this.#setText(part, "text") : false;
  }

  /** The final response object lists the output as it went out. */
  #completed(event: Json): boolean {
    const response = event.response;
    if (!isObject(response) || !Array.isArray(response.output)) return false;
    let changed = false;
    for (const item of response.output) if (isObject(item) && item.id === this.#textItem && this.#setItemText(item)) changed = true;
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

  #final(): void {
    if (this.#reported || this.#guard.failed) return;
    this.#reported = true;
    this.#onFinal();
  }
}
