/**
 * Review 47 (src/proxy/server.ts, the access log): one line per request, with what ended it.
 * Waits are bounded by a count of rounds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { chatSse, startProxy, startUpstream, TOOLS, type Proxy, type Upstream } from "../proxy/support.ts";

async function settle(settled: () => boolean, rounds = 300): Promise<void> {
  for (let i = 0; i < rounds && !settled(); i++) await new Promise((r) => setTimeout(r, 10));
}
function raw(url: string, bytes: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    let out = "";
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(bytes));
    socket.on("data", (data) => (out += data.toString("latin1")));
    socket.on("close", () => resolve(out));
    socket.on("error", () => resolve(out));
  });
}

let upstream: Upstream;
beforeAll(async () => void (upstream = await startUpstream()));
afterAll(() => upstream.close());
const CHAT = { model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: TOOLS };

describe("what the access log says ended a request", () => {
  // fixed: the rule now: an answer still open when the shutdown's cap runs out is logged
  // `ended=shutdown` (a client that left before it is still `ended=client`). What was wrong:
  // Was (low: the log blames the client). A stream still open when the shutdown's cap runs out
  // is cut by the proxy (closeAllConnections), and the access log says "ended=client", the same
  // words as a client that went away. An operator reading why answers were cut after a restart is
  // sent to the clients. Expected: a word of its own (e.g. "ended=shutdown").
  // Suspected: src/proxy/server.ts (the res "close" handler reads only res.writableFinished).
  test("a stream cut at the shutdown's cap is not logged as the client's doing", async () => {
    const first = chatSse(["x"]).split("\n\n")[0] + "\n\n";
    upstream.answer((_req, res) => void res.writeHead(200, { "content-type": "text/event-stream" }).write(first));
    const proxy = await startProxy(["--upstream", `${upstream.url}/v1`]);
    const res = await fetch(`${proxy.url}/chat/completions`, { method: "POST", body: JSON.stringify(CHAT) });
    const reader = res.body!.getReader();
    await reader.read();
    await proxy.stop(100);
    await reader.read().catch(() => {});
    await settle(() => proxy.lines.length > 0);
    expect(proxy.lines).toHaveLength(1);
    expect(proxy.lines[0]).toMatch(/^POST \/chat\/completions 200 \d+ms recovered=0/);
    expect(proxy.lines[0]).not.toContain("ended=client");
  });
});

describe("requests the server's parser refuses", () => {
  let proxy: Proxy;
  beforeAll(async () => void (proxy = await startProxy(["--upstream", `${upstream.url}/v1`])));
  afterAll(() => proxy.close());

  // fixed: the rule now: a clientError handler answers what the parser refuses with the runtime's
  // status (431 for a header over the limit, 408 for a timeout, else 400) and writes one access-log
  // line: method and path when the request line was read, else `-`, never a header. What was wrong:
  // Was (low: refused requests leave no trace). A request with both Content-Length and
  // Transfer-Encoding (the classic smuggling shape), two different Content-Lengths, or a 100 KiB
  // header is answered 400/431 by the runtime's parser before the proxy's handler runs, and the
  // access log gets no line at all: "one access-log line per request" holds only for requests the
  // parser liked, and the ones an operator most wants to see are the ones missing. Expected: one
  // line each (method and path if known, else "-", the status). Suspected: src/proxy/server.ts
  // (no "clientError" handler on the server).
  test("a smuggling-shaped or oversized request is refused and logged", async () => {
    const before = proxy.lines.length;
    const replies = [
      await raw(proxy.url, "POST /chat/completions HTTP/1.1\r\nHost: p\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n"),
      await raw(proxy.url, "POST /chat/completions HTTP/1.1\r\nHost: p\r\nContent-Length: 3\r\nContent-Length: 30\r\nConnection: close\r\n\r\nabc"),
      await raw(proxy.url, `GET /models HTTP/1.1\r\nHost: p\r\nX-Big: ${"a".repeat(100 * 1024)}\r\nConnection: close\r\n\r\n`),
    ];
    expect(replies.map((r) => r.split("\r\n")[0]!.split(" ")[1])).toEqual(["400", "400", "431"]);
    await settle(() => proxy.lines.length >= before + 3, 100);
    expect(proxy.lines.length - before).toBe(3);
  });
});
