import { parseSpan } from "../parse/span.ts";
import { isMalformedBlock, markMalformedBlock, noteMalformedBlock, showsStrayParameter } from "../parse/dialects/dsml/parse-span.ts";
import type { Segment } from "../parse/segments.ts";
import type { BrokenSpan } from "../parse/types.ts";
import type { Shape } from "../grammar/shapes.ts";
import { NEED_MORE, readTag } from "../grammar/tags.ts";
import type { Candidate, Step } from "./candidate.ts";
import { CR, GT, LF, SP, TAB } from "../grammar/chars.ts";
import { CutReports, cutTagOf, joinCutTag } from "./cut-tag.ts";
import { stopAt } from "./stop-chars.ts";
import { decidedInPart } from "./part-end.ts";
import { showsStrayInText } from "./span-stray.ts";
import { TextMode } from "./text-mode.ts";
import type { AnswerSoFar, EngineEvent, EngineOptions, GivenReader, RepairEngine } from "./types.ts";

/** Smallest piece of a delta handed to a candidate at once. */
const PIECE = 256;

export function createRepairEngine(options: EngineOptions): RepairEngine {
  return new Engine(options);
}

/**
 * The incremental engine: text mode (text-mode.ts) releases everything that cannot start a marker
 * in the same chunk and holds at most one undecided tag; a candidate holds only its own span. Each
 * character is scanned a bounded number of times, so a feed costs O(chunk) plus at most one tag.
 * This class feeds the candidates and ends them (at a span's end it also settles which block the
 * stray-parameter rule watches), and keeps the steps (feed, flush, ...) with the fast path for the
 * usual delta. Where what it read goes is output.ts's: the events, the text held
 * after a call, the calls and the report. One class in three files, so the fast path and the scan
 * read every field on the engine itself.
 */
class Engine extends TextMode implements RepairEngine {
  /** Text from an opener still undecided (a tag cut off, a name that may be one): read again with the next delta. */
  private carry = "";
  /** Offset, in everything fed, where `carry` starts (with no carry: the end of what was fed). */
  private pos = 0;
  private flushed = false;
  /** How far a run after a cut value read in vain (SpanCallbacks.valueRunsReadTo): no later span holds that text again. */
  private valueRunsReadTo = -1;
  /** endSpan is deciding what is still open: a call cut off there mid-line is reported only if the reply ends there (finish). */
  private spanEnding = false;
  /** The part ending now is not the reply's end, and not replayed history nor given content: nothing pending there runs (endSpan). */
  private decidesNothing = false;
  /** Costumes the reply ended open whose rest was offered for reading again (COSTUME_REREADS). */
  private costumeRereads = 0;
  /** A marker tag the last part's end cut off, waiting for this part's first text (cut-tag.ts); null: none. */
  private cutTag: string | null;
  /** The reports of calls the last part's end cut off mid-line, withdrawn when this part brings text. */
  private cutReports: CutReports | null;
  /** Those of the part ending now (endSpan). */
  private cutNow: BrokenSpan[] = [];
  private readonly given: GivenReader | undefined;

  constructor(options: EngineOptions) {
    super(options);
    this.given = options.readingGiven;
    this.cutTag = options.readingGiven ? null : (options.continues?.cutTag ?? null);
    this.cutReports = options.readingGiven ? null : (options.continues?.cutReports ?? null);
  }

  get held(): number {
    return Math.max(this.carry.length + (this.cand?.length ?? 0) + (this.tail?.length ?? 0), this.heldForBlock);
  }

  withdrawCalls(): EngineEvent[] {
    const out = this.withdraw();
    if (!this.flushed) this.store.keepLast(this.held);
    return out;
  }

  noteNativeToolCall(): EngineEvent[] {
    this.out = [];
    this.nativeCame();
    if (!this.flushed) this.store.keepLast(this.held);
    return this.out;
  }

  releaseTail(): EngineEvent[] {
    this.out = [];
    this.releaseHeldTail();
    this.store.keepLast(this.held);
    return this.out;
  }

  endSpan(): EngineEvent[] {
    if (this.flushed) throw new Error("dsml-fix engine: endSpan after flush");
    this.out = [];
    // Fix 54b: a part's end decides nothing (part-end.ts). Markup pending here (a candidate, a
    // block still watched, the calls held for its closer) is shown as written, no later call of the
    // reply runs; replayed history and given content are read on as at the reply's end.
    this.decidesNothing = !this.readsHistory && !this.given;
    // A tag the last boundary cut that this whole part did not complete: still waiting here.
    const waiting = this.cutTag;
    const readAsTag = waiting !== null && readTag(waiting, 0, true) !== null;
    if (readAsTag) this.endUnknown();
    // Fix 55: text mode still holding text (`carry`: a tag cut off in any spelling a reader takes,
    // `<{D}parameter=` too, or a name or prefix that may still open markup) holds it because what
    // follows may make it markup: pending, as an open candidate is. So is a cut tag still waiting
    // from an earlier part's end, at every part's end it reaches (a tag cut over three parts).
    if (this.decidesNothing && (this.carry !== "" || waiting !== null)) this.endUnknown();
    this.cutTag = waiting !== null && !readAsTag ? waiting : cutTagOf(this.carry !== "" ? this.carry : (this.cand?.text() ?? ""));
    this.spanEnding = true;
    this.cutNow = [];
    try {
      this.process("", true);
      this.leavePendingBlock();
    } finally {
      this.spanEnding = this.decidesNothing = false;
    }
    this.cutReports = this.cutNow.length > 0 ? new CutReports(this.broken, this.cutNow) : null;
    // A part boundary ends markup: the next part reads on as a fresh reply would after it (its
    // parameter openers open loose values, golden S02.9; a bar right after a `<` cut off at the
    // boundary is a `<`-lost opener, golden P48.8), never as the rest of a call cut off here.
    this.doc.partEnded();
    if (this.cutTag !== null) this.lines.forgetPrev();
    this.leaveStrayBlock();
    this.store.keepLast(this.held);
    return this.out;
  }

  /** At a part's end that decides nothing, once markup pending there proved undecided, no held call runs: the next part may still refuse them. */
  protected override settleHeldCalls(how: "run" | "refuse" | "unknown" | "native"): void {
    super.settleHeldCalls(this.decidesNothing && how === "run" && this.markupOverflowed ? "unknown" : how);
  }

  /** At a part's end that decides nothing: a block still watched (open, or its closer's line not ended) holds its calls as markup of unknown end. */
  private leavePendingBlock(): void {
    if (!this.decidesNothing || this.strayBlock === null) return;
    this.endUnknown();
    this.settleHeldCalls("unknown");
  }

  feed(delta: string): EngineEvent[] {
    if (this.flushed) throw new Error("dsml-fix engine: feed after flush");
    if (this.cutTag !== null && delta.length > 0) this.joinCut(delta);
    // The reply went on past the part's end: a call cut off there mid-line was no truncated call.
    if (this.cutReports !== null && delta.length > 0) {
      this.cutReports.withdraw();
      this.cutReports = null;
    }
    if (this.isPlain(delta)) {
      this.lines.read(delta, 0, delta.length);
      this.releasePlain(delta.length);
      return delta.length > 0 ? [{ type: "text", text: delta }] : [];
    }
    this.out = [];
    if (delta.length > 0) {
      this.store.append(delta);
      this.process(delta, false);
      this.store.keepLast(this.held);
    }
    return this.out;
  }

  /** The tag the last part's end cut (cut-tag.ts), with this part's first text: read across the boundary, the markup's end is unknown. */
  private joinCut(delta: string): void {
    const joined = joinCutTag(this.cutTag!, delta);
    this.cutTag = typeof joined === "string" ? joined : null;
    if (joined === true) this.endUnknown();
  }

  override carryOver(): AnswerSoFar {
    const answer = super.carryOver();
    return this.cutTag === null && this.cutReports === null ? answer : { ...answer, ...(this.cutTag !== null ? { cutTag: this.cutTag } : {}), ...(this.cutReports !== null ? { cutReports: this.cutReports } : {}) };
  }

  heldText(from: number, to: number): string {
    return this.store.slice(from, to);
  }

  /** Most deltas are mid-line text with nothing that could matter: released as they are. */
  private isPlain(delta: string): boolean {
    return this.quiet() && stopAt(delta, 0) === -1;
  }

  /** A plain delta released whole: it moves the offsets on and is never stored. */
  private releasePlain(length: number): void {
    this.pos += length;
    this.store.skip(length);
  }

  /** Nothing held, nothing pending, mid-line: a delta without a STOP character changes nothing here. */
  private quiet(): boolean {
    return this.carry === "" && this.cand === null && this.tail === null && !this.pendingClose && this.doc.midLine;
  }

  flush(): EngineEvent[] {
    this.out = [];
    if (this.flushed) return this.out;
    this.flushed = true;
    this.cutTag = null;
    this.cutReports = null;
    this.process("", true);
    this.endTail();
    this.store.keepLast(this.held);
    return this.out;
  }

  /** Reads the carry and `text` on: text mode and candidates in turn. `final`: no more text comes in this span. */
  private process(text: string, final: boolean): void {
    let s = this.carry === "" ? text : this.carry + text;
    let base = this.pos;
    let i = 0;
    this.carry = "";
    for (;;) {
      const cand = this.cand;
      if (cand) {
        // No call runs after markup of unknown end: a complete one is not read on for a stray value closer (call-run.ts).
        if (this.markupOverflowed) cand.weighsRun = false;
        cand.valueRunsReadTo = this.valueRunsReadTo;
        // Pieces grow with the candidate, so a long delta costs each candidate O(its own span).
        const room = cand.start + this.limit - cand.end;
        const take = Math.min(room, s.length - i, Math.max(PIECE, cand.length));
        const last = i + take === s.length;
        let step = cand.consume(i === 0 && last ? s : s.slice(i, i + take), final && last);
        const fedEnd = i + take;
        if (step.kind === "more" && cand.length >= this.limit) {
          // A run read after a complete call (call-run.ts), or text held for its wrapper's closer, proves nothing at the limit: the span ends where the call did.
          const ended = cand.endAtLimit();
          if (ended) step = ended;
        }
        if (step.kind === "more") {
          if (cand.length >= this.limit) {
            this.releaseCandidate(cand, cand.length, true);
            i = fedEnd;
            continue;
          }
          if (!last) {
            i = fedEnd;
            continue;
          }
          if (final) {
            const read = this.finishAtEnd(cand);
            if (read < cand.length) {
              // The span's parser read only a prefix: the rest is text again (see finish).
              s = cand.textFrom(cand.start + read);
              base = cand.start + read;
              i = 0;
              continue;
            }
          }
          this.pos = base + s.length;
          return;
        }
        // No later span holds again what a run after a cut value read in vain (SpanCallbacks.valueRunsReadTo).
        if (cand.valueRunReach > this.valueRunsReadTo) this.valueRunsReadTo = cand.valueRunReach;
        let cut = spanEnd(cand, step);
        if (step.kind === "complete" && cut === step.end) cut = cand.start + this.finish(cand, cut - cand.start, false);
        else this.releaseCandidate(cand, cut - cand.start, false);
        // The rest is still in `s` unless the span ended inside an earlier delta.
        const rest = cut >= base ? null : cand.textFrom(cut) + s.slice(fedEnd);
        if (rest === null) {
          i = cut - base;
        } else {
          s = rest;
          base = cut;
          i = 0;
        }
        continue;
      }
      const stop = this.scanText(s, i, base, final);
      if (stop < 0) {
        this.pos = base + s.length;
        return;
      }
      i = stop;
      if (!this.cand) {
        this.carry = s.slice(i);
        this.pos = base + i;
        return;
      }
    }
  }

  private finishAtEnd(cand: Candidate): number {
    return this.finish(cand, cand.length, !cand.completesAtEnd(), true);
  }

  /**
   * Applies a complete span's segments; returns how much of the span they cover. A parser may read
   * only a prefix (a broken invoke that ran on into later markup, parse/dialects/dsml/parse-span.ts): the rest is read
   * again as text by the caller, after the prefix went through the documentation context, still
   * inside the candidate's block when there was one.
   */
  private finish(cand: Candidate, length: number, truncated: boolean, undecided = false): number {
    this.cand = null;
    // The block this span reads in (its own, or the one it continues).
    const block = cand.root === "block" ? cand.opener : cand.enclosing !== null && cand.enclosing !== true ? cand.enclosing : null;
    const text = cand.text();
    let span = length === text.length ? text : text.slice(0, length);
    // An empty block closed at once inside the watched one (`<{D}tool_calls>` `</{D}tool_calls>`):
    // its closer is no closer of the watched block, so it neither takes the watch over nor ends it,
    // and the watched block stays open around it: a stray after the pair refuses its calls, as without it.
    const nested = block !== null && this.strayBlock !== null && this.strayBlock !== block && cand.root === "block" && !truncated && emptyBlockSpan(span, cand.opener.end);
    // A new block before the watched one's closer takes over the watch with the calls held for it:
    // an opener is no closer, so a stray in the new block refuses them too (they run when it closes).
    if (block !== null && this.strayBlock !== null && this.strayBlock !== block && !nested) this.watchBlock(block);
    if (!nested) this.openBlock = cand.endsInBlock && !truncated ? (cand.root === "block" ? cand.opener : cand.root === "legacy-section" ? true : cand.enclosing) : null;
    let segments: Segment[];
    try {
      // Review 53: a costume the reply ended open may have its rest read again, a bounded number of
      // times (costume-hold.ts). Not in given content: the echo guard reads a swallowed rest again in its own rounds.
      const replyEnded = truncated && !this.spanEnding && !this.given && COSTUMES.has(cand.root) && this.costumeRereads < COSTUME_REREADS ? { replyEnded: true } : null;
      if (replyEnded !== null) this.costumeRereads++;
      const ctx = cand.openerIndent || cand.openerPlace || replyEnded ? { ...this.ctx, openerIndent: cand.openerIndent || null, openerPlace: cand.openerPlace, ...replyEnded } : this.ctx;
      segments = parseSpan(span, cand.root, cand.opener, cand.named !== null, truncated, ctx, cand.enclosing);
    } catch {
      segments = [{ kind: "text", start: 0, end: span.length }];
    }
    // Fix 54b: a candidate a part's end decides (what it waited for, the next part writes) is
    // markup of unknown end: its calls are shown as written (Output.applySegment), none later runs.
    if (this.decidesNothing && !decidedInPart(cand, span, undecided, segments, this.ctx)) this.endUnknown();
    // A body that broke after it proved to be a call: the whole span is refused, so nothing inside it runs (golden O48.2-O48.4).
    if (cand.refused !== null) segments = refusedSpan(segments, span.length, cand.refused, truncated);
    const read = segments.length > 0 ? segments[segments.length - 1]!.end : span.length;
    const partial = read > 0 && read < span.length;
    if (partial) {
      span = span.slice(0, read);
      this.openBlock = cand.root === "block" ? cand.opener : cand.enclosing;
    }
    // A parameter outside every invoke of the block still open: its later calls are refused too (golden P47.13).
    if (block !== null) noteMalformedBlock(segments, block);
    // And so are its calls held for its closer (read before the stray, in earlier spans: golden P47.14).
    if (block !== null && this.strayBlock === block && isMalformedBlock(block)) this.settleHeldCalls("refuse");
    // A block still open holds this span's calls for its closer; one this span closed (or the reply cut off) lets them run.
    // Qwen3-Coder's `<tool_call>` wrapper, its function complete and its closer still to come, is such a block too.
    const holds = this.openBlock !== null && this.openBlock !== true ? this.openBlock : cand.root === "tool-call" && cand.endsInBlock && !truncated && !partial ? cand.opener : null;
    if (holds !== null && this.strayBlock !== holds) this.watchBlock(holds);
    // A span that closed its block (an orphan invoke read after prose may take the closer) ends it
    // once its calls are read, when the closer ends its line (text mode looks past the span's end:
    // pendingClose); one with words after it on its line is prose, and the block stays watched.
    const closes = holds === null && !nested && (block !== null || cand.closedBlock);
    const closerLine = closes ? closerLineInSpan(span) : true;
    if (closerLine !== true && block !== null && this.strayBlock === null) this.watchBlock(block);
    this.lines.read(span, 0, span.length, isMention(cand, span, segments) ? undefined : segments.some((seg) => seg.kind === "call") ? "call" : "shown");
    this.given?.candidateEnded(span, cand.opener.end, segments);
    this.finishingOrphan = block === null && cand.root === "invoke" && cand.opener.family === "dsml";
    const reported = this.broken.length;
    // Text of this span no call took may show a stray DSML parameter text mode never read (a
    // cut-off call that ran on over it): the calls after it, here and later, are refused (I02).
    for (const seg of segments) {
      this.applySegment(seg, span, cand.start);
      if (seg.kind !== "call" && showsStrayInText(span, seg.start, seg.end, this.ctx.tools, seg.start === 0 && this.finishingOrphan)) {
        this.strayBefore = this.strayInSpan = true;
        // The block it read in (still open for what follows) is malformed: its later calls are refused too (golden P47.13).
        if (block !== null) markMalformedBlock(block);
      }
    }
    // Cut off mid-line by a part's end: its truncated-call report stands only if the reply ends
    // there (CutReports). Cut at a line end it stands (the one text reports it too when a fence
    // follows); replayed history keeps every report, so the note replaces it.
    if (truncated && this.spanEnding && !this.readsHistory && !endsLine(span)) this.cutNow.push(...this.broken.slice(reported).filter((b) => b.reason === "truncated-call"));
    this.finishingOrphan = this.strayInSpan = false;
    // A stray parameter this span showed (its block's calls refused) refuses the orphan invokes after it too (golden P48.5).
    if (showsStrayParameter(segments)) this.strayBefore = true;
    if (closes && closerLine === true) this.leaveStrayBlock();
    else if (closes && this.strayBlock !== null) this.pendingClose = closerLine === "pending";
    return span.length;
  }

  /** Candidate text that proved not to be a call: visible, and documentation context sees it. */
  private releaseCandidate(cand: Candidate, length: number, hitLimit: boolean): void {
    this.cand = null;
    if (this.decidesNothing) this.endUnknown();
    this.openBlock = null;
    if (hitLimit) {
      this.leaveStrayBlock();
      this.overflow();
    }
    const text = cand.text();
    const released = length === text.length ? text : text.slice(0, length);
    this.lines.read(released, 0, released.length, isMention(cand, released) ? undefined : hitLimit ? "shown" : "call");
    this.given?.candidateEnded(released, cand.opener.end, null);
    this.releaseVisible(released, cand.start);
  }
}

/** How many costumes the reply ended open may have their rest read again (review 53): each re-read costs the rest once. */
const COSTUME_REREADS = 8;

/** The roots of code costume candidates (costume-hold.ts). */
const COSTUMES: ReadonlySet<string> = new Set(["costume", "inline-costume", "paragraph-costume"]);

/**
 * Whether `span`, a block's span whose opener ends at `openerEnd`, holds nothing but spaces and
 * line breaks, then a block closer, then spaces and line breaks to its end: an empty block closed
 * at once. Linear in the span.
 */
function emptyBlockSpan(span: string, openerEnd: number): boolean {
  const at = spacesEnd(span, openerEnd);
  const tag = at < span.length ? readTag(span, at, true) : null;
  if (tag === null || tag === NEED_MORE || !tag.closing || tag.role !== "block") return false;
  return spacesEnd(span, tag.end) === span.length;
}

/** Past the spaces, tabs and line breaks from `k`. */
function spacesEnd(s: string, k: number): number {
  while (k < s.length) {
    const c = s.charCodeAt(k);
    if (c !== SP && c !== TAB && c !== LF && c !== CR) break;
    k++;
  }
  return k;
}

/** The text ends with a line end (a part cut there leaves no line going on). */
function endsLine(text: string): boolean {
  const c = text.charCodeAt(text.length - 1);
  return c === LF || c === CR;
}

/**
 * Whether the block closer a span ended with ends its line: true when only spaces and a line break
 * follow it in the span, "pending" when the span ends at its `>` (what follows is read next),
 * false when words follow it on its line inside the span.
 */
function closerLineInSpan(span: string): boolean | "pending" {
  let k = span.length;
  while (k > 0 && (span.charCodeAt(k - 1) === SP || span.charCodeAt(k - 1) === TAB)) k--;
  if (k === 0) return true;
  const c = span.charCodeAt(k - 1);
  if (c === LF || c === CR) return true;
  return k === span.length && c === GT ? "pending" : false;
}

/**
 * A candidate read as text inside one line of prose (`The agent writes <shell>ls</shell> or, like`):
 * an inline mention, which leaves that line prose, so the paragraph rule reads the line's own end.
 * A span that reaches a later line, or holds a call or broken markup, makes its line markup: no
 * running sentence.
 */
function isMention(cand: Candidate, span: string, segments: readonly Segment[] = []): boolean {
  return cand.openerPlace === "inline" && !span.includes("\n") && !span.includes("\r") && segments.every((seg) => seg.kind === "text");
}

/**
 * The progress guarantee, kept here and nowhere else: a candidate never ends where it began, so
 * every turn of process() moves at least one character past the candidate's start, and text mode
 * (which only opens a candidate at or after that point) can never meet the same start twice. A
 * candidate whose opener is 0 characters long (the O06 residue) and that proves not to be a call
 * at its own first character releases that one character; a "complete" at its own start (no
 * dialect produces one) is released the same way rather than made an empty call.
 */
function spanEnd(cand: Candidate, step: Exclude<Step, { kind: "more" }>): number {
  const cut = step.kind === "complete" ? step.end : step.at;
  return cut > cand.start ? cut : cand.start + 1;
}

/**
 * A span whose body the candidate refused (Candidate.refuseWhole): one broken-markup report over
 * all of it, its text kept. The parser's own report is kept when it already covers the span; a tool
 * it named (a declared one) is named in the report.
 */
function refusedSpan(segments: Segment[], length: number, refused: { shape: Shape; detail: string; at: number; nested: boolean }, truncated: boolean): Segment[] {
  // The reply ended before the wrapper's closer: the markup reported is what came before the body
  // broke (as a call cut off, golden T29.8-T29.9), its end unknown (`unbounded`): the rest is read
  // again as text, and no call after it runs (overflowed-markup), as after a candidate past bufferLimit.
  // A call example left open in a value (`nested`): the value runs on to the reply's end, its text.
  const end = truncated && !refused.nested && refused.at > 0 && refused.at < length ? refused.at : length;
  const only = segments.length === 1 ? segments[0]! : null;
  const named = segments.find((s) => s.kind !== "text");
  const tool = named?.kind === "call" || named?.kind === "broken" ? named.tool : undefined;
  // Its detail and tool; a body cut off by the reply's end is still refused as broken (nothing ran out of it).
  const broken: Segment =
    only !== null && only.kind === "broken" && only.start === 0 && only.end === length && !only.unbounded
      ? { ...only, end, reason: "broken-markup" }
      : { kind: "broken", start: 0, end, shape: refused.shape, reason: "broken-markup", detail: refused.detail, ...(tool !== undefined ? { tool } : {}) };
  return end < length ? [{ ...broken, unbounded: true }] : [broken];
}
