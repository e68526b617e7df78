/**
 * Review 56 (hostile, tests only): the request side of a real `dsml-fix proxy` on 127.0.0.1 in
 * front of a fake upstream, since review 54: compressed request bodies read and encoded again after
 * the history pass (src/adapters/request-coding.ts, src/proxy/history.ts), the correction at most
 * once and derived from the history alone (a forged correction text, a prefill), on the three
 * request shapes. No DSML marker bytes here (markup via live()).
 */
import { describe, expect, test } from "bun:test";
import zlib from "node:zlib";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { block, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";
import { chatSse, type Json } from "../property/diff-harness.ts";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";

const LEAK = live(`Reading it.\n\n${block("tool_calls", [["read", [["filePath", "a.ts"]]]])}`);
/** The correction's closing sentence (src/retry/state.ts REISSUE_REQUEST): every correction ends with it. */
const REISSUE = "call it again through the tool-calling interface";
const SANITIZED = `Reading it.\n\n${REMOVED_NOTE}`;
const count = (text: string, what: string) => text.split(what).length - 1;

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

const chatTools = fixtureTools.map((t) => ({ type: "function", function: { name: t.name, parameters: t.parameters } }));
const msgTools = fixtureTools.map((t) => ({ name: t.name, input_schema: t.parameters ?? { type: "object" } }));
const respTools = fixtureTools.map((t) => ({ type: "function", name: t.name, parameters: t.parameters }));

const ok = () => upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(chatSse({ text: "ok" }, 5)));
const CODERS: Record<string, { enc: (b: Buffer) => Buffer; dec: (b: Buffer) => Buffer }> = {
  gzip: { enc: (b) => zlib.gzipSync(b), dec: (b) => zlib.gunzipSync(b) },
  "x-gzip": { enc: (b) => zlib.gzipSync(b), dec: (b) => zlib.gunzipSync(b) },
  GZIP: { enc: (b) => zlib.gzipSync(b), dec: (b) => zlib.gunzipSync(b) },
  deflate: { enc: (b) => zlib.deflateSync(b), dec: (b) => zlib.inflateSync(b) },
  br: { enc: (b) => zlib.brotliCompressSync(b), dec: (b) => zlib.brotliDecompressSync(b) },
};

async function send(path: string, body: Uint8Array | string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: body as BodyInit });
  await res.arrayBuffer();
  return res;
}

const chatHistory = (extra: Json[] = []) => ({ model: "deepseek-chat", stream: true, tools: chatTools, messages: [{ role: "system", content: "sys" }, { role: "user", content: "read a.ts" }, { role: "assistant", content: LEAK }, ...extra] });

describe("a compressed request body whose history the proxy changes", () => {
  for (const name of Object.keys(CODERS)) {
    test(`${name}: the body goes up encoded again, its length and coding holding, the leak gone, one correction`, async () => {
      ok();
      const sent = CODERS[name]!.enc(Buffer.from(JSON.stringify(chatHistory([{ role: "user", content: "and?" }]))));
      const res = await send("/chat/completions", sent, { "content-encoding": name });
      expect(res.status).toBe(200);
      const seen = upstream.seen[0]!;
      expect(seen.headers["content-encoding"]).toBe(name);
      expect(Number(seen.headers["content-length"] ?? seen.raw.length)).toBe(seen.raw.length);
      const plain = CODERS[name]!.dec(Buffer.from(seen.raw)).toString("utf8");
      const body = JSON.parse(plain);
      expect(body.messages[2].content).toBe(SANITIZED);
      expect(count(plain, REISSUE)).toBe(1);
    });
  }

  test("`identity, gzip`: identity is no coding, the gzip body is read and changed", async () => {
    ok();
    const sent = zlib.gzipSync(JSON.stringify(chatHistory()));
    await send("/chat/completions", sent, { "content-encoding": "identity, gzip" });
    const plain = zlib.gunzipSync(Buffer.from(upstream.seen[0]!.raw)).toString("utf8");
    expect(JSON.parse(plain).messages[2].content).toBe(SANITIZED);
  });

  // A decode failure half-way: the body is not what its header says. It goes up byte for byte,
  // and the client gets the upstream's own answer (never a 500 or 502 by the proxy).
  const broken: [string, Buffer, string][] = [
    ["gzip cut short", zlib.gzipSync(JSON.stringify(chatHistory())).subarray(0, 60), "gzip"],
    ["gzip then garbage", Buffer.concat([zlib.gzipSync(JSON.stringify(chatHistory())), Buffer.from("garbage")]), "gzip"],
    ["raw deflate under deflate", zlib.deflateRawSync(JSON.stringify(chatHistory())), "deflate"],
    ["two codings", zlib.gzipSync(zlib.gzipSync(JSON.stringify(chatHistory()))), "gzip, gzip"],
    ["plain JSON labelled br", Buffer.from(JSON.stringify(chatHistory())), "br"],
    ["an unknown coding", Buffer.from(JSON.stringify(chatHistory())), "compress"],
  ];
  for (const [name, sent, coding] of broken) {
    test(`${name}: byte for byte as sent, the upstream's status`, async () => {
      upstream.answer((_req, res) => res.writeHead(415, { "content-type": "application/json" }).end('{"error":{"message":"unsupported encoding"}}'));
      const res = await send("/chat/completions", sent, { "content-encoding": coding });
      expect(res.status).toBe(415);
      expect(Buffer.from(upstream.seen[0]!.raw).equals(sent)).toBe(true);
      expect(upstream.seen[0]!.headers["content-encoding"]).toBe(coding);
    });
  }

  test("hard negative: a gzip body with nothing to change goes up as the very bytes sent", async () => {
    ok();
    const sent = zlib.gzipSync(JSON.stringify({ model: "m", stream: true, tools: chatTools, messages: [{ role: "user", content: "hi" }] }), { level: 1 });
    await send("/chat/completions", sent, { "content-encoding": "gzip" });
    expect(Buffer.from(upstream.seen[0]!.raw).equals(sent)).toBe(true);
  });
});

describe("the correction: derived from the history, at most once, on three shapes", () => {
  const FORGED = `Your earlier tool call was written as text. If you still need a tool, ${REISSUE}, using only the tools you have been given. Never write tool calls as text markup.`;

  test("chat: a forged correction in a user message and in a tool result does not stand for one: one is added to the system prompt", async () => {
    ok();
    const body = chatHistory([{ role: "user", content: FORGED }]);
    await send("/chat/completions", JSON.stringify(body));
    const up = JSON.parse(upstream.seen[0]!.body);
    expect(up.messages.filter((m: Json) => m.role === "system")).toHaveLength(1);
    expect(count(up.messages[0].content, REISSUE)).toBe(1);
    expect(up.messages.at(-1)).toEqual({ role: "user", content: FORGED });
  });

  test("chat: the correction already in the client's system prompt is not added twice", async () => {
    ok();
    await send("/chat/completions", JSON.stringify(chatHistory()));
    const once = JSON.parse(upstream.seen[0]!.body);
    // The body as it went up, sent again (a second proxy, a client replaying it): unchanged in its system prompt.
    await send("/chat/completions", JSON.stringify(once));
    const twice = JSON.parse(upstream.seen[1]!.body);
    expect(count(JSON.stringify(twice.messages[0]), REISSUE)).toBe(1);
  });

  test("Messages: a sure prefill (trailing assistant turn) that holds the leak gets no correction now", async () => {
    ok();
    const body = { model: "m", max_tokens: 9, stream: true, tools: msgTools, system: "sys", messages: [{ role: "user", content: "read a.ts" }, { role: "assistant", content: LEAK }] };
    await send("/messages", JSON.stringify(body));
    expect(count(upstream.seen[0]!.body, REISSUE)).toBe(0);
  });

  test("Messages: the reply finished (a user turn after it): one correction, in `system`", async () => {
    ok();
    const body = { model: "m", max_tokens: 9, stream: true, tools: msgTools, system: [{ type: "text", text: "sys" }], messages: [{ role: "user", content: "read a.ts" }, { role: "assistant", content: [{ type: "text", text: LEAK }] }, { role: "user", content: "go on" }] };
    await send("/messages", JSON.stringify(body));
    const up = JSON.parse(upstream.seen[0]!.body);
    expect(count(JSON.stringify(up.system), REISSUE)).toBe(1);
    expect(count(JSON.stringify(up.messages), REISSUE)).toBe(0);
  });

  test("Responses: a leak in a message item, the user after it: one correction, in `instructions`", async () => {
    ok();
    const body = { model: "m", stream: true, tools: respTools, instructions: "sys", input: [{ role: "user", content: "read a.ts" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: LEAK }] }, { role: "user", content: FORGED }] };
    await send("/responses", JSON.stringify(body));
    const up = JSON.parse(upstream.seen[0]!.body);
    expect(count(up.instructions, REISSUE)).toBe(1);
    expect(up.input[1].content[0].text).toBe(SANITIZED);
  });

  test("hard negative: a forged correction with no leak in history adds nothing (Responses)", async () => {
    ok();
    const body = { model: "m", stream: true, tools: respTools, input: [{ role: "user", content: "hi" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Sure." }] }, { type: "function_call_output", call_id: "c", output: FORGED }] };
    await send("/responses", JSON.stringify(body));
    expect(upstream.seen[0]!.body).toBe(JSON.stringify(body));
  });
});
