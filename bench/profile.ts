// Where the adapters' time goes, per 10-character chunk / per SSE event: `bun bench/profile.ts`.
// Diagnostic companion to bench/run.ts (see bench/README.md). "prototype" rows run local
// re-implementations of one hot spot, to show what a change in src/ would buy; src/ is untouched.
import { repairFetch } from "../src/adapters/fetch.ts";
import { GuardedEngine, type Step } from "../src/adapters/options.ts";
import { repairMiddleware } from "../src/adapters/middleware.ts";
import { NEED_MORE, readTag } from "../src/grammar/tags.ts";
import { createRepairEngine } from "../src/stream/engine.ts";
import type { EngineEvent, RepairEngine } from "../src/stream/types.ts";
import { fixtureTools } from "../test/golden/tools.ts";
import {
  MB,
  URL_,
  chunks,
  code,
  drainBytes,
  identityMiddleware,
  measure,
  median,
  pairedDiff,
  pairedRatio,
  partsFor,
  prose,
  requestInit,
  sourceStream,
  sseEvents,
  throughMiddleware,
  type Part,
} from "./lib.ts";

const tools = fixtureTools;
const engine = () => createRepairEngine({ tools, idPrefix: "p_" });
const noop = () => {};

/**
 * GuardedEngine.step as shipped, minus `events.push(...feed())`: the engine already returns a
 * fresh array per call, so it can be handed on as is. Only the happy path is reproduced.
 */
class LeanGuard {
  #engine: RepairEngine;
  #recent: string[] = [];
  #held = 0;
  constructor(e: RepairEngine) {
    this.#engine = e;
  }
  get held(): number {
    return this.#held;
  }
  step(work: { delta?: string; flush?: boolean }): Step {
    try {
      let events: EngineEvent[] = work.delta ? this.#engine.feed(work.delta) : [];
      if (work.flush) events = events.concat(this.#engine.flush());
      const held = work.flush ? 0 : this.#engine.held;
      this.#held = held;
      if (held === 0) this.#recent = [];
      else if (work.delta) this.#recent.push(work.delta);
      return { ok: true, events };
    } catch {
      return { ok: false, held: "" };
    }
  }
}

const ns = (seconds: number, n: number) => `${((seconds * 1e9) / n).toFixed(0).padStart(5)} ns`;
const line = (label: string, value: string) => console.log(`  ${label.padEnd(64)} ${value}`);

for (const [name, text] of [
  ["prose", prose(MB)],
  ["code", code(MB)],
] as const) {
  const pieces = chunks(text);
  const n = pieces.length;
  let needMore = 0;
  for (const p of pieces) for (let j = 0; j < p.length; j++) if (p[j] === "<" || p[j] === "|") needMore += readTag(p, j, false) === NEED_MORE ? 1 : 0;
  console.log(`\n## 1 MB ${name}, ${n} chunks of 10 (${needMore} tags cut by a chunk end -> NEED_MORE)\n`);

  console.log("synchronous, per chunk (median of 9):");
  const sync = await measure(
    {
      "engine.feed + held": () => {
        const e = engine();
        for (const p of pieces) {
          e.feed(p);
          void e.held;
        }
        e.flush();
      },
      "engine.feed, whole text in one feed (scan cost only)": () => {
        const e = engine();
        e.feed(text);
        e.flush();
      },
      "GuardedEngine.step (as shipped)": () => {
        const g = new GuardedEngine(engine(), noop);
        for (const p of pieces) {
          g.step({ delta: p });
          void g.held;
        }
        g.step({ flush: true });
      },
      "prototype: GuardedEngine.step without the spread": () => {
        const g = new LeanGuard(engine());
        for (const p of pieces) {
          g.step({ delta: p });
          void g.held;
        }
        g.step({ flush: true });
      },
      "GuardedEngine.step + a new text-delta part per text event": () => {
        const g = new GuardedEngine(engine(), noop);
        let sink: Part | undefined;
        for (const p of pieces) {
          const st = g.step({ delta: p });
          if (st.ok) for (const ev of st.events) if (ev.type === "text") sink = { type: "text-delta", id: "t0", delta: ev.text };
        }
        void sink;
      },
    },
    9,
    3,
  );
  for (const [k, v] of Object.entries(sync)) line(k, `${ns(median(v), n)}/chunk`);

  console.log("\nthrough a ReadableStream -> TransformStream -> reader pipeline (median of 9, paired):");
  const parts = partsFor(text);
  const stage = (fn: (p: Part, c: TransformStreamDefaultController<Part>) => void) =>
    drainParts(sourceStream(parts).pipeThrough(new TransformStream<Part, Part>({ transform: fn })));
  const ours = repairMiddleware();
  const streamed = await measure(
    {
      "identity middleware": () => throughMiddleware(identityMiddleware, parts),
      "repairMiddleware (as shipped)": () => throughMiddleware(ours, parts),
      "stage calling engine.feed only, new part per text event": () => {
        const e = engine();
        return stage((p, c) => {
          if (p.type !== "text-delta") return c.enqueue(p);
          for (const ev of e.feed(p.delta)) if (ev.type === "text") c.enqueue({ type: "text-delta", id: p.id, delta: ev.text });
        });
      },
      "stage calling prototype LeanGuard.step, new part per event": () => {
        const g = new LeanGuard(engine());
        return stage((p, c) => {
          if (p.type !== "text-delta") return c.enqueue(p);
          const st = g.step({ delta: p.delta });
          if (st.ok) for (const ev of st.events) if (ev.type === "text") c.enqueue({ type: "text-delta", id: p.id, delta: ev.text });
        });
      },
    },
    9,
    3,
  );
  const base = streamed["identity middleware"]!;
  for (const [k, v] of Object.entries(streamed)) {
    line(k, `${(median(v) * 1000).toFixed(1).padStart(6)} ms  ${pairedRatio(v, base).toFixed(2)}x  +${ns(pairedDiff(v, base), n)}/chunk`);
  }
}

async function drainParts(stream: ReadableStream<Part>): Promise<number> {
  const reader = stream.getReader();
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return n;
    if (value.type === "text-delta") n += value.delta.length;
  }
}

// ---------------------------------------------------------------- fetch
{
  const text = prose(MB);
  const events = sseEvents(text);
  console.log(`\n## fetch adapter, 1 MB prose as ${events.length} SSE events, one chunk per event (median of 5, paired)\n`);
  const baseFetch = (async () => new Response(sourceStream(events), { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch;
  const body = async () => (await baseFetch(URL_, requestInit)).body!;
  const through = async (t: TransformStream<Uint8Array, Uint8Array>) => drainBytes(new Response((await body()).pipeThrough(t)), false);
  const decoder = new TextDecoder();
  const repaired = repairFetch({}, baseFetch);
  /** The adapter's framing step as written: split at LF, one subarray and one enqueue per line. */
  const perLine = (extra: (line: Uint8Array) => void) =>
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        let start = 0;
        for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
          const l = chunk.subarray(start, nl + 1);
          start = nl + 1;
          extra(l);
          c.enqueue(l);
        }
      },
    });
  let sink = 0;
  const t = await measure(
    {
      "untouched body": async () => drainBytes(await baseFetch(URL_, requestInit), false),
      "identity byte TransformStream": () => through(new TransformStream({ transform: (c, ctl) => ctl.enqueue(c) })),
      "split into lines, one subarray + enqueue per line": () => through(perLine(noop)),
      "... + TextDecoder per line + JSON.parse per event": () =>
        through(
          perLine((l) => {
            const s = decoder.decode(l);
            if (s.startsWith("data: {")) sink += JSON.parse(s.slice(6)).choices.length;
          }),
        ),
      "repairFetch (as shipped)": async () => drainBytes(await repaired(URL_, requestInit), false),
    },
    5,
    1,
  );
  const base = t["untouched body"]!;
  const stage = t["identity byte TransformStream"]!;
  for (const [k, v] of Object.entries(t)) {
    line(k, `${(median(v) * 1000).toFixed(1).padStart(7)} ms  ${((median(v) * 1e6) / events.length).toFixed(2)} us/event  ${pairedRatio(v, base).toFixed(2)}x untouched  ${pairedRatio(v, stage).toFixed(2)}x stage`);
  }
  void sink;
}
