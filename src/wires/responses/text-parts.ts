// The text of a streamed Responses reply, read part by part. The text of every output_text part of
// every message item (what the part arrives with, then its deltas) is fed, each part to an engine
// of its own (markup never spans two parts) that reads on where the part before it ended: one
// reply is one documentation context and one count of calls (a fence opened in one part still
// holds in the next). Recovered calls wait here until the wire puts them out as items.
// A part's end is not the reply's: text its engine holds after a recovered call then (S03: it may
// be a fabricated tool result) stays undecided, and the next part's engine holds its own text after
// that call too, until the reply decides it: a later call shows it where it stood, the reply's end
// strips it, as parse() on the one text does. Until then the part stays open downstream: its slot
// (outbox.ts) is what the reply's decision fills. A part that its own `done` events ended while
// its engine held text waits in such a slot for the next event too (#ending): an event that cuts
// the reply (an error, response.failed, a content filter) leaves that text as written, any other
// ends the part as usual.
import type { RecoveredCall } from "../../parse/types.ts";
import type { EngineEvent, EngineSummary } from "../../engine/types.ts";
import { type Json, isObject } from "../../sse/json.ts";
import type { GuardedEngine } from "../../engine/guarded.ts";
import type { EngineFor } from "../wire.ts";
import type { Out, Outbox, Slot } from "./outbox.ts";
import { textOf, textOfStep } from "./items.ts";
import { type FedPart, FedParts, partDelta, setDoneText } from "./fed-parts.ts";
import { PartEngines } from "./part-engines.ts";
import { type FillSlot, annotationAdded, earlyRead, releaseEarly, takeDecided as decidedOf } from "./part-annotations.ts";
import { shownLogprobs } from "../logprobs.ts";

/**
 * A part that ended upstream while its engine held text, its end not yet decided: what the engine
 * holds then is decided by the next event of another part or item (an end as any part's), or goes
 * out as written if that event cuts the reply (error, response.failed, a content filter). Its slot
 * waits where the part ended; `itemDone`: its message item's output_item.done came too.
 */
interface Ending {
  part: FedPart;
  itemDone: boolean;
}

/** What becomes of an upstream text delta: `keep` false drops it, `changed` says its delta was set. */
interface DeltaFate {
  keep: boolean;
  changed: boolean;
}

export class TextParts {
  #engines: PartEngines;
  /** Where the reply's decision on a slot goes: filled slots change the `done` texts sent after them. */
  #out: Outbox;
  /** The downstream output_index of an upstream event's item. */
  #indexOf: (event: Json) => number | undefined;
  /** The part being fed, and every part fed so far. */
  #part: FedPart | undefined;
  #parts = new FedParts();
  /** Parts that ended while their engine held text after the reply's last call, undecided. */
  #tails: FedPart[] = [];
  /** The part that ended holding text, its end undecided until the next event tells whether the reply was cut. */
  #ending: Ending | undefined;
  /** Calls recovered and not yet taken by the wire to go out as items. */
  #pending: RecoveredCall[] = [];
  /** Downstream output_index of the last message item that carried text. */
  #lastTextIndex: number | undefined;
  /** stop(true): markup of calls that never ran, whose part had ended with none open (takeOrphan). */
  #orphan = "";

  constructor(guard: GuardedEngine, more: EngineFor, out: Outbox, indexOf: (event: Json) => number | undefined) {
    this.#engines = new PartEngines(guard, more);
    this.#out = out;
    this.#indexOf = indexOf;
  }

  /** Downstream output_index of the last message item that carried text: calls left at the reply's end go after it. */
  get lastTextIndex(): number | undefined {
    return this.#lastTextIndex;
  }

  /** The calls recovered since the last take, to go out as items. */
  takeCalls(): RecoveredCall[] {
    const calls = this.#pending;
    if (calls.length > 0) this.#pending = [];
    return calls;
  }

  /** A message item with text parts fed. */
  hasParts(item: unknown): item is Json & { id: string } {
    return isObject(item) && typeof item.id === "string" && this.#parts.has(item.id);
  }

  /** An upstream text delta, fed to its part's engine (a new part begins, the part before it ends into `before`). */
  delta(event: Json, before: Out[]): DeltaFate {
    const part = this.#fed(event, before);
    if (!part) return { keep: true, changed: false };
    const fate = this.#read(part, event);
    // Annotations that came before their words: those words may be read now (part-annotations.ts).
    if (part.early.length > 0) earlyRead(part, this.#fillSlot);
    return fate;
  }

  #read(part: FedPart, event: Json): DeltaFate {
    const delta = event.delta;
    if (typeof delta === "string") part.was += delta;
    // A part that already ended, or whose engine failed, passes its text on as it is.
    if (typeof delta !== "string" || delta === "" || part !== this.#part || part.guard.done) {
      if (typeof delta !== "string" || delta === "") return { keep: true, changed: false };
      // Parts interleaved upstream: behind its waiting slot, or its deltas would not read as its `done` text.
      if (part.slot?.decided === false) {
        part.late += delta;
        return { keep: false, changed: false };
      }
      part.visible += delta;
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
    // Logprobs only of the tokens it still shows (../logprobs.ts, the chat wire's rule).
    if (Array.isArray(event.logprobs)) event.logprobs = shownLogprobs(event.logprobs, text);
    return { keep: true, changed: true };
  }

  /**
   * Parts that begin with text already in them (a content_part.added part, a message item added
   * with its content started): a client that accumulates parts starts each from that text, so it
   * is read as the part's first delta, in one documentation context with the rest of the reply.
   * `source` is the upstream event that carried it. Returns the text deltas to send right after
   * that event, its parts' text then taken out of it; undefined when every part's text went
   * through as it came, nothing else with it, and may stay where it came.
   */
  started(source: Json, item: string, parts: { content: number; text: string }[], before: Out[]): Out[] | undefined {
    // The part being fed ends before the event that starts new ones, as at a new part's first delta.
    before.push(...this.endPart());
    const index = this.#indexOf(source);
    const after: Out[] = [];
    let asCame = true;
    for (const { content, text } of parts) {
      const event: Json = { type: "response.output_text.delta", item_id: item, output_index: source.output_index, content_index: content, delta: text, logprobs: [] };
      const fate = this.delta(event, after);
      if (!fate.keep || fate.changed) asCame = false;
      if (!fate.keep) continue;
      // Read with the upstream output_index (the part's own is mapped from it); sent with the downstream one.
      event.output_index = index;
      after.push({ kind: "new", event });
    }
    return asCame && after.length === parts.length ? undefined : after;
  }

  /**
   * An annotation.added event: its offsets point into its part's text as it went out
   * (part-annotations.ts); one that waits for the part's text to be decided, or whose words are
   * gone, does not go out here (`keep` false).
   */
  annotation(event: Json, before: Out[], after: Out[]): DeltaFate {
    // One before any text of its part begins the part, as its first delta would: its words are still to come.
    const part = this.#fed(event, before);
    if (!part) return { keep: true, changed: false };
    const fate = annotationAdded(part, event, part !== this.#part && part.slot?.decided !== false, part === this.#part);
    if (typeof fate === "object") {
      // It waits where it came for its words (the event goes out in the slot).
      after.push(fate);
      return { keep: false, changed: false };
    }
    return { keep: fate !== "drop", changed: fate === "changed" };
  }

  /** A part's output_text.done or content_part.done: the part ends if it is the one fed; true when its text was set. */
  partDone(event: Json, before: Out[]): boolean {
    const part = this.#parts.of(event);
    if (!part) return false;
    if (part === this.#part) before.push(...this.endPart(true));
    return setDoneText(part, event);
  }

  /** A message item's output_item.done: the part being fed ends (its end may wait, `endPart(true)`), and an ending part of it knows its item is done. */
  itemDone(item: Json & { id: string }): Out[] {
    const out = this.endPart(true);
    if (this.#ending?.part.item === item.id) this.#ending.itemDone = true;
    return out;
  }

  /**
   * The part being fed ended, the reply not: its markup is decided (endSpan), and text its engine
   * holds after a call waits for the reply in the part's slot, the part still open downstream.
   * `wait`: the part's own `done` events ended it, and its engine holds text: that end waits in a
   * slot for the next event (#ending), as the reply may be cut right after (an error, a failed
   * response, a content filter), and a cut decides nothing.
   */
  endPart(wait = false): Out[] {
    const part = this.#part;
    if (!part) return [];
    this.#part = undefined;
    if (wait && !part.guard.done && part.guard.held > 0) {
      const slot: Slot = { kind: "slot", decided: false };
      part.slot = slot;
      this.#ending = { part, itemDone: false };
      return [slot];
    }
    return this.#end(part, undefined);
  }

  /** A part ended holding text, its end waiting for the next event (#ending). */
  get ending(): boolean {
    return this.#ending !== undefined;
  }

  /** `event` is one of the ending part's own closing events: its end goes on waiting past it. */
  closesEnding(event: Json): boolean {
    const part = this.#ending?.part;
    if (!part) return false;
    if (event.type === "response.output_item.done") return isObject(event.item) && event.item.id === part.item;
    if (event.type !== "response.output_text.done" && event.type !== "response.content_part.done" && event.type !== "response.output_text.annotation.added") return false;
    const content = typeof event.content_index === "number" ? event.content_index : 0;
    return event.item_id === part.item && content === part.content;
  }

  /**
   * The reply went on past the ending part: its end is decided as any part's, into its slot.
   * Returns its item's downstream output_index when that item's done already went out (the calls
   * its end recovered go right after it), else undefined (they wait for the item's done, or the end).
   */
  settleEnding(native = false): { index: number | undefined } | undefined {
    const ending = this.#ending;
    if (!ending) return undefined;
    this.#ending = undefined;
    this.#end(ending.part, ending.part.slot, native);
    return ending.itemDone ? { index: ending.part.index } : undefined;
  }

  /**
   * A part's end: its markup is decided (endSpan), text its engine holds after a call waits for
   * the reply in a slot, the rest is flushed. `slot`: the end waited in it (#ending); what the end
   * releases goes into it, and it becomes the tail's slot when a tail is held.
   */
  #end(part: FedPart, slot: Slot | undefined, native = false): Out[] {
    const out: Out[] = [];
    if (part.guard.done) {
      if (slot) this.#fill(part, "");
      else out.push(...this.#decided(part));
      return out;
    }
    // `native`: the event after the part's end is a native call item (settleEnding): the engine
    // notes it before the span ends, so calls held for a block's closer are its duplicates.
    const step = part.guard.step(native ? { native: true, endSpan: true } : { endSpan: true });
    if (!step.ok) {
      this.#decideTails("release");
      return this.#released(part, slot, step.held, out);
    }
    const text = this.#take(step.events);
    const carry = this.#engines.carryFrom(part.guard);
    if (carry?.tail !== undefined && part.guard.held > 0) {
      if (slot) part.lead = text;
      else {
        if (text !== "") out.push(partDelta(part, text));
        slot = { kind: "slot", decided: false };
        part.slot = slot;
        out.push(slot);
      }
      this.#tails.push(part);
      return out;
    }
    if (!slot && text !== "") out.push(partDelta(part, text));
    // No text after the call here: what the parts before held (its engine let go of it) shows.
    if (carry?.tail === undefined) this.#decideTails("release");
    const more = this.#flushed(part.guard);
    return this.#released(part, slot, slot ? text + more : more, out);
  }

  /** Text a part's end released: into its slot when the end waited there, else one more delta; the part's text is decided. */
  #released(part: FedPart, slot: Slot | undefined, text: string, out: Out[]): Out[] {
    if (slot) this.#fill(part, text);
    else {
      if (text !== "") out.push(partDelta(part, text));
      out.push(...this.#decided(part));
    }
    return out;
  }

  /** The reply ended: the part being fed is flushed, then the text every earlier part held after the last call is stripped (S03). */
  endReply(): Out[] {
    // A part whose end waited ends with the reply: flushed (not endSpan), as the engine reads the
    // one text and the JSON path its last part, so what only the reply's end decides (a costume it
    // ended open read again, review 53) is decided the same way on every path.
    const ending = this.#ending?.part;
    this.#ending = undefined;
    if (ending) {
      if (!ending.guard.done && !ending.guard.afterCall) this.#decideTails("release");
      this.#fill(ending, ending.guard.done ? "" : this.#flushed(ending.guard));
    }
    const part = this.#part;
    this.#part = undefined;
    const out: Out[] = [];
    if (part && !part.guard.done) {
      const text = this.#flushed(part.guard);
      if (text !== "") out.push(partDelta(part, text));
    }
    if (part) out.push(...this.#decided(part));
    this.#decideTails("end");
    return out;
  }

  /** A native call item came. `withdraw`: recovered calls are held back (one call allowed), so it wins over them. */
  nativeCall(before: Out[], withdraw: boolean): void {
    this.#engines.nativeCall();
    if (withdraw && this.#pending.length > 0) return this.#withdraw(before);
    // Calls already out stand, and the native call follows them: the text held after them shows
    // where it stood (S03, as the JSON path keeps it), in the parts that ended and in the one fed.
    this.#decideTails("release");
    const part = this.#part;
    if (!part || part.guard.done) return;
    const step = part.guard.step({ native: true });
    const text = step.ok ? this.#take(step.events) : step.held;
    if (text !== "") before.push(partDelta(part, text));
  }

  /**
   * No text is read any more (the reply goes on unread, or was cut): every engine's held text as
   * written, a waiting part's into its slot, the part being fed's as a delta of it; later parts pass
   * as they come.
   */
  stop(unrun = false): Out[] {
    const out: Out[] = [];
    // `unrun`: the calls waiting (held back, one call allowed) never run; their markup is shown in
    // the part that wrote it, before the text held after it (in the part being fed if that one
    // ended; with no part open, in a message item of its own: takeOrphan).
    let markup = "";
    let owner: FedPart | undefined;
    if (unrun && this.#pending.length > 0) {
      const guard = this.#engines.all.find((engine) => engine.recovered > 0);
      const text = guard?.unrunCalls();
      if (guard !== undefined && text !== undefined) {
        this.#pending = [];
        markup = text;
        owner = this.#parts.readBy(guard);
      }
    }
    const part = this.#part;
    const into = owner && (owner === part || owner.slot?.decided === false) ? owner : (part ?? owner);
    this.#engines.stop();
    // The part whose end waited: what it holds goes out as written, into its slot (after the
    // markup of its calls that never ran, when it wrote them).
    const ending = this.#ending?.part;
    this.#ending = undefined;
    if (ending) this.#fill(ending, (ending === into ? markup : "") + ending.guard.stop());
    const tails = this.#tails;
    this.#tails = [];
    for (const tail of tails) this.#fill(tail, (tail === into ? markup : "") + tail.guard.stop());
    const held = part ? part.guard.stop() : "";
    // Its part ended downstream, and none is open: the wire gives it a message item of its own.
    if (into && into !== part && into !== ending && !tails.includes(into)) this.#orphan = markup;
    const text = (into === part ? markup : "") + held;
    if (part && text !== "") out.push(partDelta(part, text));
    if (part) out.push(...this.#decided(part));
    return out;
  }

  /** After stop(true): markup of calls that never ran with no open part to show it in ("" if none). */
  takeOrphan(): string {
    const markup = this.#orphan;
    this.#orphan = "";
    return markup;
  }

  /** Past the bound on what waits: every part's undecided text, the part being fed's too, is released as text (nothing to do when nothing is undecided). */
  releaseAll(): Out[] {
    // Annotations waiting where they came for their words wait with their part instead.
    if (this.#part && this.#part.early.length > 0) releaseEarly(this.#part, this.#fillSlot);
    // A part whose end waits is decided first (calls it recovers go out with the reply's end, or its item's done).
    this.settleEnding();
    if (this.#tails.length === 0) return [];
    this.#decideTails("release");
    const part = this.#part;
    if (!part || part.guard.done || !part.guard.afterCall) return [];
    const text = textOfStep(part.guard.step({ releaseTail: true }), []);
    return text === "" ? [] : [partDelta(part, text)];
  }

  /** A message item's parts, as they went out. */
  setItemText(item: Json): boolean {
    return this.#parts.setItemText(item);
  }

  /** A `done` event of a part whose slot was filled after it was read: its text as it went out. */
  refresh(event: Json): boolean {
    return this.#parts.refresh(event);
  }

  /** The summaries of every engine after the first; undefined when the first failed (the reply then reports nothing). */
  laterSummaries(): EngineSummary[] | undefined {
    return this.#engines.laterSummaries();
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
    for (const guard of this.#engines.all) {
      const tail = tails.find((part) => part.guard === guard);
      if (tail) {
        this.#fill(tail, textOfStep(guard.step({ withdraw: true }), []) + this.#flushed(guard));
        continue;
      }
      const part = this.#part;
      if (part?.guard !== guard || guard.done) {
        guard.withdrawAfterFlush();
        continue;
      }
      const text = textOfStep(guard.step({ withdraw: true }), []);
      if (text !== "") before.push(partDelta(part, text));
    }
    this.#engines.carryNoTail();
  }

  /** The part a text delta belongs to, begun when it is new (the part before it ends first). */
  #fed(event: Json, before: Out[]): FedPart | undefined {
    if (typeof event.item_id !== "string") return undefined;
    const content = typeof event.content_index === "number" ? event.content_index : 0;
    const current = this.#part;
    if (current && current.item === event.item_id && current.content === content) return current;
    const known = this.#parts.of(event);
    if (known) return known;
    before.push(...this.endPart());
    const guard = this.#engines.next();
    const part: FedPart = { item: event.item_id, content, index: this.#indexOf(event), guard, visible: "", changed: false, late: "", was: "", shownAsWritten: 0, annotations: [], annotationsDropped: 0, early: [] };
    this.#part = part;
    this.#lastTextIndex = part.index;
    this.#parts.add(part);
    return part;
  }

  /** Engine events: text is returned, calls wait to go out as items. A call shows what the parts before held after the call before it. */
  #take(events: EngineEvent[]): string {
    const found = this.#pending.length;
    const text = textOf(events, this.#pending);
    if (this.#pending.length > found) this.#decideTails("release");
    return text;
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
    this.#engines.carryNoTail();
    const tails = this.#tails;
    if (tails.length === 0) return;
    this.#tails = [];
    for (const part of tails) {
      let text = "";
      if (decision === "release") {
        text = textOfStep(part.guard.step({ releaseTail: true }), []);
      }
      this.#fill(part, text + this.#flushed(part.guard));
    }
  }

  /** A slot of an annotation that waited where it came, decided: the events that go out there. */
  #fillSlot: FillSlot = (slot, events) => this.#out.fill(slot, undefined, events);

  /** The part's text is decided: its annotations that waited (part-annotations.ts). */
  #decided(part: FedPart): { kind: "new"; event: Json }[] {
    return decidedOf(part, this.#fillSlot);
  }

  /** The reply decided a part's slot: the text it became goes there, then the part's annotations that waited for it. */
  #fill(part: FedPart, decided: string): void {
    const text = (part.lead ?? "") + decided + part.late;
    part.lead = undefined;
    const delta = text === "" ? undefined : partDelta(part, text).event;
    this.#out.fill(part.slot!, delta, this.#decided(part).map((out) => out.event));
  }

}
