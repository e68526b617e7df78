// Responses API output items shared by the JSON and the streamed side.
import type { RecoveredCall } from "../../parse/types.ts";
import type { EngineEvent } from "../../engine/types.ts";
import type { Step } from "../../engine/guarded.ts";
import { textAndCalls } from "../../engine/events.ts";
import type { Json } from "../../sse/json.ts";

/** Output items that are calls the model made through the interface. */
export const NATIVE_ITEMS = new Set(["function_call", "custom_tool_call"]);

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
