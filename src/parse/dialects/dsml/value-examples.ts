import { Flaw, type Tag } from "../../../grammar/tags.ts";
import { exampleEnd, exampleOpener, type ExampleOptions } from "../../example-in-value.ts";
import type { InvokeDraft, ParamDraft } from "./drafts.ts";
import { plainRunEnd } from "./value-ends.ts";

/** Why a call whose value holds an example ended ambiguously (example-in-value.ts ExampleInValue.ambiguous) is refused. */
const AMBIGUOUS_EXAMPLE = "a call example in a value, then a block closer alone on its line and text before the value's own closer: which closer ends the call is ambiguous";

/**
 * What the DSML walk (walk.ts) reads as text written inside a value rather than as the call's
 * structure: a call example (example-in-value.ts) and unprefixed markup in a sentinel value
 * (value-ends.ts plainRunEnd). Asked once for each tag before the walk reads it: the tags it skips
 * change nothing but what they tell the open invoke's draft (refused, reported). The stream reads
 * them with the same readers (engine/candidate.ts), so whole text and any split agree. Each tag is
 * looked at a bounded number of times: no example starts again before the tag that proved none
 * (exampleFrom), and a plain run is weighed once per sentinel tag read (runTried).
 */
export class ValueExamples {
  /** Tags before this index are an example inside a value (exampleAt); none starts before exampleFrom. */
  private skipUntil = 0;
  private exampleFrom = 0;
  /** Tags before this index are a plain run, the value's text; the run ended before the tag at it (plainRunEnd's `before`). */
  private contentUntil = -1;
  private runEndsBefore = false;
  /** A run of plain markup in the open sentinel value was weighed since the last sentinel tag read (the stream's plainRunTried). */
  private runTried = false;

  constructor(
    private readonly span: string,
    private readonly tags: readonly Tag[],
    /** The span opens with DSML markup (the stream's Candidate.opener), not an unprefixed dialect's. */
    private readonly dsmlSpan: boolean,
    /** A sentinel tag names a declared tool: an I11 example's opener (example-in-value.ts exampleOpener). */
    private readonly declared: (tag: Tag) => boolean,
  ) {}

  /**
   * The tag at `index` is text written in the open value (or, after text, in the invoke's body):
   * the walk skips it. `cur`: the open invoke; `top`: its innermost open parameter.
   */
  skips(index: number, cur: InvokeDraft | null, top: ParamDraft | undefined): boolean {
    const tag = this.tags[index]!;
    // Plain markup inside a value that its own sentinel closer ends is the value's text (an XML file).
    if (index < this.contentUntil || index < this.skipUntil) return true;
    // The tag an example ends at (the value's closer) is read as the stream reads it, directly: no plain run starts there.
    if (this.exampleAt(index, cur, top)) {
      this.runTried = true;
      return true;
    }
    // A run with an example in it ended by the invoke closer (P01), not a parameter closer: refused, as exampleAt.
    if (index === this.contentUntil && tag.role === "invoke" && !this.runEndsBefore && top && top.children === null) top.closerAsText = true;
    if (tag.family === "naked" && !this.runTried && cur !== null && inDsmlValue(top)) {
      this.runTried = true;
      const out = { ambiguous: false, before: false };
      const end = plainRunEnd(this.span, this.tags, index, valueOptions(this.declared, cur, top), out);
      if (end >= 0) {
        this.contentUntil = end;
        this.runEndsBefore = out.before;
        // Reporting only: the plain closers such a run read as mentions are still the call's mixed markup (M07), as when
        // they were read one by one (golden A45.1); openers are left out (they would report P04/P05).
        if (out.before) for (let k = index; k < end; k++) if (this.tags[k]!.family === "naked" && this.tags[k]!.closing && this.tags[k]!.role !== "block") cur.tags.push(this.tags[k]!);
        if (out.ambiguous) cur.unread ??= AMBIGUOUS_EXAMPLE;
        return true;
      }
    }
    if (tag.family === "dsml") this.runTried = false;
    return false;
  }

  /**
   * A block or invoke opener written inside an open value starts an example that
   * is the value's text when, once closed, the value's own parameter closer comes next
   * (example-in-value.ts, the stream's rule too): its tags are skipped. Otherwise the restart rule
   * stands, and no example starts again before the tag that decided it (so each tag is looked at
   * a bounded number of times). Golden S02.8, S02.10, S02.14, A41.1-A41.3.
   */
  private exampleAt(index: number, cur: InvokeDraft | null, top: ParamDraft | undefined): boolean {
    if (!cur || index < this.exampleFrom) return false;
    if (!top || top.children !== null) return this.exampleInBody(index, cur);
    const family = top.opener.family;
    if ((family !== "dsml" && family !== "naked") || !exampleOpener(this.tags[index]!, family, this.declared)) return false;
    // An unprefixed value in a DSML span (M07.5) is ended by a DSML closer too, as closeParam reads it (the stream's ValueTracker.plain).
    const options = family === "naked" && this.dsmlSpan ? { ...valueOptions(this.declared, cur, top), dsmlCloses: true } : valueOptions(this.declared, cur, top);
    const found = exampleEnd(this.span, this.tags, index, family, this.span.length, true, options);
    if (found.end >= 0) {
      this.skipUntil = found.end;
      if (found.ambiguous) cur.unread ??= AMBIGUOUS_EXAMPLE;
      // Ended by the invoke closer (P01), not a parameter closer: the call is refused (cutShort), the example never runs.
      if (this.tags[found.end]!.role !== "parameter") top.closerAsText = true;
      return true;
    }
    this.exampleFrom = found.stop;
    return false;
  }

  /**
   * After text in the invoke's body (golden A45.4, E45.10) (a value ended mid-line by its sentinel
   * closer: the call is refused, I04), an example that the call's own closers end (a parameter
   * closer that closes nothing, or the invoke closer) was that text too: skipped, never read as
   * the model starting over, and the call refused. The same after a value that closed cleanly at
   * its line's end (golden A45.9: `# Doc</{D}parameter>`, an example, then a
   * stray `</{D}parameter>` and the call's closers). The stream holds such an example only after
   * body text or a closed value (engine/value-tracker.ts bodyText, valueClosed) and otherwise ends the span at its
   * opener (restart), so the walk never meets one it did not hold; DSML spans only, as the stream.
   */
  private exampleInBody(index: number, cur: InvokeDraft): boolean {
    if (!this.dsmlSpan || !exampleOpener(this.tags[index]!, "dsml")) return false;
    const found = exampleEnd(this.span, this.tags, index, "dsml", this.span.length, true);
    if (found.end < 0) {
      this.exampleFrom = found.stop;
      return false;
    }
    this.skipUntil = found.end;
    cur.unread ??= "a call example in the invoke body, ended by the invoke's own closers";
    return true;
  }
}

/**
 * How an example or plain run in the open value reads I11 tags: declared tools' examples, and an
 * I11 child's own closer (`top`, the open parameter of a tool-named invoke `cur`).
 */
export function valueOptions(declared: (tag: Tag) => boolean, cur: InvokeDraft | null, top: ParamDraft | undefined): ExampleOptions {
  return { declared, valueName: cur?.toolNamed && top ? top.name.toLowerCase() : undefined };
}

/** A sentinel parameter's value is open (plain markup in it may be its text: value-ends.ts). */
const inDsmlValue = (top: ParamDraft | undefined): boolean =>
  top !== undefined && top.children === null && top.opener.family === "dsml" && !(top.opener.flaws & Flaw.SelfClosing);
