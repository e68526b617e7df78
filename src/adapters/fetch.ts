// Drop-in fetch for OpenAI chat-completions endpoints: leaked tool-call markup in `content`
// comes back as real `tool_calls`, so any OpenAI-compatible client sees a normal tool call.
import type { RecoveredCall, ToolSpec } from "../parse/types.ts";
import type { EngineEvent, EngineSummary, RepairEngine } from "../stream/types.ts";
import {
  type AdapterDeps,
  type AdapterOptions,
  type EngineFactory,
  GuardedEngine,
  REQUEST_TAG_HEADER,
  createAttemptCounter,
  debugLine,
  describeError,
  engineOptions,
  loadEngineFactory,
  mergeSummaries,
  repairEnabled,
  report,
} from "./options.ts";

type Json = Record<string, unknown>;

interface Plan {
  input: string | URL | Request;
  init: RequestInit | undefined;
  tag: string | undefined;
  attempt: number;
  /** Declared tools; undefined means the response is not ours to touch. */
  tools: ToolSpec[] | undefined;
}

interface ResponseContext {
  options: AdapterOptions;
  plan: Plan;
  engine: () => RepairEngine;
}

export function repairFetch(
  options: AdapterOptions = {},
  baseFetch: typeof fetch = globalThis.fetch,
  deps: AdapterDeps = {},
): typeof fetch {
  const nextAttempt = createAttemptCounter();
  const repaired = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let plan: Plan;
    try {
      plan = planRequest(input, init, options, nextAttempt);
    } catch (error) {
      debugLine(options, `request inspection failed, passing through: ${describeError(error)}`);
      return baseFetch(input, init);
    }
    const factory = plan.tools ? await loadEngineFactory(deps).catch(noFactory(options)) : undefined;
    const response = await baseFetch(plan.input, plan.init);
    if (!plan.tools || !factory) return response;
    try {
      return await repairResponse(response, { options, plan, engine: bindFactory(factory, options, plan.tools) });
    } catch (error) {
      debugLine(options, `response repair failed, passing through: ${describeError(error)}`);
      return response;
    }
  };
  return Object.assign(repaired, { preconnect: baseFetch.preconnect }) as typeof fetch;
}

function noFactory(options: AdapterOptions) {
  return (error: unknown): undefined => {
    debugLine(options, `engine unavailable, passing through: ${describeError(error)}`);
    return undefined;
  };
}

function bindFactory(factory: EngineFactory, options: AdapterOptions, tools: ToolSpec[]): () => RepairEngine {
  return () => factory(engineOptions(options, tools));
}

// ---------------------------------------------------------------- request

function planRequest(
  input: string | URL | Request,
  init: RequestInit | undefined,
  options: AdapterOptions,
  nextAttempt: (tag: string | undefined) => number,
): Plan {
  const stripped = stripTag(input, init);
  const plan: Plan = { ...stripped, attempt: 0, tools: undefined };
  if (!repairEnabled(options)) return plan;
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (method !== "POST" || !new URL(url, "http://localhost").pathname.endsWith("/chat/completions")) return plan;
  if (typeof init?.body !== "string") return plan;
  let body: unknown;
  try {
    body = JSON.parse(init.body);
  } catch {
    return plan;
  }
  const tools = declaredTools(body);
  if (tools.length === 0) return plan;
  // S06: with tool_choice "none" nothing may run; leaked markup still gets its nudge.
  const forbidden = (body as { tool_choice?: unknown }).tool_choice === "none";
  plan.tools = forbidden ? [] : tools;
  plan.attempt = nextAttempt(stripped.tag);
  return plan;
}

function stripTag(input: string | URL | Request, init: RequestInit | undefined) {
  if (init?.headers !== undefined) {
    const headers = new Headers(init.headers);
    const tag = headers.get(REQUEST_TAG_HEADER) ?? undefined;
    if (tag === undefined) return { input, init, tag };
    headers.delete(REQUEST_TAG_HEADER);
    return { input, init: { ...init, headers }, tag };
  }
  if (input instanceof Request && input.headers.has(REQUEST_TAG_HEADER)) {
    const tag = input.headers.get(REQUEST_TAG_HEADER) ?? undefined;
    const request = new Request(input);
    request.headers.delete(REQUEST_TAG_HEADER);
    return { input: request, init, tag };
  }
  return { input, init, tag: undefined };
}

function declaredTools(body: unknown): ToolSpec[] {
  if (!isObject(body) || !Array.isArray(body.tools)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of body.tools) {
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function)) continue;
    const { name, parameters } = tool.function;
    if (typeof name !== "string" || !name) continue;
    tools.push(isObject(parameters) ? { name, parameters } : { name });
  }
  return tools;
}

// ---------------------------------------------------------------- response

async function repairResponse(response: Response, ctx: ResponseContext): Promise<Response> {
  if (!response.ok || response.body === null) return response;
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream")) return repairStream(response, ctx);
  if (type.includes("json")) return repairJson(response, ctx);
  return response;
}

function rebuilt(response: Response, body: BodyInit): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

function onEngineError(ctx: ResponseContext) {
  return (line: string) => debugLine(ctx.options, `${ctx.plan.tag ?? "untagged"}: ${line}`);
}

function finishReport(ctx: ResponseContext, guard: GuardedEngine): void {
  const summary = guard.summary();
  if (summary) report(ctx.options, { requestTag: ctx.plan.tag, summary, attempt: ctx.plan.attempt });
}

async function repairJson(response: Response, ctx: ResponseContext): Promise<Response> {
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return response;
  }
  if (!isObject(body) || !Array.isArray(body.choices)) return response;
  const summaries: EngineSummary[] = [];
  let changed = false;
  for (const choice of body.choices) {
    const message = isObject(choice) ? choice.message : undefined;
    if (!isObject(choice) || !isObject(message) || typeof message.content !== "string") continue;
    const native = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    const guard = new GuardedEngine(ctx.engine(), onEngineError(ctx));
    const step = guard.step({ native, delta: message.content, flush: true });
    if (!step.ok) return response;
    const { text: visible, calls } = splitEvents(step.events);
    const summary = guard.summary();
    if (summary) summaries.push(summary);
    if (visible === message.content && calls.length === 0) continue;
    changed = true;
    message.content = visible === "" && calls.length > 0 ? null : visible;
    if (calls.length > 0) {
      const existing = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      message.tool_calls = [...existing, ...calls.map((call) => openAiCall(call))];
      choice.finish_reason = "tool_calls";
    }
  }
  if (summaries.length > 0) {
    report(ctx.options, { requestTag: ctx.plan.tag, summary: mergeSummaries(summaries), attempt: ctx.plan.attempt });
  }
  if (!changed) return response;
  // The clone was read; the original's untouched branch is no longer needed.
  response.body?.cancel().catch(() => undefined);
  return rebuilt(response, JSON.stringify(body));
}

function splitEvents(events: EngineEvent[]) {
  let text = "";
  const calls: RecoveredCall[] = [];
  for (const event of events) {
    if (event.type === "text") text += event.text;
    else calls.push(event.call);
  }
  return { text, calls };
}

function openAiCall(call: RecoveredCall, index?: number): Json {
  const out: Json = {
    id: call.id,
    type: "function",
    function: { name: call.tool, arguments: JSON.stringify(call.input) },
  };
  return index === undefined ? out : { index, ...out };
}

// ---------------------------------------------------------------- SSE

function repairStream(response: Response, ctx: ResponseContext): Response {
  const guard = new GuardedEngine(ctx.engine(), onEngineError(ctx));
  const rewriter = new ChunkRewriter(guard, () => finishReport(ctx, guard));
  const framer = new SseFramer();
  const encoder = new TextEncoder();

  const transform = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      for (const lines of framer.push(chunk)) emit(controller, lines);
    },
    flush(controller) {
      const tail = framer.end();
      const tailRaw = tail ? emit(controller, tail) : false;
      const pieces = safely(() => rewriter.end(), []);
      // The tail had no blank line; without one the first synthetic event would merge into it.
      if (pieces.length > 0 && tailRaw) controller.enqueue(encoder.encode("\n\n"));
      for (const piece of pieces) controller.enqueue(encoder.encode(serialize(piece, "\n")));
    },
  });

  /** Returns whether the last bytes written were the event's original ones. */
  function emit(controller: TransformStreamDefaultController<Uint8Array>, lines: Uint8Array[]): boolean {
    const event = safely(() => rewriter.event(lines.map(decodeLine)), null);
    if (event === null) {
      for (const line of lines) controller.enqueue(line);
      return true;
    }
    for (const piece of event.pieces) {
      if (piece === RAW) for (const line of lines) controller.enqueue(line);
      else controller.enqueue(encoder.encode(serialize(piece, event.eol, piece === event.original ? event.meta : [])));
    }
    return event.pieces.at(-1) === RAW;
  }

  function safely<T>(work: () => T, fallback: T): T {
    try {
      return work();
    } catch (error) {
      debugLine(ctx.options, `SSE rewrite failed, passing the event through: ${describeError(error)}`);
      return fallback;
    }
  }

  return rebuilt(response, response.body!.pipeThrough(transform));
}

const decoder = new TextDecoder();
function decodeLine(line: Uint8Array): string {
  return decoder.decode(line);
}

function serialize(chunk: Json, eol: string, meta: readonly string[] = []): string {
  return `${meta.map((line) => line + eol).join("")}data: ${JSON.stringify(chunk)}${eol}${eol}`;
}

/** Splits bytes into SSE events at blank lines, keeping each line's raw bytes (terminator included). */
class SseFramer {
  #partial: Uint8Array[] = [];
  #lines: Uint8Array[] = [];

  push(chunk: Uint8Array): Uint8Array[][] {
    const events: Uint8Array[][] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const line = this.#take(chunk.subarray(start, nl + 1));
      start = nl + 1;
      this.#lines.push(line);
      if (isBlank(line)) {
        events.push(this.#lines);
        this.#lines = [];
      }
    }
    if (start < chunk.length) this.#partial.push(chunk.subarray(start));
    return events;
  }

  /** Whatever is left when the body ends without a final blank line. */
  end(): Uint8Array[] | undefined {
    if (this.#partial.length > 0) this.#lines.push(concat(this.#partial));
    this.#partial = [];
    const lines = this.#lines;
    this.#lines = [];
    return lines.length > 0 ? lines : undefined;
  }

  #take(rest: Uint8Array): Uint8Array {
    if (this.#partial.length === 0) return rest;
    const line = concat([...this.#partial, rest]);
    this.#partial = [];
    return line;
  }
}

function isBlank(line: Uint8Array): boolean {
  return line.length === 1 || (line.length === 2 && line[0] === 13);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const RAW = Symbol("raw");
type Piece = Json | typeof RAW;

interface Rewritten {
  pieces: Piece[];
  eol: string;
  /** Non-data lines (id:, event:, comments), kept only on the original event. */
  meta: string[];
  original?: Json;
}

const ENVELOPE = ["id", "object", "created", "model", "system_fingerprint"] as const;

/** Decides per chat.completion.chunk what goes out: the original bytes, a rewritten chunk, synthetic chunks. */
class ChunkRewriter {
  #guard: GuardedEngine;
  #onFinal: () => void;
  #envelope: Json = { object: "chat.completion.chunk" };
  #nextIndex = 0;
  #nativeIndex = new Map<number, number>();
  #reported = false;
  #nativeNoted = false;

  constructor(guard: GuardedEngine, onFinal: () => void) {
    this.#guard = guard;
    this.#onFinal = onFinal;
  }

  /** null: pass the event through byte for byte. */
  event(lines: string[]): Rewritten | null {
    const data: string[] = [];
    const meta: string[] = [];
    for (const line of lines) {
      const bare = line.replace(/\r?\n$/, "");
      if (bare === "") continue;
      if (bare.startsWith("data:")) data.push(bare.slice(bare.startsWith("data: ") ? 6 : 5));
      else meta.push(bare);
    }
    if (data.length === 0) return null;
    const eol = lines[0]?.endsWith("\r\n") ? "\r\n" : "\n";
    const payload = data.join("\n");
    if (payload.trim() === "[DONE]") {
      const pieces = this.end();
      return pieces.length > 0 ? { pieces: [...pieces, RAW], eol, meta } : null;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(payload);
    } catch {
      return null;
    }
    if (!isObject(chunk) || !Array.isArray(chunk.choices)) return null;
    const pieces = this.#chunk(chunk, meta.length > 0);
    return pieces ? { pieces, eol, meta, original: chunk } : null;
  }

  /** End of stream (or [DONE]) without a finish_reason: flush what the engine still holds. */
  end(): Json[] {
    if (this.#guard.done) return [];
    const step = this.#guard.step({ flush: true });
    this.#final();
    if (!step.ok) return step.held ? [this.#synthetic({ content: step.held })] : [];
    return this.#segments(step.events);
  }

  #chunk(chunk: Json, hasMeta: boolean): Piece[] | null {
    const first = (chunk.choices as unknown[])[0];
    // Other choices (n > 1) would interleave with choice 0 in one engine; they are left alone.
    if (!isObject(first) || (first.index !== undefined && first.index !== 0)) return null;
    this.#envelope = envelopeOf(chunk);
    const delta = isObject(first.delta) ? first.delta : undefined;
    const finish = first.finish_reason != null;
    const toolCalls = Array.isArray(delta?.tool_calls) && delta.tool_calls.length > 0 ? delta.tool_calls : undefined;
    const content = typeof delta?.content === "string" && delta.content !== "" ? delta.content : undefined;

    if (this.#guard.done) return this.#settle(first, toolCalls) ? [chunk] : null;
    if (content === undefined && !finish && !toolCalls) return null;

    const native = toolCalls !== undefined && !this.#nativeNoted;
    if (native) this.#nativeNoted = true;
    const step = this.#guard.step({ native, delta: content, flush: finish });
    if (finish) this.#final();
    if (!step.ok) {
      const settled = this.#settle(first, toolCalls);
      if (!step.held) return settled ? [chunk] : null;
      return [this.#synthetic({ content: step.held }), settled ? chunk : RAW];
    }

    let changed = toolCalls ? this.#remapNative(toolCalls) : false;
    const segments = this.#segments(step.events);
    if (!finish) {
      const lead = leadText(segments);
      if (content !== undefined && lead !== content) {
        if (lead) delta!.content = lead;
        else delete delta!.content;
        changed = true;
      }
      if (!changed) return [RAW, ...segments];
      return onlyEnvelope(chunk, first, delta!) && !hasMeta ? segments : [chunk, ...segments];
    }
    return this.#finish(chunk, first, delta, content, segments, changed);
  }

  /** The finish_reason must come after everything the flush released. */
  #finish(chunk: Json, choice: Json, delta: Json | undefined, content: string | undefined, segments: Json[], changed: boolean): Piece[] | null {
    const recovered = this.#guard.recovered > 0;
    if (!changed && !recovered && content !== undefined && segments.length === 1 && leadText([...segments]) === content) {
      return null;
    }
    if (content !== undefined) {
      delete delta!.content;
      changed = true;
    }
    if (recovered && choice.finish_reason !== "tool_calls") {
      choice.finish_reason = "tool_calls";
      changed = true;
    }
    if (segments.length === 0) return changed ? [chunk] : null;
    if (!delta || Object.keys(delta).length === 0) return [...segments, chunk];
    // Role, reasoning or native calls riding on the finish event still go out before the released text.
    const head = this.#synthetic({ ...delta });
    for (const key of Object.keys(delta)) delete delta[key];
    return [head, ...segments, chunk];
  }

  /** After the engine is done only indices and the finish_reason still need to agree with what was emitted. */
  #settle(choice: Json, toolCalls: unknown[] | undefined): boolean {
    let changed = toolCalls ? this.#remapNative(toolCalls) : false;
    if (choice.finish_reason != null && this.#guard.recovered > 0 && choice.finish_reason !== "tool_calls") {
      choice.finish_reason = "tool_calls";
      changed = true;
    }
    return changed;
  }

  /** Native calls keep their indices unless a recovered call already took one. */
  #remapNative(toolCalls: unknown[]): boolean {
    let changed = false;
    for (const call of toolCalls) {
      if (!isObject(call) || typeof call.index !== "number") continue;
      let mapped = this.#nativeIndex.get(call.index);
      if (mapped === undefined) {
        mapped = this.#guard.recovered === 0 ? call.index : this.#nextIndex;
        this.#nativeIndex.set(call.index, mapped);
      }
      this.#nextIndex = Math.max(this.#nextIndex, mapped + 1);
      if (mapped !== call.index) {
        call.index = mapped;
        changed = true;
      }
    }
    return changed;
  }

  #segments(events: EngineEvent[]): Json[] {
    const out: Json[] = [];
    for (const event of events) {
      if (event.type === "text") {
        if (event.text) out.push(this.#synthetic({ content: event.text }));
      } else {
        out.push(this.#synthetic({ tool_calls: [openAiCall(event.call, this.#nextIndex++)] }));
      }
    }
    return out;
  }

  #synthetic(delta: Json): Json {
    return { ...this.#envelope, choices: [{ index: 0, delta, finish_reason: null }] };
  }

  #final(): void {
    if (this.#reported || this.#guard.failed) return;
    this.#reported = true;
    this.#onFinal();
  }
}

/** Moves the first synthetic piece's text into the original event, which keeps its place in the stream. */
function leadText(segments: Json[]): string {
  const first = segments[0];
  const delta = first ? ((first.choices as Json[])[0]?.delta as Json | undefined) : undefined;
  if (typeof delta?.content !== "string") return "";
  segments.shift();
  return delta.content;
}

function envelopeOf(chunk: Json): Json {
  const out: Json = {};
  for (const key of ENVELOPE) if (chunk[key] !== undefined) out[key] = chunk[key];
  return out;
}

/** True when, content removed, the event would carry nothing a client could act on. */
function onlyEnvelope(chunk: Json, choice: Json, delta: Json): boolean {
  if (Object.keys(delta).length > 0 || (chunk.choices as unknown[]).length !== 1) return false;
  for (const [key, value] of Object.entries(choice)) {
    if (key !== "index" && key !== "delta" && value != null) return false;
  }
  for (const [key, value] of Object.entries(chunk)) {
    if (key !== "choices" && !(ENVELOPE as readonly string[]).includes(key) && value != null) return false;
  }
  return true;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
