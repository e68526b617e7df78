/**
 * Review 57 A1, as an oracle: the text an Anthropic Messages client is shown for the engine's
 * events, read per upstream text block. The API refuses a text block of whitespace alone on the
 * next turn, so a text piece that is only whitespace (at a block's start or after a call) is not
 * sent when a call was taken out of its block; a block with no call keeps it (the model wrote it).
 * Written from the rule (docs/HOW-IT-WORKS.md, "Anthropic text blocks"), not from the wire's code,
 * for the tests that compare the Anthropic wire with the engine.
 */
import type { EngineEvent } from "../../src/engine/types.ts";

/**
 * One upstream text block: the engine's events while it was read (with its span's end, or the
 * reply's), and `goesOn` when it ended with the engine still holding text and a text block came
 * next: its span goes on there, and whitespace still waiting goes on with it.
 */
export interface ReadBlock {
  events: readonly EngineEvent[];
  goesOn?: boolean;
}

/** Unicode White_Space (not trim(): a byte-order mark is text), written out from the rule. */
const isBlank = (text: string) => /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*$/.test(text);

/** The text shown for each block's events, joined. */
export function anthropicShown(blocks: readonly ReadBlock[]): string {
  let shown = "";
  let waiting = "";
  for (const { events, goesOn } of blocks) {
    let open = false;
    let removed = false;
    for (const event of events) {
      if (event.type === "call") {
        waiting = "";
        open = false;
        removed = true;
      } else if (event.text === "") continue;
      else if (open) shown += event.text;
      else if (isBlank(event.text)) waiting += event.text;
      else {
        shown += waiting + event.text;
        waiting = "";
        open = true;
      }
    }
    if (goesOn) continue;
    if (!removed) shown += waiting;
    waiting = "";
  }
  return shown;
}

/**
 * Fix 57 diff B, as an oracle: the text an AI SDK client is shown through the middleware for one
 * text part's events (docs/HOW-IT-WORKS.md). The AI SDK keeps a text part as one text however calls
 * stand in it, so the rule is the part's: whitespace while the part shows no words waits for them,
 * a call drops it, and at the part's end it is kept only when no call was taken out of the part.
 */
export function middlewareShown(events: readonly EngineEvent[]): string {
  let shown = "";
  let waiting = "";
  let worded = false;
  let removed = false;
  for (const event of events) {
    if (event.type === "call") {
      waiting = "";
      removed = true;
    } else if (worded) shown += event.text;
    else if (isBlank(event.text)) waiting += event.text;
    else {
      shown += waiting + event.text;
      waiting = "";
      worded = true;
    }
  }
  return removed ? shown : shown + waiting;
}
