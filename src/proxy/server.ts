// The proxy server: checks each request's framing and shape (refusing what it cannot forward as
// sent), forwards it unchanged to its configured upstream, and hands the answer to the relay
// (relay.ts), which streams it back; the three model wires go through repairFetch, exactly the
// plugin's repair.
import http from "node:http";
import { randomBytes } from "node:crypto";
import type { Duplex } from "node:stream";
import { repairFetch } from "../adapters/fetch.ts";
import { RepairedItems, itemScope } from "../adapters/repaired-items.ts";
import type { AdapterOptions } from "../adapters/options.ts";
import type { ProxyConfig } from "./config.ts";
import { cut, namedInConnection, relay, type RequestNote, type ServerState } from "./relay.ts";
import { leavesRoute, loggedPath, pathOnly, routeFor, upstreamTarget, withoutFragment } from "./routing.ts";
import { concatBytes } from "../sse/framing.ts";
import { createDebugLog, type DebugLog } from "../plugin/debug.ts";
import { sanitizeSentBody } from "./history.ts";
import { debugLine } from "../adapters/report.ts";
import { CR, DOT, LF, SP, isAsciiDigit, isWhiteSpace } from "../grammar/chars.ts";

/** Hop-by-hop headers (RFC 9110 7.6.1) and those the proxy must set itself. */
const REQUEST_DROP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding", "expect"]);

/** The plugin's request tag: the proxy sets its own per request, never forwards a client's. */
const TAG_HEADER = "x-dsml-fix-tag";

/**
 * How long a request body may stall (no byte for this long) before the proxy answers 408 and
 * closes the connection: a client that sends half a body and stops would hold its slot forever
 * (the server's requestTimeout is off, as streams run for minutes).
 */
const BODY_IDLE_MS = 60_000;

/**
 * Credentials a request may carry once: two are ambiguous, and a proxy must not pick one (fetch's
 * Headers cannot send them as two lines; joined, `AAA, BBB` is a credential the client never sent).
 * The model APIs' key headers: Authorization, x-api-key (Anthropic), api-key (Azure OpenAI),
 * x-goog-api-key (Gemini), Ocp-Apim-Subscription-Key (an Azure API Management gateway in front of
 * a model). Not here: Proxy-Authorization, which never goes up (hop-by-hop, dropped
 * below), and Cookie, whose lines combine with "; " into one list of cookies (RFC 9113 8.2.3: how
 * HTTP/2 splits it and a gateway joins it), which is how the runtime joins them: nothing to pick.
 */
const SINGLE_CREDENTIALS = new Set(["authorization", "x-api-key", "api-key", "x-goog-api-key", "ocp-apim-subscription-key"]);

interface ProxyLog {
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

type ServerConfig = Pick<ProxyConfig, "routes" | "healthPath" | "maxBodyBytes" | "headersTimeoutMs" | "debug" | "options"> & { bodyIdleMs?: number };

export function createProxyServer(config: ServerConfig, log: ProxyLog, baseFetch: typeof fetch = globalThis.fetch): ProxyServer {
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
  // --upstream-timeout is the time to the upstream's headers: each request's timer stops here, when
  // they came, and never runs over a body the repair reads before it answers (a JSON answer).
  const onHeaders = new WeakMap<AbortSignal, () => void>();
  const upstream = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let response: Response;
    try {
      response = await baseFetch(input, init);
    } catch (error) {
      // A pooled connection the upstream had already closed (its keep-alive ran out as the request
      // went on it) fails before any answer: sent once more, on a new connection, as HTTP clients do.
      // Only then, and only once: a timeout, an abort or a second failure reach the client.
      if (!closedBeforeAnswer(error) || init?.signal?.aborted || !replayable(init?.body) || (input instanceof Request && input.body !== null)) throw error;
      response = await baseFetch(input, init);
    }
    if (init?.signal) onHeaders.get(init.signal)?.();
    asSent.add(response);
    return response;
  };
  // The Responses items the repair noted, shared with the history pass (a reply replayed by reference is read as it went out).
  const items = new RepairedItems();
  const repaired = repairFetch(adapter, Object.assign(upstream, { preconnect: baseFetch.preconnect }) as typeof fetch, { items, maxBodyBytes: config.maxBodyBytes });
  let sequence = 0;
  const state: ServerState = { closing: false, cut: false };
  // This process's name in the Via header it adds to what it sends up (RFC 9110 7.6.3): a request
  // that comes back with it has passed this proxy already (its upstream or a route is the proxy
  // itself) and is answered 508 at once, instead of looping until the sockets run out.
  const self = `dsml-fix-${randomBytes(6).toString("hex")}`;
  const context: HandleContext = { config, repaired, items, asSent, onHeaders, debug, state, self, log, debugText: (line) => debugLine(adapter, line) };
  /** Requests that asked for `100 Continue`: it is sent only when the body is about to be read. */
  const expecting = new WeakSet<http.IncomingMessage>();
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
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
      // What cut an unfinished answer: the upstream (its drop, relayed), the shutdown's cap, or the client.
      const why = note.ended ?? (res.writableFinished ? undefined : state.cut ? "shutdown" : "client");
      log.info(`${req.method} ${pathname} ${status} ${ms}ms recovered=${recovered.get(tag) ?? 0}${why ? ` ended=${why}` : ""}`);
      recovered.delete(tag);
      // Shutting down: a connection whose last answer just ended is idle now; close it at once
      // rather than wait out the client's keep-alive (server.close() only closed those idle then).
      if (state.closing) setImmediate(() => server.closeIdleConnections());
    });
    handle(req, res, tag, note, context, expecting.has(req)).catch((error: unknown) => {
      if (config.debug) log.info(`proxy: request failed: ${(error as Error)?.name ?? "error"}`);
      if (!res.headersSent) plain(res, 502, "upstream request failed", state.closing);
      // The answer cannot be finished as framed: the client sees its connection cut, never a short body under a clean end.
      else cut(res);
    });
  };
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, onRequest);
  // `Expect: 100-continue`: no 100 before the proxy knows it will read the body (a body over
  // --max-body, a path no route covers, ... get their final answer without one; RFC 9110 10.1.1).
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => {
    expecting.add(req);
    onRequest(req, res);
  });
  // A request the server's parser refuses (smuggling shapes, a header over the limit) gets the
  // status the runtime would give it, and its access-log line: method and path only when the
  // request line was read, never a header.
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => refuseUnparsed(error, socket, log));
  // An error after listening (a runtime's socket error) is logged; the server serves on where it can.
  server.once("listening", () => server.on("error", (error: NodeJS.ErrnoException) => log.warn(`dsml-fix proxy: server error: ${error.code ?? error.name}`)));
  server.requestTimeout = 0; // streams may run for minutes; the upstream's own timeouts apply
  const shutdown = async (ms: number) => {
    state.closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([closed, late]);
    clearTimeout(timer);
    state.cut = true;
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

interface HandleContext {
  config: ServerConfig;
  repaired: typeof fetch;
  /** The Responses items `repaired` noted (repaired-items.ts), read by the history pass. */
  items: RepairedItems;
  asSent: WeakSet<Response>;
  onHeaders: WeakMap<AbortSignal, () => void>;
  debug: DebugLog;
  state: ServerState;
  /** This process's Via pseudonym. */
  self: string;
  log: ProxyLog;
  debugText: (line: string) => void;
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, tag: string, note: RequestNote, context: HandleContext, expectsContinue: boolean): Promise<void> {
  const { config, repaired, asSent, onHeaders, debug, state, debugText } = context;
  // Shutting down: every answer says `Connection: close`, so no client sends another request on a
  // connection the proxy is about to close (RFC 9112 9.6).
  const refuse = (status: number, message: string, close = false) => plain(res, status, message, close || state.closing);
  const url = withoutFragment(req.url ?? "/");
  if (!url.startsWith("/")) return refuse(400, "absolute-form request targets are not proxied");
  if (cameBack(req.headers.via, context.self)) {
    context.log.warn("dsml-fix proxy: a request came back to this proxy (508 Loop Detected): --upstream or a --route points at the proxy itself");
    return refuse(508, "this request already passed through this proxy: its upstream or route points back at the proxy", true);
  }
  // A transfer coding other than chunked (`gzip, chunked`) is one the proxy does not decode: its
  // bytes are not the content, and going up as a plain body they would be taken for it (RFC 9112 6.1).
  const codings = transferCodings(req.headers["transfer-encoding"]);
  if (codings.some((coding) => coding !== "chunked")) return refuse(501, "a request transfer coding other than chunked is not supported", true);
  // Two Authorization (or another key header of SINGLE_CREDENTIALS) headers: which credential is meant is not the proxy's to pick.
  const doubled = credentialsGivenTwice(req.rawHeaders);
  if (doubled) return refuse(400, `the request carries more than one ${doubled} header (ambiguous credentials)`, true);
  if (pathOnly(url) === config.healthPath && (req.method === "GET" || req.method === "HEAD")) return healthy(res, state.closing);
  const matched = routeFor(config.routes, url);
  if (!matched) return refuse(404, "no upstream is configured for this path");
  if (leavesRoute(config.routes, matched, url)) return refuse(400, "the path's dot segments leave the route it was sent to");
  const declared = Number(req.headers["content-length"] ?? 0);
  // The rest of a refused body is never read: the connection closes after the answer, or it would
  // stay open (and hold up a graceful shutdown) waiting for bytes nobody wants.
  if (declared > config.maxBodyBytes) return refuse(413, "request body too large", true);
  // fetch sends no body with GET or HEAD: one the client sent would be dropped without a word.
  const bodiless = req.method === "GET" || req.method === "HEAD";
  if (bodiless && declared > 0) return refuse(400, `a ${req.method} request with a body cannot be forwarded`, true);
  const target = upstreamTarget(matched.route.upstream, matched.rest);
  if (!target) return refuse(400, "the path climbs above the upstream's own path");

  const abort = new AbortController();
  // The client went away before the answer was complete: stop the upstream request too.
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const framed = declared > 0 || codings.length > 0;
  if (expectsContinue && framed) res.writeContinue();
  const read = framed ? await readBody(req, config.maxBodyBytes, config.bodyIdleMs ?? BODY_IDLE_MS) : bodiless ? undefined : new Uint8Array(0);
  if (read === "too large") return refuse(413, "request body too large", true);
  if (read === "stalled") return refuse(408, "the request body stalled", true);
  if (read === "aborted" || abort.signal.aborted) return;
  if (bodiless && read !== undefined && read.length > 0) return refuse(400, `a ${req.method} request with a body cannot be forwarded`, true);
  const scope = itemScope(target.href);
  const history = { parse: config.options.parse, sanitize: config.options.history.sanitize, correct: config.options.retry.nudge, echoGuard: config.options.responseFix.echoGuard, resolve: (id: string) => context.items.resolve(id, scope) };
  let body = bodiless ? undefined : read;
  if (body && req.method === "POST") {
    const coding = new Headers();
    for (const one of [req.headers["content-encoding"] ?? []].flat()) coding.append("content-encoding", one);
    const sanitized = await sanitizeSentBody(target.pathname, body, coding, history, config.maxBodyBytes);
    body = sanitized.body;
    if (sanitized.why) debugText(`${sanitized.why} (${tag})`);
    if (sanitized.removed > 0 || sanitized.correction) debug.request({ ...debugTarget(tag), sanitizedMessages: sanitized.turns, sanitizedParts: sanitized.removed, nudge: sanitized.correction });
  }

  const headers = new Headers();
  const hop = namedInConnection(req.headers.connection);
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || REQUEST_DROP.has(name) || hop.has(name) || name === TAG_HEADER) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  // Bodies come back as the upstream wrote them (no decompression on the way), so bytes stay identical.
  headers.set("accept-encoding", "identity");
  // The proxy names itself in Via (after any the client sent): how it knows a request that comes back.
  headers.append("via", `${req.httpVersion === "1.0" ? "1.0" : "1.1"} ${context.self}`);
  headers.set(TAG_HEADER, tag);
  let response: Response;
  // An upstream that never answers must not hold the client forever: 504 once the wait is over.
  let timedOut = false;
  const timer = setTimeout(() => ((timedOut = true), abort.abort()), config.headersTimeoutMs);
  onHeaders.set(abort.signal, () => clearTimeout(timer));
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
    if (timedOut) return refuse(504, "upstream did not answer in time");
    if (abort.signal.aborted) return void res.end();
    return refuse(502, "upstream unreachable");
  } finally {
    clearTimeout(timer);
  }
  await relay(response, res, abort, note, !asSent.has(response), state);
}

/** Whether a Via header names this process (`self`) as one of the hops already passed. */
function cameBack(via: string | string[] | undefined, self: string): boolean {
  for (const one of Array.isArray(via) ? via : via ? [via] : []) for (const hop of one.split(",")) if (secondWord(hop) === self) return true;
  return false;
}

/** A Via hop's second word (`1.1 <pseudonym> (comment)`): the run of non-space after the first space run, as `trim().split(/\s+/)[1]` reads it. */
function secondWord(text: string): string | undefined {
  let i = 0;
  while (i < text.length && isWhiteSpace(text.charCodeAt(i))) i++;
  while (i < text.length && !isWhiteSpace(text.charCodeAt(i))) i++;
  while (i < text.length && isWhiteSpace(text.charCodeAt(i))) i++;
  const start = i;
  while (i < text.length && !isWhiteSpace(text.charCodeAt(i))) i++;
  return i > start ? text.slice(start, i) : undefined;
}

/** The request's transfer codings, lower case, in order (empty: none). */
function transferCodings(value: string | string[] | undefined): string[] {
  const codings: string[] = [];
  for (const one of Array.isArray(value) ? value : value ? [value] : []) for (const coding of one.split(",")) if (coding.trim()) codings.push(coding.trim().toLowerCase().split(";")[0]!.trim());
  return codings;
}

/** The credential header the request gives more than once (raw, as sent), or undefined. */
function credentialsGivenTwice(raw: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!SINGLE_CREDENTIALS.has(name)) continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/**
 * Reads the body up to `limit` bytes. "stalled": no byte came for `idleMs`; "aborted": the client
 * went away. A refused body is left unread (paused): the answer closes the connection.
 */
function readBody(req: http.IncomingMessage, limit: number, idleMs: number): Promise<Uint8Array<ArrayBuffer> | "too large" | "stalled" | "aborted"> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Uint8Array<ArrayBuffer> | "too large" | "stalled" | "aborted") => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      req.off("error", onClose);
      if (typeof result === "string") req.pause();
      resolve(result);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish("stalled"), idleMs);
    };
    const onData = (part: Buffer) => {
      size += part.length;
      if (size > limit) return finish("too large");
      parts.push(part);
      arm();
    };
    const onEnd = () => finish(concatBytes(parts));
    const onClose = () => finish("aborted");
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("close", onClose);
    req.on("error", onClose);
    arm();
  });
}

/** Node's own answers to what its parser refuses: 431 for a header over the limit, 408 for a timeout, else 400. */
function refuseUnparsed(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex, log: ProxyLog): void {
  // A reset or a socket no longer writable: no request to answer, nothing to log.
  if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const body = JSON.stringify({ error: { message: `dsml-fix proxy: ${status === 431 ? "request header fields too large" : status === 408 ? "request timeout" : "malformed request"}`, type: "proxy_error" } });
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // The request line, when it was read whole: method and path (loggedPath), never a header.
  const line = requestLine(error.rawPacket?.toString("latin1", 0, 8192) ?? "");
  const target = line?.target;
  log.info(`${line?.method ?? "-"} ${target?.startsWith("/") ? loggedPath(withoutFragment(target)) : "-"} ${status} 0ms recovered=0`);
}

/**
 * A whole request line at the start of `raw`: a method of 1 to 20 upper-case ASCII letters, one
 * space, a target without white space, ` HTTP/` digit `.` digit, then LF or CR LF. Undefined for
 * anything else (a line cut short, a lower-case method, two spaces).
 */
function requestLine(raw: string): { method: string; target: string } | undefined {
  let i = 0;
  while (i < 20 && raw.charCodeAt(i) >= 0x41 && raw.charCodeAt(i) <= 0x5a) i++;
  if (i === 0 || raw.charCodeAt(i) !== SP) return undefined;
  const method = raw.slice(0, i);
  const start = ++i;
  while (i < raw.length && !isWhiteSpace(raw.charCodeAt(i))) i++;
  if (i === start || !raw.startsWith(" HTTP/", i)) return undefined;
  const target = raw.slice(start, i);
  i += " HTTP/".length;
  if (!isAsciiDigit(raw.charCodeAt(i)) || raw.charCodeAt(i + 1) !== DOT || !isAsciiDigit(raw.charCodeAt(i + 2))) return undefined;
  i += 3;
  if (raw.charCodeAt(i) === CR) i++;
  return raw.charCodeAt(i) === LF ? { method, target } : undefined;
}

/** The relay's backpressure wait, where the proxy's tests have always found it. */
export { drained } from "./relay.ts";

/** The health answer: a status a monitor can read, not an error object. */
function healthy(res: http.ServerResponse, close: boolean): void {
  const body = JSON.stringify({ status: "ok" });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...(close ? { connection: "close" } : {}) });
  res.end(body);
}

function plain(res: http.ServerResponse, status: number, message: string, close = false): void {
  const body = JSON.stringify({ error: { message: `dsml-fix proxy: ${message}`, type: "proxy_error" } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...(close ? { connection: "close" } : {}) });
  res.end(body);
}

/** The connection closed under the request before any answer came (Bun, node's undici, node's http). */
function closedBeforeAnswer(error: unknown): boolean {
  const codes = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);
  for (let e = error, depth = 0; e !== null && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && codes.has(code)) return true;
  }
  return false;
}

/** A body that can be sent again as it was (the proxy read it whole): never a stream half read. */
function replayable(body: RequestInit["body"]): boolean {
  return body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer;
}
