/**
 * Review (differential): a reply whose text arrives in several parts (Responses output_text parts
 * and message items, Anthropic text blocks with thinking blocks between, chat content with
 * reasoning_content interleaved) must come out as the one text does, when the parts break only
 * between whole fragments. Seeded, bounded runs (DIFF_SEED, DIFF_RUNS). It tripped on the review's
 * F1-F4 (test/adapters/text-parts.test.ts). Responses parts and Anthropic text blocks with a
 * thinking block between end markup at each part's end (endSpan), and text held after a call
 * carries on into the next part until the reply decides it, so both read as one engine with
 * endSpan() between the parts.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { partedReply } from "./diff-arbitraries.ts";
import { anthropicEngineRun, spannedEngineRun, anthropicJson, anthropicStream, chatStream, engineRun, responsesJson, responsesStream, show, type Outcome, type Scenario } from "./diff-harness.ts";

const SEED = Number(process.env.DIFF_SEED ?? 20261206);
const RUNS = Number(process.env.DIFF_RUNS ?? 60);

const request = fc.record({
  choice: fc.constantFrom<Scenario["choice"]>(undefined, undefined, "none", { name: "bash" }),
  parallelOff: fc.boolean(),
  nativeBefore: fc.boolean(),
});

const trim = (o: Outcome): Outcome => ({ calls: o.calls, text: o.text, nudge: o.nudge });

async function attempt(run: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return trim(await run());
  } catch (error) {
    return { calls: [], text: `THREW: ${(error as Error).message}`, nudge: null };
  }
}

describe("review: a reply in parts equals the reply whole", () => {
  test("Responses parts, Responses items, Anthropic blocks with thinking between, chat with reasoning between", async () => {
    await fc.assert(
      fc.asyncProperty(partedReply, request, fc.nat(), async (parts, req, seed) => {
        const s: Scenario = { text: parts.join(""), ...(req.choice ? { choice: req.choice } : {}), ...(req.parallelOff ? { parallelOff: true } : {}), ...(req.nativeBefore ? { nativeBefore: true } : {}) };
        const ref = engineRun(s, []);
        // Responses parts, and Anthropic text blocks with thinking between, end every candidate at the part's end (endSpan).
        const spanned = spannedEngineRun(s, parts);
        const paths: Record<string, Outcome> = {
          responsesPartsSse: await attempt(() => responsesStream(s, seed, [parts])),
          responsesPartsJson: await attempt(() => responsesJson(s, [parts])),
          responsesItemsSse: await attempt(() => responsesStream(s, seed, parts.map((p) => [p]))),
          responsesItemsJson: await attempt(() => responsesJson(s, parts.map((p) => [p]))),
          anthropicBlocksSse: await attempt(() => anthropicStream(s, seed, parts, true)),
          anthropicBlocksJson: await attempt(() => anthropicJson(s, parts, true)),
          chatReasoningBetween: await attempt(() => chatStream(s, seed, true)),
        };
        // Anthropic blocks: whitespace alone beside a call in a text block is not sent (review 57 A1).
        const anthropic = anthropicEngineRun(s, parts);
        const reference = (name: string) => (name.startsWith("anthropic") ? anthropic : name.startsWith("responses") ? spanned : ref);
        const diverging = Object.fromEntries(Object.entries(paths).filter(([name, o]) => show(o) !== show(reference(name))));
        expect(show({ parts, req, diverging })).toBe(show({ parts, req, diverging: {} }));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: false },
    );
  }, 120_000);
});
