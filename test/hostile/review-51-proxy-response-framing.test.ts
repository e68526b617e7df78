/**
 * Review 51 (hostile, tests only): the proxy as a real HTTP server on 127.0.0.1, in front of a raw
 * upstream (a net server that writes exact bytes), on the framing of the answer it relays. Raw
 * sockets on both hops, because the finding is in the bytes on the client's connection. Every wait
 * is bounded (a "hang" ends the read and is part of what the test sees), never an assertion on a
 * clock. No DSML marker bytes here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { startProxy, type Proxy } from "../proxy/support.ts";
import { proxyConfig } from "../../src/proxy/config.ts";
import { createProxyServer } from "../../src/proxy/server.ts";

/** A raw upstream that answers every request on a connection with `reply`, byte for byte, then keeps the socket open. */
async function rawUpstream(reply: string): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.on("data", () => socket.write(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
}

/** Writes `bytes` on one socket and collects everything (latin1) until the server closes it, or `ms` passes ("<<open>>" is appended then). */
function raw(url: string, bytes: string, ms = 2000): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    let out = "";
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(bytes));
    const timer = setTimeout(() => (socket.destroy(), resolve(`${out}<<open>>`)), ms);
    socket.on("data", (data) => (out += data.toString("latin1")));
    socket.on("close", () => (clearTimeout(timer), resolve(out)));
    socket.on("error", () => undefined);
  });
}

/** The content-length the first answer on the wire declares, or undefined. */
function declaredLength(out: string): number | undefined {
  const head = out.slice(0, out.indexOf("\r\n\r\n"));
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith("content-length:"));
  return line === undefined ? undefined : Number(line.slice(line.indexOf(":") + 1).trim());
}

/**
 * The answers a client reads off `out` (what `raw` collected) the way an HTTP/1.1 client frames
 * them (RFC 9112 6.3): by their chunks under `Transfer-Encoding: chunked`, else by their
 * content-length, else up to the close. `complete` is false for an answer whose body the bytes do
 * not finish (the client would still be waiting); the loop stops there.
 */
function answers(out: string): { status: string; body: string; complete: boolean }[] {
  const open = out.endsWith("<<open>>");
  let rest = open ? out.slice(0, -"<<open>>".length) : out;
  const read: { status: string; body: string; complete: boolean }[] = [];
  while (rest.length > 0) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return [...read, { status: rest.split("\r\n")[0]!, body: "", complete: false }];
    const lines = rest.slice(0, end).split("\r\n");
    const field = (name: string) => lines.find((l) => l.toLowerCase().startsWith(`${name}:`))?.replace(/^[^:]*:\s*/, "");
    rest = rest.slice(end + 4);
    const status = lines[0]!;
    if (field("transfer-encoding")?.toLowerCase() === "chunked") {
      let body = "";
      for (;;) {
        const line = rest.indexOf("\r\n");
        if (line < 0) return [...read, { status, body, complete: false }];
        const size = parseInt(rest.slice(0, line), 16);
        if (rest.length < line + 2 + size + 2) return [...read, { status, body, complete: false }];
        body += rest.slice(line + 2, line + 2 + size);
        rest = rest.slice(line + 2 + size + 2);
        if (size === 0) break;
      }
      read.push({ status, body, complete: true });
    } else if (field("content-length") !== undefined) {
      const length = Number(field("content-length"));
      if (rest.length < length) return [...read, { status, body: rest, complete: false }];
      read.push({ status, body: rest.slice(0, length), complete: true });
      rest = rest.slice(length);
    } else return [...read, { status, body: rest, complete: !open }];
  }
  return read;
}

const GET = "GET /models HTTP/1.1\r\nHost: p\r\n\r\n";
/** The same request asking the proxy to close after the answer (the hard negatives: no wait on a kept-alive connection). */
const GET_CLOSE = "GET /models HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n";

// FINDING 1 (framing, host broken: response desync or hang on the client's keep-alive connection).
// What is wrong: an upstream answer that carries both `Transfer-Encoding: chunked` and a
// `Content-Length` is framed by its chunks (RFC 9112 6.3: Transfer-Encoding overrides
// Content-Length), and Bun's fetch reads it so. The relay drops `transfer-encoding` (hop-by-hop)
// but forwards the upstream's stale `content-length` with the de-chunked body, so the client frames
// the answer by a length that does not match what follows. RFC 9112 6.3: "A sender MUST remove the
// received Content-Length field prior to forwarding such a message."
//   - Chunks longer than the length: the client reads `content-length` bytes as the answer and the
//     rest as the start of the next answer on that connection (response splitting: bytes the
//     upstream chose become a separate response to the client's next request).
//   - Chunks shorter than the length: the proxy ends the answer "cleanly" (no ended= in the log)
//     while the client waits for bytes that never come on a kept-alive connection: a hang.
// Minimal input: an upstream answering
//   `HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n14\r\nHELLOHTTP/1.1 200 OK\r\n0\r\n\r\n`
// Observed: the client gets `content-length: 5` then 20 body bytes `HELLOHTTP/1.1 200 OK`, keep-alive.
// Seen under Bun (the runtime of the checkout's `dsml-fix`); Node's undici refuses such an answer.
// Suspected: src/proxy/relay.ts relay (RESPONSE_DROP drops transfer-encoding, but content-length is
// kept whenever the body was not decoded: `decoded && ...`).
// Expected: the answer the client gets is framed by the bytes that follow: no content-length when
// the upstream's framing was chunked (or a content-length equal to the bytes sent), never a length
// the body does not match.
// Fixed: src/proxy/relay.ts forwards a content-length only when it is known to be the length of
// the bytes sent (no transfer-encoding from the upstream, the body not decoded, one plain number);
// otherwise the proxy's server frames the body itself (chunked). And the relay keeps the length it
// sent: a body that would run past it or end short of it cuts the client's connection. (The
// reviewer's first test counted status lines on the raw wire, which the upstream's bytes inside a
// correct chunk also hold; it now reads the answers as a client frames them.)
describe("an upstream answer with both Transfer-Encoding: chunked and Content-Length", () => {
  const proxies: Proxy[] = [];
  const upstreams: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const p of proxies) await p.close();
    for (const u of upstreams) await u.close();
  });
  async function through(reply: string): Promise<Proxy> {
    const upstream = await rawUpstream(reply);
    upstreams.push(upstream);
    const proxy = await startProxy(["--upstream", `${upstream.url}/v1`]);
    proxy.server.keepAliveTimeout = 60_000;
    proxies.push(proxy);
    return proxy;
  }

  test("chunks longer than the stale length: the client is never handed bytes past the length it was told", async () => {
    const proxy = await through("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n14\r\nHELLOHTTP/1.1 200 OK\r\n0\r\n\r\n");
    const out = await raw(proxy.url, GET);
    // One answer, whole, whose body is what the chunks carry: never a second status line the
    // upstream wrote inside its body, read by the client as an answer of its own. (The bytes
    // `HTTP/1.1 200 OK` do appear on the wire, inside the body's chunk: the client's framing is
    // what tells.) Before the fix: `content-length: 5`, body `HELLO`, then a second "answer".
    expect(answers(out)).toEqual([{ status: "HTTP/1.1 200 OK", body: "HELLOHTTP/1.1 200 OK", complete: true }]);
  });

  test("chunks shorter than the stale length: the client's connection does not hang on bytes that never come", async () => {
    const proxy = await through("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHELLO\r\n0\r\n\r\n");
    const out = await raw(proxy.url, GET);
    // Before the fix: `content-length: 100` and 5 bytes, the client waiting for 95 more.
    expect(answers(out)).toEqual([{ status: "HTTP/1.1 200 OK", body: "HELLO", complete: true }]);
    expect(declaredLength(out)).toBeUndefined();
  });

  // Hard negatives (pass on main): the framings the relay already gets right.
  test("hard negative: a plain content-length answer goes out with its length and exactly its bytes", async () => {
    const proxy = await through("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nHELLO");
    const out = await raw(proxy.url, GET_CLOSE);
    expect(declaredLength(out)).toBe(5);
    expect(out.endsWith("\r\n\r\nHELLO")).toBe(true);
  });

  test("hard negative: a chunked answer without a length goes out with no content-length and every byte", async () => {
    const proxy = await through("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n14\r\nHELLOHTTP/1.1 200 OK\r\n0\r\n\r\n");
    const out = await raw(proxy.url, GET_CLOSE);
    expect(declaredLength(out)).toBeUndefined();
    expect(out).toContain("14\r\nHELLOHTTP/1.1 200 OK\r\n0\r\n\r\n");
  });

  test("hard negative: two different content-lengths from the upstream: 502, nothing of its body relayed", async () => {
    const proxy = await through("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nContent-Length: 20\r\n\r\nHELLOHTTP/1.1 200 OK\r\n");
    const out = await raw(proxy.url, GET_CLOSE);
    expect(out.startsWith("HTTP/1.1 502 ")).toBe(true);
    expect(out).not.toContain("HELLO");
  });
});

// Fixed, further hard negatives: answers without a body keep the length they declare (it describes
// the resource, RFC 9110 8.6), a chunked event stream loses only the stale length, and the
// relay's own check of the length it sent.
describe("content-length after the fix: bodiless answers, event streams, the relay's own check", () => {
  const proxies: Proxy[] = [];
  const upstreams: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const p of proxies) await p.close();
    for (const u of upstreams) await u.close();
  });
  async function through(reply: string): Promise<Proxy> {
    const upstream = await rawUpstream(reply);
    upstreams.push(upstream);
    const proxy = await startProxy(["--upstream", `${upstream.url}/v1`]);
    proxies.push(proxy);
    return proxy;
  }

  test("hard negative: a HEAD answer keeps its content-length and sends no body", async () => {
    const proxy = await through("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n");
    const out = await raw(proxy.url, "HEAD /models HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 200 ")).toBe(true);
    expect(declaredLength(out)).toBe(100);
    expect(out.endsWith("\r\n\r\n")).toBe(true);
  });

  test("hard negative: a 304 keeps its content-length and sends no body", async () => {
    const proxy = await through("HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n");
    const out = await raw(proxy.url, "GET /models HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 304 ")).toBe(true);
    expect(declaredLength(out)).toBe(100);
    expect(out.endsWith("\r\n\r\n")).toBe(true);
  });

  test("hard negative: a 204 goes out with no body", async () => {
    const proxy = await through("HTTP/1.1 204 No Content\r\n\r\n");
    const out = await raw(proxy.url, "GET /models HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 204 ")).toBe(true);
    expect(out.endsWith("\r\n\r\n")).toBe(true);
  });

  test("a chunked event stream with a stale length goes out framed by its chunks, every event whole", async () => {
    const events = "data: {\"a\":1}\n\ndata: [DONE]\n\n";
    const proxy = await through(`HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n${events.length.toString(16)}\r\n${events}\r\n0\r\n\r\n`);
    const out = await raw(proxy.url, "GET /models HTTP/1.1\r\nHost: p\r\n\r\n");
    expect(answers(out)).toEqual([{ status: "HTTP/1.1 200 OK", body: events, complete: true }]);
  });

  // A Response that reaches the relay with a length its body does not match (none does today: the
  // check stands behind the header rule above) is cut, never sent under that length.
  async function behind(body: string, length: string): Promise<Proxy> {
    const config = proxyConfig(["--upstream", "http://127.0.0.1:9/v1", "--port", "0"]);
    const lines: string[] = [];
    const stale = (async () => new Response(body, { status: 200, headers: { "content-type": "text/plain", "content-length": length } })) as unknown as typeof fetch;
    const { server, shutdown, inFlight } = createProxyServer(config, { info: (l) => lines.push(l), warn: (l) => lines.push(l) }, stale);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const proxy = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines, server, inFlight, stop: shutdown, close: () => shutdown(1000) };
    proxies.push(proxy);
    return proxy;
  }

  test("a body longer than the length the relay sent: the connection is cut, nothing past the length goes out", async () => {
    const proxy = await behind("HELLOHTTP/1.1 200 OK", "5");
    const out = await raw(proxy.url, GET);
    expect(out.endsWith("<<open>>")).toBe(false);
    expect(out).not.toContain("HELLO");
    expect(answers(out).every((answer) => !answer.complete || answer.body === "")).toBe(true);
  });

  test("a body shorter than the length the relay sent: the connection is cut, never left waiting", async () => {
    const proxy = await behind("HELLO", "100");
    const out = await raw(proxy.url, GET);
    expect(out.endsWith("<<open>>")).toBe(false);
    expect(answers(out)).toEqual([{ status: "HTTP/1.1 200 OK", body: "HELLO", complete: false }]);
  });

  test("hard negative: a body of exactly its length goes out whole on a kept-alive connection", async () => {
    const proxy = await behind("HELLO", "5");
    const out = await raw(proxy.url, GET, 500);
    expect(answers(out)).toEqual([{ status: "HTTP/1.1 200 OK", body: "HELLO", complete: true }]);
  });
});
