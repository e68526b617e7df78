// The Anthropic Messages blocks and stop reasons both paths (the JSON body, wire.ts, and the
// stream, stream.ts) treat apart from text: a client's tool call, and a stop that cuts the reply.

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
