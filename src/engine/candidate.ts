import { isBarCode, isTriggerCode } from "../grammar/markers.ts";
import { asLostLtCloser, NEED_MORE, readTag, type Tag, type TagFamily } from "../grammar/tags.ts";
import { SPAN_KINDS } from "../parse/span.ts";
import type { Root, SpanKind, SpanReader, Step } from "../parse/span-kind.ts";
import { HAND_OFF, isSpaceCode, type CharState } from "../parse/char-form.ts";
import { NamedState } from "../parse/named.ts";
import { closerRule, type CloserRule } from "../parse/closer-in-value.ts";
import { EXAMPLES_AFTER_CLOSER, ExampleInValue, anyExampleOpener, exampleOpener, type ExampleOptions } from "../parse/example-in-value.ts";
import { PlainRunInValue } from "../parse/plain-run-in-value.ts";
import type { HeldText } from "./held-text.ts";
import { CR, LF, LT, SLASH, SP, TAB } from "../grammar/chars.ts";
import { isLineStartCostume, isWrapperName } from "../grammar/dialects.ts";
import type { ToolSpec } from "../parse/types.ts";
import type { Shape } from "../grammar/shapes.ts";
import type { DsmlValueStep } from "../parse/dsml-value.ts";
import { mayNameTool, writtenName } from "../parse/tool-element-name.ts";
import { CallRun } from "./call-run.ts";
import { isStrayParameter } from "../parse/stray-value-closer.ts";
import { HeldExample, type ExampleSettled } from "./held-example.ts";
import { QuotedBlockEnd } from "./quoted-block-end.ts";
import { inlineElementEnd, TentativeCloser } from "./tentative-closer.ts";
import { ValueTracker } from "./value-tracker.ts";

export type { Step };

const MORE: Step = { kind: "more" };
/** P01 in an unprefixed value (Claude-style, MiniMax, Qwen3-Coder): a `</parameter>` next proves the closer was in it. */
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
  /** Review 48b: the spaces and tabs before the opener on its line (text mode sets it), null when other text stands there. */
  openerIndent: string | null = null;
  /** Review 48b: where its opener stood (SpanContext.openerPlace); text mode sets it. */
  openerPlace: "line-start" | "paragraph" | "inline" | undefined = undefined;
  /**
   * Review 48b: a costume opened right at the start of the line after a paragraph costume's closer
   * line (two costumes shown in one running sentence): its body is skipped up to its own closer
   * ending a line, and the line after that decides for both. Null otherwise.
   */
  private chain: { name: string; closed: boolean } | null = null;
  /** After a unit's closer: the span trails, and a closer that may be content waits for what comes next (tentative-closer.ts). */
  private readonly tentative: TentativeCloser;
  /** endsInBlock as it was before the tag being read (the values' own: ValueTracker.openBefore, plainBefore). */
  private before_endsInBlock = false;
  /** An example written inside an open value, read on while it may be the value's text (held-example.ts). */
  private readonly example = new HeldExample();
  /** Golden A46.1-A46.3: what follows the complete DSML call, read before its span ends (call-run.ts); null otherwise. */
  private run: CallRun | null = null;
  /** Off after markup of unknown end (the engine's overflowed state): no call runs there, so none is read on (call-run.ts). */
  weighsRun = true;
  /** Where the scan reads again from (an example settled), or -1. */
  private rewindTo = -1;
  /** The closer rule for a value inside a kind with its own wrapper closer (`</tool_call>`), made on first use. */
  private wrappedValue: CloserRule | null = null;
  /** The character before the text the next consume() scans: a lost `<` closer's `/` may end a piece. */
  private before = 0;
  /** The span ended inside a still-open block or section: the next invoke (or call) belongs to it. */
  endsInBlock = false;
  /** The span took a block's closer after its call (an orphan invoke's too): the block the stray-parameter rule watches is over (TextMode.strayBlock). */
  closedBlock = false;
  /** Parameter nesting (nest): 1 is the opener's own. */
  private depth = 1;
  /** Char-level forms (I10 named call, O06 Mistral, the start of a `<tool_call>` body) that are JSON or names rather than tags. */
  named: CharState | null = null;
  /** The values open in a DSML or unprefixed span (value-tracker.ts); other kinds keep their own (SpanKind.valueFamily). */
  private readonly values: ValueTracker;
  /** A sentinel tag being read names a declared tool (an I11 example's opener, golden A45.3, E45.8). */
  private readonly declared = (tag: Tag): boolean => this.tools.has(writtenName(this.tagText, tag));
  /** Where an indented (quoted) block gives way to the writer's prose; null when the opener was not indented. */
  private readonly quote: QuotedBlockEnd | null;
  /** The text the tag being read sits in, and its absolute offset (startsLine reads back in it first, HeldText.startsLine). */
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
    quoteIndent = 0,
    /** The opener stands at the start of its line (DocContext.atLineStart), not in a running sentence. */
    readonly opensLine = false,
  ) {
    this.scanFrom = start + opener.end;
    this.quote = quoteIndent > 0 ? new QuotedBlockEnd(quoteIndent) : null;
    this.values = new ValueTracker(opener.family, root, this.declared, root === "tool-element" ? opener.name : null);
    this.tentative = new TentativeCloser(this.values);
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
    return this.tentative.trailing || (this.named?.completesAtEnd() ?? false);
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
        // The reply ended after closers held for an example that never came (TentativeCloser.closerAfterCloser): the span ends where they ended it.
        if (final && this.tentative.heldMore() && !this.example.reading) return { kind: "complete", end: this.tentative.trailBack };
        // The reply ended after a paragraph costume's closer line (review 48): it ended at its closer.
        if (final && this.tentative.nextLineOfParagraph()) return { kind: "complete", end: this.tentative.trailBack };
        // The reply ended in the run after a complete call (call-run.ts): a stray closer last refuses it; after only spaces the span ends as before.
        const runEnd = final ? (this.run?.end() ?? null) : null;
        if (runEnd !== null) return this.endRun(runEnd);
        // The reply ended inside an example written in a value: it proved nothing, read it again as before.
        if (!final || !this.example.reading) break;
        const ended = this.settle(this.example.fail(Infinity));
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
      if (this.chain !== null) {
        const next = this.chainChar(s, i, base, final);
        if (next === MORE) {
          this.scanCarry = s.slice(i);
          this.scanFrom = base + i;
          return MORE;
        }
        if (typeof next === "object") return next;
        i = next;
        continue;
      }
      // A closer whose `<` was lost starts at its `/` (issue 29 item 11): the bar after it decides.
      if (this.tentative.trailing && c === SLASH && this.opener.family === "dsml") {
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
      if (this.run && !isTriggerCode(c)) {
        const runEnd = this.run.char(c, base + i);
        if (runEnd !== null) return this.endRun(runEnd);
        i++;
        continue;
      }
      if (this.tentative.trailing && !isTriggerCode(c)) {
        // Whatever comes next (the next invoke, prose) is no longer this call; a closer is read first.
        if (isSpaceCode(c)) {
          // A costume's closer that ends its line ends the span; nothing later can change that.
          if ((c === LF || c === CR) && this.tentative.lineEnds(c, base + i)) return { kind: "complete", end: this.tentative.trailBack };
          if (this.tentative.nextLineOfParagraph()) this.tentative.sentenceSpace();
          i++;
          continue;
        }
        if (this.tentative.nextLineOfParagraph()) {
          // Review 48: the sentence runs on (lower case, after `(`, `*`, a quote or a comma too) on the line after a paragraph costume's closer line: the costume was shown in it, text.
          const goesOn = this.tentative.sentenceGoesOn(c);
          if (goesOn === null) {
            i++;
            continue;
          }
          if (goesOn) return { kind: "abandon", at: base + i };
          return { kind: "complete", end: this.tentative.trailBack };
        }
        const ended = this.contentAfterCloser(base + i);
        if (ended) return ended;
      }
      if (c === LT && this.tentative.trailing && this.tentative.nextLineOfParagraph()) {
        // Diff review 48: an inline element opening the line after a paragraph costume's closer line is looked past: the first letter after it decides.
        const end = inlineElementEnd(s, i, final);
        if (end === NEED_MORE) {
          this.scanCarry = s.slice(i);
          this.scanFrom = base + i;
          return MORE;
        }
        if (end >= 0) {
          i = end;
          continue;
        }
      }
      if (this.quote?.endsAt(c, base + i)) return { kind: "abandon", at: base + i };
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
      // A closer inside an example's own value waits for the next character (HeldExample.char).
      const settled = this.example.char(c, base + i);
      if (settled) {
        const ended = this.settle(settled);
        if (ended) return ended;
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
    return !this.tentative.trailing && readTag(s, i, false) === NEED_MORE;
  }

  /** The first thing written after a trailing span's closer, at `at`, ends the span, unless it is text on the closer's own line: the closer was the value's text (parse/closer-in-value.ts). */
  private contentAfterCloser(at: number): Step | null {
    if (!this.tentative.wasContent(null)) return { kind: "complete", end: this.tentative.endAt(at) };
    this.endsInBlock = this.tentative.resume();
    return null;
  }

  private onContent(c: number, at: number): Step | null {
    if (this.run) {
      const runEnd = this.run.char(c, at);
      return runEnd === null ? null : this.endRun(runEnd);
    }
    if (this.tentative.trailing) {
      const ended = this.contentAfterCloser(at);
      if (ended) return ended;
    }
    const first = !this.seenContent;
    this.seenContent = true;
    this.values.content();
    return first || this.kind.watchesContent ? this.kind.content(this, c, at, first, this.body) : null;
  }

  /**
   * Review 48b: one character of a costume chained after a paragraph costume (chain): its body is
   * skipped; its closer, then only spaces to the line's end, hands the next line back to the
   * paragraph costume's rule. Anything else after that closer (or another tag there): the first
   * costume stood as its own block and ends at its closer, as before. Returns the next index, a
   * step, or MORE (a tag cut off).
   */
  private chainChar(s: string, i: number, base: number, final: boolean): number | Step {
    const chain = this.chain!;
    const c = s.charCodeAt(i);
    if (isTriggerCode(c)) {
      const r = readTag(s, i, final);
      if (r === NEED_MORE) return MORE;
      if (r !== null) {
        if (chain.closed) return this.endChain();
        if (r.closing && r.family === "costume" && r.name === chain.name) chain.closed = true;
        return r.end;
      }
    }
    if (!chain.closed) return i + 1;
    if (c === SP || c === TAB) return i + 1;
    if (c === LF || c === CR) {
      this.chain = null;
      this.tentative.chainLineEnd(c, base + i);
      return i + 1;
    }
    // Diff review 48: text after the chained costume's closer on its line is weighed as the line
    // after a paragraph costume's is: the sentence going on (`<shell>ls</shell> in its replies.`) makes it text.
    const goesOn = this.tentative.sentenceGoesOn(c);
    if (goesOn === null) return i + 1;
    if (goesOn) {
      this.chain = null;
      return { kind: "abandon", at: base + i };
    }
    return this.endChain();
  }

  private endChain(): Step {
    this.chain = null;
    return { kind: "complete", end: this.tentative.trailBack };
  }

  private onTag(tag: Tag, base: number): Step | null {
    // Review 48b: a costume opening the line after a paragraph costume's closer line: it is read through, the line after it decides (chain).
    if (this.tentative.trailing && this.tentative.nextLineOfParagraph() && this.tentative.atNextLineStart() && tag.family === "costume" && !tag.closing && isLineStartCostume(tag.name)) {
      this.chain = { name: tag.name, closed: false };
      return null;
    }
    const end = base + tag.end;
    // In an I11 value a sentinel tag that may name a child is the element's (`</{D}callback>` ends the child), never a block's closer, as the walk reads it.
    let closesBlock =
      ((tag.closing && tag.role === "block" && tag.family !== "costume") || (this.kind.closesWrapper?.(tag) ?? false)) &&
      !(this.values.open && this.values.tool !== null && tag.family === "dsml" && mayNameTool(tag));
    // Review 48: after a complete call, a closer whose word only starts like a wrapper's, or one written as an indented code line, is no block's closer.
    if (closesBlock && this.run !== null && !this.closesAfterCall(tag, base + tag.start)) closesBlock = false;
    if (this.tentative.wasContent(tag)) this.endsInBlock = this.tentative.resume();
    else if (this.exampleAfterCloser(tag, base)) return null;
    else if (this.tentative.closerAfterCloser(tag, base, closesBlock, this.example.reading)) {
      if (closesBlock) {
        this.endsInBlock = false;
        this.closedBlock = true;
      }
      return null;
    }
    if (this.run) {
      const runEnd = this.run.tag(tag, base + tag.start, end, closesBlock);
      return runEnd === null ? null : this.endRun(runEnd);
    }
    if (this.tentative.trailing) {
      // A costume's closer ends its span where it stands, whatever comes next.
      if (this.tentative.standsAlone()) return { kind: "complete", end: this.tentative.trailBack };
      // A parameter opener right after a call its invoke closer ended inside a value (P01), its block still open: a
      // parameter outside every invoke. Read as after a call complete with no value open (call-run.ts); the walk refuses the block's calls (parse-span.ts).
      if (this.tentative.held && this.endsInBlock && (this.root === "block" || this.enclosing !== null) && this.opener.family === "dsml" && isStrayParameter(tag)) {
        this.run = new CallRun(true, this.tentative.endsCall());
        const runEnd = this.run.tag(tag, base + tag.start, end, closesBlock);
        return runEnd === null ? null : this.endRun(runEnd);
      }
      // The block's own closer ends it together with this call; any other tag starts what comes next.
      if (closesBlock || tag.legacy === "section-end") {
        this.endsInBlock = false;
        this.closedBlock = true;
        return { kind: "complete", end };
      }
      return { kind: "complete", end: this.tentative.endAt(base + tag.start) };
    }
    if (this.example.reading) {
      const settled = this.example.step(tag, base + tag.start);
      if (settled === null) return null;
      if (settled !== "read") return this.settle(settled);
      // "read": this tag is the value's own parameter closer, read below as always.
    } else {
      const family = this.exampleFamily();
      const at = base + tag.start;
      if (family !== null && this.example.mayStartAt(at) && exampleOpener(tag, family, this.declared)) {
        const options = this.valueOptions();
        this.example.hold(new ExampleInValue(tag, family, !this.kind.valueFamily, family === "naked" && this.opener.family === "dsml" && this.values.plain ? { ...options, dsmlCloses: true } : options), at);
        return null;
      }
      // Golden A45.4, E45.10: an example after text in a DSML invoke's body (a value ended mid-line by
      // its sentinel closer, the call refused) that the call's own closers end was that text too;
      // the same after a value of the invoke closed cleanly (restart follow-up, case 3: the walk's ValueExamples.exampleInBody).
      if (family === null && (this.values.bodyText || this.values.valueClosed) && this.opener.family === "dsml" && this.example.mayStartAt(at) && exampleOpener(tag, "dsml")) {
        this.example.hold(new ExampleInValue(tag, "dsml", true), at);
        return null;
      }
      if (family === "dsml" && tag.family === "naked" && !this.values.plainRunTried) {
        this.values.plainRunTried = true;
        this.example.hold(new PlainRunInValue(tag, this.valueOptions()), at);
        return null;
      }
    }
    this.before_endsInBlock = this.endsInBlock;
    // Markup the open value holds as its text (an XML file being written) is no structure of the call.
    if (this.values.read(tag)) return null;
    const plainBefore = this.values.plainBefore;
    // A block's or wrapper's closer written inside an open value ends it only by the closer rule
    // (golden A40.n8, A40.n9, A40.22): text after it on its line makes it the value's text, which must then reach
    // its own parameter closer (the parsers refuse the call otherwise).
    // In a DSML span the value's rule says whether it is one (an I11 child named `callback` is no block).
    // A plain parameter's value (M07.5) too, by the unprefixed value's rule, as the walk's closerInValue weighs it.
    if (closesBlock && (this.valueOpen() || plainBefore) && (this.opener.family !== "dsml" || this.values.step === "end-call")) {
      this.endsInBlock = false;
      return this.tentatively(plainBefore ? NAKED_VALUE : this.opener.family === "dsml" ? this.values.rule() : this.kind.closesWrapper ? (this.wrappedValue ??= closerRule("naked", this.kind.closesWrapper)) : NAKED_VALUE, end);
    }
    const first = !this.seenContent;
    this.seenContent = !first || !(this.kind.leavesFirst?.(this, tag, this.body) ?? false);
    const step = this.kind.tag(this, tag, base, first, closesBlock, this.body);
    // DSML: an invoke closer while a value is open ends it only by P01's rule, if at all (golden A40.n3, A40.14, A40.n6).
    // The same for a prefix-less invoke closer in a DSML value, and for the I11 tool's own closer (golden A45.1-A45.3, E45.5-E45.7).
    const endsCall = this.opener.family === "dsml" ? this.values.step === "end-call" : tag.family === "dsml" && tag.closing && tag.role === "invoke";
    if (step === null && (this.values.openBefore || plainBefore) && endsCall) {
      if (this.tentative.trailing) {
        if (!this.tentative.held) this.tentatively(plainBefore ? NAKED_VALUE : this.values.rule());
      } else if (plainBefore) this.values.plain = true;
      else this.values.open = true; // The kind read on (an I11 element's closer in a block span): the value stays open, as the walk's closer rule may read it.
    }
    // Golden A46.1-A46.3: a DSML call complete at its invoke closer, no value open: a run of examples, then a stray value closer, may follow (call-run.ts).
    if (step === null && this.weighsRun && this.tentative.trailing && !this.tentative.held && tag.closing && tag.role === "invoke" && this.opener.family === "dsml" && (this.root === "block" || this.root === "invoke") && this.values.tool === null) {
      this.run = new CallRun(this.root === "block" || this.enclosing !== null, this.tentative.trailBack);
    }
    return step;
  }

  /**
   * Whether a block closer at `at` (absolute), read after the span's complete call, closes its
   * block: a DSML one only with a wrapper's word (`</{D}tool_callsX>` is not one: the tag grammar
   * reads any DSML word with `call` in it as a block's), and none written as an indented code
   * line (four columns of indentation after a blank line): that is documentation of a closer, and
   * a parameter after it is still outside every invoke of the open block (review 48).
   */
  private closesAfterCall(tag: Tag, at: number): boolean {
    if (tag.family === "dsml" && !isWrapperName(tag.name.toLowerCase())) return false;
    const before = this.held.slice(this.start, at);
    let k = before.length;
    let cols = 0;
    while (k > 0 && (before.charCodeAt(k - 1) === SP || before.charCodeAt(k - 1) === TAB)) {
      cols += before.charCodeAt(k - 1) === TAB ? 4 : 1;
      k--;
    }
    if (cols < 4 || k === 0 || (before.charCodeAt(k - 1) !== LF && before.charCodeAt(k - 1) !== CR)) return true;
    // The line before it is blank: an indented code block may start here.
    k--;
    if (k > 0 && before.charCodeAt(k) === LF && before.charCodeAt(k - 1) === CR) k--;
    while (k > 0 && (before.charCodeAt(k - 1) === SP || before.charCodeAt(k - 1) === TAB)) k--;
    return !(k > 0 && (before.charCodeAt(k - 1) === LF || before.charCodeAt(k - 1) === CR));
  }

  /**
   * Golden A45.5, E45.11: a DSML invoke or block closer that ended its line inside an open value
   * ends it (P01) unless a call example comes next and the value's own closer ends it (closer-in-
   * value.ts closerEndsCall, the walk's rule): the closer and the example were the value's text (a
   * page documenting both). The example is read on with the closer taken as text; proved no
   * example, the span ends where the closer ended it (the example's fallback).
   */
  private exampleAfterCloser(tag: Tag, base: number): boolean {
    const at = base + tag.start;
    if (!this.tentative.endedValueLine() || this.example.reading || !this.example.mayStartAt(at) || !anyExampleOpener(tag, this.declared)) return false;
    const fallback = { end: this.tentative.endAt(at), endsInBlock: this.endsInBlock };
    this.endsInBlock = this.tentative.resume();
    // With the value's I11 reading (an I11 example, an I11 child's own closer), as the walk's closerEndsCall.
    this.example.hold(new ExampleInValue(tag, "dsml", true, { declared: this.declared, valueName: this.values.tool !== null ? this.values.name : undefined, most: EXAMPLES_AFTER_CLOSER }), at, fallback);
    return true;
  }

  /** The run after the complete call decided where the span ends (call-run.ts). */
  private endRun(end: number): Step {
    if (this.run!.closedBlock) {
      this.endsInBlock = false;
      this.closedBlock = true;
    }
    this.run = null;
    return { kind: "complete", end };
  }

  /** The span reached the buffer limit while the run after its complete call was read: it proves nothing, the span ends where the call did (call-run.ts); null otherwise. */
  endRunAtLimit(): Step | null {
    const end = this.run?.atLimit() ?? null;
    return end === null ? null : this.endRun(end);
  }

  /** An example settled (HeldExample): the scan reads again from where it says, or the span ends. */
  private settle(settled: ExampleSettled): Step | null {
    if ("end" in settled) {
      this.endsInBlock = settled.endsInBlock;
      return { kind: "complete", end: settled.end };
    }
    this.rewindTo = settled.rewind;
    // As when an example ends at its closer directly (and the walk's ValueExamples.skips): no plain run starts at it.
    if (settled.atHeldCloser) this.values.plainRunTried = true;
    return null;
  }

  /** How an example or plain run in the open value reads I11 tags (example-in-value.ts ExampleOptions): made once per example, never per character. */
  private valueOptions(): ExampleOptions {
    return { declared: this.declared, valueName: this.values.tool !== null && this.values.open ? this.values.name : undefined };
  }

  // The family of the value open before the tag being read (SpanKind.valueFamily, or inValue's), or null.
  private exampleFamily(): TagFamily | null {
    if (this.kind.valueFamily) return this.kind.valueFamily(this, this.body);
    // An unprefixed parameter opened outside a sentinel value (M07.5): its value, which a DSML closer ends too (ExampleOptions.dsmlCloses).
    if (!this.values.open) return this.opener.family === "dsml" && this.values.plain ? "naked" : null;
    return this.opener.family === "dsml" || this.opener.family === "naked" ? this.opener.family : null;
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

