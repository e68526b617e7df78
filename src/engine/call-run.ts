import { CR, LF, SP, TAB } from "../grammar/chars.ts";
import { isWrapperName } from "../grammar/dialects.ts";
import type { Tag } from "../grammar/tags.ts";
import { isSpaceCode } from "../parse/char-form.ts";
import { ExampleRun, type ProseMode } from "../parse/stray-value-closer.ts";
import type { HeldText } from "./held-text.ts";

/**
 * Golden A46.1-A46.3, A46.6: what a DSML candidate reads after its call completed (its invoke closer, no value open):
 * the run of examples and the stray value closer that would refuse the call (parse/
 * stray-value-closer.ts, the walk's rule too). Each method returns where the span ends once the
 * run decides, or null to read on: after the stray closer when it refuses the call (the walk then
 * refuses it), or where the span would end without it when it proves nothing (the block's closer
 * right after the call, or the first thing written after it), so a reply with no stray closer
 * reads exactly as before.
 */
export class CallRun {
  private readonly run: ExampleRun;
  /** Nothing but spaces read after the call yet. */
  private first = true;
  /** Where the span ends if the run proves nothing: -1 until the first thing after the call is read (or the call's own closer's end, `takeCloser`). */
  private back: number;
  private strayEnd = -1;
  /** The first thing after the call closed its block (or ended its legacy section): the span that ends ends the block too. */
  closedBlock = false;
  /** A run after a cut value (prose mode "value") that ended proving nothing: the candidate notes how far it read (SpanCallbacks.valueRunReach). */
  heldInVain = false;
  private readonly holdsAll: boolean;

  /** `prose`: where prose may stand in the run (review 52, finding 4): by default while the call's block is open. */
  constructor(blockOpen: boolean, back: number, prose: ProseMode = blockOpen ? "block" : false) {
    this.run = new ExampleRun(blockOpen, prose);
    this.back = back;
    this.holdsAll = prose === "value";
  }

  /** A character that is no tag's, at absolute offset `at`. */
  char(c: number, at: number): number | null {
    if (this.first && !isSpaceCode(c)) {
      this.first = false;
      if (this.back < 0) this.back = at;
    }
    const v = this.run.char(c);
    return v === null ? null : this.decided(v);
  }

  /** A tag from `start` to `end` (absolute); `closesBlock`: the candidate reads it as its block's closer. */
  tag(tag: Tag, start: number, end: number, closesBlock: boolean): number | null {
    const atStray = this.run.atStrayCloser;
    const inParameter = this.run.inStrayParameter;
    if (this.first) {
      this.first = false;
      // A legacy section's end right after the call ends the span with it, as before.
      if (tag.legacy === "section-end") {
        this.closedBlock = true;
        return end;
      }
      // The block's closer (an orphan invoke's lone wrapper closer too, W01) is the span's; any other tag starts what comes next.
      if (closesBlock) {
        this.back = end;
        this.closedBlock = true;
      } else if (this.back < 0) this.back = start;
    }
    const v = this.run.step(tag);
    // A parameter outside every invoke (golden P47.4) ends the span after its opener, its closer, or the block's closer right after that.
    if (inParameter && v === "refuse" && closesBlock) {
      this.strayEnd = end;
      this.closedBlock = true;
    }
    if (v !== null) return this.decided(v);
    if (!atStray && this.run.atStrayCloser) this.strayEnd = end;
    if (this.run.inStrayParameter) this.strayEnd = end;
    return null;
  }

  /** The reply ended: null when nothing but spaces came (the span ends as before), or where it ends. */
  end(): number | null {
    return this.first ? null : this.decided(this.run.end());
  }

  /** The span reached the buffer limit: the run proves nothing (null when nothing but spaces came), unless a stray parameter already refused the call. */
  atLimit(): number | null {
    if (this.run.inStrayParameter) return this.strayEnd;
    if (this.first) return null;
    this.heldInVain = this.holdsAll;
    return this.back;
  }

  private decided(v: "refuse" | "fail"): number {
    if (v === "refuse") return this.strayEnd;
    this.heldInVain = this.holdsAll;
    return this.back;
  }
}

/**
 * Whether a block closer at `at` (absolute), read after a span's complete call (the span starts
 * at `start` in `held`), closes its block: a DSML one only with a wrapper's word
 * (`</{D}tool_callsX>` is not one: the tag grammar reads any DSML word with `call` in it as a
 * block's), and none written as an indented code line (four columns of indentation after a blank
 * line): that is documentation of a closer, and a parameter after it is still outside every
 * invoke of the open block (golden P48.4).
 */
export function closesBlockAfterCall(tag: Tag, held: HeldText, start: number, at: number): boolean {
  if (tag.family === "dsml" && !isWrapperName(tag.name.toLowerCase())) return false;
  // Read back from `at` only as far as the rule looks (a run after a cut value holds many closers: no copy of the span each).
  const back = new BackReader(held, start, at);
  let cols = 0;
  let c = back.prev();
  while (c === SP || c === TAB) {
    cols += c === TAB ? 4 : 1;
    c = back.prev();
  }
  if (cols < 4 || (c !== LF && c !== CR)) return true;
  // The line before it is blank: an indented code block may start here.
  if (c === LF && back.peek() === CR) back.prev();
  do c = back.prev();
  while (c === SP || c === TAB);
  return !(c === LF || c === CR);
}

/** The held text read backwards from an offset down to `from` (-1 there), 64 characters copied at a time. */
class BackReader {
  private piece = "";
  private base: number;
  private k = 0;

  constructor(
    private readonly held: HeldText,
    private readonly from: number,
    at: number,
  ) {
    this.base = at;
  }

  /** The character before the last one read, -1 at `from`. */
  prev(): number {
    const c = this.peek();
    if (c >= 0) this.k--;
    return c;
  }

  /** The character prev() returns next, without reading past it. */
  peek(): number {
    if (this.k === 0) {
      if (this.base <= this.from) return -1;
      const to = this.base;
      this.base = Math.max(this.from, to - 64);
      this.piece = this.held.slice(this.base, to);
      this.k = this.piece.length;
    }
    return this.piece.charCodeAt(this.k - 1);
  }
}
