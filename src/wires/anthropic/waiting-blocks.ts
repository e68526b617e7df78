// The events of blocks of another kind (thinking, a server tool's) that come after a text block
// which ended while the engine still held some of its text (stream.ts). What was held is decided
// only when the reply goes on in text or a native call, or ends with its stop reason known: a
// reply cut there (refusal) decides nothing held at its end, as the JSON path reads it. Until
// then those events wait here, unread, so that the held text still goes out in its own block
// before them and a call it becomes goes out before them too, as in the JSON answer.
import { HELD_EVENT_LIMIT, RAW, type Rewritten } from "../../sse/rewrite.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { CUT_STOP_REASONS, NATIVE_BLOCKS } from "./blocks.ts";

/** How the stream decides the text held before blocks that waited, and reads an event. */
export interface HeldText {
  /** Cut, or going on unread (`goesOn`): what is held goes out as written, nothing decided; its block closes. */
  cut(goesOn: boolean): Json[];
  /** The reply ended: decided as its end; its block closes. */
  flush(): Json[];
  /** A span's end (`native`: at a native call's start): decided there; its block closes. */
  endSpan(native: boolean): Json[];
  /** An event read as if it came now. */
  decide(event: Json): Rewritten | null;
}

export class WaitingBlocks {
  #events: Json[] | undefined;
  #bytes = 0;

  /** Events are waiting (the held text is not decided yet). */
  get active(): boolean {
    return this.#events !== undefined;
  }

  /** Waiting begins with this event. */
  start(event: Json, bytes: number): void {
    this.#events = [event];
    this.#bytes = bytes;
  }

  /**
   * One more event waits; false when it would pass HELD_EVENT_LIMIT (a stream never holds more
   * than that bound): the held text then goes out as written, undecided, the repair stands aside
   * for the rest of the reply (stream.ts), and the event is read after what waited.
   */
  add(event: Json, bytes: number): boolean {
    if (this.#bytes + bytes > HELD_EVENT_LIMIT) return false;
    this.#events!.push(event);
    this.#bytes += bytes;
    return true;
  }

  /** What waited, in order; waiting ends. */
  take(): Json[] {
    const events = this.#events ?? [];
    this.#events = undefined;
    this.#bytes = 0;
    return events;
  }
}

/** The start of a block that neither continues the text (a text block) nor is a call the client runs. */
export function startsOtherBlock(event: Json): boolean {
  if (event.type !== "content_block_start" || !isObject(event.content_block)) return false;
  const type = event.content_block.type as string;
  return type !== "text" && !NATIVE_BLOCKS.has(type);
}

/** An event that decides the held text while blocks wait: a text block's or a native call's start, or the message's end. */
export function decidesHeld(event: Json): boolean {
  if (event.type === "message_delta" || event.type === "message_stop") return true;
  return event.type === "content_block_start" && !startsOtherBlock(event);
}

/**
 * Blocks waited, and `event` decides the text held before them: the message's end with its stop
 * reason (cut: as written, no call), or a span's end (a text block or a native call starts). It
 * goes out in its block, then what waited, read now, in order. When what waited outgrew its
 * bound (`event` decides nothing), the held text goes out as written and the repair stands aside
 * for the rest of the reply, as for an event past the bound: a wrong execution outranks a missed call.
 */
export function settled(waited: Json[], event: Json, held: HeldText): Json[] {
  const delta = event.delta;
  let pieces: Json[];
  if (!decidesHeld(event)) pieces = held.cut(true);
  else if (event.type === "message_delta" && isObject(delta) && CUT_STOP_REASONS.has(delta.stop_reason as string)) pieces = held.cut(false);
  else if (event.type === "message_delta" || event.type === "message_stop") pieces = held.flush();
  else pieces = held.endSpan(isObject(event.content_block) && NATIVE_BLOCKS.has(event.content_block.type as string));
  return [...pieces, ...replayed(waited, held)];
}

/** Events that waited, read as if they came now: what goes out for each, as JSON (their own bytes are not kept). */
export function replayed(events: Json[], held: HeldText): Json[] {
  return events.flatMap((event) => {
    const decided = held.decide(event);
    return decided === null ? [event] : decided.pieces.map((piece) => (piece === RAW ? event : (piece as Json)));
  });
}

/** Read in an event that streams past after the stand-aside (stream.ts): its block index, and its type. */
export const PASSING_KEYS: ReadonlySet<string> = new Set(["index", "type"]);

/** `lead` (held text going out before the event), then what the event decided (its own bytes when it decided nothing). */
export function withLead(lead: Json[], decided: Rewritten | null): Rewritten {
  return { pieces: [...lead, ...(decided?.pieces ?? [RAW])], ...(decided?.original ? { original: decided.original } : {}) };
}
