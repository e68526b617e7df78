import type { ParseOptions, ToolSpec } from "../parse/types.ts";
import type { EchoGuard, EngineEvent, EngineOptions, EngineSummary, RepairEngine } from "../stream/types.ts";

/** Header the plugin sets so a response can be traced back to `<sessionID>/<messageID>`; never forwarded upstream. */
export const REQUEST_TAG_HEADER = "x-dsml-fix-tag";

export interface AdapterResult {
  requestTag?: string;
  summary: EngineSummary;
  /** 1 for the first request seen with this tag, counting up on retries. */
  attempt: number;
}

export interface ResponseFixOptions {
  enabled?: boolean;
  bufferLimit?: number;
  /**
   * Tools a recovered call may name, among those the request declared. Absent, or holding "*":
   * every declared tool. Native tool calls are never affected.
   */
  allowTools?: readonly string[];
  /** Tools a recovered call may never name ("*": none at all); wins over allowTools. */
  denyTools?: readonly string[];
  /** Echo guard (default true): never execute markup quoted from content the request gave the model. */
  echoGuard?: boolean;
}

export interface AdapterOptions {
  parse?: Partial<ParseOptions>;
  responseFix?: ResponseFixOptions;
  debug?: (line: string) => void;
  onResult?: (r: AdapterResult) => void;
  /**
   * Called before a request is sent whose response this adapter will repair (its wire is known and
   * it declares tools). It comes before any byte of the response, so a consumer that sees the reply
   * another way (OpenCode's text hook) knows the wire path owns it even before onResult.
   */
  onRepairing?: (requestTag: string | undefined) => void;
}

export type EngineFactory = (options: EngineOptions) => RepairEngine;

export interface AdapterDeps {
  /** Replaces the real engine (tests, benchmarks); when omitted `src/stream/engine.ts` is loaded on first use. */
  createEngine?: EngineFactory;
}

let defaultFactory: Promise<EngineFactory> | undefined;

/** Lazy so the adapters stay importable (and degrade to passthrough) even when the engine module fails to load. */
export function loadEngineFactory(deps: AdapterDeps | undefined): Promise<EngineFactory> {
  if (deps?.createEngine) return Promise.resolve(deps.createEngine);
  defaultFactory ??= importDefaultFactory().catch((error: unknown) => {
    defaultFactory = undefined;
    throw error;
  });
  return defaultFactory;
}

async function importDefaultFactory(): Promise<EngineFactory> {
  const mod = await import("../stream/engine.ts");
  const factory: EngineFactory = mod.createRepairEngine;
  return factory;
}

/**
 * A plain copy of the caller's options, each key read on its own: a throwing getter or a hostile
 * Proxy costs only that key, never its neighbours. A key that cannot be read gets its fail-closed
 * value (allowTools none, denyTools every tool, echo guard on) or its default, and one debug line
 * naming its path. Taken once per adapter, so later reads cannot throw or change under the repair.
 */
export function settleOptions(options: AdapterOptions): AdapterOptions {
  const out: AdapterOptions = {};
  const debug = readGuarded(options, "debug");
  if (debug.ok && typeof debug.value === "function") out.debug = debug.value as AdapterOptions["debug"];
  const note = (path: string, fallback: string) => debugLine(out, `option ${path} could not be read; using ${fallback}`);
  if (!debug.ok) note("debug", "no debug output");
  const onResult = readGuarded(options, "onResult");
  if (!onResult.ok) note("onResult", "no result callback");
  else if (onResult.value !== undefined) out.onResult = onResult.value as AdapterOptions["onResult"];
  const onRepairing = readGuarded(options, "onRepairing");
  if (!onRepairing.ok) note("onRepairing", "no request callback");
  else if (onRepairing.value !== undefined) out.onRepairing = onRepairing.value as AdapterOptions["onRepairing"];
  const parse = readGuarded(options, "parse");
  if (!parse.ok) note("parse", "the default parse options");
  else if (parse.value !== undefined) out.parse = plainCopy(parse.value, "parse", note, 2) as AdapterOptions["parse"];
  const fix = readGuarded(options, "responseFix");
  if (!fix.ok) {
    note("responseFix", 'its defaults, except allowTools [] and denyTools ["*"] (no recovered calls)');
    out.responseFix = { allowTools: [], denyTools: ["*"] };
  } else if (fix.value !== undefined && fix.value !== null) {
    out.responseFix = settleResponseFix(fix.value, note);
  }
  return out;
}

/** Fail-closed value of each security key of responseFix when it cannot be read. */
const RESPONSE_FIX_CLOSED: { [K in keyof ResponseFixOptions]?: { value: ResponseFixOptions[K]; note: string } } = {
  allowTools: { value: [], note: "[] (no recovered calls)" },
  denyTools: { value: ["*"], note: '["*"] (no recovered calls)' },
  echoGuard: { value: true, note: "true" },
};

function settleResponseFix(raw: unknown, note: (path: string, fallback: string) => void): ResponseFixOptions {
  const out: Record<string, unknown> = {};
  for (const key of ["enabled", "bufferLimit", "allowTools", "denyTools", "echoGuard"] as const) {
    // A list is copied now: a Proxy array could otherwise throw, or change, while it is used.
    const read = readGuarded(raw, key, () => {
      const value = (raw as Record<string, unknown>)[key];
      return Array.isArray(value) ? Array.from(value as unknown[]) : value;
    });
    if (read.ok) {
      if (read.value !== undefined) out[key] = read.value;
      continue;
    }
    const closed = RESPONSE_FIX_CLOSED[key];
    note(`responseFix.${key}`, closed?.note ?? "its default");
    if (closed) out[key] = structuredClone(closed.value);
  }
  return out as ResponseFixOptions;
}

/** Plain data (options are switches and names), own keys only, each read on its own. */
function plainCopy(value: unknown, path: string, note: (path: string, fallback: string) => void, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  const keys = readGuarded(value, "keys", () => Object.keys(value));
  if (!keys.ok) {
    note(path, "its defaults");
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const key of keys.value as string[]) {
    if (key === "__proto__") continue;
    const read = readGuarded(value, key);
    if (!read.ok) note(`${path}.${key}`, "its default");
    else if (depth > 1 && isPlainData(read.value)) out[key] = plainCopy(read.value, `${path}.${key}`, note, depth - 1);
    else if (typeof read.value !== "object" || read.value === null) out[key] = read.value;
  }
  return out;
}

function isPlainData(value: unknown): boolean {
  try {
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

type Guarded = { ok: true; value: unknown } | { ok: false };

/** One property read (or `read`), which a getter or a Proxy trap may turn into a throw. */
export function readGuarded(from: unknown, key: string, read?: () => unknown): Guarded {
  try {
    return { ok: true, value: read ? read() : (from as Record<string, unknown> | undefined)?.[key] };
  } catch {
    return { ok: false };
  }
}

export function repairEnabled(options: AdapterOptions): boolean {
  return options.responseFix?.enabled !== false;
}

export function engineOptions(
  options: AdapterOptions,
  tools: readonly ToolSpec[],
  isEchoed?: EchoGuard,
): EngineOptions {
  const out: EngineOptions = { tools: recoverableTools(options, tools) };
  if (options.parse) out.parse = options.parse;
  const bufferLimit = saneBufferLimit(options.responseFix?.bufferLimit);
  if (bufferLimit !== undefined) out.bufferLimit = bufferLimit;
  if (isEchoed) out.isEchoed = isEchoed;
  return out;
}

/** The plugin's upper bound; the adapters are public API too, so they do not trust their caller more. */
const MAX_BUFFER_LIMIT = 16_777_216;

function saneBufferLimit(value: unknown): number | undefined {
  if (typeof value !== "number" || !(value >= 1)) return undefined;
  return Math.min(Math.floor(value), MAX_BUFFER_LIMIT);
}

/**
 * Tools a recovered call may name: declared by the request, then narrowed by allowTools and
 * denyTools. A tool left out is undeclared as far as the engine knows, so its markup becomes an
 * undeclared-tool nudge instead of a call. A list that is not an array of strings fails closed.
 */
export function recoverableTools(options: AdapterOptions, declared: readonly ToolSpec[]): ToolSpec[] {
  const allow = toolNames(options.responseFix?.allowTools, { absent: "*", invalid: [] });
  const deny = toolNames(options.responseFix?.denyTools, { absent: [], invalid: "*" });
  if (deny === "*") return [];
  return declared.filter((tool) => (allow === "*" || allow.has(tool.name)) && !deny.has(tool.name));
}

type Names = Set<string> | "*";

function toolNames(value: unknown, fallback: { absent: "*" | []; invalid: "*" | [] }): Names {
  const as = (f: "*" | []): Names => (f === "*" ? "*" : new Set());
  if (value === undefined) return as(fallback.absent);
  if (!Array.isArray(value)) return as(fallback.invalid);
  const names = new Set<string>();
  for (const name of value) {
    if (typeof name !== "string") return as(fallback.invalid);
    if (name === "*") return "*";
    names.add(name);
  }
  return names;
}

/**
 * Error messages can quote the text that failed (JSON.parse does), and that text may be a tool
 * argument: debug lines keep the error's name and wording but never quoted spans.
 */
export function describeError(error: unknown): string {
  try {
    const name = error instanceof Error ? error.name : typeof error;
    const message = error instanceof Error ? error.message : String(error);
    return `${name}: ${withoutQuotes(message)}`;
  } catch {
    return "an error that could not be described";
  }
}

const MESSAGE_LIMIT = 160;

function withoutQuotes(message: string): string {
  let out = "";
  let quote = 0;
  for (let i = 0; i < message.length && out.length < MESSAGE_LIMIT; i++) {
    const c = message.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) {
        quote = 0;
        out += `...${message[i]}`;
      }
      continue;
    }
    if (c === 0x22 || c === 0x27 || c === 0x60) quote = c;
    if (c === 0x0a || c === 0x0d) out += " ";
    else out += message[i];
  }
  if (quote !== 0) out += "...";
  return out.length > MESSAGE_LIMIT ? `${out.slice(0, MESSAGE_LIMIT)}...` : out;
}

/** A throwing debug sink must not turn a harmless note into a broken stream. */
export function debugLine(options: AdapterOptions, line: string): void {
  try {
    options.debug?.(`[dsml-fix] ${line}`);
  } catch {
    // nowhere left to report it
  }
}

export function report(options: AdapterOptions, result: AdapterResult): void {
  try {
    options.onResult?.(result);
  } catch (error) {
    debugLine(options, `onResult threw: ${describeError(error)}`);
  }
}

export function announceRepair(options: AdapterOptions, requestTag: string | undefined): void {
  try {
    options.onRepairing?.(requestTag);
  } catch (error) {
    debugLine(options, `onRepairing threw: ${describeError(error)}`);
  }
}

/** Per-tag retry counter; bounded because tags are per message and a long-lived process sees many. */
export function createAttemptCounter(limit = 1000): (tag: string | undefined) => number {
  const seen = new Map<string, number>();
  return (tag) => {
    if (tag === undefined) return 1;
    const attempt = (seen.get(tag) ?? 0) + 1;
    seen.delete(tag);
    seen.set(tag, attempt);
    if (seen.size > limit) {
      const oldest = seen.keys().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
    return attempt;
  };
}

export type Step = { ok: true; events: EngineEvent[] } | { ok: false; held: string };

/**
 * Shields the host stream from engine failures. Held text is always a suffix of what was fed,
 * so remembering the recent deltas lets a failure hand back exactly the text the engine swallowed.
 */
export class GuardedEngine {
  #engine: RepairEngine;
  #onError: (line: string) => void;
  #recent: string[] = [];
  #recentLength = 0;
  #held = 0;
  #failed = false;
  #flushed = false;
  #recovered = 0;

  constructor(engine: RepairEngine, onError: (line: string) => void) {
    this.#engine = engine;
    this.#onError = onError;
  }

  /** No more engine work: it either failed or was flushed. */
  get done(): boolean {
    return this.#failed || this.#flushed;
  }

  get failed(): boolean {
    return this.#failed;
  }

  get held(): number {
    return this.#held;
  }

  /** Calls handed to the host so far; they stay emitted even if the engine fails later. */
  get recovered(): number {
    return this.#recovered;
  }

  /** One unit of work, all-or-nothing: on failure none of its events were emitted, so the caller can replay the original. */
  step(work: { native?: boolean; delta?: string; flush?: boolean }): Step {
    if (this.done) return { ok: false, held: "" };
    try {
      if (work.native) this.#engine.noteNativeToolCall();
      // feed() and flush() return fresh arrays: pass them on instead of copying.
      let events: EngineEvent[] = work.delta ? this.#engine.feed(work.delta) : [];
      if (work.flush) {
        const flushed = this.#engine.flush();
        events = events.length === 0 ? flushed : events.concat(flushed);
      }
      const held = work.flush ? 0 : this.#engine.held;
      this.#remember(work.delta ?? "", held);
      if (work.flush) this.#flushed = true;
      for (const event of events) if (event.type === "call") this.#recovered++;
      return { ok: true, events };
    } catch (error) {
      return { ok: false, held: this.#fail(error) };
    }
  }

  /**
   * step({ delta }) without a work or a result object, for the once-per-chunk path. A string
   * means the step failed and is the text to hand back, as `held` is for step().
   */
  feed(delta: string): EngineEvent[] | string {
    if (this.done) return "";
    try {
      const events = delta ? this.#engine.feed(delta) : [];
      this.#remember(delta, this.#engine.held);
      for (let i = 0; i < events.length; i++) if (events[i]!.type === "call") this.#recovered++;
      return events;
    } catch (error) {
      return this.#fail(error);
    }
  }

  summary(): EngineSummary | undefined {
    try {
      return this.#engine.summary();
    } catch (error) {
      this.#onError(`engine summary failed: ${describeError(error)}`);
      return undefined;
    }
  }

  #remember(delta: string, held: number): void {
    this.#held = held;
    if (held === 0) {
      // Most deltas are released at once: keep that case free of allocation.
      if (this.#recentLength !== 0) {
        this.#recent = [];
        this.#recentLength = 0;
      }
      return;
    }
    if (delta) {
      this.#recent.push(delta);
      this.#recentLength += delta.length;
    }
    // Compacting only when far past the held size keeps the cost amortized O(delta).
    if (this.#recentLength > 2 * held + 4096) {
      const kept = this.#heldText();
      this.#recent = [kept];
      this.#recentLength = kept.length;
    }
  }

  #fail(error: unknown): string {
    this.#failed = true;
    this.#onError(`engine failed, passing the rest through: ${describeError(error)}`);
    return this.#heldText();
  }

  #heldText(): string {
    if (this.#held === 0) return "";
    const all = this.#recent.join("");
    return this.#held >= all.length ? all : all.slice(all.length - this.#held);
  }
}

export function emptySummary(): EngineSummary {
  return { recovered: 0, nudge: null, broken: [], stripped: [], heldCandidateNoCall: 0 };
}

/** Several choices in one response still yield one report; the first nudge wins. */
export function mergeSummaries(summaries: readonly EngineSummary[]): EngineSummary {
  const out = emptySummary();
  for (const s of summaries) {
    out.recovered += s.recovered;
    out.nudge ??= s.nudge;
    out.broken.push(...s.broken);
    out.stripped.push(...s.stripped);
    out.heldCandidateNoCall += s.heldCandidateNoCall;
  }
  return out;
}
