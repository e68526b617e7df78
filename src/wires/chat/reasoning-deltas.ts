// D06 on the chat stream: each chunk's reasoning delta (`reasoning_content` or `reasoning`) goes
// through the reasoning channel, which holds back a trailing call block until the reply ends; the
// block's calls go out then, only when the reasoning was the answer, and otherwise its text goes
// back into the reasoning. A delta may carry its thinking under both keys (vLLM between PR #27752
// and #33402): the client reads `reasoning_content` and falls back to `reasoning` only when the
// first is missing or null (the AI SDK's `reasoning_content ?? reasoning`), so `reasoning_content`
// is the text read; `reasoning` gets the same edit when it carried the same text (held, released,
// deleted together), and is left as it came otherwise.
import type { ReasoningChannel } from "../../engine/reasoning-channel.ts";
import type { Json } from "../../sse/json.ts";
import { type Piece, RAW } from "../../sse/rewrite.ts";
import type { CallNumbering } from "./call-numbering.ts";
import { onlyEnvelope } from "./chunk-fields.ts";
import { openAiCall } from "./openai.ts";

export class ReasoningDeltas {
  #reasoning: ReasoningChannel;
  /** A synthetic chunk carrying `delta`, in the stream's envelope (the rewriter's). */
  #synthetic: (delta: Json) => Json;
  #numbering: CallNumbering;
  /** The field the provider streams thinking in; released reasoning text goes back under it. */
  #reasoningKey: ReasoningKey = "reasoning_content";
  /** The provider mirrors `reasoning_content` under `reasoning`: released text goes back under both. */
  #mirrored = false;
  /** Calls recovered from the reasoning channel (D06), emitted when the reply ended. */
  recovered = 0;

  constructor(reasoning: ReasoningChannel, synthetic: (delta: Json) => Json, numbering: CallNumbering) {
    this.#reasoning = reasoning;
    this.#synthetic = synthetic;
    this.#numbering = numbering;
  }

  /**
   * The chunk's reasoning through the reasoning channel. Reasoning ends where content, a native
   * call or the finish begins; what its engine still held goes out just before. `done`: the
   * content side's engine is done.
   */
  thought(delta: Json | undefined, content: string | undefined, native: boolean, finish: boolean, done: boolean): Thought | undefined {
    const reasoning = this.#reasoning;
    if (native) reasoning.noteNative();
    if (content !== undefined) reasoning.noteContent(content);
    const ends = content !== undefined || native || finish || done;
    // The content side gave up: nothing from the reasoning runs.
    if (done) reasoning.abandon();
    const key = reasoningKeyOf(delta);
    if (key === undefined || done) {
      const rest = reasoning.take() + (ends ? reasoning.close() : "");
      return rest ? { lead: [this.#thinking(rest)], changed: false } : undefined;
    }
    this.#reasoningKey = key;
    const original = delta![key] as string;
    const mirror = key === "reasoning_content" && delta!.reasoning === original;
    this.#mirrored = mirror;
    const fed = reasoning.feed(original);
    // A block held from an earlier stretch comes back before this one's text.
    const released = reasoning.take() + fed + (ends ? reasoning.close() : "");
    if (released === original) return undefined;
    if (released) delta![key] = released;
    // All of it held, beside another `reasoning`: an empty `reasoning_content` keeps the client reading it, not the fallback.
    else if (key === "reasoning_content" && !mirror && delta!.reasoning != null) delta![key] = "";
    else delete delta![key];
    if (mirror) {
      if (released) delta!.reasoning = released;
      else delete delta!.reasoning;
    }
    return { lead: [], changed: true };
  }

  /** A synthetic chunk carrying reasoning text, under the key (or keys) the provider streams it in. */
  #thinking(text: string): Json {
    return this.#synthetic(this.#mirrored ? { reasoning_content: text, reasoning: text } : { [this.#reasoningKey]: text });
  }

  /** Calls written in reasoning, once the reply has ended: only when the reasoning was the answer (`contentCalls`: calls the content side recovered). */
  calls(contentCalls: number): Json[] {
    const calls = this.#reasoning.settle(contentCalls);
    this.recovered += calls.length;
    const shown = this.#reasoning.take();
    const back = shown ? [this.#thinking(shown)] : [];
    return [...back, ...calls.map((call) => this.#synthetic({ tool_calls: [openAiCall(call, this.#numbering.next())] }))];
  }

  /** The content side gave up: nothing from the reasoning runs, and a held block goes back into it. */
  abandon(): Json[] {
    this.#reasoning.abandon();
    const shown = this.#reasoning.take();
    return shown ? [this.#thinking(shown)] : [];
  }

  close(): Json[] {
    const rest = this.#reasoning.close();
    return rest ? [this.#thinking(rest)] : [];
  }
}

type ReasoningKey = "reasoning_content" | "reasoning";

/** What the reasoning channel did to a chunk: reasoning text to send before it, and whether its own delta changed. */
interface Thought {
  lead: Json[];
  changed: boolean;
}

/**
 * Providers stream thinking as `reasoning_content` (DeepSeek, vLLM, SGLang) or `reasoning`
 * (OpenRouter, newer vLLM). A string `reasoning_content`, even an empty one, is what the client
 * reads (`reasoning` is only its fallback); undefined: the delta carries no reasoning text.
 */
function reasoningKeyOf(delta: Json | undefined): ReasoningKey | undefined {
  if (typeof delta?.reasoning_content === "string") return delta.reasoning_content !== "" ? "reasoning_content" : undefined;
  if (typeof delta?.reasoning === "string" && delta.reasoning !== "") return "reasoning";
  return undefined;
}

/** The content side's pieces with the reasoning side's changes: a changed chunk is never sent as its original bytes. */
export function withThought(thought: Thought, pieces: Piece[] | null, chunk: Json, delta: Json, hasMeta: boolean): Piece[] {
  if (!thought.changed) return [...thought.lead, ...(pieces ?? [RAW])];
  const own = pieces ?? [chunk];
  const body = own.map((piece) => (piece === RAW ? chunk : piece));
  // A chunk that carried only reasoning, all of it held back, is dropped rather than sent empty.
  const empty = body.length === 1 && body[0] === chunk && onlyEnvelope(chunk, delta) && !hasMeta;
  return [...thought.lead, ...(empty ? [] : body)];
}
