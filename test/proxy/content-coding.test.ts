// A compressed answer through the proxy (an upstream that ignores `accept-encoding: identity`):
// whatever this runtime's fetch decoded goes out plain and repaired, without the stale
// content-encoding and content-length; whatever it did not decode goes out byte for byte with
// both, unrepaired, and --debug says why. Either way the client can read what it gets.
import { describe, expect, test } from "bun:test";
import zlib from "node:zlib";
import { bodyCoding } from "../../src/adapters/content-coding.ts";
import { block, live } from "../golden/notation.ts";
import { chatSse, proxyFixture, TOOLS, type Proxy, type Upstream } from "./support.ts";

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("/v1", (both) => ({ upstream, proxy } = both), ["--debug"]);

const LEAK = live(block("tool_calls", [["read", [["path", "/etc/passwd"]]]]));
const CODERS: Record<string, (bytes: Buffer) => Buffer<ArrayBufferLike>> = {
  gzip: (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
};
/** The upstream's bytes for `header`, each coding applied in order; `x-custom` stands for gzip bytes nothing decodes. */
function encode(header: string, text: string): Buffer<ArrayBufferLike> {
  let bytes: Buffer<ArrayBufferLike> = Buffer.from(text);
  for (const coding of header.split(",").map((c) => c.trim())) if (coding !== "identity") bytes = (CODERS[coding] ?? CODERS.gzip!)(bytes);
  return bytes;
}
/** What this runtime's fetch does with a body sent with `header`. */
const expected = (header: string) => bodyCoding(new Response("x", { headers: { "content-encoding": header } }));

const chat = { model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "read it" }], tools: TOOLS };
const post = (body: unknown) => fetch(`${proxy.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), decompress: false } as RequestInit);

describe("a compressed event stream with a leak", () => {
  // Bun and Node differ on the chains (`gzip, gzip`, `gzip, identity`); the test holds under either.
  test.each(["gzip", "deflate", "br", "gzip, gzip", "gzip, identity", "x-custom", "gzip, x-custom"])("%s: decoded and repaired, or byte for byte with its header", async (header) => {
    const sent = encode(header, chatSse(["Reading. ", LEAK]));
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": header, "content-length": sent.length }).end(sent));
    const before = proxy.lines.length;
    const res = await post(chat);
    const got = Buffer.from(await res.arrayBuffer());
    if (expected(header) === "decoded") {
      expect([res.headers.get("content-encoding"), res.headers.get("content-length")]).toEqual([null, null]);
      expect(got.toString("utf8")).toContain('"tool_calls"');
    } else {
      expect([res.headers.get("content-encoding"), res.headers.get("content-length"), got.equals(sent)]).toEqual([header, String(sent.length), true]);
      expect(proxy.lines.slice(before).some((line) => line.includes("still content-encoded") && line.includes("passing through unrepaired"))).toBe(true);
    }
  });

  test("the runtime decodes some chains and not others, so both branches above ran", () => {
    const outcomes = new Set(["gzip", "gzip, gzip", "gzip, identity", "x-custom"].map(expected));
    expect([...outcomes].sort()).toEqual(["decoded", "encoded"]);
  });
});

describe("a compressed JSON answer", () => {
  test("x-custom JSON goes out as it came, with its header", async () => {
    const sent = encode("x-custom", JSON.stringify({ id: "c", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: LEAK }, finish_reason: "stop" }] }));
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "x-custom" }).end(sent));
    const res = await post({ ...chat, stream: false });
    const got = Buffer.from(await res.arrayBuffer());
    expect([res.headers.get("content-encoding"), got.equals(sent)]).toEqual(["x-custom", true]);
  });

  test("gzip JSON is decoded, repaired and goes out plain", async () => {
    const sent = encode("gzip", JSON.stringify({ id: "c", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: LEAK }, finish_reason: "stop" }] }));
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(sent));
    const res = await post({ ...chat, stream: false });
    const body = JSON.parse(Buffer.from(await res.arrayBuffer()).toString("utf8"));
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(body.choices[0].message.tool_calls[0].function.name).toBe("read");
  });
});

describe("an answer with no body", () => {
  test("HEAD keeps the content-encoding and content-length that describe the resource", async () => {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/octet-stream", "content-encoding": "gzip", "content-length": "1234" }).end());
    const res = await fetch(`${proxy.url}/files/f`, { method: "HEAD" });
    expect([res.status, res.headers.get("content-encoding"), res.headers.get("content-length")]).toEqual([200, "gzip", "1234"]);
  });
});

describe("a compressed request body (fx-55)", () => {
  const answer = () => upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "c", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: LEAK }, finish_reason: "stop" }] })));
  const send = (body: Uint8Array, coding: string) =>
    fetch(`${proxy.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", "content-encoding": coding }, body: body as Uint8Array<ArrayBuffer> });

  test.each(["gzip", "br", "deflate"])("%s: read for its tools, the reply repaired, the bytes going up as sent with their header", async (coding) => {
    answer();
    const sent = encode(coding, JSON.stringify({ ...chat, stream: false }));
    const body = JSON.parse(await (await send(sent, coding)).text());
    expect(body.choices[0].message.tool_calls[0].function.name).toBe("read");
    expect(Buffer.from(upstream.seen[0]!.raw).equals(sent)).toBe(true);
    expect(upstream.seen[0]!.headers["content-encoding"]).toBe(coding);
  });

  test("a body that decodes past --max-body is not read: the reply passes as written, the bytes go up as sent", async () => {
    answer();
    // 80 MiB of spaces after the JSON: past the proxy's default body limit (64 MiB) decoded, about 80 KB sent.
    // gzip members one after another decode as one body: the JSON, then ten members of 8 MiB of spaces each.
    const spaces = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    const sent = Buffer.concat([zlib.gzipSync(JSON.stringify({ ...chat, stream: false })), ...Array<Buffer>(10).fill(spaces)]);
    const before = proxy.lines.length;
    const body = JSON.parse(await (await send(sent, "gzip")).text());
    expect(body.choices[0].message.content).toBe(LEAK);
    expect(Buffer.from(upstream.seen[0]!.raw).equals(sent)).toBe(true);
    expect(proxy.lines.slice(before).some((line) => line.includes("decodes to more than the 67108864-byte read bound"))).toBe(true);
  });
});
