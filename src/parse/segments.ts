import type { BrokenSpan, NudgeReason } from "./types.ts";
import { MAX_TAG, asLostLtCloser, readTag, type Tag } from "../grammar/tags.ts";
import { isTriggerCode } from "../grammar/markers.ts";
import type { Shape } from "../grammar/shapes.ts";

/** One piece of a completed candidate span; pieces cover the span in order. Offsets are span-local. */
export type Segment =
  | { kind: "text"; start: number; end: number }
  | ({
      kind: "broken";
      start: number;
      end: number;
      /**
       * Where this markup really ended is unknown (a costume refused after a closer read as its
       * code: at the end of its span past its hold cap, costume-hold.ts HELD_LOOKAHEAD, or at its own
       * closer ending a line, which may be the code's text too): the text after it, here or in a
       * later part of the reply, may still be its own, so the engine recovers no later call of
       * the reply ("overflowed-markup").
       */
      unbounded?: true;
    } & Omit<BrokenSpan, "span">) // what it reports (shape, reason, detail, tool, parameter, …) is a BrokenSpan's
  | {
      kind: "call";
      start: number;
      end: number;
      tool: string;
      input: Record<string, unknown>;
      shape: Shape;
      /** Its arguments hold a key the tool's schema does not declare (schema-gate.ts holdsUndeclaredKey): refused unless it is a quote of given content. */
      undeclaredKey?: true;
    };

/** A call whose arguments hold a key its tool's schema does not declare, refused as broken markup (review 50; the engine asks after its echo guard). */
export function undeclaredKeyRefusal(seg: Segment & { kind: "call" }): Segment {
  return { kind: "broken", start: seg.start, end: seg.end, shape: seg.shape, reason: "broken-markup", detail: "an argument is not a parameter of this tool", tool: seg.tool, undeclaredArgument: true };
}

/** All marker tags of a complete span, in order. Linear: each reader looks at most MAX_TAG ahead. */
export function tagsOf(span: string, from = 0, to = span.length): Tag[] {
  const tags: Tag[] = [];
  const text = to === span.length ? span : span.slice(0, to);
  let i = from;
  while (i < to) {
    if (isTriggerCode(text.charCodeAt(i))) {
      const r = readTag(text, i, true);
      if (r !== null && r !== "need-more") {
        tags.push(i > from ? asLostLtCloser(r, text.charCodeAt(i - 1)) : r);
        i = r.end;
        continue;
      }
    }
    i++;
  }
  return tags;
}

/**
 * Where the markup of a unit the end of the reply cut off ends (test/history/cut-off-span.test.ts): at `lastTagEnd`, the
 * end of the last tag it read (the cut-off value's opener), unless a tag the reply cut off follows
 * (`</param`, `<invoke name="ba`: one more text could have completed, the engine's cut-off tag too):
 * that is markup, and nothing follows it, so the span's end. What lies between is the value's
 * text as far as the reply went, or what the model wrote after it: nothing in an unclosed value
 * marks its end (a file being written may hold blank lines and fences), so the tags are the
 * only evidence of where the markup ends.
 */
export function cutOffMarkupEnd(span: string, lastTagEnd: number): number {
  // A tag is read at most MAX_TAG characters ahead: only one that starts that close to the end can be cut off.
  for (let i = Math.max(lastTagEnd, span.length - MAX_TAG); i < span.length; i++) {
    if (isTriggerCode(span.charCodeAt(i)) && readTag(span, i, false) === "need-more") return span.length;
  }
  return lastTagEnd;
}

/**
 * A unit the end of the reply cut off, in a dialect whose values are raw text between tags: the
 * one broken segment `segments` holds ends where its markup does (cutOffMarkupEnd after the last
 * tag read from `from`), and the rest of the span is text beside it: visible as before, and kept
 * by history, which replaces only the broken span with its note. Not read again for
 * calls: it may be the cut-off value.
 */
export function endCutOffAtLastTag(segments: Segment[], span: string, from: number): Segment[] {
  const seg = segments[segments.length - 1];
  if (segments.length !== 1 || !seg || seg.kind !== "broken" || seg.start !== 0 || seg.end !== span.length) return segments;
  let last = from;
  for (const tag of tagsOf(span, from)) last = tag.end;
  const end = cutOffMarkupEnd(span, last);
  if (end <= 0 || end >= span.length) return segments;
  return [{ ...seg, end }, { kind: "text", start: end, end: span.length }];
}

export function brokenSpan(length: number, shape: Shape, reason: NudgeReason, detail: string, tool?: string): Segment[] {
  const seg: Segment = { kind: "broken", start: 0, end: length, shape, reason, detail };
  if (tool !== undefined) seg.tool = tool;
  return [seg];
}

export function textSpan(length: number): Segment[] {
  return [{ kind: "text", start: 0, end: length }];
}

/** A unit's outcome before its span is known. */
export type UnitOutcome =
  | { kind: "call"; tool: string; input: Record<string, unknown>; shape: Shape }
  | { kind: "broken"; shape: Shape; reason: NudgeReason; detail: string; tool?: string }
  | { kind: "foreign" };

/**
 * Lays units over a span: wrapper markup and whitespace between units join the unit before them
 * (the first unit also takes what precedes it: the opener, or a stray wrapper line, W01). Anything
 * else after a unit (a line of prose inside a MiniMax or Claude-style wrapper) is no unit's: from
 * there to the next unit it is a text segment, visible (or stripped and reported after the last
 * call, S03), never swallowed into a call's span. With no call at all the whole span is one piece.
 */
export function layUnits(length: number, units: { start: number; end: number; outcome: UnitOutcome }[], fallback: UnitOutcome, span?: string): Segment[] {
  if (!units.some((u) => u.outcome.kind === "call")) {
    const broken = units.find((u) => u.outcome.kind === "broken")?.outcome;
    const whole: UnitOutcome = broken ?? (units.length > 0 ? { kind: "foreign" } : fallback);
    return [toSegment(whole, 0, length)];
  }
  const segments: Segment[] = [];
  units.forEach((unit, index) => {
    const start = index === 0 ? 0 : unit.start;
    const gapEnd = index === units.length - 1 ? length : units[index + 1]!.start;
    const end = span === undefined || unit.end >= gapEnd ? gapEnd : layoutEnd(span, unit.end, gapEnd);
    segments.push(toSegment(unit.outcome, start, end));
    if (end < gapEnd) segments.push({ kind: "text", start: end, end: gapEnd });
  });
  return segments;
}

/**
 * Where the layout a unit may take ends, from `from` up to `to`: whitespace and wrapper tags (a
 * block opener or closer). `to` when nothing else is there, else the first other character or tag.
 */
function layoutEnd(span: string, from: number, to: number): number {
  let at = from;
  for (const tag of tagsOf(span, from, to)) {
    const text = firstContent(span, at, tag.start);
    if (text < tag.start) return text;
    if (tag.role !== "block") return tag.start;
    at = tag.end;
  }
  return firstContent(span, at, to);
}

/** The first non-whitespace offset in [from, to), or `to`. */
function firstContent(span: string, from: number, to: number): number {
  for (let i = from; i < to; i++) if (!isSpace(span.charCodeAt(i))) return i;
  return to;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

function toSegment(outcome: UnitOutcome, start: number, end: number): Segment {
  switch (outcome.kind) {
    case "call":
      return { kind: "call", start, end, tool: outcome.tool, input: outcome.input, shape: outcome.shape };
    case "broken": {
      const seg: Segment = { kind: "broken", start, end, shape: outcome.shape, reason: outcome.reason, detail: outcome.detail };
      if (outcome.tool !== undefined) seg.tool = outcome.tool;
      return seg;
    }
    case "foreign":
      return { kind: "text", start, end };
  }
}
