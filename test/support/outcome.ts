/**
 * What a reply comes to through the engine, for the dialect tests (review 43 and 44 and the parse
 * tests beside them): the recovered calls (tool and input), the broken-markup reasons and the
 * visible text, the same whole, char by char and at seeded random splits. With the builders of the
 * markup more than one of those files writes.
 */
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { runAtEverySplit } from "./run-engine.ts";

export function outcome(input: string, tools: readonly ToolSpec[] = fixtureTools) {
  const r = runAtEverySplit(input, tools);
  return { calls: r.calls.map((c) => ({ tool: c.tool, input: c.input })), broken: r.summary.broken.map((b) => b.reason), text: r.text };
}

export type Outcome = ReturnType<typeof outcome>;

/** A MiniMax bracket call (O05) on one line: `[TOOL_CALL] {tool => "TOOL", args => { PAIRS }} [/TOOL_CALL]`. */
export const minimaxBracket = (tool: string, pairs: string) => `[TOOL_CALL] {tool => "${tool}", args => { ${pairs} }} [/TOOL_CALL]`;

/** A Qwen3-Coder call in its `<tool_call>` wrapper, the function's parameters on their own lines. */
export const qwenCall = (fn: string, params: string) => `<tool_call>\n<function=${fn}>\n${params}\n</function>\n</tool_call>`;

/** Whether a call ran with the Cline/Roo element form's `<command` markup inside its command. */
export const sendsMarkup = (o: Outcome) => o.calls.some((c) => typeof c.input.command === "string" && c.input.command.includes("<command"));
