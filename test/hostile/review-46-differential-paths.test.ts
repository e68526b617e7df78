/**
 * Review 46 (differential, paths): every golden fixture through every path that repairs it, whole
 * and with its bytes changed. Passes on main (no path disagreement found); kept as a bounded guard.
 *
 * 1. Each golden fixture (those without parse options, buffer limit or reserved names) through the
 *    engine at seeded random splits, repairFetch on chat / Anthropic / Responses as SSE and JSON,
 *    and the middleware's doStream and doGenerate: calls, visible text and nudge equal the
 *    fixture's expectation. One documented difference: a request that declares no tools (S06) is
 *    passed through by the adapters without a nudge (src/options/adapter.ts, onRepairing: "a reply
 *    to a request with no tools is passed through as written on purpose").
 * 2. The fixtures with parse options through the middleware configured with those options.
 * 3. Seeded sample of (fixture, byte change): every path equals the engine fed the changed text
 *    whole. The byte changes are the ones the review looked for (CRLF, lone CR, BOM, zero-width
 *    characters, tabs, NBSP, fullwidth / Cyrillic letters in tag names, HTML entities, JSON `\u003c`
 *    escapes, NFD, marker lookalikes); what they do to the calls themselves is in
 *    review-46-differential-bytes.test.ts.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import fc from "fast-check";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import type { Fixture } from "../golden/build-fixtures.ts";
import { fixtureTools } from "../golden/tools.ts";
import { everyChar, randomCuts } from "../support/run-engine.ts";
import { anthropicEngineRun, middlewareEngineRun, anthropicJson, anthropicStream, chatJson, chatStream, engineRun, middlewareGenerate, middlewareStream, responsesJson, responsesStream, show, type Outcome, type Scenario } from "../property/diff-harness.ts";

const SEED = Number(process.env.DIFF_SEED ?? 20261206);
const RUNS = Number(process.env.DIFF_RUNS ?? 300);

const stored = (await Bun.file(new URL("../golden/fixtures.json", import.meta.url)).json()) as Fixture[];
const toolsFor = (f: Fixture) => (f.tools ? fixtureTools.filter((t) => f.tools!.includes(t.name)) : fixtureTools);
// A scenario carries one given text; fixtures that give several (E48.1: a quote cut between two
// texts) are read through the wires by test/hostile/review-48-echo-split.test.ts instead.
const plain = stored.filter((f) => !f.options && !f.reservedNames && f.bufferLimit === undefined && (f.given?.length ?? 1) === 1);
const withOptions = stored.filter((f) => f.options && !f.reservedNames && f.bufferLimit === undefined && !f.given);

/** Documented: the adapters pass a reply to a tool-less request through untouched, so no nudge. */
const NO_TOOLS_NO_NUDGE = new Set(["S06"]);

const scenarioOf = (f: Fixture, text = f.input): Scenario => ({ text, tools: toolsFor(f), ...(f.given ? { given: f.given.join("\n\n") } : {}), ...(f.nativeToolCalls ? { nativeBefore: true } : {}) });

async function allPaths(s: Scenario, seed: number): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  const attempt = async (name: string, run: () => Promise<Outcome>) => {
    try {
      const r = await run();
      out[name] = { calls: r.calls, text: r.text, nudge: r.nudge };
    } catch (error) {
      out[name] = { calls: [], text: `THREW: ${(error as Error).message}`, nudge: null };
    }
  };
  out.engineSplit = engineRun(s, randomCuts(s.text.length, seed, 9));
  await attempt("chatSse", () => chatStream(s, seed));
  await attempt("chatJson", () => chatJson(s));
  await attempt("anthropicSse", () => anthropicStream(s, seed));
  await attempt("anthropicJson", () => anthropicJson(s));
  await attempt("responsesSse", () => responsesStream(s, seed));
  await attempt("responsesJson", () => responsesJson(s));
  await attempt("middlewareStream", () => middlewareStream(s, 1 + (seed % 7)));
  await attempt("middlewareGenerate", () => middlewareGenerate(s));
  return out;
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const sdkParams = (f: Fixture) =>
  ({
    prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: toolsFor(f).map((t) => ({ type: "function", name: t.name, description: t.name, inputSchema: (t.parameters ?? { type: "object" }) as any })),
  }) as unknown as LanguageModelV3CallOptions;

async function middlewareWithOptions(f: Fixture, size: number): Promise<{ stream: Outcome; generate: Outcome }> {
  const middleware = () => repairMiddleware({ parse: f.options });
  const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }];
  for (let i = 0; i < f.input.length; i += size) parts.push({ type: "text-delta", id: "t", delta: f.input.slice(i, i + size) });
  parts.push({ type: "text-end", id: "t" }, { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } });
  const streamed = wrapLanguageModel({ model: new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) }), middleware: middleware() });
  const out = await convertReadableStreamToArray((await streamed.doStream(sdkParams(f))).stream);
  const generated = wrapLanguageModel({
    model: new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: "text", text: f.input }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) }),
    middleware: middleware(),
  });
  const result = await generated.doGenerate(sdkParams(f));
  return {
    stream: { text: out.map((p) => (p.type === "text-delta" ? p.delta : "")).join(""), calls: out.flatMap((p) => (p.type === "tool-call" ? [{ tool: p.toolName, input: JSON.parse(p.input) }] : [])), nudge: null },
    generate: { text: result.content.map((p) => (p.type === "text" ? p.text : "")).join(""), calls: result.content.flatMap((p) => (p.type === "tool-call" ? [{ tool: p.toolName, input: JSON.parse(p.input) }] : [])), nudge: null },
  };
}

const expected = (f: Fixture): Outcome => ({ calls: f.expect.calls.map((c) => ({ tool: c.tool, input: c.input })), text: f.expect.text, nudge: f.expect.nudge as Outcome["nudge"] });

describe("review 46: every golden fixture through every path", () => {
  test(`${plain.length} fixtures: engine at random splits, fetch on three wires (SSE and JSON), middleware stream and generate`, async () => {
    const diverging: Record<string, Record<string, string>> = {};
    let seed = SEED;
    for (const f of plain) {
      const want = expected(f);
      const paths = await allPaths(scenarioOf(f), seed++);
      // The fixture's text as an Anthropic client is shown it: whitespace alone beside a call in a text block is not sent (review 57 A1).
      const anthropic = { ...want, text: anthropicEngineRun(scenarioOf(f)).text };
      // Through the AI SDK middleware: whitespace alone beside a call in its text part is not sent (fix 57 diff B).
      const middleware = { ...want, text: middlewareEngineRun(scenarioOf(f)).text };
      for (const [path, got] of Object.entries(paths)) {
        const compared = NO_TOOLS_NO_NUDGE.has(f.id) ? { ...got, nudge: want.nudge } : got;
        if (show(compared) !== show(path.startsWith("anthropic") ? anthropic : path.startsWith("middleware") ? middleware : want)) (diverging[f.id] ??= {})[path] = show(got);
      }
    }
    expect(diverging).toEqual({});
  }, 60_000);

  test("the documented difference is what it says: S06's paths differ from the fixture in the nudge only", async () => {
    const f = plain.find((x) => x.id === "S06")!;
    const paths = await allPaths(scenarioOf(f), SEED);
    expect(f.expect.nudge).not.toBeNull();
    for (const got of Object.values(paths).slice(1)) expect(show({ ...got, nudge: null })).toBe(show({ ...expected(f), nudge: null }));
  });

  test(`${withOptions.length} fixtures with parse options: the middleware configured with them gives the fixture's calls and text`, async () => {
    const diverging: Record<string, string> = {};
    for (const [i, f] of withOptions.entries()) {
      const want = show({ calls: expected(f).calls, text: f.expect.text });
      const { stream, generate } = await middlewareWithOptions(f, 1 + (i % 7));
      if (show({ calls: stream.calls, text: stream.text }) !== want) diverging[`${f.id} stream`] = show(stream);
      if (show({ calls: generate.calls, text: generate.text }) !== want) diverging[`${f.id} generate`] = show(generate);
    }
    expect(diverging).toEqual({});
  }, 30_000);
});

const byteChanges: Record<string, (s: string) => string> = {
  crlf: (s) => s.replaceAll("\n", "\r\n"),
  loneCr: (s) => s.replaceAll("\n", "\r"),
  bom: (s) => `\uFEFF${s}`,
  zeroWidthAfterLt: (s) => s.replaceAll("<", "<\u200B"),
  zeroWidthBeforeLt: (s) => s.replaceAll("<", "\u200B<"),
  feffInNames: (s) => s.replace(/name="/g, 'name="\uFEFF'),
  tabs: (s) => s.replaceAll(" ", "\t"),
  nbsp: (s) => s.replaceAll(" ", "\u00A0"),
  fullwidthInvoke: (s) => s.replaceAll("invoke", "\uFF49nvoke"),
  entities: (s) => s.replaceAll("<", "&lt;").replaceAll(">", "&gt;"),
  quotEntities: (s) => s.replaceAll('"', "&quot;"),
  jsonEscapes: (s) => s.replaceAll("<", "\\u003c").replaceAll(">", "\\u003e"),
  nfd: (s) => s.normalize("NFD"),
  asciiBar: (s) => s.replaceAll("\uFF5C", "|"),
  boxBar: (s) => s.replaceAll("\uFF5C", "\u2502"),
  cyrillicO: (s) => s.replaceAll("tool_call", "t\u043Eol_call"),
};

describe("review 46: a golden fixture with its bytes changed comes out the same through every path", () => {
  test("seeded sample of (fixture, byte change): every path equals the engine fed the changed text whole and char by char", async () => {
    const pool = plain.filter((f) => !f.given && !f.nativeToolCalls && !NO_TOOLS_NO_NUDGE.has(f.id));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pool), fc.constantFrom(...Object.keys(byteChanges)), fc.nat(), async (f, change, seed) => {
        const s = scenarioOf(f, byteChanges[change]!(f.input));
        const whole = engineRun(s, []);
        // Anthropic: whitespace alone beside a call in a text block is not sent (review 57 A1).
        const anthropic = anthropicEngineRun(s);
        // The middleware: whitespace alone beside a call in its text part is not sent (fix 57 diff B).
        const middleware = middlewareEngineRun(s);
        const paths = { engineChar: engineRun(s, everyChar(s.text.length)), ...(await allPaths(s, seed)) };
        const diverging = Object.fromEntries(Object.entries(paths).filter(([name, o]) => show(o) !== show(name.startsWith("anthropic") ? anthropic : name.startsWith("middleware") ? middleware : whole)));
        expect({ fixture: f.id, change, diverging }).toEqual({ fixture: f.id, change, diverging: {} });
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: false },
    );
  }, 60_000);
});
