// Differential: the middleware over the real engine, which lets plain deltas pass without building
// their events, against the same middleware over that engine without passes(). The client must
// get the same parts, in the same order, on random replies cut at random places.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import fc from "fast-check";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineOptions, RepairEngine } from "../../src/engine/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { cutReply, replyText } from "../property/arbitraries.ts";

type Part = LanguageModelV3StreamPart;
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const tools = fixtureTools.map((t) => ({ type: "function" as const, name: t.name, inputSchema: (t.parameters ?? { type: "object" }) as never }));

/** The real engine with passes() hidden: every delta takes feed(). */
function feedOnly(options: EngineOptions): RepairEngine {
  const engine = createRepairEngine(options);
  return {
    feed: (delta) => engine.feed(delta),
    flush: () => engine.flush(),
    noteNativeToolCall: () => engine.noteNativeToolCall(),
    get held() {
      return engine.held;
    },
    summary: () => engine.summary(),
    heldText: (from, to) => engine.heldText(from, to),
  };
}

async function run(deltas: string[], hidePasses: boolean): Promise<unknown[]> {
  const parts: Part[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...deltas.map((delta): Part => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
  ];
  const model = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
  const createEngine = (options: EngineOptions) => (hidePasses ? feedOnly : createRepairEngine)({ ...options, idPrefix: "m_" });
  const wrapped = wrapLanguageModel({ model, middleware: repairMiddleware({}, { createEngine }) });
  const { stream } = await wrapped.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools });
  return convertReadableStreamToArray(stream);
}

describe("middleware over engine.passes()", () => {
  test("differential on random replies and cuts: the same parts as over feed() alone", async () => {
    await fc.assert(
      fc.asyncProperty(cutReply(replyText()), async ({ input, cuts }) => {
        const deltas: string[] = [];
        let prev = 0;
        for (const cut of [...cuts, input.length]) {
          deltas.push(input.slice(prev, cut));
          prev = cut;
        }
        expect(await run(deltas, false)).toEqual(await run(deltas, true));
      }),
      { seed: 1414, numRuns: 300 },
    );
  });
});
