// The byte side of the SSE repair: frames the body into events, lets a wire's rewriter decide on
// each, and writes original bytes wherever nothing changed.
import { jsonOrUndefined } from "../grammar/plain-data.ts";
import { type Json, isObject } from "./json.ts";
import { pullStage } from "./pull-stage.ts";
import { SseFramer, SseReader, serialize } from "./framing.ts";
import { type PassingEdits, PassingEvent } from "./passing.ts";

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
  /** Those lines, without their terminators (an `event:` line names the event: framing.ts eventName). */
  readonly meta: readonly string[];
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
  /**
   * The reply goes on but is no longer read (`goesOn`: an event past HELD_EVENT_LIMIT), or it was
   * cut (the upstream failed): neither is its end. What the engines hold goes out exactly as
   * written, undecided (GuardedEngine.stop()), as events to append; the calls already recovered
   * stand (those held back for the reply's end go out; cut, so do those waiting for their item's
   * end), and no text is read or decided any more.
   */
  stop(goesOn: boolean): Json[];
  /**
   * After stop(true), for each event past HELD_EVENT_LIMIT: the few values that streams on with it
   * as the client must see them (indexes, sequence numbers moved by what the rewrite put in).
   */
  readonly passing?: PassingEdits;
}

/**
 * The most bytes one event may take before the rewrite stands aside for the rest of the stream.
 * An unfinished event is held whole (the rewriter decides on whole events), so without a bound an
 * upstream that never ends its line makes the stream hold all it sends and the client get nothing.
 * The proxy's byte relay holds 1 MiB (WholeEvents in src/proxy/server.ts), but crossing this bound
 * ends the repair's reading, where crossing the relay's only ungroups bytes, so it sits well above any
 * real event: chat and Anthropic events are token deltas (hundreds of bytes), and the largest are a
 * Responses reply's closing events (response.completed repeats the whole answer, about 0.5 MB at
 * 128k output tokens, with the request's instructions and tools, tens of KB each). 4 MiB, plus the
 * chunk that crossed it, is then all a stream ever holds for one event.
 */
export const HELD_EVENT_LIMIT = 4 * 1024 * 1024;

/**
 * Untouched events are never re-encoded: consecutive ones go out as one slice of the network
 * chunk they arrived in (the chunk itself when all of it passed). A synthetic event is named after
 * its `type` (an `event:` line), as Anthropic and Responses name theirs; chat chunks have none.
 *
 * An event longer than HELD_EVENT_LIMIT (whole or still unfinished) ends the reading: what the
 * engine still holds goes out as whole events, as written (EventRewriter.stop: the reply has not
 * ended, so nothing held is decided), and `onError` is told why. From then on no text is read, but
 * the client's view stays valid: every later event that fits the bound still goes to the rewriter,
 * whose engines are done, for its bookkeeping (indexes, sequence numbers, the finish reason), and
 * one that does not goes out as its bytes come, the few values the wire renumbers set as they pass
 * (EventRewriter.passing, passing.ts). The rule is on the event's length, not on how the network
 * cut it, so the output is the same at every split.
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
  /** Bytes of the unfinished event the framer holds: what it carried, counted from what it reported. */
  let unfinished = 0;
  /**
   * Stood aside (an event past the limit): the rewriter reads no text any more. It still sees every
   * event that fits the limit, for the bookkeeping that keeps the client's view valid (indexes,
   * sequence numbers, the finish reason); one that does not streams on through `streaming`.
   */
  let passing = false;
  /** An event past the limit, going out as its bytes come, until its blank line. */
  let streaming: PassingEvent | undefined;
  /** No event was read yet: the next one starts the stream, where a byte order mark is no part of it. */
  let atStart = true;

  /** The rewriter's answer for one event; a rewriter that throws leaves the event as it came. */
  function decide(bytes: Uint8Array): Rewritten | null {
    const first = atStart;
    atStart = false;
    try {
      return rewriter.event(view.of(bytes, first));
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

  /**
   * The engine's held text as whole events, as written: it is text the upstream did send, so it is
   * never lost (before an upstream error, or before the rewrite stands aside); neither is the
   * reply's end, so nothing in it is decided (the text that would show a held call was only an
   * example may be what never arrived, or what passes unread).
   */
  function sendHeld(goesOn: boolean): void {
    let pieces: Json[] = [];
    try {
      pieces = rewriter.stop(goesOn);
    } catch (error) {
      onError(error);
    }
    for (const piece of pieces) emit(encoder.encode(serialize(JSON.stringify(piece), "\n", namedEventMeta(piece))));
  }

  /**
   * An event past the limit: `bytes`, all of it (`whole`) or all of it so far. The first one makes
   * the rewrite stand aside (the rewriter's held text goes out first, as written). It goes out as
   * it streams in, never held, the few values the wire renumbers set as they pass (passing.ts).
   */
  function passLong(bytes: Uint8Array, whole: boolean): void {
    atStart = false;
    if (!passing) {
      passing = true;
      onError(new RangeError(`an SSE event over ${HELD_EVENT_LIMIT} bytes: the rewrite stands aside, the rest of the stream passes unread`));
      sendHeld(true);
    }
    const event = new PassingEvent(guardedEdits(rewriter.passing), emit);
    const end = event.push(bytes);
    lastRaw = true;
    // The framer saw the whole event end: it ended (its blank line's LF, if one follows a CR, is the framer's lead).
    if (whole || end >= 0) passed(event);
    else streaming = event;
  }

  /** The wire's edits, a throw in them leaving the value as it came (and told to `onError`). */
  function guardedEdits(edits: PassingEdits | undefined): PassingEdits | undefined {
    if (edits === undefined) return undefined;
    return {
      keys: edits.keys,
      scalar(path, json, seen) {
        try {
          return edits.scalar(path, json, seen);
        } catch (error) {
          onError(error);
          return undefined;
        }
      },
      ...(edits.ended ? { ended: (top: ReadonlyMap<string, string>) => edits.ended!(top) } : {}),
    };
  }

  /** The event past the limit ended: what the wire sends after it. */
  function passed(event: PassingEvent): void {
    let pieces: Json[] = [];
    try {
      pieces = event.ended();
    } catch (error) {
      onError(error);
    }
    if (pieces.length === 0) return;
    lastRaw = false;
    for (const piece of pieces) emit(encoder.encode(serialize(JSON.stringify(piece), "\n", namedEventMeta(piece))));
  }

  return pullStage<Uint8Array, Uint8Array>(body, (out) => {
    emit = out;
    return {
      each(chunk) {
        if (streaming !== undefined) {
          const end = streaming.push(chunk);
          if (end < 0) return;
          const event = streaming;
          streaming = undefined;
          passed(event);
          // Its blank line's CR ended the chunk: an LF first in the next one is its, as the framer reads it.
          if (event.endedAtCR) framer.endedAtCR();
          if (end === chunk.length) return;
          chunk = chunk.subarray(end);
        }
        const { lead, head, ends } = framer.push(chunk);
        // The LF completing the CRLF of the event before: original bytes keep it, a rewritten
        // event already ended with its own blank line.
        if (lead > 0 && lastRaw) emit(chunk.subarray(0, lead));
        let k = 0;
        let at = lead;
        if (head !== undefined) {
          if (eventLength(head, 0, head.length) > HELD_EVENT_LIMIT) passLong(head, true);
          else {
            const rewritten = decide(head);
            if (rewritten === null) emit(head);
            lastRaw = rewritten === null || write(rewritten, head);
          }
          at = ends[k++]!;
        }
        // Events that pass go out together, as one slice of the chunk.
        let pending = at;
        for (; k < ends.length; k++) {
          const end = ends[k]!;
          if (eventLength(chunk, at, end) > HELD_EVENT_LIMIT) {
            if (pending < at) emit(chunk.subarray(pending, at));
            passLong(chunk.subarray(at, end), true);
            pending = at = end;
            continue;
          }
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
        // What the framer now carries: this chunk's bytes past its last event, or all of it on top
        // of what it carried before (the LF of a CRLF that ended the event before is not carried).
        unfinished = ends.length > 0 ? chunk.length - ends[ends.length - 1]! : unfinished + chunk.length - lead;
        // Its final length is more than this, at any later split: the same decision as a whole one.
        if (unfinished > HELD_EVENT_LIMIT) {
          unfinished = 0;
          passLong(framer.end()!, false);
        }
      },
      end() {
        // An event past the limit never ended: its bytes went out as they came, nothing can follow them.
        if (streaming !== undefined) return;
        // An event is dispatched only at its blank line: a client (the AI SDK's eventsource-parser,
        // a browser's EventSource) drops a last one the body ends without. What the client would
        // not read, the repair does not read either: the tail never reaches the rewriter (no call
        // comes from it, and held text is decided as at an end without it), and its bytes go out
        // as they came, last and still unterminated, so the client drops them as it would have.
        const tail = framer.end();
        let pieces: Json[] = [];
        try {
          pieces = rewriter.end();
        } catch (error) {
          onError(error);
        }
        for (const piece of pieces) emit(encoder.encode(serialize(JSON.stringify(piece), "\n", namedEventMeta(piece))));
        if (tail !== undefined) emit(tail);
      },
      fail() {
        // Stood aside: the held text went out then, and a half event may have gone on since, as
        // the relay's own bound lets one (src/proxy/server.ts).
        if (passing) return;
        // The unfinished tail is half an event: it never goes out. What the engine still holds
        // was text the upstream did send, so it goes out as whole events before the error, as
        // written: the reply was cut, it did not end.
        sendHeld(false);
      },
    };
  });
}

/**
 * The event being decided, decoded and read as SSE only when first asked. A client strips a byte
 * order mark only at the start of the stream (the SSE spec; TextDecoderStream, eventsource-parser):
 * one at the start of a later event is the first character of its first line's field name
 * (`\uFEFFdata`, a field the client ignores), so each event is decoded keeping it, and only the
 * stream's first event loses a leading one: the repair reads what the client reads.
 */
class EventView implements SseEvent {
  bytes: Uint8Array = new Uint8Array(0);
  #reader = new SseReader();
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #read = false;
  #first = false;

  /** `first`: the event starts the stream. */
  of(bytes: Uint8Array, first: boolean): this {
    this.bytes = bytes;
    this.#read = false;
    this.#first = first;
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
      const text = this.#decoder.decode(this.bytes);
      this.#reader.read(text, this.#first && text.charCodeAt(0) === BOM ? 1 : 0);
    }
    return this.#reader;
  }
}

const LF = 10;
const CR = 13;
const BOM = 0xfeff;

/**
 * An event's length as the limit counts it, the same at every split: an event whose blank line
 * is a CR LF may be reported at the CR (the LF then leads the next chunk), so that LF is not counted.
 */
function eventLength(bytes: Uint8Array, from: number, to: number): number {
  return to - from >= 2 && bytes[to - 1] === LF && bytes[to - 2] === CR ? to - from - 1 : to - from;
}

/** The `event:` line of a wire that names its events after their `type` (Anthropic, Responses). */
function namedEventMeta(piece: Json): readonly string[] {
  return typeof piece.type === "string" ? [`event: ${piece.type}`] : [];
}

/** An event's data as one JSON object with a string `type`; null for anything else (passed through). */
export function typedEvent(payload: string | undefined): (Json & { type: string }) | null {
  if (payload === undefined) return null;
  const event = jsonOrUndefined(payload);
  return isObject(event) && typeof event.type === "string" ? (event as Json & { type: string }) : null;
}
