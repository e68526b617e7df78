import { Flaw, type Tag } from "../grammar/tags.ts";
import { CR, LF, isWhiteSpace } from "../grammar/chars.ts";
import { closesChild } from "./closer-in-value.ts";
import { ExampleInValue, exampleOpener, NO_EXAMPLE_OPTIONS, type ExampleOptions } from "./example-in-value.ts";

/**
 * Unprefixed markup in a DSML value, from its first plain tag, decided as the walk decides it
 * (dialects/dsml/value-ends.ts plainRunEnd): the value's text when the next DSML tag is its closer, so the
 * stream never ends it at a plain closer the walk reads as text (`echo "</invoke>"`).
 *
 * A DSML call example after the plain markup (golden A45.4, E45.10) (a page that mentions
 * `</parameter>`, then shows a DSML block) is read as an example in the value (ExampleInValue):
 * when the value's own closer ends it, the plain markup and the example are all its text. A plain
 * closer that matches no plain opener still ends the value as the model's mis-closed parameter
 * when a plain parameter opener follows it outside any plain invoke (M07.5), or when the DSML
 * closer comes while a plain parameter or invoke opened after it is still open (that closer then
 * closes the plain parameter); a complete plain invoke after it (a Claude-style example) is text.
 */
export class PlainRunInValue {
  private depth = 0;
  private unmatchedCloser = false;
  // After an unmatched plain closer: the plain invokes and parameters opened since and still open.
  private invokesAfter = 0;
  private paramsAfter = 0;
  private example: ExampleInValue | null = null;
  // A plain closer at the run's own level waiting for the next character (the closer rule): an
  // unmatched parameter closer ("param") or an invoke or block closer ("call").
  private closerWaits: "param" | "call" | null = null;
  // A plain closer had text after it on its line (a mention, the page's text); one ended its line (a call closer, P01's reading).
  private mentioned = false;
  private callCloserEnded = false;
  /** The run ended before the DSML tag it returned "content" at (that tag is no closer of the value: it is read as usual). */
  endsBefore = false;

  constructor(
    first: Tag,
    // The open value's I11 reading (ExampleOptions.declared, valueName): its examples are read with it, and an I11 child's own closer ends the run as a parameter closer does.
    private readonly options: ExampleOptions = NO_EXAMPLE_OPTIONS,
  ) {
    this.step(first);
  }

  get awaitsChar(): boolean {
    return this.closerWaits !== null || (this.example?.awaitsChar ?? false);
  }

  /** The run's example ended ambiguously (ExampleInValue.ambiguous): the call is refused. */
  get ambiguous(): boolean {
    return this.example?.ambiguous ?? false;
  }

  /** The run's example holds a prefix-less closer (ExampleInValue.heldCloser); its "content" is at that held tag (contentAtHeld). */
  get heldCloser(): boolean {
    return this.example?.heldCloser ?? false;
  }

  get contentAtHeld(): boolean {
    return this.example?.contentAtHeld ?? false;
  }

  char(c: number): "fail" | "content" | null {
    if (this.closerWaits !== null) {
      // Golden A45.7: the closer rule for an unmatched plain closer. Text
      // after it on its line (`ends with </parameter> and </invoke> tags.`) makes it the page's
      // mention, no mis-closed parameter; a line end (or a tag next, step) keeps M07's reading.
      if (c !== LF && c !== CR && isWhiteSpace(c)) return null;
      if (c !== LF && c !== CR) this.mentioned = true;
      else this.closerEnded();
      this.closerWaits = null;
      return null;
    }
    return this.example ? this.example.char(c) : null;
  }

  // A waiting plain closer's line ended, or a tag came right after it: the structure the stream's fallback reads.
  private closerEnded(): void {
    if (this.closerWaits === "param") this.unmatchedCloser = true;
    else this.callCloserEnded = true;
  }

  step(tag: Tag): "content" | "fail" | null {
    if (this.closerWaits !== null) {
      this.closerEnded();
      this.closerWaits = null;
    }
    if (this.example) return this.example.step(tag);
    if (tag.family === "dsml") {
      const valueName = this.options.valueName;
      if ((tag.role === "parameter" && tag.closing) || (valueName !== undefined && closesChild(tag, valueName))) return this.invokesAfter > 0 || this.paramsAfter > 0 ? "fail" : "content";
      if (!exampleOpener(tag, "dsml", this.options.declared)) {
        // Only mentions so far (every plain closer had text after it on its line, nothing left open):
        // they are the value's text, and this DSML tag is read as usual from here (a lone closer line
        // then an example, the closer rule), instead of the fallback reading a mention as M07's closer.
        if (this.mentioned && !this.unmatchedCloser && !this.callCloserEnded && this.depth === 0) {
          this.endsBefore = true;
          return "content";
        }
        return "fail";
      }
      this.example = new ExampleInValue(tag, "dsml", true, this.options);
      return null;
    }
    if (tag.family !== "naked") return null;
    if (this.unmatchedCloser) return this.stepAfterCloser(tag);
    if (tag.role !== "parameter") {
      // A prefix-less invoke or block closer at the run's level, weighed by the closer rule as the fallback weighs it (the stream's ValueTracker.readDsml).
      if (this.depth === 0 && tag.closing && (tag.role === "invoke" || tag.role === "block") && !(tag.flaws & Flaw.SelfClosing)) this.closerWaits = "call";
      return null;
    }
    if (!tag.closing) this.depth++;
    else if (this.depth > 0) this.depth--;
    else this.closerWaits = "param";
    return null;
  }

  // After an unmatched plain closer: a plain invoke must close again before the value's closer; a plain parameter opens only inside one.
  private stepAfterCloser(tag: Tag): "fail" | null {
    if (tag.role === "invoke") {
      if (!tag.closing) this.invokesAfter++;
      else if (this.invokesAfter > 0 && this.paramsAfter === 0) this.invokesAfter--;
      else return "fail";
    } else if (tag.role === "parameter") {
      if (this.invokesAfter === 0) return tag.closing ? null : "fail";
      if (!tag.closing) this.paramsAfter++;
      else if (this.paramsAfter > 0) this.paramsAfter--;
    }
    return null;
  }
}
