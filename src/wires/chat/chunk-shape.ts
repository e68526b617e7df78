// Streamed chunks of one response usually differ only in their `content` string. Once such a
// chunk has been seen, the next ones are recognised by their text alone, which spares a full
// JSON.parse for every token on the path where the content passes through unchanged.
import { jsonOrUndefined } from "../../grammar/plain-data.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { isPassableCode } from "../../engine/engine.ts";
import { dataEventStart, dataStart } from "../../sse/framing.ts";

const SENTINEL = "\u0000dsml-fix\u0000";
const SENTINEL_BODY = JSON.stringify(SENTINEL).slice(1, -1);

/**
 * 1 for a byte that is, alone, a character of a JSON string body as it is (printable ASCII, no
 * quote, no backslash) and one the engine lets through (isPassableCode); 0 otherwise. Every byte
 * from 0x80 is 0: a multi-byte character would make bytes and characters count differently.
 */
const PASSABLE = new Uint8Array(256);
for (let b = 0x20; b < 0x80; b++) if (b !== 0x22 && b !== 0x5c && isPassableCode(b)) PASSABLE[b] = 1;

/**
 * The text of a content chunk cut around its content string. A payload that starts with the
 * prefix, ends with the suffix and holds a valid JSON string body in between parses to the same
 * chunk with another content, because the string token the prefix opens can only end at the
 * suffix's quote. learn() proves the cut is at choices[0].delta.content by parsing a sentinel in it.
 */
export class ChunkShape {
  #prefix = "";
  #suffix = "";
  #source: Json | undefined;
  #hits = 0;
  /** Learning costs a few parses: after templates that never matched, wait longer before the next try. */
  #backoff = 0;
  #wait = 0;
  /** Neither the prefix nor the suffix holds a CR or LF, so a matching event text is one line. */
  #oneLine = false;
  /** The prefix and suffix as bytes, for plainEventLength(); set only for a one-line, all-ASCII shape. */
  #prefixBytes: Uint8Array | undefined;
  #suffixBytes: Uint8Array | undefined;

  /** The chunk the shape was learned from; its envelope is every matching chunk's envelope. */
  get source(): Json | undefined {
    return this.#source;
  }

  /** The content of a payload with this shape, or undefined when it does not have it. */
  match(payload: string): string | undefined {
    if (this.#source === undefined) return undefined;
    const end = payload.length - this.#suffix.length;
    // slice and === rather than startsWith/endsWith: V8 compares those character by character (3 us per event measured in Node 20).
    if (end < this.#prefix.length || payload.slice(0, this.#prefix.length) !== this.#prefix || payload.slice(end) !== this.#suffix) return undefined;
    return this.#body(payload.slice(this.#prefix.length, end));
  }

  /**
   * match(singleDataPayloadOf(event)) for a wholeDataEvent() text, without slicing the payload out
   * or searching the event for line ends first: a matching content is a JSON string body, which
   * has no CR or LF, and neither has the learned shape, so a match is the one line it must be.
   */
  matchEvent(event: string): string | undefined {
    if (this.#source === undefined || !this.#oneLine) return undefined;
    const from = dataStart(event) + this.#prefix.length;
    const end = event.length - 2 - this.#suffix.length;
    if (end < from || event.slice(from - this.#prefix.length, from) !== this.#prefix || event.slice(end, event.length - 2) !== this.#suffix) return undefined;
    return this.#body(event.slice(from, end));
  }

  /**
   * matchEvent() on the bytes of the commonest event, without decoding it: one whole `data:` event
   * of this shape whose content is ASCII that needs no unescaping and that the engine lets through
   * (PASSABLE). Such bytes are ASCII and decode to the text matchEvent() matches, with the content
   * as it is, so the content's length is all a caller needs. -1: decode it and ask matchEvent(). The event is
   * bytes[at, to): a chunk's events are read in place.
   */
  plainEventLength(bytes: Uint8Array, at = 0, to = bytes.length): number {
    const prefix = this.#prefixBytes;
    const suffix = this.#suffixBytes;
    if (prefix === undefined || suffix === undefined) return -1;
    const from = dataEventStart(bytes, at, to);
    if (from === -1) return -1;
    const start = from + prefix.length;
    const end = to - 2 - suffix.length;
    if (end <= start) return -1;
    // The content first: it is short, and where it is not plain the event goes the decoding way.
    for (let i = start; i < end; i++) if (PASSABLE[bytes[i]!] !== 1) return -1;
    if (!sameBytes(bytes, end, suffix) || !sameBytes(bytes, from, prefix)) return -1;
    this.#hits++;
    return end - start;
  }

  /**
   * matchEvent() on the bytes of an event whose content is ASCII but not plain (a `<`, a newline,
   * an escape: what plainEventLength() refuses), reading the content's own bytes rather than
   * decoding the whole event. ASCII decodes to the same characters as Latin-1 or UTF-8, so this is
   * the content matchEvent() would read. undefined: decode the event and ask matchEvent().
   */
  asciiEventContent(bytes: Uint8Array): string | undefined {
    const prefix = this.#prefixBytes;
    const suffix = this.#suffixBytes;
    if (prefix === undefined || suffix === undefined || LATIN1 === undefined) return undefined;
    const from = dataEventStart(bytes, 0, bytes.length);
    if (from === -1) return undefined;
    const start = from + prefix.length;
    const end = bytes.length - 2 - suffix.length;
    if (end < start) return undefined;
    for (let i = start; i < end; i++) if (bytes[i]! >= 0x80) return undefined;
    if (!sameBytes(bytes, end, suffix) || !sameBytes(bytes, from, prefix)) return undefined;
    return this.#body(LATIN1.call(bytes, start, end));
  }

  #body(body: string): string | undefined {
    const content = plain(body) ? body : stringBody(body);
    if (content !== undefined) this.#hits++;
    return content;
  }

  /** `chunk` is JSON.parse(payload), not yet changed, and `content` its choices[0].delta.content. */
  learn(payload: string, chunk: Json, content: string): void {
    if (this.#wait > 0) {
      this.#wait--;
      return;
    }
    if (this.#source !== undefined) {
      this.#backoff = this.#hits > 0 ? 0 : Math.min(2 * this.#backoff + 1, 1024);
      this.#wait = this.#backoff;
    }
    this.#source = undefined;
    this.#prefixBytes = this.#suffixBytes = undefined;
    this.#hits = 0;
    const literal = JSON.stringify(content);
    const at = payload.indexOf(literal);
    if (at === -1) return;
    const prefix = payload.slice(0, at + 1);
    const suffix = payload.slice(at + literal.length - 1);
    const probe = jsonOrUndefined(prefix + SENTINEL_BODY + suffix);
    // The rest of the text is the same, so the rest of the chunk is too.
    if (contentDelta(probe)?.content !== SENTINEL) return;
    this.#prefix = prefix;
    this.#suffix = suffix;
    this.#source = chunk;
    this.#oneLine = !hasLineEnd(prefix) && !hasLineEnd(suffix);
    const prefixBytes = ENCODER.encode(prefix);
    const suffixBytes = ENCODER.encode(suffix);
    // ASCII only: then a plain event is ASCII throughout, as many characters as bytes.
    if (this.#oneLine && prefixBytes.length === prefix.length && suffixBytes.length === suffix.length) {
      this.#prefixBytes = prefixBytes;
      this.#suffixBytes = suffixBytes;
    }
  }
}

const ENCODER = new TextEncoder();

type Compare = (this: Uint8Array, target: Uint8Array, targetStart: number, targetEnd: number, sourceStart: number, sourceEnd: number) => number;
/** Node's and Bun's native Buffer#compare, which takes any Uint8Array as `this`; absent elsewhere. */
const NATIVE_COMPARE = (globalThis as { Buffer?: { prototype: { compare: Compare } } }).Buffer?.prototype.compare;

type Latin1Slice = (this: Uint8Array, start: number, end: number) => string;
/**
 * Bun's native Buffer#latin1Slice, which takes any Uint8Array as `this`. Bun only: there, 10-20
 * bytes of content cost 35-41 ns against 175 ns to decode the ~230-byte event; Node decodes the
 * whole ASCII event in 74 ns, as fast as it slices the content (76 ns), so it keeps decoding.
 */
const LATIN1 = "Bun" in globalThis ? (globalThis as { Buffer?: { prototype: { latin1Slice?: Latin1Slice } } }).Buffer?.prototype.latin1Slice : undefined;

/** Whether bytes[at, at + ref.length), which lies inside `bytes`, is `ref`, byte for byte. */
export function sameBytes(bytes: Uint8Array, at: number, ref: Uint8Array, compare: Compare | undefined = NATIVE_COMPARE): boolean {
  if (compare !== undefined) return compare.call(bytes, ref, 0, ref.length, at, at + ref.length) === 0;
  for (let i = 0; i < ref.length; i++) if (bytes[at + i] !== ref[i]) return false;
  return true;
}

function hasLineEnd(text: string): boolean {
  return text.includes("\r") || text.includes("\n");
}

function contentDelta(chunk: unknown): Json | undefined {
  if (!isObject(chunk) || !Array.isArray(chunk.choices)) return undefined;
  const first: unknown = chunk.choices[0];
  return isObject(first) && isObject(first.delta) ? first.delta : undefined;
}

/** No quote, backslash or control character: the JSON string body is the string itself. */
function plain(body: string): boolean {
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92) return false;
  }
  return true;
}

/**
 * What JSON.parse(`"${body}"`) returns, or undefined where it would throw; written out because
 * the parse, with its string building, costs more than the content it reads (code has a quote
 * or a newline in most deltas). test/adapters/chunk-shape.test.ts holds it to JSON.parse.
 */
export function stringBody(body: string): string | undefined {
  let out = "";
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c < 32 || c === 34) return undefined;
    if (c !== 92) continue;
    out += body.slice(from, i);
    const escape = ESCAPES[body.charCodeAt(i + 1)];
    if (escape === undefined) return undefined;
    if (escape === "u") {
      const unit = hex4(body, i + 2);
      if (unit === -1) return undefined;
      out += String.fromCharCode(unit);
      i += 5;
    } else {
      out += escape;
      i += 1;
    }
    from = i + 1;
  }
  return from === 0 ? body : out + body.slice(from);
}

/** The code unit written as four hex digits at `at`, or -1. */
function hex4(text: string, at: number): number {
  let unit = 0;
  for (let k = at; k < at + 4; k++) {
    const c = text.charCodeAt(k);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (digit === -1) return -1;
    unit = unit * 16 + digit;
  }
  return unit;
}

/** JSON's escapes by the character after the backslash; "u" is read on. */
const ESCAPES: Record<number, string> = { 34: '"', 92: "\\", 47: "/", 98: "\b", 102: "\f", 110: "\n", 114: "\r", 116: "\t", 117: "u" };
