// Review 55 (hostile, tests only): the request body in every form a client may hand the fetch
// adapter (src/adapters/request-body.ts, fetch.ts planRequest): the plan must be read from the very
// bytes that go upstream, and those bytes must go as they came.
import { describe, expect, test } from "bun:test";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { type Seen, URLS, fn, leak, names, readReply, replyJson, requestBody, upstream } from "./review-55-request-support.ts";

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
  test.failing("a gzip request body is read: the reply's leak is recovered", async () => {
    const got = await through(URLS.chat, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body: gzipSync(BODY) });
    expect(got.calls).toEqual(["bash"]);
  });

  test.failing("a br request body is read: the reply's leak is recovered", async () => {
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
