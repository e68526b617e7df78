import type { Shape } from "../grammar/shapes.ts";
import { undeclaredKeyRefusal, type Segment } from "../parse/segments.ts";
import { STRAY_PARAMETER } from "../parse/dialects/dsml/parse-span.ts";
import type { BrokenSpan, NudgeReason, StrippedSpan, ToolSpec } from "../parse/types.ts";
import { DocContext } from "./doc-context.ts";
import { appendText } from "./events.ts";
import { isBlank } from "./fed-text.ts";
import { looseOpener } from "./loose-value.ts";
import { isSpaceCode } from "../parse/char-form.ts";
import { HeldText } from "./held-text.ts";
import { DEFAULT_BUFFER_LIMIT } from "./limits.ts";
import { QuoteBlindContext } from "./quote-blind.ts";
import { Tail } from "./tail.ts";
import type { AnswerSoFar, EchoGuard, EngineEvent, EngineOptions, EngineSummary } from "./types.ts";

/** A well-formed call's report in replayed history: src/history reads its span as markup (afterMarkup), as here. */
export const HISTORY_CALL = "a call written as text in replayed history; it never ran";
export const HISTORY_ECHOED_CALL = "markup in replayed history quoted from content the request gave the model; it never ran";
/** 36^9: the ids of nine letters and digits. */
const ID_SPACE = 36 ** 9;
/** Where this process's recovered call ids start: random, so a restarted host does not repeat its earlier ids. */
let nextCallId = Math.floor(Math.random() * ID_SPACE);

/**
 * A recovered call's id when the engine was given no idPrefix: nine letters and digits, the form
 * Mistral's API (and mistral_common behind vLLM) accepts, and one that OpenCode's Mistral scrub
 * (letters and digits only, the first nine kept) leaves as it is. One counter for the process, from a
 * random start: no two calls get the same id, in one reply (across its parts' engines) or in the
 * replies after it, and a scrub keeping a prefix can't make two of them equal.
 */
function recoveredCallId(): string {
  const id = nextCallId.toString(36).padStart(9, "0");
  nextCallId = (nextCallId + 1) % ID_SPACE;
  return id;
}

/**
 * Where what the engine read goes: the events of the step under way, the text held after the last
 * recovered call (tail.ts, S03), the calls recovered, the calls of a block still open held for its
 * closer (holdCall, settleHeldCalls), and the report summary() gives. It decides
 * what a parsed segment becomes by the request's rules (replayed history runs nothing, maxCalls, a
 * native call's duplicates, echoed markup) and tells the documentation context what a candidate
 * let go of. The engine reads the text (text-mode.ts, engine.ts) and extends this class: a base
 * class rather than a member, so that its fast path finds `tail` on itself, one load as before.
 */
export class Output {
  /** The events of the step under way (a feed, a flush, ...). */
  protected out: EngineEvent[] = [];
  protected tail: Tail | null = null;
  /** Every held character, stored once: the candidate and the tail read their spans back from it. */
  protected readonly store = new HeldText();
  protected readonly doc: DocContext;
  /** EngineOptions.bufferLimit: for a candidate, and for the text held after a call. */
  protected readonly limit: number;
  /** Candidates (and tails) released verbatim because they hit the limit. */
  protected heldNoCall = 0;
  /**
   * Markup of the reply ended where no one can tell (AnswerSoFar.overflowed): a candidate released
   * verbatim at the limit, or a segment refused as unbounded (a costume refused after a closer
   * read as its code: past its hold cap at the end of a span, or at its own closer ending a line),
   * here or in an earlier part. What followed it was read as prose though it may be that markup's
   * text (the rest of a file a leaked write was writing, with its tool-call examples), so no later
   * call runs: each is reported "overflowed-markup", its text kept.
   */
  private overflowed: boolean;
  /** EngineOptions.readingGiven: every call found in given content makes the echo guard stricter, so none is held back. */
  private readonly readsGiven: boolean;
  protected readonly broken: BrokenSpan[] = [];
  /** The report of the value opened last outside any readable call, widened over its call's markup (widenLoose). */
  private looseReport: BrokenSpan | null = null;
  private readonly stripped: StrippedSpan[] = [];
  private readonly tools: ReadonlyMap<string, ToolSpec>;
  /** EngineOptions.history: every call is reported as markup that ran nothing. */
  private readonly history: boolean;
  /** EngineOptions.idPrefix, followed by the call's number; undefined: recoveredCallId(). */
  private readonly idPrefix: string | undefined;
  private readonly isEchoed: EchoGuard | undefined;
  private readonly thinking: boolean;
  /** EngineOptions.maxCalls: Infinity when the request allows parallel calls. */
  private readonly maxCalls: number;
  /** Calls the earlier parts of the same reply recovered (EngineOptions.continues). */
  private readonly earlierCalls: number;
  private native = false;
  private seq = 0;
  private recovered = 0;
  /** Spans of the calls recovered, for withdrawCalls. */
  private callSpans: [number, number][] = [];
  /**
   * With maxCalls set (the caller holds recovered calls back for the reply's end): each call's
   * markup and report, for unrunCalls. At most maxCalls of them, each within bufferLimit.
   */
  private heldBack: { markup: string; broken: BrokenSpan }[] = [];
  /**
   * Calls read in a block still open, held until the block's closer (or the reply's
   * end, or the limit) decides them: a parameter outside every invoke of the block, anywhere before
   * its closer, refuses them all (golden P47.11-P47.16). `before`: the tail there was before the first of them; `tails`:
   * the text held after each call but the last (the last one's is `this.tail`); `from`: where the
   * first held character is.
   */
  private blockHold: { before: Tail | null; calls: HeldCall[]; tails: Tail[]; from: number } | null = null;

  constructor(options: EngineOptions, tools: ReadonlyMap<string, ToolSpec>) {
    this.tools = tools;
    this.history = options.history === true;
    this.isEchoed = options.isEchoed;
    this.thinking = options.channel === "reasoning";
    this.maxCalls = options.maxCalls ?? Infinity;
    const limit = options.bufferLimit ?? DEFAULT_BUFFER_LIMIT;
    this.limit = limit > 0 ? limit : DEFAULT_BUFFER_LIMIT;
    this.idPrefix = options.idPrefix;
    // A later part of one reply reads on in the context the part before it left (a fence opened
    // there is still open here); content the request gave is read quote-blind, alone.
    const before = options.readingGiven ? undefined : options.continues;
    this.doc = options.readingGiven ? new QuoteBlindContext() : (before?.doc ?? new DocContext());
    this.earlierCalls = before?.calls ?? 0;
    this.overflowed = before?.overflowed === true;
    this.readsGiven = options.readingGiven !== undefined;
    // The part before ended after a call, its text since undecided: this one's text is held after that call too.
    if (before?.tail !== undefined) this.tail = new Tail(before.tail);
  }

  /** Markup of the reply ended where no one can tell (overflowed): no later call runs, so none is weighed further (Candidate.weighsRun). */
  protected get markupOverflowed(): boolean {
    return this.overflowed;
  }

  /**
   * A native call came (RepairEngine.noteNativeToolCall): markup from here on is its duplicate.
   * Calls held for their block's closer were never sent: they are its duplicates too, stripped as
   * the JSON path strips every leak beside a native call (D08), so a native call repeating one runs
   * once, and never beside it. The text held after the calls already recovered is released: another
   * call follows it (S03). What it releases goes into the step's events.
   */
  protected nativeCame(): void {
    this.native = true;
    this.settleHeldCalls("native");
    this.releaseHeldTail();
  }

  carryOver(): AnswerSoFar {
    const answer: AnswerSoFar = { doc: this.doc, calls: this.earlierCalls + this.recovered, ...(this.overflowed ? { overflowed: true } : {}) };
    return this.tail ? { ...answer, tail: this.tail.before + this.tail.length } : answer;
  }

  summary(): EngineSummary {
    // The model's own broken span names the reason; a quote of given content only when nothing else was found (as src/history/sanitize.ts).
    const first = this.native ? undefined : (this.broken.find((b) => b.reason !== "echoed-markup") ?? this.broken[0]);
    return {
      recovered: this.recovered,
      nudge: (first?.reason ?? null) as NudgeReason | null,
      broken: this.broken.slice(),
      stripped: this.stripped.slice(),
      heldCandidateNoCall: this.heldNoCall,
    };
  }

  /**
   * A native call came after the calls recovered, which never ran (RepairEngine.withdrawCalls):
   * they are its duplicates, and the text held after them is released. The step's events.
   */
  protected withdraw(): EngineEvent[] {
    this.native = true;
    this.out = [];
    this.settleHeldCalls("native");
    for (const span of this.callSpans) this.stripped.push({ span, kind: "native-call-duplicate" });
    this.callSpans = [];
    this.heldBack = [];
    this.recovered = 0;
    const tail = this.tail;
    this.tail = null;
    tail?.withdraw(this.store, this.out, this.stripped, this.broken);
    return this.out;
  }

  /**
   * RepairEngine.unrunCalls: the calls recovered never run. Each is reported as markup that ran
   * nothing; their markup is returned, for the caller to show where the calls would have gone.
   */
  unrunCalls(): string {
    let markup = "";
    for (const held of this.heldBack) {
      markup += held.markup;
      this.broken.push(held.broken);
    }
    this.heldBack = [];
    this.callSpans = [];
    this.recovered = 0;
    return markup;
  }

  protected applySegment(seg: Segment, span: string, base: number): void {
    const start = base + seg.start;
    const end = base + seg.end;
    // Markup refused with its end unknown: nothing after it runs, whatever becomes of its text.
    if (seg.kind === "broken" && seg.unbounded && !this.readsGiven) this.overflowed = true;
    if (seg.kind === "call" && this.history) {
      // Replayed history never becomes a call: a well-formed one is markup that ran nothing, as a
      // call to an undeclared tool; or, with an echo guard, markup the model quoted from given content.
      const echoed = this.isEchoed?.({ tool: seg.tool, input: seg.input, markup: span.slice(seg.start, seg.end), tools: this.tools }) === true;
      const replayed: BrokenSpan = echoed
        ? { span: [start, end], shape: seg.shape, reason: "echoed-markup", detail: HISTORY_ECHOED_CALL, tool: seg.tool }
        : { span: [start, end], shape: seg.shape, reason: "undeclared-tool", detail: HISTORY_CALL, tool: seg.tool };
      this.broken.push(replayed);
      // Read as the markup the live repair read (afterMarkup), not as released text: a fence in its
      // arguments (golden L01: closed on the end-token line) opens none over the leaks after it.
      this.afterMarkup(span, seg.start, seg.end);
      this.showMarkup(span.slice(seg.start, seg.end), start, replayed);
      return;
    }
    if (seg.kind === "call" && this.overflowed) {
      // Markup before it ended where no one can tell: this call may be its text. Text where it
      // stood, a nudge, never run (and never stripped, not even beside a native call: it may be
      // prose). The documentation context reads it as the call markup it is, as if it had run, so
      // nothing but the running changes (and a long document of examples costs no more to read).
      const after: BrokenSpan = { span: [start, end], shape: seg.shape, reason: "overflowed-markup", detail: "a call after markup of unknown end (a candidate past bufferLimit, a costume refused past a closer read as code, a prefill that ended inside markup): it may be that markup's text", tool: seg.tool };
      this.broken.push(after);
      this.afterMarkup(span, seg.start, seg.end);
      this.showMarkup(seg.start === 0 && seg.end === span.length ? span : span.slice(seg.start, seg.end), start, after);
      return;
    }
    if (seg.kind === "call" && !this.native && this.earlierCalls + this.recovered + (this.blockHold?.calls.length ?? 0) >= this.maxCalls) {
      // The request allows no more calls in this reply: the markup is handled exactly like a call
      // to a tool the request does not offer (text where it stood, a nudge), and never runs.
      const extra: BrokenSpan = { span: [start, end], shape: seg.shape, reason: "extra-call", detail: "the request switched parallel tool calls off and the reply already made its call", tool: seg.tool };
      this.broken.push(extra);
      this.releaseVisible(span.slice(seg.start, seg.end), start, extra);
      return;
    }
    if (seg.kind === "call" && seg.undeclaredKey && !this.native && !this.readsGiven && this.isEchoed?.({ tool: seg.tool, input: seg.input, markup: span.slice(seg.start, seg.end), tools: this.tools }) !== true) return this.applySegment(undeclaredKeyRefusal(seg), span, base); // review 50: a key the schema does not declare refuses the call (span.ts), unless the echo guard finds a quote of given content
    if (seg.kind === "call" || (seg.kind === "broken" && this.native)) {
      this.afterMarkup(span, seg.start, seg.end);
      if (this.native) {
        this.strip([start, end], "native-call-duplicate");
        return;
      }
      if (seg.kind !== "call") return;
      if (this.isEchoed?.({ tool: seg.tool, input: seg.input, markup: span.slice(seg.start, seg.end), tools: this.tools })) {
        this.strip([start, end], "echoed-markup");
        this.broken.push({ span: [start, end], shape: seg.shape, reason: "echoed-markup", detail: "markup quoted from content the request gave the model", tool: seg.tool });
        return;
      }
      const call: HeldCall = { tool: seg.tool, input: seg.input, shape: seg.shape, start, end, markup: span.slice(seg.start, seg.end), brokenAt: this.broken.length };
      // A call of a block a stray parameter made malformed never runs; one of a block still open waits for its closer.
      if (this.blockRefusesCalls()) {
        this.refuseCall(call, 0, false);
        return;
      }
      if (!this.thinking && this.blockHoldsCalls()) {
        this.holdCall(call);
        return;
      }
      this.runCall(call);
      return;
    }
    if (seg.kind === "broken") {
      const b: BrokenSpan = { span: [start, end], shape: seg.shape, reason: seg.reason, detail: seg.detail };
      if (seg.tool !== undefined) b.tool = seg.tool;
      if (seg.parameter !== undefined) b.parameter = seg.parameter;
      if (seg.undeclaredArgument) b.undeclaredArgument = true;
      if (seg.declared !== undefined) b.declared = seg.declared;
      this.broken.push(b);
      this.releaseVisible(span.slice(seg.start, seg.end), start, b);
      return;
    }
    this.releaseVisible(span.slice(seg.start, seg.end), start);
  }

  /**
   * Markup the documentation context skips (a call, or markup read as one): the line ends and
   * indentation its span took after its last character still move the context on, so a fence, a
   * block quote or an indented block on the next line is read as the next line's, not as text on
   * the markup's own line (else a fence after `</invoke>` reads as text and its closing fence as
   * an opener, hiding the stray parameter after it inside a fence that never closes: golden P48.1).
   */
  private afterMarkup(span: string, from: number, to: number): void {
    this.doc.afterMarkup();
    let k = to;
    while (k > from && isSpaceCode(span.charCodeAt(k - 1))) k--;
    if (k > from && k < to) this.doc.advanceText(span, k, to);
  }

  /** A call goes out: the text held before it is released, the text after it is held (S03). */
  private runCall(call: HeldCall): void {
    this.releaseHeldTail();
    const { start, end } = call;
    this.out.push({
      type: "call",
      call: { id: this.idPrefix === undefined ? recoveredCallId() : `${this.idPrefix}${++this.seq}`, tool: call.tool, input: call.input, span: [start, end], shape: call.shape },
    });
    this.recovered++;
    this.callSpans.push([start, end]);
    if (this.maxCalls !== Infinity) {
      const unrun: BrokenSpan = { span: [start, end], shape: call.shape, reason: "broken-markup", detail: "a call held back for the reply's end (one call allowed) that never ran: the repair stood aside before the reply ended", tool: call.tool };
      this.heldBack.push({ markup: call.markup, broken: unrun });
    }
    this.tail = new Tail();
  }

  /** A call refused for a parameter outside every invoke of its block (I02), or its block still open at a part's end (`unknown`): its markup is text, reported at `brokenAt` (+ `shift`). */
  private refuseCall(call: HeldCall, shift: number, unknown: boolean): void {
    const b: BrokenSpan = unknown ? { span: [call.start, call.end], shape: call.shape, reason: "overflowed-markup", detail: PART_END_HELD, tool: call.tool } : { span: [call.start, call.end], shape: "I02", reason: "broken-markup", detail: STRAY_PARAMETER, tool: call.tool };
    this.broken.splice(Math.min(call.brokenAt + shift, this.broken.length), 0, b);
    this.showMarkup(call.markup, call.start, b);
  }

  /** A call of a block still open waits for the block's closer (blockHold); the text after it is held as after a call. */
  private holdCall(call: HeldCall): void {
    let p = this.blockHold;
    if (p === null) p = this.blockHold = { before: this.tail, calls: [], tails: [], from: this.tail?.startOr(call.start) ?? call.start };
    else p.tails.push(this.tail!);
    p.calls.push(call);
    this.tail = new Tail();
    // Held no longer than the limit: then as at the reply's end, they run. Measured to the point
    // read (the call's end), never to the end of what was fed: a chunk's unread rest must not
    // decide, or a reply fed whole would run a call that fed char by char is refused.
    if (call.end - p.from > this.limit) this.settleHeldCalls("run");
  }

  /** Characters the calls held for their block's closer keep in the store (from the first of them, the tail before it too). */
  protected get heldForBlock(): number {
    return this.blockHold === null ? 0 : this.store.end - this.blockHold.from;
  }

  /**
   * The calls held for their block's closer are decided: "run" (the block closed, the reply ended,
   * the limit), "refuse" (a parameter outside every invoke of the block: broken markup, I02, text
   * kept), "unknown" (a part ended with the block open: what follows may still refuse them, review
   * 54; markup of unknown end, text kept), "native" (a native call came: they are its duplicates).
   */
  protected settleHeldCalls(how: "run" | "refuse" | "unknown" | "native"): void {
    const p = this.blockHold;
    if (p === null) return;
    this.blockHold = null;
    const last = this.tail;
    this.tail = p.before;
    let shift = 0;
    p.calls.forEach((call, k) => {
      const after = k < p.tails.length ? p.tails[k]! : last;
      if (how === "run") {
        this.runCall(call);
        this.tail = after;
        return;
      }
      if (how === "native") this.strip([call.start, call.end], "native-call-duplicate");
      else this.refuseCall(call, shift++, how === "unknown");
      after?.joinInto(this.tail, this.store, this.out, this.stripped, how !== "native");
    });
  }

  /** Whether a call read now belongs to a block still open that a stray parameter made malformed (text-mode.ts). */
  protected blockRefusesCalls(): boolean {
    return false;
  }

  /** Whether a call read now belongs to a block still open, so it waits for its closer (text-mode.ts). */
  protected blockHoldsCalls(): boolean {
    return false;
  }

  /** Candidate text that proved not to be a call: visible, and documentation context sees it. `markup`: the text is markup that did not run, reported as such (kept apart in a tail). */
  protected releaseVisible(text: string, start: number, markup?: BrokenSpan): void {
    const loose = this.doc.looseValues;
    this.doc.advanceReleased(text, this.tools);
    // A parameter opener in it opened a value outside any readable call (loose-value.ts): broken markup, reported once.
    if (this.doc.looseValues > loose) {
      // A report of the candidate's own is left as it is (the loose value's call is not widened into it).
      if (markup === undefined) this.reportLoose((markup = looseOpener(start, start + text.length)));
      else this.looseReport = null;
    }
    this.widenLoose(start);
    this.showMarkup(text, start, markup);
  }

  /** A parameter opener outside any readable call, reported (looseOpener): the tags of its call read later widen it. */
  protected reportLoose(report: BrokenSpan): void {
    this.broken.push(report);
    this.looseReport = report;
  }

  /**
   * After the documentation context read quoted tags in a text starting at `base`: the last one that
   * is the loose value's call's own markup (DocContext.takeLooseTagEnd) ends that call's report, so
   * the report covers the broken call from its first loose parameter opener to its last closer read
   * (every further parameter opener with its value, its invoke's closer), as another broken call's
   * report covers that call: history replaces all of it by one note. The live repair keeps it all
   * visible either way.
   */
  protected widenLoose(base: number): void {
    const end = this.doc.takeLooseTagEnd();
    const report = this.looseReport;
    if (end < 0 || report === null || base + end <= report.span[1]) return;
    report.span = [report.span[0], base + end];
  }

  /** Text already read by the documentation context (or markup it skips): `markup` as releaseVisible's. */
  private showMarkup(text: string, start: number, markup?: BrokenSpan): void {
    if (markup && this.tail && text.length > 0) this.holdInTail(text, start, false, markup);
    else this.pushText(text, start);
  }

  /** A candidate was released verbatim at the limit: counted, and no later call of the reply runs. */
  protected overflow(): void {
    this.heldNoCall++;
    this.endUnknown();
  }

  /** Markup ended where no one can tell (the limit, a part's end inside it): no later call of the reply runs. */
  protected endUnknown(): void {
    if (!this.readsGiven) this.overflowed = true;
  }

  /** EngineOptions.history: replayed text, every leak reported where it stood. */
  protected get readsHistory(): boolean {
    return this.history;
  }

  /** Text that goes out, unless a call is behind it: then it waits in the tail. */
  protected pushText(text: string, start: number): void {
    if (text.length === 0) return;
    if (this.tail) this.holdInTail(text, start, false);
    else appendText(this.out, text);
  }

  /** `noise`: a marker stripped where it stood, reported (at once when no call is behind it). */
  protected holdInTail(text: string, start: number, noise: boolean, markup?: BrokenSpan): void {
    const tail = this.tail;
    if (!tail) {
      if (noise) this.stripped.push({ span: [start, start + text.length], kind: "noise" });
      return;
    }
    // D06: prose after a call in the reasoning channel is the model still thinking, not a result.
    if (this.thinking && !noise && !isBlank(text)) {
      this.releaseHeldTail();
      this.pushText(text, start);
      return;
    }
    if (this.blockHold !== null && start + text.length - this.blockHold.from > this.limit) {
      // Calls held for their block's closer are held no longer than the limit: then they run, as at the reply's end.
      this.settleHeldCalls("run");
      this.holdInTail(text, start, noise, markup);
      return;
    }
    const room = tail.room(this.limit);
    const fits = text.length <= room;
    tail.hold(start, fits ? text.length : room, noise, markup);
    if (fits) return;
    this.heldNoCall++;
    this.releaseHeldTail();
    this.pushText(text.slice(room), start + room);
  }

  /**
   * Markup stripped where it stood, reported once. Held after a call, it takes its place in the
   * tail (counted against the limit like the rest), never to be released.
   */
  private strip(span: [number, number], kind: "native-call-duplicate" | "echoed-markup"): void {
    this.stripped.push({ span, kind });
    if (!this.tail?.holdGone(span[0], span[1] - span[0], this.limit)) return;
    this.settleHeldCalls("run");
    this.heldNoCall++;
    this.releaseHeldTail();
  }

  /** Another call follows, the tail outgrew the limit, or the caller could wait no longer. */
  protected releaseHeldTail(): void {
    if (this.blockHold !== null) this.settleHeldCalls("run");
    const tail = this.tail;
    if (!tail) return;
    this.tail = null;
    tail.release(this.store, this.out, this.stripped);
  }

  /** The reply ended: the text after the last call is stripped (S03). */
  protected endTail(): void {
    this.settleHeldCalls("run");
    const tail = this.tail;
    if (!tail) return;
    this.tail = null;
    tail.end(this.store, this.stripped);
  }
}

const PART_END_HELD = "a call held for its block's closer when a part of the reply ended with the block still open: what the next part writes in the block may refuse it";

/** A call read in a block still open, held for the block's closer (Output.blockHold). */
interface HeldCall {
  tool: string;
  input: Record<string, unknown>;
  shape: Shape;
  start: number;
  end: number;
  markup: string;
  /** Where its report goes in `broken` if it is refused. */
  brokenAt: number;
}
