// D06: a tool call written in the reasoning channel, as when a server's reasoning parser misses the
// end of thinking and the model stops right after writing its call as markup in the thinking.
import type { RecoveredCall } from "../parse/types.ts";
import { DEFAULT_BUFFER_LIMIT } from "./limits.ts";
import type { AnswerSoFar, EngineEvent, EngineSummary } from "./types.ts";
import { FedText, isBlank } from "./fed-text.ts";
import type { GuardedEngine } from "./guarded.ts";
import { NEED_MORE, readTag } from "../grammar/tags.ts";

/**
 * The stretch's last call block while nothing but whitespace follows it: the one block that may
 * still turn out to be the answer (`runnable`, held), or one already shown as text, followed only
 * so that the whitespace after it, which the engine drops at the end, is shown too.
 */
interface Trailing {
  runnable: boolean;
  calls: RecoveredCall[];
  /** The block's own markup, shown in the reasoning if it does not run. */
  markup: string;
  /** Offset (in its stretch's engine) just after the block. */
  end: number;
  /** Whitespace after the block as the engine released it (its stretch still open); held only if runnable. */
  released: string;
  /** Whitespace fed after the block, as written, up to `fedTo`. */
  fed: string;
  fedTo: number;
  guard: GuardedEngine;
  /** Its stretch has ended. */
  closed: boolean;
}

/**
 * Reasoning text runs through its own engine (same tools, echo guard, documentation rule). The
 * leak D06 exists for is a call block at the very end of the reasoning, after which the model
 * stopped: only that block may run. A call block is the trailing block when it starts a line
 * (indentation aside), nothing but whitespace follows it until the reasoning ends, and no later
 * stretch of reasoning begins; the calls of one block (one markup run, several invokes) run
 * together. Every other call the reasoning wrote (one the model weighed and rejected, a draft and
 * its correction, one mid-line) stays in the reasoning as the text it was, and never runs.
 *
 * The trailing block runs only when the reasoning was the whole answer: the content channel
 * carried nothing but whitespace and no native call or content call came. Otherwise its markup
 * goes back into the reasoning. Until that is known the channel holds the block (its markup and
 * the whitespace after it, at most DEFAULT_BUFFER_LIMIT characters; a longer one is shown).
 *
 * Text the channel hands back later (the held block that did not run) belongs to the stretch that
 * held it, the last one closed: `take()` gives it, and callers put it there.
 *
 * The stretches of one reply are one reasoning, read in one documentation context: a later stretch's
 * engine continues where the last one's left off (EngineOptions.continues), so a fence opened in
 * one stretch still holds in the next, whatever content came between. The content channel keeps its
 * own context: a fence in the reasoning never reaches the content, nor one in the content the reasoning.
 */
export class ReasoningChannel {
  /** A fresh engine for a stretch; `continues`: where the stretches before it left the reasoning. */
  #open: (continues?: AnswerSoFar) => GuardedEngine;
  #guard: GuardedEngine | undefined;
  #fed: FedText = new FedText();
  #closed: GuardedEngine[] = [];
  #trailing: Trailing | undefined;
  #owed = "";
  #answered = false;
  #settled: RecoveredCall[] | undefined;
  #ranFrom: GuardedEngine | undefined;
  #wasAnswer = false;

  constructor(open: (continues?: AnswerSoFar) => GuardedEngine) {
    this.#open = open;
  }

  /** An engine holds reasoning text right now (a stretch is open), or a block waits for the end. */
  get active(): boolean {
    return this.#guard !== undefined || this.#trailing !== undefined;
  }

  /** A block of a closed stretch waits for the end of the reply: that stretch's end is not final yet. */
  get holding(): boolean {
    return this.#trailing?.closed === true;
  }

  /** Content or a native call arrived: the reasoning was only thinking. */
  get answered(): boolean {
    return this.#answered;
  }

  /** The reasoning text to pass on now for this delta; a block that may still run is kept back. */
  feed(delta: string): string {
    if (delta === "" || this.#settled) return delta;
    if (!this.#guard) this.#begin();
    const guard = this.#guard!;
    if (guard.done) return this.#show() + delta;
    this.#fed.push(delta);
    const step = guard.step({ delta });
    // A failed engine handed back what it held; the rest of the stretch passes through.
    if (!step.ok) return this.#show() + step.held + delta;
    const text = this.#read(step.events, guard, false);
    this.#fed.keepFrom(this.#fed.end - guard.held);
    return text;
  }

  /** The stretch ended: what its engine still held (a trailing block stays held). */
  close(): string {
    const guard = this.#guard;
    if (!guard) return "";
    this.#guard = undefined;
    // A failed engine goes on reading the later stretches (see #begin): listed once.
    if (this.#closed.at(-1) !== guard) this.#closed.push(guard);
    if (guard.done) return this.#show();
    const step = guard.step({ flush: true });
    if (!step.ok) return this.#show() + step.held;
    let text = this.#read(step.events, guard, true);
    const trailing = this.#trailing;
    if (trailing && !trailing.runnable) {
      this.#trailing = undefined;
      // The engine drops whitespace after a call at the end; a call shown as text keeps it.
      return text + trailing.fed.slice(trailing.released.length);
    }
    if (trailing) {
      trailing.closed = true;
      trailing.released = trailing.fed;
      if (this.#answered || this.#settled) text += this.#show();
    }
    return text;
  }

  /**
   * The reasoning part being read turned out signed (its provider checks the text when it is
   * replayed: an Anthropic thinking block's signature comes after its text): no call of it runs, and
   * its text must stay as written. The open stretch ends here, its engine stopped: what it held,
   * its trailing block included, is returned exactly as fed, for the caller to pass on in that part.
   * With no stretch open, a block the last closed one holds goes back (take()).
   */
  sign(): string {
    const guard = this.#guard;
    if (!guard) {
      if (this.#trailing?.closed) this.#owed += this.#show();
      return "";
    }
    this.#guard = undefined;
    if (this.#closed.at(-1) !== guard) this.#closed.push(guard);
    // A block of this stretch comes before what the engine still holds (the whitespace after it, or more).
    return this.#show() + guard.stop();
  }

  /** Text that goes back into the last closed stretch: a held block that will not run. */
  take(): string {
    const owed = this.#owed;
    this.#owed = "";
    return owed;
  }

  /** Content text arrived; only text that is not whitespace makes it an answer. */
  noteContent(text: string): void {
    if (this.#answered || isBlank(text)) return;
    this.#answer();
  }

  noteNative(): void {
    if (!this.#answered) this.#answer();
  }

  /** No calls from the reasoning any more (the content side gave up): a held block goes back. */
  abandon(): void {
    this.#settled ??= [];
    if (this.#trailing?.closed) this.#owed += this.#show();
  }

  /**
   * The reply ended (the caller closed the channel first): the calls to emit. `contentCalls` is how
   * many calls the content channel recovered; any of them means the reasoning was not the answer.
   * Whatever does not run is then in take().
   */
  settle(contentCalls: number): RecoveredCall[] {
    if (this.#settled) return this.#settled;
    const trailing = this.#trailing;
    this.#wasAnswer = !this.#answered && contentCalls === 0;
    if (this.#wasAnswer && trailing?.closed) {
      this.#trailing = undefined;
      this.#ranFrom = trailing.guard;
      this.#settled = trailing.calls;
    } else {
      if (trailing?.closed) this.#owed += this.#show();
      this.#settled = [];
    }
    return this.#settled;
  }

  /** The reasoning engines' reports, only when the reasoning was the answer (its nudges then count). */
  summaries(): EngineSummary[] {
    if (!this.#wasAnswer) return [];
    const out: EngineSummary[] = [];
    for (const guard of this.#closed) {
      const summary = guard.failed ? undefined : guard.summary();
      // Only the trailing block's calls ran; the engine counted every call it read.
      if (summary) out.push({ ...summary, recovered: guard === this.#ranFrom ? (this.#settled?.length ?? 0) : 0 });
    }
    return out;
  }

  #answer(): void {
    this.#answered = true;
    // A block of a closed stretch is now only thought; one in an open stretch goes back when it closes.
    if (this.#trailing?.closed) this.#owed += this.#show();
  }

  /** A new stretch: the reasoning went on, so a block held from the last one was not its end. */
  #begin(): void {
    if (this.#trailing) this.#owed += this.#show();
    this.#fed = new FedText(this.#fed.endsAtLineStart());
    // It reads on in the documentation context the last stretch left (a fence opened there still
    // holds). Once an engine failed that context is lost, so the rest of the reasoning passes
    // through as it came, under that engine (done): nothing in it runs.
    const last = this.#closed.at(-1);
    this.#guard = last?.failed ? last : this.#open(last?.carryOver());
  }

  /** The engine's events as reasoning text: every call shown as written, but for the trailing block. */
  #read(events: EngineEvent[], guard: GuardedEngine, final: boolean): string {
    let text = "";
    /**
     * Text the engine released after the trailing block, read until what follows it is known: the
     * next call (its start bounds what the engine decided after the block) or the step's end.
     * Whatever the engine dropped in between (a cut-off tag, S03) goes back as written (#inkAfter),
     * however the reasoning was cut into deltas.
     */
    let ink: string | undefined;
    for (const event of events) {
      const trailing = this.#trailing;
      if (event.type === "text") {
        if (trailing && ink === undefined && isBlank(event.text)) {
          trailing.released += event.text;
          if (!trailing.runnable) text += event.text;
        } else if (trailing) ink = (ink ?? "") + event.text;
        else text += event.text;
        continue;
      }
      const call = event.call;
      const [start, end] = call.span;
      const markup = this.#fed.slice(start, end);
      if (trailing && (ink !== undefined || trailing.released !== "" || trailing.end !== start)) {
        // Not the block's next invoke: the block and all written between it and this call are text.
        text += this.#inkAfter(trailing, ink ?? "", start);
        ink = undefined;
      }
      // Contiguous markup is one block (a function_calls block's invokes come one after another):
      // its calls all run or are all shown.
      if (this.#trailing && trailing) {
        // What was fed after the block so far was this call (the engine held it): start again after it.
        trailing.end = end;
        trailing.fed = "";
        trailing.fedTo = end;
        if (trailing.runnable && trailing.markup.length + markup.length <= DEFAULT_BUFFER_LIMIT) {
          trailing.calls.push(call);
          trailing.markup += markup;
          continue;
        }
        // Too long to hold: the whole block is shown, and the rest of it follows as text.
        text += this.#show() + markup;
        this.#trailing = { ...trailing, runnable: false, calls: [], markup: "" };
        continue;
      }
      text += this.#show();
      const runnable = !this.#answered && this.#fed.atLineStart(start);
      if (!runnable) text += markup;
      this.#trailing = { runnable, calls: [call], markup, end, released: "", fed: "", fedTo: end, guard, closed: false };
    }
    if (ink !== undefined) return text + this.#inkAfter(this.#trailing!, ink, this.#fed.end - guard.held);
    const trailing = this.#trailing;
    if (!trailing || trailing.closed) return text;
    // Anything but whitespace after the block: not the end. Until the stretch ends, what the engine
    // still holds may be the block's next invoke; what it decided and did not release as
    // whitespace (stripped) counts as written after the block.
    const decided = this.#fed.end - guard.held;
    // At the end, the end-of-sentence token (D07), with whitespace, may follow the block as in content: the engine drops it.
    const after = final && this.#fed.lastInk > trailing.end ? trailing.fed + this.#fed.slice(trailing.fedTo, this.#fed.end) : "";
    if (final ? this.#fed.lastInk > trailing.end && !onlyEndOfSentence(after) : decided > trailing.end + trailing.released.length) {
      // Not the end; at the end the engine decided all of it, released nothing but whitespace, and
      // dropped the rest as the call's own (a cut-off tag: `<{D}inv`, the closer cut as `</{D}t`).
      return text + (final ? this.#inkAfter(trailing, "", this.#fed.end) : this.#show());
    }
    trailing.fed += this.#fed.slice(trailing.fedTo, this.#fed.end);
    trailing.fedTo = this.#fed.end;
    if (trailing.runnable && trailing.markup.length + trailing.fed.length > DEFAULT_BUFFER_LIMIT) {
      // Too long to hold: shown, and followed on like any block shown as text.
      text += this.#show();
      this.#trailing = { ...trailing, runnable: false, calls: [], markup: "" };
    }
    if (!this.#trailing?.runnable && trailing.fed.length > DEFAULT_BUFFER_LIMIT) {
      // Followed this far, the whitespace the engine still holds comes out as text anyway.
      this.#trailing = undefined;
    }
    return text;
  }

  /**
   * The block is not the end: `ink`, text the engine released after it, or "", up to `decided`
   * (the next call's start, the engine's decided end, or the stretch's end). What the engine
   * dropped after the call (a cut-off tag read as the call's own markup, S03/D07) is reasoning
   * text after a block that stays text: everything fed from the
   * block to `decided` goes out as written (but for special tokens, rewritten), when what the
   * engine released there reads back in it in order; else the block and `ink` only, as before.
   */
  #inkAfter(trailing: Trailing, ink: string, decided: number): string {
    // trailing.fed is what was written from the block's end to fedTo; the engine may have held past
    // `decided` (the next call's markup, fed in the same delta): only what comes before it is read.
    const after = decided >= trailing.fedTo ? trailing.fed + this.#fed.slice(trailing.fedTo, decided) : decided >= trailing.end ? trailing.fed.slice(0, decided - trailing.end) : undefined;
    const held = this.#show();
    if (after === undefined) return held + ink;
    if (trailing.runnable) {
      const written = rewritten(trailing.released + ink, after);
      return written === undefined ? held + ink : trailing.markup + written;
    }
    // A block shown already showed the whitespace the engine released after it.
    const written = after.startsWith(trailing.released) ? rewritten(ink, after.slice(trailing.released.length)) : undefined;
    return written ?? ink;
  }

  /** The held block as the reasoning text it was, and no longer held (a block already shown: nothing more). */
  #show(): string {
    const trailing = this.#trailing;
    if (!trailing) return "";
    this.#trailing = undefined;
    return trailing.runnable ? trailing.markup + trailing.released : "";
  }
}

/**
 * What follows the trailing block at the end of the reasoning is whitespace around one
 * end-of-sentence token (`<{BAR}end{SP}of{SP}sentence{BAR}>`, D07: a server that decoded the special token as
 * text), and nothing else: the block is still the reasoning's end (review 50).
 */
function onlyEndOfSentence(after: string): boolean {
  let i = 0;
  while (i < after.length && isBlank(after, i, i + 1)) i++;
  const tag = i < after.length ? readTag(after, i, true) : null;
  return tag !== null && tag !== NEED_MORE && tag.family === "legacy" && tag.legacy === "eos" && isBlank(after, tag.end);
}

/**
 * `written` with what the engine dropped from it put back, `released` being what it let through, in
 * order (undefined when `released` does not read in `written`): a dropped run is put back unless it
 * is special tokens only (an end-of-sentence token, `<{BAR}User{BAR}>`: tag family "legacy"), which
 * the engine strips after a call in the reasoning too, the block shown or not (D07, review 50).
 */
function rewritten(released: string, written: string): string | undefined {
  let out = "";
  /** `written` is copied up to here; `j`: the next character to match. */
  let copied = 0;
  let j = 0;
  for (let i = 0; i < released.length; i++) {
    const c = released.charCodeAt(i);
    let k = j;
    while (k < written.length && written.charCodeAt(k) !== c) k++;
    if (k === written.length) return undefined;
    if (k > j) {
      out += written.slice(copied, j) + putBack(written.slice(j, k));
      copied = k;
    }
    j = k + 1;
  }
  return out + written.slice(copied, j) + putBack(written.slice(j));
}

/**
 * A run the engine dropped, put back without its special tokens: a cut-off tag goes back as
 * written, an end-of-sentence token beside it (one dropped run) does not (D07). Every other tag
 * read in the run is copied whole, so no token is read inside one.
 */
function putBack(run: string): string {
  let out = "";
  let i = 0;
  while (i < run.length) {
    const tag = readTag(run, i, true);
    if (tag === null || tag === NEED_MORE || tag.start !== i || tag.end <= i) {
      out += run[i];
      i++;
      continue;
    }
    if (tag.family !== "legacy") out += run.slice(i, tag.end);
    i = tag.end;
  }
  return out;
}
