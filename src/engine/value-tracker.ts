import { Flaw, type Tag, type TagFamily } from "../grammar/tags.ts";
import { closerRule, toolNamedValueRule, type CloserRule } from "../parse/closer-in-value.ts";
import { dsmlValueName, dsmlValueStep, type DsmlValueStep } from "../parse/dsml-value.ts";
import type { Root } from "../parse/span-kind.ts";
import { opensToolElement } from "../parse/tool-element-name.ts";

/** P01 in a DSML span: a parameter closer coming next proves the invoke closer was in the value. */
const DSML_VALUE = closerRule("dsml");

/**
 * Which parameter value is open in a candidate's span (engine/candidate.ts), for the spans whose
 * kind keeps no value state of its own (SpanKind.valueFamily): a DSML span, read tag by tag with
 * the walk's own rule (parse/dsml-value.ts) so the stream and the walk never disagree on whether a
 * value is open, plus the unprefixed markup written in a sentinel value; and an unprefixed span
 * (Claude-style, MiniMax), by its parameter tags. The candidate asks it before it weighs a closer
 * by the closer rule (a closer counts as a value's text only while a value is open) and before it
 * reads an example in a value.
 */
export class ValueTracker {
  /** Inside a parameter's value: a sentinel one in a DSML span, an unprefixed one in an unprefixed span. */
  open = false;
  /** DSML: an unprefixed parameter opened outside a sentinel value (M07.5) holds a value, not body text, until a parameter closer or a DSML tag. */
  plain = false;
  /** `open`, and `plain` outside a sentinel value, as they were before the tag being read (read). */
  openBefore = false;
  plainBefore = false;
  /** DSML: what the tag being read did to the value (parse/dsml-value.ts). */
  step: DsmlValueStep = "text";
  /** DSML: the open value's name (lower case); it stays after an end, since a closer read as the value's text (TentativeCloser.resume) reopens the same value. */
  name = "";
  /** DSML: the I11 element's tool (lower case), or null in an invoke. */
  tool: string | null;
  /** DSML: text was written in the open invoke's body, outside every value (the walk's InvokeDraft.body). */
  bodyText = false;
  /** DSML: a value of the open invoke has closed (an example after it that the call's own closers end is held too, as after body text). */
  valueClosed = false;
  /** DSML: the open value's plain markup was read as a run once already; each sentinel tag re-arms it, as the walk's runTried (dsml/value-examples.ts). */
  plainRunTried = false;
  /** DSML: how deep the plain tags written in the open value nest. */
  private plainDepth = 0;
  /** DSML: a unit (invoke, parameter or I11 element) opened in a block span. */
  private unitSeen = false;
  /** The closer rule for an I11 child's value, made once per value (rule). */
  private childRule: CloserRule | null = null;
  private childRuleName = "";

  constructor(
    /** The family of the span's opener: "dsml" and "naked" spans are tracked, any other is left alone. */
    private readonly family: TagFamily,
    private readonly root: Root,
    /** A sentinel tag names a declared tool (an I11 element's opener in a block span). */
    private readonly declared: (tag: Tag) => boolean,
    tool: string | null,
  ) {
    this.tool = tool;
  }

  /** A tag the candidate reads as structure: true when it is the open value's text, which the span's kind never sees. */
  read(tag: Tag): boolean {
    this.openBefore = this.open;
    this.plainBefore = this.family === "dsml" && this.plain && !this.open;
    if (this.family === "naked") this.readNaked(tag);
    if (this.family !== "dsml") return false;
    if (this.readDsml(tag)) return true;
    this.plain = tag.family === "naked" && tag.role === "parameter" ? !tag.closing && !(tag.flaws & Flaw.SelfClosing) : tag.family === "dsml" ? false : this.plain;
    return false;
  }

  /** A character outside tags: outside every value it is the open invoke's body text. */
  content(): void {
    if (!this.open && !this.plain) this.bodyText = true;
  }

  /** The closer rule for the open DSML value: an I11 child's own closer coming next proves a closer was in it too (made once per value). */
  rule(): CloserRule {
    if (this.tool === null) return DSML_VALUE;
    if (this.childRule === null || this.childRuleName !== this.name) {
      this.childRule = toolNamedValueRule(this.name);
      this.childRuleName = this.name;
    }
    return this.childRule;
  }

  /** Unprefixed markup (Claude-style, MiniMax): a parameter opener opens a value, its closer or an invoke tag ends it. */
  private readNaked(tag: Tag): void {
    if (tag.family !== "naked") return;
    if (tag.role === "parameter") this.open = !tag.closing && !(tag.flaws & Flaw.SelfClosing);
    else if (tag.role === "invoke") this.open = false;
  }

  /**
   * A tag in a DSML span. Plain tags that nest inside a sentinel parameter's value (an XML file
   * being written) are its content, not the call's closers; a plain closer that matches none of
   * them still ends the value as the model's mis-closed parameter (M07).
   */
  private readDsml(tag: Tag): boolean {
    this.step = "text";
    if (tag.family === "dsml") {
      // Golden A45.1-A45.3: the walk's own rule (parse/dsml-value.ts) decides whether a sentinel
      // tag opens or ends a value; one that is no structure (`<{D}thinking>`, `</{D}bash>`, a
      // self-closing parameter) leaves it open, so the closer rule still weighs a later closer.
      if (this.tool === null && this.root === "block" && !this.unitSeen && opensToolElement(tag) && this.declared(tag)) {
        this.tool = tag.name;
        this.unitSeen = true;
        return false;
      }
      if (tag.role === "invoke" || tag.role === "parameter") this.unitSeen = true;
      const step = dsmlValueStep(tag, this.open, this.tool, this.open ? this.name : "");
      this.step = step;
      // The element ended outside any value (a block span reads on to the next unit), or an invoke
      // started (the walk reads the rest as one): no longer the tool-named form.
      if (step === "next") this.tool = null;
      else if (step === "end-call" && !this.open && this.root === "block" && tag.name === this.tool) {
        this.tool = null;
        this.unitSeen = false;
      }
      // A new invoke or block leaves the old invoke's body (golden A45.4, E45.10; the walk's InvokeDraft.body);
      // one an open value keeps as its text (dsml-value.ts) leaves it as it was.
      if ((tag.role === "invoke" || tag.role === "block") && !(step === "text" && this.open)) this.bodyText = this.valueClosed = false;
      if (step === "close" && this.open) this.valueClosed = true;
      this.plainRunTried = false;
      if (step === "text") return false;
      this.open = step === "open";
      if (step === "open") this.name = dsmlValueName(tag);
      this.plainDepth = 0;
      return false;
    }
    if (!this.open || tag.family !== "naked") return false;
    if (tag.role !== "parameter" || tag.flaws & Flaw.SelfClosing) {
      // A prefix-less invoke or block closer ends the call only by the closer rule, as the walk reads
      // it (walk.ts closerInValue); any other plain tag is the value's text (`</name>`, `<a>`).
      if (!tag.closing || this.plainDepth > 0 || (tag.role !== "invoke" && tag.role !== "block")) return true;
      this.step = "end-call";
      return false;
    }
    if (!tag.closing) {
      this.plainDepth++;
      return true;
    }
    if (this.plainDepth > 0) {
      this.plainDepth--;
      return true;
    }
    // Only a prefix-less `</parameter>` is the value's mis-closed closer (M07).
    this.open = false;
    this.valueClosed = true;
    return false;
  }
}
