import type { Tag } from "../../../grammar/tags.ts";
import type { SpanContext } from "../../call.ts";
import { cutOffMarkupEnd, layUnits, type Segment, type UnitOutcome } from "../../segments.ts";
import type { InvokeDraft } from "./drafts.ts";
import { invokeOutcome, ORPHAN_PARAMETER } from "./verdict.ts";
import { DsmlWalk } from "./walk.ts";

/**
 * DSML and its degraded shapes (section 2A-2F of the catalogue) over one complete candidate span:
 * the walk reads its tags into invoke drafts, each draft is judged on its own, and the outcomes
 * are laid over the span. `enclosing`: the opener of a block this span continues (its earlier
 * calls were emitted already).
 */
export function parseDsmlSpan(span: string, ctx: SpanContext, enclosing: Tag | null = null, strayLine = false, complete = false): Segment[] {
  const walk = new DsmlWalk(span, ctx, enclosing);
  walk.strayLine = strayLine;
  walk.complete = complete;
  const invokes = walk.run();
  const units = invokes.map((inv) => ({ start: inv.start, end: inv.end, outcome: invokeOutcome(inv, walk, span, ctx) }));
  refuseStrayParameterBlocks(invokes, units, enclosing !== null && malformedBlocks.has(enclosing), walk.strayNamedBlocks);
  const fallback: UnitOutcome = walk.sawDsml
    ? { kind: "broken", shape: walk.blockTags.length > 0 ? "S02" : "D08", reason: walk.truncatedBlock ? "truncated-call" : "broken-markup", detail: "tool-call markup without a usable invoke" }
    : { kind: "foreign" };
  // A broken invoke that never closed (cut off mid-value, or prose where its closer should be) ran
  // on into what followed, and what followed may be anything the model wrote next, a fenced
  // example among them. No later unit is read from this span: the segments end where the next
  // markup starts, and the engine reads the rest again as text, after the broken text went through
  // its documentation context (so a fence opened in it is seen, and a complete call outside any
  // documentation is still recovered on its own).
  const stop = invokes.findIndex((inv, i) => i < invokes.length - 1 && inv.endedBy === "next" && units[i]!.outcome.kind === "broken");
  const until = stop >= 0 ? invokes[stop]!.resumeAt : span.length;
  const segments = layUnits(until, stop >= 0 ? units.slice(0, stop + 1) : units, fallback, span);
  const last = stop >= 0 ? stop : invokes.length - 1;
  const lastInvoke = invokes[last];
  if (lastInvoke && lastInvoke.endedBy !== "closer" && units[last]!.outcome.kind === "broken") {
    const tagsEnd = lastTagEnd(lastInvoke, until);
    endAtLastTag(segments, lastInvoke.endedBy === "end" ? cutOffMarkupEnd(span, tagsEnd) : tagsEnd, until);
  }
  return segments;
}

/**
 * A parameter written outside every invoke of a block (after an invoke's closer or
 * before its opener, inside the same block) that is no wrapped tool (I02) makes the block
 * malformed: the parameter belongs to no call, so which call it was meant for is a guess (`workdir`
 * written after the `rm -rf ./*` invoke closed). None of the block's calls in this span runs; each
 * is refused as broken markup, its text kept (a call right before such a parameter is in its span:
 * parse/stray-value-closer.ts ExampleRun reads on to it). Golden P47.4, P47.5.
 */
function refuseStrayParameterBlocks(invokes: InvokeDraft[], units: { outcome: UnitOutcome }[], enclosingMalformed: boolean, strayNamed: ReadonlySet<number>): void {
  // An enclosing block is the walk's first (DsmlWalk.blockCount); a parameter in I11's spelling outside every invoke counts too (review 52).
  const malformed = new Set<number>(strayNamed);
  if (enclosingMalformed) malformed.add(1);
  invokes.forEach((inv, i) => {
    if (inv.paramRoot && inv.block >= 0 && units[i]!.outcome.kind === "broken") malformed.add(inv.block);
  });
  if (malformed.size === 0) return;
  invokes.forEach((inv, i) => {
    const outcome = units[i]!.outcome;
    if (outcome.kind !== "call" || !malformed.has(inv.block)) return;
    units[i]!.outcome = { kind: "broken", shape: "I02", reason: "broken-markup", detail: STRAY_PARAMETER, tool: outcome.tool };
  });
}

/**
 * Whether a value of this DSML span was ended by no closer of its own: an invoke's or block's
 * closer (P01, golden A45.8) or a parameter closer of another spelling (`</parameter>`, A46.1). The
 * value may run on past it, which what follows the span may still show (its own closer later on). The engine asks only at a part's end (engine/part-end.ts): one
 * more walk of that span.
 */
export function valueCutIn(span: string, ctx: SpanContext, enclosing: Tag | null): boolean {
  const walk = new DsmlWalk(span, ctx, enclosing);
  walk.run();
  return walk.cutValueSeen;
}

export const STRAY_PARAMETER = "a parameter outside every invoke of the block: which call it belongs to is unknowable";

/**
 * Blocks a parameter outside every invoke made malformed, by their opener as the engine holds it
 * (the `enclosing` a later span of the block is parsed with): a call of the block after the span
 * that showed it is refused too. Calls of the block emitted before it had already run.
 */
const malformedBlocks = new WeakSet<Tag>();

/** The engine's side (engine.ts finish): a span whose segments refused calls for a stray parameter leaves its block, still open, malformed. */
export function noteMalformedBlock(segments: readonly Segment[], block: Tag): void {
  if (showsStrayParameter(segments)) malformedBlocks.add(block);
}

/**
 * A span's segments show a parameter outside every invoke: calls refused for one, or the parameter
 * itself (a block with no call before it, a second block opened before the first one's closer).
 */
export function showsStrayParameter(segments: readonly Segment[]): boolean {
  return segments.some((s) => s.kind === "broken" && (s.detail === STRAY_PARAMETER || s.detail === ORPHAN_PARAMETER));
}

/** The engine's text mode (text-mode.ts): a parameter outside every invoke read after prose while the block is still open (golden P47.11). */
export function markMalformedBlock(block: Tag): void {
  malformedBlocks.add(block);
}

/** Whether a parameter outside every invoke made this block malformed (noteMalformedBlock, markMalformedBlock). */
export function isMalformedBlock(block: Tag): boolean {
  return malformedBlocks.has(block);
}

/**
 * A broken invoke that never closed, ended by the next markup (the walk's "next", the stream's
 * SpanReader.restart) or by the end of the reply (the walk's "end": cut off, S02; test/history/cut-off-span.test.ts), is
 * broken markup up to the end of the last tag it read: the parameter opener of a cut-off value,
 * or the parameter closer before the prose where its closer should be. What follows, up to that
 * next markup or the reply's end, is text: visible as before and read by the documentation
 * context as before, but no part of the broken span, which history replaces by a note. So a fence
 * opener, a backtick or `<!--` written after the tags stays with the text, and the example it
 * opens stays documentation in history too (golden S02.2, S02.6, S02.7, Q29.13), and the prose
 * the model wrote after a value the reply cut off is not replaced by the note. The tags are the
 * only structural evidence of where the markup ends (for a cut-off unit, a tag the reply cut off
 * after them is markup too: segments.ts cutOffMarkupEnd): an unclosed value may hold anything (blank
 * lines and fences in a file being written), so nothing inside it can mark an end; the value's
 * text was shown live, so history keeping it loses and invents nothing. That text is not read
 * again for calls: the model may have meant it as the cut-off value (a file being written), so
 * markup there never runs, as before.
 */
function endAtLastTag(segments: Segment[], at: number, until: number): void {
  const seg = segments[segments.length - 1];
  if (!seg || seg.kind !== "broken" || seg.end !== until || at <= seg.start || at >= until) return;
  seg.end = at;
  segments.push({ kind: "text", start: at, end: until });
}

/** The end of the last tag `inv` read before `until`. */
function lastTagEnd(inv: InvokeDraft, until: number): number {
  let end = inv.start;
  for (const tag of inv.tags) if (tag.start < until && tag.end > end) end = tag.end;
  return end;
}
