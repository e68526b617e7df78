/**
 * Review 41, rule 6, on the proxy: its history pass (src/proxy/history.ts) splices the client's
 * bytes as the fetch adapter does, so only the rewritten strings (the replayed leak, the system
 * prompt the correction joins) differ from what the client sent. Bytes that are not valid UTF-8
 * elsewhere and a leading byte order mark go up as sent, and multi-byte characters before and
 * after each rewritten string do not shift it. Before, such a body was either left unsanitized
 * (not UTF-8) or lost its byte order mark.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import zlib from "node:zlib";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { startProxy, startUpstream, TOOLS, type Proxy, type Upstream } from "./support.ts";
import { BOM, concat, INVALID, utf8 } from "../support/bytes.ts";

const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const SAID = "Ünïcödé ✓ Reading.\n";
const SYSTEM = "Be brief ✓";

/**
 * A chat body as the client sends it (`sent`) and as the upstream must get it (`expected`): the
 * system prompt with the correction joined and the assistant's leak replaced, every other byte
 * (`lead`, `junk` in the user's messages, multi-byte characters around both strings) the same.
 */
function chatBytes(lead: number[], junk: number[]): { sent: Uint8Array<ArrayBuffer>; expected: Uint8Array<ArrayBuffer> } {
  const head = concat(lead, utf8(`{"model":"m", "tools":${JSON.stringify(TOOLS)},\n "messages":[{"role":"system","content":`));
  const middle = concat(utf8(`},{"role":"user","content":"é😀 `), junk, utf8(` ✓"},{"role":"assistant","content":`));
  const tail = concat(utf8(`},{"role":"user","content":"→`), junk, utf8(`😀 ß"}], "seed": 123456789012345678901}`));
  return {
    sent: concat(head, utf8(JSON.stringify(SYSTEM)), middle, utf8(JSON.stringify(`${SAID}${LEAK}`)), tail),
    expected: concat(head, utf8(JSON.stringify(`${SYSTEM}\n\n${correctionText("unexecuted-call")}`)), middle, utf8(JSON.stringify(`${SAID}${REMOVED_NOTE}`)), tail),
  };
}

const CASES: [string, number[], number[]][] = [
  ["invalid UTF-8 in the other messages", [], INVALID],
  ["a byte order mark at the start", BOM, []],
  ["a byte order mark and invalid UTF-8", BOM, INVALID],
  ["multi-byte characters only", [], []],
];
const OPTIONS = { parse: {}, sanitize: true, correct: true };

describe("sanitizeRequestBody splices bytes", () => {
  test.each(CASES)("%s: only the system prompt and the replayed leak change", (_case, lead, junk) => {
    const { sent, expected } = chatBytes(lead, junk);
    const out = sanitizeRequestBody("/v1/chat/completions", sent, OPTIONS);
    expect([out.removed, out.turns, out.correction, out.why]).toEqual([1, 1, "unexecuted-call", undefined]);
    expect([...out.body]).toEqual([...expected]);
  });

  test("hard negative: with nothing to change, a body holding a BOM and invalid UTF-8 is the very same bytes", () => {
    const body = concat(BOM, utf8(`{"model":"m","messages":[{"role":"user","content":"`), INVALID, utf8(`"},{"role":"assistant","content":"plain < text é"}]}`));
    expect(sanitizeRequestBody("/v1/chat/completions", body, OPTIONS)).toEqual({ body, removed: 0, turns: 0, correction: null });
  });
});

describe("through the proxy", () => {
  let upstream: Upstream;
  let proxy: Proxy;
  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startProxy(["--upstream", upstream.url]);
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  test.each(CASES)("%s: the upstream gets the client's bytes with only the rewritten strings changed", async (_case, lead, junk) => {
    upstream.seen.splice(0);
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    const { sent, expected } = chatBytes(lead, junk);
    await (await fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: sent })).text();
    expect(upstream.seen).toHaveLength(1);
    expect([...upstream.seen[0]!.raw]).toEqual([...expected]);
    expect(upstream.seen[0]!.headers["content-length"]).toBe(String(expected.length));
  });

  /**
   * Review 55 (the request fixer left it): the proxy's own history pass read a compressed body's bytes
   * as text, found no JSON and sent the leak up unsanitized, with no correction and no word. It now
   * reads the body through its coding and encodes the changed JSON again with it; a coding it cannot
   * read, or a body past the bound once decoded, goes up as sent.
   */
  describe("through the proxy, a compressed body", () => {
    const CODERS: Record<string, [(b: Uint8Array) => Uint8Array<ArrayBuffer>, (b: Uint8Array) => Uint8Array]> = {
      gzip: [(b) => zlib.gzipSync(b), (b) => zlib.gunzipSync(b)],
      deflate: [(b) => zlib.deflateSync(b), (b) => zlib.inflateSync(b)],
      br: [(b) => zlib.brotliCompressSync(b), (b) => zlib.brotliDecompressSync(b)],
    };
    const send = async (body: Uint8Array<ArrayBuffer>, coding: string) => {
      upstream.seen.splice(0);
      upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
      await (await fetch(`${proxy.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", "content-encoding": coding }, body })).text();
      expect(upstream.seen).toHaveLength(1);
      return upstream.seen[0]!;
    };

    test.each(Object.keys(CODERS))("%s: the replayed leak is sanitized, the correction joined, and the body goes up in its coding", async (coding) => {
      const [encode, decode] = CODERS[coding]!;
      const { sent, expected } = chatBytes([], []);
      const seen = await send(encode(sent), coding);
      expect(seen.headers["content-encoding"]).toBe(coding);
      expect(seen.headers["content-length"]).toBe(String(seen.raw.length));
      expect([...decode(seen.raw)]).toEqual([...expected]);
    });

    test("hard negative: nothing to change, the compressed bytes go up as sent", async () => {
      const body = zlib.gzipSync(utf8(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"plain text"}]}`));
      const seen = await send(body, "gzip");
      expect([...seen.raw]).toEqual([...body]);
    });

    test("hard negative: a coding the proxy does not read goes up byte for byte", async () => {
      const { sent } = chatBytes([], []);
      const body = zlib.gzipSync(sent);
      const seen = await send(body, "x-custom");
      expect([seen.headers["content-encoding"], [...seen.raw]]).toEqual(["x-custom", [...body]]);
    });
  });
});
