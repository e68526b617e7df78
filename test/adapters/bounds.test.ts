// The repair's buffers are bounded, on every wire. One SSE event longer than the bound ends the
// reading for the rest of its stream: what the engine held goes out first as whole events, as
// written, then every byte as it came (that event's own included), but for the numbers the
// rewrite moved (test/adapters/stand-aside.test.ts), and no call is recovered from it or after it.
// A JSON answer longer than the bound goes on unrepaired, as it came. Memory is judged by bytes
// taken from the upstream against bytes handed to the client, never by time.
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterOptions, AdapterResult } from "../../src/adapters/options.ts";
import { block, live } from "../golden/notation.ts";
import { seeded } from "../support/run-engine.ts";
import { type Json, dataEvents, encode, postInit } from "./wire-support.ts";
import { sameCallIds } from "../support/call-ids.ts";

const MIB = 1024 * 1024;
/** The bound of src/sse/rewrite.ts (one event) and src/adapters/fetch.ts (a JSON answer): private there. */
const LIMIT = 4 * MIB;
/** A network chunk's usual size here; the bounds allow one chunk past the limit. */
const CHUNK = 64 * 1024;

const LEAK = live(block("tool_calls", [["bash", [["command", "ls -la"]]]]));
/** Half a call: the engine holds it, so it is what must go out whole when the rewrite stands aside. */
const CUT = LEAK.slice(0, Math.floor(LEAK.length / 2));
const SHOWN = `Looking.\n${CUT}`;
const PARAMETERS = { type: "object", properties: { command: { type: "string" } } };

interface WireCase {
  name: string;
  url: string;
  request: RequestInit;
  /** The stream's events: opening ones, one text delta per piece, closing ones (`text` is all of it). */
  opening: string[];
  delta(text: string): string;
  closing(text: string): string[];
  /** What a client shows as text, and the tool calls it sees, in parsed events. */
  shown(events: Json[]): string;
  calls(events: Json[]): number;
  /** A whole non-streamed answer whose text is `text`, and the calls a client sees in one. */
  json(text: string): Json;
  jsonCalls(body: Json): number;
}

const named = (type: string, body: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
const chatChunk = (delta: Json, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
/** Responses events carry a sequence number; the test's streams are short enough to number by a counter. */
let seq = 0;
const responsesEvent = (type: string, body: Json) => named(type, { ...body, sequence_number: seq++ });
const responseObject = (status: string, output: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "m", output });
const message = (text: string) => ({ id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });

const WIRES: WireCase[] = [
  {
    name: "chat",
    url: "http://model.test/v1/chat/completions",
    request: postInit({ model: "m", stream: true, messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "bash", parameters: PARAMETERS } }] }),
    opening: [chatChunk({ role: "assistant", content: "" })],
    delta: (content) => chatChunk({ content }),
    closing: () => [chatChunk({}, "stop"), "data: [DONE]\n\n"],
    shown: (events) => events.map((e) => e.choices?.[0]?.delta?.content ?? "").join(""),
    calls: (events) => events.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? []).length,
    json: (content) => ({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] }),
    jsonCalls: (body) => (body.choices[0].message.tool_calls ?? []).length,
  },
  {
    name: "Anthropic Messages",
    url: "http://model.test/v1/messages",
    request: postInit({ model: "m", stream: true, max_tokens: 10, messages: [{ role: "user", content: "go" }], tools: [{ name: "bash", input_schema: PARAMETERS }] }),
    opening: [
      named("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 1, output_tokens: 0 } } }),
      named("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ],
    delta: (text) => named("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
    closing: () => [named("content_block_stop", { index: 0 }), named("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } }), named("message_stop", {})],
    shown: (events) => events.map((e) => (e.type === "content_block_delta" && e.delta?.type === "text_delta" ? e.delta.text : "")).join(""),
    calls: (events) => events.filter((e) => e.type === "content_block_start" && e.content_block?.type === "tool_use").length,
    json: (text) => ({ id: "m", type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 9 } }),
    jsonCalls: (body) => body.content.filter((b: Json) => b.type === "tool_use").length,
  },
  {
    name: "Responses",
    url: "http://model.test/v1/responses",
    request: postInit({ model: "m", stream: true, input: [{ role: "user", content: [{ type: "input_text", text: "go" }] }], tools: [{ type: "function", name: "bash", parameters: PARAMETERS, strict: false }] }),
    get opening() {
      seq = 0;
      return [
        responsesEvent("response.created", { response: responseObject("in_progress", []) }),
        responsesEvent("response.output_item.added", { output_index: 0, item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] } }),
        responsesEvent("response.content_part.added", { item_id: "msg_1", output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }),
      ];
    },
    delta: (delta) => responsesEvent("response.output_text.delta", { item_id: "msg_1", output_index: 0, content_index: 0, delta, logprobs: [] }),
    closing: (text) => [
      responsesEvent("response.output_text.done", { item_id: "msg_1", output_index: 0, content_index: 0, text, logprobs: [] }),
      responsesEvent("response.content_part.done", { item_id: "msg_1", output_index: 0, content_index: 0, part: message(text).content[0] }),
      responsesEvent("response.output_item.done", { output_index: 0, item: message(text) }),
      responsesEvent("response.completed", { response: responseObject("completed", [message(text)]) }),
    ],
    shown: (events) => events.map((e) => (e.type === "response.output_text.delta" ? e.delta : "")).join(""),
    calls: (events) => events.filter((e) => e.type === "response.output_item.added" && e.item?.type === "function_call").length,
    json: (text) => responseObject("completed", [message(text)]),
    jsonCalls: (body) => body.output.filter((item: Json) => item.type === "function_call").length,
  },
];

// ---------------------------------------------------------------- sources and readers

interface Source {
  fetch: typeof fetch;
  /** Bytes the repair has taken from the upstream body so far. */
  pulled(): number;
  cancelled(): boolean;
}

/** A base fetch whose body yields `next()` one chunk per read (nothing read ahead), until undefined. */
function source(next: () => Uint8Array | undefined, headers: Record<string, string>, init: ResponseInit = {}): Source {
  let pulled = 0;
  let cancelled = false;
  const fn = (async () =>
    new Response(
      new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            const chunk = next();
            if (chunk === undefined) return controller.close();
            pulled += chunk.length;
            controller.enqueue(chunk);
          },
          cancel() {
            cancelled = true;
          },
        },
        { highWaterMark: 0 },
      ),
      { status: 200, ...init, headers },
    )) as unknown as typeof fetch;
  return { fetch: fn, pulled: () => pulled, cancelled: () => cancelled };
}

function chunksOf(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(bytes.subarray(at, cut));
    at = cut;
  }
  return out;
}

function listSource(chunks: Uint8Array[], headers: Record<string, string>, init?: ResponseInit): Source {
  let i = 0;
  return source(() => chunks[i++], headers, init);
}

/** An endless line: `opening`, then `fill` bytes in chunks of about CHUNK (seeded sizes), up to `total`. */
function endlessSource(opening: Uint8Array[], fill: number, total: number, headers: Record<string, string>, seed = 0): Source {
  const rand = seed === 0 ? () => 0.5 : seeded(seed);
  let i = 0;
  let sent = 0;
  return source(() => {
    if (i < opening.length) return opening[i++];
    if (sent >= total) return undefined;
    const size = 1 + Math.floor(rand() * 2 * CHUNK);
    sent += size;
    return new Uint8Array(size).fill(fill);
  }, headers);
}

type Split = "whole" | "char" | number;
const SPLITS: Split[] = ["whole", "char", 1, 2, 3];

/**
 * Cut points for `parts` laid end to end. Small parts are cut at every byte ("char") or at seeded
 * random points up to 12 bytes apart; parts over 4 KiB, in pieces of CHUNK (or seeded, up to
 * 2 CHUNK), each piece ending at most a few bytes past its part so that the cuts around a big
 * event's end vary with the seed as well.
 */
function cutPoints(parts: Uint8Array[], split: Split): number[] {
  if (split === "whole") return [];
  const rand = split === "char" ? undefined : seeded(split);
  const ends: number[] = [];
  let total = 0;
  for (const part of parts) ends.push((total += part.length));
  const cuts: number[] = [];
  let p = 0;
  for (let at = 0; ; ) {
    while (ends[p]! <= at) p++;
    const big = parts[p]!.length > 4096;
    let next: number;
    if (!rand) next = big ? Math.min(at + CHUNK, ends[p]!) : at + 1;
    else next = big ? Math.min(at + 1 + Math.floor(rand() * 2 * CHUNK), ends[p]! + Math.floor(rand() * 12)) : at + 1 + Math.floor(rand() * 12);
    if (next >= total) return cuts;
    cuts.push(next);
    at = next;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

interface Read {
  bytes: Uint8Array;
  /** The most bytes taken from the upstream for any one read the client made, before it got them. */
  mostTaken: number;
}

/** Reads the whole body; `pulled` tells what the upstream gave up to each moment. */
async function readAll(response: Response, pulled: () => number): Promise<Read> {
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let received = 0;
  let mostTaken = 0;
  for (;;) {
    const before = received;
    const { done, value } = await reader.read();
    mostTaken = Math.max(mostTaken, pulled() - before);
    if (done) break;
    parts.push(value);
    received += value.length;
  }
  return { bytes: concat(parts), mostTaken };
}

/** Macrotask turns that give a stream every chance to read ahead; a count, never a clock. */
async function idle(turns = 50): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const SSE = { "content-type": "text/event-stream" };

function harness() {
  const lines: string[] = [];
  const results: AdapterResult[] = [];
  const options: AdapterOptions = { debug: (line) => lines.push(line), onResult: (result) => results.push(result) };
  return { lines, results, options };
}

// ---------------------------------------------------------------- SSE

/** `text` with every sequence_number set to 0. */
function unnumbered(text: string): string {
  return text.replaceAll(/"sequence_number":\d+/g, '"sequence_number":0');
}

describe.each(WIRES)("$name SSE: an event over the bound", (wire) => {
  /** Before: the opening, then text the engine holds (half a call); the big event; after it, a whole call. */
  function stream(big: number) {
    const before = [...wire.opening, wire.delta("Looking.\n"), ...CUT.match(/[\s\S]{1,9}/g)!.map((piece) => wire.delta(piece))];
    const bigText = "y".repeat(big);
    // In stream order: Responses events number themselves as they are made.
    const bigEvent = wire.delta(bigText);
    const after = [wire.delta(`\n${LEAK}\n`), ...wire.closing(`${SHOWN}${bigText}\n${LEAK}\n`)];
    const parts = [...before, bigEvent, ...after].map(encode);
    const rawFrom = before.reduce((n, event) => n + encode(event).length, 0);
    return { parts, bytes: concat(parts), rawFrom };
  }

  test("held text goes out whole first, then every byte from that event on as it came (but the numbers the held text moved); no call after; same at every split", async () => {
    const { parts, bytes, rawFrom } = stream(LIMIT + MIB);
    // Responses numbers its events: the held text went out in fewer events than it came in, so
    // every later sequence_number moves, the rest of those events' bytes unchanged.
    const raw = unnumbered(decode(bytes.subarray(rawFrom)));
    let reference: Uint8Array | undefined;
    for (const split of SPLITS) {
      const { lines, results, options } = harness();
      const upstream = listSource(chunksOf(bytes, cutPoints(parts, split)), SSE);
      const { bytes: out, mostTaken } = await readAll(await repairFetch(options, upstream.fetch)(wire.url, wire.request), upstream.pulled);
      const text = decode(out);
      // Every byte from the big event's first one arrives unchanged, at the very end.
      const all = unnumbered(text);
      expect(all.length).toBeGreaterThan(raw.length);
      expect(all.endsWith(raw)).toBe(true);
      // Before them: whole events, showing all the text sent so far, the held half call included.
      const head = all.slice(0, all.length - raw.length);
      expect(head.endsWith("\n\n")).toBe(true);
      expect(wire.shown(dataEvents(head))).toBe(SHOWN);
      // Numbered events run on from 0, one by one.
      const numbers = dataEvents(text).flatMap((e) => (typeof e.sequence_number === "number" ? [e.sequence_number] : []));
      expect(numbers).toEqual(numbers.map((_, i) => i));
      // The whole call after the switch stays text: nothing in the output is a call, nothing was reported recovered.
      expect(wire.calls(dataEvents(decode(out)))).toBe(0);
      expect(results.map((r) => r.summary.recovered)).toEqual([0]);
      expect(lines.filter((l) => l.includes("stands aside"))).toHaveLength(1);
      // Held for one read: at most the bound, the chunk that crossed it and what came before the big event.
      if (split !== "whole") expect(mostTaken).toBeLessThanOrEqual(LIMIT + 2 * CHUNK + rawFrom);
      if (reference === undefined) reference = out;
      else expect(Buffer.from(out).equals(Buffer.from(reference))).toBe(true);
    }
  }, 60_000);

  test("an event that never ends: the client gets bytes once the bound is passed, the upstream is read only as it reads", async () => {
    const before = [...wire.opening, wire.delta("Looking.\n"), ...CUT.match(/[\s\S]{1,9}/g)!.map((piece) => wire.delta(piece))].map(encode);
    const prefix = concat(before);
    // The big event's first bytes: the delta's serialization up to where its text begins.
    const opening = encode(wire.delta("\u0000").split("\\u0000")[0]!);
    const Y = "y".charCodeAt(0);
    for (const split of ["char", 1, 2] as const) {
      const { lines, options } = harness();
      const openingChunks = chunksOf(concat([prefix, opening]), cutPoints([prefix, opening], split));
      // Three times the bound, then the body ends (still mid-line): a repair without a bound would take it all in one read.
      const upstream = endlessSource(openingChunks, Y, 3 * LIMIT, SSE, split === "char" ? 0 : split);
      const response = await repairFetch(options, upstream.fetch)(wire.url, wire.request);
      const reader = response.body!.getReader();
      const parts: Uint8Array[] = [];
      let received = 0;
      let mostHeld = 0;
      while (received < LIMIT + 8 * CHUNK) {
        const before = received;
        const { done, value } = await reader.read();
        mostHeld = Math.max(mostHeld, upstream.pulled() - before);
        if (done) break;
        parts.push(value);
        received += value.length;
      }
      expect(mostHeld).toBeLessThanOrEqual(LIMIT + 2 * CHUNK + prefix.length + opening.length);
      expect(received).toBeGreaterThanOrEqual(LIMIT + 8 * CHUNK);
      // A client that stops reading: nothing more is taken from the upstream for it.
      await idle();
      expect(upstream.pulled() - received).toBeLessThanOrEqual(2 * CHUNK);
      const out = concat(parts);
      // The event's bytes are its opening and then fill to the end; the held text's events end in a blank line.
      let end = out.length;
      while (end > 0 && out[end - 1] === Y) end--;
      const at = end - opening.length;
      // Held text first, as whole events; then the event's own bytes, unchanged, as far as they came.
      expect(wire.shown(dataEvents(decode(out.subarray(0, at))))).toBe(SHOWN);
      const rest = out.subarray(at);
      expect(Buffer.from(rest.subarray(0, opening.length)).equals(Buffer.from(opening))).toBe(true);
      expect(rest.subarray(opening.length).every((b) => b === Y)).toBe(true);
      expect(lines.filter((l) => l.includes("stands aside"))).toHaveLength(1);
      await reader.cancel();
      expect(upstream.cancelled()).toBe(true);
    }
  }, 60_000);
});

describe("chat SSE: where the event bound lies", () => {
  const wire = WIRES[0]!;
  /** A delta event of exactly `size` bytes as the bound counts them (a CRLF blank line counts its CR only). */
  function eventOf(size: number, eol: string): string {
    const empty = wire.delta("").replaceAll("\n", eol);
    const counted = empty.length - (eol === "\r\n" ? 1 : 0);
    return wire.delta("y".repeat(size - counted)).replaceAll("\n", eol);
  }

  test.each(["\n", "\r\n"])("an event of exactly the bound is rewritten, one byte more stands aside (eol %j), at any cut of its blank line", async (eol) => {
    for (const [size, calls] of [[LIMIT, 1], [LIMIT + 1, 0]] as const) {
      const big = eventOf(size, eol);
      const events = [...wire.opening, wire.delta("Looking.\n"), big, wire.delta(`\n${LEAK}\n`), ...wire.closing("")].map((e) => encode(e.replaceAll(/\r?\n/g, eol)));
      const bytes = concat(events);
      const bigEnd = events.slice(0, 3).reduce((n, e) => n + e.length, 0);
      const outputs: string[] = [];
      // One chunk; pieces of CHUNK; and cuts right before and inside the big event's blank line.
      for (const cuts of [[], Array.from({ length: Math.floor(bytes.length / CHUNK) }, (_, i) => (i + 1) * CHUNK), [bigEnd - 2, bigEnd - 1], [bigEnd - 1]]) {
        const { lines, options } = harness();
        const upstream = listSource(chunksOf(bytes, cuts), SSE);
        const out = await (await repairFetch(options, upstream.fetch)(wire.url, wire.request)).text();
        expect(wire.calls(dataEvents(out))).toBe(calls);
        expect(lines.some((l) => l.includes("stands aside"))).toBe(calls === 0);
        // Recovered call ids differ from run to run; everything else must match.
        outputs.push(sameCallIds(out));
      }
      expect(new Set(outputs).size).toBe(1);
    }
  }, 60_000);
});

// ---------------------------------------------------------------- JSON

const JSON_TYPE = { "content-type": "application/json" };

describe.each(WIRES)("$name JSON: an answer over the bound", (wire) => {
  test("goes on unrepaired: status, headers and every byte as sent, the call left as text; never more than the bound held", async () => {
    const bytes = encode(JSON.stringify(wire.json(`Looking.\n${LEAK}\n${"z".repeat(LIMIT)}`)));
    const headers = { ...JSON_TYPE, "x-upstream": "kept", "content-length": String(bytes.length) };
    for (const split of SPLITS) {
      const { lines, results, options } = harness();
      // Nothing is framed in a JSON answer: its first bytes are cut finely, the rest in network-sized pieces.
      const cuts = cutPoints([bytes.subarray(0, 64), bytes.subarray(64)], split);
      const upstream = listSource(chunksOf(bytes, cuts), headers, { statusText: "Fine" });
      const response = await repairFetch(options, upstream.fetch)(wire.url, wire.request);
      // The answer is handed on once the bound is passed: not a byte past it plus the chunk that crossed it.
      if (split !== "whole") expect(upstream.pulled()).toBeLessThanOrEqual(LIMIT + 2 * CHUNK);
      expect([response.status, response.statusText, response.headers.get("x-upstream"), response.headers.get("content-length")]).toEqual([200, "Fine", "kept", String(bytes.length)]);
      const { bytes: out } = await readAll(response, upstream.pulled);
      expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true);
      expect(wire.jsonCalls(JSON.parse(decode(out)))).toBe(0);
      expect(results).toEqual([]);
      expect(lines.filter((l) => l.includes(`JSON answer over ${LIMIT} bytes`))).toHaveLength(1);
    }
  }, 60_000);

  test("an answer that never ends: headers once the bound is passed, then its bytes as the client reads them", async () => {
    const opening = JSON.stringify(wire.json("\u0000")).split("\\u0000")[0]!;
    const Z = "z".charCodeAt(0);
    for (const seed of [0, 1, 2]) {
      const { lines, options } = harness();
      const upstream = endlessSource([encode(opening)], Z, 3 * LIMIT, JSON_TYPE, seed);
      const response = await repairFetch(options, upstream.fetch)(wire.url, wire.request);
      expect(upstream.pulled()).toBeLessThanOrEqual(LIMIT + 2 * CHUNK);
      expect([response.status, response.headers.get("content-type")]).toEqual([200, "application/json"]);
      const reader = response.body!.getReader();
      const parts: Uint8Array[] = [];
      let received = 0;
      while (received < 2 * LIMIT) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        received += value.length;
        // What was read and not yet handed on never grows past the bound and a chunk.
        expect(upstream.pulled() - received).toBeLessThanOrEqual(LIMIT + 2 * CHUNK);
      }
      expect(received).toBeGreaterThanOrEqual(2 * LIMIT);
      // A client that stops reading: nothing more is taken from the upstream for it.
      await idle();
      expect(upstream.pulled() - received).toBeLessThanOrEqual(2 * CHUNK);
      const out = concat(parts);
      expect(decode(out.subarray(0, opening.length))).toBe(opening);
      expect(out.subarray(opening.length).every((b) => b === Z)).toBe(true);
      expect(lines.filter((l) => l.includes(`JSON answer over ${LIMIT} bytes`))).toHaveLength(1);
      await reader.cancel();
      expect(upstream.cancelled()).toBe(true);
    }
  }, 60_000);
});

describe.each(WIRES)("$name JSON: an upstream that fails mid-answer", (wire) => {
  test("the client gets the bytes that came, then the same error (a bounded read hands on what it read)", async () => {
    const bytes = encode(JSON.stringify(wire.json(`Looking.\n${LEAK}`)));
    const came = bytes.subarray(0, bytes.length >> 1);
    let reads = 0;
    const upstream = source(() => {
      if (reads++ === 0) return came;
      throw new TypeError("upstream reset");
    }, JSON_TYPE);
    const { lines, options } = harness();
    const response = await repairFetch(options, upstream.fetch)(wire.url, wire.request);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const parts: Uint8Array[] = [];
    let error: unknown = null;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
      }
    } catch (caught) {
      error = caught;
    }
    expect(Buffer.from(concat(parts)).equals(Buffer.from(came))).toBe(true);
    expect(error).toBeInstanceOf(TypeError);
    expect(lines.filter((l) => l.includes("reading the JSON answer failed"))).toHaveLength(1);
  });
});

describe("chat JSON: where the answer bound lies", () => {
  const wire = WIRES[0]!;
  /** The answer with a leaked call, padded with trailing text to exactly `size` bytes. */
  function answerOf(size: number): Uint8Array {
    const bare = encode(JSON.stringify(wire.json(`Looking.\n${LEAK}\n`))).length;
    return encode(JSON.stringify(wire.json(`Looking.\n${LEAK}\n${"z".repeat(size - bare)}`)));
  }

  test("an answer of exactly the bound is repaired, one byte more goes on as sent", async () => {
    for (const [size, calls] of [[LIMIT, 1], [LIMIT + 1, 0]] as const) {
      const bytes = answerOf(size);
      expect(bytes.length).toBe(size);
      const { options } = harness();
      const upstream = listSource(chunksOf(bytes, cutPoints([bytes.subarray(0, 8), bytes.subarray(8)], 1)), JSON_TYPE);
      const body = (await (await repairFetch(options, upstream.fetch)(wire.url, wire.request)).json()) as Json;
      expect(wire.jsonCalls(body)).toBe(calls);
    }
  }, 60_000);
});
