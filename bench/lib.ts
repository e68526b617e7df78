// Workloads, mocks and timing helpers shared by bench/run.ts and bench/profile.ts.
// Marker characters are never written literally here: they come from test/golden/notation.ts.
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createRepairEngine } from "../src/engine/engine.ts";
import { pullStage } from "../src/sse/pull-stage.ts";
import type { EngineOptions } from "../src/engine/types.ts";
import { fixtureTools } from "../test/golden/tools.ts";
import { seeded } from "../test/support/run-engine.ts";

export type Part = LanguageModelV3StreamPart;

export const QUICK = process.argv.includes("--quick");
export const REPS = QUICK ? 5 : 9;
export const WARMUP = QUICK ? 1 : 3;
export const MB = 1 << 20;
export const CHUNK = 10;

// ------------------------------------------------------------------ workloads

/** Deterministic PRNG (shared with the tests) so every run measures the same bytes. */
export const rng = seeded;

export const WORDS = (
  "the model reads a file and then explains what changed in the function before it runs the tests again " +
  "because configuration values are loaded once at startup we cache them per session and invalidate the cache " +
  "when the user edits settings this keeps latency low while staying correct under concurrent requests " +
  "next I will update the parser so that it handles trailing commas quotes and escaped newlines without " +
  "allocating a new buffer for every token which should cut memory use roughly in half on large inputs"
).split(" ");

/** English-like prose with paragraphs; contains no `<`, no bar of any kind, no backtick. */
export function prose(size: number, seed = 1): string {
  const r = rng(seed);
  const out: string[] = [];
  let n = 0;
  while (n < size) {
    const words = 8 + Math.floor(r() * 18);
    let s = "";
    for (let w = 0; w < words; w++) {
      const word = WORDS[Math.floor(r() * WORDS.length)]!;
      s += w === 0 ? word[0]!.toUpperCase() + word.slice(1) : (r() < 0.08 ? ", " : " ") + word;
    }
    s += r() < 0.85 ? ". " : "? ";
    if (r() < 0.15) s += "\n\n";
    out.push(s);
    n += s.length;
  }
  return out.join("").slice(0, size);
}

/**
 * Unfenced TypeScript/JSX-ish lines (worst case: inside a fence the engine never even looks at `<`),
 * about one `<` every 30 characters, `||`/`&&`, generics, comparisons and closing tags. No line
 * starts with a costume tag name, and indentation stays below an indented-code-block trigger.
 */
export const CODE_LINES = [
  "if (i < items.length && items[i] !== undefined) {",
  "  const cache = new Map<string, number[]>();",
  "  for (let j = 0; j < n; j++) total += w[j] < 0 ? 0 : w[j];",
  "  return a.priority < b.priority ? -1 : 1;",
  "export function pick<T>(xs: readonly T[], k: number): T[] {",
  '  <div className="row"><span>{label}</span></div>',
  "  while (lo < hi) { const mid = (lo + hi) >> 1; hi = mid; }",
  "type Handler = (e: Event) => Promise<void>;",
  "  const ok = retries < MAX_RETRIES || force;",
  "  <li key={item.id}>{item.name}</li>",
  '  if (x <= 0 || y < 0) throw new RangeError("out of bounds");',
  "let rows: Array<Record<string, unknown>> = [];",
  "  const diff = Math.abs(a - b) < EPSILON;",
  "} else if (count < limit) {",
  "  <Row<Item> items={rows} />",
  "const sorted = [...list].sort((p, q) => p.at < q.at ? -1 : 1);",
  '  <input type="text" value={query} onChange={update} />',
];

export function code(size: number, seed = 2): string {
  const r = rng(seed);
  const out: string[] = [];
  let n = 0;
  while (n < size) {
    const line = CODE_LINES[Math.floor(r() * CODE_LINES.length)]! + "\n";
    out.push(line);
    n += line.length;
  }
  return out.join("").slice(0, size);
}

export function chunks(text: string, size = CHUNK): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export const count = (text: string, ch: string) => text.split(ch).length - 1;

// ------------------------------------------------------------------ runtime

/**
 * The same bench runs under Bun (`npm run bench`), under the Bun inside the pinned opencode binary
 * (`npm run bench:opencode`, BUN_BE_BUN=1: the runtime OpenCode loads plugins into), and under Node
 * (`npm run bench:node`, a bundle built by Bun).
 */
export const RUNTIME = process.versions.bun
  ? `Bun ${process.versions.bun}${process.env.BUN_BE_BUN ? " (inside the opencode binary)" : ""}`
  : `Node ${process.versions.node}`;

/** Seconds, monotonic, in both runtimes. */
export const now = (): number => performance.now() / 1000;

/** A full collection: Bun.gc under Bun, the --expose-gc hook under Node. */
export function fullGc(): void {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun) bun.gc(true);
  else (globalThis as { gc?: () => void }).gc?.();
}

// ------------------------------------------------------------------ timing

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Runs each case WARMUP times, then REPS rounds with the cases interleaved (order alternating) so
 * drift hits every case alike. Seconds per run, one entry per round.
 *
 * One full GC before the timed rounds, none between runs: a forced full GC before every run
 * shrinks the heap, and regrowing it adds a roughly constant cost to each run (about 30 ms per
 * 1 MB stream here) that inflates the denominator and makes ratios look better than they are.
 */
export async function measure(cases: Record<string, () => unknown>, reps = REPS, warmup = WARMUP): Promise<Record<string, number[]>> {
  const names = Object.keys(cases);
  for (let w = 0; w < warmup; w++) for (const name of names) await cases[name]!();
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  fullGc();
  for (let r = 0; r < reps; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const t0 = now();
      await cases[name]!();
      times[name]!.push(now() - t0);
    }
  }
  return times;
}

/** Median of the per-round ratios: each round's two runs sat next to each other in time. */
export function pairedRatio(a: number[], b: number[]): number {
  return median(a.map((t, i) => t / b[i]!));
}

/**
 * The first and third quartiles of the per-round ratios a / b, as text with two decimals;
 * interpolated between ranks, so that three rounds do not show the median as a quartile.
 */
export function pairedQuartiles(a: number[], b: number[]): [low: string, high: string] {
  const perRound = a.map((t, i) => t / b[i]!).sort((x, y) => x - y);
  const at = (q: number) => {
    const rank = q * (perRound.length - 1);
    const below = perRound[Math.floor(rank)]!;
    return (below + (perRound[Math.ceil(rank)]! - below) * (rank - Math.floor(rank))).toFixed(2);
  };
  return [at(0.25), at(0.75)];
}

/** Median of the per-round differences, in seconds. */
export function pairedDiff(a: number[], b: number[]): number {
  return median(a.map((t, i) => t - b[i]!));
}

// ------------------------------------------------------------------ 1 + 2: middleware vs identity

export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

export function toolOf(name: string): LanguageModelV3FunctionTool {
  const spec = fixtureTools.find((t) => t.name === name)!;
  return { type: "function", name, description: `${name} tool`, inputSchema: spec.parameters as LanguageModelV3FunctionTool["inputSchema"] };
}

export const callParams: LanguageModelV3CallOptions = {
  prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  tools: [toolOf("bash"), toolOf("read")],
};

export function partsFor(text: string): Part[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t0" },
    ...chunks(text).map((delta): Part => ({ type: "text-delta", id: "t0", delta })),
    { type: "text-end", id: "t0" },
    { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
  ];
}

/** Pull-based, one part per pull, like a provider stream (and like ai/test's convertArrayToReadableStream). */
export function sourceStream<T>(items: readonly T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (i < items.length) controller.enqueue(items[i++]!);
      else controller.close();
    },
  });
}

export function mockModel(parts: Part[]): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "bench",
    modelId: "bench",
    supportedUrls: {},
    doGenerate: async () => {
      throw new Error("not used");
    },
    doStream: async () => ({ stream: sourceStream(parts) }),
  };
}

/** What a do-nothing middleware costs: one TransformStream stage that forwards every part. */
export const identityMiddleware: LanguageModelV3Middleware = {
  specificationVersion: "v3",
  wrapStream: async ({ doStream }) => {
    const result = await doStream();
    return { ...result, stream: result.stream.pipeThrough(new TransformStream<Part, Part>({ transform: (p, c) => c.enqueue(p) })) };
  },
};

export interface Drained {
  text: string;
  calls: number;
  parts: number;
}

export async function drain(stream: ReadableStream<Part>, keepText: boolean): Promise<Drained> {
  const reader = stream.getReader();
  const pieces: string[] = [];
  let calls = 0;
  let parts = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts++;
    if (value.type === "text-delta") {
      if (keepText) pieces.push(value.delta);
    } else if (value.type === "tool-call") calls++;
  }
  return { text: pieces.join(""), calls, parts };
}

export async function throughMiddleware(mw: LanguageModelV3Middleware, parts: Part[], keepText = false): Promise<Drained> {
  const model = mockModel(parts);
  let params = callParams;
  if (mw.transformParams) params = await mw.transformParams({ params, type: "stream", model });
  const result = await mw.wrapStream!({ doStream: () => model.doStream(params), doGenerate: () => model.doGenerate(params), params, model });
  return drain(result.stream, keepText);
}

// ------------------------------------------------------------------ 3: fetch adapter vs untouched SSE

export const encoder = new TextEncoder();

/** One Uint8Array per SSE event, as a server flushing every token would send them. */
export function sseEvents(text: string): Uint8Array[] {
  const envelope = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1735689600, model: "deepseek-chat", system_fingerprint: "fp_bench" };
  const event = (delta: object, finish: string | null, extra: object = {}) =>
    encoder.encode(`data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`);
  const out = [event({ role: "assistant", content: "" }, null)];
  for (const piece of chunks(text)) out.push(event({ content: piece }, null));
  out.push(event({ content: "" }, "stop", { usage: { prompt_tokens: 10, completion_tokens: 250000, total_tokens: 250010 } }));
  out.push(encoder.encode("data: [DONE]\n\n"));
  return out;
}

/** The same bytes cut at fixed sizes regardless of event boundaries, as network reads arrive. */
export function rechunk(parts: Uint8Array[], size: number): Uint8Array[] {
  const all = Buffer.concat(parts);
  const out: Uint8Array[] = [];
  for (let i = 0; i < all.length; i += size) out.push(new Uint8Array(all.subarray(i, i + size)));
  return out;
}

export const openAiTools = [toolOf("bash"), toolOf("read")].map((t) => ({
  type: "function",
  function: { name: t.name, description: t.description, parameters: t.inputSchema },
}));
export const requestInit: RequestInit = {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools }),
};
export const URL_ = "http://x/v1/chat/completions";

export async function drainBytes(response: Response, keep: boolean): Promise<{ bytes: number; body: string }> {
  const reader = response.body!.getReader();
  const kept: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (keep) kept.push(value);
  }
  return { bytes, body: keep ? new TextDecoder().decode(Buffer.concat(kept)) : "" };
}

/** What a client sees: concatenated content and the number of tool_calls entries. */
export function sseContent(body: string): { content: string; toolCalls: number } {
  let content = "";
  let toolCalls = 0;
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta;
    if (typeof delta?.content === "string") content += delta.content;
    if (Array.isArray(delta?.tool_calls)) toolCalls += delta.tool_calls.length;
  }
  return { content, toolCalls };
}

// ------------------------------------------------------------------ 4-6: engine directly

export function runEngine(pieces: readonly string[], options: Partial<EngineOptions> = {}) {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "bench_", ...options });
  const text: string[] = [];
  const calls: { tool: string; input: Record<string, unknown> }[] = [];
  let maxHeld = 0;
  const take = (events: ReturnType<typeof engine.feed>) => {
    for (const e of events) {
      if (e.type === "text") text.push(e.text);
      else calls.push({ tool: e.call.tool, input: e.call.input as Record<string, unknown> });
    }
  };
  for (const piece of pieces) {
    take(engine.feed(piece));
    if (engine.held > maxHeld) maxHeld = engine.held;
  }
  take(engine.flush());
  return { text: text.join(""), calls, maxHeld, summary: engine.summary() };
}


// ------------------------------------------------------------------ 3: fetch under the AI SDK provider

/** A base fetch whose SSE body is these chunks, pulled one per read, as a network body is. */
export function fetchOf(body: readonly Uint8Array[]): typeof fetch {
  return (async () => new Response(sourceStream(body), { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch;
}

/** The base fetch with its response body passed through `wrap`: the same headers, another stream. */
function bodyThrough(base: typeof fetch, wrap: (body: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await base(input, init);
    return new Response(wrap(response.body!), { headers: response.headers });
  }) as unknown as typeof fetch;
}

/** The same base fetch with an identity byte TransformStream on the body: the floor for any stream-rewriting wrapper. */
export function stagedFetch(base: typeof fetch): typeof fetch {
  return bodyThrough(base, (body) => body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => ctl.enqueue(c) })));
}

/** The same base fetch through repairFetch's own stream hop (pullStage) doing no work: the hop's share of what repairFetch adds. */
export function hoppedFetch(base: typeof fetch): typeof fetch {
  return bodyThrough(base, (body) => pullStage<Uint8Array, Uint8Array>(body, (emit) => ({ each: emit, end() {} })));
}

/** What a user of the AI SDK runs: the openai-compatible provider's chat model over the given fetch. */
export function providerModel(fetchImpl: typeof fetch): LanguageModelV3 {
  return createOpenAICompatible({ name: "bench", baseURL: "http://x/v1", apiKey: "k", fetch: fetchImpl }).chatModel("deepseek-chat");
}

export async function throughProvider(model: LanguageModelV3, keepText = false): Promise<Drained> {
  const { stream } = await model.doStream({ prompt: callParams.prompt, tools: callParams.tools });
  return drain(stream, keepText);
}
