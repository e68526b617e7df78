/**
 * Review 47 (src/proxy/server.ts relay): response header bytes on a path that must pass through
 * unchanged. A raw upstream (node:net) writes exact header bytes, a raw client reads exact bytes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { startProxy, type Proxy } from "../proxy/support.ts";

/** A one-answer-per-connection upstream that writes `reply` (bytes) to every request. */
async function rawUpstream(reply: () => Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.once("data", () => socket.end(reply()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
}

/** One GET over a raw socket; the answer's exact bytes. */
function rawGet(url: string, path: string): Promise<Buffer> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n`));
    socket.on("data", (data: Buffer) => parts.push(data));
    socket.on("close", () => resolve(Buffer.concat(parts)));
    socket.on("error", () => resolve(Buffer.concat(parts)));
  });
}

const E_ACUTE_LATIN1 = Buffer.from([0xe9]);
const E_ACUTE_UTF8 = Buffer.from([0xc3, 0xa9]);

let current: Buffer = Buffer.alloc(0);
let upstream: Awaited<ReturnType<typeof rawUpstream>>;
let proxy: Proxy;
beforeAll(async () => {
  upstream = await rawUpstream(() => current);
  proxy = await startProxy(["--upstream", `${upstream.url}/v1`]);
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
});

const answer = (header: Buffer) => Buffer.concat([Buffer.from("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nContent-Disposition: attachment; filename=\"caf"), header, Buffer.from('.txt"\r\n\r\nok')]);

describe("hard negatives (pass today): a header value with bytes above 0x7F on a passthrough path", () => {
  // fetch reads a header value's bytes as latin1 (one char per byte); the relay must write them
  // back as the same bytes, not as UTF-8 (a latin1 E9 would become C3 A9, a UTF-8 filename in
  // Content-Disposition mojibake). Bun's writeHead keeps them today; a change of runtime or of
  // how relay builds its headers would break this.
  test.each([
    ["latin1 E9", E_ACUTE_LATIN1],
    ["UTF-8 C3 A9", E_ACUTE_UTF8],
  ])("%s reaches the client as the same bytes", async (_name, bytes) => {
    current = answer(bytes);
    const out = await rawGet(proxy.url, "/files/1/content");
    const head = out.subarray(0, out.indexOf("\r\n\r\n"));
    const sent = Buffer.concat([Buffer.from('filename="caf'), bytes, Buffer.from('.txt"')]);
    expect(head.includes(sent)).toBe(true);
  });

  test("an ASCII value passes unchanged", async () => {
    current = answer(Buffer.from("e"));
    const out = await rawGet(proxy.url, "/files/1/content");
    expect(out.includes(Buffer.from('filename="cafe.txt"'))).toBe(true);
  });
});
