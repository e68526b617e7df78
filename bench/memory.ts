// One memory measurement in a fresh process, spawned by bench/run.ts (row 5):
//   memory <identity|middleware|identity-bytes|fetch> <streams> <held characters> <bufferLimit>
// Opens <streams> streams at once, each fed a leaked call whose argument never ends, stops feeding
// once <held characters> went in, and prints {"rss","rssEarly","heap","released"} after a full GC. The
// identity modes run the same streams through an identity TransformStream (of parts, of bytes);
// the caller subtracts them, so what is left is what the repair holds. Every delta is made when
// the source is pulled, as a provider makes it: nothing but the holder keeps it alive. RSS is read
// twice: right after the last GC, and once the allocator has settled (the one judged).
import { repairFetch } from "../src/adapters/fetch.ts";
import { repairMiddleware } from "../src/adapters/middleware.ts";
import { block, live } from "../test/golden/notation.ts";
import { CHUNK, URL_, callParams, encoder, fullGc, identityMiddleware, mockModel, prose, requestInit, type Part } from "./lib.ts";

const [mode = "identity", streamsArg = "1", heldArg = "60000", limitArg = "65536"] = process.argv.slice(2);
const streams = Number(streamsArg);
const heldChars = Number(heldArg);
const bufferLimit = Number(limitArg);
const SETTLE_MS = 1000;

// The opener and the start of a write call's content, cut before the content ends: a candidate that stays open.
const FILLER = prose(heldChars + 1024, 7);
const LEAK = live(block("tool_calls", [["write", [["filePath", "/tmp/held.ts"], ["content", FILLER]]]])).slice(0, heldChars);

/** A fresh string per piece, as JSON.parse of a provider's event makes it. */
const pieceAt = (i: number) => JSON.parse(JSON.stringify(LEAK.slice(i * CHUNK, (i + 1) * CHUNK))) as string;
const pieces = Math.ceil(LEAK.length / CHUNK);

/** Pull-based; after the last item it never answers again, so the stream stays open with its candidate held. */
function hangingSource<T>(count: number, make: (i: number) => T, drained: () => void): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (i < count) return controller.enqueue(make(i++));
      drained();
      return new Promise<void>(() => undefined);
    },
  });
}

/** Reads everything the stage lets out and drops it, as a client would once it has shown it. */
let released = 0;
/** A loop, not a chain of then()s: a chain would keep one promise per read alive while the stream hangs. */
function consume<T>(stream: ReadableStream<T>): void {
  const reader = stream.getReader();
  void (async () => {
    for (;;) {
      const r = await reader.read();
      if (r.done) return;
      const part = r.value as Part | Uint8Array;
      if (part instanceof Uint8Array) released += part.length;
      else if (part.type === "text-delta") released += part.delta.length;
    }
  })();
}

async function openMiddlewareStream(drained: () => void): Promise<unknown> {
  const parts = (i: number): Part =>
    i === 0 ? { type: "stream-start", warnings: [] } : i === 1 ? { type: "text-start", id: "t0" } : { type: "text-delta", id: "t0", delta: pieceAt(i - 2) };
  const model = { ...mockModel([]), doStream: async () => ({ stream: hangingSource(pieces + 2, parts, drained) }) };
  const mw = mode === "identity" ? identityMiddleware : repairMiddleware({ responseFix: { bufferLimit } });
  let params = callParams;
  if (mw.transformParams) params = await mw.transformParams({ params, type: "stream", model });
  const result = await mw.wrapStream!({ doStream: () => model.doStream(), doGenerate: () => model.doGenerate(params), params, model });
  consume(result.stream);
  return result;
}

const envelope = { id: "chatcmpl-mem", object: "chat.completion.chunk", created: 1735689600, model: "deepseek-chat" };
const eventAt = (i: number) => encoder.encode(`data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta: { content: pieceAt(i) }, finish_reason: null }] })}\n\n`);

async function openFetchStream(drained: () => void): Promise<unknown> {
  const base = (async () => new Response(hangingSource(pieces, eventAt, drained), { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch;
  if (mode === "identity-bytes") {
    const response = await base(URL_, requestInit);
    const body = response.body!.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => ctl.enqueue(c) }));
    consume(body);
    return body;
  }
  const response = await repairFetch({ responseFix: { bufferLimit } }, base)(URL_, requestInit);
  consume(response.body!);
  return response;
}

const open = mode === "fetch" || mode === "identity-bytes" ? openFetchStream : openMiddlewareStream;
const live_: unknown[] = [];
const done: Promise<void>[] = [];
for (let s = 0; s < streams; s++) {
  let resolve!: () => void;
  done.push(new Promise<void>((r) => (resolve = r)));
  live_.push(await open(resolve));
}
await Promise.all(done);
// Let the last pieces travel through the stage.
await new Promise((r) => setTimeout(r, 50));
for (let k = 0; k < 3; k++) {
  fullGc();
  await new Promise((r) => setTimeout(r, 20));
}
const early = process.memoryUsage().rss;
// Pages the allocator freed but has not yet given back are not held by anything: Bun 1.3 returns
// them within half a second (measured), and a long-running host reuses them anyway.
await new Promise((r) => setTimeout(r, SETTLE_MS));
fullGc();
const usage = process.memoryUsage();
console.log(JSON.stringify({ rss: usage.rss, rssEarly: early, heap: usage.heapUsed, released, streams: live_.length }));
process.exit(0);
