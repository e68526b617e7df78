// The Anthropic Messages blocks and stop reasons both paths (the JSON body, wire.ts, and the
// stream, stream.ts) treat apart from text: a client's tool call, and a stop that cuts the reply;
// and how the stream moves a block's event to its downstream index (kept here, apart from the
// stream's state, as it reads none: stream.ts stays under the 500-line bound).
import type { RecoveredCall } from "../../parse/types.ts";
import type { Rewritten } from "../../sse/rewrite.ts";
import type { Json } from "../../sse/json.ts";

/**
 * Block types that are tool calls the client will run: only `tool_use`. A server tool use
 * (`server_tool_use`: web search, code execution; `mcp_tool_use`: the MCP connector) ran on
 * Anthropic's side with its result in the same reply, so the client has nothing to run: a leaked
 * call beside it duplicates nothing and is repaired, as on Responses (NATIVE_ITEMS is
 * function_call and custom_tool_call only) and as the history's madeNativeCall reads a turn. Nor
 * does it count against the one call of `disable_parallel_tool_use`, which Anthropic defines for
 * the client tools the model calls.
 */
export const NATIVE_BLOCKS: ReadonlySet<string> = new Set(["tool_use"]);

/**
 * Stop reasons that cut the reply rather than end it: `refusal`, the streaming classifier stopping
 * it mid-text. Nothing held is decided there, and the stop reason is left as it came (a recovered
 * call does not turn it into `tool_use`). `max_tokens` is an end, as documented.
 */
export const CUT_STOP_REASONS: ReadonlySet<string> = new Set(["refusal"]);

/** A recovered call as the events of a tool_use block at downstream `index`. */
export function toolUseEvents(call: RecoveredCall, index: number): Json[] {
  return [
    { type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.tool, input: {} } },
    { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) } },
    { type: "content_block_stop", index },
  ];
}

/** The event as it came when its index is unchanged (null); otherwise rewritten with the new one. */
export function renumbered(event: Json, index: number | undefined): Rewritten | null {
  if (index === undefined || index === event.index) return null;
  event.index = index;
  return { pieces: [event], original: event };
}
