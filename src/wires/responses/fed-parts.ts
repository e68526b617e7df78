// Every output_text part of a streamed Responses reply as it went out downstream: the text a
// client has seen of it, so that the `done` events that repeat a part's text (output_text.done,
// content_part.done, output_item.done) carry that text, not the upstream one, and their
// annotations point into it (the text as the model wrote it is kept too: annotation.added events
// point into that, part-annotations.ts). Its own file: the record of what went out, kept apart
// from how the parts' text is read and decided (text-parts.ts).
import type { GuardedEngine } from "../../engine/guarded.ts";
import { type Json, isObject } from "../../sse/json.ts";
import type { Slot } from "./outbox.ts";
import { movedAnnotations } from "../annotations.ts";
import { shownLogprobs } from "../logprobs.ts";

/** One output_text part as it went out. */
export interface FedPart {
  item: string;
  content: number;
  /** Downstream output_index of its message item. */
  index: number | undefined;
  guard: GuardedEngine;
  visible: string;
  changed: boolean;
  /** It ended while its engine held text after a call: where that text goes once the reply decides it. */
  slot?: Slot;
  /** Deltas that came for it after it ended, while its slot waits: they go out in the slot, after the text it holds. */
  late: string;
  /** Text its end released before a tail its slot then waited for (an end that itself waited in the slot): it goes first. */
  lead?: string;
  /** Its text as the model wrote it (every upstream delta): what its annotations' offsets point into. */
  was: string;
  /** How much of `was` went out exactly as written, read so far (part-annotations.ts). */
  shownAsWritten: number;
  /** Its annotation.added events waiting until its text is decided (part-annotations.ts). */
  annotations: Json[];
  /** Its annotations dropped so far (their words are gone): the later ones' annotation_index moves back by as many. */
  annotationsDropped: number;
  /** Its annotation.added events that came before their words, each waiting in a slot where it came (part-annotations.ts). */
  early: EarlyAnnotation[];
  /** Its annotations' mover for its text as it stood (lengths of `was` and `visible`), built once (part-annotations.ts). */
  mover?: { was: number; now: number; move: (annotation: unknown) => unknown };
}

/** An annotation.added event that came before its words, waiting in the slot where it came (part-annotations.ts). */
export interface EarlyAnnotation {
  slot: Slot;
  event: Json;
}

/** Every part fed so far, by item id and content index. */
export class FedParts {
  #byItem = new Map<string, FedPart[]>();

  add(part: FedPart): void {
    const list = this.#byItem.get(part.item);
    if (list) list.push(part);
    else this.#byItem.set(part.item, [part]);
  }

  /** Whether the message item `item` had text parts fed. */
  has(item: string): boolean {
    return this.#byItem.has(item);
  }

  /** The part an upstream event names by its item_id and content_index. */
  of(event: Json): FedPart | undefined {
    if (typeof event.item_id !== "string") return undefined;
    const content = typeof event.content_index === "number" ? event.content_index : 0;
    return this.#byItem.get(event.item_id)?.find((part) => part.content === content);
  }

  /** The part `guard` read. */
  readBy(guard: GuardedEngine): FedPart | undefined {
    return [...this.#byItem.values()].flat().find((part) => part.guard === guard);
  }

  /** A message item's parts, as they went out. */
  setItemText(item: Json): boolean {
    if (typeof item.id !== "string" || !Array.isArray(item.content)) return false;
    let changed = false;
    for (const part of this.#byItem.get(item.id) ?? []) {
      const held = item.content[part.content];
      if (isObject(held) && setText(part, held, "text")) changed = true;
    }
    return changed;
  }

  /** A `done` event of a part whose slot was filled after it was read: its text as it went out. */
  refresh(event: Json): boolean {
    if (event.type === "response.output_item.done") {
      return isObject(event.item) && typeof event.item.id === "string" && (this.#byItem.get(event.item.id) ?? []).some((part) => part.slot?.fill) && this.setItemText(event.item);
    }
    const part = this.of(event);
    return part?.slot?.fill !== undefined && setDoneText(part, event);
  }
}

/** Text the engine released outside a delta of the part: one more text delta of it. */
export function partDelta(part: FedPart, text: string): { kind: "new"; event: Json } {
  part.visible += text;
  part.changed = true;
  return { kind: "new", event: { type: "response.output_text.delta", item_id: part.item, output_index: part.index, content_index: part.content, delta: text, logprobs: [] } };
}

/** The part's text as it went out, into a `done` event of it (output_text.done, content_part.done). */
export function setDoneText(part: FedPart, event: Json): boolean {
  if (event.type === "response.output_text.done") return setText(part, event, "text");
  return isObject(event.part) && setText(part, event.part, "text");
}

/**
 * Each `done` holder's own text and annotations as they came, kept the first time its text is set:
 * a waiting event is set again once a slot fills (refresh), and its annotations move from there.
 */
const upstreamOf = new WeakMap<Json, { text: unknown; annotations: unknown; logprobs: unknown }>();

/**
 * The part's text as it went out, into `holder[key]`, when the engines changed it; its
 * annotations (content_part.done's part, a message item's parts) point into that text, as the
 * JSON path moves them (annotations.ts): the ones whose words are gone are dropped.
 */
function setText(part: FedPart, holder: Json, key: string): boolean {
  if (!part.changed || holder[key] === part.visible) return false;
  let came = upstreamOf.get(holder);
  if (came === undefined) upstreamOf.set(holder, (came = { text: holder[key], annotations: holder.annotations, logprobs: holder.logprobs }));
  holder[key] = part.visible;
  // output_text.done's logprobs: only of the tokens its text still shows (../logprobs.ts).
  if (Array.isArray(came.logprobs)) holder.logprobs = shownLogprobs(came.logprobs, part.visible);
  if (Array.isArray(came.annotations) && came.annotations.length > 0 && typeof came.text === "string") holder.annotations = movedAnnotations(came.annotations, came.text, part.visible);
  return true;
}
