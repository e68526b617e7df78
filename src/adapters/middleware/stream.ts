// doStream's parts repaired as they come: leaked markup in text deltas becomes tool-call parts,
// text the engine holds back stays under the id of the text part it came in (with the metadata of
// the deltas it came in), reasoning deltas go through the reasoning channel (D06) unless a provider
// signed the part, and every part of another kind passes as it is, with three exceptions: a native
// call that may repeat a recovered call already sent is held until its tool-call and dropped when
// it does (src/wires/sent-calls.ts), a provider-executed tool's result is given content for the
// echo guard from then on (noteToolResult), and an `error` part or a content-filter or error
// finish cuts the reply (what is held goes out as written, nothing decided).
import type { LanguageModelV3StreamPart, SharedV3ProviderMetadata } from "@ai-sdk/provider";
import type { RecoveredCall } from "../../parse/types.ts";
import type { EngineEvent } from "../../engine/types.ts";
import type { GuardedEngine } from "../../engine/guarded.ts";
import type { Stage } from "../../sse/pull-stage.ts";
import { noteFailure, requestDebug } from "../report.ts";
import { HeldNative } from "../../wires/held-native.ts";
import { TextSpans } from "./text-spans.ts";
import { BlankParts } from "./blank-parts.ts";
import { type CallContext, callMetadata, cutsReply, finishReason, finishReport, metadata, noteToolResult, reasoningCalls, signedReasoning, toolCallPart } from "./call-context.ts";

type Part = LanguageModelV3StreamPart;

/** The id our fed text belongs to when released text has no open text part to go to. */
const FALLBACK_TEXT_ID = "dsml-fix-text";

/**
 * One engine per stream. Released text keeps the id of the text part it was fed under; a text-end
 * is held back while the engine still holds that part's text, so no delta ever follows its end.
 */
export function repairStreamParts(ctx: CallContext, out: (part: Part) => void): Stage<Part> {
  const { guard, options, reasoning } = ctx;
  const open = new Set<string>();
  /** The reasoning part the reasoning channel's held text belongs to. */
  let thinking: string | undefined;
  // The id checked last, known to be open: consecutive deltas nearly always share it.
  let lastOpen: string | undefined;
  /** The text part that released text goes to: the last one text was fed under, or the newest one while text is held. */
  let owner: string | undefined;
  /** The text part whose delta the engine read last. */
  let fedFrom: string | undefined;
  let deferredEnd: Extract<Part, { type: "text-end" }> | undefined;
  /** Where a text part ends the markup the engine reads, as the fetch route reads the wire (text-spans.ts). */
  const spans = new TextSpans();
  /** Whitespace beside recovered calls: it waits for words in its part, and no part of whitespace alone goes out beside a call (blank-parts.ts). */
  const blank = new BlankParts(release, () => guard.failed);
  // The providerMetadata of a text delta that did not go on as it came (held, cut, or empty: a
  // Gemini thought signature), and its part: it rides on the next text released (the host keeps a
  // part's last metadata), or on that part's text-end.
  let owedMeta: { id: string; meta: SharedV3ProviderMetadata } | undefined;
  let nativeNoted = false;
  /** Reasoning parts a provider signed (signedReasoning): their text passes as written, unread. */
  const signed = new Set<string>();
  /** The reasoning part a held trailing block belongs to, and its end, kept until the block runs or goes back. */
  let heldThought: { id: string; end?: Part } | undefined;
  // One call per reply (ctx.oneCall): recovered calls are held back until the reply ends, so a
  // native call that comes first still wins (the engine withdraws them). Off once the reply ended.
  let hold = ctx.oneCall;
  let heldCalls: RecoveredCall[] = [];
  // Recovered calls sent, and a native call for a tool one of them has: its tool-input parts, held
  // until its tool-call shows its input (src/wires/held-native.ts); dropped when it repeats one.
  const heldNative = new HeldNative<Part>(ctx.tools);
  /**
   * Native calls whose hold ended before their tool-call (undefined until one did): "dropped", a
   * complete repeat (settle()): none of its parts goes out, its tool-call neither; "out", released
   * undecided (past a bound, a cut): its parts went out, so its tool-call goes out too, never
   * compared (the host gets no tool input that no tool-call completes).
   */
  let settledCalls: Map<string, "dropped" | "out"> | undefined;

  return {
    each(part) {
      // The boundary written out, not orPassThrough(): this runs once per token, and a closure per token shows.
      try {
        if (part.type === "text-delta" && !guard.done) delta(part);
        else if ((!heldNative.holding && settledCalls === undefined) || !heldPart(part)) handle(part);
      } catch (error) {
        noteFailure(options, `stream repair on ${part.type}`, error);
        out(part);
      }
    },
    end: endReply,
    fail() {
      // The model stream failed mid-reply: the text the engine holds was sent by the model, so it
      // goes out before the error, but as written: the reply did not end there, and what would
      // have come next (prose showing a held call was an example) never arrived, so nothing held
      // is decided (as the fetch adapter does on a failing upstream, src/sse/rewrite.ts). A fault
      // here must not replace the model's error.
      try {
        stopReply();
      } catch (fault) {
        noteFailure(options, "stream repair after the model stream failed", fault);
      }
    },
  };

  // The reply was cut, not ended: the engine's held text goes back exactly as written
  // (GuardedEngine.stop()), the calls it recovered stand (those held back for the reply's end go
  // out), and no call written in the reasoning runs (only the reply's end can make one the answer).
  function stopReply(): void {
    releaseNative();
    endThought();
    reasoning.abandon();
    const held = guard.stop();
    unhold();
    payThought();
    text(held);
    releaseEnd();
    blank.end();
    finishReport(ctx);
  }

  function endReply(): void {
    releaseNative();
    endThought();
    if (!guard.done) settle(guard.step({ flush: true }), true);
    else reasoning.abandon();
    payThought();
    releaseEnd();
    blank.end();
    finishReport(ctx);
  }

  // Apart from handle() because it runs once per token: it should stay short.
  function delta(part: Extract<Part, { type: "text-delta" }>): void {
    if (deferredEnd !== undefined && deferredEnd.id !== part.id) releaseEnd();
    if (thinking !== undefined) endThought();
    if (!reasoning.answered) reasoning.noteContent(part.delta);
    if (heldThought !== undefined) payThought();
    // Another text part is still open: the two are written at once, and their deltas are no one text.
    if (fedFrom !== part.id && fedFrom !== undefined && open.has(fedFrom)) return standAside(part, fedFrom);
    fedFrom = part.id;
    owner = part.id;
    if (part.providerMetadata) {
      // Nothing to read in an empty delta, only its metadata: it goes on now unless text of the part is held.
      if (part.delta === "" && guard.held === 0 && isOpen(part.id)) return passOn(part, part.providerMetadata);
      owedMeta = { id: part.id, meta: part.providerMetadata };
    }
    if (part.delta === "") return;
    const step = guard.step({ delta: part.delta });
    if (!step.ok) {
      unhold();
      text(step.held);
      out(part);
      return releaseEnd();
    }
    const events = step.events;
    // Nothing held, nothing changed: the part itself goes on, providerMetadata and all.
    if (events.length === 1 && events[0]!.type === "text" && events[0]!.text === part.delta && isOpen(part.id) && blank.plain(part.id, part.delta)) passOn(part, owedMeta?.id === part.id ? owedMeta.meta : undefined);
    else emit(events);
    if (deferredEnd !== undefined && guard.held === 0) releaseEnd();
  }

  /**
   * Text parts interleave (`part` came while `other`, the part the engine read last, is still
   * open): read as one text, one part's fence would close the other's and its example would run.
   * The repair stands aside for the rest of the reply, as after an engine failure: what the
   * engine held goes back to `other` as it was written, the calls already recovered stand (those
   * held back for the reply's end, one call allowed, never run: their markup goes back too), and
   * every later part passes through as it came. Each part read alone would keep repairing, but a
   * part's engine would need the other's documentation context and its count of calls, which only
   * one reading of one text has; an unusual stream is better left unrepaired than misread.
   */
  function standAside(part: Extract<Part, { type: "text-delta" }>, other: string): void {
    requestDebug(options, ctx.tag)("text parts interleave: the rest of the reply passes through unrepaired");
    owner = other;
    // One call allowed: a native call later in the reply could no longer withdraw the calls held
    // back, so they never run; their markup goes back as text, before the text held after them.
    const unrun = heldCalls.length > 0 ? guard.unrunCalls() : undefined;
    if (unrun !== undefined) heldCalls = [];
    const held = guard.stop();
    unhold();
    text((unrun ?? "") + held);
    out(part);
  }

  function handle(part: Part): void {
    if (guard.done) {
      blank.end(); // Whitespace still waiting is decided before anything passes as it came.
      // The content side gave up: no reasoning call runs, and a held block goes back first.
      if (heldThought !== undefined) {
        reasoning.abandon();
        payThought();
      }
      if (part.type === "finish") return out(decorate(part));
      return out(part);
    }
    spans.note(part);
    switch (part.type) {
      case "text-start":
        // A new span: the markup the part read last still holds is decided there, into that part, before it ends.
        if (spans.starts(part, fedFrom, fedFrom !== undefined && (!open.has(fedFrom) || deferredEnd?.id === fedFrom))) endSpan();
        releaseEnd();
        open.add(part.id);
        // Held text moves to the newest part, so it never has to reopen one that already ended.
        if (guard.held > 0) owner = part.id;
        return out(part);
      case "text-end":
        if (part.id === owner && guard.held > 0) {
          deferredEnd = part;
          return;
        }
        blank.end(part.id);
        close(part.id);
        return out(ended(part));
      case "reasoning-start":
        if (signedReasoning(part.providerMetadata)) signed.add(part.id);
        return out(part);
      case "reasoning-delta":
        return thought(part);
      case "reasoning-end":
        if (part.id === thinking) endThought();
        if (heldThought?.id === part.id && heldThought.end === undefined) {
          heldThought.end = part;
          return;
        }
        return out(part);
      case "tool-input-start":
      case "tool-call":
        // A call the provider ran itself (providerExecuted: a web search) is no native call (generate.ts).
        if (!nativeNoted && part.providerExecuted !== true) {
          nativeNoted = true;
          reasoning.noteNative();
          endThought();
          payThought();
          // Calls held back never go out; the text the engine held after them is the model's own again.
          // Without them, the text held after the calls sent is released too (another call follows,
          // S03), and calls held for a block's closer are the native call's duplicates (never sent).
          const withdraw = heldCalls.length > 0;
          heldCalls = [];
          const step = guard.step({ native: true, withdraw });
          if (!step.ok) {
            text(step.held);
            releaseEnd();
          } else if (step.events.length > 0 || withdraw) {
            emit(step.events);
            if (guard.held === 0) releaseEnd();
          }
        }
        if (part.providerExecuted !== true && heldNative.mayRepeat(part.toolName)) {
          // It may repeat a recovered call sent: held until its tool-call shows its input; dropped if it does.
          if (part.type === "tool-input-start") {
            // Other calls held stay held: a chat provider's parallel calls may stream interleaved.
            heldNative.hold(part.id, part.toolName, part);
            return;
          }
          if (heldNative.repeats(part.toolName, part.input)) return;
        }
        return out(part);
      case "tool-result":
        // A provider-executed tool's result (a fetched page): given content for what follows.
        noteToolResult(ctx, part);
        return out(part);
      case "error":
        // The model failed mid-reply, as a failing stream (fail()): cut, the held text goes out as written before the error.
        stopReply();
        return out(part);
      case "finish":
        // A content filter or a failure stopped the reply: cut, nothing held is decided.
        if (cutsReply(part.finishReason)) {
          stopReply();
          return out(decorate(part));
        }
        endThought();
        settle(guard.step({ flush: true }), true);
        releaseEnd();
        blank.end();
        finishReport(ctx);
        return out(decorate(part));
      default:
        return out(part);
    }
  }

  function endSpan(): void {
    const step = guard.step({ endSpan: true });
    if (step.ok) return emit(step.events);
    unhold();
    text(step.held);
  }

  function settle(step: ReturnType<GuardedEngine["step"]>, final = false): void {
    // The reply ended (or the engine gave up): calls held back go out first, as they came.
    if (final || !step.ok) unhold();
    if (!step.ok) {
      if (final) reasoning.abandon();
      payThought();
      return text(step.held);
    }
    const late = final ? reasoningCalls(ctx) : [];
    payThought();
    emit(step.events);
    for (const recovered of late) call(recovered, false);
  }

  /** D06: reasoning text passes on without the markup its engine took; the calls wait for the end. */
  function thought(part: Extract<Part, { type: "reasoning-delta" }>): void {
    if (signed.has(part.id)) return out(part);
    if (signedReasoning(part.providerMetadata)) return sign(part);
    if (thinking !== undefined && thinking !== part.id) endThought();
    thinking = part.id;
    const released = reasoning.feed(part.delta);
    payThought();
    if (released === part.delta) return out(part);
    if (released) out({ ...part, delta: released });
  }

  // The signature of a reasoning part the channel read (Anthropic sends it after the text, in an
  // empty delta): what the channel holds of the part goes back as written, before the signature,
  // and nothing in it runs; the rest of the part passes unread.
  function sign(part: Extract<Part, { type: "reasoning-delta" }>): void {
    signed.add(part.id);
    if (thinking === part.id) {
      thinking = undefined;
      const rest = reasoning.sign();
      if (rest) out({ type: "reasoning-delta", id: part.id, delta: rest });
    } else if (heldThought?.id === part.id) {
      reasoning.sign();
      payThought();
    }
    out(part);
  }

  /** The reasoning stretch is over: what its engine held goes out under its own part, before anything else. */
  function endThought(): void {
    const id = thinking;
    thinking = undefined;
    const rest = reasoning.close();
    if (rest && id !== undefined) out({ type: "reasoning-delta", id, delta: rest });
    if (reasoning.holding && id !== undefined) heldThought ??= { id };
  }

  /** A held block that will not run goes back into its reasoning part; once nothing is held, that part may end. */
  function payThought(): void {
    const held = heldThought;
    if (held === undefined) return;
    const owed = reasoning.take();
    if (owed) out({ type: "reasoning-delta", id: held.id, delta: owed });
    if (reasoning.holding) return;
    heldThought = undefined;
    if (held.end) out(held.end);
  }

  function emit(events: EngineEvent[]): void {
    for (const event of events) {
      if (event.type === "text") text(event.text);
      else if ((blank.callTaken(owner ?? FALLBACK_TEXT_ID), hold)) heldCalls.push(event.call);
      else call(event.call);
    }
  }

  /**
   * A part while a native call is held, or after a hold ended early: true when it was taken (a part
   * of a held call, or its tool-call when it repeats a call sent: then dropped with them; a part of
   * a call dropped at a cut; the tool-call of a call released undecided, sent as it is). A tool-call
   * with other input sends the held parts before it; the reply's finish or an error decides what
   * is still held (settle()).
   */
  function heldPart(part: Part): boolean {
    const id = part.type === "tool-input-delta" || part.type === "tool-input-end" ? part.id : part.type === "tool-call" ? part.toolCallId : undefined;
    if (id !== undefined) {
      const held = heldNative.get(id);
      if (held !== undefined) {
        if (part.type !== "tool-call") {
          // Past the bound every call held goes out as it came, undecided, and streams on.
          if (!heldNative.part(part, part.type === "tool-input-delta" ? part.delta : undefined, id)) releaseAll();
          return true;
        }
        // The tool-call names its tool itself: the decision reads it there (held-native.ts, repeats).
        heldNative.release(id);
        if (heldNative.repeats(part.toolName, part.input)) return true;
        for (const kept of held.events) out(kept);
        out(part);
        return true;
      }
      const gone = settledCalls?.get(id);
      if (gone === undefined) return false;
      // The tool-call is a call's last part: nothing of it comes after.
      if (part.type === "tool-call") {
        settledCalls!.delete(id);
        if (settledCalls!.size === 0) settledCalls = undefined;
      }
      if (gone === "out") out(part);
      return true;
    }
    if (part.type === "finish" || part.type === "error") releaseNative();
    return false;
  }

  // The hold ends before the held calls' tool-calls (the reply's finish or end, an error, a cut):
  // a call whose input so far is complete JSON and repeats a call sent is dropped, with whatever
  // of it comes later; any other goes out as it came, its tool-call after it unchecked.
  function releaseNative(): void {
    if (!heldNative.holding) return;
    const { released, dropped } = heldNative.settle();
    for (const held of dropped) note(held.id as string, "dropped");
    sendOut(released);
  }

  /** Past a bound: every call held goes out as it came, undecided. */
  function releaseAll(): void {
    sendOut(heldNative.releaseAll());
  }

  function sendOut(released: { id: unknown; events: Part[] }[]): void {
    for (const held of released) {
      note(held.id as string, "out");
      for (const kept of held.events) out(kept);
    }
  }

  function note(id: string, how: "dropped" | "out"): void {
    (settledCalls ??= new Map()).set(id, how);
  }

  function unhold(): void {
    hold = false;
    const calls = heldCalls;
    heldCalls = [];
    for (const recovered of calls) call(recovered);
  }

  function text(delta: string): void {
    if (delta) blank.text(owner ?? FALLBACK_TEXT_ID, delta);
  }

  function release(id: string, delta: string): void {
    const released: Part = { type: "text-delta", id, delta };
    if (owedMeta !== undefined) {
      released.providerMetadata = owedMeta.meta;
      owedMeta = undefined;
    }
    if (isOpen(id)) return out(released);
    // The part already ended (held text at a boundary the engine did not report): give it a part of its own.
    out({ type: "text-start", id });
    out(released);
    out({ type: "text-end", id });
  }

  /** A text delta going on as it came, with the metadata owed to it (its own, or an earlier delta's of its part). */
  function passOn(part: Extract<Part, { type: "text-delta" }>, meta: SharedV3ProviderMetadata | undefined): void {
    if (owedMeta?.id === part.id) owedMeta = undefined;
    out(meta === part.providerMetadata ? part : { ...part, providerMetadata: meta });
  }

  /** A text part's end, with the metadata of its deltas that no released text carried (their text became a call). */
  function ended(part: Extract<Part, { type: "text-end" }>): Part {
    if (owedMeta?.id !== part.id) return part;
    const meta = owedMeta.meta;
    owedMeta = undefined;
    return { ...part, providerMetadata: { ...meta, ...part.providerMetadata } };
  }

  // Streamed like a native provider call so hosts that track tool-input-start see the call too.
  // A call from text takes what of its part's owed metadata belongs to a call (callMetadata: a
  // thought signature), as generate.ts does; the rest (an itemId) stays owed to the part.
  function call(recovered: RecoveredCall, fromText = true): void {
    heldNative.add(recovered);
    const part = toolCallPart(recovered);
    if (fromText && owedMeta !== undefined && owedMeta.id === owner) {
      const split = callMetadata(owedMeta.meta);
      if (split.call) part.providerMetadata = split.call;
      owedMeta = split.text && { id: owedMeta.id, meta: split.text };
    }
    out({ type: "tool-input-start", id: part.toolCallId, toolName: part.toolName });
    out({ type: "tool-input-delta", id: part.toolCallId, delta: part.input });
    out({ type: "tool-input-end", id: part.toolCallId });
    out(part);
  }

  function isOpen(id: string): boolean {
    if (id === lastOpen) return true;
    if (!open.has(id)) return false;
    lastOpen = id;
    return true;
  }

  function close(id: string): void {
    open.delete(id);
    if (id === lastOpen) lastOpen = undefined;
  }

  function releaseEnd(): void {
    if (!deferredEnd) return;
    blank.end(deferredEnd.id);
    close(deferredEnd.id);
    out(ended(deferredEnd));
    deferredEnd = undefined;
  }

  function decorate(part: Extract<Part, { type: "finish" }>): Part {
    // A failed engine that emitted nothing leaves the finish exactly as the model sent it.
    if (guard.failed && guard.recovered === 0) return part;
    return {
      ...part,
      finishReason: finishReason(part.finishReason, ctx),
      providerMetadata: metadata(part.providerMetadata, ctx),
    };
  }
}
