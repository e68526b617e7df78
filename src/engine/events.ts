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

/** Appends text to a step's events, joined to the text event that ends them if there is one. */
export function appendText(out: EngineEvent[], text: string): void {
  if (text.length === 0) return;
  const last = out[out.length - 1];
  if (last?.type === "text") last.text += text;
  else out.push({ type: "text", text });
}
