import type { BrokenSpan, StrippedSpan } from "../parse/types.ts";
import { appendText } from "./events.ts";
import type { HeldText } from "./held-text.ts";
import type { EngineEvent } from "./types.ts";

/**
 * A run of what was fed after the call. `noise`: a marker that was stripped (reported as noise
 * when the tail is decided). `markup`: markup the engine did not run (a call past maxCalls, broken
 * markup), kept apart with its report so a withdrawn call (withdrawCalls) can strip it as a native
 * call's duplicate. `gone`: markup stripped where it stood (an echoed call, a native call's
 * duplicate), never released.
 */
interface Piece {
  start: number;
  length: number;
  noise: boolean;
  markup?: BrokenSpan;
  gone?: true;
}

/**
 * Text held after a recovered call (S03): released if another call follows, stripped at the
 * reply's end, where it is the model narrating a result it never saw. The pieces stay one run of
 * what was fed, the last `length` characters (gone pieces keep their place), which is what the
 * engine's store keeps for them (RepairEngine.held); the text itself is read back from the store.
 */
export class Tail {
  private readonly pieces: Piece[] = [];
  /** Characters held, gone pieces included. */
  length = 0;
  /**
   * Characters the parts before this engine held after the reply's last call
   * (EngineOptions.continues): this tail continues theirs, so both count against one limit.
   */
  readonly before: number;

  constructor(before = 0) {
    this.before = before;
  }

  /** Where its first piece starts in what was fed, or `at` when it holds nothing. */
  startOr(at: number): number {
    return this.pieces.length > 0 ? Math.min(at, this.pieces[0]!.start) : at;
  }

  /** Characters it may still hold before the limit. */
  room(limit: number): number {
    return Math.max(0, limit - this.before - this.length);
  }

  /** The `length` characters fed at `start` join the tail (a run of plain text grows its last piece). */
  hold(start: number, length: number, noise: boolean, markup?: BrokenSpan): void {
    let last = this.pieces[this.pieces.length - 1];
    if (markup) this.pieces.push((last = { start, length: 0, noise, markup }));
    else if (!last || last.noise !== noise || last.markup || last.gone || last.start + last.length !== start) this.pieces.push((last = { start, length: 0, noise }));
    last.length += length;
    this.length += length;
  }

  /** Markup stripped where it stood keeps its place, counted like the rest; true once the tail is at its limit. */
  holdGone(start: number, length: number, limit: number): boolean {
    this.pieces.push({ start, length, noise: false, gone: true });
    this.length += length;
    return this.before + this.length >= limit;
  }

  /** Another call follows (or the tail grew too long): what the model wrote in between is visible. */
  release(store: HeldText, out: EngineEvent[], stripped: StrippedSpan[]): void {
    for (const piece of this.pieces) {
      if (piece.gone) continue;
      if (piece.noise) stripped.push({ span: spanOf(piece), kind: "noise" });
      else appendText(out, textOf(store, piece));
    }
  }

  /**
   * The call this tail followed was refused after all (a call held for its block's closer, the
   * block malformed): what it held joins the tail before it, or is released when there is none.
   * `refused`: the call never ran, so the markers stripped as its noise (a garbled closer word in
   * the block) are nobody's noise: text again, or a refused block loses a line (golden P48.4).
   */
  joinInto(target: Tail | null, store: HeldText, out: EngineEvent[], stripped: StrippedSpan[], refused = false): void {
    if (refused) for (const piece of this.pieces) piece.noise = false;
    if (target === null) {
      this.release(store, out, stripped);
      return;
    }
    for (const piece of this.pieces) target.pieces.push(piece);
    target.length += this.length;
  }

  /** The reply ended: text after the last call is a fabricated result (whitespace only: noise). */
  end(store: HeldText, stripped: StrippedSpan[]): void {
    for (const piece of this.pieces) {
      if (piece.gone) continue;
      const kind = piece.noise || textOf(store, piece).trim() === "" ? "noise" : "fabricated-result";
      stripped.push({ span: spanOf(piece), kind });
    }
  }

  /**
   * The call before it was withdrawn for a native one: what the model wrote after it is its own
   * text again, and markup in it is a native call's duplicate, as it would have been (its broken
   * report taken back).
   */
  withdraw(store: HeldText, out: EngineEvent[], stripped: StrippedSpan[], broken: BrokenSpan[]): void {
    for (const piece of this.pieces) {
      if (piece.gone) continue;
      if (piece.noise) stripped.push({ span: spanOf(piece), kind: "noise" });
      else if (piece.markup) {
        const at = broken.indexOf(piece.markup);
        if (at !== -1) broken.splice(at, 1);
        stripped.push({ span: spanOf(piece), kind: "native-call-duplicate" });
      } else appendText(out, textOf(store, piece));
    }
  }
}

const spanOf = (piece: Piece): [number, number] => [piece.start, piece.start + piece.length];
const textOf = (store: HeldText, piece: Piece) => store.slice(piece.start, piece.start + piece.length);
