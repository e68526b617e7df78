// Where the adapters' time goes, per 10-character chunk / per SSE event: `bun bench/profile.ts`.
// Diagnostic companion to bench/run.ts (see bench/README.md). "floor" rows do only the part of
// the work nothing can skip (the engine itself; framing, decoding, JSON.parse), so the distance
// from a floor to "as shipped" is what the adapter's own bookkeeping costs.
import { ChunkRewriter } from "../src/wires/chat/rewriter.ts";
import { rewriteEventStream } from "../src/sse/rewrite.ts";
import { repairFetch } from "../src/adapters/fetch.ts";
import { GuardedEngine } from "../src/engine/guarded.ts";
import { repairMiddleware } from "../src/adapters/middleware.ts";
import { SseFramer, SseReader } from "../src/sse/framing.ts";
import { NEED_MORE, readTag } from "../src/grammar/tags.ts";
import { createRepairEngine } from "../src/engine/engine.ts";
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
  rechunk,
  requestInit,
  sourceStream,
  sseEvents,
  throughMiddleware,
  type Part,
} from "./lib.ts";

const tools = fixtureTools;
const engine = () => createRepairEngine({ tools, idPrefix: "p_" });
const noop = () => {};

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
      "GuardedEngine.step (a work and a result object per call)": () => {
        const g = new GuardedEngine(engine(), noop);
        for (const p of pieces) {
          g.step({ delta: p });
          void g.held;
        }
        g.step({ flush: true });
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
      "floor: stage calling engine.feed only, the part itself when unchanged": () => {
        const e = engine();
        return stage((p, c) => {
          if (p.type !== "text-delta") return c.enqueue(p);
          const events = e.feed(p.delta);
          if (events.length === 1 && events[0]!.type === "text" && events[0]!.text === p.delta) return c.enqueue(p);
          for (const ev of events) if (ev.type === "text") c.enqueue({ type: "text-delta", id: p.id, delta: ev.text });
        });
      },
      "stage calling engine.feed only, a new part per text event": () => {
        const e = engine();
        return stage((p, c) => {
          if (p.type !== "text-delta") return c.enqueue(p);
          for (const ev of e.feed(p.delta)) if (ev.type === "text") c.enqueue({ type: "text-delta", id: p.id, delta: ev.text });
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
for (const [shape, size] of [
  ["one chunk per event", 0],
  ["16 KB chunks", 16 * 1024],
] as const) {
  const text = prose(MB);
  const events = sseEvents(text);
  const body = size === 0 ? events : rechunk(events, size);
  console.log(`\n## fetch adapter, 1 MB prose as ${events.length} SSE events, ${shape} (median of 5, paired)\n`);
  const baseFetch = (async () => new Response(sourceStream(body), { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch;
  const source = async () => (await baseFetch(URL_, requestInit)).body!;
  const through = async (t: TransformStream<Uint8Array, Uint8Array>) => drainBytes(new Response((await source()).pipeThrough(t)), false);
  const decoder = new TextDecoder();
  const repaired = repairFetch({}, baseFetch);
  /** The framing the adapter used to do: split at LF, one subarray and one enqueue per line. */
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
  /** The shipped framing and decoding, then JSON.parse of every event: what a rewriter without ChunkShape pays. */
  const framedParse = () => {
    const framer = new SseFramer();
    const reader = new SseReader();
    return new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        const { head, ends } = framer.push(chunk);
        const start = head ? ends[0]! : 0;
        const first = head && decoder.decode(head);
        if (first?.startsWith("data: {")) sink += JSON.parse(first.slice(6)).choices.length;
        const text = decoder.decode(chunk.subarray(start, ends.at(-1) ?? start));
        for (let pos = 0; pos < text.length; pos = reader.end) {
          reader.read(text, pos);
          if (reader.data?.startsWith("{")) sink += JSON.parse(reader.data).choices.length;
        }
        c.enqueue(chunk);
      },
    });
  };
  const rewriter = () => new ChunkRewriter(new GuardedEngine(engine(), noop), noop);
  let sink = 0;
  const t = await measure(
    {
      "untouched body": async () => drainBytes(await baseFetch(URL_, requestInit), false),
      "identity byte TransformStream": () => through(new TransformStream({ transform: (c, ctl) => ctl.enqueue(c) })),
      "old framing: one subarray + enqueue per line": () => through(perLine(noop)),
      "... + TextDecoder per line + JSON.parse per event": () =>
        through(
          perLine((l) => {
            const s = decoder.decode(l);
            if (s.startsWith("data: {")) sink += JSON.parse(s.slice(6)).choices.length;
          }),
        ),
      "floor: shipped framing + decode + JSON.parse per event": () => through(framedParse()),
      "rewriteEventStream alone (no Response, no request checks)": async () => drainBytes(new Response(rewriteEventStream(await source(), rewriter(), noop)), false),
      "repairFetch (as shipped)": async () => drainBytes(await repaired(URL_, requestInit), false),
    },
    5,
    size === 0 ? 1 : 3,
  );
  const base = t["untouched body"]!;
  const stage = t["identity byte TransformStream"]!;
  for (const [k, v] of Object.entries(t)) {
    line(k, `${(median(v) * 1000).toFixed(1).padStart(7)} ms  ${((median(v) * 1e6) / events.length).toFixed(2)} us/event  ${pairedRatio(v, base).toFixed(2)}x untouched  ${pairedRatio(v, stage).toFixed(2)}x stage`);
  }
  void sink;
}
