// The public whole-text entry point (package export "./parse"). It sits above the engine, in the
// stream layer, so every import runs downward: grammar -> parse -> stream -> adapters -> plugin/cli.
import type { ParseOptionsInput, ParseResult, ToolSpec } from "../parse/types.ts";
import { createRepairEngine } from "./engine.ts";
import { textAndCalls } from "./events.ts";

export * from "../parse/types.ts";

export interface ParseCallOptions extends ParseOptionsInput {
  /** Candidate spans longer than this are left as text; unlimited for a complete reply by default. */
  bufferLimit?: number;
  /** The reply also carried native tool calls: leaked markup is stripped, never made a second call. */
  nativeToolCalls?: boolean;
}

/**
 * Parses one complete assistant reply. Pure: the same engine the live stream uses, fed the whole
 * text at once, so the streamed and the whole-text answers cannot drift apart.
 */
export function parse(text: string, tools: readonly ToolSpec[], options: ParseCallOptions = {}): ParseResult {
  // Plain JavaScript may pass no tool list, null among its tools or null options: no tool is read
  // from those (so no call), and null options are no options, never a throw.
  const { bufferLimit, nativeToolCalls, ...parseOptions } = options ?? {};
  const declared = Array.isArray(tools) ? tools.filter((tool): tool is ToolSpec => typeof tool === "object" && tool !== null) : [];
  const engine = createRepairEngine({ tools: declared, parse: parseOptions, bufferLimit: bufferLimit ?? Number.MAX_SAFE_INTEGER, idPrefix: "call_" });
  if (nativeToolCalls) engine.noteNativeToolCall();
  const { text: visible, calls } = textAndCalls([...engine.feed(text), ...engine.flush()]);
  const summary = engine.summary();
  return { calls, broken: summary.broken, stripped: summary.stripped, text: visible, nudge: summary.nudge };
}
