import { isBarCode, isTriggerCode } from "../grammar/markers.ts";
import { asLostLtCloser, NEED_MORE, readTag, type Tag, type TagFamily } from "../grammar/tags.ts";
import { SPAN_KINDS } from "../parse/span.ts";
import type { Root, SpanKind, Step } from "../parse/span-kind.ts";
import { HAND_OFF, isSpaceCode } from "../parse/char-form.ts";
import { closerRule, type CloserRule } from "../parse/closer-in-value.ts";
import { EXAMPLES_AFTER_CLOSER, ExampleInValue, anyExampleOpener, exampleOpener, type ExampleOptions } from "../parse/example-in-value.ts";
import { PlainRunInValue } from "../parse/plain-run-in-value.ts";
import type { HeldText } from "./held-text.ts";
import { CR, LF, LT, SLASH } from "../grammar/chars.ts";
import { isLineStartCostume } from "../grammar/dialects.ts";
import type { ToolSpec } from "../parse/types.ts";
import { mayNameTool } from "../parse/tool-element-name.ts";
import { CallRun, closesBlockAfterCall } from "./call-run.ts";
import { isStrayParameter } from "../parse/stray-value-closer.ts";
import { CostumeChain } from "./costume-chain.ts";
import { HeldExample, type ExampleSettled } from "./held-example.ts";
import { QuotedBlockEnd } from "./quoted-block-end.ts";
import { SpanCallbacks } from "./span-callbacks.ts";
import { inlineElementEnd } from "./tentative-closer.ts";
import { WrapperHold } from "./wrapper-hold.ts";

export type { Step };

const MORE: Step = { kind: "more" };
/** P01 in an unprefixed value (Claude-style, MiniMax, Qwen3-Coder): a `</parameter>` next proves the closer was in it. */
const NAKED_VALUE = closerRule("naked");

/**
 * A held span that has opened as a real candidate. It scans only text it has not seen, keeps at
 * most one undecided tag as carry, and reports the exact offset where the span ends (or proves
 * not to be markup). Offsets are absolute within the response.
 */
export class Candidate extends SpanCallbacks {
  length = 0;
  /** The root's boundary rules, looked up once: the loop below dispatches per tag and per decision, never per character of a body. */
  private readonly kind: SpanKind<unknown>;
  /** The kind's own state for this span (SpanKind.body), handed back to its rules. */
  private readonly body: unknown;
  private scanCarry = "";
  private scanFrom: number;
  private seenContent = false;
  /** The spaces and tabs before the opener on its line (text mode sets it), null when other text stands there: only that much is a container's indentation (golden P48.9, C48.2). */
  openerIndent: string | null = null;
  /** Where its opener stood (SpanContext.openerPlace: a mention mid-line or mid-sentence is no call, golden N48.4); text mode sets it. */
  openerPlace: "line-start" | "paragraph" | "inline" | undefined = undefined;
  /** A costume chained after a paragraph costume's closer line (costume-chain.ts, golden N48.3); null otherwise. */
  private chain: CostumeChain | null = null;
  /** An example written inside an open value, read on while it may be the value's text (held-example.ts). */
  private readonly example = new HeldExample();
  /** Where the scan reads again from (an example settled), or -1. */
  private rewindTo = -1;
  /** The closer rule for a value inside a kind with its own wrapper closer (`</tool_call>`), made on first use. */
  private wrappedValue: CloserRule | null = null;
  /** The character before the text the next consume() scans: a lost `<` closer's `/` may end a piece. */
  private before = 0;
  /** The span took a block's closer after its call (an orphan invoke's too): the block the stray-parameter rule watches is over (TextMode.strayBlock). */
  closedBlock = false;
  /** Where an indented (quoted) block gives way to the writer's prose; null when the opener was not indented. */
  private readonly quote: QuotedBlockEnd | null;

  constructor(
    held: HeldText,
    tools: ReadonlyMap<string, ToolSpec>,
    start: number,
    opener: Tag,
    root: Root,
    enclosing: Tag | true | null = null,
    /** The opener's indentation when it opened an indented line (DocContext.quoteIndent); 0 otherwise. */
    quoteIndent = 0,
    opensLine = false,
  ) {
    super(held, tools, start, opener, root, enclosing, opensLine);
    this.scanFrom = start + opener.end;
    this.quote = quoteIndent > 0 ? new QuotedBlockEnd(quoteIndent) : null;
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
        if (final) this.endedByText = true; // whatever the span decides from here the text's end decided (SpanCallbacks.settled)
        // The reply ended with text held after the call, its wrapper's closer never come: the span ends where the text began (golden O02.8).
        if (final && this.hold !== null) return this.hold.ended;
        // The reply ended while a char-level state held characters undecided (a MiniMax quote that never closed): it reads them now.
        const held = final ? (this.named?.atEnd?.() ?? null) : null;
        if (held) return held;
        // The reply ended after closers held for an example that never came (TentativeCloser.closerAfterCloser): the span ends where they ended it.
        if (final && this.tentative.heldMore() && !this.example.reading) return { kind: "complete", end: this.tentative.trailBack };
        // The reply ended after a paragraph costume's closer line: it ended at its closer.
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
        const next = this.chain.read(s, i, final);
        if (next === "more") {
          this.scanCarry = s.slice(i);
          this.scanFrom = base + i;
          return MORE;
        }
        if (typeof next === "number") i = next;
        else if (next === "after-closer") {
          // Text after the chained costume's closer on its line is weighed as the line after a
          // paragraph costume's is: the sentence going on (`<shell>ls</shell> in its replies.`) makes it text.
          const goesOn = this.tentative.sentenceGoesOn(c);
          if (goesOn === null) i++;
          else {
            this.chain = null;
            return goesOn ? { kind: "abandon", at: base + i } : { kind: "complete", end: this.tentative.trailBack };
          }
        } else {
          this.chain = null;
          if (next === "end") return { kind: "complete", end: this.tentative.trailBack };
          this.tentative.chainLineEnd(c, base + i);
          i++;
        }
        continue;
      }
      // Held text is read only for its tags; an indented wrapper's quote ending ends the hold.
      if (this.hold !== null && this.quote?.endsAt(c, base + i)) return this.hold.ended;
      if (this.hold !== null && !isTriggerCode(c)) {
        i++;
        // Read only for its tags: on to the next trigger (an indented quote's end is looked for above).
        if (this.quote === null) while (i < s.length && !isTriggerCode(s.charCodeAt(i))) i++;
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
          // A costume's closer that ends its line ends the span, unless held for a further closer of it (review 52).
          if ((c === LF || c === CR) && this.tentative.lineEnds(c, base + i) && !this.holdAfterCloserLine(this.kind, this.body, base + i)) return { kind: "complete", end: this.tentative.trailBack };
          if (this.tentative.nextLineOfParagraph()) this.tentative.sentenceSpace();
          i++;
          continue;
        }
        if (this.tentative.nextLineOfParagraph()) {
          // The sentence runs on (lower case, after `(`, `*`, a quote or a comma too) on the line after a paragraph costume's closer line: the costume was shown in it, text (golden N48.1, N48.2).
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
        if (this.hold !== null) continue;
      }
      if (c === LT && this.tentative.trailing && this.tentative.nextLineOfParagraph()) {
        // An inline element opening the line after a paragraph costume's closer line is looked past: the first letter after it decides.
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
        // The text at hand, so a kind's content rule may ask whether the character starts its line (startsLine).
        this.tagText = s;
        this.tagBase = base;
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
    // Review 52, finding 4: prose after a lone closer line that ended an open value is read on as the run after the call (span-callbacks.ts).
    if (!this.tentative.wasContent(null) && (this.run = this.runAfterCutValue(at)) !== null) return null;
    if (!this.tentative.wasContent(null)) {
      // Inside its wrapper (a Qwen3-Coder function's), held for the wrapper's closer (review 50, finding 4).
      if (!this.kind.holdsAfterCall?.(this, this.body)) return { kind: "complete", end: this.tentative.endAt(at) };
      this.hold = new WrapperHold(at, this.tentative.endAt(at));
      return null;
    }
    this.endsInBlock = this.tentative.resume();
    return null;
  }

  private onContent(c: number, at: number): Step | null {
    if (this.hold !== null) return null;
    if (this.run) return this.runStep(this.run.char(c, at));
    if (this.tentative.trailing) {
      const ended = this.contentAfterCloser(at);
      if (ended || this.hold !== null) return ended;
    }
    const first = !this.seenContent;
    this.seenContent = true;
    this.values.content();
    return first || this.kind.watchesContent ? this.kind.content(this, c, at, first, this.body) : null;
  }

  private onTag(tag: Tag, base: number): Step | null {
    if (this.hold !== null) return this.tagWhileHeld(tag, base);
    // A costume opening the line after a paragraph costume's closer line: it is read through, the line after it decides (chain, golden N48.3).
    if (this.tentative.trailing && this.tentative.nextLineOfParagraph() && this.tentative.atNextLineStart() && tag.family === "costume" && !tag.closing && isLineStartCostume(tag.name)) {
      this.chain = new CostumeChain(tag.name);
      return null;
    }
    const end = base + tag.end;
    // In an I11 value a sentinel tag that may name a child is the element's (`</{D}callback>` ends the child), never a block's closer, as the walk reads it.
    let closesBlock =
      ((tag.closing && tag.role === "block" && tag.family !== "costume") || (this.kind.closesWrapper?.(tag) ?? false)) &&
      !(this.values.open && this.values.tool !== null && tag.family === "dsml" && mayNameTool(tag));
    // After a complete call, a closer whose word only starts like a wrapper's, or one written as an indented code line, is no block's closer (golden P48.4).
    if (closesBlock && this.run !== null && !closesBlockAfterCall(tag, this.held, this.start, base + tag.start)) closesBlock = false;
    if (this.tentative.wasContent(tag)) this.endsInBlock = this.tentative.resume();
    else if (this.exampleAfterCloser(tag, base)) return null;
    else if (this.tentative.closerAfterCloser(tag, base, closesBlock, this.example.reading)) {
      if (closesBlock) {
        this.endsInBlock = false;
        this.closedBlock = true;
      }
      return null;
    }
    if (this.run) return this.runStep(this.run.tag(tag, base + tag.start, end, closesBlock));
    if (this.tentative.trailing) {
      // A costume's closer ends its span where it stands, whatever comes next.
      if (this.tentative.standsAlone()) return { kind: "complete", end: this.tentative.trailBack };
      // A parameter opener right after a call its invoke closer ended inside a value (P01), its block still open: a
      // parameter outside every invoke. Read as after a call complete with no value open (call-run.ts); the walk refuses the block's calls (parse-span.ts).
      if (this.tentative.held && this.endsInBlock && (this.root === "block" || this.enclosing !== null) && this.opener.family === "dsml" && isStrayParameter(tag)) {
        this.run = new CallRun(true, this.tentative.endsCall());
        return this.runStep(this.run.tag(tag, base + tag.start, end, closesBlock));
      }
      // Review 52, finding 4: a tag after a lone closer line that ended an open value starts the run after the call as prose does (the walk's cutValue).
      if ((this.run = this.runAfterCutValue(base + tag.start)) !== null) return this.runStep(this.run.tag(tag, base + tag.start, end, closesBlock));
      // A wrapped call's body broken after it (a costume before `</tool_call>`): refused whole, read on to its closer (golden O48.2-O48.4).
      if (!closesBlock && this.kind.refusesAfterCall?.(this, tag, base, this.body)) {
        this.tentative.drop();
        this.endsInBlock = false;
        return null;
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
   * Golden A45.5, E45.11: a DSML invoke or block closer that ended its line inside an open value
   * ends it (P01) unless a call example comes next and the value's own closer ends it (closer-in-
   * value.ts closerEndsCall, the walk's rule): the closer and the example were the value's text (a
   * page documenting both). The example is read on with the closer taken as text; proved no
   * example, the span ends where the closer ended it (the example's fallback).
   */
  private exampleAfterCloser(tag: Tag, base: number): boolean {
    const at = base + tag.start;
    if (!this.tentative.endedValueLine() || this.example.reading || !this.example.mayStartAt(at) || !anyExampleOpener(tag, this.declared)) return false;
    const fallback = { end: this.tentative.endAt(at), endsInBlock: this.endsInBlock, trailBack: this.tentative.trailBack };
    this.endsInBlock = this.tentative.resume();
    // With the value's I11 reading (an I11 example, an I11 child's own closer), as the walk's closerEndsCall.
    this.example.hold(new ExampleInValue(tag, "dsml", true, { declared: this.declared, valueName: this.values.tool !== null ? this.values.name : undefined, most: EXAMPLES_AFTER_CLOSER }), at, fallback);
    return true;
  }

  /** The run after the complete call decided where the span ends (call-run.ts). */
  private endRun(end: number): Step {
    if (this.run!.heldInVain) this.valueRunReach = this.end;
    if (this.run!.closedBlock) {
      this.endsInBlock = false;
      this.closedBlock = true;
    }
    this.run = null;
    return { kind: "complete", end };
  }

  /** A step of the run after the call: where the span ends once it decided, null to read on. */
  private runStep(end: number | null): Step | null {
    return end === null ? null : this.endRun(end);
  }

  /** The span reached the buffer limit while the run after its complete DSML call (call-run.ts) or the text held after it for its wrapper's closer was read: it proves nothing, the span ends where the call did; null otherwise. */
  endAtLimit(): Step | null {
    if (this.hold !== null) return this.hold.ended;
    return this.runStep(this.run?.atLimit() ?? null);
  }

  /** A tag while text after the call is held (wrapper-hold.ts): at the wrapper's closer the span, refused whole, ends after it. */
  private tagWhileHeld(tag: Tag, base: number): Step | null {
    const hold = this.hold!;
    const verdict = hold.verdict(base + tag.start, this.kind.closesWrapper?.(tag) ?? false, this.held, (at) => this.startsLine(at), () => (this.kind.tagWhileHeld ? this.kind.tagWhileHeld(this, tag, hold.from, this.body) : "ends"));
    if (verdict === "refused") this.endsInBlock = false;
    return verdict === null ? null : verdict === "ends" ? hold.ended : { kind: "complete", end: base + tag.end };
  }

  /** An example settled (HeldExample): the scan reads again from where it says, or the span ends. */
  private settle(settled: ExampleSettled): Step | null {
    if ("end" in settled) {
      this.endsInBlock = settled.endsInBlock;
      // More examples after a lone closer line than the lookahead reads: the run after the cut value holds them, read again from the first (runAfterExamples).
      if (settled.from === undefined || (this.run = this.runAfterExamples(settled.from, settled.trailBack!)) === null) return { kind: "complete", end: settled.end };
      settled = { rewind: settled.from };
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
}
