// The proxy's HTTP framing under faults and odd requests (review 47's proxy findings): when an
// answer the upstream cut may end cleanly and when the client's connection is cut instead, the
// request shapes refused before anything goes up, Via and the loop check, Expect, the parser's
// refusals in the access log, the body-idle bound, server errors after listen. Raw sockets where
// the bytes on the wire matter; every wait is bounded by rounds or a generous cap that turns a
// hang into a failing value, never an assertion of speed.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { EventEmitter } from "node:events";
import { proxyConfig, routeToItself } from "../../src/proxy/config.ts";
import { redactedUrl } from "../../src/grammar/redact.ts";
import { runProxy } from "../../src/proxy/run.ts";
import { createProxyServer } from "../../src/proxy/server.ts";
import { chatSse, pieces, startProxy, startUpstream, TOOLS, type Proxy, type Upstream } from "./support.ts";

const CHAT = { model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: TOOLS };

async function settle(settled: () => boolean, rounds = 400): Promise<void> {
  for (let i = 0; i < rounds && !settled(); i++) await new Promise((r) => setTimeout(r, 10));
}
function bounded<T>(what: Promise<T>, ms = 4000): Promise<T | "hang"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([what, new Promise<"hang">((r) => (timer = setTimeout(() => r("hang"), ms)))]).finally(() => clearTimeout(timer));
}

/** Writes `parts` on one socket (each after the last was written), collects everything (latin1) until the server closes it. */
function raw(url: string, ...parts: string[]): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    let out = "";
    const socket = net.connect(Number(port), "127.0.0.1", () => {
      const next = () => {
        const part = parts.shift();
        if (part !== undefined) socket.write(part, next);
      };
      next();
    });
    socket.on("data", (data: Buffer) => (out += data.toString("latin1")));
    socket.on("close", () => resolve(out));
    socket.on("error", () => resolve(out));
  });
}
const statusOf = (out: string | "hang") => (out === "hang" ? out : out.split("\r\n")[0]);

let upstream: Upstream;
let proxy: Proxy;
beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startProxy(["--upstream", `${upstream.url}/v1`]);
  // A truncated answer must end by itself, never by the keep-alive timer.
  proxy.server.keepAliveTimeout = 60_000;
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
});
afterEach(() => void upstream.seen.splice(0));

/** The upstream writes `head` and `body`, then resets. */
const cutAfter = (head: Record<string, string | number>, body: string) => (_req: unknown, res: http.ServerResponse) => {
  res.writeHead(200, head);
  res.write(body, () => setTimeout(() => res.destroy(), 20));
};

/** A POST through the proxy by fetch: the text on a clean end, "reset" when the body failed. */
async function received(path: string): Promise<string> {
  const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(CHAT) });
  return res.text().then((text) => text, () => "reset");
}

describe("an upstream that fails mid-body: a clean end only when the client's framing still holds", () => {
  const events = (eol: string) => chatSse(pieces("plain words here", 6)).replaceAll("\n", eol);
  test.each([
    ["LF, passthrough", "/events", "\n"],
    ["CRLF, passthrough", "/events", "\r\n"],
    ["CR only, passthrough", "/events", "\r"],
    ["LF, repaired wire", "/chat/completions", "\n"],
    ["CR only, repaired wire", "/chat/completions", "\r"],
  ])("an event stream without a length cut exactly between events ends cleanly with every event (%s)", async (_name, path, eol) => {
    const whole = events(eol);
    const cut = whole.indexOf(eol + eol, whole.indexOf(eol + eol) + 1) + 2 * eol.length;
    upstream.answer(cutAfter({ "content-type": "text/event-stream" }, whole.slice(0, cut)));
    const lines = proxy.lines.length;
    expect(await bounded(received(path))).toBe(whole.slice(0, cut));
    await settle(() => proxy.lines.length > lines);
    expect(proxy.lines.at(-1)).toMatch(/ 200 \d+ms recovered=0 ended=upstream$/);
  });

  test("hard negative: the same stream not cut ends cleanly, nothing logged as ended", async () => {
    const whole = events("\n");
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(whole));
    const lines = proxy.lines.length;
    expect(await bounded(received("/events"))).toBe(whole);
    await settle(() => proxy.lines.length > lines);
    expect(proxy.lines.at(-1)).toMatch(/ 200 \d+ms recovered=0$/);
  });

  test.each([
    ["an event stream with a content-length, cut between events", { "content-type": "text/event-stream", "content-length": 500 }, "data: {}\n\n"],
    ["chunked JSON, cut mid-body", { "content-type": "application/json" }, '{"id":"x","choices":['],
    ["chunked text, cut mid-body", { "content-type": "text/plain" }, "half of a"],
    // Headers, then a reset before the first byte: the proxy has written nothing of the body yet.
    ["chunked JSON, cut before its first byte", { "content-type": "application/json" }, ""],
    ["JSON with a content-length, cut before its first byte", { "content-type": "application/json", "content-length": 40 }, ""],
    ["an event stream with a content-length, cut before its first byte", { "content-type": "text/event-stream", "content-length": 40 }, ""],
  ])("%s: the client's connection is cut (an error, at once), logged ended=upstream", async (_name, head, body) => {
    upstream.answer(cutAfter(head, body));
    const lines = proxy.lines.length;
    expect(await bounded(received("/events"))).toBe("reset");
    await settle(() => proxy.lines.length > lines);
    expect(proxy.lines.at(-1)).toMatch(/^POST \/events 200 \d+ms recovered=0 ended=upstream$/);
  });

  test("hard negative: an event stream cut after a line end inside an event ends cleanly after the whole events (the half one was held back)", async () => {
    upstream.answer(cutAfter({ "content-type": "text/event-stream" }, "data: {}\n\nid: 1\n"));
    expect(await bounded(received("/events"))).toBe("data: {}\n\n");
  });

  test("a raw keep-alive client: the cut chunked body is never completed by a terminator, the socket closes", async () => {
    upstream.answer(cutAfter({ "content-type": "application/json" }, '{"half":'));
    const out = await bounded(raw(proxy.url, "GET /models HTTP/1.1\r\nHost: p\r\n\r\n"));
    expect(out).not.toBe("hang");
    expect(out.toLowerCase()).toContain("transfer-encoding: chunked");
    expect(out.endsWith("0\r\n\r\n")).toBe(false);
  });
});

describe("request shapes refused before anything goes up", () => {
  test.each([
    ["Transfer-Encoding: gzip, chunked", "POST /embeddings HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "HTTP/1.1 501 Not Implemented"],
    ["Transfer-Encoding: deflate (as its own line before chunked)", "POST /embeddings HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "HTTP/1.1 501 Not Implemented"],
    ["a GET with a chunked body", "GET /search HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", "HTTP/1.1 400 Bad Request"],
    ["a HEAD with a content-length body", "HEAD /search HTTP/1.1\r\nHost: p\r\nContent-Length: 2\r\n\r\nhi", "HTTP/1.1 400 Bad Request"],
    ["two x-api-key headers", "GET /models HTTP/1.1\r\nHost: p\r\nx-api-key: one\r\nX-Api-Key: two\r\n\r\n", "HTTP/1.1 400 Bad Request"],
    ["two Authorization headers, different case", "GET /models HTTP/1.1\r\nHost: p\r\nauthorization: Bearer one\r\nAUTHORIZATION: Bearer one\r\n\r\n", "HTTP/1.1 400 Bad Request"],
  ])("%s", async (_name, request, status) => {
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    const out = await bounded(raw(proxy.url, request));
    expect(statusOf(out)).toBe(status);
    expect(out).toContain("connection: close");
    // The refusal's message never repeats a credential.
    expect(out).not.toContain("Bearer");
    expect(upstream.seen.length).toBe(0);
  });

  test.each([
    ["a chunked POST", "POST /embeddings HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "POST", "abc"],
    ["a GET with an empty chunked body", "GET /models HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n", "GET", ""],
    ["a GET with Content-Length: 0", "GET /models HTTP/1.1\r\nHost: p\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", "GET", ""],
    ["one Authorization and one x-api-key", "GET /models HTTP/1.1\r\nHost: p\r\nAuthorization: Bearer one\r\nx-api-key: two\r\nConnection: close\r\n\r\n", "GET", ""],
  ])("hard negative: %s goes up", async (_name, request, method, body) => {
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    const out = await bounded(raw(proxy.url, request));
    expect(statusOf(out)).toBe("HTTP/1.1 200 OK");
    expect(upstream.seen.map((s) => [s.method, s.body])).toEqual([[method, body]]);
  });
});

describe("Via: the proxy names itself upstream, and a request that comes back is a loop", () => {
  test("the upstream sees the client's Via first, then this proxy's; every other header as sent", async () => {
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    await bounded(raw(proxy.url, "GET /models HTTP/1.1\r\nHost: p\r\nVia: 1.1 front\r\nX-Mine: yes\r\nConnection: close\r\n\r\n"));
    expect(upstream.seen[0]?.headers.via).toMatch(/^1\.1 front, 1\.1 dsml-fix-[0-9a-f]{12}$/);
    expect(upstream.seen[0]?.headers["x-mine"]).toBe("yes");
  });

  test("an HTTP/1.0 client's request goes up named 1.0", async () => {
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    await bounded(raw(proxy.url, "GET /models HTTP/1.0\r\nHost: p\r\n\r\n"));
    expect(upstream.seen[0]?.headers.via).toMatch(/^1\.0 dsml-fix-[0-9a-f]{12}$/);
  });

  test("a request carrying this proxy's own name is answered 508 with one warning, nothing goes up; another proxy's name passes", async () => {
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    await bounded(raw(proxy.url, "GET /models HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n"));
    const own = upstream.seen[0]!.headers.via as string;
    upstream.seen.splice(0);
    const lines = proxy.lines.length;
    const looped = await bounded(raw(proxy.url, `GET /models HTTP/1.1\r\nHost: p\r\nVia: ${own}\r\nConnection: close\r\n\r\n`));
    expect(statusOf(looped)).toBe("HTTP/1.1 508 Loop Detected");
    expect(upstream.seen.length).toBe(0);
    await settle(() => proxy.lines.length >= lines + 2);
    expect(proxy.lines.slice(lines).filter((l) => l.includes("Loop Detected"))).toHaveLength(1);
    expect(proxy.lines.slice(lines).filter((l) => /^GET \/models 508 /.test(l))).toHaveLength(1);
    const other = own.replace(/[0-9a-f]{12}$/, "000000000000");
    expect(statusOf(await bounded(raw(proxy.url, `GET /models HTTP/1.1\r\nHost: p\r\nVia: ${other}\r\nConnection: close\r\n\r\n`)))).toBe("HTTP/1.1 200 OK");
  });
});

describe("a proxy configured to be its own upstream is refused at start", () => {
  async function start(argv: string[]): Promise<{ code: number | "running"; written: string }> {
    const lines: string[] = [];
    const signals = new EventEmitter();
    const running = runProxy(argv, { out: (l) => void lines.push(...l), err: (l) => void lines.push(...l), env: {} }, signals);
    let code: number | "running" = "running";
    void running.then((c) => (code = c));
    for (let i = 0; i < 300 && code === "running" && !lines.some((l) => l.includes("->")); i++) await new Promise((r) => setTimeout(r, 5));
    if (code === "running") {
      signals.emit("SIGTERM");
      await running;
    }
    return { code, written: lines.join("\n") };
  }

  test.each([
    ["127.0.0.1", ["--upstream", "http://127.0.0.1:PORT/v1"]],
    ["localhost", ["--upstream", "http://localhost:PORT/v1"]],
    ["127.0.0.9", ["--upstream", "http://127.0.0.9:PORT"]],
    ["0.0.0.0", ["--upstream", "http://0.0.0.0:PORT/v1"]],
    ["[::1] with --host ::1", ["--upstream", "http://[::1]:PORT/v1", "--host", "::1"]],
    ["a route", ["--upstream", "https://api.example.com", "--route", "/me=http://127.0.0.1:PORT/v1?key=sk-SECRETQ"]],
  ])("%s", async (_name, argv) => {
    const port = 40000 + Math.floor(Math.random() * 20000);
    const { code, written } = await start([...argv.map((a) => a.replace("PORT", String(port))), "--port", String(port)]);
    expect(code).toBe(2);
    expect(written).toContain("is this proxy itself");
    expect(written).not.toContain("sk-SECRETQ");
  });

  test("the rule reads the config: loopback or any address on the proxy's own port, the default ports counted", () => {
    const at = (upstream: string, port: number, host = "127.0.0.1") => routeToItself(proxyConfig(["--upstream", upstream, "--port", String(port), "--host", host]))?.upstream.href;
    expect(at("http://127.0.0.1/v1", 80)).toBe("http://127.0.0.1/v1");
    expect(at("https://localhost/v1", 443)).toBe("https://localhost/v1");
    expect(at("http://[::ffff:127.0.0.1]:8787", 8787, "0.0.0.0")).toBe("http://[::ffff:7f00:1]:8787/");
    expect(at("http://192.0.2.7:8787", 8787, "192.0.2.7")).toBe("http://192.0.2.7:8787/");
    // Hard negatives: another port, another host, a proxy bound to a LAN address, port 0.
    expect(at("http://127.0.0.1:8788/v1", 8787)).toBeUndefined();
    expect(at("https://api.deepseek.com", 443)).toBeUndefined();
    expect(at("http://127.0.0.1:8787/v1", 8787, "192.0.2.7")).toBeUndefined();
    expect(at("http://127.0.0.1:8787/v1", 0)).toBeUndefined();
  });
});

describe("redactedUrl: what a message may show of a URL", () => {
  test.each([
    ["https://user:pa/ss@api example.com/v1", "https://***@api example.com/v1"],
    // A raw `?` or `#` in the password: read either way (a query holding an `@`, or userinfo), what
    // follows may be a key, so nothing after the `user:` authority is shown (review 57, P1).
    ["https://user:pa?ss@api.example.com:99999/v1", "https://***?<redacted>"],
    ["https://user:pa#ss@api.example.com/v1?key=k", "https://***?<redacted>"],
    // An `@` in the query is no userinfo: the host and path before it stay readable.
    ["https://api.example.com:8443/v1?to=a@b.test&key=sk", "https://api.example.com:8443/v1?<redacted>"],
    // ...unless the authority's "port" is no port (over 65535, or more than 5 digits): then it may be
    // `user:password` cut from its `@` by a raw `#` or `?`, and is hidden (fix 57 diff B, PX1).
    ["https://api.example.com:99999/v1?to=a@b.test&key=sk", "https://***?<redacted>"],
    ["https://user:12345678#x@api.example.com/v1", "https://***?<redacted>"],
    ["https://api.example.com:99999/v1?key=sk", "https://api.example.com:99999/v1?<redacted>"],
    ["user:sk@api.example.com/v1", "***@api.example.com/v1"],
    ["https://api.example.com/v1", "https://api.example.com/v1"],
    // The path as the access log shows one (src/grammar/redact.ts redactedPath; review 56).
    ["https://api.example.com/v1;key=sk/chat", "https://api.example.com/v1;[redacted]/chat"],
    ["https://api.example.com/u%3Ask%40gw/v1", "https://api.example.com/[redacted]%40gw/v1"],
    ["api.example.com;key=sk/v1", "api.example.com;[redacted]/v1"],
    ["https://api.example.com/v1beta/models/m:generateContent", "https://api.example.com/v1beta/models/m:generateContent"],
  ])("%s", (given, shown) => {
    expect(redactedUrl(given)).toBe(shown);
  });
});

describe("Expect: 100-continue", () => {
  test("under --max-body: 100 Continue, then the answer", async () => {
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    const out = await bounded(raw(proxy.url, "POST /embeddings HTTP/1.1\r\nHost: p\r\nContent-Length: 3\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n", "abc"));
    expect(typeof out === "string" && out.startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK")).toBe(true);
    expect(upstream.seen.map((s) => s.body)).toEqual(["abc"]);
  });

  test("a path no route covers: 404 without 100 Continue", async () => {
    const routed = await startProxy(["--route", `/ds=${upstream.url}/v1`]);
    try {
      const out = await bounded(raw(routed.url, "POST /elsewhere HTTP/1.1\r\nHost: p\r\nContent-Length: 3\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"));
      expect(statusOf(out)).toBe("HTTP/1.1 404 Not Found");
    } finally {
      await routed.close();
    }
  });
});

describe("the access log for requests the parser refuses", () => {
  test("method and path when the request line was read, the runtime's status, never a header value", async () => {
    const lines = proxy.lines.length;
    const out = await bounded(raw(proxy.url, "POST /chat/completions;key=sk-SECRETQ?x=sk-SECRETQ HTTP/1.1\r\nHost: p\r\nAuthorization: Bearer sk-SECRETQ\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc"));
    expect(statusOf(out)).toBe("HTTP/1.1 400 Bad Request");
    await settle(() => proxy.lines.length > lines);
    expect(proxy.lines.slice(lines)).toEqual(["POST /chat/completions;[redacted] 400 0ms recovered=0"]);
  });

  test("a request line that is not one: dashes", async () => {
    const lines = proxy.lines.length;
    const out = await bounded(raw(proxy.url, "\x01\x02 not http at all\r\n\r\n"));
    expect(statusOf(out)).toBe("HTTP/1.1 400 Bad Request");
    await settle(() => proxy.lines.length > lines);
    expect(proxy.lines.slice(lines)).toEqual(["- - 400 0ms recovered=0"]);
  });
});

describe("bounds and errors of the server itself", () => {
  test("a body that stalls gets 408 once the body-idle bound passes, the connection closed, nothing up; a body that keeps coming goes up", async () => {
    const lines: string[] = [];
    const config = { ...proxyConfig(["--upstream", `${upstream.url}/v1`, "--port", "0"]), bodyIdleMs: 300 };
    const { server, shutdown, inFlight } = createProxyServer(config, { info: (l) => lines.push(l), warn: (l) => lines.push(l) });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      upstream.answer((_req, res) => res.writeHead(200).end("ok"));
      const out = await bounded(raw(url, "POST /embeddings HTTP/1.1\r\nHost: p\r\nContent-Length: 10\r\n\r\nhalf"));
      expect(statusOf(out)).toBe("HTTP/1.1 408 Request Timeout");
      expect(upstream.seen.length).toBe(0);
      await settle(() => inFlight() === 0);
      expect(lines).toEqual([expect.stringMatching(/^POST \/embeddings 408 \d+ms recovered=0$/)]);
      // Four parts, each written once the last was: no gap near the bound.
      const whole = await bounded(raw(url, "POST /embeddings HTTP/1.1\r\nHost: p\r\nContent-Length: 8\r\nConnection: close\r\n\r\n", "ab", "cd", "efgh"));
      expect(statusOf(whole)).toBe("HTTP/1.1 200 OK");
      expect(upstream.seen.map((s) => s.body)).toEqual(["abcdefgh"]);
    } finally {
      await shutdown(100);
    }
  });

  test("an error event after listening is logged and the server serves on", async () => {
    const before = proxy.lines.length;
    proxy.server.emit("error", Object.assign(new Error("too many open files"), { code: "EMFILE" }));
    expect(proxy.lines.slice(before)).toEqual(["dsml-fix proxy: server error: EMFILE"]);
    const health = await bounded(fetch(`${proxy.url}/healthz`).then((r) => r.status));
    expect(health).toBe(200);
  });
});
