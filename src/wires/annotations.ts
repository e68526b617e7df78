// Annotations that point into a reply's text by character offsets (url_citation start_index and
// end_index: on a Responses output_text part, flat; on a chat message, under `url_citation`),
// after the repair took markup out of that text.
import { isObject } from "../sse/json.ts";

/**
 * The annotations after the repair: each one whose words are provably still there points at them
 * again; one whose words are gone (inside a recovered call, or prose stripped after it) is dropped
 * rather than left pointing past the text or at other words (the same words earlier are not the
 * ones it cited). An annotation without offsets stays as it is.
 *
 * The repair only removes text, so the text both share at the start sits where it was and the
 * text both share at the end moved back by what was removed; a span inside neither is kept only
 * where the same words stand in the changed middle of both, nearest at or before its old start.
 */
export function movedAnnotations(annotations: unknown[], was: string, now: string): unknown[] {
  const move = annotationMover(was, now);
  return annotations.flatMap((annotation) => {
    const moved = move(annotation);
    return moved === undefined ? [] : [moved];
  });
}

/**
 * movedAnnotations one annotation at a time, the two texts compared once: the annotation moved
 * (the same object when it has no offsets to move), or undefined when its words are gone. The
 * Responses stream moves its annotation.added events with it, each where it goes out.
 */
export function annotationMover(was: string, now: string): (annotation: unknown) => unknown {
  // The two texts are compared once here (head, tail): each annotation is then moved by
  // arithmetic, or searched for from the shared head on only (never back to the text's start):
  // moving n annotations costs the texts once, plus a search for each one in the changed middle.
  const head = sharedHead(was, now);
  const tail = sharedTail(was, now, head);
  let fromHead: string | undefined;
  return (annotation) => {
    if (!isObject(annotation)) return annotation;
    const offsets = isObject(annotation.url_citation) ? annotation.url_citation : annotation;
    const { start_index: start, end_index: end } = offsets;
    if (!hasOffsets(offsets, was.length)) return annotation;
    let at: number | undefined;
    if ((end as number) <= head) at = start as number;
    else if ((start as number) >= was.length - tail) at = (start as number) - (was.length - now.length);
    else {
      fromHead ??= now.slice(head);
      at = movedInMiddle(was, fromHead, head, tail, start as number, end as number);
    }
    if (at === undefined) return undefined;
    const moved = { ...offsets, start_index: at, end_index: at + ((end as number) - (start as number)) };
    return offsets === annotation ? moved : { ...annotation, url_citation: moved };
  };
}

/** Offsets that point into a text of `length` characters (an annotation without them is left as it is). */
export function hasOffsets(offsets: Record<string, unknown>, length: number): boolean {
  const { start_index: start, end_index: end } = offsets;
  return typeof start === "number" && typeof end === "number" && start >= 0 && end >= start && end <= length;
}

/**
 * A span inside neither shared end: the same words nearest at or before its old start in the new
 * text, kept only when they stand in its changed middle (only there can they be the same words).
 * `fromHead` is the new text from the shared head on: the search never reads back past it.
 */
function movedInMiddle(was: string, fromHead: string, head: number, tail: number, start: number, end: number): number | undefined {
  const words = was.slice(start, end);
  const at = fromHead.lastIndexOf(words, start - head);
  return at >= 0 && at + words.length <= fromHead.length - tail ? head + at : undefined;
}

function sharedHead(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

/** The length both end with, not reaching into the shared head of either. */
function sharedTail(a: string, b: string, head: number): number {
  let n = 0;
  while (n < a.length - head && n < b.length - head && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}
