/**
 * Which quote characters of given content open a string literal inside tool-call markup, as the
 * markup's own reader would see them (golden E42.1). A quoted call's other values may hold
 * markup-looking text (`{"id": "[/TOOL_CALL]", …, "type": "[TOOL_CALL]"}`): to the search's
 * nearest-markup test such a decoy is a closer before the value and an opener after it, so the
 * quote read as prose. The reader of the quoted call never sees those decoys: they lie inside
 * strings. This lexer reads strings the way JSON and Python literals (and quoted attributes) do,
 * starting afresh at every opener, so no text inside a value can move where a string starts or
 * ends for the markup that encloses it.
 *
 * A lexer started at each opener would cost the distance to the value per opener. But lexers are
 * deterministic: two that are in the same state at one character stay together from there on. So
 * at most one lexer per state is alive (outside a string, inside a double- or single-quoted one,
 * just after a backslash in either), five in all, whatever the number of openers; each carries the
 * nearest opener it has seen from outside a string since its last closer seen from outside a
 * string (when lexers merge, the nearest of theirs). One pass, constant work per character.
 *
 * What it gives the search: for each quote character that opens a string for the lexer outside a
 * string there, the opener that lexer carries. A value that fills such a string (the same quote
 * right after it, none unescaped inside it) is inside the call that opener began, whatever markup
 * lies between them inside other strings.
 *
 * Strings end at a line break (JSON's and Python's one-line strings cannot hold one): a stray quote
 * in prose is forgotten at the end of its line.
 */
import { BACKSLASH, DQ, SQ } from "../grammar/chars.ts";

/** A lexer in no such state. */
const DEAD = -2;
/** A lexer in this state whose last markup seen from outside a string was a closer (or none). */
const NO_OPENER = -1;

export interface QuotedStrings {
  /** Positions of quote characters that open a string after an opener, ascending. */
  quoted: number[];
  /** Per entry of `quoted`: the position of that opener. */
  quotedOpener: number[];
}

/**
 * Fed every character of one text in order (markup first, at the character it starts at). Each of
 * the five fields is the state of the one lexer in that state: DEAD, NO_OPENER, or the position of
 * the nearest opener it carries (in the caller's coordinates: the folded haystack).
 */
export class StringLexer {
  private out = DEAD;
  private dq = DEAD;
  private dqEscape = DEAD;
  private sq = DEAD;
  private sqEscape = DEAD;
  /** Whether a lexer is just after a backslash: then every character counts, not only quotes and backslashes. */
  escaping = false;

  constructor(private readonly into: QuotedStrings) {}

  /** Markup starts here: an opener starts a lexer outside a string (merging with the one there); a closer seen from outside a string ends what it carried. */
  markup(opens: boolean, at: number): void {
    if (opens) this.out = at;
    else if (this.out !== DEAD) this.out = NO_OPENER;
  }

  /**
   * One character; `at` is its position in the caller's coordinates, or -1 when it has none (a
   * removed line prefix). Only a quote or a backslash changes anything, or any character while
   * `escaping`: the caller may skip the rest.
   */
  step(c: number, at: number): void {
    const { out, dq, dqEscape, sq, sqEscape } = this;
    if (c === DQ) {
      if (at >= 0 && out >= 0) this.record(at, out);
      this.out = dq;
      this.dq = Math.max(out, dqEscape);
      this.dqEscape = DEAD;
      this.sq = Math.max(sq, sqEscape);
      this.sqEscape = DEAD;
    } else if (c === SQ) {
      if (at >= 0 && out >= 0) this.record(at, out);
      this.out = sq;
      this.sq = Math.max(out, sqEscape);
      this.sqEscape = DEAD;
      this.dq = Math.max(dq, dqEscape);
      this.dqEscape = DEAD;
    } else if (c === BACKSLASH) {
      this.dq = dqEscape;
      this.dqEscape = dq;
      this.sq = sqEscape;
      this.sqEscape = sq;
      this.escaping = dq !== DEAD || sq !== DEAD;
      return;
    } else if (dqEscape !== DEAD || sqEscape !== DEAD) {
      this.dq = Math.max(dq, dqEscape);
      this.dqEscape = DEAD;
      this.sq = Math.max(sq, sqEscape);
      this.sqEscape = DEAD;
    }
    this.escaping = false;
  }

  /** A line break: every string ends unfinished, and the lexers inside one with it. */
  lineBreak(): void {
    this.dq = this.dqEscape = this.sq = this.sqEscape = DEAD;
    this.escaping = false;
  }

  private record(at: number, opener: number): void {
    this.into.quoted.push(at);
    this.into.quotedOpener.push(opener);
  }
}

/** Binary search: the index of `at` in the ascending `positions`, or -1. */
export function indexOfPosition(positions: readonly number[], at: number): number {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (positions[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo < positions.length && positions[lo] === at ? lo : -1;
}
