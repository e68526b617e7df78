/**
 * Review (differential): the same reply must come out the same through every path that repairs it.
 * Seeded, bounded runs (DIFF_SEED, DIFF_RUNS); a failing run prints the shrunk scenario.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { parse } from "../../src/engine/parse.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, randomCuts } from "../support/run-engine.ts";
import { scenario } from "./diff-arbitraries.ts";
import { anthropicJson, anthropicStream, chatJson, chatStream, engineRun, middlewareGenerate, middlewareStream, responsesJson, responsesStream, show, type Outcome, type Scenario } from "./diff-harness.ts";

const SEED = Number(process.env.DIFF_SEED ?? 20261206);
const RUNS = Number(process.env.DIFF_RUNS ?? 60);

async function allPaths(s: Scenario, seed: number): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  out.engineChar = engineRun(s, everyChar(s.text.length));
  out.engineSplit = engineRun(s, randomCuts(s.text.length, seed, 9));
  if (!s.choice && !s.parallelOff && !s.given) {
    const p = parse(s.text, fixtureTools, s.nativeBefore ? { nativeToolCalls: true } : {});
    out.parse = { calls: p.calls.map((c) => ({ tool: c.tool, input: c.input })), text: p.text, nudge: p.nudge };
  }
  const tryPath = async (name: string, run: () => Promise<Outcome>) => {
    try {
      const r = await run();
      out[name] = { calls: r.calls, text: r.text, nudge: r.nudge };
      if ("completed" in r) out[`${name}.completed`] = (r as any).completed;
    } catch (error) {
      out[name] = { calls: [], text: `THREW: ${(error as Error).message}`, nudge: null };
    }
  };
  await tryPath("chatSse", () => chatStream(s, seed));
  await tryPath("chatJson", () => chatJson(s));
  await tryPath("anthropicSse", () => anthropicStream(s, seed));
  await tryPath("anthropicJson", () => anthropicJson(s));
  await tryPath("responsesSse", () => responsesStream(s, seed));
  await tryPath("responsesJson", () => responsesJson(s));
  await tryPath("middlewareStream", () => middlewareStream(s, 1 + (seed % 7)));
  await tryPath("middlewareGenerate", () => middlewareGenerate(s));
  return out;
}

describe("review: every path gives the engine's answer", () => {
  test("single text reply, any request", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, fc.nat(), async (s, seed) => {
        const ref = engineRun(s, []);
        const paths = await allPaths(s, seed);
        const diverging = Object.fromEntries(Object.entries(paths).filter(([, o]) => show(o) !== show(ref)));
        expect(show({ scenario: s, diverging })).toBe(show({ scenario: s, diverging: {} }));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: false },
    );
  }, 120_000);
});
