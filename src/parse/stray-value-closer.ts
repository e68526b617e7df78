import { CR, LF, LT } from "../grammar/chars.ts";
import { Flaw, type Tag } from "../grammar/tags.ts";
import { isSpaceCode } from "./char-form.ts";
import { closesParameter } from "./closer-in-value.ts";
import { EXAMPLES_AFTER_CLOSER, ExampleInValue, anyExampleOpener } from "./example-in-value.ts";

/**
 * Golden A46.1-A46.3, A46.6 (A46.n2 the mention): a parameter closer that closes nothing, written
 * right after a complete DSML call, is the closer of a value the call stood in: a write's page showing call examples, its own closers after
 * them (`</{D}parameter>` then `</{D}invoke>`). The call never runs: it is refused as broken
 * markup, its text kept. "Right after": only spaces and at most one block closer between, or up
 * to EXAMPLES_AFTER_CLOSER further examples (of any dialect, golden S02.17, S02.18: DSML or unprefixed
 * blocks and named invokes, functions, `<tool_call>` wrappers, special-token calls; each followed
 * the same way), so the calls of such a run are refused together; but no invoke of the call's block while
 * that block is still open (a block's next invoke is a call of its own, emitted at its own
 * boundary). The closer rule weighs the stray closer: its line ending, a tag next or the end of
 * the reply make it a closer; text after it on its line makes it a mention (`</{D}parameter> ends
 * a value.`), and the call stands. A call whose invoke closer came while a value was open (P01,
 * M07) is weighed by the closer rule first (closer-in-value.ts) and never here; invoke and block
 * closers after a call are its noise as before (S04). A parameter opener after the call while its
 * block is still open (a parameter outside every invoke, golden P47.4) refuses it the same way.
 *
 * ExampleRun is that reading, fed what follows the call's invoke closer. The stream
 * (engine/call-run.ts) ends the call's span after a stray closer that refuses it, or where it
 * ended before when the run proves nothing; the walk (dialects/dsml/walk.ts) asks runRefuses over
 * the span for each such call, so both read it alike. Each call's run reads at most
 * EXAMPLES_AFTER_CLOSER examples again, so the work stays linear (calls in DSML blocks one after
 * another are each read at most that many times more), and a longer run before a stray closer
 * leaves its first calls running (their runs prove nothing): only its last ones are refused. No
 * run is read after markup of unknown end (the engine's overflowed state), where no call runs.
 */
export class ExampleRun {
  /** "param": a stray parameter opener came, its value is read up to its closer; "param-closed": that closer came. */
  private state: "gap" | "example" | "stray" | "param" | "param-closed" = "gap";
  private example: ExampleInValue | null = null;
  private count = 0;
  // A block closer came in this gap (one is the call's or the example's own, S04's further ones prove nothing).
  private blockClosed = false;

  /** Prose read in a gap (prose mode only): from then on only a stray closer or an example keeps the run going. */
  private sawProse = false;
  /** Value mode (after a value a closer cut, P01): the invokes and parameters opened in the run and not closed yet, so their closers close something. */
  private invokes = 0;
  private params = 0;

  constructor(
    // The call's block is still open: its next invoke is a call of its own, no example (until the block's closer; a new block may be one).
    private blockOpen: boolean,
    /**
     * Review 52, finding 4: prose may stand in the run (a page's prose between a lone closer line and
     * the write's own closers). Set for a call its block's closer has not followed yet, and for a
     * call a closer ended inside an open value (P01): what follows is read on, held, to a stray closer
     * (which refuses the call), or to the block's closer, the next invoke, any other markup or the
     * reply's end (the call runs, only later). After a cut value ("value") everything is held, markup
     * and invokes too, up to a stray closer or the reply's end (valueChar, valueStep).
     */
    private readonly prose: ProseMode = false,
  ) {}

  /** The stray closer came: the next character or tag decides (char, step, end). */
  get atStrayCloser(): boolean {
    return this.state === "stray";
  }

  /**
   * A parameter opener came while the call's block is open (a parameter outside every
   * invoke): the call is refused. Its value is read up to its closer, then over spaces to the
   * block's closer; anything else (another tag first, text after the closer) ends the run there
   * (golden P47.4).
   */
  get inStrayParameter(): boolean {
    return this.state === "param" || this.state === "param-closed";
  }

  /** A character between tags: "refuse", "fail" (the run proves nothing) or null (read on). */
  char(c: number): "refuse" | "fail" | null {
    if (this.prose === "value") return this.valueChar(c);
    switch (this.state) {
      case "stray":
        if (c === LF || c === CR) return "refuse";
        return isSpaceCode(c) ? null : "fail";
      case "param":
        return null;
      case "param-closed":
        return isSpaceCode(c) ? null : "refuse";
      case "gap":
        if (isSpaceCode(c)) return null;
        // A `<` no tag reader took (`<{D}parameter=workdir>`, a degraded stray opener) ends prose mode: text mode weighs it as before (golden P48.10, P49.6, P50.2).
        if (this.prose === false || (this.prose === "block" && !this.blockOpen) || c === LT) return "fail";
        this.sawProse = true;
        return null;
      case "example": {
        const example = this.example!;
        if (!example.awaitsChar) return null;
        if (example.char(c) !== null) return "fail";
        if (example.ended) this.gap();
        return null;
      }
    }
  }

  /** The next tag. */
  step(tag: Tag): "refuse" | "fail" | null {
    if (this.prose === "value") return this.valueStep(tag);
    switch (this.state) {
      case "stray":
      case "param-closed":
        return "refuse";
      case "param":
        if (!isStrayValueCloser(tag)) return "refuse";
        this.state = "param-closed";
        return null;
      case "example": {
        const example = this.example!;
        if (example.step(tag) !== null) return "fail";
        if (example.ended) this.gap();
        return null;
      }
      case "gap":
        // After prose, a DSML invoke closer that closes nothing says the same as a parameter closer: which one ended the value is unknowable.
        if (isStrayValueCloser(tag) || (this.sawProse && tag.family === "dsml" && tag.closing && tag.role === "invoke")) {
          this.state = "stray";
          return null;
        }
        // After prose, the block's closer, the next invoke or any markup but an example block ends the run: the call stands.
        if (this.sawProse && (tag.closing || tag.role !== "block")) return "fail";
        if (!this.blockClosed && tag.closing && tag.role === "block" && tag.family !== "costume") {
          this.blockClosed = true;
          this.blockOpen = false;
          return null;
        }
        // A parameter opener in the call's block, still open: a parameter outside every invoke (the block is malformed, parse-span.ts).
        if (this.blockOpen && isStrayParameter(tag)) {
          this.state = "param";
          return null;
        }
        // With the call's block still open, its next invoke is a call of its own (read at its own boundary); a new block is no part of it.
        // An example of any dialect: the stray closer after it decides, as after a DSML one.
        if (this.count >= EXAMPLES_AFTER_CLOSER || !anyExampleOpener(tag) || (this.blockOpen && tag.role !== "block")) return "fail";
        this.count++;
        this.example = new ExampleInValue(tag, "dsml");
        this.state = "example";
        return null;
    }
  }

  /** The reply (or the span) ended: a stray closer last refuses the call. */
  end(): "refuse" | "fail" {
    return this.state === "stray" || this.inStrayParameter ? "refuse" : "fail";
  }

  /**
   * Review 52 diff review, findings 1-3: after a value a closer cut (P01) everything is held, prose,
   * markup, a bare `<`, block closers, invokes of the page, since a page documenting DSML holds all
   * of them; only a closer of the value that closes nothing (the write's own `</{D}parameter>`, or
   * after text a DSML invoke closer, which one ended the value being unknowable) ending its line or
   * followed by a tag decides: the call stood in a value and is refused. Text after it on its line
   * makes it a mention, and the hold reads on. The reply's end (or the buffer limit) proves nothing.
   * O(1) a character or tag: two counters, no rescans.
   */
  private valueChar(c: number): "refuse" | null {
    if (this.state !== "stray") {
      this.sawProse ||= !isSpaceCode(c);
      return null;
    }
    if (c === LF || c === CR) return "refuse";
    if (!isSpaceCode(c)) this.state = "gap";
    return null;
  }

  private valueStep(tag: Tag): "refuse" | null {
    if (this.state === "stray") return "refuse";
    const selfClosing = (tag.flaws & Flaw.SelfClosing) !== 0;
    if (tag.role === "invoke" && (tag.family === "dsml" || tag.family === "naked") && !selfClosing) {
      if (!tag.closing) {
        this.invokes++;
        this.params = 0;
      } else if (this.invokes > 0) {
        this.invokes--;
        this.params = 0;
      } else if (tag.family === "dsml" && this.sawProse) this.state = "stray"; // Right after the closer line, further closer lines are its noise (S04, TentativeCloser.closerAfterCloser).
      return null;
    }
    if (tag.role === "parameter" && !selfClosing) {
      if (!tag.closing) this.params++;
      else if (this.params > 0) this.params--;
      else if (isStrayValueCloser(tag)) this.state = "stray";
    }
    return null;
  }

  private gap(): void {
    this.state = "gap";
    this.example = null;
    this.blockClosed = false;
    // An example leaves no block open: a block example closed its own, an invoke example had none.
    this.blockOpen = false;
  }
}

/** Where prose may stand in the run (ExampleRun.prose): while the call's block is open ("block"), or anywhere after a value a closer cut (P01, "value"). */
export type ProseMode = false | "block" | "value";

/** A parameter opener, DSML or prefix-less, with a value to come (a self-closing one is read by the walk as a paramRoot's value too). */
export const isStrayParameter = (tag: Tag): boolean => tag.role === "parameter" && !tag.closing && (tag.family === "dsml" || tag.family === "naked");

/** A parameter closer (any spelling a DSML value accepts: its own, or M07's prefix-less one). */
const isStrayValueCloser = (tag: Tag): boolean => closesParameter(tag, "dsml");

/**
 * The walk's side: whether the run after a call whose invoke closer is `tags[next - 1]` refuses it,
 * read over the rest of the span as the stream reads it: by a stray value closer ("closer"), by a
 * parameter opener in the call's open block ("parameter", golden P47.4), or not (null).
 */
export function runRefuses(span: string, tags: readonly Tag[], next: number, blockOpen: boolean, prose: ProseMode = false): "closer" | "parameter" | null {
  const run = new ExampleRun(blockOpen, prose);
  const why = (v: "refuse" | "fail") => (v === "fail" ? null : run.inStrayParameter ? "parameter" : "closer");
  let pos = tags[next - 1]!.end;
  for (let k = next; k <= tags.length; k++) {
    const until = k < tags.length ? tags[k]!.start : span.length;
    for (let i = pos; i < until; i++) {
      const v = run.char(span.charCodeAt(i));
      if (v !== null) return why(v);
    }
    if (k === tags.length) break;
    const v = run.step(tags[k]!);
    if (v !== null) return why(v);
    pos = tags[k]!.end;
  }
  return why(run.end());
}
