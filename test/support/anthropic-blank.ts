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

const isBlank = (text: string) => text.trim() === "";

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
