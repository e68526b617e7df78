// Per-event decisions for a streamed Anthropic Messages response. Blocks follow one another
// (start, deltas, stop), so a call released inside a text block closes that block, goes out as a
// tool_use block of its own, and any text after it opens a new text block; every later block
// index moves up by the blocks put in. Markup never spans a text block and a block of another
// kind after it (as in the JSON path): what the engine holds at such a text block's end goes out
// in that block, decided as a span's end when the reply goes on in text or a native call, and
// with the message's stop reason when it ends there (a refusal decides nothing held: shown as
// written, no call); blocks of other kinds in between wait unread (waiting-blocks.ts). A text
// block right after it may continue it.
// A native tool_use block that may repeat a recovered call already sent is held until its stop and
// dropped when it does (sent-calls.ts); a server tool's result block is given content for the text
// after it (from-reply.ts); an `error` event or a `refusal` stop cuts the reply: what is held goes
// out as written, nothing decided, and the stop reason stays.
import type { RecoveredCall } from "../../parse/types.ts";
import type { EngineEvent } from "../../engine/types.ts";
import { type EventRewriter, RAW, type Rewritten, type SseEvent, typedEvent } from "../../sse/rewrite.ts";
import type { PassingEdits } from "../../sse/passing.ts";
import { type Json, isObject } from "../../sse/json.ts";
import type { GuardedEngine } from "../../engine/guarded.ts";
import { collectStrings } from "../../echo/from-request.ts";
import { citesSource, givenFromCitationsDelta, givenFromMessagesBlock, isGivenBlock } from "../../echo/from-reply.ts";
import type { AddGiven, WireStreamContext } from "../wire.ts";
import { type HeldCall, HeldNative } from "../held-native.ts";
import { CUT_STOP_REASONS, NATIVE_BLOCKS, renumbered, toolUseEvents } from "./blocks.ts";
import { HeldTextStart, textDelta } from "./held-text-start.ts";
import { type HeldText, PASSING_KEYS, WaitingBlocks, decidesHeld, replayed, settled, startsOtherBlock, withLead } from "./waiting-blocks.ts";

export class AnthropicStreamRewriter implements EventRewriter {
  #guard: GuardedEngine;
  #onFinal: () => void;
  #reported = false;
  /** Next block index downstream. */
  #next = 0;
  /** Upstream block index → downstream index. */
  #blocks = new Map<number, number>();
  /** Upstream index of the text block being fed to the engine. */
  #textBlock: number | undefined;
  /** Downstream index of the text block open downstream, if any. */
  #open: number | undefined;
  /** The upstream text block's start, held until the block releases text (held-text-start.ts). */
  #held = new HeldTextStart();
  /**
   * A text block ended upstream while the engine still held some of its text: it stays open
   * downstream (or, when none of its text went out yet, its start stays held) until the next event
   * tells whether the text may go on (another text block) or ends there (any other block, or the
   * message's end).
   */
  #ending = false;
  /** Blocks of another kind after a text block that ended holding text, waiting until that text is decided. */
  #waiting = new WaitingBlocks();
  /** How the text held before waiting blocks is decided (waiting-blocks.ts settled). */
  #heldText: HeldText = { cut: (goesOn) => this.#cutHeld(goesOn), flush: () => this.#flushHeld(), endSpan: (native) => this.#endSpan(native), decide: (event) => this.#decide(event) };
  /**
   * The request allows one call: recovered calls are held back until the message ends, so a native
   * tool_use block that comes later still wins (the engine withdraws them). Off once it ended.
   */
  #hold: boolean;
  #heldCalls: RecoveredCall[] = [];
  /** Where a server tool's result block goes: given content for the text after it (undefined: the echo guard is off). */
  #addGiven: AddGiven | undefined;
  /** Upstream indices of the server tool result blocks, whose deltas (if a result ever streams any) are given too. */
  #givenBlocks = new Set<number>();
  /**
   * Recovered calls sent, and a native tool_use block for a tool one of them has, held until its
   * stop shows its input (held-native.ts): its id is its upstream index, its first event its start
   * (whose own input counts when no delta streams one). It takes no downstream index until it goes
   * out; dropped when it repeats a call sent. After stop() nothing is held (an event streaming past
   * could overtake it).
   */
  #native: HeldNative<Json>;

  constructor({ guard, onFinal, oneCall, addGiven, tools = [] }: WireStreamContext) {
    this.#native = new HeldNative<Json>(tools);
    this.#guard = guard;
    this.#onFinal = onFinal;
    this.#hold = oneCall;
    this.#addGiven = addGiven;
  }

  event(sse: SseEvent): Rewritten | null {
    const event = typedEvent(sse.data);
    if (event === null) return null;
    // The API failed the reply mid-stream (overloaded_error, api_error: nothing follows): it was
    // cut, not ended. What is held goes out as written, nothing in it decided, before the error a
    // client stops at; a native block held to compare goes out first, as it came (stop()); a text
    // block that stopped holding text closes first (stop()).
    if (event.type === "error") {
      const pieces = this.stop(false);
      return pieces.length > 0 ? { pieces: [...pieces, RAW] } : null;
    }
    let lead: Json[] = [];
    if (this.#native.holding) {
      const held = this.#heldNative(event);
      if (held !== undefined) return held;
      // Another block or the message's end before the held block's stop: it goes out as it came.
      lead = this.#releaseNative();
    }
    if (this.#waiting.active) {
      if (!decidesHeld(event) && this.#waiting.add(event, sse.bytes.length)) return { pieces: [] };
      lead = [...lead, ...settled(this.#waiting.take(), event, this.#heldText)];
    } else if (this.#ending && startsOtherBlock(event)) {
      this.#waiting.start(event, sse.bytes.length);
      return { pieces: [] };
    } else if (this.#ending && event.type !== "ping") lead = [...lead, ...this.#endBlock(event)];
    return lead.length === 0 ? this.#decide(event) : withLead(lead, this.#decide(event));
  }

  /**
   * An event while a native block is held: one of the block's, held (its stop decides it: dropped
   * when it repeats a call sent, sent as it came otherwise), a ping, passed; undefined for any
   * other event.
   */
  #heldNative(event: Json): Rewritten | null | undefined {
    const held = this.#native.call!;
    if (event.type === "ping") return null;
    if (event.index !== held.id) return undefined;
    if (event.type === "content_block_delta") {
      const delta = event.delta;
      // Past the bound it goes out as it came, undecided, and streams on.
      if (!this.#native.part(event, isObject(delta) && typeof delta.partial_json === "string" ? delta.partial_json : undefined)) return { pieces: this.#releaseNative() };
      return { pieces: [] };
    }
    if (event.type !== "content_block_stop") return undefined;
    // The input streamed, or the start's own when none did.
    const input = held.args === "" ? (held.events[0]!.content_block as Json).input : held.args;
    // The same call the client already has: never sent, and no later index moves for it.
    if (this.#native.complete(input, event)) return { pieces: [] };
    return { pieces: this.#releaseNative() };
  }

  /** The held native block goes out as it came, under the next downstream index. */
  #releaseNative(held: HeldCall<Json> | undefined = this.#native.release()): Json[] {
    if (held === undefined) return [];
    const index = this.#next++;
    this.#blocks.set(held.id as number, index);
    for (const event of held.events) event.index = index;
    return held.events;
  }

  #decide(event: Json): Rewritten | null {
    // A citation's cited_text is the source's words (a searched page): given to the text after it.
    if (this.#addGiven && event.type === "content_block_delta" && isObject(event.delta) && event.delta.type === "citations_delta") {
      const delta = event.delta;
      this.#addGiven(() => givenFromCitationsDelta(delta));
    }
    if (event.index !== undefined && event.index === this.#textBlock) {
      if (event.type === "content_block_delta") return this.#delta(event);
      if (event.type === "content_block_stop") return this.#stop(event);
    }
    const held = this.#held.event;
    const decided = this.#other(event);
    // Once the block stopped upstream, its held start opens only with text (a ping passes it by).
    if (held === undefined || this.#held.event !== held || this.#textBlock === undefined) return decided;
    // A ping (Anthropic sends one right after the first block's start) says nothing about the block:
    // it goes out before the held start, which still opens only with text. Opening it here made a
    // reply that is all one call an empty text block, which the API refuses when it is replayed.
    if (event.type === "ping") return decided;
    // Anything else between the held start and the block's text goes after the start.
    return withLead(this.#openText(), decided);
  }

  /**
   * The event after a text block that ended holding text. A text block may continue what it held
   * (as the JSON path reads adjacent text blocks); anything else ends it: the engine decides what
   * it held, which goes out in the block before it closes. The message's end flushes anyway.
   */
  #endBlock(event: Json): Json[] {
    this.#ending = false;
    const block = event.type === "content_block_start" && isObject(event.content_block) ? event.content_block.type : undefined;
    if (block === "text" || this.#guard.done) {
      // The next text block goes on with what this one held (a held start was never opened: it is
      // dropped; citations that waited go with the held text). The engine gave up: nothing waits.
      if (block !== "text" || this.#guard.done) return this.#endText();
      this.#held.handOn();
      return this.#close();
    }
    // The message's end flushes (message_delta, message_stop): the held start opens there if text goes out.
    if (event.type === "message_delta" || event.type === "message_stop") return [];
    return this.#endSpan(NATIVE_BLOCKS.has(block as string));
  }

  /** The held text's span ended (`native`: at a native call): decided there, into its block, which closes. */
  #endSpan(native: boolean): Json[] {
    this.#ending = false;
    if (this.#guard.done) return this.#endText();
    // A native call next: calls held back are withdrawn here, so the text held after them stays in this block.
    const withdraw = native && this.#heldCalls.length > 0;
    if (withdraw) this.#heldCalls = [];
    const step = this.#guard.step({ native, withdraw, endSpan: true });
    // Text opens the held start (#emitText); a block whose text all became calls is never opened.
    const pieces = step.ok ? this.#emit(step.events) : [...this.#unhold(), ...this.#emitText(step.held)];
    return [...pieces, ...this.#endText()];
  }

  #other(event: Json): Rewritten | null {
    switch (event.type) {
      case "content_block_start":
        return this.#start(event);
      case "content_block_delta":
        if (this.#addGiven && typeof event.index === "number" && this.#givenBlocks.has(event.index)) {
          const delta = event.delta;
          this.#addGiven(() => {
            const out: string[] = [];
            collectStrings(delta, out);
            return out;
          });
        }
        return typeof event.index === "number" ? renumbered(event, this.#blocks.get(event.index)) : null;
      case "content_block_stop":
        return typeof event.index === "number" ? renumbered(event, this.#blocks.get(event.index)) : null;
      case "message_delta":
        return this.#messageDelta(event);
      case "message_stop": {
        const pieces = this.end();
        return pieces.length > 0 ? { pieces: [...pieces, RAW] } : null;
      }
      default:
        return null;
    }
  }

  /** End of the message without a message_delta: release what the engine holds. */
  end(): Json[] {
    this.#ending = false;
    const waited = this.#waiting.take();
    const native = this.#releaseNative();
    if (this.#guard.done) return [...native, ...replayed(waited, this.#heldText)];
    return [...native, ...this.#flushHeld(), ...replayed(waited, this.#heldText)];
  }

  /** The reply ended: the engine is flushed, calls held back go out, and the text block open downstream closes. */
  #flushHeld(): Json[] {
    this.#ending = false;
    const step = this.#guard.step({ flush: true });
    this.#final();
    const held = this.#unhold();
    const pieces = step.ok ? this.#emit(step.events) : step.held ? this.#emitText(step.held) : [];
    return [...held, ...pieces, ...this.#endText()];
  }

  /** The reply was cut (refusal), or goes on unread: what is held goes out as written, nothing decided, and the text block open downstream closes. */
  #cutHeld(goesOn = false): Json[] {
    return [...this.#stopHeld(goesOn), ...this.#endText()];
  }

  /**
   * The message goes on unread, or was cut: what the engine holds goes out as written, into the
   * open text block (or its held start), nothing in it decided; calls held back go out when it was
   * cut, and never run when it goes on (their markup goes out as text before it). A text
   * block that ended upstream while holding text closes here; blocks waiting behind it follow.
   */
  stop(goesOn: boolean): Json[] {
    const waited = this.#waiting.take();
    return [...this.#stopHeld(goesOn), ...replayed(waited, this.#heldText)];
  }

  #stopHeld(goesOn: boolean): Json[] {
    // One call allowed, the reply going on unread: a native block after this could no longer
    // withdraw the calls held back, so they never run (a wrong execution outranks a missing
    // repair); their markup goes out as text, before the text held after them.
    const unrun = goesOn && this.#heldCalls.length > 0 ? this.#guard.unrunCalls() : undefined;
    if (unrun !== undefined) this.#heldCalls = [];
    // A native block held to compare goes out as it came, first: its index maps what streams past.
    const native = this.#releaseNative(this.#native.stop());
    const held = this.#guard.stop();
    const calls = [...native, ...this.#unhold()];
    const text = this.#emitText((unrun ?? "") + held);
    this.#final();
    if (this.#ending) {
      this.#ending = false;
      return [...calls, ...text, ...this.#endText()];
    }
    // The text block read goes on upstream (the event too long to hold is most likely its delta),
    // and an event streaming past cannot open one: it gets one now, if none is open downstream.
    if (goesOn && this.#textBlock !== undefined && this.#open === undefined) return [...calls, ...text, ...this.#openText()];
    // The markup of calls that never ran, with no text block read: a block of its own, closed at once.
    if (this.#textBlock === undefined) return [...calls, ...text, ...this.#blankEnd(), ...this.#close()];
    return [...calls, ...text, ...(goesOn ? [] : this.#blankEnd())];
  }

  /**
   * An event too long to hold, after the stand-aside, streams past: its block index still moves
   * as in an event that fits (the text block read goes into the one open downstream; a block not
   * seen yet takes the next index).
   */
  get passing(): PassingEdits {
    return {
      keys: PASSING_KEYS,
      scalar: (path, json) => {
        if (path.length !== 1 || path[0] !== "index") return undefined;
        const index = Number(json);
        if (!Number.isSafeInteger(index)) return undefined;
        if (index === this.#textBlock) return this.#open === undefined ? undefined : String(this.#open);
        let out = this.#blocks.get(index);
        if (out === undefined) {
          out = this.#next++;
          this.#blocks.set(index, out);
        }
        return String(out);
      },
      ended: (top) => {
        // The text block read stopped: nothing is open downstream any more.
        if (top.get("type") === '"content_block_stop"' && Number(top.get("index")) === this.#textBlock) {
          this.#textBlock = undefined;
          this.#open = undefined;
        }
        return [];
      },
    };
  }

  #start(event: Json): Rewritten | null {
    const index = event.index;
    const block = event.content_block;
    if (typeof index !== "number" || !isObject(block)) return null;
    if (this.#addGiven && citesSource(block)) this.#addGiven(() => givenFromMessagesBlock(block));
    if (block.type === "text" && !this.#guard.done) {
      this.#textBlock = index;
      this.#held.hold(event);
      // Text given in the start itself is fed like a first delta.
      const text = typeof block.text === "string" ? block.text : "";
      block.text = "";
      return { pieces: text === "" ? [] : this.#feed(text) };
    }
    // A server tool's result (a fetched page, search results, code output): given content for the text after it.
    if (this.#addGiven && isGivenBlock(block)) {
      this.#givenBlocks.add(index);
      this.#addGiven(() => givenFromMessagesBlock(block));
    }
    let lead: Json[] = [];
    const native = NATIVE_BLOCKS.has(block.type as string);
    if (native && !this.#guard.done) lead = this.#noteNative();
    if (native && this.#native.mayRepeat(block.name)) {
      // It may repeat a call sent: held until its stop shows its input.
      this.#native.hold(index, block.name, event);
      return { pieces: lead };
    }
    const out = this.#next++;
    this.#blocks.set(index, out);
    if (block.type === "text") {
      this.#textBlock = index;
      this.#open = out;
    }
    return lead.length === 0 ? renumbered(event, out) : withLead(lead, renumbered(event, out));
  }

  /**
   * A native call: markup from here on is its duplicate. Calls held back never go out; the text
   * the engine held after them goes out before the native block, in a text block of its own.
   */
  #noteNative(): Json[] {
    const withdraw = this.#heldCalls.length > 0;
    this.#heldCalls = [];
    const step = this.#guard.step({ native: true, withdraw });
    const pieces = step.ok ? this.#emit(step.events) : this.#emitText(step.held);
    return pieces.length > 0 ? [...pieces, ...this.#close()] : [];
  }

  /** A delta of the text block being fed. */
  #delta(event: Json): Rewritten | null {
    const delta = event.delta;
    if (!isObject(delta) || delta.type !== "text_delta" || typeof delta.text !== "string" || delta.text === "" || this.#guard.done) {
      // No text block open downstream (its start held, or a recovered call closed it): a delta
      // without text opens none; one of another kind (a citation) waits for text to go out.
      if (this.#open === undefined && !this.#guard.done) {
        this.#held.wait(event);
        return { pieces: [] };
      }
      return this.#intoOpenText(event);
    }
    const text = delta.text;
    const step = this.#guard.step({ delta: text });
    if (!step.ok) return { pieces: [...this.#unhold(), ...this.#emitText(step.held), ...this.#intoOpenText(event).pieces] };
    const events = step.events;
    // The usual case: the text passes as it came, into the block it came in.
    if (events.length === 1 && events[0]!.type === "text" && events[0]!.text === text && this.#open !== undefined) {
      return renumbered(event, this.#open);
    }
    return { pieces: this.#emit(events) };
  }

  /** The stop of the text block being fed. */
  #stop(event: Json): Rewritten | null {
    this.#textBlock = undefined;
    const open = this.#open;
    // The engine holds some of the block's text: the block stays open, or its start held when none
    // of its text went out yet, until the next event decides it (#endBlock). Open or not: the text
    // held must not run on into a text block after a block of another kind.
    if (this.#guard.held > 0 && !this.#guard.done) {
      this.#ending = true;
      return { pieces: [] };
    }
    // Whitespace alone that waited goes out in a block of its own when no call was taken out of it.
    const blank = open === undefined ? this.#blankEnd() : [];
    this.#held.drop();
    const shown = this.#open;
    this.#open = undefined;
    // The block never opened downstream, or a call closed it already: nothing left to close.
    if (shown === undefined) return { pieces: [] };
    return blank.length === 0 ? renumbered(event, shown) : withLead(blank, renumbered(event, shown));
  }

  #messageDelta(event: Json): Rewritten | null {
    let pieces: Json[] = [];
    const delta = event.delta;
    // A refusal is the safety classifier stopping the reply, not the model ending it: a cut. The
    // held text goes out as written (no call from it), and the stop reason stays the client's.
    if (isObject(delta) && CUT_STOP_REASONS.has(delta.stop_reason as string)) {
      if (!this.#guard.done) pieces = this.#cutHeld();
      return pieces.length === 0 ? null : { pieces: [...pieces, RAW] };
    }
    if (!this.#guard.done) pieces = this.#flushHeld();
    let changed = false;
    if (this.#guard.recovered > 0 && isObject(delta) && delta.stop_reason !== "tool_use") {
      delta.stop_reason = "tool_use";
      changed = true;
    }
    if (pieces.length === 0) return changed ? { pieces: [event], original: event } : null;
    return { pieces: [...pieces, changed ? event : RAW], original: event };
  }

  /** A text-block event that goes on unrepaired, into whichever text block is open downstream. */
  #intoOpenText(event: Json): Rewritten {
    const opened = this.#open === undefined ? this.#openText() : [];
    const moved = renumbered(event, this.#open);
    if (opened.length === 0 && moved === null) return { pieces: [RAW] };
    return { pieces: [...opened, moved ? event : RAW], original: event };
  }

  /** Opens a text block downstream: the held upstream start when there is one, with the whitespace that waited and `text`. */
  #openText(text = ""): Json[] {
    const index = this.#next++;
    this.#open = index;
    return this.#held.open(index, text);
  }

  #feed(text: string): Json[] {
    const step = this.#guard.step({ delta: text });
    return step.ok ? this.#emit(step.events) : [...this.#unhold(), ...this.#emitText(step.held)];
  }

  #emit(events: EngineEvent[]): Json[] {
    const out: Json[] = [];
    for (const event of events) {
      if (event.type === "text") out.push(...this.#emitText(event.text));
      // A call taken out: whitespace that waited before it, and deltas handed on with text held from the block before, go with it.
      else if (this.#held.callTaken(), this.#hold) this.#heldCalls.push(event.call);
      else out.push(...this.#emitCall(event.call));
    }
    return out;
  }

  /** Holding ends (the message ended, or the engine gave up): the calls held back, as tool_use blocks. */
  #unhold(): Json[] {
    this.#hold = false;
    const calls = this.#heldCalls;
    this.#heldCalls = [];
    return calls.flatMap((call) => this.#emitCall(call));
  }

  /** Shown text: into the open block; with none open, whitespace alone waits for words (held-text-start.ts) unless the engine failed. */
  #emitText(text: string): Json[] {
    if (this.#open !== undefined) return text === "" ? [] : [textDelta(this.#open, text)];
    return this.#held.waits(text, this.#guard.failed) ? [] : this.#openText(text);
  }

  /** The text's span ends: whitespace that waited is decided (#blankEnd), a held start no text opened stays unopened, the open block closes. */
  #endText(): Json[] {
    const blank = this.#blankEnd();
    this.#held.drop();
    return [...blank, ...this.#close()];
  }

  /** The span ends: whitespace still waiting opens a block when it is shown (held-text-start.ts shownAtEnd). */
  #blankEnd(): Json[] {
    return this.#held.shownAtEnd(this.#guard.failed) ? this.#openText() : [];
  }

  #emitCall(call: RecoveredCall): Json[] {
    this.#native.add(call);
    const out = this.#close();
    out.push(...toolUseEvents(call, this.#next++));
    return out;
  }

  /** Closes the text block open downstream; the upstream block's own stop is then dropped. */
  #close(): Json[] {
    if (this.#open === undefined) return [];
    const index = this.#open;
    this.#open = undefined;
    return [{ type: "content_block_stop", index }];
  }

  #final(): void {
    if (this.#reported || this.#guard.failed) return;
    this.#reported = true;
    this.#onFinal();
  }
}
