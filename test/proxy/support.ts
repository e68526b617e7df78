// A scripted fake upstream on loopback and a proxy in front of it, for the proxy's end-to-end tests.
import { afterAll, afterEach, beforeAll } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { proxyConfig } from "../../src/proxy/config.ts";
import { createProxyServer } from "../../src/proxy/server.ts";

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body's exact bytes (`body` reads bytes that are not UTF-8 as U+FFFD). */
  raw: Uint8Array;
  /** Resolves when the upstream's answer ended or its connection closed early (true). */
  closedEarly: Promise<boolean>;
}

export type Answer = (req: Seen, res: http.ServerResponse) => void;

export interface Upstream {
  url: string;
  seen: Seen[];
  /** Sockets open to the upstream right now: every proxied request that is still held open. */
  openSockets(): number;
  answer(next: Answer): void;
  close(): Promise<void>;
}

export async function startUpstream(host = "127.0.0.1"): Promise<Upstream> {
  const seen: Seen[] = [];
  let answer: Answer = (_req, res) => res.writeHead(500).end();
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const closedEarly = new Promise<boolean>((resolve) => res.on("close", () => resolve(!res.writableFinished)));
      const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(parts).toString("utf8"), raw: new Uint8Array(Buffer.concat(parts)), closedEarly };
      seen.push(request);
      answer(request, res);
    });
  });
  let open = 0;
  server.on("connection", (socket) => {
    open++;
    socket.on("close", () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    seen,
    openSockets: () => open,
    answer: (next) => (answer = next),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

export interface Proxy {
  url: string;
  lines: string[];
  server: http.Server;
  inFlight(): number;
  /** The graceful shutdown with its cap: open streams get `ms` to finish. */
  stop(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(argv: string[]): Promise<Proxy> {
  const lines: string[] = [];
  const config = proxyConfig([...argv, "--port", "0"]);
  const { server, shutdown, inFlight } = createProxyServer(config, { info: (l) => lines.push(l), warn: (l) => lines.push(l) });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines, server, inFlight, stop: shutdown, close: () => shutdown(1000) };
}

export const TOOLS = [{ type: "function", function: { name: "read", description: "read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];

const envelope = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "deepseek-chat" };

export function chatSse(pieces: string[]): string {
  const chunks = [
    { ...envelope, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
    ...pieces.map((content) => ({ ...envelope, choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    { ...envelope, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ];
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;
}

export function pieces(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/**
 * The upstream answers with the first event of `whole` and holds the rest until `finish()`: a
 * stream that is still open when something happens (a shutdown, a signal).
 */
export function holdAfterFirstEvent(upstream: Upstream, whole: string): { finish(): void } {
  const cut = whole.indexOf("\n\n") + 2;
  let finish!: () => void;
  const finishing = new Promise<void>((resolve) => (finish = resolve));
  upstream.answer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(whole.slice(0, cut));
    void finishing.then(() => res.end(whole.slice(cut)));
  });
  return { finish };
}

/**
 * A fake upstream and a proxy in front of it for one test file (`--upstream` is the upstream's URL
 * plus `path`, then the proxy's `flags`): started before the file's tests and handed to `take`,
 * closed after them; the upstream's record of requests is cleared after each test.
 */
export function proxyFixture(path: string, take: (both: { upstream: Upstream; proxy: Proxy }) => void, flags: readonly string[] = []): void {
  let both: { upstream: Upstream; proxy: Proxy } | undefined;
  beforeAll(async () => {
    const upstream = await startUpstream();
    both = { upstream, proxy: await startProxy(["--upstream", `${upstream.url}${path}`, ...flags]) };
    take(both);
  });
  afterAll(async () => {
    await both?.proxy.close();
    await both?.upstream.close();
  });
  afterEach(() => void both?.upstream.seen.splice(0));
}
