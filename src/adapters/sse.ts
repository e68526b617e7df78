// Server-sent events, byte side and text side. Lines end at LF, so CRLF works and a lone CR stays
// part of its line; a blank line ends an event. Nothing here knows about OpenAI chunks.

export interface Framed {
  /** The whole first event when it began in an earlier chunk (a copy); it ends at ends[0]. */
  head: Uint8Array | undefined;
  /** Offsets in the chunk just past each event's blank line. */
  ends: number[];
}

/**
 * Finds event boundaries in a byte stream. Events inside one chunk are reported as offsets, so the
 * caller can pass untouched ones on as a slice of that chunk; only an event that spans chunks is copied.
 */
export class SseFramer {
  /** Bytes of the unfinished event, from earlier chunks. */
  #carry: Uint8Array[] = [];
  /** Length and first byte of the unfinished line, which may have begun in an earlier chunk. */
  #lineLength = 0;
  #lineFirst = 0;

  push(chunk: Uint8Array): Framed {
    const ends: number[] = [];
    let lineStart = 0;
    let carried = this.#lineLength;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, lineStart)) {
      const length = carried + nl + 1 - lineStart;
      const first = carried > 0 ? this.#lineFirst : chunk[lineStart];
      if (length === 1 || (length === 2 && first === 13)) ends.push(nl + 1);
      lineStart = nl + 1;
      carried = 0;
    }
    if (lineStart < chunk.length) {
      if (carried === 0) this.#lineFirst = chunk[lineStart]!;
      carried += chunk.length - lineStart;
    }
    this.#lineLength = carried;

    if (ends.length === 0) {
      this.#carry.push(chunk);
      return { head: undefined, ends };
    }
    const head = this.#carry.length > 0 ? concat([...this.#carry, chunk.subarray(0, ends[0])]) : undefined;
    const last = ends[ends.length - 1]!;
    this.#carry = last < chunk.length ? [chunk.subarray(last)] : [];
    return { head, ends };
  }

  /** Whatever is left when the body ends without a final blank line. */
  end(): Uint8Array | undefined {
    const rest = this.#carry.length > 0 ? concat(this.#carry) : undefined;
    this.#carry = [];
    this.#lineLength = 0;
    return rest !== undefined && rest.length > 0 ? rest : undefined;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
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

  /** Reads the event starting at `from`: up to and including its blank line, or to the end of `text`. */
  read(text: string, from: number): void {
    const nl = text.indexOf("\n", from);
    if (nl !== -1 && text.startsWith("data:", from)) {
      const cr = text.charCodeAt(nl - 1) === 13 ? 1 : 0;
      const blank = text.charCodeAt(nl + 1) === 10 ? 1 : text.charCodeAt(nl + 1) === 13 && text.charCodeAt(nl + 2) === 10 ? 2 : 0;
      if (blank > 0) {
        this.data = text.slice(from + (text.charCodeAt(from + 5) === 32 ? 6 : 5), nl - cr);
        if (this.meta.length > 0) this.meta = [];
        this.eol = cr ? "\r\n" : "\n";
        this.end = nl + 1 + blank;
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
      const nl = text.indexOf("\n", at);
      const stop = nl === -1 ? text.length : nl;
      // Only a terminated line loses its CR, as only its terminator is "\r\n".
      const line = text.slice(at, nl !== -1 && text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop);
      if (first) this.eol = nl !== -1 && text.charCodeAt(nl - 1) === 13 ? "\r\n" : "\n";
      first = false;
      at = nl === -1 ? text.length : nl + 1;
      if (line === "") break;
      if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      else meta.push(line);
    }
    this.data = data.length > 0 ? data.join("\n") : undefined;
    this.meta = meta;
    this.end = at;
  }
}

export function serialize(payload: string, eol: string, meta: readonly string[] = []): string {
  let out = "";
  for (const line of meta) out += line + eol;
  return `${out}data: ${payload}${eol}${eol}`;
}
