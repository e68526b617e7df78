// The annotation.added events of a streamed Responses part (text-parts.ts). A url_citation's
// start_index/end_index point into the part's text as the model wrote it; once the repair took
// markup out of that text they must point into the text as it went out, as the JSON path moves
// them (annotations.ts), or the annotation is dropped when its words are gone (inside a recovered
// call, or prose stripped after one). Where its words can still move (text before them was taken
// out or is held), an event waits with its part until the part's text is decided. Its own file:
// the text's decisions stay in text-parts.ts, this is only what they mean for the offsets.
import { type Json, isObject } from "../../sse/json.ts";
import { annotationMover, hasOffsets } from "../annotations.ts";
import type { FedPart } from "./fed-parts.ts";

/** What becomes of an annotation.added event now: it goes out as it came, rewritten, or not now ("drop": it waits, or its words are gone). */
export type AnnotationFate = "pass" | "changed" | "drop";

/**
 * An annotation.added event of a fed part. `decided`: the part's text will not change any more.
 * The usual event (its words already went out as they came, nothing waits before it) passes at
 * once; in a part not decided yet any other waits (takeDecided), in order.
 */
export function annotationAdded(part: FedPart, event: Json, decided: boolean): AnnotationFate {
  const annotation = event.annotation;
  if (part.annotations.length === 0 && part.annotationsDropped === 0 && standsAsCame(part, annotation)) return "pass";
  if (!decided) {
    part.annotations.push(event);
    return "drop";
  }
  return moved(part, [event]).length === 0 ? "drop" : "changed";
}

/** The part's text is decided: its waiting annotation.added events, moved onto it (as new events), the ones whose words are gone left out. */
export function takeDecided(part: FedPart): { kind: "new"; event: Json }[] {
  if (part.annotations.length === 0) return [];
  const events = part.annotations;
  part.annotations = [];
  return moved(part, events).map((event) => {
    if (part.index !== undefined) event.output_index = part.index;
    return { kind: "new", event };
  });
}

/** The events whose annotation still points at words shown, moved there and numbered on past the ones dropped. */
function moved(part: FedPart, events: Json[]): Json[] {
  const move = annotationMover(part.was, part.visible);
  const out: Json[] = [];
  for (const event of events) {
    const annotation = move(event.annotation);
    if (annotation === undefined) {
      part.annotationsDropped++;
      continue;
    }
    event.annotation = annotation;
    if (typeof event.annotation_index === "number") event.annotation_index -= part.annotationsDropped;
    out.push(event);
  }
  return out;
}

/**
 * Its words went out as they came: they end within the text the part showed exactly as written
 * so far (the two texts only grow, so that shared head only grows, and is read on from where it
 * was: linear over the part). An annotation without offsets stands as it is too.
 */
function standsAsCame(part: FedPart, annotation: unknown): boolean {
  if (!isObject(annotation) || !hasOffsets(annotation, part.was.length)) return true;
  const was = part.was;
  const now = part.visible;
  let head = part.shownAsWritten;
  while (head < was.length && head < now.length && was.charCodeAt(head) === now.charCodeAt(head)) head++;
  part.shownAsWritten = head;
  return (annotation.end_index as number) <= head;
}
