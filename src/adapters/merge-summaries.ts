import type { EngineSummary } from "../engine/types.ts";

function emptySummary(): EngineSummary {
  return { recovered: 0, nudge: null, broken: [], stripped: [], heldCandidateNoCall: 0 };
}

/** Several choices in one response still yield one report; the first nudge wins. */
export function mergeSummaries(summaries: readonly EngineSummary[]): EngineSummary {
  const out = emptySummary();
  for (const s of summaries) {
    out.recovered += s.recovered;
    out.nudge ??= s.nudge;
    out.broken.push(...s.broken);
    out.stripped.push(...s.stripped);
    out.heldCandidateNoCall += s.heldCandidateNoCall;
  }
  return out;
}
