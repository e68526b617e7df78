// Benchmark report: `bun bench/run.ts` (or `npm run bench`). Prints one Markdown table plus a
// summary line; always exits 0 (it is a report, a missed target prints FAIL).
//
// Marker characters are never written literally here: they come from test/golden/notation.ts.
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { hermesToolMiddleware } from "@ai-sdk-tool/parser";
import { repairFetch } from "../src/adapters/fetch.ts";
import { repairMiddleware } from "../src/adapters/middleware.ts";
import { createRepairEngine } from "../src/stream/engine.ts";
import type { EngineOptions } from "../src/stream/types.ts";
import { D, block, live } from "../test/golden/notation.ts";
import { fixtureTools } from "../test/golden/tools.ts";

type Part = LanguageModelV3StreamPart;

const QUICK = process.argv.includes("--quick");
const REPS = QUICK ? 3 : 7;
const WARMUP = QUICK ? 1 : 2;
const MB = 1 << 20;
const CHUNK = 10;
const started = Bun.nanoseconds();

// ------------------------------------------------------------------ workloads

/** Deterministic PRNG so every run measures the same bytes. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the model reads a file and then explains what changed in the function before it runs the tests again " +
  "because configuration values are loaded once at startup we cache them per session and invalidate the cache " +
  "when the user edits settings this keeps latency low while staying correct under concurrent requests " +
  "next I will update the parser so that it handles trailing commas quotes and escaped newlines without " +
  "allocating a new buffer for every token which should cut memory use roughly in half on large inputs"
).split(" ");

/** English-like prose with paragraphs; contains no `<`, no bar of any kind, no backtick. */
function prose(size: number, seed = 1): string {
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
const CODE_LINES = [
  "if (i < items.length && items[i] !== undefined) {",
  "  const cache = new Map<string, number[]>();",
  "  for (let j = 0; j < n; j++) total += weights[j];",
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
  "}",
  "const sorted = [...list].sort((p, q) => p.at < q.at ? -1 : 1);",
  '  <input type="text" value={query} onChange={update} />',
];

function code(size: number, seed = 2): string {
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

function chunks(text: string, size = CHUNK): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const count = (text: string, ch: string) => text.split(ch).length - 1;

// ------------------------------------------------------------------ timing

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Runs each case WARMUP times, then REPS rounds with the cases interleaved (and their order
 * rotated) so background load hits both sides alike. Returns the median seconds per case.
 */
async function measure(cases: Record<string, () => unknown>, reps = REPS, warmup = WARMUP): Promise<Record<string, number>> {
  const names = Object.keys(cases);
  for (let w = 0; w < warmup; w++) for (const name of names) await cases[name]!();
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < reps; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      Bun.gc(true);
      const t0 = Bun.nanoseconds();
      await cases[name]!();
      times[name]!.push((Bun.nanoseconds() - t0) / 1e9);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n]!)]));
}

// ------------------------------------------------------------------ 1 + 2: middleware vs identity

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function toolOf(name: string): LanguageModelV3FunctionTool {
  const spec = fixtureTools.find((t) => t.name === name)!;
  return { type: "function", name, description: `${name} tool`, inputSchema: spec.parameters as LanguageModelV3FunctionTool["inputSchema"] };
}

const callParams: LanguageModelV3CallOptions = {
  prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  tools: [toolOf("bash"), toolOf("read")],
};

function partsFor(text: string): Part[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t0" },
    ...chunks(text).map((delta): Part => ({ type: "text-delta", id: "t0", delta })),
    { type: "text-end", id: "t0" },
    { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
  ];
}

/** Pull-based, one part per pull, like a provider stream (and like ai/test's convertArrayToReadableStream). */
function sourceStream<T>(items: readonly T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (i < items.length) controller.enqueue(items[i++]!);
      else controller.close();
    },
  });
}

function mockModel(parts: Part[]): LanguageModelV3 {
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
const identityMiddleware: LanguageModelV3Middleware = {
  specificationVersion: "v3",
  wrapStream: async ({ doStream }) => {
    const result = await doStream();
    return { ...result, stream: result.stream.pipeThrough(new TransformStream<Part, Part>({ transform: (p, c) => c.enqueue(p) })) };
  },
};

interface Drained {
  text: string;
  calls: number;
  parts: number;
}

async function drain(stream: ReadableStream<Part>, keepText: boolean): Promise<Drained> {
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

async function throughMiddleware(mw: LanguageModelV3Middleware, parts: Part[], keepText = false): Promise<Drained> {
  const model = mockModel(parts);
  let params = callParams;
  if (mw.transformParams) params = await mw.transformParams({ params, type: "stream", model });
  const result = await mw.wrapStream!({ doStream: () => model.doStream(params), doGenerate: () => model.doGenerate(params), params, model });
  return drain(result.stream, keepText);
}

// ------------------------------------------------------------------ 3: fetch adapter vs untouched SSE

const encoder = new TextEncoder();

/** One Uint8Array per SSE event, as a server flushing every token would send them. */
function sseEvents(text: string): Uint8Array[] {
  const envelope = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1735689600, model: "deepseek-chat", system_fingerprint: "fp_bench" };
  const event = (delta: object, finish: string | null, extra: object = {}) =>
    encoder.encode(`data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`);
  const out = [event({ role: "assistant", content: "" }, null)];
  for (const piece of chunks(text)) out.push(event({ content: piece }, null));
  out.push(event({ content: "" }, "stop", { usage: { prompt_tokens: 10, completion_tokens: 250000, total_tokens: 250010 } }));
  out.push(encoder.encode("data: [DONE]\n\n"));
  return out;
}

const openAiTools = [toolOf("bash"), toolOf("read")].map((t) => ({
  type: "function",
  function: { name: t.name, description: t.description, parameters: t.inputSchema },
}));
const requestInit: RequestInit = {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools }),
};
const URL_ = "http://x/v1/chat/completions";

async function drainBytes(response: Response, keep: boolean): Promise<{ bytes: number; body: string }> {
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
function sseContent(body: string): { content: string; toolCalls: number } {
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

function runEngine(pieces: readonly string[], options: Partial<EngineOptions> = {}) {
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

// ------------------------------------------------------------------ report

interface Row {
  row: string;
  workload: string;
  ours: string;
  reference: string;
  result: string;
  target: string;
  verdict: "PASS" | "FAIL" | "info";
}
const rows: Row[] = [];
const ms = (s: number) => `${(s * 1000).toFixed(1)} ms`;
const x = (r: number) => `${r.toFixed(2)}x`;
const verdict = (ok: boolean): "PASS" | "FAIL" => (ok ? "PASS" : "FAIL");
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const PROSE = prose(MB);
const CODE = code(MB);
for (const ch of ["<", "|", String.fromCodePoint(0xff5c), String.fromCodePoint(0x2016), "`"]) {
  if (PROSE.includes(ch)) throw new Error(`prose workload contains U+${ch.codePointAt(0)!.toString(16)}`);
}
const ltEvery = CODE.length / count(CODE, "<");

// 1 + 2 ------------------------------------------------------------------
const ours = repairMiddleware();
for (const [label, text] of [
  ["1 MB prose", PROSE],
  [`1 MB code (< every ${ltEvery.toFixed(0)} chars)`, CODE],
] as const) {
  progress(`middleware: ${label}`);
  const parts = partsFor(text);
  // Correctness first, outside the timed runs.
  for (const [name, mw] of [["dsml-fix", ours], ["hermes", hermesToolMiddleware], ["identity", identityMiddleware]] as const) {
    const got = await throughMiddleware(mw, parts, true);
    if (got.text !== text || got.calls !== 0) throw new Error(`${name} changed the ${label} stream (calls=${got.calls})`);
  }
  const t = await measure({
    identity: () => throughMiddleware(identityMiddleware, parts),
    ours: () => throughMiddleware(ours, parts),
    hermes: () => throughMiddleware(hermesToolMiddleware, parts),
  });
  const ratio = t.ours! / t.identity!;
  rows.push({
    row: "1",
    workload: `middleware, ${label}, ${parts.length - 4} text-deltas`,
    ours: ms(t.ours!),
    reference: `identity ${ms(t.identity!)}`,
    result: x(ratio),
    target: "<= 1.3x",
    verdict: verdict(ratio <= 1.3),
  });
  rows.push({
    row: "2",
    workload: `Hermes middleware (@ai-sdk-tool/parser), ${label}`,
    ours: ms(t.hermes!),
    reference: `identity ${ms(t.identity!)}`,
    result: x(t.hermes! / t.identity!),
    target: "reference",
    verdict: "info",
  });
}

// 3 ----------------------------------------------------------------------
{
  progress("fetch adapter: 1 MB prose as SSE");
  const events = sseEvents(PROSE);
  const sseBytes = events.reduce((n, e) => n + e.byteLength, 0);
  const baseFetch = (async () => new Response(sourceStream(events), { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch;
  const repaired = repairFetch({}, baseFetch);
  const check = sseContent((await drainBytes(await repaired(URL_, requestInit), true)).body);
  if (check.content !== PROSE || check.toolCalls !== 0) throw new Error("fetch adapter changed the prose stream");
  const t = await measure({
    untouched: async () => drainBytes(await baseFetch(URL_, requestInit), false),
    ours: async () => drainBytes(await repaired(URL_, requestInit), false),
  });
  const ratio = t.ours! / t.untouched!;
  rows.push({
    row: "3",
    workload: `fetch adapter, 1 MB prose as ${events.length} SSE events (${(sseBytes / MB).toFixed(1)} MB), one chunk per event`,
    ours: ms(t.ours!),
    reference: `untouched ${ms(t.untouched!)}`,
    result: x(ratio),
    target: "<= 1.5x",
    verdict: verdict(ratio <= 1.5),
  });
}

// 4 ----------------------------------------------------------------------
{
  progress("held characters");
  const p = runEngine(chunks(PROSE));
  if (p.text !== PROSE || p.calls.length > 0) throw new Error("engine changed prose");
  rows.push({
    row: "4",
    workload: "engine.held on 1 MB prose (no `<`, no bars), 10-char feeds",
    ours: `max ${p.maxHeld} chars`,
    reference: "",
    result: `${p.maxHeld}`,
    target: "0",
    verdict: verdict(p.maxHeld === 0),
  });
  const c = runEngine(chunks(CODE));
  if (c.text !== CODE || c.calls.length > 0) throw new Error("engine changed code");
  rows.push({
    row: "4b",
    workload: "engine.held on 1 MB code, 10-char feeds",
    ours: `max ${c.maxHeld} chars`,
    reference: "",
    result: `${c.maxHeld}`,
    target: "one undecided tag",
    verdict: "info",
  });
}

// 5 ----------------------------------------------------------------------
{
  progress("1 MB leaked argument");
  const content = code(MB, 5).trimEnd();
  // block() writes parameter values verbatim: the value here is live code with `<`, `||`, quotes.
  const leak = live(block("tool_calls", [["write", [["filePath", "/tmp/big.ts"], ["content", content]]]]));
  const pieces = chunks(leak);
  const big = runEngine(pieces, { bufferLimit: 2_000_000 });
  const arg = big.calls[0]?.input.content;
  const oneCall = big.calls.length === 1 && big.calls[0]!.tool === "write" && arg === content && big.text.trim() === "";
  const small = runEngine(pieces);
  const released = small.calls.length === 0 && small.text === leak;
  const t = await measure(
    {
      big: () => runEngine(pieces, { bufferLimit: 2_000_000 }),
      small: () => runEngine(pieces),
    },
    QUICK ? 3 : 5,
    1,
  );
  rows.push({
    row: "5",
    workload: `one leaked write call, content ${(content.length / MB).toFixed(2)} MB, bufferLimit 2_000_000`,
    ours: ms(t.big!),
    reference: `calls=${big.calls.length}, content length ${typeof arg === "string" ? arg.length : "-"} of ${content.length}`,
    result: `${oneCall ? "1 call, full argument" : "WRONG"}, ${(t.big!).toFixed(3)} s`,
    target: "< 0.3 s, 1 call",
    verdict: verdict(oneCall && t.big! < 0.3),
  });
  rows.push({
    row: "5b",
    workload: "same leak, default bufferLimit 65536",
    ours: ms(t.small!),
    reference: `calls=${small.calls.length}, heldCandidateNoCall=${small.summary.heldCandidateNoCall}, max held ${small.maxHeld}`,
    result: released ? "released verbatim as text" : "NOT verbatim",
    target: "verbatim, no call",
    verdict: verdict(released && small.summary.heldCandidateNoCall >= 1),
  });
}

// 6 ----------------------------------------------------------------------
{
  progress("marker mentions in code");
  const mention = `// a leaked opener looks like <${D}invoke and nothing more follows it\n`;
  const withMentions = (size: number) => {
    const body = code(size, 6);
    let out = "";
    for (let i = 0; i < body.length; i += 10 * 1024) out += body.slice(i, i + 10 * 1024 - mention.length) + mention;
    return out;
  };
  const small = withMentions(100 * 1024);
  const large = withMentions(400 * 1024);
  const smallPieces = chunks(small);
  const largePieces = chunks(large);
  const r = runEngine(smallPieces);
  const rl = runEngine(largePieces);
  const intact = r.text === small && rl.text === large;
  const noCall = r.calls.length === 0 && rl.calls.length === 0;
  const t = await measure({ s: () => runEngine(smallPieces), l: () => runEngine(largePieces) }, QUICK ? 5 : 11, 3);
  const ratio = t.l! / t.s!;
  rows.push({
    row: "6",
    workload: `100 KB code, one opener mention per 10 KB (${count(small, D)} mentions), 10-char feeds`,
    ours: `${ms(t.s!)} (400 KB: ${ms(t.l!)})`,
    reference: `heldCandidateNoCall=${r.summary.heldCandidateNoCall}, max held ${r.maxHeld}`,
    result: `${intact ? "text intact" : "TEXT LOST"}, ${noCall ? "no call" : "CALL"}, 400/100 KB ${x(ratio)}`,
    target: "intact, no call, ~4x",
    verdict: verdict(intact && noCall && ratio >= 3 && ratio <= 5.5),
  });
}

// ------------------------------------------------------------------ print

const header = ["#", "workload", "measured", "baseline / detail", "result", "target", ""];
const lines = [
  `| ${header.join(" | ")} |`,
  `|${header.map(() => "---").join("|")}|`,
  ...rows.map((r) => `| ${[r.row, r.workload, r.ours, r.reference, r.result, r.target, r.verdict].join(" | ")} |`),
];
console.log(`Bun ${Bun.version}, ${process.platform}/${process.arch}; medians of ${REPS} runs after ${WARMUP} warm-up (rows 5-6: see bench/README.md).`);
console.log("");
console.log(lines.join("\n"));
console.log("");
const judged = rows.filter((r) => r.verdict !== "info");
const failed = judged.filter((r) => r.verdict === "FAIL");
const total = ((Bun.nanoseconds() - started) / 1e9).toFixed(1);
console.log(
  failed.length === 0
    ? `SUMMARY: all ${judged.length} targets PASS (rows ${judged.map((r) => r.row).join(", ")}); ${total} s`
    : `SUMMARY: FAIL ${failed.map((r) => `row ${r.row} (${r.result})`).join("; ")} | PASS rows ${judged.filter((r) => r.verdict === "PASS").map((r) => r.row).join(", ")}; ${total} s`,
);
