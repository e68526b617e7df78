import type { RecoveredCall } from "../parse/types.ts";
import type { EngineEvent } from "./types.ts";

/** Engine events folded into what a non-streaming consumer needs: the visible text and the calls, in order. */
export function textAndCalls(events: readonly EngineEvent[]): { text: string; calls: RecoveredCall[] } {
  let text = "";
  const calls: RecoveredCall[] = [];
  for (const event of events) {
    if (event.type === "text") text += event.text;
    else calls.push(event.call);
  }
  return { text, calls };
}
