import { isBarCode, isTriggerCode } from "../grammar/markers.ts";
import { asLostLtCloser, Flaw, NEED_MORE, readTag, type Tag, type TagFamily } from "../grammar/tags.ts";
import { SPAN_KINDS } from "../parse/span.ts";
import type { Root, SpanKind, SpanReader, Step } from "../parse/span-kind.ts";
import { HAND_OFF, isSpaceCode, type CharState } from "../parse/char-form.ts";
import { NamedState } from "../parse/named.ts";
import { closerRule, closerWasContent, ExampleInValue, exampleOpener, isDsmlCallCloser, MORE_CLOSER_LINES, PlainRunInValue, toolNamedValueRule, type CloserRule, type ExampleOptions } from "../parse/closer-in-value.ts";
import type { HeldText } from "./held-text.ts";
import { CR, LF, SLASH, SP, TAB } from "../grammar/chars.ts";
import type { ToolSpec } from "../parse/types.ts";
import { dsmlValueName, dsmlValueStep, type DsmlValueStep } from "../parse/dsml-value.ts";
import { mayNameTool, opensToolElement, writtenName } from "../parse/tool-element-name.ts";

export type { Root, Step };

const MORE: Step = { kind: "more" };
/** P01 in a DSML span: a parameter closer coming next proves the invoke closer was in the value. */
const DSML_VALUE = closerRule("dsml");
/** The same for an unprefixed value (Claude-style, MiniMax, Qwen3-Coder): a `</parameter>` next proves the closer was in it. */
const NAKED_VALUE = closerRule("naked");

/**
 * A held span that has opened as a real candidate. It scans only text it has not seen, keeps at
 * most one undecided tag as carry, and reports the exact offset where the span ends (or proves
 * not to be markup). Offsets are absolute within the response.
 */
export class Candidate implements SpanReader {
  length = 0;
  /** The root's boundary rules, looked up once: the loop below dispatches per tag and per decision, never per character of a body. */
  private readonly kind: SpanKind<unknown>;
  /** The kind's own state for this span (SpanKind.body), handed back to its rules. */
  private readonly body: unknown;
  private scanCarry = "";
  private scanFrom: number;
  private seenContent = false;
  /**
   * Inside a block (or legacy section), each call is its own candidate: after a unit's closer the
   * span takes the whitespace that follows and ends at the next thing written, so a call is emitted
   * as soon as its own boundary is known and the layout between calls belongs to the calls.
   */
  private trailing = false;
  /** Where a trailing span ends unless a wrapper closer comes next (takeCloser), or -1: it takes the layout too. */
  private trailBack = -1;
  /**
   * A closer that may be content (SpanReader.tentatively): its rule, whether a line ended since,
   * and what reading it as content restores (endsInBlock before the closer; for a DSML value, that
   * the value is still open). Null otherwise.
   */
  private pending: { rule: CloserRule; lineEnded: boolean; endsInBlock: boolean; inValue: boolean; plainValue: boolean; more: number } | null = null;
  /** endsInBlock and inValue as they were before the tag being read. */
  private before_endsInBlock = false;
  private before_inValue = false;
  /** A plain parameter (M07.5) was open before the tag being read: the walk weighs a closer in it by the unprefixed value's closer rule. */
  private before_plainValue = false;
  /**
   * Review finding 2: an example written inside an open value (parse/closer-in-value.ts
   * ExampleInValue, or a DSML value's plain markup, PlainRunInValue), read on while it may be the
   * value's text: its tags change nothing else. Proved no example, the text from its opener is read
   * again as before (rewindTo), and none starts before the tag that proved it (noExampleBefore; a
   * plain run once per value), so each character is read a bounded number of times.
   */
  private example: ExampleInValue | PlainRunInValue | null = null;
  private exampleStart = -1;
  // The open DSML value's plain markup was read as a run once already.
  private plainRunTried = false;
  private rewindTo = -1;
  /** An example read after a closer that ended its line in a value (exampleAfterCloser): where the span ends if it proves none. */
  private closerFallback: { end: number; endsInBlock: boolean } | null = null;
  private noExampleBefore = 0;
  /** Where a prefix-less closer held after an example starts (ExampleInValue.heldCloser). */
  private heldCloserAt = -1;
  /** The closer rule for a value inside a kind with its own wrapper closer (`</tool_call>`), made on first use. */
  private wrappedValue: CloserRule | null = null;
  /** The character before the text the next consume() scans: a lost `<` closer's `/` may end a piece. */
  private before = 0;
  /** The span ended inside a still-open block or section: the next invoke (or call) belongs to it. */
  endsInBlock = false;
  private depth = 1;
  /** Char-level forms (I10 named call, O06 Mistral, the start of a `<tool_call>` body) that are JSON or names rather than tags. */
  named: CharState | null = null;
  /** DSML: inside a sentinel parameter's value, and how deep the plain tags written in it nest. */
  private inValue = false;
  private plainDepth = 0;
  /** DSML: what the tag being read did to the value (parse/dsml-value.ts), the open value's name, the I11 element's tool (lower case) or null, and whether a unit opened in a block span. */
  private valueStep: DsmlValueStep = "text";
  private valueName = "";
  private toolName: string | null;
  private unitSeen = false;
  private childRule: CloserRule | null = null;
  private childRuleName = "";
  /** A sentinel tag being read names a declared tool (an I11 example's opener, golden A45.3, E45.8). */
  private readonly declared = (tag: Tag): boolean => this.tools.has(writtenName(this.tagText, tag));
  /** DSML: text was written in the open invoke's body, outside every value (the walk's InvokeDraft.body). */
  private bodyText = false;
  /** DSML: a value of the open invoke has closed (an example after it that the call's own closers end is held too, as after body text). */
  private valueClosed = false;
  private plainValue = false;
  /** Quoted blocks (quoteIndent > 0): the last offset looked at, the current line's column and blankness, the line before. */
  private quoteSeen = -1;
  private quoteCol = 0;
  private quoteLineBlank = false;
  private quoteBlankBefore = false;
  /** The character looked at before was a CR: an LF now completes its CR LF, no second line end. */
  private quoteCr = false;
  /** The text the tag being read sits in, and its absolute offset (startsLine reads back in it first). */
  private tagText = "";
  private tagBase = 0;

  constructor(
    /** The engine's held text, where this candidate's span is read back from (the engine stores it). */
    private readonly held: HeldText,
    /** The tools a call may name, with aliases (the parser's SpanContext.tools). */
    readonly tools: ReadonlyMap<string, ToolSpec>,
    readonly start: number,
    readonly opener: Tag,
    readonly root: Root,
    /** The block opener (or true for a legacy section) this candidate continues, if any. */
    readonly enclosing: Tag | true | null = null,
    /** The opener's indentation when it opened an indented line (DocContext.quoteIndent); 0 otherwise. */
    private readonly quoteIndent = 0,
  ) {
    this.scanFrom = start + opener.end;
    this.toolName = root === "tool-element" ? opener.name : null;
    this.kind = SPAN_KINDS[root];
    this.body = this.kind.body?.(this);
    this.named = this.kind.charForm?.(opener, start + opener.end, this.body) ?? null;
  }

  get end(): number {
    return this.start + this.length;
  }

  text(): string {
    return this.held.slice(this.start, this.end);
  }

  /** The buffered text from absolute offset `at` to the end (short: at most one tag plus a chunk). */
  textFrom(at: number): string {
    return this.held.slice(at, this.end);
  }

  /** At the end of the stream: a named call whose closing fence was the last thing written is complete. */
  completesAtEnd(): boolean {
    return this.trailing || (this.named?.completesAtEnd() ?? false);
  }

  /** `text` starts at absolute offset this.end. */
  consume(text: string, final: boolean): Step {
    const textStart = this.end;
    this.length += text.length;
    const skip = Math.max(0, this.scanFrom - textStart);
    let s = this.scanCarry + (skip > 0 ? text.slice(skip) : text);
    let base = this.scanCarry ? this.scanFrom : Math.max(this.scanFrom, textStart);
    this.scanCarry = "";
    let i = 0;
    for (;;) {
      // An example that failed on the text's last tag is read again before the text ends.
      if (this.rewindTo < 0 && i >= s.length) {
        // The reply ended while a char-level state held characters undecided (a MiniMax quote that never closed): it reads them now.
        const held = final ? (this.named?.atEnd?.() ?? null) : null;
        if (held) return held;
        // The reply ended after closers held for an example that never came (closerAfterCloser): the span ends where they ended it.
        if (final && this.pending && this.pending.more > 0 && !this.example) return { kind: "complete", end: this.trailBack };
        // The reply ended inside an example written in a value: it proved nothing, read it again as before.
        if (!final || !this.example) break;
        const ended = this.failExample(Infinity);
        if (ended) return ended;
      }
      if (this.rewindTo >= 0) {
        const from = this.rewindTo;
        this.rewindTo = -1;
        if (from > this.start) this.before = this.held.slice(from - 1, from).charCodeAt(0);
        // Back within the text at hand: no copy (a long delta holds many examples). Back into an
        // earlier delta: its text joins once, and every later rewind falls within it.
        if (from >= base) i = from - base;
        else {
          s = this.held.slice(from, base) + s;
          base = from;
          i = 0;
        }
        continue;
      }
        const c = s.charCodeAt(i);
        // A closer whose `<` was lost starts at its `/` (issue 29 item 11): the bar after it decides.
        if (this.trailing && c === SLASH && this.opener.family === "dsml") {
          if (i + 1 === s.length && !final) {
            this.scanCarry = s.slice(i);
            this.scanFrom = base + i;
            return MORE;
          }
          if (i + 1 < s.length && isBarCode(s.charCodeAt(i + 1))) {
            i++;
            continue;
          }
        }
        if (this.trailing && !isTriggerCode(c)) {
          // Whatever comes next (the next invoke, prose) is no longer this call; a closer is read first.
          if (isSpaceCode(c)) {
            if ((c === LF || c === CR) && this.pending) {
              // A costume's closer that ends its line ends the span; nothing later can change that.
              if (this.pending.rule.valueCloser === null) return { kind: "complete", end: this.trailBack };
              this.pending.lineEnded = true;
            }
            i++;
            continue;
          }
          if (!this.pending || !closerWasContent(this.pending.rule, null, this.pending.lineEnded)) return { kind: "complete", end: this.trailBack >= 0 ? this.trailBack : base + i };
          // Text on the closer's own line: the closer was the value's text (review finding 3).
          this.resume();
        }
        if (this.quoteIndent > 0 && this.quoteEnds(c, base + i)) return { kind: "abandon", at: base + i };
        if (this.named) {
          const step = this.named.step(c, base + i);
          if (step !== HAND_OFF) {
            if (step) return step;
            i++;
            continue;
          }
          this.named = null;
        }
        if (isTriggerCode(c)) {
          const read = readTag(s, i, final);
          if (read === NEED_MORE || (read === null && final && this.cutOffTag(s, i))) {
            this.scanCarry = s.slice(i);
            this.scanFrom = base + i;
            this.before = i > 0 ? s.charCodeAt(i - 1) : this.before;
            return MORE;
          }
          if (read !== null) {
            const r = asLostLtCloser(read, i > 0 ? s.charCodeAt(i - 1) : this.before);
            this.tagText = s;
            this.tagBase = base;
            const step = this.onTag(r, base);
            if (step) return step;
            i = r.end;
            continue;
          }
        }
        // A closer inside an example's own value waits for the next character (ExampleInValue.char).
        const waited = this.example?.awaitsChar ? this.example.char(c) : null;
        if (waited === "fail") {
          const ended = this.failExample(base + i);
          if (ended) return ended;
          continue;
        }
        // A held prefix-less closer ended its line: it is the value's closer, read again from it (heldCloserAt).
        if (waited === "content") {
          this.contentAtHeld();
          continue;
        }
        if (!isSpaceCode(c)) {
          const step = this.onContent(c, base + i);
          if (step) return step;
          if (this.named) continue;
        }
        i++;
    }
    this.scanFrom = base + s.length;
    if (s.length > 0) this.before = s.charCodeAt(s.length - 1);
    return MORE;
  }

  /**
   * Nudges (issue 29): the reply ended inside a tag that more text could still have completed
   * (`<{D}invoke name=`, `<invoke name="bash"`, `</tool_ca`). That is a call cut off, not prose:
   * the span ends here and is read as truncated (a nudge in every dialect) instead of this `<`
   * proving a mention and the whole span passing through silently. A trailing span (a call
   * already complete) keeps its own end.
   */
  private cutOffTag(s: string, i: number): boolean {
    return !this.trailing && readTag(s, i, false) === NEED_MORE;
  }

  /**
   * A block quoted with an indent (a bug report pasting a leak between paragraphs) ends at a blank
   * line followed by a line indented less than its opener: what follows is the writer's prose, so
   * the markup never completes from a closer or an invoke the prose happens to write. The quote
   * becomes text and the rest is scanned again. Each offset is looked at once (a re-read carry is skipped).
   */
  private quoteEnds(c: number, at: number): boolean {
    if (at <= this.quoteSeen) return false;
    this.quoteSeen = at;
    // A line ends at LF, CR LF or a lone CR (CommonMark; review 46 finding 3).
    const crlf = c === LF && this.quoteCr;
    this.quoteCr = c === CR;
    if (crlf) return false;
    if (c === LF || c === CR) {
      this.quoteBlankBefore = this.quoteLineBlank;
      this.quoteLineBlank = true;
      this.quoteCol = 0;
      return false;
    }
    if (!this.quoteLineBlank) return false;
    if (c === SP) this.quoteCol++;
    else if (c === TAB) this.quoteCol = (this.quoteCol & ~3) + 4;
    else {
      this.quoteLineBlank = false;
      return this.quoteBlankBefore && this.quoteCol < this.quoteIndent;
    }
    return false;
  }

  private onContent(c: number, at: number): Step | null {
    if (this.trailing) {
      if (!this.pending || !closerWasContent(this.pending.rule, null, this.pending.lineEnded)) return { kind: "complete", end: this.trailBack >= 0 ? this.trailBack : at };
      this.resume();
    }
    const first = !this.seenContent;
    this.seenContent = true;
    if (!this.inValue && !this.plainValue) this.bodyText = true;
    return first || this.kind.watchesContent ? this.kind.content(this, c, at, first, this.body) : null;
  }

  private onTag(tag: Tag, base: number): Step | null {
    const end = base + tag.end;
    // In an I11 value a sentinel tag that may name a child is the element's (`</{D}callback>` ends the child), never a block's closer, as the walk reads it.
    const closesBlock =
      ((tag.closing && tag.role === "block" && tag.family !== "costume") || (this.kind.closesWrapper?.(tag) ?? false)) &&
      !(this.inValue && this.toolName !== null && tag.family === "dsml" && mayNameTool(tag));
    if (this.pending && closerWasContent(this.pending.rule, tag, this.pending.lineEnded)) this.resume();
    else if (this.pending && this.exampleAfterCloser(tag, base)) return null;
    else if (this.pending && this.closerAfterCloser(tag, base, closesBlock)) return null;
    if (this.trailing) {
      // A costume's closer ends its span where it stands, whatever comes next.
      if (this.pending?.rule.valueCloser === null) return { kind: "complete", end: this.trailBack };
      // The block's own closer ends it together with this call; any other tag starts what comes next.
      if (closesBlock || tag.legacy === "section-end") {
        this.endsInBlock = false;
        return { kind: "complete", end };
      }
      return { kind: "complete", end: this.trailBack >= 0 ? this.trailBack : base + tag.start };
    }
    if (this.example) {
      const verdict = this.example.step(tag);
      if (verdict === null) {
        if (this.example.heldCloser) this.heldCloserAt = base + tag.start;
        return null;
      }
      // Content at a held prefix-less closer (a tag came right after it): read again from that closer.
      if (verdict === "content" && this.example.contentAtHeld) return this.contentAtHeld();
      this.example = null;
      if (verdict === "content") this.closerFallback = null;
      // Not an example: the restart rule and every other rule read it again from its opener.
      if (verdict === "fail") return this.failExample(base + tag.start);
      // "content": this tag is the value's own parameter closer, read below as always.
    } else {
      const family = this.exampleFamily();
      if (family !== null && base + tag.start >= this.noExampleBefore && exampleOpener(tag, family, this.declared)) {
        const options = this.valueOptions();
        this.example = new ExampleInValue(tag, family, !this.kind.valueFamily, family === "naked" && this.opener.family === "dsml" && this.plainValue ? { ...options, dsmlCloses: true } : options);
        this.exampleStart = base + tag.start;
        return null;
      }
      // Golden A45.4, E45.10: an example after text in a DSML invoke's body (a value ended mid-line by
      // its sentinel closer, the call refused) that the call's own closers end was that text too;
      // the same after a value of the invoke closed cleanly (restart follow-up, case 3: the walk's exampleInBody).
      if (family === null && (this.bodyText || this.valueClosed) && this.opener.family === "dsml" && base + tag.start >= this.noExampleBefore && exampleOpener(tag, "dsml")) {
        this.example = new ExampleInValue(tag, "dsml", true);
        this.exampleStart = base + tag.start;
        return null;
      }
      if (family === "dsml" && tag.family === "naked" && !this.plainRunTried) {
        this.plainRunTried = true;
        this.example = new PlainRunInValue(tag, this.valueOptions());
        this.exampleStart = base + tag.start;
        return null;
      }
    }
    this.before_endsInBlock = this.endsInBlock;
    this.before_inValue = this.inValue;
    this.before_plainValue = this.opener.family === "dsml" && this.plainValue && !this.inValue;
    if (this.opener.family === "dsml" && this.plainInValue(tag)) return null;
    // A plain parameter opened outside a sentinel value (M07.5) holds a value, not body text, until a parameter closer or a DSML tag.
    if (this.opener.family === "dsml") this.plainValue = tag.family === "naked" && tag.role === "parameter" ? !tag.closing && !(tag.flaws & Flaw.SelfClosing) : tag.family === "dsml" ? false : this.plainValue;
    if (this.opener.family === "naked") this.nakedInValue(tag);
    // A block's or wrapper's closer written inside an open value ends it only by the closer rule
    // (review finding 1): text after it on its line makes it the value's text, which must then reach
    // its own parameter closer (the parsers refuse the call otherwise).
    // In a DSML span the value's rule says whether it is one (an I11 child named `callback` is no block, finding 14).
    // A plain parameter's value (M07.5) too, by the unprefixed value's rule, as the walk's closerInValue weighs it.
    if (closesBlock && (this.valueOpen() || this.before_plainValue) && (this.opener.family !== "dsml" || this.valueStep === "end-call")) {
      this.endsInBlock = false;
      return this.tentatively(this.before_plainValue ? NAKED_VALUE : this.opener.family === "dsml" ? this.dsmlRule() : this.kind.closesWrapper ? (this.wrappedValue ??= closerRule("naked", this.kind.closesWrapper)) : NAKED_VALUE, end);
    }
    const first = !this.seenContent;
    this.seenContent = !first || !(this.kind.leavesFirst?.(this, tag, this.body) ?? false);
    const step = this.kind.tag(this, tag, base, first, closesBlock, this.body);
    // DSML: an invoke closer while a value is open ends it only by P01's rule, if at all (finding 3).
    // The same for a prefix-less invoke closer in a DSML value, and for the I11 tool's own closer (golden A45.1-A45.3, E45.5-E45.7).
    const endsCall = this.opener.family === "dsml" ? this.valueStep === "end-call" : tag.family === "dsml" && tag.closing && tag.role === "invoke";
    if (step === null && (this.before_inValue || this.before_plainValue) && endsCall) {
      if (this.trailing) {
        if (!this.pending) this.tentatively(this.before_plainValue ? NAKED_VALUE : this.dsmlRule());
      } else if (this.before_plainValue) this.plainValue = true;
      else this.inValue = true; // The kind read on (an I11 element's closer in a block span): the value stays open, as the walk's closer rule may read it.
    }
    return step;
  }

  /**
   * Golden A45.5, E45.11: a DSML invoke or block closer that ended its line inside an open value
   * ends it (P01) unless a call example comes next and the value's own closer ends it (closer-in-
   * value.ts closerEndsCall, the walk's rule): the closer and the example were the value's text (a
   * page documenting both). The example is read on with the closer taken as text; proved no
   * example, the span ends where the closer ended it (closerFallback).
   */
  private exampleAfterCloser(tag: Tag, base: number): boolean {
    const p = this.pending!;
    if (!p.lineEnded || p.rule.valueCloser !== "dsml" || !p.inValue || this.example || base + tag.start < this.noExampleBefore || !exampleOpener(tag, "dsml", this.declared)) return false;
    this.closerFallback = { end: this.trailBack >= 0 ? this.trailBack : base + tag.start, endsInBlock: this.endsInBlock };
    this.resume();
    // With the value's I11 reading (an I11 example, an I11 child's own closer), as the walk's closerEndsCall.
    this.example = new ExampleInValue(tag, "dsml", true, { declared: this.declared, valueName: this.toolName !== null ? this.valueName : undefined, single: true });
    this.exampleStart = base + tag.start;
    return true;
  }

  /**
   * Golden A45.8: further DSML invoke or block closers (at most
   * MORE_CLOSER_LINES) after a closer that ended its line in an open value, before an example:
   * held with it, as the walk's closerEndsCall skips them. The span's end is where this closer
   * would have ended the trailing span (trailBack, endsInBlock), so a reply that shows no example
   * after them ends exactly as before.
   */
  private closerAfterCloser(tag: Tag, base: number, closesBlock: boolean): boolean {
    const p = this.pending!;
    if (!p.lineEnded || p.rule.valueCloser !== "dsml" || !p.inValue || this.example || p.more >= MORE_CLOSER_LINES || !isDsmlCallCloser(tag)) return false;
    p.more++;
    if (closesBlock) {
      this.trailBack = base + tag.end;
      this.endsInBlock = false;
    } else if (this.trailBack < 0) this.trailBack = base + tag.start;
    return true;
  }

  /**
   * Restart follow-up: after an example in a DSML value, a prefix-less parameter closer that ended
   * its line (or met a tag) is the value's closer after all (ExampleInValue.heldCloser): the example
   * was the value's text, and reading goes on from that closer as when it is met directly.
   */
  private contentAtHeld(): null {
    this.example = null;
    this.closerFallback = null;
    this.rewindTo = this.heldCloserAt;
    // As when an example ends at its closer directly (and the walk's run()): no plain run starts at it.
    this.plainRunTried = true;
    return null;
  }

  private failExample(at: number): Step | null {
    const fallback = this.closerFallback;
    if (fallback) {
      // The closer before the example ended the value after all (P01): the span ends there.
      this.example = null;
      this.closerFallback = null;
      this.endsInBlock = fallback.endsInBlock;
      return { kind: "complete", end: fallback.end };
    }
    this.example = null;
    this.rewindTo = this.exampleStart;
    this.noExampleBefore = Math.max(this.noExampleBefore, at);
    return null;
  }

  /** How an example or plain run in the open value reads I11 tags (closer-in-value.ts ExampleOptions): made once per example, never per character. */
  private valueOptions(): ExampleOptions {
    return { declared: this.declared, valueName: this.toolName !== null && this.inValue ? this.valueName : undefined };
  }

  // The family of the value open before the tag being read (SpanKind.valueFamily, or inValue's), or null.
  private exampleFamily(): TagFamily | null {
    if (this.kind.valueFamily) return this.kind.valueFamily(this, this.body);
    // An unprefixed parameter opened outside a sentinel value (M07.5): its value, which a DSML closer ends too (ExampleOptions.dsmlCloses).
    if (!this.inValue) return this.opener.family === "dsml" && this.plainValue ? "naked" : null;
    return this.opener.family === "dsml" || this.opener.family === "naked" ? this.opener.family : null;
  }

  tentatively(rule: CloserRule, end?: number): null {
    if (end !== undefined) {
      this.trailing = true;
      this.trailBack = end;
    }
    this.pending = { rule, lineEnded: false, endsInBlock: this.before_endsInBlock, inValue: this.before_inValue, plainValue: this.before_plainValue, more: 0 };
    return null;
  }

  /** The tentative closer was the value's text: reading goes on inside the value. */
  private resume(): void {
    const p = this.pending!;
    this.pending = null;
    this.trailing = false;
    this.trailBack = -1;
    this.endsInBlock = p.endsInBlock;
    if (p.rule.valueCloser !== null) {
      this.inValue = p.inValue;
      // A plain parameter's value (M07.5) read on: still open, as the walk keeps it.
      if (p.plainValue) this.plainValue = true;
    }
  }

  /** The closer rule for the open DSML value: an I11 child's own closer coming next proves a closer was in it too (made once per value). */
  private dsmlRule(): CloserRule {
    if (this.toolName === null) return DSML_VALUE;
    if (this.childRule === null || this.childRuleName !== this.valueName) {
      this.childRule = toolNamedValueRule(this.valueName);
      this.childRuleName = this.valueName;
    }
    return this.childRule;
  }

  /** A parameter's value is open (before the tag being read): DSML's or an unprefixed one's, or Qwen3-Coder's (nest depth 2). */
  valueOpen(): boolean {
    return this.before_inValue || ((this.root === "tool-call" || this.root === "qwen-function") && this.depth === 2);
  }

  dsmlStep(): DsmlValueStep {
    return this.valueStep;
  }

  /** Unprefixed markup (Claude-style, MiniMax): a parameter opener opens a value, its closer or an invoke tag ends it. */
  private nakedInValue(tag: Tag): void {
    if (tag.family !== "naked") return;
    if (tag.role === "parameter") this.inValue = !tag.closing && !(tag.flaws & Flaw.SelfClosing);
    else if (tag.role === "invoke") this.inValue = false;
  }

  startsLine(at: number): boolean {
    // Back through the text at hand (after a rewind it holds everything read again), then the held text.
    let k = at - this.tagBase;
    for (; k > 0; k--) {
      const c = this.tagText.charCodeAt(k - 1);
      if (c === LF || c === CR) return true;
      if (c !== SP && c !== TAB) return false;
    }
    for (let to = Math.min(at, this.tagBase); to > this.start; ) {
      const from = Math.max(this.start, to - 64);
      const piece = this.held.slice(from, to);
      for (let j = piece.length - 1; j >= 0; j--) {
        const c = piece.charCodeAt(j);
        if (c === LF || c === CR) return true;
        if (c !== SP && c !== TAB) return false;
      }
      to = from;
    }
    return false;
  }

  nest(delta: number): number {
    this.depth += delta;
    return this.depth;
  }

  readNamedCall(at: number): void {
    this.named = new NamedState(at);
  }

  /**
   * Plain tags that nest inside a sentinel parameter's value (an XML file being written) are its
   * content, not the call's closers; a plain closer that matches none of them still ends the value
   * as the model's mis-closed parameter (M07).
   */
  private plainInValue(tag: Tag): boolean {
    this.valueStep = "text";
    if (tag.family === "dsml") {
      // Golden A45.1-A45.3: the walk's own rule (parse/dsml-value.ts) decides whether a sentinel
      // tag opens or ends a value; one that is no structure (`<{D}thinking>`, `</{D}bash>`, a
      // self-closing parameter) leaves it open, so the closer rule still weighs a later closer.
      if (this.toolName === null && this.root === "block" && !this.unitSeen && opensToolElement(tag) && this.tools.has(writtenName(this.tagText, tag))) {
        this.toolName = tag.name;
        this.unitSeen = true;
        return false;
      }
      if (tag.role === "invoke" || tag.role === "parameter") this.unitSeen = true;
      const step = dsmlValueStep(tag, this.inValue, this.toolName, this.inValue ? this.valueName : "");
      this.valueStep = step;
      // The element ended outside any value (a block span reads on to the next unit), or an invoke
      // started (the walk reads the rest as one): no longer the tool-named form.
      if (step === "next") this.toolName = null;
      else if (step === "end-call" && !this.inValue && this.root === "block" && tag.name === this.toolName) {
        this.toolName = null;
        this.unitSeen = false;
      }
      // A new invoke or block leaves the old invoke's body (golden A45.4, E45.10; the walk's InvokeDraft.body);
      // one an open value keeps as its text (dsml-value.ts) leaves it as it was.
      if ((tag.role === "invoke" || tag.role === "block") && !(step === "text" && this.inValue)) this.bodyText = this.valueClosed = false;
      if (step === "close" && this.inValue) this.valueClosed = true;
      // Each sentinel tag re-arms the plain run, as the walk's runTried (walk.ts run).
      this.plainRunTried = false;
      if (step === "text") return false;
      this.inValue = step === "open";
      // The name stays after an end: a closer read as the value's text (resume) reopens the same value.
      if (step === "open") this.valueName = dsmlValueName(tag);
      this.plainDepth = 0;
      return false;
    }
    if (!this.inValue || tag.family !== "naked") return false;
    if (tag.role !== "parameter" || tag.flaws & Flaw.SelfClosing) {
      // A prefix-less invoke or block closer ends the call only by the closer rule, as the walk reads
      // it (walk.ts closerInValue); any other plain tag is the value's text (`</name>`, `<a>`).
      if (!tag.closing || this.plainDepth > 0 || (tag.role !== "invoke" && tag.role !== "block")) return true;
      this.valueStep = "end-call";
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
    this.inValue = false;
    this.valueClosed = true;
    return false;
  }

  trail(): null {
    this.trailing = true;
    this.endsInBlock = true;
    return null;
  }

  restart(at: number): Step {
    this.endsInBlock = this.root === "block" || this.enclosing !== null;
    return { kind: "complete", end: at };
  }

  takeCloser(end: number): null {
    this.trailBack = end;
    return this.trail();
  }
}
