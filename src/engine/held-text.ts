import { CR, LF, SP, TAB } from "../grammar/chars.ts";

/** Pieces appended between two joins. */
const JOIN_EVERY = 64;
/** Forgotten text is dropped for real once it outgrows what is kept by this much. */
const SLACK = 4096;

/**
 * The text an engine holds: the last characters fed, addressed by their offset in everything fed.
 * One store for the whole engine (its candidate, the text after a call, an undecided tag), and the
 * only copy: a failure hands back what was held from here (RepairEngine.heldText), so nobody
 * above keeps a second one.
 *
 * Each delta kept as it came would cost a string header per piece, and a delta that is a slice
 * (of an SSE event, of a network chunk) can keep its whole parent string alive: 14 to 38 bytes per
 * held character were measured that way. Joining every JOIN_EVERY pieces copies them into one
 * flat string instead, so a held character costs about one byte (two outside Latin-1), and each
 * character is copied once more at most: O(1) amortized per character.
 */
export class HeldText {
  private joined: string[] = [];
  private recent: string[] = [];
  /** Offset of the first character still stored (kept or forgotten but not yet dropped). */
  private stored = 0;
  /** Characters stored. */
  private size = 0;
  /** Offset of the first character kept: reading before it is an error. */
  private keptFrom = 0;

  /** Offset just past the last character fed. */
  get end(): number {
    return this.stored + this.size;
  }

  /** How many strings it keeps alive: bounded by length / JOIN_EVERY pieces' worth, not by deltas. */
  get strings(): number {
    return this.joined.length + this.recent.length;
  }

  append(text: string): void {
    if (text.length === 0) return;
    this.recent.push(text);
    this.size += text.length;
    if (this.recent.length === JOIN_EVERY) {
      this.joined.push(this.recent.join(""));
      this.recent = [];
    }
  }

  /** Text fed and released at once, never stored: only its length moves the offsets on. Nothing may be kept. */
  skip(length: number): void {
    this.stored += length;
    this.keptFrom = this.stored;
  }

  /** Keeps only the last `length` characters; cheap when nothing is kept, amortized O(1) otherwise. */
  keepLast(length: number): void {
    const end = this.end;
    if (length <= 0) {
      if (this.size !== 0) {
        // Emptied in place: most non-plain deltas are stored for one feed and let go at its end.
        if (this.joined.length !== 0) this.joined = [];
        this.recent.length = 0;
        this.size = 0;
      }
      this.stored = this.keptFrom = end;
      return;
    }
    this.keptFrom = Math.max(this.keptFrom, end - length);
    if (this.keptFrom - this.stored > length + SLACK) {
      const kept = this.slice(this.keptFrom, end);
      this.joined = [];
      this.recent = [kept];
      this.stored = this.keptFrom;
      this.size = kept.length;
    }
  }

  /** The kept text from offset `from` to offset `to`; cheap when that is near the end. */
  slice(from: number, to: number = this.end): string {
    if (from < this.keptFrom || to > this.end || from > to) {
      throw new RangeError(`held text: [${from}, ${to}) is outside the kept [${this.keptFrom}, ${this.end})`);
    }
    let out = "";
    let end = this.end;
    for (const pieces of [this.recent, this.joined]) {
      for (let k = pieces.length - 1; k >= 0 && end > from; k--) {
        const piece = pieces[k]!;
        const start = end - piece.length;
        if (start < to) out = (start >= from && end <= to ? piece : piece.slice(Math.max(from, start) - start, Math.min(to, end) - start)) + out;
        end = start;
      }
    }
    return out;
  }

  /**
   * Only spaces or tabs stand before offset `at` on its line, back to offset `from` (where the
   * span starts: reaching it is no line start). Read back first through `near`, text at hand whose
   * first character is at offset `nearBase` (no copy), then through the held text 64 characters at
   * a time, so only what is read back is copied (the candidate's SpanReader.startsLine).
   */
  startsLine(at: number, from: number, near: string, nearBase: number): boolean {
    for (let k = at - nearBase; k > 0; k--) {
      const c = near.charCodeAt(k - 1);
      if (c === LF || c === CR) return true;
      if (c !== SP && c !== TAB) return false;
    }
    for (let to = Math.min(at, nearBase); to > from; ) {
      const back = Math.max(from, to - 64);
      const piece = this.slice(back, to);
      for (let j = piece.length - 1; j >= 0; j--) {
        const c = piece.charCodeAt(j);
        if (c === LF || c === CR) return true;
        if (c !== SP && c !== TAB) return false;
      }
      to = back;
    }
    return false;
  }
}
