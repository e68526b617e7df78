/**
 * An upstream that closes a connection under a request before answering it (a pooled keep-alive
 * connection it had already let go, as a provider's load balancer does after its idle timeout):
 * the proxy sends the request once more on a new connection, and only once. Before, the client
 * got 502 "upstream unreachable" for a request the upstream never read (seen in the review-49
 * differential test, where a pooled connection to the fake upstream was reset after an idle run).
 */
import { afterEach, describe, expect, test } from "bun:test";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { startProxy, type Proxy } from "./support.ts";

interface RawUpstream {
  url: string;
  /** Requests whose connection it closed, and requests it answered. */
  counts(): { reset: number; answered: number };
  close(): Promise<void>;
}

/** A raw HTTP/1.1 server: the first `resets` requests get their connection closed with no answer, later ones a JSON 200. */
async function rawUpstream(resets: number): Promise<RawUpstream> {
  let reset = 0;
  let answered = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let seen = "";
    socket.on("data", (chunk) => {
      seen += chunk.toString("latin1");
      const head = seen.indexOf("\r\n\r\n");
      if (head < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(seen.slice(0, head))?.[1] ?? 0);
      if (seen.length < head + 4 + length) return;
      seen = "";
      if (reset < resets) {
        reset++;
        socket.resetAndDestroy();
        return;
      }
      answered++;
      const body = '{"ok":true}';
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ reset, answered }),
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

let open: { proxy?: Proxy; upstream?: RawUpstream } = {};
afterEach(async () => {
  await open.proxy?.close();
  await open.upstream?.close();
  open = {};
});

async function post(proxy: Proxy, path: string, body: string) {
  const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text() };
}

describe("a connection closed under a request before any answer", () => {
  test("once: the request goes again on a new connection and the client gets the answer", async () => {
    const upstream = await rawUpstream(1);
    const proxy = await startProxy(["--upstream", upstream.url]);
    open = { proxy, upstream };
    const got = await post(proxy, "/v1/chat/completions", JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }));
    expect(got).toEqual({ status: 200, text: '{"ok":true}' });
    expect(upstream.counts()).toEqual({ reset: 1, answered: 1 });
  });

  test("on a path the proxy does not repair too (a models list, an embedding)", async () => {
    const upstream = await rawUpstream(1);
    const proxy = await startProxy(["--upstream", upstream.url]);
    open = { proxy, upstream };
    expect(await post(proxy, "/v1/embeddings", '{"input":"x"}')).toEqual({ status: 200, text: '{"ok":true}' });
    expect(upstream.counts()).toEqual({ reset: 1, answered: 1 });
  });

  test("twice: sent only once more, then the client gets 502 (never a third try)", async () => {
    const upstream = await rawUpstream(5);
    const proxy = await startProxy(["--upstream", upstream.url]);
    open = { proxy, upstream };
    const got = await post(proxy, "/v1/chat/completions", JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }));
    expect(got.status).toBe(502);
    expect(got.text).toContain("upstream unreachable");
    expect(upstream.counts()).toEqual({ reset: 2, answered: 0 });
  });

  test("hard negative: an upstream that answers at once is asked once", async () => {
    const upstream = await rawUpstream(0);
    const proxy = await startProxy(["--upstream", upstream.url]);
    open = { proxy, upstream };
    expect((await post(proxy, "/v1/chat/completions", "{}")).status).toBe(200);
    expect(upstream.counts()).toEqual({ reset: 0, answered: 1 });
  });
});
