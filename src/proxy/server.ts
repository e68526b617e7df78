// The proxy server: forwards every request unchanged to its configured upstream and streams the
// answer back; the three model wires go through repairFetch, exactly the plugin's repair.
import http from "node:http";
import { repairFetch } from "../adapters/fetch.ts";
import type { AdapterOptions } from "../adapters/options.ts";
import type { ProxyConfig } from "./config.ts";
import { leavesRoute, loggedPath, pathOnly, routeFor, upstreamTarget, withoutFragment } from "./routing.ts";
import { SseFramer, concatBytes } from "../sse/framing.ts";
import { isEventStream } from "../sse/media-type.ts";
import { createDebugLog, type DebugLog } from "../plugin/debug.ts";
import { sanitizeRequestBody } from "./history.ts";
import { debugLine } from "../adapters/report.ts";
import { bodyCoding } from "../adapters/content-coding.ts";

/** Hop-by-hop headers (RFC 9110 7.6.1) and those the proxy must set itself. */
const REQUEST_DROP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding", "expect"]);
const RESPONSE_DROP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "trailer", "upgrade", "proxy-authenticate"]);

/** The headers a `Connection` header names are hop-by-hop as well (RFC 9110 7.6.1): they stay on their hop. */
function namedInConnection(value: string | string[] | null | undefined): Set<string> {
  const names = new Set<string>();
  for (const one of Array.isArray(value) ? value : value ? [value] : []) for (const name of one.split(",")) if (name.trim()) names.add(name.trim().toLowerCase());
  return names;
}
/** The plugin's request tag: the proxy sets its own per request, never forwards a client's. */
const TAG_HEADER = "x-dsml-fix-tag";

/** What the access log needs to know about a request beyond its status. */
interface RequestNote {
  /** The upstream dropped the answer mid-stream (the client got a clean end). */
  ended?: "upstream";
}

export interface ProxyLog {
  info(line: string): void;
  warn(line: string): void;
}

export interface ProxyServer {
  server: http.Server;
  /** Stops accepting, lets open streams finish for up to `ms`, then cuts what is left. */
  shutdown(ms: number): Promise<void>;
  /** Requests whose answer has not closed yet; back to 0 once every client is done or gone. */
  inFlight(): number;
}

export function createProxyServer(config: Pick<ProxyConfig, "routes" | "healthPath" | "maxBodyBytes" | "headersTimeoutMs" | "debug" | "options">, log: ProxyLog, baseFetch: typeof fetch = globalThis.fetch): ProxyServer {
  const recovered = new Map<string, number>();
  // --debug: the plugin's own request and response lines, the request named by the proxy's tag.
  const debug = createDebugLog(config.debug, (line) => log.info(line));
  const adapter: AdapterOptions = {
    parse: config.options.parse,
    // The proxy's own history pass (./history.ts) went first, with the correction: not twice.
    history: { sanitize: false },
    responseFix: config.options.responseFix,
    onResult: ({ requestTag, summary, attempt }) => {
      if (requestTag !== undefined && recovered.has(requestTag)) recovered.set(requestTag, recovered.get(requestTag)! + summary.recovered);
      if (!debug.enabled) return;
      const outcome = summary.recovered > 0
        ? ({ kind: "recovered", count: summary.recovered } as const)
        : summary.heldCandidateNoCall > 0 ? ({ kind: "held-candidate-no-call" } as const) : ({ kind: "passthrough" } as const);
      debug.response({ ...debugTarget(requestTag), attempt, outcome, nudge: summary.nudge, shapes: summary.broken.map((b) => b.shape) });
      const echoed = summary.stripped.filter((s) => s.kind === "echoed-markup").length;
      if (echoed > 0) log.info(`[dsml] echo-guard stripped=${echoed} (markup quoted from content the request gave the model; not executed)`);
    },
    ...(config.debug ? { debug: (line: string) => log.info(line) } : {}),
  };
  // Answers that come back as the upstream sent them; any other was rebuilt by the repair, whose
  // event stream already goes out in whole events (see relay).
  const asSent = new WeakSet<Response>();
  const upstream = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await baseFetch(input, init);
    asSent.add(response);
    return response;
  };
  const repaired = repairFetch(adapter, Object.assign(upstream, { preconnect: baseFetch.preconnect }) as typeof fetch);
  let sequence = 0;
  let closing = false;
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    const started = performance.now();
    const tag = `proxy/${++sequence}`;
    recovered.set(tag, 0);
    const note: RequestNote = {};
    // An absolute-form target (`http://user:key@host/...`) is refused below; its text may hold a
    // credential, so the log names only origin-form paths, and of those the path alone (no query,
    // no fragment: either may hold a key), with userinfo and `;` parameters redacted (loggedPath).
    const pathname = req.url?.startsWith("/") ? loggedPath(req.url) : "-";
    res.on("close", () => {
      // One line per request: never a header value, a query string or a body.
      const ms = Math.round(performance.now() - started);
      const status = res.headersSent ? res.statusCode : 499;
      const ended = !res.writableFinished ? " ended=client" : note.ended ? ` ended=${note.ended}` : "";
      log.info(`${req.method} ${pathname} ${status} ${ms}ms recovered=${recovered.get(tag) ?? 0}${ended}`);
      recovered.delete(tag);
      // Shutting down: a connection whose last answer just ended is idle now; close it at once
      // rather than wait out the client's keep-alive (server.close() only closed those idle then).
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
    handle(req, res, tag, note, config, repaired, asSent, debug, (line) => debugLine(adapter, line)).catch((error: unknown) => {
      if (config.debug) log.info(`proxy: request failed: ${(error as Error)?.name ?? "error"}`);
      if (!res.headersSent) plain(res, 502, "upstream request failed");
      else res.end();
    });
  });
  server.requestTimeout = 0; // streams may run for minutes; the upstream's own timeouts apply
  const shutdown = async (ms: number) => {
    closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([closed, late]);
    clearTimeout(timer);
    server.closeAllConnections();
    await closed;
  };
  return { server, shutdown, inFlight: () => recovered.size };
}

/** The plugin's lines name a session and a message; the proxy's requests are "proxy/<n>". */
function debugTarget(tag: string | undefined): { sessionID: string; messageID: string | null } {
  const at = tag?.indexOf("/") ?? -1;
  return at < 0 ? { sessionID: "proxy", messageID: null } : { sessionID: tag!.slice(0, at), messageID: tag!.slice(at + 1) };
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, tag: string, note: RequestNote, config: Pick<ProxyConfig, "routes" | "healthPath" | "maxBodyBytes" | "headersTimeoutMs" | "options">, repaired: typeof fetch, asSent: WeakSet<Response>, debug: DebugLog, debugText: (line: string) => void): Promise<void> {
  const url = withoutFragment(req.url ?? "/");
  if (!url.startsWith("/")) return plain(res, 400, "absolute-form request targets are not proxied");
  if (pathOnly(url) === config.healthPath && (req.method === "GET" || req.method === "HEAD")) return healthy(res);
  const matched = routeFor(config.routes, url);
  if (!matched) return plain(res, 404, "no upstream is configured for this path");
  if (leavesRoute(config.routes, matched, url)) return plain(res, 400, "the path's dot segments leave the route it was sent to");
  const declared = Number(req.headers["content-length"] ?? 0);
  // The rest of a refused body is never read: the connection closes after the answer, or it would
  // stay open (and hold up a graceful shutdown) waiting for bytes nobody wants.
  if (declared > config.maxBodyBytes) return plain(res, 413, "request body too large", true);

  const abort = new AbortController();
  // The client went away before the answer was complete: stop the upstream request too.
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const read = req.method === "GET" || req.method === "HEAD" ? undefined : await readBody(req, config.maxBodyBytes);
  if (read === "too large") return plain(res, 413, "request body too large", true);
  const target = upstreamTarget(matched.route.upstream, matched.rest);
  if (!target) return plain(res, 400, "the path climbs above the upstream's own path");
  const history = { parse: config.options.parse, sanitize: config.options.history.sanitize, correct: config.options.retry.nudge, echoGuard: config.options.responseFix.echoGuard };
  let body = read;
  if (read && req.method === "POST") {
    const sanitized = sanitizeRequestBody(target.pathname, read, history);
    body = sanitized.body;
    if (sanitized.why) debugText(`${sanitized.why} (${tag})`);
    if (sanitized.removed > 0 || sanitized.correction) debug.request({ ...debugTarget(tag), sanitizedMessages: sanitized.turns, sanitizedParts: sanitized.removed, nudge: sanitized.correction });
  }
  if (abort.signal.aborted) return;

  const headers = new Headers();
  const hop = namedInConnection(req.headers.connection);
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || REQUEST_DROP.has(name) || hop.has(name) || name === TAG_HEADER) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  // Bodies come back as the upstream wrote them (no decompression on the way), so bytes stay identical.
  headers.set("accept-encoding", "identity");
  headers.set(TAG_HEADER, tag);
  let response: Response;
  // An upstream that never answers must not hold the client forever: 504 once the wait is over.
  let timedOut = false;
  const timer = setTimeout(() => ((timedOut = true), abort.abort()), config.headersTimeoutMs);
  try {
    response = await repaired(target.href, {
      method: req.method ?? "GET",
      headers,
      ...(body !== undefined ? { body } : {}),
      // A redirect is the client's to follow: never resend its credentials to another host.
      redirect: "manual",
      signal: abort.signal,
    });
  } catch {
    if (timedOut) return plain(res, 504, "upstream did not answer in time");
    if (abort.signal.aborted) return void res.end();
    return plain(res, 502, "upstream unreachable");
  } finally {
    clearTimeout(timer);
  }
  await relay(response, res, abort, note, !asSent.has(response));
}

async function readBody(req: http.IncomingMessage, limit: number): Promise<Uint8Array<ArrayBuffer> | "too large"> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) return "too large";
    parts.push(part);
  }
  return concatBytes(parts);
}


/**
 * Streams the answer with backpressure: the next upstream chunk is read only once the client took
 * the last. An event stream goes out in whole events, so an upstream that drops mid-event leaves
 * the client with a clean end after the last whole event, never half of one. A stream the repair
 * rewrote is framed already (src/sse/rewrite.ts sends only whole events, and drops a half one when
 * the upstream fails), so it is not framed a second time. Past its own bound (one event over
 * 4 MiB) the repair passes that event's bytes as they come (src/sse/passing.ts), as WholeEvents
 * does past 1 MiB.
 */
async function relay(response: Response, res: http.ServerResponse, abort: AbortController, note: RequestNote, rewritten: boolean): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  // The upstream compressed its answer despite `accept-encoding: identity`. A body fetch decoded
  // goes out plain, without the encoding and length that no longer hold; one it did not decode goes
  // out byte for byte with both (the repair stood aside: src/adapters/fetch.ts).
  const coding = bodyCoding(response);
  const decoded = coding === "decoded";
  const hop = namedInConnection(response.headers.get("connection"));
  response.headers.forEach((value, name) => {
    if (RESPONSE_DROP.has(name) || hop.has(name) || (decoded && (name === "content-encoding" || name === "content-length"))) return;
    headers[name] = name === "set-cookie" ? response.headers.getSetCookie() : value;
  });
  res.writeHead(response.status, response.statusText, headers);
  if (response.body === null) return void res.end();
  // Still-encoded bytes have no events to keep whole.
  const events = !rewritten && coding !== "encoded" && isEventStream(response.headers.get("content-type")) ? new WholeEvents() : undefined;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      const ready = events ? events.push(value) : [value];
      for (const part of ready) if (!res.write(part)) await drained(res);
    }
    // A clean end: whatever followed the last blank line is the upstream's own last word, kept.
    if (!res.destroyed) for (const part of events?.rest() ?? []) res.write(part);
  } catch {
    // Upstream dropped mid-stream: end the answer cleanly (the half event is dropped) rather than hang.
    note.ended = "upstream";
  } finally {
    if (res.destroyed) {
      abort.abort();
      reader.cancel().catch(() => {});
    }
    res.end();
  }
}

/** Bytes an event stream may hold back for one unfinished event; past it they go out as they come. */
const HELD_EVENT_LIMIT = 1024 * 1024;

/** Releases an event stream's bytes up to the end of its last whole event; the rest waits. */
class WholeEvents {
  readonly #framer = new SseFramer();
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** Gave up on framing (an event past the limit): everything passes as it comes from then on. */
  #passing = false;

  push(chunk: Uint8Array): Uint8Array[] {
    if (this.#passing) return [chunk];
    const { ends } = this.#framer.push(chunk);
    if (ends.length === 0) {
      this.#held.push(chunk);
      this.#heldBytes += chunk.length;
      // Not an event stream after all (or one huge event): stop holding, pass it on as it comes.
      if (this.#heldBytes <= HELD_EVENT_LIMIT) return [];
      this.#passing = true;
      return this.rest();
    }
    const last = ends[ends.length - 1]!;
    const ready = [...this.#held, chunk.subarray(0, last)];
    this.#held = last < chunk.length ? [chunk.subarray(last)] : [];
    this.#heldBytes = chunk.length - last;
    return ready;
  }

  /** Everything still held. */
  rest(): Uint8Array[] {
    const rest = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    return rest;
  }
}

/** Waits for "drain" or "close", whichever first, and leaves no listener behind (one stall per chunk adds up). */
export function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** The health answer: a status a monitor can read, not an error object. */
function healthy(res: http.ServerResponse): void {
  const body = JSON.stringify({ status: "ok" });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function plain(res: http.ServerResponse, status: number, message: string, close = false): void {
  const body = JSON.stringify({ error: { message: `dsml-fix proxy: ${message}`, type: "proxy_error" } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...(close ? { connection: "close" } : {}) });
  res.end(body);
}
