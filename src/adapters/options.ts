import type { ParseOptions, ToolSpec } from "../parse/types.ts";
import type { EngineEvent, EngineOptions, EngineSummary, RepairEngine } from "../stream/types.ts";

/** Header the plugin sets so a response can be traced back to `<sessionID>/<messageID>`; never forwarded upstream. */
export const REQUEST_TAG_HEADER = "x-dsml-fix-tag";

export interface AdapterResult {
  requestTag?: string;
  summary: EngineSummary;
  /** 1 for the first request seen with this tag, counting up on retries. */
  attempt: number;
}

export interface AdapterOptions {
  parse?: Partial<ParseOptions>;
  responseFix?: { enabled?: boolean; bufferLimit?: number };
  debug?: (line: string) => void;
  onResult?: (r: AdapterResult) => void;
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

export function repairEnabled(options: AdapterOptions): boolean {
  return options.responseFix?.enabled !== false;
}

export function engineOptions(options: AdapterOptions, tools: readonly ToolSpec[]): EngineOptions {
  const out: EngineOptions = { tools };
  if (options.parse) out.parse = options.parse;
  if (options.responseFix?.bufferLimit !== undefined) out.bufferLimit = options.responseFix.bufferLimit;
  return out;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
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
