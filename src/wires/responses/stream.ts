// Per-event decisions for a streamed Responses API reply. The text of its output_text parts is
// read part by part (text-parts.ts); recovered calls go out as function_call items right after
// the message item they were written in closes (items follow one another, and the AI SDK keys
// tool calls by output_index), under an output_index after every item already added (#callItems).
// What goes out waits behind a part the reply has not decided yet, numbered as it leaves
// (outbox.ts); every later output_index moves by the items put in.
// When the request allows one call, recovered calls wait for the reply's end instead (after every
// item), so a native call item that comes first still wins: they are withdrawn, never sent, and
// the text held after them is the model's own again. A native function_call item that may repeat a
// recovered call already sent is held until its done and dropped when it does (sent-calls.ts); a
// server tool's item is given content for the text after it (from-reply.ts); an `error` event,
// response.failed or a content filter's response.incomplete cuts the reply (cutsReply): what is
// held goes out as written, nothing decided.
import type { EngineSummary } from "../../engine/types.ts";
import { type EventRewriter, type Rewritten, type SseEvent, typedEvent } from "../../sse/rewrite.ts";
import type { PassingEdits } from "../../sse/passing.ts";
import { type Json, isObject } from "../../sse/json.ts";
import type { AddGiven, ItemNotes, WireStreamContext } from "../wire.ts";
import { ownItem } from "../../echo/from-request.ts";
import { givenFromResponsesItem } from "../../echo/from-reply.ts";
import { NATIVE_ITEMS, QUIET_ITEMS, functionCallItem } from "./items.ts";
import { type Out, Outbox, upstream } from "./outbox.ts";
import { TextParts } from "./text-parts.ts";
import { type HeldCall, HeldNative } from "../held-native.ts";

/**
 * Events that cut the reply rather than end it: the API's `error` event (mid-stream, maybe
 * followed by response.failed), response.failed, and response.incomplete when a content filter
 * stopped it (`max_output_tokens` is an end, as a reply at Anthropic's max_tokens).
 */
function cutsReply(event: Json & { type: string }): boolean {
  if (event.type === "error" || event.type === "response.failed") return true;
  return event.type === "response.incomplete" && filteredOut(event.response);
}

/** A response object a content filter stopped (its `incomplete_details.reason`): the stream's and the JSON reply's test. */
export function filteredOut(response: unknown): boolean {
  return isObject(response) && isObject(response.incomplete_details) && response.incomplete_details.reason === "content_filter";
}

/** Read in an event that streams past after the stand-aside: its numbers, and its type. */
const PASSING_KEYS: ReadonlySet<string> = new Set(["sequence_number", "output_index", "type"]);

export class ResponsesStreamRewriter implements EventRewriter {
  #onFinal: (more?: readonly EngineSummary[]) => void;
  #reported = false;
  #out: Outbox;
  #text: TextParts;
  /** Items put in so far, all before any later upstream item. */
  #itemsIn = 0;
  /** Upstream output_index of each item added → its downstream one. */
  #indices = new Map<number, number>();
  /** The highest downstream output_index an item was added under so far (-1: none). */
  #lastIndex = -1;
  /** Recovered items already out, with the output_index they took; response.completed lists them too. */
  #emitted: { index: number; item: Json }[] = [];
  /** The request allows one call: recovered calls wait until the reply ends. */
  #hold: boolean;
  /** Where a server tool's item goes: given content for the text after it (undefined: the echo guard is off). */
  #addGiven: AddGiven | undefined;
  /**
   * Recovered calls sent, and a native function_call item for a tool one of them has, held until
   * its `done` shows its arguments (held-native.ts): its id is its upstream output_index, its first
   * event its `added` (numbered downstream, as every event of it). Each of its events went out as
   * dropped, so numbers agree either way; dropped when it repeats a call sent. After stop() nothing
   * is held (an event streaming past could overtake it).
   */
  #native: HeldNative<Json>;
  /** Upstream output_index of the reasoning items read while a part's end waited. */
  #quiet = new Set<number>();
  /** Ids of the native items dropped as repeats: response.completed does not list them. */
  #dropped = new Set<string>();

  /** Where the reply's items under the server's ids are told (ItemNotes): undefined, nowhere. */
  #items: ItemNotes | undefined;
  /** Ids this reply noted as changed: a later sight of the same id in it does not forget them. */
  #noted = new Set<string>();

  constructor({ guard, onFinal, engine: more, oneCall, addGiven, items, tools = [] }: WireStreamContext) {
    this.#native = new HeldNative<Json>(tools);
    this.#onFinal = onFinal;
    this.#items = items;
    this.#hold = oneCall;
    this.#addGiven = addGiven;
    this.#out = new Outbox({ refresh: (event) => this.#text.refresh(event), overflow: () => [...this.#settle(), ...this.#text.releaseAll()] });
    this.#text = new TextParts(guard, more, this.#out, (event) => this.#indexOf(event));
  }

  event(sse: SseEvent): Rewritten | null {
    const event = typedEvent(sse.data);
    if (event === null) return this.#out.untyped(sse);
    // Every item the reply gives is the server's newest under its id: what was noted under it goes.
    if (event.type === "response.output_item.added" && isObject(event.item) && typeof event.item.id === "string") this.#seen(event.item.id);
    const outs = this.#decide(event);
    return outs === undefined ? this.#out.unchanged(event, sse) : this.#out.put(outs, sse);
  }

  end(): Json[] {
    // In stream order: a part whose end waited (#settle) came before a native item still held
    // (the item's added event settles it), then the held item goes out or is dropped as a repeat.
    // A part whose end waits with no native item held ends with the reply (TextParts.endReply).
    const outs = [...(this.#native.call === undefined ? [] : this.#settle()), ...this.#releaseNative(), ...this.#text.endReply(), ...this.#callItems(this.#endIndex())];
    this.#final();
    // What waited goes out first.
    return this.#out.drain(outs);
  }

  /**
   * The reply goes on unread, or was cut: every part's held text goes out as written (a waiting
   * part's into its slot), nothing in it decided; what waited behind the slots goes out with it.
   * Calls recovered and not yet out go out after their item as before when the reply goes on
   * (held back for the reply's end, one call allowed, they never run: their markup is shown as
   * text); cut, they go out now, as those of the other wires went out when recovered.
   */
  stop(goesOn: boolean): Json[] {
    // A native item held to compare goes out as it came, first (and nothing is held from here on):
    // cut, before what was held as written (#cut); going on, its index maps what streams past.
    const native = this.#releaseNative(this.#native.stop());
    if (!goesOn) return this.#out.drain([...native, ...this.#cut()]);
    // One call allowed, the reply going on unread: a native item after this could no longer
    // withdraw the calls held back, so they never run; their markup goes out as text.
    const outs = [...native, ...this.#text.stop(this.#hold)];
    outs.push(...this.#markupItem(this.#text.takeOrphan()));
    this.#hold = false;
    this.#final();
    return this.#out.drain(outs);
  }

  /**
   * An event too long to hold, after the stand-aside, streams past (a long delta, or a `done` event
   * or response.completed repeating a long text): its sequence_number and output_index still move
   * by what was put in and dropped, as in an event that fits. An item added there maps its index
   * from then on; calls waiting for the end of their message item go out after its `done`.
   */
  get passing(): PassingEdits {
    return {
      keys: PASSING_KEYS,
      scalar: (path, json) => {
        if (path.length !== 1) return undefined;
        const value = Number(json);
        if (!Number.isSafeInteger(value)) return undefined;
        if (path[0] === "sequence_number") return String(this.#out.passing(value));
        if (path[0] === "output_index") return String(this.#indices.get(value) ?? value + this.#itemsIn);
        return undefined;
      },
      ended: (top) => {
        const type = top.get("type");
        const upstreamIndex = Number(top.get("output_index"));
        if (!Number.isSafeInteger(upstreamIndex)) return [];
        if (type === '"response.output_item.added"') this.#place(upstreamIndex);
        if (type !== '"response.output_item.done"' || this.#hold) return [];
        const index = this.#indices.get(upstreamIndex) ?? upstreamIndex + this.#itemsIn;
        return index === this.#text.lastTextIndex ? this.#out.drain(this.#callItems(index)) : [];
      },
    };
  }

  /** One upstream event: what goes out for it, in order; undefined when that is the event alone, unchanged. */
  #decide(event: Json & { type: string }): Out[] | undefined {
    if (!this.#native.holding) return this.#decideEvent(event);
    const held = this.#heldNative(event);
    if (held !== undefined) return held;
    // Another item, or the reply's end, before the held item's `done`: it goes out as it came.
    const lead = this.#releaseNative();
    return [...lead, ...(this.#decideEvent(event) ?? [upstream(event, false)])];
  }

  /**
   * An event of the native item held: held too, its `done` deciding the item (dropped when it
   * repeats a call sent, sent as it came otherwise); undefined for an event of another item.
   */
  #heldNative(event: Json & { type: string }): Out[] | undefined {
    const held = this.#native.call!;
    if (event.output_index !== held.id) return undefined;
    event.output_index = this.#indexOf(event);
    if (event.type === "response.output_item.done") {
      const item = event.item;
      const args = isObject(item) && typeof item.arguments === "string" ? item.arguments : held.args;
      if (this.#native.complete(args, event)) {
        // The same call the client already has: never sent, and every later item moves back into its place.
        // Any other event released it first, so no item was added after it: its index was the last.
        const index = this.#indices.get(held.id as number);
        this.#indices.delete(held.id as number);
        if (index === this.#lastIndex) this.#lastIndex--;
        this.#itemsIn--;
        const id = (held.events[0]!.item as Json).id;
        if (typeof id === "string") this.#dropped.add(id);
        return [{ kind: "drop" }];
      }
      return [{ kind: "drop" }, ...this.#releaseNative()];
    }
    const args = event.type === "response.function_call_arguments.delta" && typeof event.delta === "string" ? event.delta : undefined;
    // Past the bound it goes out as it came, undecided, and streams on.
    if (!this.#native.part(event, args)) return [{ kind: "drop" }, ...this.#releaseNative()];
    return [{ kind: "drop" }];
  }

  /** The held native item's events go out as they came (numbered as they go). */
  #releaseNative(held: HeldCall<Json> | undefined = this.#native.release()): Out[] {
    if (held === undefined) return [];
    return held.events.map((event) => ({ kind: "new", event }));
  }

  #decideEvent(event: Json & { type: string }): Out[] | undefined {
    const before: Out[] = [];
    const after: Out[] = [];
    let keep = true;
    let changed = false;
    const cut = cutsReply(event);
    // A part that ended holding text: any event but its own `done` ones decides its end, as the
    // reply went on (a cut leaves it as written, below). Its calls go after its item, once that is done.
    // A native call item next: the ending part's end notes it first (as the Anthropic wire's next
    // block does), so calls held for a block's closer that never came are its duplicates and never
    // run, as on every other wire; on Responses the message item is always done before that item.
    // (One call allowed: every call recovered is held back and the native item withdraws them all.)
    // A reasoning item's events wait behind it too: the reply has not gone on in text or a call, so a
    // cut after them still decides nothing the part held (as the JSON path reads the same reply).
    // The reply's end (response.completed) decides it as the reply's end instead (TextParts.endReply).
    const ends = !cut && (event.type === "response.completed" || event.type === "response.incomplete");
    if (!cut && !ends && !this.#text.closesEnding(event) && !this.#waitsPast(event)) before.push(...this.#settle(!this.#hold && startsNative(event)));
    switch (event.type) {
      case "response.output_item.added":
        changed = this.#added(event, before, after);
        if (this.#native.call?.events.length === 0 && this.#native.call.id === event.output_index) {
          // A native item that may repeat a call sent: held from its first event.
          event.output_index = this.#indexOf(event);
          this.#native.part(event);
          return [...before, { kind: "drop" }, ...after];
        }
        break;
      case "response.content_part.added":
        if (typeof event.item_id === "string" && isObject(event.part)) {
          const content = typeof event.content_index === "number" ? event.content_index : 0;
          changed = this.#started(event, event.item_id, [[content, event.part]], before, after);
        }
        break;
      case "response.output_text.delta":
        ({ keep, changed } = this.#text.delta(event, before));
        break;
      case "response.output_text.annotation.added":
        ({ keep, changed } = this.#text.annotation(event, before, after));
        break;
      case "response.output_text.done":
      case "response.content_part.done":
        changed = this.#text.partDone(event, before);
        break;
      case "response.output_item.done":
        // A server tool's item, complete (an MCP call's output, code interpreter logs): given content for the text after it.
        if (this.#addGiven && isObject(event.item) && !ownItem(event.item)) {
          const item = event.item;
          this.#addGiven(() => givenFromResponsesItem(item));
        }
        if (this.#text.hasParts(event.item)) {
          before.push(...this.#text.itemDone(event.item));
          changed = this.#text.setItemText(event.item);
          if (changed) this.#repaired(event.item.id, event.item);
          if (!this.#hold) after.push(...this.#callItems(this.#indexOf(event)));
        }
        break;
      case "error":
        before.push(...this.#cut());
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        // A failed reply, or one a content filter stopped, was cut: nothing held is decided.
        before.push(...(cut ? this.#cut() : [...this.#text.endReply(), ...this.#callItems(this.#endIndex())]));
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
    return [...before, upstream(event, changed), ...after];
  }

  /** An item begins; true when the text a message item came with moved into deltas after it. */
  #added(event: Json, before: Out[], after: Out[]): boolean {
    const item = event.item;
    if (typeof event.output_index === "number") this.#place(event.output_index);
    if (!isObject(item)) return false;
    // Native calls win: the part being fed, and every later one, strips markup instead of recovering it.
    if (NATIVE_ITEMS.has(item.type as string)) {
      this.#text.nativeCall(before, this.#hold);
      if (item.type === "function_call" && typeof event.output_index === "number" && this.#native.mayRepeat(item.name)) {
        this.#native.hold(event.output_index, item.name);
      }
    }
    if (item.type !== "message" || typeof item.id !== "string" || !Array.isArray(item.content) || item.content.length === 0) return false;
    return this.#started(event, item.id, item.content.map((part, content) => [content, part]), before, after);
  }

  /**
   * Parts that arrive with text in them (`holders`: content index and the part object), read as
   * each part's first delta (text-parts.ts, started). True when that text moved into deltas after
   * the event, the parts in it then empty: the event, the deltas and every `done` text agree.
   */
  #started(event: Json, item: string, holders: [number, unknown][], before: Out[], after: Out[]): boolean {
    const parts: { content: number; holder: Json; text: string }[] = [];
    for (const [content, holder] of holders) {
      if (isObject(holder) && holder.type === "output_text" && typeof holder.text === "string" && holder.text !== "") parts.push({ content, holder, text: holder.text });
    }
    if (parts.length === 0) return false;
    const deltas = this.#text.started(event, item, parts, before);
    if (deltas === undefined) return false;
    for (const { holder } of parts) holder.text = "";
    after.push(...deltas);
    return true;
  }

  /**
   * The part whose end waited is decided (text-parts.ts, settleEnding): its text into its slot, and
   * the calls it recovered after its item when that item's done already went out (after every item
   * added since: calls that went out there, a reasoning item it waited past), else they wait for
   * the item's done or the reply's end.
   */
  #settle(native = false): Out[] {
    if (!this.#text.ending) return [];
    const settled = this.#text.settleEnding(native);
    if (!settled || this.#hold) return [];
    return this.#callItems(settled.index);
  }

  /**
   * An event of a reasoning item (QUIET_ITEMS) while a part's end waits: it waits behind that end
   * (true); calls the end then recovers go after the item, which was numbered as it was read.
   */
  #waitsPast(event: Json): boolean {
    if (!this.#text.ending || typeof event.output_index !== "number") return false;
    if (event.type === "response.output_item.added" && isObject(event.item) && QUIET_ITEMS.has(event.item.type as string)) this.#quiet.add(event.output_index);
    return this.#quiet.has(event.output_index);
  }

  /**
   * The reply was cut mid-stream (an `error` event, response.failed, a content filter): every
   * part's held text goes out as written, nothing in it decided, before the event that cut it (a
   * client stops at an error); calls already recovered stand and go out now, as stop(false).
   */
  #cut(): Out[] {
    const outs = [...this.#releaseNative(), ...this.#text.stop()];
    this.#hold = false;
    outs.push(...this.#callItems(this.#endIndex()));
    this.#final();
    return outs;
  }

  /** Where waiting calls go at the reply's end: after the last message item that carried text, or after every item when they were held. */
  #endIndex(): number {
    const fallback = this.#itemsIn + this.#indices.size;
    if (!this.#hold) return this.#text.lastTextIndex ?? fallback;
    let last = -1;
    for (const index of this.#indices.values()) last = Math.max(last, index);
    for (const { index } of this.#emitted) last = Math.max(last, index);
    return last === -1 ? fallback : last;
  }

  /**
   * The four events of each waiting call, as items after `afterIndex` and after every item already
   * added. An item added upstream before the message item was done (items streamed in parallel)
   * may still be open: its `added` already went out under its index, and a client keys the item by
   * it (the AI SDK keys ongoing calls by output_index), so that index stays its own for all its
   * events, done included; renumbering its later events would contradict its `added`. The calls
   * take the indices after it instead: every item keeps one index no other item holds, the indices
   * are added in increasing order, and response.completed lists the calls after it (#completed
   * splices them in at their index). Items one after another: the message item is the last added,
   * so the calls go right after it, as before.
   */
  #callItems(afterIndex: number | undefined): Out[] {
    const calls = this.#text.takeCalls();
    if (calls.length === 0) return [];
    // Once they go out the reply is over: holding ends.
    this.#hold = false;
    const out: Out[] = [];
    let index = Math.max(afterIndex ?? -1, this.#lastIndex) + 1;
    for (const call of calls) {
      this.#native.add(call);
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
      this.#lastIndex = index;
      index++;
      this.#itemsIn++;
    }
    return out;
  }

  /**
   * Markup of calls that never ran, whose message item had ended (stop): a message item of its
   * own after every item, listed by response.completed like the items put in for calls.
   */
  #markupItem(markup: string): Out[] {
    if (markup === "") return [];
    // After every item, as the calls put in (#callItems): an item still open keeps its index.
    const index = Math.max(this.#endIndex(), this.#lastIndex) + 1;
    const id = `msg_dsmlfix_unrun_${index}`;
    const part = { type: "output_text", text: markup, annotations: [] };
    const at = { item_id: id, output_index: index, content_index: 0 };
    const item = { id, type: "message", status: "completed", role: "assistant", content: [part] };
    this.#emitted.push({ index, item });
    this.#lastIndex = index;
    this.#itemsIn++;
    return [
      { type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } },
      { type: "response.content_part.added", ...at, part: { ...part, text: "" } },
      { type: "response.output_text.delta", ...at, delta: markup, logprobs: [] },
      { type: "response.output_text.done", ...at, text: markup, logprobs: [] },
      { type: "response.content_part.done", ...at, part },
      { type: "response.output_item.done", output_index: index, item },
    ].map((event) => ({ kind: "new", event }) as Out);
  }

  /** The final response object lists the output as it went out. */
  #completed(event: Json): boolean {
    const response = event.response;
    if (!isObject(response) || !Array.isArray(response.output)) return false;
    let changed = false;
    for (let at = response.output.length - 1; at >= 0 && this.#dropped.size > 0; at--) {
      const item = response.output[at];
      if (isObject(item) && typeof item.id === "string" && this.#dropped.has(item.id)) {
        response.output.splice(at, 1);
        changed = true;
      }
    }
    for (const item of response.output) {
      if (!isObject(item)) continue;
      const set = this.#text.setItemText(item);
      if (set) changed = true;
      if (typeof item.id !== "string") continue;
      if (set) this.#repaired(item.id, item);
      else this.#seen(item.id);
      if (item.type === "message" && Array.isArray(item.content)) this.#items?.shown(item.id, item);
    }
    for (const { index, item } of this.#emitted) {
      response.output.splice(Math.min(index, response.output.length), 0, item);
      changed = true;
    }
    return changed;
  }

  /** ItemNotes.seen, unless this reply already noted the id as changed. */
  #seen(id: string): void {
    if (!this.#noted.has(id)) this.#items?.seen(id);
  }

  #repaired(id: string, item: Json): void {
    this.#noted.add(id);
    this.#items?.repaired(id, item);
  }

  /** An upstream item added: its downstream output_index, after every item put in before it. */
  #place(upstreamIndex: number): void {
    const index = upstreamIndex + this.#itemsIn;
    this.#indices.set(upstreamIndex, index);
    if (index > this.#lastIndex) this.#lastIndex = index;
  }

  #indexOf(event: Json): number | undefined {
    const index = event.output_index;
    if (typeof index !== "number") return undefined;
    return this.#indices.get(index) ?? index + this.#itemsIn;
  }

  /** Once, at the end: the first engine's report with every other one's (none when the first failed). */
  #final(): void {
    if (this.#reported) return;
    this.#reported = true;
    const more = this.#text.laterSummaries();
    if (more) this.#onFinal(more);
  }
}

/** An output_item.added of a native call item (NATIVE_ITEMS). */
function startsNative(event: Json): boolean {
  return event.type === "response.output_item.added" && isObject(event.item) && NATIVE_ITEMS.has(event.item.type as string);
}
