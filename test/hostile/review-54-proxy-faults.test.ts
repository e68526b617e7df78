/**
 * Review 54 (hostile, tests only): a real `dsml-fix proxy` on 127.0.0.1 whose upstream fails in
 * the middle of a reply the repair is rewriting (a leak on each wire), sends a repaired reply under
 * a content-length, or answers 200 with malformed SSE. The client must always get whole events or
 * a cut connection (never half an event under a clean end), and never hang: every read is bounded.
 * No DSML marker bytes here (markup via live()).
 */
import { describe, expect, test } from "bun:test";
import net from "node:net";
import zlib from "node:zlib";
import { block, live } from "../golden/notation.ts";
import { anthropicBody, anthropicSse, chatBody, chatSse, responsesBody, responsesSse, type Json, type Scenario } from "../property/diff-harness.ts";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";

const LEAK = live(`Reading it.\n\n${block("tool_calls", [["read", [["filePath", "a.ts"]]]])}`);

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

const S: Scenario = { text: LEAK };
const WIRES: [string, string, Json, string][] = [
  ["chat", "/chat/completions", chatBody(S, true), chatSse(S, 6)],
  ["messages", "/messages", anthropicBody(S, true), anthropicSse(S, [LEAK], 6)],
  ["responses", "/responses", responsesBody(S, true), responsesSse(S, [[LEAK]], 6)],
];

/** POSTs on a raw socket (HTTP/1.0-style close) and reads until close or a bounded number of idle polls. */
function rawPost(path: string, body: Json): Promise<{ head: string; body: string; open: boolean }> {
  const { port } = new URL(proxy.url);
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    let out = Buffer.alloc(0);
    const socket = net.connect(Number(port), "127.0.0.1", () =>
      socket.write(`POST /v1${path} HTTP/1.1\r\nHost: p\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`));
    const timer = setTimeout(() => (socket.destroy(), done(true)), 4000);
    const done = (open: boolean) => {
      clearTimeout(timer);
      const text = out.toString("latin1");
      const at = text.indexOf("\r\n\r\n");
      resolve({ head: text.slice(0, at), body: dechunk(text.slice(at + 4)), open });
    };
    socket.on("data", (d: Buffer) => (out = Buffer.concat([out, d])));
    socket.on("close", () => done(false));
    socket.on("error", () => undefined);
  });
}

/** The chunked body's data, read by bytes (latin1 keeps one char per byte); a cut body: the chunks that came whole. */
function dechunk(raw: string): string {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf("\r\n", at);
    if (eol < 0) break;
    const size = parseInt(raw.slice(at, eol), 16);
    if (!(size > 0) || eol + 2 + size > raw.length) break;
    parts.push(Buffer.from(raw.slice(eol + 2, eol + 2 + size), "latin1"));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts).toString("utf8");
}

/** Every event is whole: the body is empty or ends with a blank line, and each data line is JSON or [DONE]. */
function wholeEvents(body: string): boolean {
  if (body !== "" && !body.endsWith("\n\n")) return false;
  for (const event of body.split("\n\n").filter((e) => e !== "")) {
    for (const line of event.split("\n")) {
      if (!line.startsWith("data: ")) continue;
      const data = line.slice(6);
      if (data === "[DONE]") continue;
      try {
        JSON.parse(data);
      } catch {
        return false;
      }
    }
  }
  return true;
}

describe("an upstream that drops a repaired stream mid-event", () => {
  for (const [wire, path, request, sse] of WIRES) {
    test(`${wire}: at every 13th byte the client gets whole events (then a clean end or a cut), never half of one, never a hang`, async () => {
      const bytes = Buffer.from(sse);
      const bad: string[] = [];
      for (let cut = 1; cut < bytes.length; cut += 13) {
        upstream.answer((_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(bytes.subarray(0, cut), () => res.destroy());
        });
        const got = await rawPost(path, request);
        if (got.open) bad.push(`${cut}: open`);
        else if (!wholeEvents(got.body)) bad.push(`${cut}: half event ${JSON.stringify(got.body.slice(-60))}`);
      }
      expect(bad).toEqual([]);
    });
  }
});

describe("a repaired reply the upstream framed by a content-length", () => {
  for (const [wire, path, request, sse] of WIRES) {
    test(`${wire} SSE with a content-length: the repaired stream arrives whole with its call`, async () => {
      upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream", "content-length": Buffer.byteLength(sse) }).end(sse));
      const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
      const text = await res.text();
      expect(wholeEvents(text)).toBe(true);
      expect(text).toMatch(/"name":"read"/);
    });
  }
});

describe("200 with a malformed event stream", () => {
  const ENVELOPE = { id: "c1", object: "chat.completion.chunk", created: 1, model: "deepseek-chat" };
  const chunk = (content: string) => `data: ${JSON.stringify({ ...ENVELOPE, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  test("a truncated JSON event between leak pieces, no [DONE], no final newline: every byte of text kept or a call, the stream ends", async () => {
    const half = LEAK.length >> 1;
    const body = `${chunk(LEAK.slice(0, half))}data: {"id":"c1","choices":[{"index":0,"delta":{"content":"x\n\n${chunk(LEAK.slice(half))}data: {"id"`;
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(body));
    const got = await rawPost("/chat/completions", chatBody(S, true));
    expect(got.open).toBe(false);
    expect(got.head.startsWith("HTTP/1.1 200")).toBe(true);
    // Text in the upstream's whole events is never lost: it is either visible or a call.
    const events = got.body.split("\n\n").filter((e) => e.startsWith("data: {") && !e.endsWith('"id"'));
    const shown = events.map((e) => { try { return JSON.parse(e.slice(6)).choices?.[0]?.delta?.content ?? ""; } catch { return ""; } }).join("");
    const called = /"name":"read"/.test(got.body);
    expect(called || shown.includes("filePath")).toBe(true);
  });
});

describe("a repaired JSON reply the upstream compressed and framed by a content-length", () => {
  const replies: [string, string, Json, Json][] = [
    ["chat", "/chat/completions", { ...WIRES[0]![2], stream: false }, { id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: LEAK }, finish_reason: "stop" }] }],
    ["messages", "/messages", { ...WIRES[1]![2], stream: false }, { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "One. " }, { type: "text", text: LEAK }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }],
    ["responses", "/responses", { ...WIRES[2]![2], stream: false }, { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output: [{ id: "msg_0", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: LEAK, annotations: [] }] }] }],
  ];
  for (const [wire, path, request, reply] of replies) {
    for (const coding of ["gzip", "br", "deflate"] as const) {
      test(`${wire} JSON, ${coding}: the client reads one JSON body holding the recovered call`, async () => {
        const plain = Buffer.from(JSON.stringify(reply));
        const sent = coding === "gzip" ? zlib.gzipSync(plain) : coding === "br" ? zlib.brotliCompressSync(plain) : zlib.deflateSync(plain);
        upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": coding, "content-length": sent.length }).end(sent));
        const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
        const text = await res.text();
        expect(res.headers.get("content-encoding")).toBeNull();
        expect(JSON.stringify(JSON.parse(text))).toMatch(/"name":"read"/);
      });
    }
  }
});
