// The proxy under faults: clients that vanish, upstreams that drop, lie about SSE, answer with an
// error or a redirect, and bodies at the size limit. Counts only, never a wall clock.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { block, live } from "../golden/notation.ts";
import { anthropicStream, responsesStream } from "../e2e/wire-servers.ts";
import { chatSse, holdAfterFirstEvent, pieces, proxyFixture, startProxy, startUpstream, TOOLS, type Proxy, type Upstream } from "./support.ts";

const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
let upstream: Upstream;
let proxy: Proxy;
proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

const CHAT = { model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: TOOLS };
const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });

/** Polls (bounded by a count, not a clock) until `settled` holds or the rounds are used up. */
async function settle(settled: () => boolean, rounds = 400): Promise<void> {
  for (let i = 0; i < rounds && !settled(); i++) await new Promise((r) => setTimeout(r, 10));
}

function openConnections(server: http.Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/** One streaming request that the client destroys as soon as the first bytes arrive. */
function abortAfterFirstBytes(url: string, body: string): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } });
    req.on("response", (res) => res.once("data", () => req.destroy()));
    req.on("error", () => {});
    req.on("close", () => resolve());
    req.end(body);
  });
}

describe("clients that go away", () => {
  test("1,000 clients abort mid-stream: every upstream request is aborted, no socket or request stays open", async () => {
    const first = chatSse(["first words"]).split("\n\n")[0] + "\n\n";
    // The upstream sends one event and then holds the stream open forever: only an abort ends it.
    upstream.answer((_req, res) => void res.writeHead(200, { "content-type": "text/event-stream" }).write(first));
    const TOTAL = 1000;
    const AT_ONCE = 50;
    const body = JSON.stringify(CHAT);
    // After each batch, every upstream socket and proxied request must be gone before the next:
    // nothing piles up with the number of requests served. A leak stops the loop at once.
    const leftAfterBatch: number[] = [];
    for (let done = 0; done < TOTAL && !leftAfterBatch.some(Boolean); done += AT_ONCE) {
      await Promise.all(Array.from({ length: AT_ONCE }, () => abortAfterFirstBytes(`${proxy.url}/chat/completions`, body)));
      await settle(() => upstream.openSockets() === 0 && proxy.inFlight() === 0);
      leftAfterBatch.push(upstream.openSockets() + proxy.inFlight());
    }
    expect(leftAfterBatch).toEqual(Array(TOTAL / AT_ONCE).fill(0));
    expect(upstream.seen.length).toBe(TOTAL);
    expect([upstream.openSockets(), proxy.inFlight(), await openConnections(proxy.server)]).toEqual([0, 0, 0]);
    // Every socket is closed, so every answer has settled: each one ended early, by the abort.
    expect((await Promise.all(upstream.seen.map((s) => s.closedEarly))).every(Boolean)).toBe(true);
    expect(proxy.lines.filter((l) => /^POST \/chat\/completions 200 \d+ms recovered=0 ended=client$/.test(l)).length).toBe(TOTAL);
  }, 120_000);
});

describe("upstreams that drop mid-stream", () => {
  const events = (eol: string) => chatSse(pieces("plain words, nothing held back here at all", 9)).replaceAll("\n", eol);
  test.each([
    ["a repaired wire, LF", "/chat/completions", "\n"],
    ["a repaired wire, CRLF", "/chat/completions", "\r\n"],
    ["a passthrough path, LF", "/events", "\n"],
    ["a passthrough path, CRLF", "/events", "\r\n"],
  ])("%s: the client gets every whole event and never the half-written one", async (_name, path, eol) => {
    const whole = events(eol);
    const blank = eol + eol;
    const cut = whole.indexOf(blank, whole.indexOf(blank) + 1) + blank.length;
    const half = whole.slice(cut, cut + 30);
    upstream.answer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      // Two whole events and half of the third in one write, then a reset.
      res.write(whole.slice(0, cut) + half, () => setTimeout(() => res.destroy(), 20));
    });
    const res = await post(`${proxy.url}${path}`, CHAT);
    const text = await res.text().catch(() => "rejected");
    expect(text).toBe(whole.slice(0, cut));
    await settle(() => proxy.inFlight() === 0);
    expect(proxy.lines.at(-1)).toMatch(new RegExp(`^POST ${path.replaceAll("/", "\\/")} 200 \\d+ms recovered=0 ended=upstream$`));
  });

  // A repaired wire's stream is framed by the repair alone (the relay does not frame it again).
  test.each([["a passthrough path", "/events"], ["a repaired wire", "/chat/completions"]])("%s: the half event is trimmed even when it came in its own chunk after a pause", async (_name, path) => {
    const whole = chatSse(pieces("more plain words", 5));
    const cut = whole.indexOf("\n\n") + 2;
    upstream.answer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(whole.slice(0, cut), () => setTimeout(() => res.write("data: {\"cho", () => setTimeout(() => res.destroy(), 20)), 20));
    });
    const text = await (await post(`${proxy.url}${path}`, CHAT)).text().catch(() => "rejected");
    expect(text).toBe(whole.slice(0, cut));
  });

  test.each([["a passthrough path", "/events"], ["a repaired wire", "/chat/completions"]])("%s: a clean end without a final blank line still delivers every byte", async (_name, path) => {
    const whole = chatSse(["no blank line at the end"]);
    const unterminated = whole.slice(0, -2);
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(unterminated));
    expect(await (await post(`${proxy.url}${path}`, CHAT)).text()).toBe(unterminated);
  });

  // Review 47 finding 7: a client drops a last event the body ends without closing, so the repair
  // does not read it either (src/sse/rewrite.ts end()): no call comes from it, the held text is
  // decided as at an end without it, and its bytes reach the client last, as they came.
  test.each([
    ["no line end", ""],
    ["one LF", "\n"],
    ["one CRLF", "\r\n"],
    ["a comment line after it", "\n: ping"],
  ])("a repaired wire: a call completed only in an unterminated last event does not run (%s)", async (_name, end) => {
    const whole = chatSse(['Reading. <tool_call>{"name":"read","arguments":{"path":"a', '.ts"}}</tool_call>']);
    const events = whole.split(/(?<=\n\n)/);
    const body = events.slice(0, 2).join("");
    const tail = events[2]!.replace(/\n\n$/, "") + end;
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(body));
    const without = await (await post(`${proxy.url}/chat/completions`, CHAT)).text();
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(body + tail));
    const text = await (await post(`${proxy.url}/chat/completions`, CHAT)).text();
    expect(text).toBe(without + tail);
    expect(text).not.toContain("tool_calls");
    expect(without).toContain(JSON.stringify('<tool_call>{"name":"read","arguments":{"path":"a').slice(1, -1));
  });
});

// Review 47 finding 8: media types compare case-insensitively, parameters ignored (RFC 9110;
// src/sse/media-type.ts), in the repair and in the relay's whole-event framing alike.
describe("an event stream whose media type is not written in lower case", () => {
  const TYPE = "Text/Event-Stream; Charset=UTF-8";
  test("a repaired wire: the leak becomes a call", async () => {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": TYPE }).end(chatSse(["Reading. ", LEAK])));
    const text = await (await post(`${proxy.url}/chat/completions`, CHAT)).text();
    expect(text).toContain('"tool_calls"');
    expect(text).not.toContain("tool_calls>");
  });

  test("a passthrough path: an upstream drop mid-event still leaves the client whole events only", async () => {
    const whole = chatSse(pieces("plain words, nothing held back here at all", 9));
    const cut = whole.indexOf("\n\n", whole.indexOf("\n\n") + 1) + 2;
    upstream.answer((_req, res) => {
      res.writeHead(200, { "content-type": TYPE });
      res.write(whole.slice(0, cut) + whole.slice(cut, cut + 30), () => setTimeout(() => res.destroy(), 20));
    });
    expect(await (await post(`${proxy.url}/events`, CHAT)).text().catch(() => "rejected")).toBe(whole.slice(0, cut));
  });
});

describe("malformed SSE from the upstream", () => {
  const envelope = { id: "c", object: "chat.completion.chunk", created: 1, model: "m" };
  const delta = (content: string) => `data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const GARBAGE = ["data: {not json\n\n", ": a comment\n\n", "data: {\"choices\":[]}\n\n", "event: weird\ndata: 42\n\n", "data: {\"choices\":[{\"delta\":null}]}\n\n", "retry: x\n\n", "data\n\n"];

  test("garbage events pass through byte for byte around clean text", async () => {
    const stream = delta("hello ") + GARBAGE.join("") + delta("world") + "data: [DONE]\n\n";
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(stream));
    expect(await (await post(`${proxy.url}/chat/completions`, CHAT)).text()).toBe(stream);
  });

  test("garbage between the pieces of a leak: the garbage stays, the call is still recovered, the stream ends", async () => {
    const [a, b] = [LEAK.slice(0, 20), LEAK.slice(20)];
    const stream = delta("Reading. ") + delta(a) + GARBAGE.join("") + delta(b) + `data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(stream));
    const text = await (await post(`${proxy.url}/chat/completions`, CHAT)).text();
    for (const event of GARBAGE) expect(text).toContain(event);
    expect(text).toContain('"tool_calls"');
    expect(text).not.toContain("invoke");
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  test("invalid UTF-8 and a body that is not SSE at all under an event-stream type end cleanly, bytes kept", async () => {
    const bytes = new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0xfe, 0xc3, 0x0a, 0x0a, 0x00, 0x01, 0x80]);
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(Buffer.from(bytes)));
    const res = await post(`${proxy.url}/chat/completions`, CHAT);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });
});

describe("request bodies at the limit", () => {
  const LIMIT = 10 * 1024 * 1024;
  let limited: Proxy;
  beforeAll(async () => void (limited = await startProxy(["--upstream", `${upstream.url}/v1`, "--max-body", String(LIMIT)])));
  afterAll(() => limited.close());
  const ok = (_req: unknown, res: http.ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end("{}");

  /** A chat body of exactly `size` bytes: a long user turn, then a replayed assistant turn with a leak. */
  function chatBody(size: number): string {
    const shell = (fill: string) => JSON.stringify({ model: "m", messages: [{ role: "user", content: fill }, { role: "assistant", content: `Reading. ${LEAK}` }, { role: "user", content: "go on" }], tools: TOOLS });
    return shell("x".repeat(size - Buffer.byteLength(shell(""))));
  }

  test("exactly 10 MiB of raw bytes on a passthrough path goes up unchanged", async () => {
    upstream.answer(ok);
    const body = Buffer.alloc(LIMIT, "b");
    const res = await fetch(`${limited.url}/files`, { method: "POST", body });
    expect(res.status).toBe(200);
    expect(upstream.seen[0]!.body.length).toBe(LIMIT);
    expect(upstream.seen[0]!.body === body.toString("utf8")).toBe(true);
  }, 30_000);

  test("exactly 10 MiB of chat JSON is read, its replayed leak sanitized and forwarded", async () => {
    upstream.answer(ok);
    const body = chatBody(LIMIT);
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    const res = await post(`${limited.url}/chat/completions`, body);
    expect(res.status).toBe(200);
    const sent = JSON.parse(upstream.seen[0]!.body).messages as { role: string; content: string }[];
    const given = JSON.parse(body).messages as { role: string; content: string }[];
    // The leak was the newest model turn, so the correction joined as a system turn in front.
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect([sent[1]!.content === given[0]!.content, sent[2]!.content]).toEqual([true, `Reading. ${REMOVED_NOTE}`]);
  }, 30_000);

  test.each([
    ["with content-length", false],
    ["streamed without content-length", true],
  ])("one byte over 10 MiB, %s: 413 reaches the client and nothing goes up", async (_name, streamed) => {
    const body = Buffer.from(chatBody(LIMIT + 1));
    const init: RequestInit = streamed
      ? ({ method: "POST", duplex: "half", body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(body)), c.close()) }) } as RequestInit)
      : { method: "POST", body };
    const res = await fetch(`${limited.url}/chat/completions`, init);
    expect([res.status, (await res.json()).error.type, upstream.seen.length]).toEqual([413, "proxy_error", 0]);
    // The unread rest of the body does not keep the connection open (it would hold up a shutdown).
    let open = -1;
    for (let i = 0; i < 200 && open !== 0; i++) (open = await openConnections(limited.server)), await new Promise((r) => setTimeout(r, 10));
    expect(open).toBe(0);
  }, 30_000);

  test("the default limit takes a 10 MiB body", async () => {
    upstream.answer(ok);
    const res = await post(`${proxy.url}/chat/completions`, chatBody(LIMIT));
    expect([res.status, upstream.seen.length]).toEqual([200, 1]);
  }, 30_000);
});

describe("non-2xx answers pass byte for byte", () => {
  const bodies = {
    "/chat/completions": { ...CHAT },
    "/messages": { model: "m", stream: true, max_tokens: 9, messages: [{ role: "user", content: "hi" }], tools: [{ name: "read", input_schema: TOOLS[0]!.function.parameters }] },
    "/responses": { model: "m", stream: true, input: "hi", tools: [{ type: "function", name: "read", parameters: TOOLS[0]!.function.parameters }] },
  };
  const streams: Record<string, string> = {
    "/chat/completions": chatSse(pieces(LEAK)),
    "/messages": anthropicStream(LEAK, "m"),
    "/responses": responsesStream(LEAK, "m"),
  };
  test.each(Object.keys(bodies).flatMap((path) => [400, 401, 429, 500, 503].map((status) => [path, status] as const)))("%s answered %d: status, headers and bytes as the upstream sent them, leak included", async (path, status) => {
    // An event stream with a leak and a stray invalid byte: nothing may be repaired, decoded or re-framed.
    const bytes = Buffer.concat([Buffer.from(streams[path]!), Buffer.from([0xff, 0x0a])]);
    upstream.answer((_req, res) => res.writeHead(status, { "content-type": "text/event-stream", "x-request-id": "r-1" }).end(bytes));
    const res = await post(`${proxy.url}${path}`, bodies[path as keyof typeof bodies]);
    expect([res.status, res.headers.get("content-type"), res.headers.get("x-request-id")]).toEqual([status, "text/event-stream", "r-1"]);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });
});

describe("redirects to another host", () => {
  let other: Upstream;
  beforeAll(async () => void (other = await startUpstream("127.0.0.2")));
  afterAll(() => other.close());
  afterEach(() => void other.seen.splice(0));

  test.each([301, 302, 303, 307, 308])("%d: the proxy never follows it, the other host never sees the credentials", async (status) => {
    other.answer((_req, res) => res.writeHead(200).end("followed"));
    const location = `${other.url}/steal?x=1`;
    upstream.answer((_req, res) => res.writeHead(status, { location }).end("moved"));
    const res = await fetch(`${proxy.url}/chat/completions`, { method: "POST", headers: { authorization: "Bearer sk-never-elsewhere", "x-api-key": "ak-never-elsewhere" }, body: JSON.stringify(CHAT), redirect: "manual" });
    expect([res.status, res.headers.get("location"), await res.text()]).toEqual([status, location, "moved"]);
    expect([upstream.seen.length, other.seen.length]).toEqual([1, 0]);
  });
});

describe("graceful shutdown", () => {
  test("a stream open at shutdown finishes whole; then its kept-alive connection is closed, so the shutdown ends without waiting out the client or the cap", async () => {
    const whole = chatSse(pieces("still streaming when the shutdown begins"));
    const { finish } = holdAfterFirstEvent(upstream, whole);
    const stopping = await startProxy(["--upstream", upstream.url]);
    // A client that keeps its connection for as long as the server lets it.
    stopping.server.keepAliveTimeout = 0;
    const agent = new http.Agent({ keepAlive: true });
    const body = JSON.stringify(CHAT);
    const reply = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(`${stopping.url}/chat/completions`, { method: "POST", agent, headers: { "content-length": Buffer.byteLength(body) } }, resolve);
      req.on("error", reject);
      req.end(body);
    });
    const socketClosed = new Promise<void>((resolve) => reply.socket.once("close", () => resolve()));
    let text = "";
    reply.on("data", (part: Buffer) => (text += part.toString("utf8")));
    const ended = new Promise<void>((resolve) => reply.on("end", () => resolve()));
    await settle(() => text.length > 0);
    // The shutdown's cap is far beyond the test's own timeout: only closing the connection ends it.
    const shutdown = stopping.stop(600_000);
    finish();
    await ended;
    await shutdown;
    await socketClosed;
    agent.destroy();
    expect(text).toBe(whole);
  });
});
