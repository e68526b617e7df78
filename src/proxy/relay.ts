// The proxy's relay: an upstream answer streamed back to its client with backpressure, in whole
// SSE events, and cut (never ended cleanly) when it cannot be finished as the client frames it.
// Its own file beside server.ts, which takes a request, checks it and hands the answer here.
import type http from "node:http";
import { bodyCoding } from "../adapters/content-coding.ts";
import { CR, LF, isAsciiDigit } from "../grammar/chars.ts";
import { SseFramer } from "../sse/framing.ts";
import { isEventStream } from "../sse/media-type.ts";

/** Hop-by-hop response headers (RFC 9110 7.6.1): they stay on the upstream's hop. */
const RESPONSE_DROP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "trailer", "upgrade", "proxy-authenticate"]);

/** The headers a `Connection` header names are hop-by-hop as well (RFC 9110 7.6.1): they stay on their hop. */
export function namedInConnection(value: string | string[] | null | undefined): Set<string> {
  const names = new Set<string>();
  for (const one of Array.isArray(value) ? value : value ? [value] : []) for (const name of one.split(",")) if (name.trim()) names.add(name.trim().toLowerCase());
  return names;
}

/** What the access log needs to know about a request beyond its status. */
export interface RequestNote {
  /** The upstream dropped the answer mid-stream (a clean end after whole events, or the client's connection cut). */
  ended?: "upstream";
}

/** The server's state the request handler reads. */
export interface ServerState {
  /** The shutdown began: every answer from now on says `Connection: close`. */
  closing: boolean;
  /** The shutdown's cap ran out: what is still open now is cut by the proxy, not by its client. */
  cut: boolean;
}

/**
 * Streams the answer with backpressure: the next upstream chunk is read only once the client took
 * the last. An event stream goes out in whole events, so an upstream that drops mid-event leaves
 * the client with a clean end after the last whole event, never half of one. A stream the repair
 * rewrote is framed already (src/sse/rewrite.ts sends only whole events, and drops a half one when
 * the upstream fails), so it is not framed a second time. Past its own bound (one event over
 * 4 MiB) the repair passes that event's bytes as they come (src/sse/passing.ts), as WholeEvents
 * does past 1 MiB.
 *
 * When the upstream fails, the answer ends cleanly only when what went out is a whole body as the
 * client frames it: an event stream without a content-length whose bytes end between events. Any
 * other body (a content-length cut short, JSON, half an event past the bound) cannot be finished
 * as framed, so the client's connection is cut: the client sees an error at once, never a short
 * body under a clean end, a keep-alive connection out of step with its next answer, or a wait on
 * the keep-alive timer.
 */
export async function relay(response: Response, res: http.ServerResponse, abort: AbortController, note: RequestNote, rewritten: boolean, state: ServerState): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  // The upstream compressed its answer despite `accept-encoding: identity`. A body fetch decoded
  // goes out plain, without the encoding and length that no longer hold; one it did not decode goes
  // out byte for byte with both (the repair stood aside: src/adapters/fetch.ts).
  const coding = bodyCoding(response);
  const decoded = coding === "decoded";
  // A content-length goes on only when it is known to be the length of the bytes sent: the upstream
  // framed its answer by it (with a transfer-encoding beside it the chunks frame the body and the
  // length is stale: RFC 9112 6.3, a proxy MUST remove it; passed on, a longer body would be read
  // as the client's next answer, a shorter one leave it waiting), the bytes go on as fetch read
  // them (not decoded), and it is one plain number. Otherwise the server frames the body itself
  // (chunked, or closing the connection for HTTP/1.0).
  const lengthHolds = !decoded && response.headers.get("transfer-encoding") === null && isPlainNumber(response.headers.get("content-length") ?? "");
  const hop = namedInConnection(response.headers.get("connection"));
  response.headers.forEach((value, name) => {
    if (RESPONSE_DROP.has(name) || hop.has(name) || (decoded && name === "content-encoding") || (name === "content-length" && !lengthHolds)) return;
    headers[name] = name === "set-cookie" ? response.headers.getSetCookie() : value;
  });
  if (state.closing) headers.connection = "close";
  res.writeHead(response.status, response.statusText, headers);
  if (response.body === null) return void res.end();
  // Still-encoded bytes have no events to keep whole.
  const stream = coding !== "encoded" && isEventStream(response.headers.get("content-type"));
  const events = !rewritten && stream ? new WholeEvents() : undefined;
  // An event stream sent without a length may end early and stay well framed, at an event's end.
  const mayEndEarly = stream && headers["content-length"] === undefined;
  const sent = new LastBytes();
  // The length that went out is a promise about the bytes that follow, kept here as well: a body
  // that would run past it or end short of it is cut (see above), never sent under it. A HEAD
  // answer, 204 and 304 declare a length they never send.
  const bodiless = res.req?.method === "HEAD" || response.status === 204 || response.status === 304;
  let left = headers["content-length"] === undefined || bodiless ? Infinity : Number(headers["content-length"]);
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      const ready = events ? events.push(value) : [value];
      for (const part of ready) {
        if ((left -= part.length) < 0) throw new RangeError("the body runs past its content-length");
        sent.push(part);
        if (!res.write(part)) await drained(res);
      }
    }
    // A clean end: whatever followed the last blank line is the upstream's own last word, kept.
    for (const part of res.destroyed ? [] : events?.rest() ?? []) {
      if ((left -= part.length) < 0) throw new RangeError("the body runs past its content-length");
      res.write(part);
    }
    if (!res.destroyed && left > 0 && left !== Infinity) throw new RangeError("the body ends short of its content-length");
  } catch {
    if (!res.destroyed) {
      note.ended = "upstream";
      // Cut short where the client cannot tell: cut its connection instead (see above).
      if (!(mayEndEarly && sent.atEventEnd())) cut(res);
    }
  } finally {
    if (res.destroyed) {
      abort.abort();
      reader.cancel().catch(() => {});
    }
    res.end();
  }
}

/**
 * Cuts the client's connection in the middle of an answer. The headers go out first: Bun's
 * ServerResponse, destroyed before it wrote anything, sends a bare `200` with `Connection: close`
 * and no body instead (a clean, empty answer under the wrong status); an empty write sends the
 * status and headers given, so the cut shows as one.
 */
export function cut(res: http.ServerResponse): void {
  if (!res.destroyed) res.write(new Uint8Array(0));
  res.destroy();
}

/** The last few bytes written (enough to tell whether they end an SSE event). */
class LastBytes {
  #tail: number[] = [];

  push(chunk: Uint8Array): void {
    if (chunk.length >= 4) this.#tail = [...chunk.subarray(chunk.length - 4)];
    else this.#tail = [...this.#tail, ...chunk].slice(-4);
  }

  /**
   * The bytes so far end an event (a blank line: a line end right after a line end; CR, LF and
   * CR LF each end a line), or nothing went out. A CR last may be followed by its LF, which
   * belongs to the same line end, so it ends an event already when a line end comes before it.
   */
  atEventEnd(): boolean {
    const tail = this.#tail;
    if (tail.length === 0) return true;
    let at = tail.length;
    if (tail[at - 1] === LF && tail[at - 2] === CR) at -= 2;
    else if (tail[at - 1] === LF || tail[at - 1] === CR) at -= 1;
    else return false;
    // The whole stream was one line end: nothing but that went out.
    if (at === 0) return tail.length < 4;
    return tail[at - 1] === LF || tail[at - 1] === CR;
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

/** One plain decimal number (no sign, no list, no space): a length that can be passed on as it is. */
function isPlainNumber(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) if (!isAsciiDigit(text.charCodeAt(i))) return false;
  return true;
}
