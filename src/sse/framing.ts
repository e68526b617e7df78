// Server-sent events, byte side and text side. A line ends at CR, LF or CRLF (the SSE spec's three
// terminators); a blank line ends an event. Nothing here knows about OpenAI chunks.

interface Framed {
  /**
   * 1 when the chunk starts with the LF of a CRLF whose CR ended the previous chunk and an event:
   * that byte belongs to the event already reported, not to the next one.
   */
  lead: number;
  /** The whole first event when it began in an earlier chunk (a copy); it ends at ends[0]. */
  head: Uint8Array | undefined;
  /** Offsets in the chunk just past each event's blank line. */
  ends: number[];
}

const CR = 13;
const LF = 10;

/**
 * Finds event boundaries in a byte stream. Events inside one chunk are reported as offsets, so the
 * caller can pass untouched ones on as a slice of that chunk; only an event that spans chunks is copied.
 * An event whose blank line is a CR at the very end of a chunk is reported at once: waiting for
 * a possible LF would hold a CR-only stream back until the next chunk.
 */
export class SseFramer {
  /** Bytes of the unfinished event, from earlier chunks. */
  #carry: Uint8Array[] = [];
  /** Bytes of the unfinished line seen so far, which may have begun in an earlier chunk. */
  #lineLength = 0;
  /** The previous chunk ended in a CR: an LF first in this chunk completes that terminator. */
  #afterCR = false;
  /** ...and that CR also ended an event. */
  #endedAtCR = false;

  push(chunk: Uint8Array): Framed {
    if (chunk.length === 0) return { lead: 0, head: undefined, ends: [] };
    const ends: number[] = [];
    let at = 0;
    let lead = 0;
    if (this.#afterCR && chunk[0] === LF) {
      at = 1;
      if (this.#endedAtCR) lead = 1;
    }
    this.#afterCR = false;
    this.#endedAtCR = false;
    let lineLength = this.#lineLength;
    // Next CR and LF at or after `at`, each searched again only once passed, so a stream using one
    // terminator never rescans the chunk for the other.
    let cr = chunk.indexOf(CR, at);
    let lf = chunk.indexOf(LF, at);
    while (cr !== -1 || lf !== -1) {
      const stop = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      lineLength += stop - at;
      let next = stop + 1;
      if (stop === cr) {
        if (next < chunk.length) {
          if (chunk[next] === LF) next++;
        } else this.#afterCR = true;
      }
      if (lineLength === 0) {
        ends.push(next);
        if (this.#afterCR) this.#endedAtCR = true;
      }
      lineLength = 0;
      at = next;
      if (cr !== -1 && cr < at) cr = chunk.indexOf(CR, at);
      if (lf !== -1 && lf < at) lf = chunk.indexOf(LF, at);
    }
    this.#lineLength = lineLength + (chunk.length - at);

    if (ends.length === 0) {
      if (lead < chunk.length) this.#carry.push(lead === 0 ? chunk : chunk.subarray(lead));
      return { lead, head: undefined, ends };
    }
    const head = this.#carry.length > 0 ? concatBytes([...this.#carry, chunk.subarray(0, ends[0])]) : undefined;
    const last = ends[ends.length - 1]!;
    this.#carry = last < chunk.length ? [chunk.subarray(last)] : [];
    return { lead, head, ends };
  }

  /**
   * Framing goes on after an event read elsewhere (end() was called for it) whose blank line was a
   * CR ending the last chunk: an LF first in the next chunk completes it, as a `lead`.
   */
  endedAtCR(): void {
    this.#afterCR = true;
    this.#endedAtCR = true;
  }

  /** Whatever is left when the body ends without a final blank line. */
  end(): Uint8Array | undefined {
    const rest = this.#carry.length > 0 ? concatBytes(this.#carry) : undefined;
    this.#carry = [];
    this.#lineLength = 0;
    this.#afterCR = false;
    this.#endedAtCR = false;
    return rest !== undefined && rest.length > 0 ? rest : undefined;
  }
}

/** The parts as one byte array; a single part backed by a plain ArrayBuffer is returned as it is. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  if (parts.length === 1 && parts[0]!.buffer instanceof ArrayBuffer) return parts[0] as Uint8Array<ArrayBuffer>;
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Reads decoded events one after another out of a string, reusing itself for every event. The
 * usual event, a single `data:` line, takes the short path; anything else is read line by line.
 */
export class SseReader {
  /** The `data:` lines joined with "\n"; undefined when the event has none. */
  data: string | undefined;
  /** Every other non-empty line (id:, event:, comments), without its terminator. */
  meta: string[] = [];
  /** The first line's terminator, used for anything written in this event's place. */
  eol = "\n";
  /** Where the next event starts. */
  end = 0;

  // Next CR and LF in #text at or after #scannedFrom, so reading event after event stays linear
  // even when one of the two never occurs. -2: not searched yet.
  #text = "";
  #scannedFrom = 0;
  #cr = -2;
  #lf = -2;

  /** Reads the event starting at `from`: up to and including its blank line, or to the end of `text`. */
  read(text: string, from: number): void {
    const stop = this.#lineEnd(text, from);
    if (stop !== -1 && text.startsWith("data:", from)) {
      const next = stop + terminatorLength(text, stop);
      const after = text.charCodeAt(next);
      if (after === 10 || after === 13) {
        this.data = text.slice(from + dataStart(text, from), stop);
        if (this.meta.length > 0) this.meta = [];
        this.eol = text.slice(stop, next);
        this.end = next + terminatorLength(text, next);
        return;
      }
    }
    this.#readLines(text, from);
  }

  #readLines(text: string, from: number): void {
    const data: string[] = [];
    const meta: string[] = [];
    let at = from;
    let first = true;
    while (at < text.length) {
      const found = this.#lineEnd(text, at);
      const stop = found === -1 ? text.length : found;
      const next = found === -1 ? stop : stop + terminatorLength(text, stop);
      const line = text.slice(at, stop);
      if (first) this.eol = found === -1 ? "\n" : text.slice(stop, next);
      first = false;
      at = next;
      if (line === "") break;
      if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      else meta.push(line);
    }
    this.data = data.length > 0 ? data.join("\n") : undefined;
    this.meta = meta;
    this.end = at;
  }

  /** Index of the CR or LF that ends the line starting at `at`, or -1. */
  #lineEnd(text: string, at: number): number {
    if (text !== this.#text || at < this.#scannedFrom) {
      this.#text = text;
      this.#cr = -2;
      this.#lf = -2;
    }
    this.#scannedFrom = at;
    if (this.#cr !== -1 && this.#cr < at) this.#cr = text.indexOf("\r", at);
    if (this.#lf !== -1 && this.#lf < at) this.#lf = text.indexOf("\n", at);
    if (this.#cr === -1) return this.#lf;
    if (this.#lf === -1) return this.#cr;
    return Math.min(this.#cr, this.#lf);
  }
}

/**
 * The event's type as its `event:` lines set it (SseReader.meta: the last one wins, one space after
 * the colon is no part of it); "" when none does.
 */
export function eventName(meta: readonly string[]): string {
  let name = "";
  for (const line of meta) {
    if (line === "event") name = "";
    else if (line.startsWith("event:")) name = line.slice(line.charCodeAt(6) === 32 ? 7 : 6);
  }
  return name;
}

/** CRLF is one terminator; a CR last in the text is one too (its LF, if any, is the framer's `lead`). */
function terminatorLength(text: string, at: number): number {
  return text.charCodeAt(at) === 13 && text.charCodeAt(at + 1) === 10 ? 2 : 1;
}

export function serialize(payload: string, eol: string, meta: readonly string[] = []): string {
  let out = "";
  for (const line of meta) out += line + eol;
  return `${out}data: ${payload}${eol}${eol}`;
}

/** Where the data of the `data:` line at `from` starts, counted from `from`: after the one space the field may have. */
function dataStart(text: string, from = 0): number {
  return text.charCodeAt(from + 5) === 32 ? 6 : 5;
}
