// bodyCoding (src/adapters/content-coding.ts) says what fetch did with a compressed answer, which
// fetch never says itself. Its rules are checked here against what the real fetch does, over a
// loopback server: Bun's in this process, Node's (undici) in a child started with the `node` on
// PATH. A runtime that changes what it decodes fails this test instead of corrupting an answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { bodyCoding, type Runtime } from "../../src/adapters/content-coding.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { probe, type Probed } from "./content-coding-probe.ts";

const PLAIN = Buffer.from('data: {"choices":[{"delta":{"content":"plain text"}}]}\n\n');

/** Content-encoding values an upstream may send, well-formed or not. */
const HEADERS = [
  "gzip", "GZIP", "x-gzip", "deflate", "br", "zstd", "identity", "IDENTITY", "x-custom", "compress", "x-deflate", "gzip;q=1",
  "gzip, gzip", "gzip,gzip", "deflate, gzip", "gzip, br", "br, br", "gzip, zstd",
  "gzip, identity", "identity, gzip", "identity, identity", "identity, br, identity", "gzip,", ",gzip",
  "x-custom, gzip", "gzip, x-custom", "gzip, gzip, gzip, gzip, gzip",
];

const CODERS: Record<string, (bytes: Buffer) => Buffer<ArrayBufferLike>> = {
  gzip: (b) => zlib.gzipSync(b),
  "x-gzip": (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  zstd: (b) => zlib.zstdCompressSync(b),
};

/** The bytes an upstream sends for `header`: each coding applied in order (a coding nobody decodes stands for gzip bytes). */
function encode(header: string): Buffer<ArrayBufferLike> {
  let bytes: Buffer<ArrayBufferLike> = PLAIN;
  for (const coding of header.toLowerCase().split(",").map((c) => c.trim())) {
    if (coding === "" || coding === "identity") continue;
    bytes = (CODERS[coding] ?? CODERS.gzip!)(bytes);
  }
  return bytes;
}

/** What fetch did, read from the bytes it handed back. */
function observed(header: string, got: Probed): string {
  if (got.received.startsWith("error: ")) return got.received;
  const bytes = Buffer.from(got.received, "base64");
  const sent = encode(header);
  if (bytes.equals(PLAIN)) return sent.equals(PLAIN) ? "none" : "decoded";
  return bytes.equals(sent) ? "encoded" : "other";
}

let server: http.Server;
let base = "";
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const header = HEADERS[Number(req.url!.slice(1))]!;
    res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": header }).end(encode(header));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** [header, predicted, observed] per case: a row whose two differ is a rule that is wrong. */
function rows(probed: Probed[]): [string, string, string][] {
  return HEADERS.map((header, i) => [header, probed[i]!.predicted, observed(header, probed[i]!)]);
}

describe("bodyCoding matches what fetch did", () => {
  test("Bun's fetch, in this process", async () => {
    const table = rows(await probe(base, HEADERS.length));
    expect(table.filter(([, predicted, seen]) => predicted !== seen)).toEqual([]);
    // The rows that set Bun apart from undici are there and as described.
    expect(table.filter(([h]) => ["gzip, gzip", "gzip, identity", "zstd"].includes(h))).toEqual([
      ["zstd", "decoded", "decoded"],
      ["gzip, gzip", "encoded", "encoded"],
      ["gzip, identity", "decoded", "decoded"],
    ]);
  });

  test("Node's fetch (undici), in a child process", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "content-coding-"));
    try {
      const built = await Bun.build({ entrypoints: [path.join(import.meta.dir, "content-coding-probe.ts")], target: "node", outdir: dir });
      expect(built.success).toBe(true);
      const child = spawn("node", [built.outputs[0]!.path, base, String(HEADERS.length)], { env: { ...process.env, CONTENT_CODING_PROBE: "1" }, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
      child.stderr.on("data", (b: Buffer) => (err += b.toString("utf8")));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect([code, err]).toEqual([0, ""]);
      const table = rows(JSON.parse(out) as Probed[]);
      expect(table.filter(([, predicted, seen]) => predicted !== seen)).toEqual([]);
      // undici decodes a chain of codings it knows, and nothing of a chain with one it does not.
      expect(table.filter(([h]) => ["gzip, gzip", "gzip, identity"].includes(h)).map(([, , seen]) => seen)).toEqual(["decoded", "encoded"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("bodyCoding's rules, runtime by runtime", () => {
  const answer = (header: string | null, body: BodyInit | null = "x") => new Response(body, header === null ? {} : { headers: { "content-encoding": header } });
  const bun: Runtime = { bun: true, zstd: false };
  const node20: Runtime = { bun: false, zstd: false };
  const node24: Runtime = { bun: false, zstd: true };

  test.each([
    [null, "none", "none", "none"],
    ["identity", "none", "none", "none"],
    ["identity, identity", "none", "none", "none"],
    ["gzip", "decoded", "decoded", "decoded"],
    ["zstd", "decoded", "encoded", "decoded"],
    ["gzip, gzip", "encoded", "decoded", "decoded"],
    ["gzip, identity", "decoded", "encoded", "encoded"],
    ["x-custom", "encoded", "encoded", "encoded"],
    ["gzip, gzip, gzip, gzip, gzip, gzip", "encoded", "encoded", "encoded"],
  ])("%p: Bun %s, Node 20 %s, Node 24 %s", (header, inBun, inNode20, inNode24) => {
    expect([bun, node20, node24].map((runtime): string => bodyCoding(answer(header), undefined, runtime))).toEqual([inBun, inNode20, inNode24]);
  });

  test("no body (HEAD, 204, 304): nothing was decoded, the header still holds", () => {
    expect([bun, node20].map((runtime) => bodyCoding(answer("gzip", null), undefined, runtime))).toEqual(["encoded", "encoded"]);
  });

  test("Bun's decompress: false leaves every body as it came; Node has no such option", () => {
    expect([bun, node20].map((runtime) => bodyCoding(answer("gzip"), { decompress: false }, runtime))).toEqual(["encoded", "decoded"]);
  });
});

describe("repairFetch stands aside for a body fetch did not decode", () => {
  // The base fetch hands back the body with a coding no runtime decodes. Here the bytes happen to
  // read as an event stream with a leak: the repair must still not touch them, since a real body
  // with that header is the upstream's encoded bytes, not text.
  const LEAKING = 'data: {"choices":[{"index":0,"delta":{"content":"<tool_call>{\\"name\\":\\"read\\",\\"arguments\\":{\\"path\\":\\"/etc/passwd\\"}}</tool_call>"}}]}\n\ndata: [DONE]\n\n';
  const request = { model: "m", stream: true, messages: [{ role: "user", content: "read" }], tools: [{ type: "function", function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }] };
  const run = async (encoding: string) => {
    const lines: string[] = [];
    const base = (async () => new Response(LEAKING, { headers: { "content-type": "text/event-stream", "content-encoding": encoding } })) as unknown as typeof fetch;
    const res = await repairFetch({ debug: (line) => lines.push(line) }, base)("http://upstream.test/v1/chat/completions", { method: "POST", body: JSON.stringify(request) });
    return { text: await res.text(), encoding: res.headers.get("content-encoding"), lines };
  };

  test("x-custom: the bytes and the header go on as they came, and the debug line says why", async () => {
    const { text, encoding, lines } = await run("x-custom");
    expect([text, encoding]).toEqual([LEAKING, "x-custom"]);
    expect(lines.some((line) => line.includes("still content-encoded") && line.includes("passing through unrepaired"))).toBe(true);
  });

  test("identity: repaired as usual", async () => {
    const { text } = await run("identity");
    expect(text).toContain('"tool_calls"');
  });
});
