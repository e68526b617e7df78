// OpenAI chat-completions shapes shared by the JSON and the SSE side of the chat wire.
import type { RecoveredCall } from "../../parse/types.ts";

import type { Json } from "../../sse/json.ts";

/** A `tool_calls` entry; streamed entries also carry their index. */
export function openAiCall(call: RecoveredCall, index?: number): Json {
  const out: Json = {
    id: call.id,
    type: "function",
    function: { name: call.tool, arguments: JSON.stringify(call.input) },
  };
  return index === undefined ? out : { index, ...out };
}
