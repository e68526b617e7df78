// The byte side of the SSE repair: frames the body into events, lets a wire's rewriter decide on
// each, and writes original bytes wherever nothing changed.
import { jsonOrUndefined } from "../grammar/plain-data.ts";
import { type Json, isObject } from "./json.ts";
import { pullStage } from "./pull-stage.ts";
import { SseFramer, SseReader, serialize } from "./framing.ts";

export const RAW = Symbol("raw");
/**
 * What goes out in an event's place: a chunk to serialize, RAW (the event's own bytes), or bytes
 * of earlier events the rewriter kept back, as they came.
 */
export type Piece = Json | typeof RAW | Uint8Array;

export interface Rewritten {
  pieces: Piece[];
  /** The event's own chunk; only it keeps the event's non-data lines (id:, event:, comments). */
  original?: Json;
}

/** One event as a rewriter sees it, read only as far as the rewriter asks; valid during the call. */
export interface SseEvent {
  /** Its bytes as they came, blank line included. */
  readonly bytes: Uint8Array;
  /** The `data:` lines joined with LF; undefined when it has none. */
  readonly data: string | undefined;
  /** It has other lines (id:, event:, comments). */
  readonly hasMeta: boolean;
  /**
   * Its bytes end in LF LF, so they may be kept back and sent later as they are: after a CR, the LF
   * of a CRLF may come as the next chunk's first byte, and whether it has come depends on where the
   * network cut, which the output must not.
   */
  readonly canWait: boolean;
}

/** What one wire (chat-completions, Anthropic Messages, Responses) decides per event. */
export interface EventRewriter {
  /** Entered once per event. null: the event goes on byte for byte. */
  event(event: SseEvent): Rewritten | null;
  /** End of the body: whatever the engine still holds, as events to append. */
  end(): Json[];
}

/**
 * Untouched events are never re-encoded: consecutive ones go out as one slice of the network
 * chunk they arrived in (the chunk itself when all of it passed). A synthetic event is named after
 * its `type` (an `event:` line), as Anthropic and Responses name theirs; chat chunks have none.
 */
export function rewriteEventStream(
  body: ReadableStream<Uint8Array>,
  rewriter: EventRewriter,
  onError: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  const framer = new SseFramer();
  const view = new EventView();
  const encoder = new TextEncoder();
  let emit!: (bytes: Uint8Array) => void;
  /** Whether the last event went out as its original bytes. */
  let lastRaw = true;

  /** The rewriter's answer for one event; a rewriter that throws leaves the event as it came. */
  function decide(bytes: Uint8Array): Rewritten | null {
    try {
      return rewriter.event(view.of(bytes));
    } catch (error) {
      onError(error);
      return null;
    }
  }

  /** Writes what replaces one event; returns whether its last bytes were the original ones. */
  function write(rewritten: Rewritten, original: Uint8Array): boolean {
    for (const piece of rewritten.pieces) {
      if (piece === RAW) emit(original);
      else if (piece instanceof Uint8Array) emit(piece);
      else emit(encoder.encode(serialize(JSON.stringify(piece), view.eol, piece === rewritten.original ? view.meta : namedEventMeta(piece))));
    }
    return rewritten.pieces.at(-1) === RAW;
  }

  return pullStage<Uint8Array, Uint8Array>(body, (out) => {
    emit = out;
    return {
      each(chunk) {
        const { lead, head, ends } = framer.push(chunk);
        // The LF completing the CRLF of the event before: original bytes keep it, a rewritten
        // event already ended with its own blank line.
        if (lead > 0 && lastRaw) emit(chunk.subarray(0, lead));
        let k = 0;
        let at = lead;
        if (head !== undefined) {
          const rewritten = decide(head);
          if (rewritten === null) emit(head);
          lastRaw = rewritten === null || write(rewritten, head);
          at = ends[k++]!;
        }
        // Events that pass go out together, as one slice of the chunk.
        let pending = at;
        for (; k < ends.length; k++) {
          const end = ends[k]!;
          const bytes = at === 0 && end === chunk.length ? chunk : chunk.subarray(at, end);
          const rewritten = decide(bytes);
          if (rewritten !== null) {
            if (pending < at) emit(chunk.subarray(pending, at));
            lastRaw = write(rewritten, bytes);
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
          const rewritten = decide(tail);
          if (rewritten === null) emit(tail);
          tailRaw = rewritten === null || write(rewritten, tail);
        }
        let pieces: Json[] = [];
        try {
          pieces = rewriter.end();
        } catch (error) {
          onError(error);
        }
        // The tail had no blank line; without one the first synthetic event would merge into it.
        if (pieces.length > 0 && tailRaw) emit(encoder.encode("\n\n"));
        for (const piece of pieces) emit(encoder.encode(serialize(JSON.stringify(piece), "\n", namedEventMeta(piece))));
      },
      fail() {
        // The unfinished tail is half an event: it never goes out. What the engine still holds
        // was text the upstream did send, so it goes out as whole events before the error.
        let pieces: Json[] = [];
        try {
          pieces = rewriter.end();
        } catch (error) {
          onError(error);
        }
        for (const piece of pieces) emit(encoder.encode(serialize(JSON.stringify(piece), "\n", namedEventMeta(piece))));
      },
    };
  });
}

/** The event being decided, decoded and read as SSE only when first asked. */
class EventView implements SseEvent {
  bytes: Uint8Array = new Uint8Array(0);
  #reader = new SseReader();
  #decoder = new TextDecoder();
  #read = false;

  of(bytes: Uint8Array): this {
    this.bytes = bytes;
    this.#read = false;
    return this;
  }

  get data(): string | undefined {
    return this.#lines().data;
  }

  get hasMeta(): boolean {
    return this.#lines().meta.length > 0;
  }

  get canWait(): boolean {
    const bytes = this.bytes;
    return bytes.length >= 2 && bytes[bytes.length - 1] === LF && bytes[bytes.length - 2] === LF;
  }

  /** The other lines, kept on the event's own chunk when it is rewritten. */
  get meta(): readonly string[] {
    return this.#lines().meta;
  }

  /** The first line's terminator, used for anything written in this event's place. */
  get eol(): string {
    return this.#lines().eol;
  }

  #lines(): SseReader {
    if (!this.#read) {
      this.#read = true;
      // An event ends at a line end, never inside a UTF-8 sequence: it decodes on its own.
      this.#reader.read(this.#decoder.decode(this.bytes), 0);
    }
    return this.#reader;
  }
}

const LF = 10;

/** The `event:` line of a wire that names its events after their `type` (Anthropic, Responses). */
export function namedEventMeta(piece: Json): readonly string[] {
  return typeof piece.type === "string" ? [`event: ${piece.type}`] : [];
}

/** An event's data as one JSON object with a string `type`; null for anything else (passed through). */
export function typedEvent(payload: string | undefined): (Json & { type: string }) | null {
  if (payload === undefined) return null;
  const event = jsonOrUndefined(payload);
  return isObject(event) && typeof event.type === "string" ? (event as Json & { type: string }) : null;
}
