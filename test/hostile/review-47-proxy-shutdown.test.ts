/**
 * Review 47 (src/proxy/server.ts shutdown): an answer that finishes while the proxy shuts down,
 * on a keep-alive connection. Bounded waits only.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import http from "node:http";
import { startProxy, startUpstream, type Upstream } from "../proxy/support.ts";

let upstream: Upstream;
beforeAll(async () => void (upstream = await startUpstream()));
afterAll(() => upstream.close());

// fixed: the rule now: once the shutdown began, every answer the proxy writes (relayed, refused,
// health) carries `Connection: close`. What was wrong:
// Was (low-medium: a request lost at restart instead of refused). An answer that completes
// after the shutdown began still says `connection: keep-alive`, and right after it the proxy
// closes the now idle connection (closeIdleConnections). A keep-alive client takes the header at
// its word and sends its next request on that connection; the proxy has already closed it, and
// the client gets "socket hang up" (observed for a POST, which clients do not retry), where a
// fresh connection would have been refused cleanly (or reached the restarted proxy). Expected
// (RFC 9112 9.6): every answer that completes while shutting down carries `Connection: close`.
// Suspected: src/proxy/server.ts (the request handler never sets `connection: close` once
// `closing` is true; relay copies the upstream's headers only).
test("an answer completed during the shutdown says connection: close", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  upstream.answer((_req, res) => void gate.then(() => res.writeHead(200, { "content-type": "application/json" }).end("{}")));
  const proxy = await startProxy(["--upstream", `${upstream.url}/v1`]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(`${proxy.url}/models`, { agent }, resolve);
      req.on("error", reject);
      req.end();
    });
    for (let i = 0; i < 300 && upstream.seen.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const stopping = proxy.stop(5000);
    release();
    const res = await first;
    res.resume();
    await new Promise((resolve) => res.on("end", resolve));
    const second = await new Promise<string>((resolve) => {
      const req = http.request(`${proxy.url}/models`, { agent, method: "POST", headers: { "content-length": 2 } }, (r) => (r.resume(), r.on("end", () => resolve(String(r.statusCode)))));
      req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      req.end("{}");
    });
    await stopping;
    expect(res.headers.connection).toBe("close");
    // With the header, the client opens a new connection, which a stopped server refuses cleanly.
    expect(second).not.toBe("ECONNRESET");
  } finally {
    agent.destroy();
  }
});
