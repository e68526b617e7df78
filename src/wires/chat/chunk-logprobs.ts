// The logprobs of a chat chunk whose content the repair changed. A chunk's `logprobs.content`
// lists the tokens of its own delta.content; once the engine took some of that content out, only
// the entries that spell what the chunk still shows stay (the one rule of both wires,
// ../logprobs.ts). Text held there and released later goes out in a chunk of its own without
// logprobs, as every synthetic chunk does. Its own file: rewriter.ts decides the content, this
// only what that means for the metadata riding along.
import { type Json, isObject } from "../../sse/json.ts";
import { shownEntries } from "../logprobs.ts";

/**
 * Keeps, of `choice.logprobs.content`, the leading entries that spell a prefix of `shown` (what
 * still goes out in the chunk's content); the rest are dropped. When none is left and the
 * logprobs say nothing else, they become null, so a chunk left with nothing to show may go.
 */
export function keepShownLogprobs(choice: Json, shown: string): void {
  const logprobs = choice.logprobs;
  if (!isObject(logprobs) || !Array.isArray(logprobs.content)) return;
  const entries = logprobs.content as unknown[];
  const keep = shownEntries(entries, shown);
  if (keep === entries.length) return;
  logprobs.content = entries.slice(0, keep);
  if (keep === 0 && Object.entries(logprobs).every(([key, value]) => key === "content" || value == null)) choice.logprobs = null;
}
