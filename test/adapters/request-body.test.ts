/**
 * Issue 32 ("found while trying this"): the fetch adapter reads the declared tools from the request
 * it forwards, so the same leak through the same upstream must be repaired whatever form the request
 * body takes (every `BodyInit`, and a `Request` object), and the upstream must receive the same
 * bytes it would have received without the adapter. A form that is not a JSON body, or a buffered
 * body over the read bound, is passed through with a debug line saying why.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { readRequestBody } from "../../src/adapters/request-body.ts";
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, URL_CHAT } from "../security/support.ts";
import { randomCuts } from "../support/run-engine.ts";
import { cutStream } from "../support/bytes.ts";

const LEAK = `Writing it.\n${live(block("tool_calls", [["bash", [["command", "echo hi > a.txt"]]]]))}`;
const REPLY = sseText(deltas(LEAK, 7));
// A multi-byte character, so a stream cut at every byte splits it.
const JSON_BODY = JSON.stringify({ model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "écris-le ✓" }], tools: openAiTools() });
const BYTES = new TextEncoder().encode(JSON_BODY);

/** A stream of `bytes` in pieces of `size` bytes. */
function byteStream(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/** The adapter over an upstream that records the bytes it received and answers with the leak. */
function harness() {
  const received: string[] = [];
  const bodies: unknown[] = [];
  const lines: string[] = [];
  const upstream = async (input: string | URL | Request, init?: RequestInit) => {
    bodies.push(init?.body);
    received.push(await new Request(input, init).text());
    return new Response(REPLY, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  const fetch = repairFetch({ debug: (line) => void lines.push(line) }, upstream as typeof globalThis.fetch);
  return { fetch, received, bodies, lines };
}

const post = (body: BodyInit, extra: RequestInit = {}): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body, ...extra });

const REPAIRED_FORMS: Record<string, () => [string | Request, RequestInit | undefined]> = {
  string: () => [URL_CHAT, post(JSON_BODY)],
  Uint8Array: () => [URL_CHAT, post(BYTES.slice())],
  Buffer: () => [URL_CHAT, post(Buffer.from(JSON_BODY))],
  ArrayBuffer: () => [URL_CHAT, post(BYTES.slice().buffer)],
  DataView: () => [URL_CHAT, post(new DataView(BYTES.slice().buffer))],
  Blob: () => [URL_CHAT, post(new Blob([JSON_BODY], { type: "application/json" }))],
  "ReadableStream (one chunk)": () => [URL_CHAT, post(byteStream(BYTES, BYTES.length), { duplex: "half" } as RequestInit)],
  "ReadableStream (one byte per chunk)": () => [URL_CHAT, post(byteStream(BYTES, 1), { duplex: "half" } as RequestInit)],
  Request: () => [new Request(URL_CHAT, post(JSON_BODY)), undefined],
  "Request with a stream body": () => [new Request(URL_CHAT, post(byteStream(BYTES, 5), { duplex: "half" } as RequestInit)), undefined],
  "Request plus an init that replaces its body": () => [new Request(URL_CHAT, post("not json")), post(BYTES.slice())],
};

describe("every body form a client may pass is read, and the upstream gets the same bytes", () => {
  for (const [form, make] of Object.entries(REPAIRED_FORMS)) {
    test(`${form}: the leak becomes a call`, async () => {
      const { fetch, received, lines } = harness();
      const [input, init] = make();
      const response = await fetch(input, init);
      expect(assemble(await response.text()).calls.map((call) => call.name)).toEqual(["bash"]);
      expect(received).toEqual([JSON_BODY]);
      expect(lines).toEqual([]);
    });
  }
});

describe("a streamed body cut anywhere", () => {
  test("reads the same text and forwards the same bytes at 200 seeded random splits", async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const cuts = randomCuts(BYTES.length, seed, 40);
      const read = await readRequestBody(URL_CHAT, post(cutStream(BYTES, cuts), { duplex: "half" } as RequestInit));
      expect({ seed, read: "text" in read ? read.text : read.why }).toEqual({ seed, read: JSON_BODY });
      expect(await new Request(read.input, read.init).text()).toBe(JSON_BODY);
    }
  });
});

describe("a body that is not read is passed through, and a debug line says why", () => {
  const STOOD_ASIDE: Record<string, [() => RequestInit, string]> = {
    URLSearchParams: [() => post(new URLSearchParams({ q: JSON_BODY })), "request body is not JSON: passing through unrepaired"],
    FormData: [
      () => {
        const form = new FormData();
        form.set("payload", JSON_BODY);
        return { method: "POST", body: form };
      },
      "request body is FormData (multipart), not a JSON body: passing through unrepaired",
    ],
    "no body": [() => ({ method: "POST" }), "request without a body: passing through unrepaired"],
  };
  for (const [form, [make, why]] of Object.entries(STOOD_ASIDE)) {
    test(`${form}`, async () => {
      const { fetch, bodies, lines } = harness();
      const init = make();
      const response = await fetch(URL_CHAT, init);
      expect(await response.text()).toBe(REPLY);
      // The very body the client gave, unread.
      expect(bodies).toHaveLength(1);
      expect(bodies[0]).toBe(init.body);
      expect(lines).toEqual([`[dsml-fix] ${why}`]);
    });
  }
});

describe("readRequestBody: the read bound and a stream that fails", () => {
  test("a stream over the bound is cancelled on the read side and forwarded whole", async () => {
    const read = await readRequestBody(URL_CHAT, post(byteStream(BYTES, 16), { duplex: "half" } as RequestInit), 100);
    expect(read).toMatchObject({ why: "request body (ReadableStream) is over the 100-byte read bound" });
    expect(await new Request(read.input, read.init).text()).toBe(JSON_BODY);
  });

  test("a Request over the bound is forwarded untouched, its body still unread", async () => {
    const request = new Request(URL_CHAT, post(byteStream(BYTES, 16), { duplex: "half" } as RequestInit));
    const read = await readRequestBody(request, undefined, 100);
    expect(read).toMatchObject({ why: "request body (Request) is over the 100-byte read bound" });
    expect(read.input).toBe(request);
    expect(await request.text()).toBe(JSON_BODY);
  });

  test("a Blob over the bound is not read at all", async () => {
    const blob = new Blob([JSON_BODY]);
    const read = await readRequestBody(URL_CHAT, post(blob), 100);
    expect(read).toMatchObject({ why: `request body (Blob of ${blob.size} bytes) is over the 100-byte read bound` });
    expect(read.init!.body).toBe(blob);
  });

  test("a body exactly at the bound is read", async () => {
    const read = await readRequestBody(URL_CHAT, post(byteStream(BYTES, 7), { duplex: "half" } as RequestInit), BYTES.length);
    expect(read).toMatchObject({ text: JSON_BODY });
  });

  test("a stream that fails is reported, not thrown, and the failure reaches whoever reads the forwarded branch", async () => {
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(BYTES.slice(0, 10));
        controller.error(new Error("socket closed"));
      },
    });
    const read = await readRequestBody(URL_CHAT, post(failing, { duplex: "half" } as RequestInit));
    expect(read).toMatchObject({ why: "request body (ReadableStream) could not be read" });
    await expect(new Response(read.init!.body as ReadableStream).text()).rejects.toThrow();
  });

  test("a stream of strings (not bytes) stands aside", async () => {
    const strings = new ReadableStream<string>({
      start(controller) {
        controller.enqueue(JSON_BODY);
        controller.close();
      },
    });
    const read = await readRequestBody(URL_CHAT, { method: "POST", body: strings as unknown as ReadableStream<Uint8Array> });
    expect(read).toMatchObject({ why: "request body (ReadableStream) yields string chunks, not bytes" });
  });
});
