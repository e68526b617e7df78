// OpenAI chat-completions shapes shared by the JSON and the SSE side of the fetch adapter.
import type { RecoveredCall } from "../parse/types.ts";

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A `tool_calls` entry; streamed entries also carry their index. */
export function openAiCall(call: RecoveredCall, index?: number): Json {
  const out: Json = {
    id: call.id,
    type: "function",
    function: { name: call.tool, arguments: JSON.stringify(call.input) },
  };
  return index === undefined ? out : { index, ...out };
}
