/**
 * Review 54 (hostile, tests only): the round-53 part rules (docs/PATTERNS.md: "at an earlier part's
 * end, a costume still open ... is shown as written and stops every later call of the reply")
 * applied to replayed history. History reads with `readsHistory` (no endUnknown), so it must still
 * replace what the live repair refused after such a part end, and keep what the live repair showed
 * as written. Hard negatives only (they pass on main); what was suspected but not proved is in the
 * report.
 */
import { describe, expect, test } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { REMOVED_NOTE, redactReply, type ReplyPart } from "../../src/history/sanitize.ts";
import { fixtureTools } from "../golden/tools.ts";

const CALL = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>';

/** The live repair over the same parts (a span ended where a part is `apart`): what it ran and why. */
function liveRead(parts: readonly ReplyPart[]): { recovered: number; nudge: string | null } {
  const engine = createRepairEngine({ tools: fixtureTools, parse: {}, bufferLimit: Number.MAX_SAFE_INTEGER, idPrefix: "live_" });
  parts.forEach((part, i) => {
    if (i > 0 && part.apart) engine.endSpan?.();
    engine.feed(part.text);
  });
  engine.flush();
  const { recovered, nudge } = engine.summary();
  return { recovered, nudge };
}

describe("a costume open at an earlier part's end, in history (hard negatives, pass on main)", () => {
  const cases: [string, ReplyPart[]][] = [
    ["its closer in the next part, a call after it", [{ text: "Run:\n<shell>\nls\n" }, { text: `</shell>\nThen:\n${CALL}\nDone.`, apart: true }]],
    ["never closed, a call as its own paragraph after it", [{ text: "Run:\n<shell>\nls\n" }, { text: `More text.\n\n${CALL}\nDone.`, apart: true }]],
  ];
  for (const [name, parts] of cases) {
    test(`${name}: live runs nothing; history replaces the later call and keeps every other character`, () => {
      expect(liveRead(parts).recovered).toBe(0);
      const out = redactReply(parts, {}, fixtureTools);
      expect(out.removed).toBe(1);
      expect(out.texts[0]).toBe(parts[0]!.text);
      expect(out.texts[1]).toBe(parts[1]!.text.replace(CALL, REMOVED_NOTE));
      // Read again: nothing more (the note is never re-noted).
      expect(redactReply(out.texts.map((text, i) => ({ text, apart: parts[i]!.apart === true })), {}, fixtureTools).removed).toBe(0);
    });
  }

  test("the same costume closed within one part runs live, and history replaces it whole", () => {
    const parts: ReplyPart[] = [{ text: "Run:\n<shell>\nrm -rf x\n</shell>\nDone." }];
    expect(liveRead(parts).recovered).toBe(1);
    expect(redactReply(parts, {}, fixtureTools).texts).toEqual([`Run:\n${REMOVED_NOTE}\nDone.`]);
  });

  test("consecutive text parts (no block between) are one span: a costume closed in the next part is replaced across them", () => {
    const parts: ReplyPart[] = [{ text: "Run:\n<shell>\nrm -rf x\n" }, { text: "</shell>\nDone." }];
    expect(liveRead(parts).recovered).toBe(1);
    const out = redactReply(parts, {}, fixtureTools);
    expect(out.texts.join("")).toBe(`Run:\n${REMOVED_NOTE}\nDone.`);
    expect(out.texts.includes("")).toBe(false);
  });
});
