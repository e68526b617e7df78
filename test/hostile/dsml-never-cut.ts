/**
 * Shared by review-56-dsml-doubled-closer.test.ts and diff-review-56a.test.ts: DSML blocks in the
 * notation, and the check that a call runs with its value exactly as written or is refused with
 * the text kept, never cut.
 */
import { expect } from "bun:test";
import { live } from "../golden/notation.ts";
import { outcome } from "../support/outcome.ts";

/** A DSML string parameter, in the notation. */
export const P = (k: string, v: string) => `<{D}parameter name="${k}" string="true">${v}</{D}parameter>`;
/** A DSML block holding one invoke of `tool`, in the notation. */
export const block = (tool: string, ...params: string[]) => `<{D}tool_calls>\n<{D}invoke name="${tool}">\n${params.join("\n")}\n</{D}invoke>\n</{D}tool_calls>`;

/** The call runs with the value exactly as written, or is refused with the text kept: never cut. */
export function neverCut(notation: string, whole: { tool: string; input: Record<string, unknown> }) {
  const input = live(notation);
  const o = outcome(input);
  if (o.calls.length === 0) {
    expect(o.broken).toContain("broken-markup");
    expect(o.text).toBe(input);
  } else expect(o.calls).toEqual([whole]);
}
