import { CR, GT, LF, SP, TAB } from "../grammar/chars.ts";
import { valueCutIn } from "../parse/dialects/dsml/parse-span.ts";
import type { SpanContext } from "../parse/call.ts";
import type { Segment } from "../parse/segments.ts";
import type { Candidate } from "./candidate.ts";

/**
 * Fix 54b, the one rule at a part's end that is not the reply's end (engine.ts endSpan): nothing is
 * decided to run there. A candidate still open at that end waited for what comes next, which the
 * next part writes: it is markup of unknown end (its text shown as written, no later call of the
 * reply runs), unless its calls were decided by text inside the part. That is only a span whose
 * calls were complete before the end (the candidate only takes the layout after their closer: no
 * closer held as maybe content, nothing read on after its block's closer, Candidate.settled), whose
 * closer's line ended inside the part, and no value of which was ended by anything but its own
 * closer (an invoke or block closer, P01, or a closer of another spelling: A45.8, A46.1).
 * Fix 55: a candidate the part's end itself ended (Candidate.consume read to it with nothing more
 * to come) decided nothing there: the run after a DSML call, which reads on past its block's closer
 * for a write's stray value closer (A46.6), was still waiting, so its calls are pending too. What
 * text mode still held at the part's end is pending as well (engine.ts endSpan).
 */
export function decidedInPart(cand: Candidate, span: string, undecided: boolean, segments: readonly Segment[], ctx: SpanContext): boolean {
  if (undecided || !cand.settled() || !lineEnded(cand.text(), span.length)) return false;
  if (cand.opener.family !== "dsml" || !segments.some((seg) => seg.kind === "call")) return true;
  return !valueCutIn(span, ctx, cand.enclosing === true ? null : cand.enclosing);
}

/** What the candidate read (`text`) ends with a tag's `>` inside its span (`spanLength`), then layout holding a line end: nothing read after the closer but that. */
function lineEnded(text: string, spanLength: number): boolean {
  let k = text.length;
  let ended = false;
  while (k > 0) {
    const c = text.charCodeAt(k - 1);
    if (c !== SP && c !== TAB && c !== LF && c !== CR) break;
    if (c === LF || c === CR) ended = true;
    k--;
  }
  return ended && k > 0 && k <= spanLength && text.charCodeAt(k - 1) === GT;
}
