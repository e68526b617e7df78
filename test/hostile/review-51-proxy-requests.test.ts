/**
 * Review 51 (hostile, tests only): requests a client writes on a raw socket to a real `dsml-fix
 * proxy` on 127.0.0.1, in front of a fake upstream: credentials given twice, and what follows a
 * refused request on the same keep-alive connection (its unread body must never be read as a
 * request of its own). Every wait is bounded (a hang ends the read), never an assertion on a clock.
 * No DSML marker bytes here.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { startProxy, startUpstream, type Proxy, type Upstream } from "../proxy/support.ts";

/** Writes `bytes` on one socket and collects everything (latin1) until the server closes it, or `ms` passes. */
function raw(url: string, bytes: string, ms = 3000): Promise<string> {
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

let upstream: Upstream;
let proxy: Proxy;
beforeAll(async () => {
  upstream = await startUpstream();
  upstream.answer((req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(`UP ${req.method} ${req.url}`));
  proxy = await startProxy(["--route", `/deepseek=${upstream.url}/v1`]);
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
});
afterEach(() => void upstream.seen.splice(0));

// FINDING 2 (credentials, low: ambiguous credentials go up, nothing leaks to a third party).
// What is wrong: the proxy refuses a request with two `Authorization` or two `x-api-key` headers
// (400: "which credential is meant is not the proxy's to pick", docs/PROXY.md), but two `api-key`
// headers (Azure OpenAI's credential header) or two `x-goog-api-key` headers (Gemini's) go up
// joined by the runtime into one value, `api-key: AAA, BBB`: a credential the client never sent,
// and an upstream or gateway that splits on the comma picks one of the two for the proxy.
// Minimal input: `GET /deepseek/models` with `api-key: AAA` and `api-key: BBB`.
// Observed: 200, the upstream sees `api-key: AAA, BBB`.
// Suspected: src/proxy/server.ts SINGLE_CREDENTIALS (only authorization and x-api-key).
// Expected: 400 before anything goes up, as for the other two credential headers (fetch's Headers
// cannot send the two as separate lines, so refusing is the one way not to pick).
// Fixed: src/proxy/server.ts refuses with 400 (connection closed) a request that gives any of
// authorization, x-api-key, api-key, x-goog-api-key more than once, in any letter case. Two
// Proxy-Authorization headers are not refused (never forwarded: hop-by-hop), nor two Cookie
// headers (they combine with "; " into one cookie list, RFC 9113 8.2.3, as the runtime joins them).
describe("a credential header given twice", () => {
  // Ocp-Apim-Subscription-Key (Azure API Management's key header) added after the review, round 52.
  for (const name of ["api-key", "x-goog-api-key", "ocp-apim-subscription-key"]) {
    test(`two ${name} headers are refused before anything goes up, never joined into one value`, async () => {
      const out = await raw(proxy.url, `GET /deepseek/models HTTP/1.1\r\nHost: p\r\n${name}: AAA\r\n${name}: BBB\r\nConnection: close\r\n\r\n`);
      expect(upstream.seen.map((seen) => seen.headers[name])).not.toContain("AAA, BBB");
      expect(out.startsWith("HTTP/1.1 400 ")).toBe(true);
      expect(upstream.seen).toHaveLength(0);
    });
  }

  test("hard negative: two authorization headers, in different letter case, are refused and nothing goes up", async () => {
    const out = await raw(proxy.url, "GET /deepseek/models HTTP/1.1\r\nHost: p\r\nAuthorization: Bearer A\r\nauthorization: Bearer B\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 400 ")).toBe(true);
    expect(upstream.seen).toHaveLength(0);
  });

  test("two api-key headers in different letter case are refused too", async () => {
    const out = await raw(proxy.url, "GET /deepseek/models HTTP/1.1\r\nHost: p\r\nApi-Key: AAA\r\napi-key: BBB\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 400 ")).toBe(true);
    expect(out).toContain("more than one api-key header");
    expect(upstream.seen).toHaveLength(0);
  });

  test("hard negative: one api-key and one x-goog-api-key go up as sent", async () => {
    const out = await raw(proxy.url, "GET /deepseek/models HTTP/1.1\r\nHost: p\r\napi-key: AAA\r\nx-goog-api-key: BBB\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 200 ")).toBe(true);
    expect([upstream.seen[0]?.headers["api-key"], upstream.seen[0]?.headers["x-goog-api-key"]]).toEqual(["AAA", "BBB"]);
  });

  test("hard negative: two cookie headers go up as one cookie list, joined by \"; \"", async () => {
    const out = await raw(proxy.url, "GET /deepseek/models HTTP/1.1\r\nHost: p\r\nCookie: a=1\r\nCookie: b=2\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 200 ")).toBe(true);
    expect(upstream.seen[0]?.headers.cookie).toBe("a=1; b=2");
  });

  test("hard negative: two proxy-authorization headers are not refused, and neither goes up", async () => {
    const out = await raw(proxy.url, "GET /deepseek/models HTTP/1.1\r\nHost: p\r\nProxy-Authorization: Basic A\r\nProxy-Authorization: Basic B\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 200 ")).toBe(true);
    expect(upstream.seen[0]?.headers["proxy-authorization"]).toBeUndefined();
  });

  test("hard negative: one api-key and one authorization go up as sent", async () => {
    const out = await raw(proxy.url, "GET /deepseek/models HTTP/1.1\r\nHost: p\r\napi-key: AAA\r\nAuthorization: Bearer B\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 200 ")).toBe(true);
    expect([upstream.seen[0]?.headers["api-key"], upstream.seen[0]?.headers.authorization]).toEqual(["AAA", "Bearer B"]);
  });
});

// Hard negatives (pass on main): a refused request's body is never read as a request of its own.
// A proxy that answers before reading the body and keeps the connection alive must skip the body
// (the runtime's parser does); otherwise the body, written as a request line, would be smuggled up
// as a request the proxy never checked.
describe("hard negatives: after a refused request with a body, the next request on the connection", () => {
  const SMUGGLED = "GET /deepseek/smuggled HTTP/1.1\r\nHost: p\r\n\r\n";
  const NEXT = "GET /deepseek/second HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n";
  const cases: [string, string][] = [
    ["a path no route covers (404)", `POST /nowhere HTTP/1.1\r\nHost: p\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`],
    ["the health path with a body (200)", `GET /healthz HTTP/1.1\r\nHost: p\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`],
    ["an absolute-form target (400)", `POST http://evil.invalid/deepseek/x HTTP/1.1\r\nHost: p\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`],
    ["dot segments that leave the route (400)", `POST /deepseek/../x HTTP/1.1\r\nHost: p\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`],
    ["a chunked body on a path no route covers", `POST /nowhere HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\n\r\n${SMUGGLED.length.toString(16)}\r\n${SMUGGLED}\r\n0\r\n\r\n`],
    ["Expect: 100-continue on a path no route covers, the body sent anyway", `POST /nowhere HTTP/1.1\r\nHost: p\r\nExpect: 100-continue\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`],
  ];
  for (const [name, first] of cases) {
    test(`${name}: the body never goes up as a request`, async () => {
      const out = await raw(proxy.url, first + NEXT);
      expect(upstream.seen.map((s) => s.url)).not.toContain("/v1/smuggled");
      // Either the connection was closed after the refusal, or the next request was served.
      expect(out).not.toContain("<<open>>");
      expect(upstream.seen.every((s) => s.url === "/v1/second")).toBe(true);
    });
  }
});

describe("hard negatives: targets and headers that would point the request elsewhere", () => {
  test("a Host header naming another host: the request still goes to the route's upstream only", async () => {
    const out = await raw(proxy.url, "GET /deepseek/x HTTP/1.1\r\nHost: evil.invalid\r\nConnection: close\r\n\r\n");
    expect(out).toContain("UP GET /v1/x");
    expect(upstream.seen[0]!.headers.host).toBe(new URL(upstream.url).host);
  });

  test("an absolute-form target is refused, nothing goes up, the log names no target", async () => {
    const out = await raw(proxy.url, "GET http://user:sk-R51KEY@evil.invalid/deepseek/x?key=sk-R51KEY HTTP/1.1\r\nHost: evil.invalid\r\nConnection: close\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 400 ")).toBe(true);
    expect(upstream.seen).toHaveLength(0);
    expect(proxy.lines.join("\n")).not.toContain("R51KEY");
  });

  test("`//host/path`, a prefix cut short (`/deep`) or run on (`/deepseekX`), and backslash dots: 404, nothing goes up", async () => {
    for (const target of ["//evil.invalid/deepseek/x", "/deep/x", "/deepseekX/x", "/deepseek\\..\\..\\x"]) {
      const out = await raw(proxy.url, `GET ${target} HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n`);
      expect(out.startsWith("HTTP/1.1 404 ") || out.startsWith("HTTP/1.1 400 ")).toBe(true);
    }
    expect(upstream.seen).toHaveLength(0);
  });

  test("an Upgrade request goes up as a plain request, without its upgrade headers", async () => {
    const out = await raw(proxy.url, "GET /deepseek/ws HTTP/1.1\r\nHost: p\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n");
    expect(out.startsWith("HTTP/1.1 200 ")).toBe(true);
    expect(upstream.seen[0]!.headers.upgrade).toBeUndefined();
  });
});
