// Review 55 (hostile, tests only): the request body in every form a client may hand the fetch
// adapter (src/adapters/request-body.ts, fetch.ts planRequest): the plan must be read from the very
// bytes that go upstream, and those bytes must go as they came.
import { describe, expect, test } from "bun:test";
import * as zlib from "node:zlib";
import { brotliCompressSync, brotliDecompressSync, deflateRawSync, deflateSync, gunzipSync, gzipSync } from "node:zlib";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { type Json, type Seen, URLS, fn, leak, names, readReply, replyJson, requestBody, upstream } from "./review-55-request-support.ts";

const REPLY = `Running.\n${leak("bash")}`;
const BODY = JSON.stringify(requestBody("chat", [fn("chat", "bash")]));
const streamOf = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      // Two chunks, cut inside the JSON.
      controller.enqueue(bytes.subarray(0, 17));
      controller.enqueue(bytes.subarray(17));
      controller.close();
    },
  });

/** The calls a chat client gets for REPLY, and the body text the upstream read, for this fetch call. */
async function through(input: string | URL | Request, init?: RequestInit): Promise<{ calls: string[]; sent: string | undefined }> {
  const seen: Seen = { body: undefined };
  const res = await repairFetch({}, upstream(replyJson("chat", REPLY), seen))(input, init);
  return { calls: names(readReply("chat", await res.json()).calls), sent: seen.body };
}

describe("content-coded request bodies", () => {
  // FINDING (missed call, lowest). A client may compress its request body (`content-encoding:
  // gzip` or `br`; servers behind nginx or a gateway that inflates requests accept it). The
  // adapter decodes the compressed bytes as UTF-8, finds no JSON, and stands aside: no leak in the
  // reply is recovered, and no replayed leak in the history is sanitized. Nothing wrong runs.
  // Minimal input: the chat body of `tools: [bash]` gzipped, `content-encoding: gzip`; reply
  // `<tool_call>{"name":"bash","arguments":{"command":"ls -la"}}</tool_call>`.
  // Suspected: src/adapters/request-body.ts readRequestBody (no request content coding read).
  // Expected: a body whose content-encoding is gzip, deflate or br is inflated to be read (the
  // compressed bytes still go upstream as sent, or re-compressed after a history rewrite), and the
  // reply is repaired as for the plain body.
  // Fixed: src/adapters/request-coding.ts. A body whose one content coding is gzip (x-gzip),
  // deflate (the zlib format), br, or zstd where node:zlib has it is decoded (up to the adapter's
  // read bound, 32 MiB, or the proxy's --max-body: decoding stops there) and read; it goes up as the
  // very bytes sent unless the history pass changes it, and then as the changed JSON encoded again
  // with the same coding (its content-encoding still holds, the stale content-length goes). Any
  // other coding, a chain of codings, or bytes that do not decode: the adapter stands aside with one
  // debug line and the bytes go up as sent.
  test("a gzip request body is read: the reply's leak is recovered", async () => {
    const got = await through(URLS.chat, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body: gzipSync(BODY) });
    expect(got.calls).toEqual(["bash"]);
  });

  test("a br request body is read: the reply's leak is recovered", async () => {
    const got = await through(URLS.chat, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "br" }, body: brotliCompressSync(BODY) });
    expect(got.calls).toEqual(["bash"]);
  });

  test("hard negative (pass on main): the compressed bytes go upstream untouched", async () => {
    const gz = gzipSync(BODY);
    const seen: Seen = { body: undefined };
    let bytes: Uint8Array | undefined;
    const base = (async (input: string | URL | Request, init?: RequestInit) => {
      bytes = new Uint8Array(await new Request(input, init).arrayBuffer());
      return upstream(replyJson("chat", REPLY), seen)(URLS.chat, { method: "POST", body: "{}" });
    }) as unknown as typeof fetch;
    await repairFetch({}, base)(URLS.chat, { method: "POST", headers: { "content-encoding": "gzip" }, body: gz });
    expect(bytes).toEqual(new Uint8Array(gz));
  });
});

const GZIP_HEADERS = { "content-type": "application/json", "content-encoding": "gzip" };

/** The calls a chat client gets for REPLY, the bytes and headers the upstream got, and the debug lines, for this fetch call. */
async function coded(init: RequestInit, deps: { maxBodyBytes?: number } = {}, input: string | Request = URLS.chat) {
  let bytes: Uint8Array | undefined;
  let headers: Headers | undefined;
  const lines: string[] = [];
  const base = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    headers = request.headers;
    bytes = new Uint8Array(await request.arrayBuffer());
    return new Response(JSON.stringify(replyJson("chat", REPLY)), { status: 200, headers: { "content-type": "application/json" } });
  }) as unknown as typeof fetch;
  const res = await repairFetch({ debug: (line) => void lines.push(line) }, base, deps)(input, init);
  return { calls: names(readReply("chat", await res.json()).calls), bytes: bytes!, headers: headers!, lines };
}

describe("content-coded request bodies: what is read, what goes up (fx-55)", () => {
  test("deflate (zlib format), x-gzip, `gzip, identity`, and a Request carrying the header are read; the bytes go up as sent", async () => {
    const cases: [string, Uint8Array<ArrayBuffer>][] = [["deflate", deflateSync(BODY)], ["x-gzip", gzipSync(BODY)], ["gzip, identity", gzipSync(BODY)], ["GZIP", gzipSync(BODY)]];
    for (const [coding, body] of cases) {
      const got = await coded({ method: "POST", headers: { "content-type": "application/json", "content-encoding": coding }, body });
      expect(got.calls).toEqual(["bash"]);
      expect(got.bytes).toEqual(new Uint8Array(body));
      expect(got.headers.get("content-encoding")).toBe(coding);
    }
    const gz = gzipSync(BODY);
    const request = new Request(URLS.chat, { method: "POST", headers: GZIP_HEADERS, body: gz });
    const got = await coded(undefined as never, {}, request);
    expect(got.calls).toEqual(["bash"]);
    expect(got.bytes).toEqual(new Uint8Array(gz));
  });

  test("zstd is read where node:zlib has it, and stood aside from where it has not", async () => {
    const zstd = (zlib as unknown as { zstdCompressSync?: (b: string) => Uint8Array<ArrayBuffer> }).zstdCompressSync;
    const body = zstd ? zstd(BODY) : gzipSync(BODY);
    const got = await coded({ method: "POST", headers: { "content-type": "application/json", "content-encoding": "zstd" }, body });
    expect(got.calls).toEqual(zstd ? ["bash"] : []);
    expect(got.bytes).toEqual(new Uint8Array(body));
  });

  test("a history the pass changes goes up as the sanitized JSON, gzipped again; the header kept, a stale content-length dropped", async () => {
    const replayed: Json = { ...requestBody("chat", [fn("chat", "bash")]), messages: [{ role: "user", content: "go" }, { role: "assistant", content: `Running.\n${leak("bash", { command: "rm -rf /tmp/x" })}` }, { role: "user", content: "and?" }] };
    const gz = gzipSync(JSON.stringify(replayed));
    const got = await coded({ method: "POST", headers: { ...GZIP_HEADERS, "content-length": String(gz.length) }, body: gz });
    expect(got.calls).toEqual(["bash"]);
    expect(got.headers.get("content-encoding")).toBe("gzip");
    expect(got.headers.get("content-length")).not.toBe(String(gz.length));
    const sent = JSON.parse(gunzipSync(got.bytes).toString("utf8"));
    expect(sent.messages[1].content).not.toContain("rm -rf");
    expect(sent.messages[0]).toEqual(replayed.messages[0]);
    expect(sent.tools).toEqual(replayed.tools);
  });

  test("a br body whose history changes goes up brotli-encoded again", async () => {
    const replayed = { ...requestBody("chat", [fn("chat", "bash")]), messages: [{ role: "assistant", content: `Running.\n${leak("bash", { command: "rm -rf /tmp/x" })}` }, { role: "user", content: "and?" }] };
    const got = await coded({ method: "POST", headers: { "content-type": "application/json", "content-encoding": "br" }, body: brotliCompressSync(JSON.stringify(replayed)) });
    expect(got.headers.get("content-encoding")).toBe("br");
    expect(JSON.parse(brotliDecompressSync(got.bytes).toString("utf8")).messages[0].content).not.toContain("rm -rf");
  });

  test("codings not read stand aside with one debug line, the bytes going up as sent: unknown, a chain, corrupt, a string body", async () => {
    const gz = gzipSync(BODY);
    const cases: [string, Uint8Array<ArrayBuffer> | string][] = [["compress", gz], ["x-custom", gz], ["gzip, gzip", gzipSync(gz)], ["br, gzip", gz], ["gzip", gz.slice(0, gz.length - 9)], ["gzip", new TextEncoder().encode(BODY)], ["deflate", deflateRawSync(BODY)], ["gzip", BODY]];
    for (const [coding, body] of cases) {
      const got = await coded({ method: "POST", headers: { "content-type": "application/json", "content-encoding": coding }, body });
      expect(got.calls).toEqual([]);
      expect(got.bytes).toEqual(typeof body === "string" ? new TextEncoder().encode(body) : new Uint8Array(body));
      expect(got.lines.filter((line) => line.includes("passing through unrepaired"))).toHaveLength(1);
    }
  });

  test("a zip bomb stops at the decoded bound: the adapter stands aside, the bytes go up as sent", async () => {
    // Valid JSON that decodes past the bound (spaces after the object).
    const padded = gzipSync(Buffer.concat([Buffer.from(BODY), Buffer.alloc(2 * 1024 * 1024, 0x20)]));
    const small = await coded({ method: "POST", headers: GZIP_HEADERS, body: padded }, { maxBodyBytes: 1024 * 1024 });
    expect(small.calls).toEqual([]);
    expect(small.bytes).toEqual(new Uint8Array(padded));
    expect(small.lines.some((line) => line.includes("decodes to more than the 1048576-byte read bound"))).toBe(true);
    // The same body under the default bound (32 MiB) is read.
    expect((await coded({ method: "POST", headers: GZIP_HEADERS, body: padded })).calls).toEqual(["bash"]);
    // 40 MiB of spaces (about 40 KB gzipped) past the default bound.
    // gzip members one after another decode as one body: the JSON, then five members of 8 MiB of spaces each.
    const spaces = gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    const bomb = new Uint8Array(Buffer.concat([gzipSync(BODY), ...Array<Buffer>(5).fill(spaces)]));
    const big = await coded({ method: "POST", headers: GZIP_HEADERS, body: bomb });
    expect(big.calls).toEqual([]);
    expect(big.bytes).toEqual(new Uint8Array(bomb));
  });
});

describe("hard negatives (pass on main): every body form is read, and goes upstream as sent", () => {
  const bytes = new TextEncoder().encode(BODY);
  const forms: [string, () => [string | URL | Request, RequestInit | undefined]][] = [
    ["a string", () => [URLS.chat, { method: "POST", body: BODY }]],
    ["a URL object and a lower-case method", () => [new URL(URLS.chat), { method: "post", body: BODY }]],
    ["a Uint8Array view into a larger buffer", () => {
      const big = new Uint8Array(bytes.length + 8);
      big.set(bytes, 4);
      return [URLS.chat, { method: "POST", body: big.subarray(4, 4 + bytes.length) }];
    }],
    ["an ArrayBuffer", () => [URLS.chat, { method: "POST", body: bytes.slice().buffer }]],
    ["a Blob", () => [URLS.chat, { method: "POST", body: new Blob([bytes], { type: "application/json" }) }]],
    ["a ReadableStream with duplex half", () => [URLS.chat, { method: "POST", body: streamOf(bytes), duplex: "half" } as RequestInit]],
    ["a Request", () => [new Request(URLS.chat, { method: "POST", body: BODY }), undefined]],
    ["a Request whose body is a stream", () => [new Request(URLS.chat, { method: "POST", body: streamOf(bytes), duplex: "half" } as RequestInit), undefined]],
    ["a Request with init headers only", () => [new Request(URLS.chat, { method: "POST", body: BODY }), { headers: { "content-type": "application/json" } }]],
    ["a Request whose body init replaces", () => [new Request(URLS.chat, { method: "POST", body: '{"model":"m","messages":[]}' }), { body: BODY }]],
    ["a query string on the path", () => [`${URLS.chat}?api-version=2024-10-01`, { method: "POST", body: BODY }]],
    ["a leading byte order mark", () => [URLS.chat, { method: "POST", body: `\uFEFF${BODY}` }]],
  ];
  for (const [name, make] of forms) {
    test(name, async () => {
      const [input, init] = make();
      const got = await through(input, init);
      expect(got.calls).toEqual(["bash"]);
      expect(got.sent?.replace(/^\uFEFF/, "")).toBe(BODY);
    });
  }

  test("a body that is not JSON, or a Request init empties, passes through unrepaired and unchanged", async () => {
    for (const body of ["model=m&tools=bash", `${BODY}}`, ""]) {
      const got = await through(URLS.chat, { method: "POST", body });
      expect(got.calls).toEqual([]);
      expect(got.sent ?? "").toBe(body);
    }
    const emptied = await through(new Request(URLS.chat, { method: "POST", body: BODY }), { body: null });
    expect(emptied.calls).toEqual([]);
  });
});
