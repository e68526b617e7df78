/**
 * The text fed to one engine, kept only from where the engine still holds it, so a call's own
 * markup can be read back by its span (the reasoning channel shows a call it does not run).
 * Deltas are kept as they came and dropped whole, so each character is copied at most once more.
 * Also answers, for any offset still kept, whether it sits at a line start (only spaces and tabs
 * since the last line end) and where the last character that is not whitespace ends.
 */
import { CR, LF, SP, TAB } from "../grammar/chars.ts";
export class FedText {
  #chunks: string[] = [];
  /** Offset of #chunks[#first]'s first character. */
  #start = 0;
  #first = 0;
  #end = 0;
  /** Offset just after the last non-whitespace character fed. */
  #lastInk = 0;
  /** Line-start state at #scanned; carried from the text before (another stretch) when given. */
  #scanned = 0;
  #clean: boolean;

  constructor(atLineStart = true) {
    this.#clean = atLineStart;
  }

  get end(): number {
    return this.#end;
  }

  /** Offset just after the last character that is not whitespace (0: none yet). */
  get lastInk(): number {
    return this.#lastInk;
  }

  push(delta: string): void {
    if (delta === "") return;
    this.#chunks.push(delta);
    for (let i = delta.length - 1; i >= 0; i--) {
      if (!isSpace(delta.charCodeAt(i))) {
        this.#lastInk = this.#end + i + 1;
        break;
      }
    }
    this.#end += delta.length;
  }

  /** Characters [from, to), all still kept; read from the newest end, so it costs what it returns and what came after. */
  slice(from: number, to: number): string {
    const parts: string[] = [];
    let at = this.#end;
    for (let i = this.#chunks.length - 1; i >= this.#first && at > from; i--) {
      const chunk = this.#chunks[i]!;
      const begin = at - chunk.length;
      if (begin < to) parts.push(chunk.slice(Math.max(0, from - begin), Math.min(chunk.length, to - begin)));
      at = begin;
    }
    return parts.reverse().join("");
  }

  /** Whether offset `at` (not before the last one asked or kept) starts a line, indentation aside. */
  atLineStart(at: number): boolean {
    this.#scan(at);
    return this.#clean;
  }

  /** The engine no longer holds anything before `from`: forget it (line state scanned first). */
  keepFrom(from: number): void {
    this.#scan(from);
    let at = this.#start;
    while (this.#first < this.#chunks.length && at + this.#chunks[this.#first]!.length <= from) {
      at += this.#chunks[this.#first]!.length;
      this.#first++;
    }
    this.#start = at;
    // Compact now and then, so the array does not grow with the reply.
    if (this.#first > 64 && this.#first * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#first);
      this.#first = 0;
    }
  }

  /** Line state at the end of everything fed (for the next stretch). */
  endsAtLineStart(): boolean {
    this.#scan(this.#end);
    return this.#clean;
  }

  #scan(to: number): void {
    if (to <= this.#scanned) return;
    let at = this.#start;
    for (let i = this.#first; i < this.#chunks.length && at < to; i++) {
      const chunk = this.#chunks[i]!;
      const next = at + chunk.length;
      if (next > this.#scanned) {
        for (let j = Math.max(0, this.#scanned - at), stop = Math.min(chunk.length, to - at); j < stop; j++) {
          const c = chunk.charCodeAt(j);
          if (c === LF || c === CR) this.#clean = true;
          else if (c !== SP && c !== TAB) this.#clean = false;
        }
      }
      at = next;
    }
    this.#scanned = to;
  }
}

function isSpace(c: number): boolean {
  return c === SP || c === TAB || c === LF || c === CR;
}

/** Whether `text` holds only spaces, tabs and line ends, from `from` to `to` (the whole of it by default). */
export function isBlank(text: string, from = 0, to = text.length): boolean {
  for (let i = from; i < to; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}
