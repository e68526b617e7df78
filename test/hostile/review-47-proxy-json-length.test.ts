/**
 * Review 47 (src/proxy/server.ts relay, src/adapters/fetch.ts rebuilt): a non-streaming JSON answer
 * the repair changes must go out with framing that matches its new bytes, on the wire as a raw
 * client reads it (a stale content-length would cut the body or swallow the next answer).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { block, live } from "../golden/notation.ts";
import { startProxy, startUpstream, TOOLS, type Proxy, type Upstream } from "../proxy/support.ts";

const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));

function raw(url: string, bytes: string): Promise<Buffer> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(bytes));
    socket.on("data", (data: Buffer) => parts.push(data));
    socket.on("close", () => resolve(Buffer.concat(parts)));
    socket.on("error", () => resolve(Buffer.concat(parts)));
  });
}

/** The answer's headers (lower-cased names) and its body as the framing says. */
function framed(out: Buffer): { headers: Map<string, string>; body: Buffer; rest: Buffer } {
  const end = out.indexOf("\r\n\r\n");
  const headers = new Map(out.subarray(0, end).toString("latin1").split("\r\n").slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()] as [string, string]));
  let at = end + 4;
  if (headers.get("transfer-encoding") === "chunked") {
    const parts: Buffer[] = [];
    for (;;) {
      const eol = out.indexOf("\r\n", at);
      const size = parseInt(out.subarray(at, eol).toString("latin1"), 16);
      at = eol + 2;
      if (size === 0) return { headers, body: Buffer.concat(parts), rest: out.subarray(at + 2) };
      parts.push(out.subarray(at, at + size));
      at += size + 2;
    }
  }
  const length = Number(headers.get("content-length"));
  return { headers, body: out.subarray(at, at + length), rest: out.subarray(at + length) };
}

let upstream: Upstream;
let proxy: Proxy;
beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startProxy(["--upstream", `${upstream.url}/v1`]);
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
});

const answer = JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: `Reading. ${LEAK}` }, finish_reason: "stop" }] });
const request = JSON.stringify({ model: "m", messages: [{ role: "user", content: "read a.ts" }], tools: TOOLS });
const post = `POST /chat/completions HTTP/1.1\r\nHost: p\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(request)}\r\n\r\n${request}`;

describe("hard negatives (pass today): a repaired JSON answer's framing on the wire", () => {
  test.each([
    ["plain, with the upstream's content-length", false],
    ["gzip, decoded by fetch", true],
  ])("%s: the framing matches the repaired bytes, and a pipelined second answer stays separate", async (_name, gzip) => {
    upstream.answer((_req, res) => {
      const bytes = gzip ? gzipSync(answer) : Buffer.from(answer);
      res.writeHead(200, { "content-type": "application/json", "content-length": bytes.length, ...(gzip ? { "content-encoding": "gzip" } : {}) }).end(bytes);
    });
    const out = await raw(proxy.url, post + post.replace("Host: p", "Host: p\r\nConnection: close"));
    const first = framed(out);
    const json = JSON.parse(first.body.toString("utf8"));
    expect(json.choices[0].message.tool_calls?.[0]?.function?.name).toBe("read");
    expect(first.headers.has("content-encoding")).toBe(false);
    const second = framed(first.rest);
    expect(JSON.parse(second.body.toString("utf8")).choices[0].message.tool_calls[0].function.name).toBe("read");
  });
});
