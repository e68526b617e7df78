/**
 * One reply read in parts by the engine, both ways the wires read parts: one engine with
 * endSpan() between them (the Anthropic wire, the middleware), and an engine per part continuing
 * the last (`continues: carryOver()`, the Responses wire: src/wires/responses/text-parts.ts).
 */
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { AnswerSoFar, EngineEvent, RepairEngine } from "../../src/engine/types.ts";
import { fixtureTools } from "../golden/tools.ts";

export interface PartsRun {
  text: string;
  calls: Record<string, unknown>[];
}

/**
 * `parts` read as one reply: `chained` reads each with its own engine continuing the last, else one
 * engine with endSpan between. An engine per part is read as the Responses wire reads it: a part's
 * engine still holding text after its last call (AnswerSoFar.tail) is not flushed at its part's end
 * (a flush is the reply's end, which strips that text, S03); the reply decides it later, released
 * into that part when a later part makes a call or holds nothing after one, stripped at the reply's
 * end (text-parts.ts decideTails).
 */
export function readParts(parts: readonly string[], chained: boolean, bufferLimit = Number.MAX_SAFE_INTEGER): PartsRun {
  /** Each part's events, in the order of the parts (a part's held text may be decided later). */
  const out: EngineEvent[][] = parts.map(() => []);
  let engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", bufferLimit });
  let before: AnswerSoFar | undefined;
  /** Engines of earlier parts still holding text after their last call, with their part's index. */
  let waiting: [RepairEngine, number][] = [];
  const decide = (release: boolean) => {
    for (const [held, k] of waiting) out[k]!.push(...(release ? held.releaseTail!() : []), ...held.flush());
    waiting = [];
  };
  /** A later part's events: a call in them, or (before the reply's end) its engine holding nothing after a call, shows the text the earlier parts hold. */
  const take = (events: EngineEvent[], i: number, ended = false) => {
    if (waiting.length > 0 && (events.some((e) => e.type === "call") || (!ended && engine.carryOver!().tail === undefined))) decide(true);
    out[i]!.push(...events);
  };
  parts.forEach((part, i) => {
    if (i > 0 && chained) engine = createRepairEngine({ tools: fixtureTools, idPrefix: `call_${i}_`, bufferLimit, ...(before ? { continues: before } : {}) });
    take(engine.feed(part), i);
    if (i < parts.length - 1) {
      take(engine.endSpan!(), i);
      before = engine.carryOver!();
      if (chained && before.tail !== undefined) waiting.push([engine, i]);
      else if (chained) out[i]!.push(...engine.flush());
    }
  });
  take(engine.flush(), parts.length - 1, true);
  // The reply ended: what the earlier parts held after the reply's last call is stripped, as the flush strips the last part's.
  decide(false);
  const events = out.flat();
  return { text: events.map((e) => (e.type === "text" ? e.text : "")).join(""), calls: events.flatMap((e) => (e.type === "call" ? [e.call.input] : [])) };
}

export const READINGS = [
  ["one engine, endSpan", false],
  ["an engine per part", true],
] as const;
