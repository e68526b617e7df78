// Decides, per chat.completion.chunk, what goes out in its place: its original bytes, a rewritten
// chunk, and synthetic chunks carrying released text and recovered calls. Native tool_calls entries
// that may repeat a recovered call already sent are held and dropped when they do
// (native-repeats.ts); a chunk carrying an `error` (or `object: "error"`), an `event: error`, or a
// content_filter, error or abort finish, cuts the reply (the text held goes out as written, nothing
// decided, the finish_reason as it came; a held native call whose arguments are complete JSON
// repeating a sent call is still dropped).
import type { EngineEvent } from "../../engine/types.ts";
import type { RecoveredCall, ToolSpec } from "../../parse/types.ts";
import type { GuardedEngine, Step } from "../../engine/guarded.ts";
import type { ReasoningChannel } from "../../engine/reasoning-channel.ts";
import { jsonOrUndefined } from "../../grammar/plain-data.ts";
import { eventName } from "../../sse/framing.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { type EventRewriter, type Piece, RAW, type Rewritten, type SseEvent } from "../../sse/rewrite.ts";
import type { PassingEdits } from "../../sse/passing.ts";
import { CUT_FINISH_REASONS, CallNumbering } from "./call-numbering.ts";
import { ChunkShape } from "./chunk-shape.ts";
import { contentOf, envelopeOf, onlyContent, onlyEnvelope } from "./chunk-fields.ts";
import { keepShownLogprobs } from "./chunk-logprobs.ts";
import { openAiCall } from "./openai.ts";
import { ReasoningDeltas, withThought } from "./reasoning-deltas.ts";
import { NativeRepeats } from "./native-repeats.ts";

/** The event goes, and nothing in its place. */
const DROP: Rewritten = { pieces: [] };
/** The event waits: its bytes are kept back, nothing goes out yet (see #decideDeferred). */
const WAIT = Symbol("wait");
/** No synthetic chunk goes ahead of the event (one shared, never-changed list, not one per event). */
const NO_LEAD: readonly Json[] = [];

/**
 * A deferral waits on at most one undecided tag: a `<` or a bar at the end of a delta. Past
 * these bounds the held text is a real candidate, and the events go the rewriting way.
 */
const DEFER_EVENTS = 8;
const DEFER_HELD = 64;

export class ChunkRewriter implements EventRewriter {
  #guard: GuardedEngine;
  #onFinal: () => void;
  /** The newest choice-0 chunk; synthetic chunks copy its envelope, built only when one is needed. */
  #latest: Json | undefined;
  /** Tool call indices and the finish_reason as the client must see them. */
  #numbering = new CallNumbering(() => this.#recovered);
  #reported = false;
  #nativeNoted = false;
  #shape = new ChunkShape();
  /** Read on every event (whether reasoning is held, content seen), without going through #thinking. */
  #reasoning: ReasoningChannel | undefined;
  /** D06 on the chunk path: the reasoning deltas, and the calls recovered from them. */
  #thinking: ReasoningDeltas | undefined;
  /** Events deferred since the engine began holding their text; their bytes, their content, and what the engine released of it. */
  #deferred = 0;
  #waiting: Uint8Array[] = [];
  #deferredIn = "";
  #deferredOut = "";
  /**
   * The request allows one call: recovered calls are held back until the reply ends, so a native
   * call that comes later still wins (the engine withdraws them). Off once the reply ended.
   */
  #hold: boolean;
  #heldCalls: RecoveredCall[] = [];
  /** Native calls that may repeat a recovered call sent, held until complete, dropped when they do (native-repeats.ts). */
  #repeats: NativeRepeats;

  constructor(guard: GuardedEngine, onFinal: () => void, reasoning?: ReasoningChannel, oneCall = false, tools: readonly ToolSpec[] = []) {
    this.#repeats = new NativeRepeats(tools);
    this.#guard = guard;
    this.#onFinal = onFinal;
    this.#reasoning = reasoning;
    this.#thinking = reasoning && new ReasoningDeltas(reasoning, (delta) => this.#synthetic(delta), this.#numbering);
    this.#hold = oneCall;
  }

  /** Calls handed to the client so far, from either channel. */
  get #recovered(): number {
    return this.#guard.recovered + (this.#thinking?.recovered ?? 0);
  }

  /**
   * An event that waits (the engine holds its text only for an undecided tag, nothing taken out) is
   * kept back, and goes out as its original bytes once the engine released its text unchanged.
   */
  event(sse: SseEvent): Rewritten | null {
    // While reasoning is held, every chunk takes the full path, which knows where reasoning ends.
    const shape = this.#reasoning?.active ? undefined : this.#shape;
    // The commonest event is read from its bytes: one plain line of the learned shape, not decoded.
    const plain = shape?.matchBytes(sse.bytes);
    if (plain !== undefined) return this.#kept(sse, NO_LEAD, this.#content(sse, plain, false, sse.canWait));
    const payload = sse.data;
    if (payload === undefined) return null;
    const hasMeta = sse.hasMeta;
    // An event named `error` cuts the reply whatever its data holds: the AI SDK reads only the data,
    // which is then no chunk (or an error one), and fails the stream on it.
    if (hasMeta && eventName(sse.meta) === "error") return this.#kept(sse, this.#giveUp(), this.#cut(jsonOrUndefined(payload), payload, hasMeta));
    const mayDefer = !hasMeta && sse.canWait;
    const content = shape !== undefined && payload.charCodeAt(0) === 123 ? shape.match(payload) : undefined;
    if (content !== undefined) return this.#kept(sse, NO_LEAD, this.#content(sse, content, hasMeta, mayDefer));
    const lead = this.#giveUp();
    return this.#kept(sse, lead, this.#other(payload, hasMeta, mayDefer));
  }

  /** The answer, after `lead`; WAIT keeps the event's bytes back, and only `lead` goes out now. */
  #kept(sse: SseEvent, lead: readonly Json[], rewritten: Rewritten | null | typeof WAIT): Rewritten | null {
    if (rewritten === WAIT) {
      this.#waiting.push(sse.bytes);
      return lead.length === 0 ? DROP : { pieces: [...lead] };
    }
    if (lead.length === 0) return rewritten;
    return { pieces: [...lead, ...(rewritten?.pieces ?? [RAW])], ...(rewritten?.original ? { original: rewritten.original } : {}) };
  }

  #other(payload: string, hasMeta: boolean, mayDefer: boolean): Rewritten | null | typeof WAIT {
    // A chunk starts with "{", so only other payloads can be the end marker.
    if (payload.charCodeAt(0) !== 123 && payload.trim() === "[DONE]") {
      const pieces = this.end();
      return pieces.length > 0 ? { pieces: [...pieces, RAW] } : null;
    }
    const chunk = jsonOrUndefined(payload);
    if (isObject(chunk) && cutsReply(chunk)) return this.#cut(chunk, payload, hasMeta);
    if (!isObject(chunk) || !Array.isArray(chunk.choices)) return null;
    const pieces = this.#chunk(chunk, payload, hasMeta, mayDefer);
    if (pieces === WAIT) return WAIT;
    return pieces ? { pieces, original: chunk } : null;
  }

  /** End of stream (or [DONE]) without a finish_reason: flush what the engine still holds. */
  end(): Json[] {
    const lead = [...this.#giveUp(), ...this.#nativeChunk(this.#repeats.decideAll())];
    if (this.#guard.done) return [...lead, ...(this.#thinking?.abandon() ?? [])];
    return [...lead, ...this.#flush()];
  }

  /** Native call entries held back (native-repeats.ts) that go out after all, as one chunk. */
  #nativeChunk(entries: Json[]): Json[] {
    if (entries.length === 0) return [];
    this.#numbering.remapNative(entries);
    return [this.#synthetic({ tool_calls: entries })];
  }

  /**
   * The reply goes on unread, or was cut: what the engine holds goes back as written, nothing in it
   * decided; calls held back go out when it was cut (they were recovered), never run when it goes
   * on (their markup goes back as text), and no call in the reasoning runs (only
   * the reply's end can make one the answer). Later chunks take the paths of a done engine: native
   * call indices and the finish_reason still agree with what went out.
   */
  stop(goesOn: boolean): Json[] {
    const thought = this.#thinking?.close() ?? [];
    const back = this.#thinking?.abandon() ?? [];
    // Native calls held to compare are settled first (a complete repeat dropped: the client would
    // finish it at the stream's end; the others out as they came): their indices map what streams past.
    const lead = [...this.#giveUp(), ...this.#nativeChunk(this.#repeats.stop())];
    // One call allowed, the reply going on unread: a native call after this could no longer
    // withdraw the calls held back, so they never run; their markup goes out as text before the
    // text held after them (a wrong execution outranks a missing repair).
    const unrun = goesOn && this.#heldCalls.length > 0 ? this.#guard.unrunCalls() : undefined;
    if (unrun !== undefined) this.#heldCalls = [];
    const held = (unrun ?? "") + this.#guard.stop();
    const calls = this.#unhold();
    this.#final();
    return [...thought, ...back, ...lead, ...calls, ...(held ? [this.#synthetic({ content: held })] : [])];
  }

  /**
   * An event that cuts the reply (an `error` in its chunk, a cut's finish_reason, an `event: error`
   * whatever its data): what is held goes out as written before it, nothing decided (stop), and a
   * chunk then goes on as after the engine is done: its content unread, its finish_reason as it
   * came, native call indices set.
   */
  #cut(data: unknown, payload: string, hasMeta: boolean): Rewritten | null {
    const held = this.stop(false);
    const chunk = isObject(data) ? data : undefined;
    const rest = chunk !== undefined && Array.isArray(chunk.choices) ? this.#chunk(chunk, payload, hasMeta, false) : null;
    const pieces = rest === WAIT ? null : rest;
    if (held.length === 0) return pieces ? { pieces, original: chunk } : null;
    return { pieces: [...held, ...(pieces ?? [RAW])], ...(pieces ? { original: chunk } : {}) };
  }

  #flush(): Json[] {
    const thought = this.#thinking?.close() ?? [];
    const step = this.#guard.step({ flush: true });
    const held = this.#unhold();
    const late = step.ok ? (this.#thinking?.calls(this.#guard.recovered) ?? []) : (this.#thinking?.abandon() ?? []);
    this.#final();
    if (!step.ok) return step.held ? [...thought, ...held, ...late, this.#synthetic({ content: step.held })] : [...thought, ...held, ...late];
    return [...thought, ...held, ...this.#segments(step.events, 0), ...late];
  }

  /**
   * #chunk for a chunk known to have the learned shape: choice 0, no finish_reason, no tool_calls.
   * It is parsed only when the engine changed its content.
   */
  #content(sse: SseEvent, content: string, hasMeta: boolean, canDefer: boolean): Rewritten | null | typeof WAIT {
    this.#latest = this.#shape.source;
    // A deferral given up sends only choice 0's released text in the events' place: an event whose
    // shape carries more (another choice's delta with n > 1) never waits, or that part would be lost.
    const mayDefer = canDefer && this.#shape.carriesOnlyContent;
    this.#reasoning?.noteContent(content);
    if (this.#guard.done) return null;
    if (content === "") return this.#deferred === 0 ? null : (this.#decideDeferred(content, "", mayDefer, null) ?? null);
    const step = this.#guard.step({ delta: content });
    if (!step.ok) {
      const held = this.#unhold();
      // The engine failed; what it held is exactly the deferred events' text not yet released, so they go out whole.
      if (this.#deferred > 0) return held.length > 0 ? { pieces: [...held, ...this.#sendDeferred().pieces] } : this.#sendDeferred();
      const back = step.held ? [this.#synthetic({ content: step.held })] : [];
      return back.length + held.length > 0 ? { pieces: [...held, ...back, RAW] } : null;
    }
    const events = step.events;
    if (this.#deferred === 0 && events.length === 1 && events[0]!.type === "text" && events[0]!.text === content) return null;
    const released = onlyText(events);
    if (released !== undefined && (this.#deferred > 0 || mayDefer)) {
      const decided = this.#decideDeferred(content, released, mayDefer, events);
      if (decided !== undefined) return decided;
    }
    const lead = this.#giveUp();
    // Held whole, in a chunk that carries nothing else: it goes, unparsed (a held candidate is thousands of such events).
    const payload = sse.data!;
    if (events.length === 0 && !hasMeta && this.#shape.carriesOnlyContent) return lead.length === 0 ? DROP : { pieces: lead };
    const chunk = JSON.parse(payload) as Json;
    this.#latest = chunk;
    const pieces = this.#released(chunk, (chunk.choices as Json[])[0]!, content, events, false, hasMeta);
    if (lead.length === 0) return pieces ? { pieces, original: chunk } : null;
    return { pieces: [...lead, ...(pieces ?? [RAW])], original: chunk };
  }

  /**
   * A content event whose text the engine released only in part, with nothing taken out: its
   * bytes wait. Once the engine has released all the deferred text unchanged, every deferred event
   * goes out as its original bytes. undefined: the engine changed something, or the held text is
   * more than an undecided tag; the caller gives the deferral up.
   */
  #decideDeferred(content: string, released: string, mayDefer: boolean, events: EngineEvent[] | null): Rewritten | typeof WAIT | undefined {
    const input = this.#deferredIn + content;
    const output = this.#deferredOut + released;
    if (output === input && this.#guard.held === 0) return this.#sendDeferred();
    const waiting = input.length - output.length;
    if (!mayDefer || this.#deferred >= DEFER_EVENTS || waiting > DEFER_HELD || this.#guard.held !== waiting || !input.startsWith(output)) {
      if (events !== null) return undefined;
      // An empty content event that cannot wait: the deferred text goes out ahead of it.
      const lead = this.#giveUp();
      return { pieces: [...lead, RAW] };
    }
    this.#deferred++;
    this.#deferredIn = input;
    this.#deferredOut = output;
    return WAIT;
  }

  /** The deferred events go out as they came, then this one. */
  #sendDeferred(): Rewritten {
    const waiting = this.#waiting;
    this.#clearDeferred();
    return { pieces: [...waiting, RAW] };
  }

  /** The deferred events will not go out as they were: what the engine released of them goes out as one chunk. */
  #giveUp(): Json[] {
    if (this.#deferred === 0) return [];
    const released = this.#deferredOut;
    this.#clearDeferred();
    return released ? [this.#synthetic({ content: released })] : [];
  }

  #clearDeferred(): void {
    this.#deferred = 0;
    this.#waiting = [];
    this.#deferredIn = "";
    this.#deferredOut = "";
  }

  #chunk(chunk: Json, payload: string, hasMeta: boolean, mayDefer: boolean): Piece[] | null | typeof WAIT {
    const choices = chunk.choices as unknown[];
    let first = choices[0];
    // Choice 0 is read wherever the chunk lists it (n > 1: a chunk may carry choice 1 first); the
    // usual one-choice chunk is known at once. Other choices would interleave with choice 0 in one
    // engine; they are left alone.
    const atHead = isObject(first) && (first.index === undefined || first.index === 0);
    if (!atHead) first = choices.find((choice) => isObject(choice) && choice.index === 0);
    if (!isObject(first)) return null;
    this.#latest = chunk;
    const delta = isObject(first.delta) ? first.delta : undefined;
    const finish = first.finish_reason != null;
    let toolCalls = Array.isArray(delta?.tool_calls) && delta.tool_calls.length > 0 ? delta.tool_calls : undefined;
    const content = typeof delta?.content === "string" && delta.content !== "" ? delta.content : undefined;

    // A shape is the text around choices[0].delta.content: learned only from a chunk whose choice 0 is there.
    if (atHead && !finish && !toolCalls && content !== undefined) this.#shape.learn(payload, chunk, content);

    const native = toolCalls !== undefined;
    // Native calls that may repeat a recovered call sent wait until complete (native-repeats.ts).
    let lead: Json[] = [];
    let filtered = false;
    if ((native || finish) && this.#repeats.wants(toolCalls)) {
      const { released, rest } = toolCalls ? this.#repeats.filter(toolCalls) : { released: [], rest: [] };
      if (finish) released.push(...this.#repeats.decideAll());
      lead = this.#nativeChunk(released);
      if (toolCalls && rest.length !== toolCalls.length) {
        filtered = true;
        if (rest.length > 0) delta!.tool_calls = rest;
        else delete delta!.tool_calls;
        toolCalls = rest.length > 0 ? rest : undefined;
      }
    }

    const thought = this.#thinking ? this.#thinking.thought(delta, content, native, finish, this.#guard.done) : undefined;
    const pieces = this.#choice(chunk, first, delta, content, toolCalls, finish, hasMeta, mayDefer && thought === undefined && lead.length === 0 && !filtered, native, filtered);
    if (pieces === WAIT) return WAIT;
    const own = thought ? withThought(thought, pieces, chunk, delta!, hasMeta) : pieces;
    return lead.length === 0 ? own : [...lead, ...(own ?? [RAW])];
  }

  #choice(
    chunk: Json,
    first: Json,
    delta: Json | undefined,
    content: string | undefined,
    toolCalls: unknown[] | undefined,
    finish: boolean,
    hasMeta: boolean,
    mayDefer: boolean,
    /** The chunk came with native call entries (`toolCalls` may be left without them: `filtered`). */
    native: boolean,
    /** Entries held back to compare (native-repeats.ts) were taken out of the chunk. */
    filtered: boolean,
  ): Piece[] | null | typeof WAIT {
    if (this.#guard.done) {
      const settled = this.#numbering.settle(first, toolCalls);
      // Entries held back were taken out: the chunk goes rewritten, or not at all when nothing is left in it.
      if (filtered) return onlyEnvelope(chunk, delta ?? {}) && !hasMeta && first.finish_reason == null ? [] : [chunk];
      return settled ? [chunk] : null;
    }
    if (content === undefined && !finish && !native) return null;

    const step = this.#step(native, content, finish);
    // The reply ended, or the engine gave up: calls held back go out now, as they would have before.
    const held = finish || !step.ok ? this.#unhold() : [];
    const late = !step.ok ? (this.#thinking?.abandon() ?? []) : finish ? (this.#thinking?.calls(this.#guard.recovered) ?? []) : [];
    if (finish) this.#final();
    if (!step.ok) {
      const settled = this.#numbering.settle(first, toolCalls) || filtered;
      const lead = [...held, ...late];
      if (!step.held) return lead.length > 0 ? [...lead, settled ? chunk : RAW] : settled ? [chunk] : null;
      return [...lead, this.#synthetic({ content: step.held }), settled ? chunk : RAW];
    }
    const events = step.events;

    const changed = (toolCalls ? this.#numbering.remapNative(toolCalls) : false) || filtered;
    if (finish) return this.#finish(chunk, first, delta, content, [...held, ...this.#segments(events, 0), ...late], changed);
    // The first content event comes this way, before its shape is known: it may wait like the others.
    if (mayDefer && !changed && content !== undefined && onlyContent(chunk, delta!)) {
      const released = onlyText(events);
      if (released !== undefined && released !== content && this.#decideDeferred(content, released, true, events) === WAIT) return WAIT;
    }
    return this.#released(chunk, first, content, events, changed, hasMeta);
  }

  /** What replaces a chunk without finish_reason once the engine has taken its content (`choice`: its choice 0). */
  #released(chunk: Json, choice: Json, content: string | undefined, events: EngineEvent[], changed: boolean, hasMeta: boolean): Piece[] | null {
    const delta = isObject(choice.delta) ? choice.delta : undefined;
    // The common case: the engine let the content through as it came.
    if (!changed && events.length === 1 && events[0]!.type === "text" && events[0]!.text === content) return null;
    // The first released text stays in the original event, which keeps its place in the stream.
    let from = 0;
    if (content !== undefined) {
      while (from < events.length && isEmptyText(events[from]!)) from++;
      const head = events[from];
      const lead = head?.type === "text" ? head.text : "";
      if (lead) from++;
      if (lead !== content) {
        if (lead) delta!.content = lead;
        else delete delta!.content;
        // The logprobs of tokens this chunk no longer shows go with them (chunk-logprobs.ts).
        keepShownLogprobs(choice, lead);
        changed = true;
      }
    }
    const segments = this.#segments(events, from);
    if (!changed) return segments.length > 0 ? [RAW, ...segments] : null;
    return onlyEnvelope(chunk, delta!) && !hasMeta ? segments : [chunk, ...segments];
  }

  /** One engine step: the chunk's content, the response's first native call, its finish. */
  #step(toolCalls: boolean, content: string | undefined, finish: boolean): Step {
    const native = toolCalls && !this.#nativeNoted;
    if (native) this.#nativeNoted = true;
    // A native call before the reply ended: the calls held back never go out (native calls win).
    const withdraw = native && this.#heldCalls.length > 0;
    if (withdraw) this.#heldCalls = [];
    return this.#guard.step({ native, withdraw, delta: content, flush: finish });
  }

  /** Holding ends (the reply ended, or the engine gave up): the calls held back, as chunks. */
  #unhold(): Json[] {
    this.#hold = false;
    const calls = this.#heldCalls;
    if (calls.length === 0) return [];
    this.#heldCalls = [];
    return calls.map((call) => this.#callChunk(call));
  }

  /** The finish_reason must come after everything the flush released. */
  #finish(chunk: Json, choice: Json, delta: Json | undefined, content: string | undefined, segments: Json[], changed: boolean): Piece[] | null {
    const recovered = this.#recovered > 0;
    if (!changed && !recovered && content !== undefined && segments.length === 1 && contentOf(segments[0]!) === content) {
      return null;
    }
    if (content !== undefined) {
      delete delta!.content;
      // Its content goes out in the segments before it: logprobs only of tokens that spell them (chunk-logprobs.ts).
      keepShownLogprobs(choice, segments.map(contentOf).filter((text) => typeof text === "string").join(""));
      changed = true;
    }
    if (recovered && choice.finish_reason !== "tool_calls") {
      choice.finish_reason = "tool_calls";
      changed = true;
    }
    if (segments.length === 0) return changed ? [chunk] : null;
    if (!delta || Object.keys(delta).length === 0) return [...segments, chunk];
    // Role, reasoning or native calls riding on the finish event still go out before the released text.
    const head = this.#synthetic({ ...delta });
    for (const key of Object.keys(delta)) delete delta[key];
    return [head, ...segments, chunk];
  }

  /** A chunk too long to hold streams past after the stand-aside: its call indices and finish_reason still agree (CallNumbering). */
  get passing(): PassingEdits {
    return this.#numbering.passing;
  }

  #segments(events: EngineEvent[], from: number): Json[] {
    const out: Json[] = [];
    for (let i = from; i < events.length; i++) {
      const event = events[i]!;
      if (event.type === "text") {
        if (event.text) out.push(this.#synthetic({ content: event.text }));
      } else if (this.#hold) {
        this.#heldCalls.push(event.call);
      } else {
        out.push(this.#callChunk(event.call));
      }
    }
    return out;
  }

  /** A recovered call goes out, under the next index. */
  #callChunk(call: RecoveredCall): Json {
    this.#repeats.add(call);
    return this.#synthetic({ tool_calls: [openAiCall(call, this.#numbering.next())] });
  }

  #synthetic(delta: Json): Json {
    const envelope = this.#latest ? envelopeOf(this.#latest) : { object: "chat.completion.chunk" };
    return { ...envelope, choices: [{ index: 0, delta, finish_reason: null }] };
  }

  #final(): void {
    if (this.#reported || this.#guard.failed) return;
    this.#reported = true;
    this.#onFinal();
  }
}

/**
 * A chunk that cuts the reply: it carries an `error` (a provider failing mid-stream: an object, or
 * a proxy's bare string), is one (vLLM's `{"object":"error",...}`), or choice 0 finishes for a cut.
 * An `error` that says there is none (null, false, "") is a plain field of a normal chunk.
 */
function cutsReply(chunk: Json): boolean {
  const error = chunk.error;
  if ((error !== undefined && error !== null && error !== false && error !== "") || chunk.object === "error") return true;
  if (!Array.isArray(chunk.choices)) return false;
  return chunk.choices.some((choice) => isObject(choice) && (choice.index === undefined || choice.index === 0) && CUT_FINISH_REASONS.has(choice.finish_reason as string));
}

/** The events' text joined, or undefined when a call is among them. */
function onlyText(events: EngineEvent[]): string | undefined {
  let text = "";
  for (const event of events) {
    if (event.type !== "text") return undefined;
    text += event.text;
  }
  return text;
}

function isEmptyText(event: EngineEvent): boolean {
  return event.type === "text" && event.text === "";
}
