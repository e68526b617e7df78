/**
 * Review 47 (src/proxy/server.ts, config.ts): a proxy whose upstream is itself. `--port 8787
 * --upstream http://127.0.0.1:8787` is one typo away from the usual setup (the client's base URL
 * pasted as the upstream). Bad config must give one clear message, never a hang.
 */
import { afterEach, expect, test } from "bun:test";
import net from "node:net";
import { proxyConfig } from "../../src/proxy/config.ts";
import { createProxyServer, type ProxyServer } from "../../src/proxy/server.ts";

let running: ProxyServer | undefined;
afterEach(async () => {
  await running?.shutdown(100);
  running = undefined;
});

/** A free loopback port (listen on 0, close). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

// fixed: the rule now: at start, runProxy refuses (exit 2, one message) an upstream or route on a
// loopback or any address at the proxy's own port (routeToItself); at runtime the proxy adds `Via:
// 1.1 dsml-fix-<per-process token>` to what it sends up, and a request that comes back with it gets
// 508 Loop Detected at once and one warning line. What was wrong:
// Was (medium: a hang and unbounded requests from one config mistake). Every request the
// proxy sends to itself is a new request to itself: one GET /models became 256 requests in flight
// (the runtime's connection limit per host, so it stops there, holding every socket) and the
// client waits until --upstream-timeout (300 s by default) runs out at some level. No message says
// why. Expected: refused at start ("the upstream is this proxy"), or the looping request answered
// at once with an error (508 Loop Detected, e.g. by a Via header the proxy adds and recognises:
// RFC 9110 7.6.3 asks a proxy to send Via, and it sends none; its own x-dsml-fix-tag is stripped
// by repairFetch before the request goes up, so it cannot serve). Suspected: src/proxy/server.ts
// handle (no loop check), src/proxy/config.ts (no check of the upstream against host:port).
test("a proxy whose upstream is itself answers with an error, not a hang, and does not pile up requests", async () => {
  const port = await freePort();
  const lines: string[] = [];
  const config = proxyConfig(["--upstream", `http://127.0.0.1:${port}/v1`, "--port", String(port)]);
  running = createProxyServer(config, { info: (l) => lines.push(l), warn: (l) => lines.push(l) });
  const { server, inFlight } = running;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reply = await Promise.race([
    fetch(`http://127.0.0.1:${port}/models`).then((r) => r.status, () => "reset"),
    new Promise<"hang">((resolve) => (timer = setTimeout(() => resolve("hang"), 3000))),
  ]).finally(() => clearTimeout(timer));
  const piled = inFlight();
  expect(reply).not.toBe("hang");
  expect(typeof reply === "number" && reply >= 400).toBe(true);
  expect(piled).toBeLessThan(4);
});
