// What repairFetch needs from a wire (chat-completions, Anthropic Messages, Responses): how its
// requests declare tools and given content, and how its responses are repaired. The engine behind
// every wire is the same; no wire imports another.
import type { ToolSpec } from "../parse/types.ts";
import type { AnswerSoFar, EngineSummary } from "../engine/types.ts";
import type { EventRewriter } from "../sse/rewrite.ts";
import type { Json } from "../sse/json.ts";
import type { GuardedEngine } from "../engine/guarded.ts";
import type { CallPolicy } from "./tool-choice.ts";
import type { Prefill } from "./prefill.ts";

/**
 * A fresh engine for one text channel of the response ("reasoning": a D06 reasoning stretch);
 * `continues`: the reply's text so far, when this engine reads a later part of the same reply.
 */
export type EngineFor = (channel?: "reasoning", continues?: AnswerSoFar) => GuardedEngine;

/**
 * Content a server-side tool returned inside the reply (EchoGuard.addGiven): given to the echo
 * guard for the text that follows it. `texts` is read only when a call is about to be recovered.
 */
export type AddGiven = (texts: () => readonly string[]) => void;

/**
 * What a Responses reply gave under the server's ids, for the next request's item_reference to
 * them (src/adapters/repaired-items.ts): a reference to a message item the repair changed must not
 * replay the server's stored copy (the leak the repair took out).
 */
export interface ItemNotes {
  /**
   * An item came back under `id`: whatever was noted under that id before is stale (an upstream
   * may give an id again: a restarted local server, one that numbers per response). Told before
   * the reply's own notes of it.
   */
  seen(id: string): void;
  /** A message item whose text the repair changed went out under `id`, as `item`. */
  repaired(id: string, item: Json): void;
  /** A message item went out under `id` as `item` (changed or not), when the reply is complete. */
  shown(id: string, item: Json): void;
}

export interface WireJsonContext {
  engine: EngineFor;
  /** Every engine's summary of the response, reported once. */
  report(summaries: EngineSummary[]): void;
  /** A server tool's result in the reply, before the text after it is read; absent: the echo guard is off. */
  addGiven?: AddGiven;
  /** What the reply gave under the server's ids (ItemNotes); absent: nowhere to tell. */
  items?: ItemNotes;
}

/** What the rewriter of one streamed response is given (Wire.rewriter). */
export interface WireStreamContext {
  /** The engine of the reply's first text channel. */
  guard: GuardedEngine;
  /** A fresh engine for each further text channel (a reasoning stretch, a later text part). */
  engine: EngineFor;
  /** Told once, when the reply ends, with the further engines' summaries. */
  onFinal(more?: readonly EngineSummary[]): void;
  /**
   * The request allows one call (CallPolicy.oneCall): a recovered call is held back until the reply
   * ends, and never goes out if a native call comes first (RepairEngine.withdrawCalls).
   */
  oneCall: boolean;
  /** Where a server tool's result in the reply goes (WireJsonContext.addGiven); absent: the echo guard is off. */
  addGiven?: AddGiven;
  /** Where the reply's items under the server's ids are told (WireJsonContext.items); absent: nowhere. */
  items?: ItemNotes;
  /** The tools offered, whose schemas a native call repeating a recovered one is read under (src/wires/sent-calls.ts). */
  tools?: readonly ToolSpec[];
}

export interface Wire {
  /** As the debug line names it. */
  readonly name: string;
  /** Tools the request declared; none means the response is not ours to touch. */
  declared(body: Json): ToolSpec[];
  /**
   * Every tool name the request declared, of any kind and before its tool choice narrows them:
   * another agent's name for a tool never stands for one of these (EngineOptions.reservedNames).
   */
  declaredNames(body: Json): string[];
  /** The request's tool choice and parallel-calls switch, translated to the wire-neutral form (tool-choice.ts). */
  allowed(body: Json): CallPolicy;
  /** Content the request gave the model (for the echo guard): every string of the body but the model's own words (src/echo/from-request.ts); read only when a call is about to be recovered. */
  given(body: Json): string[];
  /** The text the reply continues when the request ends in an assistant turn (prefill.ts); undefined: the reply starts a fresh message. */
  prefill(body: Json): Prefill | undefined;
  /** Repairs a parsed JSON response in place; true when anything changed. */
  repairJson(body: Json, ctx: WireJsonContext): boolean;
  /** The per-event rewriter of a streamed response. */
  rewriter(stream: WireStreamContext): EventRewriter;
}
