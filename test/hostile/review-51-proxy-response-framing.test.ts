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

  test.failing("chunks longer than the stale length: the client is never handed bytes past the length it was told", async () => {
    const proxy = await through("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n14\r\nHELLOHTTP/1.1 200 OK\r\n0\r\n\r\n");
    const out = await raw(proxy.url, GET);
    const body = out.slice(out.indexOf("\r\n\r\n") + 4).replace("<<open>>", "");
    const length = declaredLength(out);
    // Either no length (chunked or close-delimited: the body is whatever follows) or the true one.
    if (length !== undefined) expect(body.length).toBe(length);
    // Never a second status line the upstream wrote inside its body, read by the client as an answer.
    expect(out.split("HTTP/1.1 200 OK").length - 1).toBe(1);
  });

  test.failing("chunks shorter than the stale length: the client's connection does not hang on bytes that never come", async () => {
    const proxy = await through("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHELLO\r\n0\r\n\r\n");
    const out = await raw(proxy.url, GET);
    const body = out.slice(out.indexOf("\r\n\r\n") + 4).replace("<<open>>", "");
    const length = declaredLength(out);
    if (length !== undefined) expect(body.length).toBe(length);
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
