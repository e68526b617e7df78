/**
 * Review 49 (differential, every entry): the same model output through every entry that repairs it
 * must give the same calls (names, arguments), visible text and nudge; the history sanitizer must
 * remove exactly what the live path recovers or refuses. Passes on main: kept as a bounded guard
 * (hard negative; seeded fast-check, numRuns <= 200). The disagreements the review found are pinned
 * in review-49-diff-findings.test.ts.
 *
 * Entries: parse(), the engine whole / char by char / at seeded random splits, repairFetch on chat
 * completions, Anthropic Messages and Responses (SSE cut at random byte offsets, and JSON), the AI SDK
 * middleware (doStream, doGenerate), the HTTP proxy (chat SSE, Anthropic JSON, Responses SSE), each
 * also with a reasoning channel before the text (and chat reasoning_content between content deltas); history: redactLeaks, and the replayed assistant
 * turn as repairFetch (chat, Anthropic, Responses), the middleware's transformParams and the proxy
 * send it upstream.
 * Inputs: the golden fixtures (test/golden/fixtures.json) under mutations: CRLF, trailing spaces, a
 * prefix sentence (own paragraph and same line), a trailing sentence, a second DSML call after or
 * before, blank lines before; and pairs of fixtures a blank line apart.
 */
import { describe, expect, test } from "bun:test";
import type { ServerResponse } from "node:http";
import fc from "fast-check";
import { parse } from "../../src/engine/parse.ts";
import { REMOVED_NOTE, redactLeaks } from "../../src/history/sanitize.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import type { Fixture } from "../golden/build-fixtures.ts";
import { D } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import {
  anthropicBody,
  anthropicEngineRun,
  middlewareEngineRun,
  anthropicJson,
  anthropicSse,
  anthropicStream,
  chatBody,
  chatJson,
  chatSse,
  chatStream,
  engineRun,
  frames,
  middlewareGenerate,
  middlewareStream,
  readResponses,
  responsesBody,
  responsesJson,
  responsesSse,
  responsesStream,
  show,
  type Outcome,
  type Scenario,
} from "../property/diff-harness.ts";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";
import { everyChar, randomCuts } from "../support/run-engine.ts";
import { historyChatBody, replayedInProcess } from "./review-49-diff-support.ts";

const SEED = Number(process.env.DIFF_SEED ?? 20261207);

const stored = (await Bun.file(new URL("../golden/fixtures.json", import.meta.url)).json()) as Fixture[];
const toolsFor = (f: Fixture) => (f.tools ? fixtureTools.filter((t) => f.tools!.includes(t.name)) : fixtureTools);
// S06 declares no tools (the adapters pass it through on purpose, no nudge); fixtures with a
// native call, given content, options or a buffer limit speak of a request the mutations would change.
const pool = stored.filter((f) => !f.options && !f.reservedNames && f.bufferLimit === undefined && !f.given && !f.nativeToolCalls && f.id !== "S06");

const SECOND = `<${D}tool_calls>\n<${D}invoke name="bash">\n<${D}parameter name="command" string="true">echo two</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`;
const mutations: Record<string, (s: string) => string> = {
  none: (s) => s,
  crlf: (s) => s.replaceAll("\n", "\r\n"),
  trailSpaces: (s) => s.replaceAll("\n", " \n"),
  prefix: (s) => `I'll check that first.\n\n${s}`,
  prefixInline: (s) => `Sure: ${s}`,
  trailing: (s) => `${s}\n\nThat should do it.`,
  second: (s) => `${s}\n\n${SECOND}`,
  secondBefore: (s) => `${SECOND}\n\n${s}`,
  leadBlank: (s) => `\n\n${s}`,
};

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("", (both) => ({ upstream, proxy } = both));

const trim = (o: Outcome): Outcome => ({ calls: o.calls, text: o.text, nudge: o.nudge });
const noNudge = (o: Outcome): Outcome => ({ ...o, nudge: null });

async function attempt(run: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return trim(await run());
  } catch (error) {
    return { calls: [], text: `THREW: ${(error as Error).message}`, nudge: null };
  }
}

/** The chat stream as a client reads it (text, calls), strictly: [DONE] last. */
function readChat(raw: string): Outcome {
  let text = "";
  const slots = new Map<number, { name: string; args: string }>();
  for (const f of frames(raw)) {
    if (f.data === "[DONE]") continue;
    const delta = JSON.parse(f.data).choices?.[0]?.delta ?? {};
    if (typeof delta.content === "string") text += delta.content;
    for (const c of delta.tool_calls ?? []) {
      const slot = slots.get(c.index) ?? { name: "", args: "" };
      slot.name += c.function?.name ?? "";
      slot.args += c.function?.arguments ?? "";
      slots.set(c.index, slot);
    }
  }
  return { text, calls: [...slots.values()].map((c) => ({ tool: c.name, input: JSON.parse(c.args) })), nudge: null };
}

const sse = (body: string) => (_req: unknown, res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" }).end(body);
const json = (body: unknown) => (_req: unknown, res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));

async function throughProxy(path: string, body: unknown): Promise<string> {
  const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  return res.text();
}

/** The proxy's three wires (its nudge goes into a later request's correction, not the reply: compared without it). */
async function proxyPaths(s: Scenario, size: number): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  out.proxyChatSse = await attempt(async () => {
    upstream.answer(sse(chatSse(s, size)));
    return readChat(await throughProxy("/v1/chat/completions", chatBody(s, true)));
  });
  out.proxyAnthropicJson = await attempt(async () => {
    const content = [...(s.reasoning ? [{ type: "thinking", thinking: s.reasoning, signature: "sig" }] : []), { type: "text", text: s.text }];
    upstream.answer(json({ id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }));
    const body = JSON.parse(await throughProxy("/v1/messages", anthropicBody(s, false)));
    return {
      text: body.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join(""),
      calls: body.content.filter((b: any) => b.type === "tool_use").map((b: any) => ({ tool: b.name, input: b.input })),
      nudge: null,
    };
  });
  out.proxyResponsesSse = await attempt(async () => {
    upstream.answer(sse(responsesSse(s, [[s.text]], size)));
    const read = readResponses(await throughProxy("/v1/responses", responsesBody(s, true)));
    return { text: read.text, calls: read.calls, nudge: null };
  });
  return out;
}

/** Every entry, against the engine fed the whole text (the reference); the diverging ones. */
async function diverging(s: Scenario, seed: number, withProxy: boolean): Promise<Record<string, string>> {
  const whole = engineRun(s, []);
  const paths: Record<string, Outcome> = {};
  const p = parse(s.text, s.tools ?? fixtureTools);
  paths.parse = { calls: p.calls.map((c) => ({ tool: c.tool, input: c.input })), text: p.text, nudge: p.nudge };
  paths.engineChar = engineRun(s, everyChar(s.text.length));
  paths.engineSplit = engineRun(s, randomCuts(s.text.length, seed, 9));
  paths.chatSse = await attempt(() => chatStream(s, seed));
  paths.chatJson = await attempt(() => chatJson(s));
  paths.anthropicSse = await attempt(() => anthropicStream(s, seed));
  paths.anthropicJson = await attempt(() => anthropicJson(s));
  paths.responsesSse = await attempt(() => responsesStream(s, seed));
  paths.responsesJson = await attempt(() => responsesJson(s));
  paths.middlewareStream = await attempt(() => middlewareStream(s, 1 + (seed % 7)));
  paths.middlewareGenerate = await attempt(() => middlewareGenerate(s));
  const r: Scenario = { ...s, reasoning: "Let me think.\nThe user wants a listing.\n" };
  paths.chatSseReasoning = await attempt(() => chatStream(r, seed));
  paths.chatSseReasoningBetween = await attempt(() => chatStream(s, seed, true));
  paths.anthropicSseReasoning = await attempt(() => anthropicStream(r, seed));
  paths.responsesSseReasoning = await attempt(() => responsesStream(r, seed));
  paths.middlewareStreamReasoning = await attempt(() => middlewareStream(r, 1 + (seed % 5)));
  // Anthropic: whitespace alone beside a call in a text block is not sent (review 57 A1).
  const anthropic = anthropicEngineRun(s);
  // The middleware: whitespace alone beside a call in its text part is not sent (fix 57 diff B).
  const middleware = middlewareEngineRun(s);
  const out: Record<string, string> = {};
  for (const [k, o] of Object.entries(paths)) if (show(o) !== show(k.startsWith("anthropic") ? anthropic : k.startsWith("middleware") ? middleware : whole)) out[k] = show(o);
  if (withProxy) {
    for (const [k, o] of Object.entries(await proxyPaths(seed % 2 ? r : s, 1 + (seed % 9)))) if (show(o) !== show(noNudge(k.startsWith("proxyAnthropic") ? anthropic : whole))) out[k] = show(o);
  }
  return out;
}

describe("review 49: every entry agrees on mutated golden fixtures (hard negative guard)", () => {
  test("seeded sample of (fixture, mutation): parse, engine splits, fetch on three wires (SSE and JSON), middleware, proxy, a reasoning channel first", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pool), fc.constantFrom(...Object.keys(mutations)), fc.nat(), async (f, m, seed) => {
        const s: Scenario = { text: mutations[m]!(f.input), tools: toolsFor(f) };
        const got = await diverging(s, seed, seed % 3 === 0);
        expect({ fixture: f.id, mutation: m, diverging: got }).toEqual({ fixture: f.id, mutation: m, diverging: {} });
      }),
      { seed: SEED, numRuns: 100, endOnFailure: true },
    );
  }, 60_000);

  test("seeded sample of fixture pairs a blank line apart: every entry agrees", async () => {
    const plain = pool.filter((f) => !f.tools);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...plain), fc.constantFrom(...plain), fc.nat(), async (a, b, seed) => {
        const s: Scenario = { text: `${a.input}\n\n${b.input}`, tools: fixtureTools };
        const got = await diverging(s, seed, false);
        expect({ pair: `${a.id}+${b.id}`, diverging: got }).toEqual({ pair: `${a.id}+${b.id}`, diverging: {} });
      }),
      { seed: SEED + 1, numRuns: 60, endOnFailure: true },
    );
  }, 60_000);
});

// ------------------------------------------------------------------------------------------------ history

/** The replayed assistant text as each history entry sends it upstream, the proxy's chat route with them. */
async function replayed(text: string, tools: readonly ToolSpec[], withProxy = false): Promise<Record<string, string>> {
  const out = await replayedInProcess(text, tools);
  if (withProxy) {
    upstream.answer(json({ id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] }));
    const before = upstream.seen.length;
    const answer = await throughProxy("/v1/chat/completions", historyChatBody(text, tools));
    const seen = upstream.seen[before];
    // The proxy may add a correction turn (its correction is on): the replayed assistant turn by role.
    out.proxyChat = seen ? JSON.parse(seen.body).messages.find((x: { role: string }) => x.role === "assistant").content : `NOT FORWARDED: ${answer.slice(0, 200)}`;
  }
  return out;
}

describe("review 49: history (hard negative guard)", () => {
  test("every history entry sends the same replayed text (redactLeaks, fetch on three wires, middleware, proxy)", async () => {
    let changed = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pool), fc.constantFrom(...Object.keys(mutations)), fc.nat(), async (f, m, seed) => {
        const text = mutations[m]!(f.input);
        const all = await replayed(text, toolsFor(f), seed % 4 === 0);
        if (all.redactLeaks !== text) changed++;
        const differ = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== all.redactLeaks));
        expect({ fixture: f.id, mutation: m, differ }).toEqual({ fixture: f.id, mutation: m, differ: {} });
      }),
      { seed: SEED + 2, numRuns: 120, endOnFailure: true },
    );
    expect(changed).toBeGreaterThan(30);
  }, 60_000);

  test("what the live path recovers or refuses is noted in history, and nothing left there would act live", async () => {
    await fc.assert(
      fc.property(fc.constantFrom(...pool), fc.constantFrom(...Object.keys(mutations)), (f, m) => {
        const text = mutations[m]!(f.input);
        const tools = toolsFor(f);
        const live = parse(text, tools);
        if (live.calls.length === 0 && live.nudge === null) return;
        const h = redactLeaks(text, {}, tools);
        const again = parse(h.text, tools);
        expect({ fixture: f.id, mutation: m, noted: h.text.includes(REMOVED_NOTE), again: again.calls.length + again.broken.length }).toEqual({ fixture: f.id, mutation: m, noted: true, again: 0 });
      }),
      { seed: SEED + 3, numRuns: 200 },
    );
  });
});
