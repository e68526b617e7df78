// The byte side of the SSE repair: frames the body into events, lets a wire's rewriter decide on
// each, and writes original bytes wherever nothing changed.
import { jsonOrUndefined } from "../grammar/plain-data.ts";
import { type Json, isObject } from "./json.ts";
import { pullStage } from "./pull-stage.ts";
import { SseFramer, SseReader, serialize, singleDataPayloadOf, wholeDataEvent } from "./framing.ts";

export const RAW = Symbol("raw");
/** The original bytes of every deferred event, in the order they came. */
export const HELD = Symbol("held");
/** A chunk to serialize, RAW (the event's original bytes) or HELD. */
export type Piece = Json | typeof RAW | typeof HELD;

export interface Rewritten {
  pieces: Piece[];
  /** The event's own chunk; only it keeps the event's non-data lines (id:, event:, comments). */
  original?: Json;
  /**
   * Keep the event's original bytes back, nothing goes out yet. The next answer that is not a
   * deferral either sends them (a HELD piece) or gives them up (no HELD piece: what they carried
   * comes out in its pieces instead).
   */
  defer?: true;
}

/** What one wire (chat-completions, Anthropic Messages, Responses) decides per event. */
export interface EventRewriter {
  /**
   * `payload` is the event's joined data lines. null: pass the event through byte for byte.
   * `mayDefer`: the event may be answered with `defer` (its bytes end in LF LF).
   */
  event(payload: string, hasMeta: boolean, mayDefer: boolean): Rewritten | null;
  /**
   * Optional: event() for a chunk that may be one whole single-line `data:` event ending in LF LF,
   * given as its decoded text, answered without reading it as SSE; undefined: ask event().
   */
  wholeEvent?(event: string): Rewritten | null | undefined;
  /**
   * Optional: wholeEvent() for a chunk that may be one whole single-line `data:` event ending in
   * LF LF, given as its bytes; undefined: decode it and ask wholeEvent().
   */
  byteEvent?(bytes: Uint8Array): Rewritten | null | undefined;
  /**
   * Optional: true when bytes[at, to) (default: all of them), which may be one whole event, passes
   * through unchanged, decided on the bytes without decoding them; false: ask wholeEvent() or event().
   */
  plainEvent?(bytes: Uint8Array, at?: number, to?: number): boolean;
  /** End of the body: whatever the engine still holds, as events to append. */
  end(): Json[];
  /** Non-data lines for a synthetic event (an `event:` line on wires that name their events). */
  metaFor?(piece: Json): readonly string[];
}

/**
 * Untouched events are never re-encoded: consecutive ones go out as one slice of the network
 * chunk they arrived in (the chunk itself when all of it passed), so a stream with nothing to
 * repair costs framing, decoding and JSON.parse, and one enqueue per chunk.
 */
export function rewriteEventStream(
  body: ReadableStream<Uint8Array>,
  rewriter: EventRewriter,
  onError: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  const framer = new SseFramer();
  const reader = new SseReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let emit!: (bytes: Uint8Array) => void;
  /** Whether the last event went out as its original bytes. */
  let lastRaw = true;
  /** Original bytes of deferred events, waiting for the rewriter's next answer. */
  let deferred: Uint8Array[] = [];
  const metaOf = (piece: Json): readonly string[] => rewriter.metaFor?.(piece) ?? [];

  /** Reads the event at `from` in `text`; afterwards reader.end is where the next one starts. */
  function decide(text: string, from: number, mayDefer: boolean): Rewritten | null {
    reader.read(text, from);
    return decideRead(mayDefer);
  }

  /** Asks the rewriter about the event the reader holds. */
  function decideRead(mayDefer: boolean): Rewritten | null {
    if (reader.data === undefined) return null;
    try {
      return rewriter.event(reader.data, reader.meta.length > 0, mayDefer);
    } catch (error) {
      onError(error);
      return null;
    }
  }

  function passesPlain(chunk: Uint8Array, at?: number, to?: number): boolean {
    try {
      return rewriter.plainEvent!(chunk, at, to);
    } catch (error) {
      onError(error);
      return false;
    }
  }

  function decideWhole(text: string): Rewritten | null | undefined {
    try {
      return rewriter.wholeEvent!(text);
    } catch (error) {
      onError(error);
      return null;
    }
  }

  function decideBytes(chunk: Uint8Array): Rewritten | null | undefined {
    try {
      return rewriter.byteEvent!(chunk);
    } catch (error) {
      onError(error);
      return null;
    }
  }

  /** Writes what replaces one event; returns whether its last bytes were the original ones. */
  function write(rewritten: Rewritten, original: Uint8Array): boolean {
    if (rewritten.defer) {
      deferred.push(original);
      return false;
    }
    for (const piece of rewritten.pieces) {
      if (piece === RAW) emit(original);
      else if (piece === HELD) for (const bytes of deferred) emit(bytes);
      else emit(encoder.encode(serialize(JSON.stringify(piece), reader.eol, piece === rewritten.original ? reader.meta : metaOf(piece))));
    }
    // Sent, or given up: what they carried went out in the pieces.
    deferred = [];
    return rewritten.pieces.at(-1) === RAW;
  }

  return pullStage<Uint8Array, Uint8Array>(body, (out) => {
    emit = out;
    return {
      each(chunk) {
        // The usual chunk, one whole event, is read in place: no framing; when the rewriter knows
        // the event's shape, not even as SSE; when its content is plain, not even decoded; and
        // when that content is ASCII, only it is decoded.
        if (framer.idle && rewriter.plainEvent !== undefined && passesPlain(chunk)) {
          reader.single(undefined);
          emit(chunk);
          lastRaw = true;
          return;
        }
        let whole = framer.idle && rewriter.byteEvent !== undefined ? decideBytes(chunk) : undefined;
        let one: string | undefined;
        if (whole === undefined && framer.idle) {
          one = wholeDataEvent(chunk, decoder);
          if (one !== undefined && rewriter.wholeEvent !== undefined) whole = decideWhole(one);
        }
        if (whole !== undefined) {
          reader.single(undefined);
          if (whole === null) emit(chunk);
          lastRaw = whole === null || write(whole, chunk);
          return;
        }
        const data = one !== undefined ? singleDataPayloadOf(one) : undefined;
        if (data !== undefined) {
          reader.single(data);
          const rewritten = decideRead(true);
          if (rewritten === null) emit(chunk);
          lastRaw = rewritten === null || write(rewritten, chunk);
          return;
        }
        const { lead, head, ends } = framer.push(chunk);
        // The LF completing the CRLF of the event before: original bytes keep it, a rewritten
        // event already ended with its own blank line.
        if (lead > 0 && lastRaw) emit(chunk.subarray(0, lead));
        if (ends.length === 0) return;
        let k = 0;
        let at = lead;
        if (head !== undefined) {
          const rewritten = decide(decoder.decode(head), 0, endsInLfs(head, head.length));
          if (rewritten === null) emit(head);
          lastRaw = rewritten === null || write(rewritten, head);
          at = ends[k++]!;
        }
        if (k === ends.length) return;
        const last = ends[ends.length - 1]!;
        const plain = rewriter.plainEvent !== undefined;
        // Decoded once for all the events from the first one that is not plain on its bytes. CR and
        // LF are one byte and one character each, so the reader finds the same event boundaries in
        // the text as the framer did in the bytes; a plain event is ASCII, its length the same in both.
        let text: string | undefined;
        let pos = 0;
        let pending = at;
        for (; k < ends.length; k++) {
          const end = ends[k]!;
          if (plain && passesPlain(chunk, at, end)) {
            pos += end - at;
            lastRaw = true;
            at = end;
            continue;
          }
          if (text === undefined) {
            text = decoder.decode(at === 0 && last === chunk.length ? chunk : chunk.subarray(at, last));
            pos = 0;
          }
          const rewritten = decide(text, pos, endsInLfs(chunk, end));
          pos = reader.end;
          if (rewritten !== null) {
            if (pending < at) emit(chunk.subarray(pending, at));
            lastRaw = write(rewritten, chunk.subarray(at, end));
            pending = end;
          } else lastRaw = true;
          at = end;
        }
        if (pending < at) emit(pending === 0 && at === chunk.length ? chunk : chunk.subarray(pending, at));
      },
      end() {
        const tail = framer.end();
        let tailRaw = false;
        if (tail !== undefined) {
          const rewritten = decide(decoder.decode(tail), 0, false);
          if (rewritten === null) emit(tail);
          tailRaw = rewritten === null || write(rewritten, tail);
        }
        let pieces: Json[] = [];
        try {
          pieces = rewriter.end();
        } catch (error) {
          onError(error);
          // Deferred events were never answered: their bytes are still the truest account of them.
          for (const bytes of deferred) emit(bytes);
        }
        // The tail had no blank line; without one the first synthetic event would merge into it.
        if (pieces.length > 0 && tailRaw) emit(encoder.encode("\n\n"));
        for (const piece of pieces) emit(encoder.encode(serialize(JSON.stringify(piece), "\n", metaOf(piece))));
      },
    };
  });
}

/**
 * Only an event ending in LF LF waits. After a CR, the LF of a CRLF may come as the next chunk's
 * first byte, and whether it has come depends on where the network cut: the output must not.
 */
function endsInLfs(bytes: Uint8Array, end: number): boolean {
  return end >= 2 && bytes[end - 1] === 10 && bytes[end - 2] === 10;
}

/** The `event:` line of a wire that names its events after their `type` (Anthropic, Responses). */
export function namedEventMeta(piece: Json): readonly string[] {
  return typeof piece.type === "string" ? [`event: ${piece.type}`] : [];
}

/** An event's data as one JSON object with a string `type`; null for anything else (passed through). */
export function typedEvent(payload: string): (Json & { type: string }) | null {
  const event = jsonOrUndefined(payload);
  return isObject(event) && typeof event.type === "string" ? (event as Json & { type: string }) : null;
}
