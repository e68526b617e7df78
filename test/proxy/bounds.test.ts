// The proxy on a repaired wire (tools declared) in front of an upstream that never finishes what it
// sends: one SSE line with no end, or a JSON answer with no end. The repair holds at most its bound
// (4 MiB, src/sse/rewrite.ts and src/adapters/fetch.ts), then hands the client the headers and the
// upstream's bytes unchanged, as they come; a client that stops reading stops the upstream reads.
// Moved from the review's transport tests. Bytes are counted and every wait is bounded; no
// assertion is on a clock.
import { describe, expect, test } from "bun:test";
import type { ServerResponse } from "node:http";
import { block, live } from "../golden/notation.ts";
import { drained } from "../../src/proxy/server.ts";
import { chatSse, proxyFixture, TOOLS, type Proxy, type Upstream } from "./support.ts";

const MIB = 1024 * 1024;
/** The repair's bound; past it (and the chunk that crossed it) bytes reach the client. */
const LIMIT = 4 * MIB;
const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
/** Half a call, which the engine holds until it knows more: it must reach the client whole. */
const CUT = LEAK.slice(0, Math.floor(LEAK.length / 2));
const X = "x".charCodeAt(0);
/** What each endless upstream would write if nothing held it back. */
const TOTAL = 96 * MIB;

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("", (both) => ({ upstream, proxy } = both), ["--debug"]);

/** `p`, or null when it has not settled within the bound (a failing repair sends nothing at all). */
function bounded<T>(p: Promise<T>, ms = 10_000): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([p, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]).finally(() => clearTimeout(timer));
}

/** Polls (bounded by a count, not a clock) until `settled` holds or the rounds are used up. */
async function settle(settled: () => boolean, rounds = 400): Promise<void> {
  for (let i = 0; i < rounds && !settled(); i++) await new Promise((r) => setTimeout(r, 10));
}

/** An upstream that writes `opening`, then `total` bytes of x with no line end, and holds the answer open. */
function endless(contentType: string, opening: string, total: number) {
  const state = { written: 0 };
  upstream.answer(async (_req, res: ServerResponse) => {
    res.writeHead(200, { "content-type": contentType, "x-upstream": "kept" });
    res.write(opening);
    const chunk = "x".repeat(64 * 1024);
    while (!res.destroyed && state.written < total) {
      state.written += chunk.length;
      if (!res.write(chunk)) await drained(res);
    }
  });
  return state;
}


/**
 * Once the client stops reading, the upstream must stop too, far short of all it would write. The
 * sockets and fetch on both hops hold some MB of their own (13 to 25 MB measured here, the relay
 * path alike), so the check waits until the upstream's writes stand still and allows half the total.
 */
async function heldBack(state: { written: number }, got: number): Promise<void> {
  let last = -1;
  let still = 0;
  await settle(() => (state.written === last ? ++still >= 10 : ((last = state.written), (still = 0), false)));
  expect(state.written - got).toBeLessThan(TOTAL / 2);
}

interface Got {
  response: Response;
  bytes: Uint8Array;
  reader: ReadableStreamDefaultReader<Uint8Array>;
  abort: AbortController;
}

/** The client's answer as far as `want` bytes (fewer if a bounded wait ran out); null without headers. */
async function readAtLeast(body: unknown, want: number): Promise<Got | null> {
  const abort = new AbortController();
  const pending = fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: abort.signal });
  pending.catch(() => undefined);
  const response = await bounded(pending);
  if (!response) {
    abort.abort();
    return null;
  }
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let got = 0;
  while (got < want) {
    const read = await bounded(reader.read().catch(() => null));
    if (read === null || read.done) break;
    parts.push(read.value);
    got += read.value.length;
  }
  return { response, bytes: new Uint8Array(Buffer.concat(parts)), reader, abort };
}

/** Where the trailing run of x starts. */
function xRunStart(bytes: Uint8Array): number {
  let at = bytes.length;
  while (at > 0 && bytes[at - 1] === X) at--;
  return at;
}

const chatBody = (stream: boolean) => ({ model: "m", stream, messages: [{ role: "user", content: "hi" }], tools: TOOLS });

describe("a repaired wire whose upstream never ends what it sends", () => {
  test("SSE, one endless line: the held text goes out whole, then the line's bytes as they came; the upstream is read only as the client reads", async () => {
    // The opening events and text the engine holds, then an event that never ends.
    const before = chatSse(["Looking.\n", CUT]).split("\n\n").slice(0, 3).join("\n\n") + "\n\n";
    const state = endless("text/event-stream", `${before}data: `, TOTAL);
    const got = await readAtLeast(chatBody(true), LIMIT + 2 * MIB);
    expect(got).not.toBeNull();
    const { bytes, reader, abort } = got!;
    expect(bytes.length).toBeGreaterThanOrEqual(LIMIT + 2 * MIB);
    const text = new TextDecoder().decode(bytes.subarray(0, xRunStart(bytes)));
    // Whole events with everything the upstream sent before the line, then the line's own opening bytes.
    expect(text.endsWith("\n\ndata: ")).toBe(true);
    const shown = text.slice(0, -"data: ".length).split("\n\n").filter(Boolean).map((e) => JSON.parse(e.slice("data: ".length)).choices[0].delta);
    expect(shown.map((d) => d.content ?? "").join("")).toBe(`Looking.\n${CUT}`);
    expect(shown.some((d) => d.tool_calls)).toBe(false);
    expect(proxy.lines.some((l) => l.includes("stands aside"))).toBe(true);
    await heldBack(state, bytes.length);
    reader.cancel().catch(() => undefined);
    abort.abort();
    expect(await bounded(upstream.seen[0]!.closedEarly)).toBe(true);
  }, 30_000);

  test("JSON that never ends: status, headers and bytes as sent once the bound is passed; the upstream is read only as the client reads", async () => {
    const opening = '{"choices":[{"index":0,"message":{"role":"assistant","content":"';
    const state = endless("application/json", opening, TOTAL);
    const got = await readAtLeast(chatBody(false), LIMIT + 2 * MIB);
    expect(got).not.toBeNull();
    const { response, bytes, reader, abort } = got!;
    expect([response.status, response.headers.get("content-type"), response.headers.get("x-upstream")]).toEqual([200, "application/json", "kept"]);
    expect(bytes.length).toBeGreaterThanOrEqual(LIMIT + 2 * MIB);
    expect(new TextDecoder().decode(bytes.subarray(0, xRunStart(bytes)))).toBe(opening);
    expect(proxy.lines.some((l) => l.includes(`JSON answer over ${LIMIT} bytes`))).toBe(true);
    await heldBack(state, bytes.length);
    reader.cancel().catch(() => undefined);
    abort.abort();
    expect(await bounded(upstream.seen[0]!.closedEarly)).toBe(true);
  }, 30_000);
});
