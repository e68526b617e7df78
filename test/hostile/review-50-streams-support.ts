// Review 50 (hostile, tests only): shared by review-50-streams-*.test.ts. Replies made of the
// golden fixtures (test/golden/fixtures.json) between prose, an engine reference built the way the
// adapters build theirs, an SSE writer with every legal framing (LF, CRLF, CR, `data:` with no
// space, comments and `id:` lines, a payload split over two `data:` lines), a spec-following SSE
// reader for what comes out (it also reports broken framing), and the real repairFetch in front of
// a base fetch answering in given byte chunks. No DSML marker bytes here: fixture inputs are read
// from fixtures.json, where they are stored escaped.
import fc from "fast-check";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineEvent } from "../../src/engine/types.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import type { Fixture } from "../golden/build-fixtures.ts";
import { fixtureTools } from "../golden/tools.ts";
import { escaped } from "../golden/notation.ts";
import { chunkedFetch, encode, type Json } from "../adapters/wire-support.ts";
import { randomCuts } from "../support/run-engine.ts";
import { anthropicShown } from "../support/anthropic-blank.ts";

export type { Json };
export { encode };

const stored = (await Bun.file(new URL("../golden/fixtures.json", import.meta.url)).json()) as Fixture[];
/** Fixtures read with the default options and the fixture tools (what every wire below declares). */
export const PLAIN = stored.filter((f) => !f.tools && !f.options && !f.given && !f.reservedNames && f.bufferLimit === undefined && !f.nativeToolCalls);
export const WITH_CALLS = PLAIN.filter((f) => f.expect.calls.length > 0);

/** Prose put around a fixture: multi-byte characters (3 and 4 bytes in UTF-8), CR, blank lines. */
export const PROSE = ["", "Sure. ", "\u4f60\u597d\u4e16\u754c ", "\uD83D\uDE00 ok\n\n", "Done.\r\n", "Let me check.\n\n", "caf\u00e9 \u00e9t\u00e9\n", "See `x` and <b>y</b>. "];

export interface Reply {
  text: string;
  id: string;
}

/** A reply: prose, a golden fixture's input (one with calls half the time), prose. */
export const replyArb: fc.Arbitrary<Reply> = fc
  .tuple(fc.boolean(), fc.nat(), fc.constantFrom(...PROSE), fc.constantFrom(...PROSE))
  .map(([calls, n, pre, post]) => {
    const pool = calls ? WITH_CALLS : PLAIN;
    const f = pool[n % pool.length]!;
    return { text: pre + f.input + post, id: f.id };
  });

export interface Outcome {
  text: string;
  calls: { tool: string; input: unknown }[];
}

/**
 * The engine as the adapters build it, fed `text` whole. `cut`: the reply did not end (an error,
 * a content filter, a refusal): what the engine still holds is the text's tail, shown as written.
 */
export function reference(text: string, options: { cut?: boolean; native?: boolean; tools?: readonly ToolSpec[]; bufferLimit?: number } = {}): Outcome {
  const engine = createRepairEngine({ tools: options.tools ?? fixtureTools, idPrefix: "call_", ...(options.bufferLimit ? { bufferLimit: options.bufferLimit } : {}) });
  if (options.native) engine.noteNativeToolCall();
  const events: EngineEvent[] = [...engine.feed(text)];
  let tail = "";
  if (options.cut) tail = engine.held > 0 ? text.slice(text.length - engine.held) : "";
  else events.push(...engine.flush());
  return {
    text: events.map((e) => (e.type === "text" ? e.text : "")).join("") + tail,
    calls: events.flatMap((e) => (e.type === "call" ? [{ tool: e.call.tool, input: e.call.input }] : [])),
  };
}

/**
 * As reference(), the text read as Anthropic text blocks back to back (`blocks`, one span): what
 * a client is shown, whitespace alone beside a call in a text block not sent (review 57 A1,
 * test/support/anthropic-blank.ts).
 */
export function anthropicReference(blocks: readonly string[], options: { cut?: boolean; bufferLimit?: number } = {}): Outcome {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", ...(options.bufferLimit ? { bufferLimit: options.bufferLimit } : {}) });
  const read: { events: EngineEvent[]; goesOn: boolean }[] = blocks.map((block, i) => {
    const events = engine.feed(block);
    return { events, goesOn: i < blocks.length - 1 && engine.held > 0 };
  });
  const text = blocks.join("");
  const last = read.at(-1)?.events ?? [];
  if (!options.cut) last.push(...engine.flush());
  else if (engine.held > 0) last.push({ type: "text", text: text.slice(text.length - engine.held) });
  const events = read.flatMap((b) => b.events);
  return { text: anthropicShown(read), calls: events.flatMap((e) => (e.type === "call" ? [{ tool: e.call.tool, input: e.call.input }] : [])) };
}

/**
 * As reference(), the text arriving in `parts` with endSpan() between them: how the Responses wire
 * reads output_text parts and message items, and the Anthropic wire text blocks with other blocks
 * between (markup ends at a part's end; text held after a call carries on into the next part).
 */
export function spannedReference(parts: readonly string[], options: { cut?: boolean; bufferLimit?: number } = {}): Outcome {
  const engine = createRepairEngine({ tools: fixtureTools, idPrefix: "call_", ...(options.bufferLimit ? { bufferLimit: options.bufferLimit } : {}) });
  const events: EngineEvent[] = [];
  parts.forEach((part, i) => {
    events.push(...engine.feed(part));
    if (i < parts.length - 1) events.push(...engine.endSpan!());
  });
  const text = parts.join("");
  let tail = "";
  if (options.cut) tail = engine.held > 0 ? text.slice(text.length - engine.held) : "";
  else events.push(...engine.flush());
  return {
    text: events.map((e) => (e.type === "text" ? e.text : "")).join("") + tail,
    calls: events.flatMap((e) => (e.type === "call" ? [{ tool: e.call.tool, input: e.call.input }] : [])),
  };
}

/** `text` cut at `cuts` (modulo its length, never inside a surrogate pair), empty pieces left out. */
export function piecesOf(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)).map((c) => (c > 0 && /[\uDC00-\uDFFF]/.test(text[c] ?? "") ? c + 1 : c)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const cut of at) {
    out.push(text.slice(from, cut));
    from = cut;
  }
  out.push(text.slice(from));
  return out.filter((p) => p !== "");
}

// ---------------------------------------------------------------- SSE writing

export type Framing = "lf" | "crlf" | "cr" | "nospace" | "comments" | "twolines" | "mixed";
export const FRAMINGS: Framing[] = ["lf", "crlf", "cr", "nospace", "comments", "twolines", "mixed"];

/** Events (`event:` name when `named`) in one of the legal framings. */
export function writeSse(payloads: (Json | string)[], framing: Framing, named: boolean): string {
  return payloads
    .map((p, i) => {
      const data = typeof p === "string" ? p : JSON.stringify(p);
      const name = named && typeof p !== "string" ? p.type : undefined;
      const eol = framing === "crlf" ? "\r\n" : framing === "cr" ? "\r" : framing === "mixed" ? ["\n", "\r\n", "\r"][i % 3]! : "\n";
      const lines: string[] = [];
      if (framing === "comments") lines.push(": keep-alive", `id: ${i}`);
      if (name !== undefined) lines.push(`event: ${name}`);
      if (framing === "nospace") lines.push(`data:${data}`);
      else if (framing === "twolines" && data.startsWith("{") && data.includes(',"')) {
        // One payload over two data lines: the client joins them with LF, which JSON reads as whitespace.
        const at = data.indexOf(',"');
        lines.push(`data: ${data.slice(0, at + 1)}`, `data: ${data.slice(at + 1)}`);
      } else lines.push(`data: ${data}`);
      return lines.map((l) => l + eol).join("") + eol;
    })
    .join("");
}

// ---------------------------------------------------------------- SSE reading

export interface ReadEvent {
  event?: string;
  data: string;
}

/**
 * The events a client following the SSE spec reads: lines end at CR, LF or CRLF; a blank line
 * dispatches; a last event without its blank line is dropped. `problem`: the body does not end
 * where an event ended (broken framing), or an event has no data.
 */
export function readSse(raw: string): { events: ReadEvent[]; problem?: string } {
  const events: ReadEvent[] = [];
  let data: string[] = [];
  let name: string | undefined;
  let problem: string | undefined;
  const re = /\r\n|\r|\n/g;
  let at = 0;
  let pending = false;
  for (let m = re.exec(raw); m; m = re.exec(raw)) {
    const line = raw.slice(at, m.index);
    at = m.index + m[0].length;
    if (line === "") {
      if (pending) events.push({ event: name, data: data.join("\n") });
      data = [];
      name = undefined;
      pending = false;
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      data.push(value);
      pending = true;
    } else if (field === "event") name = value;
    else if (field !== "id" && field !== "retry") problem ??= `unknown field line ${JSON.stringify(line.slice(0, 40))}`;
  }
  if (at < raw.length || pending) problem ??= `body ends inside an event: ${JSON.stringify(raw.slice(Math.max(0, at - 20)).slice(0, 80))}`;
  return { events, ...(problem ? { problem } : {}) };
}

// ---------------------------------------------------------------- fetch

export const URLS = { chat: "http://model.test/v1/chat/completions", anthropic: "http://model.test/v1/messages", responses: "http://model.test/v1/responses" } as const;

/** The repaired body for `request`, the upstream answering in `chunks` (byte pieces), under responseFix.bufferLimit when given. */
export async function repaired(url: string, request: Json, chunks: Uint8Array[], bufferLimit?: number): Promise<string> {
  const options = bufferLimit ? { responseFix: { bufferLimit } } : {};
  const fix = repairFetch(options, chunkedFetch(chunks));
  const res = await fix(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return res.text();
}

/** `bytes` cut at seeded random offsets (anywhere: inside a UTF-8 sequence, a CRLF, a field name). */
export function byteCuts(bytes: Uint8Array, seed: number, maxChunk: number): Uint8Array[] {
  const cuts = [0, ...randomCuts(bytes.length, seed, maxChunk), bytes.length];
  return cuts.slice(1).map((end, i) => bytes.subarray(cuts[i]!, end));
}

/** `bytes` cut at the given offsets. */
export function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const at = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of at) {
    if (cut > from) out.push(bytes.subarray(from, cut));
    from = Math.max(from, cut);
  }
  if (from < bytes.length) out.push(bytes.subarray(from));
  return out;
}

/** Byte offsets just inside every multi-byte character, CRLF and `data:` field name of `bytes`. */
export function trickyOffsets(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 1; i < bytes.length; i++) {
    const b = bytes[i]!;
    if ((b & 0xc0) === 0x80) out.push(i);
    else if (bytes[i - 1] === 13 && b === 10) out.push(i);
    else if (bytes[i - 1] === 0x64 && b === 0x61 && bytes[i + 1] === 0x74) out.push(i, i + 2, i + 4);
  }
  return out;
}

export const deltas = (text: string, size: number): string[] => {
  const out: string[] = [];
  // Cut by code units: a delta may end inside a surrogate pair, as a tokenizer's may not, so keep pairs whole.
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end++;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
};

/** responseFix.bufferLimit values: the default, and a few small enough that fixtures cross them. */
export const BUFFER_LIMITS = [undefined, 8, 40, 120] as const;

export const show = (v: unknown) => escaped(JSON.stringify(v));
