/**
 * Review 54 (rules): one reply read in parts by the engine, both ways the wires read parts: one
 * engine with endSpan() between them, and an engine per part continuing the last
 * (`continues: carryOver()`), as review-53-parts-engine.test.ts reads them. Golden inputs come from
 * fixtures.json (escaped there), so no marker byte is written here.
 */
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { AnswerSoFar, EngineEvent } from "../../src/engine/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import fixtures from "../golden/fixtures.json";

export interface PartsRun {
  text: string;
  calls: Record<string, unknown>[];
}

export function readParts(parts: readonly string[], chained: boolean): PartsRun {
  const out: EngineEvent[] = [];
  let engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", bufferLimit: Number.MAX_SAFE_INTEGER });
  let before: AnswerSoFar | undefined;
  parts.forEach((part, i) => {
    if (i > 0 && chained) engine = createRepairEngine({ tools: fixtureTools, idPrefix: `call_${i}_`, bufferLimit: Number.MAX_SAFE_INTEGER, ...(before ? { continues: before } : {}) });
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

/** A golden fixture's input (fixtures.json). */
export function golden(id: string): string {
  const f = (fixtures as { id: string; input: string }[]).find((x) => x.id === id);
  if (!f) throw new Error(`no golden ${id}`);
  return f.input;
}

/** `text` cut in two right after the first occurrence of `after` (plus `extra` characters). */
export function cutAfter(text: string, after: string, extra = 0): [string, string] {
  const at = text.indexOf(after);
  if (at < 0) throw new Error(`no ${JSON.stringify(after)}`);
  const k = at + after.length + extra;
  return [text.slice(0, k), text.slice(k)];
}

/** A later, clean Hermes call the reply makes after the markup (its own paragraph). */
export const LATER = '\n\n<tool_call>{"name":"bash","arguments":{"command":"echo ZQ"}}</tool_call>';
export const LATER_INPUT = { command: "echo ZQ" };
