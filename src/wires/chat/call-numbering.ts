// Keeps a chat stream's `tool_calls[].index` and `finish_reason` valid for the client when
// recovered calls and native calls mix: recovered calls take the next free index, a native call
// keeps its own unless a recovered call already took it, and a reply that carried a recovered call
// finishes with "tool_calls". The same holds for a chunk that streams past after the stand-aside.
import { DQ } from "../../grammar/chars.ts";
import { type Json, isObject } from "../../sse/json.ts";
import type { PassingEdits } from "../../sse/passing.ts";

/**
 * Finish reasons that cut the reply rather than end it: a content filter stopped it, the provider
 * failed it mid-stream (OpenRouter's "error"), or the server aborted the request (SGLang's "abort":
 * /abort_request, a session's clean-up). Nothing held is decided there (rewriter.ts), and the
 * finish_reason stays as it came, a recovered call or not.
 */
export const CUT_FINISH_REASONS: ReadonlySet<string> = new Set(["content_filter", "error", "abort"]);

/** Read in a chunk that streams past after the stand-aside: a choice's index and finish_reason, a native call's index. */
const PASSING_KEYS: ReadonlySet<string> = new Set(["index", "finish_reason"]);

export class CallNumbering {
  /** Calls handed to the client so far, from either channel (the rewriter counts them). */
  #recovered: () => number;
  #nextIndex = 0;
  #nativeIndex = new Map<number, number>();

  constructor(recovered: () => number) {
    this.#recovered = recovered;
  }

  /** The index the next recovered call goes out under. */
  next(): number {
    return this.#nextIndex++;
  }

  /** After the engine is done only indices and the finish_reason still need to agree with what was emitted. */
  settle(choice: Json, toolCalls: unknown[] | undefined): boolean {
    let changed = toolCalls ? this.remapNative(toolCalls) : false;
    if (choice.finish_reason != null && this.#recovered() > 0 && choice.finish_reason !== "tool_calls" && !CUT_FINISH_REASONS.has(choice.finish_reason as string)) {
      choice.finish_reason = "tool_calls";
      changed = true;
    }
    return changed;
  }

  /** Native calls keep their indices unless a recovered call already took one. */
  remapNative(toolCalls: unknown[]): boolean {
    let changed = false;
    for (const call of toolCalls) {
      if (!isObject(call) || typeof call.index !== "number") continue;
      const mapped = this.#nativeAt(call.index);
      if (mapped !== call.index) {
        call.index = mapped;
        changed = true;
      }
    }
    return changed;
  }

  /** Where the native call the upstream numbers `index` goes out. */
  #nativeAt(index: number): number {
    let mapped = this.#nativeIndex.get(index);
    if (mapped === undefined) {
      mapped = this.#recovered() === 0 ? index : this.#nextIndex;
      this.#nativeIndex.set(index, mapped);
    }
    this.#nextIndex = Math.max(this.#nextIndex, mapped + 1);
    return mapped;
  }

  /**
   * A chunk too long to hold, after the stand-aside, streams past: in choice 0 (the choice whose
   * `index` came before, or the first), a native call's index and the finish_reason are still set
   * as settle() sets them in a chunk that fits.
   */
  get passing(): PassingEdits {
    return {
      keys: PASSING_KEYS,
      scalar: (path, json, seen) => {
        if (path[0] !== "choices" || (seen[2]?.get("index") ?? (path[1] === 0 ? "0" : undefined)) !== "0") return undefined;
        if (path.length === 3 && path[2] === "finish_reason") {
          if (json.charCodeAt(0) !== DQ || json === '"tool_calls"' || this.#recovered() === 0) return undefined;
          return CUT_FINISH_REASONS.has(jsonString(json)) ? undefined : '"tool_calls"';
        }
        if (path.length !== 6 || path[2] !== "delta" || path[3] !== "tool_calls" || path[5] !== "index") return undefined;
        const index = Number(json);
        return Number.isSafeInteger(index) ? String(this.#nativeAt(index)) : undefined;
      },
    };
  }
}

/** A JSON string token's value (a plain one: these reasons have no escapes); "" for anything else. */
function jsonString(json: string): string {
  return json.length >= 2 && json.charCodeAt(json.length - 1) === DQ ? json.slice(1, -1) : "";
}
