import { expect } from "bun:test";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EchoGuard, EngineSummary } from "../../src/engine/types.ts";
import type { ParseOptionsInput, RecoveredCall, ToolSpec } from "../../src/parse/types.ts";

export interface EngineRun {
  text: string;
  calls: RecoveredCall[];
  summary: EngineSummary;
  maxHeld: number;
}

export interface RunOptions {
  parse?: ParseOptionsInput;
  bufferLimit?: number;
  native?: boolean;
  /** EngineOptions.reservedNames: names no alias may be taken for. */
  reservedNames?: readonly string[];
  /** EngineOptions.isEchoed: the echo guard over the request's given content. */
  isEchoed?: EchoGuard;
}

/** Feeds `input` cut at the given offsets (ascending), then flushes. */
export function runEngine(input: string, cuts: readonly number[], tools: readonly ToolSpec[], options: RunOptions = {}): EngineRun {
  const engine = createRepairEngine({ tools, parse: options.parse, bufferLimit: options.bufferLimit ?? Number.MAX_SAFE_INTEGER, idPrefix: "call_", ...(options.reservedNames ? { reservedNames: options.reservedNames } : {}), ...(options.isEchoed ? { isEchoed: options.isEchoed } : {}) });
  if (options.native) engine.noteNativeToolCall();
  let text = "";
  const calls: RecoveredCall[] = [];
  let maxHeld = 0;
  let prev = 0;
  const take = (events: ReturnType<typeof engine.feed>) => {
    for (const e of events) {
      if (e.type === "text") text += e.text;
      else calls.push(e.call);
    }
  };
  for (const cut of [...cuts, input.length]) {
    take(engine.feed(input.slice(prev, cut)));
    maxHeld = Math.max(maxHeld, engine.held);
    prev = cut;
  }
  take(engine.flush());
  return { text, calls, summary: engine.summary(), maxHeld };
}

/** Deterministic PRNG (mulberry32) so random splits are reproducible from their seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomCuts(length: number, seed: number, maxChunk = 12): number[] {
  const rand = seeded(seed);
  const cuts: number[] = [];
  for (let at = 1 + Math.floor(rand() * maxChunk); at < length; at += 1 + Math.floor(rand() * maxChunk)) cuts.push(at);
  return cuts;
}

export const everyChar = (length: number) => Array.from({ length: Math.max(0, length - 1) }, (_, i) => i + 1);

/** Comparable form of a run: what a consumer sees, independent of how the input was cut. */
export function observable(run: EngineRun) {
  return { text: run.text, calls: run.calls, broken: run.summary.broken, stripped: run.summary.stripped, nudge: run.summary.nudge };
}

/**
 * The run of the whole input, after asserting that char by char and five seeded random splits
 * give the same observable outcome (text, calls, broken and stripped spans, nudge).
 */
export function runAtEverySplit(input: string, tools: readonly ToolSpec[]): EngineRun {
  const run = (cuts: number[]) => observable(runEngine(input, cuts, tools));
  const whole = run([]);
  expect(run(everyChar(input.length))).toEqual(whole);
  for (let seed = 1; seed <= 5; seed++) expect(run(randomCuts(input.length, seed))).toEqual(whole);
  return runEngine(input, [], tools);
}

/**
 * Every input character is visible text, inside a recovered call's span, or in a stripped span:
 * rebuilds the input from those three and compares.
 */
export function accountsForEveryCharacter(input: string, run: EngineRun): boolean {
  const consumed = [...run.calls.map((c) => c.span), ...run.summary.stripped.map((s) => s.span)].sort((a, b) => a[0] - b[0]);
  let visible = "";
  let at = 0;
  for (const [start, end] of consumed) {
    if (start < at) return false;
    visible += input.slice(at, start);
    at = end;
  }
  visible += input.slice(at);
  return visible === run.text;
}
