/**
 * One reply read in parts by the engine, both ways the wires read parts: one engine with
 * endSpan() between them, and an engine per part continuing the last (`continues: carryOver()`).
 */
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { AnswerSoFar, EngineEvent } from "../../src/engine/types.ts";
import { fixtureTools } from "../golden/tools.ts";

export interface PartsRun {
  text: string;
  calls: Record<string, unknown>[];
}

/** `parts` read as one reply: `chained` reads each with its own engine continuing the last, else one engine with endSpan between. */
export function readParts(parts: readonly string[], chained: boolean, bufferLimit = Number.MAX_SAFE_INTEGER): PartsRun {
  const out: EngineEvent[] = [];
  let engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", bufferLimit });
  let before: AnswerSoFar | undefined;
  parts.forEach((part, i) => {
    if (i > 0 && chained) engine = createRepairEngine({ tools: fixtureTools, idPrefix: `call_${i}_`, bufferLimit, ...(before ? { continues: before } : {}) });
    out.push(...engine.feed(part));
    if (i < parts.length - 1) {
      out.push(...engine.endSpan!());
      before = engine.carryOver!();
      if (chained) out.push(...engine.flush());
    }
  });
  out.push(...engine.flush());
  return { text: out.map((e) => (e.type === "text" ? e.text : "")).join(""), calls: out.flatMap((e) => (e.type === "call" ? [e.call.input] : [])) };
}

export const READINGS = [
  ["one engine, endSpan", false],
  ["an engine per part", true],
] as const;
