/** Pieces appended between two joins. */
const JOIN_EVERY = 64;

/**
 * Text held across many deltas, kept as a few flat strings. Each delta kept as it came would cost
 * a string header per piece, and a delta that is a slice (of an SSE event, of a network chunk)
 * can keep its whole parent string alive: 14 to 38 bytes per held character were measured that
 * way. Joining every JOIN_EVERY pieces copies them into one flat string instead, so a held
 * character costs about one byte (two outside Latin-1), and each character is copied once more
 * at most: O(1) amortized per character.
 */
export class HeldText {
  private readonly joined: string[] = [];
  private recent: string[] = [];
  length = 0;

  append(text: string): void {
    if (text.length === 0) return;
    this.recent.push(text);
    this.length += text.length;
    if (this.recent.length === JOIN_EVERY) {
      this.joined.push(this.recent.join(""));
      this.recent = [];
    }
  }

  /** How many strings it keeps alive: bounded by length / JOIN_EVERY pieces' worth, not by deltas. */
  get strings(): number {
    return this.joined.length + this.recent.length;
  }

  text(): string {
    return this.joined.join("") + this.recent.join("");
  }

  /** The text from `offset` (counted from the first character held) to the end; cheap when short. */
  from(offset: number): string {
    let out = "";
    let end = this.length;
    for (const pieces of [this.recent, this.joined]) {
      for (let k = pieces.length - 1; k >= 0 && end > offset; k--) {
        const piece = pieces[k]!;
        const start = end - piece.length;
        out = (start >= offset ? piece : piece.slice(offset - start)) + out;
        end = start;
      }
    }
    return out;
  }
}
