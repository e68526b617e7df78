// One SSE event too long to hold (past HELD_EVENT_LIMIT, after the rewrite stood aside), passed on
// as its bytes stream in: never held whole, never decoded whole. It is read only as far as its
// line structure and its JSON's nesting go, so that a few short values in it (block and item
// indexes, sequence numbers, a finish_reason) can still be written as the client must see them;
// its text is never read.
import type { Json } from "./json.ts";

/** What a wire renumbers in an event that streams past (EventRewriter.passing). */
export interface PassingEdits {
  /**
   * Keys whose values are read: a scalar (number, string, true, false, null) under one of these
   * keys, at most MAX_SCALAR bytes of JSON, is held until it ends and offered to `scalar`.
   */
  readonly keys: ReadonlySet<string>;
  /**
   * The JSON text to write in place of `json`, the value at `path` (object keys and array
   * positions from the top); undefined keeps it. `seen` holds, for each object on the path (same
   * positions), the values read before it under the watched keys, as they came.
   */
  scalar(path: readonly (string | number)[], json: string, seen: readonly (ReadonlyMap<string, string> | undefined)[]): string | undefined;
  /** The event ended: events to send right after it; `top` is what its top-level object had under the watched keys, as it came. */
  ended?(top: ReadonlyMap<string, string>): Json[];
}

/** Longer values are never held: they pass as they came. */
const MAX_SCALAR = 64;

const CR = 13;
const LF = 10;
const TAB = 9;
const SPACE = 32;
const QUOTE = 34;
const COMMA = 44;
const COLON = 58;
const OPEN_ARRAY = 91;
const BACKSLASH = 92;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const DATA = [100, 97, 116, 97];
/** Bytes that end a run of string content: a quote, a backslash, a line end. */
const STRING_STOPS = new Uint8Array(256);
for (const b of [QUOTE, BACKSLASH, CR, LF]) STRING_STOPS[b] = 1;

const enum Line {
  /** At a line's first byte: a terminator here is the blank line that ends the event. */
  Start,
  /** Reading the field name. */
  Field,
  /** Right after `data:`: one space may follow. */
  Space,
  /** In a data line's value: the JSON. */
  Data,
  /** Any other line (event:, id:, a comment): passed over. */
  Other,
}

const enum Token {
  None,
  Key,
  String,
  /** A number or a literal (true, false, null). */
  Scalar,
}

interface Frame {
  array: boolean;
  /** An object's current member key (undefined between members, or too long to read). */
  key: string | undefined;
  /** An array's current element position. */
  index: number;
  /** Values read under watched keys. */
  seen: Map<string, string> | undefined;
}

// A key or value read as JSON.parse reads it: a leading U+FEFF is a character of it, not a mark to strip.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Reads one event's bytes chunk by chunk (push), writing them on through `emit` as they come but
 * for a watched value, which is held until it ends (at most MAX_SCALAR bytes, so the event is
 * never held). Its data lines are one JSON text, joined by line ends as SSE joins them. The same
 * bytes give the same output at any split.
 */
export class PassingEvent {
  /** The event's blank line was a CR that ended a chunk: the next chunk's first LF, if any, is its. */
  endedAtCR = false;
  #edits: PassingEdits | undefined;
  #emit: (bytes: Uint8Array) => void;
  #line = Line.Start;
  /** Bytes of the field name matched against `data` (-1: another field). */
  #field = 0;
  #afterCR = false;
  #frames: Frame[] = [];
  #top: Map<string, string> | undefined;
  #expectKey = false;
  #token = Token.None;
  #escape = false;
  #key: number[] = [];
  /** The watched value being read, held back; undefined when nothing is held. */
  #held: number[] | undefined;
  /** Where the bytes not yet written start in the chunk being read. */
  #from = 0;

  constructor(edits: PassingEdits | undefined, emit: (bytes: Uint8Array) => void) {
    this.#edits = edits;
    this.#emit = emit;
  }

  /** Reads on: the offset just past the event's blank line when it ends in `chunk`, else -1 (all of it was the event's). */
  push(chunk: Uint8Array): number {
    this.#from = 0;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      // Inside a string value not held (the long text itself): on to the next byte that matters.
      if (this.#token === Token.String && this.#held === undefined && !this.#escape && !this.#afterCR) {
        while (i < n && !STRING_STOPS[chunk[i]!]) i++;
        if (i === n) break;
      }
      const b = chunk[i]!;
      if (this.#afterCR) {
        this.#afterCR = false;
        // The LF of a CR LF: the line ended at its CR.
        if (b === LF) continue;
      }
      if (b === CR || b === LF) {
        if (this.#line === Line.Start) {
          let end = i + 1;
          if (b === CR) {
            if (end < n) {
              if (chunk[end] === LF) end++;
            } else this.endedAtCR = true;
          }
          this.#release();
          if (this.#from < end) this.#emit(chunk.subarray(this.#from, end));
          return end;
        }
        // A data line's end is whitespace between JSON tokens (a value cut by it is not one).
        if (this.#line === Line.Data || this.#line === Line.Space || (this.#line === Line.Field && this.#field === 4)) this.#lineEnd();
        this.#line = Line.Start;
        this.#afterCR = b === CR;
        continue;
      }
      switch (this.#line) {
        case Line.Start:
          this.#line = Line.Field;
          this.#field = b === DATA[0] ? 1 : -1;
          break;
        case Line.Field:
          if (b === COLON) this.#line = this.#field === 4 ? Line.Space : Line.Other;
          else this.#field = this.#field >= 0 && this.#field < 4 && b === DATA[this.#field] ? this.#field + 1 : -1;
          break;
        case Line.Space:
          this.#line = Line.Data;
          if (b !== SPACE) this.#json(chunk, b, i);
          break;
        case Line.Data:
          this.#json(chunk, b, i);
          break;
        case Line.Other:
          break;
      }
    }
    if (this.#from < n) this.#emit(this.#from === 0 ? chunk : chunk.subarray(this.#from));
    return -1;
  }

  /** Events to send after the event, once it ended. */
  ended(): Json[] {
    return this.#edits?.ended?.(this.#top ?? new Map()) ?? [];
  }

  #json(chunk: Uint8Array, b: number, i: number): void {
    switch (this.#token) {
      case Token.Key:
      case Token.String:
        this.#inString(b, i);
        return;
      case Token.Scalar:
        if (isScalarByte(b)) return this.#keep(b, i);
        this.#endValue();
        break;
    }
    const frames = this.#frames;
    const top = frames[frames.length - 1];
    switch (b) {
      case SPACE:
      case TAB:
        return;
      case OPEN_OBJECT: {
        const frame: Frame = { array: false, key: undefined, index: 0, seen: undefined };
        if (frames.length === 0) this.#top = frame.seen = new Map();
        frames.push(frame);
        this.#expectKey = true;
        return;
      }
      case OPEN_ARRAY:
        frames.push({ array: true, key: undefined, index: 0, seen: undefined });
        this.#expectKey = false;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        frames.pop();
        this.#expectKey = false;
        return;
      case COMMA:
        if (top === undefined) return;
        if (top.array) top.index++;
        else {
          top.key = undefined;
          this.#expectKey = true;
        }
        return;
      case COLON:
        this.#expectKey = false;
        return;
      case QUOTE:
        this.#escape = false;
        if (this.#expectKey && top !== undefined && !top.array) {
          this.#token = Token.Key;
          this.#key.length = 0;
          return;
        }
        this.#token = Token.String;
        this.#startValue(chunk, top, i);
        this.#keep(b, i);
        return;
      default:
        this.#token = Token.Scalar;
        this.#startValue(chunk, top, i);
        this.#keep(b, i);
    }
  }

  #inString(b: number, i: number): void {
    const key = this.#token === Token.Key;
    if (key) {
      if (this.#key.length <= MAX_SCALAR) this.#key.push(b);
    } else this.#keep(b, i);
    if (this.#escape) {
      this.#escape = false;
      return;
    }
    if (b === BACKSLASH) {
      this.#escape = true;
      return;
    }
    if (b !== QUOTE) return;
    if (!key) return this.#endValue();
    this.#token = Token.None;
    this.#expectKey = false;
    const frame = this.#frames[this.#frames.length - 1]!;
    // The closing quote was kept too: a key longer than the bound is never watched.
    const bytes = this.#key;
    frame.key = bytes.length <= MAX_SCALAR ? decoder.decode(Uint8Array.from(bytes.slice(0, -1))) : undefined;
  }

  /** A value begins at `i`: held when it is under a watched key (the bytes before it go out first). */
  #startValue(chunk: Uint8Array, frame: Frame | undefined, i: number): void {
    const edits = this.#edits;
    if (edits === undefined || frame === undefined || frame.array || frame.key === undefined || !edits.keys.has(frame.key)) return;
    if (this.#from < i) this.#emit(chunk.subarray(this.#from, i));
    this.#held = [];
    this.#from = i;
  }

  /** One byte of a value; a held one is kept back (written at its end), up to the bound. */
  #keep(b: number, i: number): void {
    const held = this.#held;
    if (held === undefined) return;
    held.push(b);
    this.#from = i + 1;
    if (held.length > MAX_SCALAR) this.#release();
  }

  /** The value ended (its bytes are all kept): a held one is offered to the wire, and written as it says. */
  #endValue(): void {
    this.#token = Token.None;
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    const json = decoder.decode(Uint8Array.from(held));
    const frames = this.#frames;
    const frame = frames[frames.length - 1]!;
    const path = frames.map((f) => (f.array ? f.index : f.key!));
    const written = this.#edits!.scalar(
      path,
      json,
      frames.map((f) => f.seen),
    );
    frame.seen ??= new Map();
    frame.seen.set(frame.key!, json);
    this.#emit(written === undefined || written === json ? Uint8Array.from(held) : encoder.encode(written));
  }

  /** A data line ended: a number or literal ends with it; a string cut by it was no value (passed as it came). */
  #lineEnd(): void {
    if (this.#token === Token.Scalar) this.#endValue();
    else this.#release();
  }

  /** What is held goes out as it came, and nothing more is held of that value. */
  #release(): void {
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    this.#emit(Uint8Array.from(held));
  }
}

/** A byte that continues a number or a literal. */
function isScalarByte(b: number): boolean {
  return (b >= 48 && b <= 57) || (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || b === 43 || b === 45 || b === 46;
}
