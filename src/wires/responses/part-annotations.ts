// The annotation.added events of a streamed Responses part (text-parts.ts). A url_citation's
// start_index/end_index point into the part's text as the model wrote it; once the repair took
// markup out of that text they must point into the text as it went out, as the JSON path moves
// them (annotations.ts), or the annotation is dropped when its words are gone (inside a recovered
// call, or prose stripped after one). Where its words can still move (text before them was taken
// out or is held), an event waits with its part until the part's text is decided, then goes out
// there; events keep their upstream order, so annotation_index stays contiguous. Its own file:
// the text's decisions stay in text-parts.ts, this is only what they mean for the offsets.
import { type Json, isObject } from "../../sse/json.ts";
import { annotationMover, hasOffsets } from "../annotations.ts";
import type { EarlyAnnotation, FedPart } from "./fed-parts.ts";
import type { Slot } from "./outbox.ts";

/** What becomes of an annotation.added event now: it goes out as it came, rewritten, not now ("drop": it waits, or its words are gone), or in a slot where it came. */
export type AnnotationFate = "pass" | "changed" | "drop" | Slot;

/** Decides a slot of the outbox, with the events that go out in it (none: an empty slot). */
export type FillSlot = (slot: Slot, events: Json[]) => void;

/** One annotation.added event that came before its words, waiting in its own slot where it came. */
/**
 * An annotation.added event of a fed part. `decided`: the part's text will not change any more;
 * `fed`: the part is the one being fed. The usual event (its words already went out as they came,
 * nothing of the part waits) passes at once. Anything waiting before it keeps it waiting, in
 * order: a part whose end waits in an undecided slot passes none (what waits there goes out at the
 * slot, before anything behind it). One that comes before its words (its end past the text read
 * so far) in the part being fed waits in a slot where it came, until its words are read (earlyRead).
 */
export function annotationAdded(part: FedPart, event: Json, decided: boolean, fed: boolean): AnnotationFate {
  const annotation = event.annotation;
  const waiting = part.annotations.length > 0 || part.early.length > 0 || part.slot?.decided === false;
  if (!waiting && part.annotationsDropped === 0 && standsAsCame(part, annotation)) return "pass";
  if (decided && !waiting) return moved(part, [event])[0] === undefined ? "drop" : "changed";
  if (fed && part.annotations.length === 0 && unread(part, annotation)) {
    const slot: Slot = { kind: "slot", decided: false };
    part.early.push({ slot, event });
    return slot;
  }
  part.annotations.push(event);
  return "drop";
}

/**
 * The part being fed read more text: each annotation.added that came before its words, now read,
 * goes out where it came, as it came, when those words went out as written (the usual case, a
 * server that names its annotations first); otherwise it and those after it wait with the part
 * (first in line: they came before every other waiting one) and their slots go out empty.
 */
export function earlyRead(part: FedPart, fill: FillSlot): void {
  let at = 0;
  for (; at < part.early.length; at++) {
    const { slot, event } = part.early[at]!;
    if (((event.annotation as Json).end_index as number) > part.was.length) break;
    if (!standsAsCame(part, event.annotation)) return releaseEarly(part, fill, at);
    if (part.index !== undefined) event.output_index = part.index;
    fill(slot, [event]);
  }
  if (at > 0) part.early = part.early.slice(at);
}

/** The early events from `from` on stop waiting where they came (past the bound on what waits, or their words were changed): they wait with the part. */
export function releaseEarly(part: FedPart, fill: FillSlot, from = 0): void {
  const early = part.early.slice(from);
  part.early = [];
  for (const { slot } of early) fill(slot, []);
  part.annotations = [...early.map((e) => e.event), ...part.annotations];
}

/**
 * The part's text is decided: its waiting annotation.added events, moved onto it, the ones whose
 * words are gone left out. Early ones still in their slots go out there; the others, as new events.
 */
export function takeDecided(part: FedPart, fill: FillSlot): { kind: "new"; event: Json }[] {
  if (part.annotations.length === 0 && part.early.length === 0) return [];
  const early = part.early;
  const events = [...early.map((e) => e.event), ...part.annotations];
  part.early = [];
  part.annotations = [];
  const out = moved(part, events);
  for (const event of out) if (event !== undefined && part.index !== undefined) event.output_index = part.index;
  early.forEach(({ slot }, i) => fill(slot, out[i] === undefined ? [] : [out[i]!]));
  return out.slice(early.length).flatMap((event) => (event === undefined ? [] : [{ kind: "new" as const, event }]));
}

/** Each event moved onto the words shown and numbered on past the ones dropped; undefined where its words are gone. */
function moved(part: FedPart, events: Json[]): (Json | undefined)[] {
  const move = moverOf(part);
  return events.map((event) => {
    const annotation = move(event.annotation);
    if (annotation === undefined) {
      part.annotationsDropped++;
      return undefined;
    }
    event.annotation = annotation;
    if (typeof event.annotation_index === "number") event.annotation_index -= part.annotationsDropped;
    return event;
  });
}

/**
 * The part's mover, built once for its text as it stands (annotations.ts compares the two texts
 * once): many annotations of a decided part cost its text once, not once each.
 */
function moverOf(part: FedPart): (annotation: unknown) => unknown {
  const known = part.mover;
  if (known && known.was === part.was.length && known.now === part.visible.length) return known.move;
  const move = annotationMover(part.was, part.visible);
  part.mover = { was: part.was.length, now: part.visible.length, move };
  return move;
}

/** Offsets whose words the part has not read yet (its end past the text so far). */
function unread(part: FedPart, annotation: unknown): boolean {
  if (!isObject(annotation)) return false;
  const { start_index: start, end_index: end } = annotation;
  return typeof start === "number" && typeof end === "number" && start >= 0 && end >= start && end > part.was.length;
}

/**
 * Its words went out as they came: they end within the text the part showed exactly as written
 * so far (the two texts only grow, so that shared head only grows, and is read on from where it
 * was: linear over the part). An annotation without offsets stands as it is too; one whose words
 * are not read yet does not.
 */
function standsAsCame(part: FedPart, annotation: unknown): boolean {
  if (!isObject(annotation)) return true;
  if (unread(part, annotation)) return false;
  if (!hasOffsets(annotation, part.was.length)) return true;
  const was = part.was;
  const now = part.visible;
  let head = part.shownAsWritten;
  while (head < was.length && head < now.length && was.charCodeAt(head) === now.charCodeAt(head)) head++;
  part.shownAsWritten = head;
  return (annotation.end_index as number) <= head;
}
