// The span kinds' side of a candidate (candidate.ts extends it): the state their rules read and
// the callbacks they make (parse/span-kind.ts SpanReader), apart from the candidate's own scan.
import type { Tag } from "../grammar/tags.ts";
import type { Shape } from "../grammar/shapes.ts";
import type { Root, SpanKind, SpanReader, Step } from "../parse/span-kind.ts";
import type { CharState } from "../parse/char-form.ts";
import { NamedState } from "../parse/named.ts";
import type { CloserRule } from "../parse/closer-in-value.ts";
import type { DsmlValueStep } from "../parse/dsml-value.ts";
import { writtenName } from "../parse/tool-element-name.ts";
import type { ToolSpec } from "../parse/types.ts";
import type { HeldText } from "./held-text.ts";
import { CallRun } from "./call-run.ts";
import { TentativeCloser } from "./tentative-closer.ts";
import { ValueTracker } from "./value-tracker.ts";
import { WrapperHold } from "./wrapper-hold.ts";

export abstract class SpanCallbacks implements SpanReader {
  /** The span ended inside a still-open block or section: the next invoke (or call) belongs to it. */
  endsInBlock = false;
  /** Parameter nesting (nest): 1 is the opener's own. */
  protected depth = 1;
  /** Off after markup of unknown end (the engine's overflowed state): no call runs there, so none is read on (call-run.ts). */
  weighsRun = true;
  /**
   * Set by the engine: an earlier span's run after a cut value (prose mode "value") read the text up
   * to this offset and proved nothing. A cut value before it is not held again (its call runs at the
   * cut, as P01 did before review 52), so no text is held by two such runs: the hold stays linear.
   */
  valueRunsReadTo = -1;
  /** Where this span's own run after a cut value read to when it proved nothing (the reply's end, the buffer limit); -1 otherwise. */
  valueRunReach = -1;
  /** Char-level forms (I10 named call, O06 Mistral, the start of a `<tool_call>` body) that are JSON or names rather than tags. */
  named: CharState | null = null;
  /** After a unit's closer: the span trails, and a closer that may be content waits for what comes next (tentative-closer.ts). */
  protected readonly tentative: TentativeCloser;
  /** endsInBlock as it was before the tag being read (the values' own: ValueTracker.openBefore, plainBefore). */
  protected before_endsInBlock = false;
  /** The values open in a DSML or unprefixed span (value-tracker.ts); other kinds keep their own (SpanKind.valueFamily). */
  protected readonly values: ValueTracker;
  /** A sentinel tag being read names a declared tool (an I11 example's opener, golden A45.3, E45.8). */
  protected readonly declared = (tag: Tag): boolean => this.tools.has(writtenName(this.tagText, tag));
  /** Text after a call complete inside its wrapper, or after a costume's closer line, held (wrapper-hold.ts); null otherwise. */
  protected hold: WrapperHold | null = null;
  /** Golden A46.1-A46.3: what follows the complete DSML call, read before its span ends (call-run.ts); null otherwise. */
  protected run: CallRun | null = null;
  /** The text the tag being read sits in, and its absolute offset (startsLine reads back in it first, HeldText.startsLine). */
  protected tagText = "";
  protected tagBase = 0;

  constructor(
    /** The engine's held text, where this candidate's span is read back from (the engine stores it). */
    protected readonly held: HeldText,
    /** The tools a call may name, with aliases (the parser's SpanContext.tools). */
    readonly tools: ReadonlyMap<string, ToolSpec>,
    readonly start: number,
    readonly opener: Tag,
    readonly root: Root,
    /** The block opener (or true for a legacy section) this candidate continues, if any. */
    readonly enclosing: Tag | true | null,
    /** The opener stands at the start of its line (DocContext.atLineStart), not in a running sentence. */
    readonly opensLine: boolean,
  ) {
    this.values = new ValueTracker(opener.family, root, this.declared, root === "tool-element" ? opener.name : null);
    this.tentative = new TentativeCloser(this.values);
  }

  /**
   * The span read to the end of its text with nothing more to come (Candidate.consume, `final`):
   * whatever it decided from then on (the run after a call ending where the call did, a hold or an
   * example proving nothing) the text's end decided, as the reply's end would.
   */
  endedByText = false;

  /**
   * Its calls complete and decided before the text's end: the span only takes the layout after
   * their closer, no closer held as maybe content, no hold, no run after the call reading on, and
   * nothing the text's end decided (endedByText): engine/part-end.ts. Fix 55: a run that read past
   * its block's closer (`run.closedBlock`) still waits, and so does one the text's end ended: a
   * stray value closer after it, or examples and then one, refuses the call (A46.6, I04).
   */
  settled(): boolean {
    return this.tentative.trailing && !this.tentative.held && this.hold === null && this.run === null && !this.endedByText;
  }

  /**
   * Review 52, finding 4: a DSML call a lone invoke or block closer line ended inside an open value
   * (P01), content next (prose, `at`): that content is read on, held, as the run after the call
   * (call-run.ts, prose mode "value"), so a closer of the value closing nothing after it (the
   * write's own `</{D}parameter>`) refuses the call instead of letting it run with its value cut at
   * the line; markup, block closers and further invokes are held too (review 52 diff review); only
   * the reply's end or the buffer limit let it run, later. The walk reads the same (dsml/walk.ts
   * valueRunRefuses). Null (nothing changed) otherwise, and for a cut value in text an earlier such
   * run already read in vain (valueRunsReadTo).
   */
  protected runAfterCutValue(at: number): CallRun | null {
    if (!this.weighsRun || at < this.valueRunsReadTo || this.opener.family !== "dsml" || (this.root !== "block" && this.root !== "invoke") || this.values.tool !== null || !this.tentative.endedValueLine()) return null;
    const back = this.tentative.endAt(at);
    this.tentative.endsCall();
    return new CallRun(this.endsInBlock && (this.root === "block" || this.enclosing !== null), back, "value");
  }

  /**
   * The examples read after a lone closer line (Candidate.exampleAfterCloser, which read the closer
   * as text) proved none (more than EXAMPLES_AFTER_CLOSER): the closer ended the value after all, and
   * the run after the cut value starts at the first example, `at`, as runAfterCutValue starts it
   * there. `trailBack`: the closer's trailing end, restored (exampleAfterCloser had resumed the value).
   */
  protected runAfterExamples(at: number, trailBack: number): CallRun | null {
    if (!this.weighsRun || at < this.valueRunsReadTo || this.opener.family !== "dsml" || (this.root !== "block" && this.root !== "invoke") || this.values.tool !== null) return null;
    this.tentative.trail(trailBack);
    return new CallRun(this.endsInBlock && (this.root === "block" || this.enclosing !== null), this.tentative.endAt(at), "value");
  }

  /** A costume's closer ended its line at `at`: true when the kind holds what follows (SpanKind.holdsAfterCloserLine), the span ending at the closer otherwise. */
  protected holdAfterCloserLine(kind: SpanKind<unknown>, body: unknown, at: number): boolean {
    if (!kind.holdsAfterCloserLine?.(this, body)) return false;
    this.hold = new WrapperHold(at, this.tentative.trailBack);
    return true;
  }

  tentatively(rule: CloserRule, end?: number): null {
    this.tentative.hold(rule, this.before_endsInBlock, end);
    return null;
  }

  /** A parameter's value is open (before the tag being read): DSML's or an unprefixed one's, or Qwen3-Coder's (nest depth 2). */
  valueOpen(): boolean {
    return this.values.openBefore || ((this.root === "tool-call" || this.root === "qwen-function") && this.depth === 2);
  }

  dsmlStep(): DsmlValueStep {
    return this.values.step;
  }

  startsLine(at: number): boolean {
    // Back through the text at hand (after a rewind it holds everything read again), then the held text.
    return this.held.startsLine(at, this.start, this.tagText, this.tagBase);
  }

  textBetween(from: number, to: number): string {
    return this.held.slice(from, to);
  }

  nest(delta: number): number {
    this.depth += delta;
    return this.depth;
  }

  readNamedCall(at: number): void {
    this.named = new NamedState(at);
  }

  /** Set by refuseWhole: the span, once it ends, is one broken-markup report (engine.ts finish). */
  refused: { shape: Shape; detail: string; at: number; nested: boolean } | null = null;

  refuseWhole(shape: Shape, detail: string, at: number, nested = false): void {
    this.refused ??= { shape, detail, at: at - this.start, nested };
    // Nothing inside a refused body is a value whose examples or closers are weighed.
    this.depth = 1;
  }

  trail(): null {
    this.tentative.trail();
    this.endsInBlock = true;
    return null;
  }

  restart(at: number): Step {
    this.endsInBlock = this.root === "block" || this.enclosing !== null;
    return { kind: "complete", end: at };
  }

  takeCloser(end: number): null {
    this.tentative.trail(end);
    this.endsInBlock = true;
    return null;
  }
}
