import { MAX_TAG, NEED_MORE, readTag } from "../grammar/tags.ts";
import type { BrokenSpan } from "../parse/types.ts";

// A tag cut in two by a part's end (the engine's endSpan: a Responses output_text part, an
// Anthropic text block before a thinking block). Markup never spans two parts, so each part reads
// its half as text; but when the next part's first characters complete the tag, the reply wrote
// one tag across the boundary (`<parameter name="content"` then `>Example: ...`), and what follows
// may be that markup's text (a value's, with the call examples in it), which neither part can
// tell. Where that markup ends is unknown, as after the limit: no later call of the reply runs
// (AnswerSoFar.overflowed). Fix 55: in a live reply the cut is pending at the part's end already,
// whatever the next part writes (engine.ts endSpan: text mode still held it); the join here decides
// it for replayed history and given content, which read a part's end as the reply's end, and a cut
// the next part does not complete (`<tool_call` then a new line) changes nothing there.

/** The marker tag `held` (the text the part's end decided) ends with, still unfinished; null when none. */
export function cutTagOf(held: string): string | null {
  const at = Math.max(held.lastIndexOf("<"), held.lastIndexOf("["));
  if (at < 0 || held.length - at >= MAX_TAG) return null;
  const rest = at === 0 ? held : held.slice(at);
  return readTag(rest, 0, false) === NEED_MORE ? rest : null;
}

/**
 * The cut tag with the next part's text so far: true when they read as one marker tag, false when
 * they do not, or the longer cut to wait on while the tag may still complete (up to MAX_TAG).
 */
export function joinCutTag(cut: string, next: string): boolean | string {
  const joined = cut + (next.length > MAX_TAG ? next.slice(0, MAX_TAG) : next);
  const tag = readTag(joined, 0, false);
  if (tag === NEED_MORE) return joined.length < MAX_TAG ? joined : false;
  return tag !== null;
}

/**
 * The reports of calls a part's end cut off mid-line ("truncated-call"), made as at the reply's
 * end since that part's end may be it (the Responses wire ends every part's span, the last one
 * too). Once the reply goes on (the next part brings text) they are withdrawn: the line went on,
 * the rest of what looked like a call arrives there (a mention cut in two, golden N21), and a
 * correction for a call the reply never cut off would be a false one. The text is not changed.
 */
export class CutReports {
  constructor(
    private readonly broken: BrokenSpan[],
    private readonly reports: readonly BrokenSpan[],
  ) {}

  withdraw(): void {
    for (const report of this.reports) {
      const at = this.broken.indexOf(report);
      if (at >= 0) this.broken.splice(at, 1);
    }
  }
}
