// Responses API output items shared by the JSON and the streamed side.
import type { RecoveredCall } from "../../parse/types.ts";
import type { EngineEvent } from "../../engine/types.ts";
import type { Step } from "../../engine/guarded.ts";
import { textAndCalls } from "../../engine/events.ts";
import type { Json } from "../../sse/json.ts";

/** Output items that are calls the model made through the interface. */
export const NATIVE_ITEMS = new Set(["function_call", "custom_tool_call"]);

/**
 * Output items that neither go on with the reply's text nor are a call, nor given content (a
 * server tool's output): the model's reasoning. A part's end that held text waits past them, so a
 * reply cut after them decides nothing held at its end.
 */
export const QUIET_ITEMS: ReadonlySet<string> = new Set(["reasoning"]);

/** The released text; calls are collected, as they go out as items of their own. */
export function textOf(events: EngineEvent[], calls: RecoveredCall[]): string {
  const released = textAndCalls(events);
  for (const call of released.calls) calls.push(call);
  return released.text;
}

/** What a step let go of as text (a failed engine hands back what it held); calls are collected as in textOf. */
export function textOfStep(step: Step, calls: RecoveredCall[]): string {
  return step.ok ? textOf(step.events, calls) : step.held;
}

export function functionCallItem(call: RecoveredCall, status: "in_progress" | "completed"): Json {
  return { type: "function_call", id: `fc_${call.id}`, call_id: call.id, name: call.tool, arguments: status === "completed" ? JSON.stringify(call.input) : "", status };
}
