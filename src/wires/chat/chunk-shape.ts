// Streamed chunks of one response usually differ only in their `content` string. Once such a
// chunk has been seen, the next ones are recognised by their text alone, which spares a full
// JSON.parse for every token on the path where the content passes through unchanged.
import { jsonOrUndefined } from "../../grammar/plain-data.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { onlyContent } from "./chunk-fields.ts";

const SENTINEL = "\u0000dsml-fix\u0000";
const SENTINEL_BODY = JSON.stringify(SENTINEL).slice(1, -1);

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
  /** `data: ` + the prefix, and the suffix + LF LF, as bytes: set for a one-line, all-ASCII shape only. */
  #head: Uint8Array | undefined;
  #tail: Uint8Array | undefined;
  /** carriesOnlyContent's answer, read from the chunk the shape was learned from before anything changed it. */
  #onlyContent = false;

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
   * match() on an event's bytes, for the commonest event: one `data: ` line of this shape whose
   * content is ASCII, read without decoding the rest of the event (ASCII reads the same as Latin-1
   * or UTF-8). undefined: read the event as text and ask match().
   */
  matchBytes(bytes: Uint8Array): string | undefined {
    const head = this.#head;
    const tail = this.#tail;
    if (head === undefined || tail === undefined) return undefined;
    const end = bytes.length - tail.length;
    if (end < head.length) return undefined;
    // The content first: it is short, and where it is not ASCII the event goes the text way. The
    // same pass tells whether the JSON string body needs unescaping at all (quote, backslash, control).
    let escaped = false;
    for (let i = head.length; i < end; i++) {
      const b = bytes[i]!;
      if (b >= 0x80) return undefined;
      if (b < 32 || b === 34 || b === 92) escaped = true;
    }
    // The tail before the head: where an event of another shape differs, it is mostly there (finish_reason, usage).
    if (!sameBytes(bytes, end, tail) || !sameBytes(bytes, 0, head)) return undefined;
    return this.#body(asciiText(bytes, head.length, end), escaped);
  }

  /** The content a matched JSON string body holds (`escaped`: it needs unescaping), counted as a hit. */
  #body(body: string, escaped = !plain(body)): string | undefined {
    const content = escaped ? stringBody(body) : body;
    if (content !== undefined) this.#hits++;
    return content;
  }

  /**
   * Whether a chunk of the learned shape, its content taken out, would carry nothing a client
   * could act on: then a synthetic chunk may stand for it, and its bytes may wait. Not so when the
   * shape holds anything else (another choice's delta with `n > 1`, logprobs): that part lives only
   * in the chunk's own bytes, which must go out.
   */
  get carriesOnlyContent(): boolean {
    return this.#onlyContent;
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
    this.#head = this.#tail = undefined;
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
    // Read now: the source object may be changed on its way out.
    this.#onlyContent = onlyContent(chunk, (chunk.choices as Json[])[0]!.delta as Json);
    const head = ENCODER.encode(`data: ${prefix}`);
    const tail = ENCODER.encode(`${suffix}\n\n`);
    // One line, ASCII only: then a plain event is as many characters as bytes, and one line.
    if (!hasLineEnd(prefix) && !hasLineEnd(suffix) && head.length === prefix.length + 6 && tail.length === suffix.length + 2) {
      this.#head = head;
      this.#tail = tail;
    }
  }
}

const ENCODER = new TextEncoder();

/**
 * Whether bytes[at, at + ref.length) is `ref`, byte for byte. The head is an event's whole envelope
 * (110 to 200 bytes: id, model, fingerprint), where the runtime's Buffer#compare, given offsets so
 * that no view is made, takes 40 to 80 ns against a plain loop's 100 to 270 ns (Bun 1.3 and 1.4,
 * Node 20, measured side by side); the loop is kept for runtimes without Buffer.
 */
export function sameBytes(bytes: Uint8Array, at: number, ref: Uint8Array, compare: Compare | null = NATIVE_COMPARE): boolean {
  if (at < 0 || at + ref.length > bytes.length) return false;
  if (compare !== null) return compare.call(ref, bytes, at, at + ref.length) === 0;
  for (let i = ref.length - 1; i >= 0; i--) if (bytes[at + i] !== ref[i]) return false;
  return true;
}

type Compare = (this: Uint8Array, target: Uint8Array, targetStart: number, targetEnd: number) => number;
/** Node's and Bun's native Buffer#compare, which takes any Uint8Array as `this`; absent elsewhere. */
const NATIVE_COMPARE = (globalThis as { Buffer?: { prototype: { compare?: Compare } } }).Buffer?.prototype.compare ?? null;

type Latin1Slice = (this: Uint8Array, start: number, end: number) => string;
/** Node's and Bun's native Buffer#latin1Slice, which takes any Uint8Array as `this`; absent elsewhere. */
const NATIVE_LATIN1 = (globalThis as { Buffer?: { prototype: { latin1Slice?: Latin1Slice } } }).Buffer?.prototype.latin1Slice ?? null;

/**
 * bytes[start, end), all ASCII, as a string: one flat string made natively where the runtime can
 * (a decoder would first need a view of the bytes, which costs more than the content).
 */
export function asciiText(bytes: Uint8Array, start: number, end: number, latin1: Latin1Slice | null = NATIVE_LATIN1): string {
  if (latin1 !== null) return latin1.call(bytes, start, end);
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i]!);
  return text;
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
