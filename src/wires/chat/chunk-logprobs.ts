// The logprobs of a chat chunk whose content the repair changed. A chunk's `logprobs.content`
// lists the tokens of its own delta.content; once the engine took some of that content out (into
// a recovered call, or held it to decide later), the entries of tokens the chunk no longer shows
// are dropped: a client collecting logprobs (the AI SDK's providerMetadata) must not list the
// tokens of markup that became a call. Text held there and released later goes out in a chunk of
// its own without logprobs, as every synthetic chunk does. Its own file: rewriter.ts decides the
// content, this only what that means for the metadata riding along.
import { type Json, isObject } from "../../sse/json.ts";

/**
 * Keeps, of `choice.logprobs.content`, the leading entries whose tokens spell a prefix of `shown`
 * (what still goes out in the chunk's content); the rest are dropped. When none is left and the
 * logprobs say nothing else, they become null, so a chunk left with nothing to show may go.
 */
export function keepShownLogprobs(choice: Json, shown: string): void {
  const logprobs = choice.logprobs;
  if (!isObject(logprobs) || !Array.isArray(logprobs.content)) return;
  const entries = logprobs.content as unknown[];
  let spelled = 0;
  let keep = 0;
  for (const entry of entries) {
    const token = isObject(entry) ? entry.token : undefined;
    if (typeof token !== "string" || !shown.startsWith(token, spelled)) break;
    spelled += token.length;
    keep++;
  }
  if (keep === entries.length) return;
  logprobs.content = entries.slice(0, keep);
  if (keep === 0 && Object.entries(logprobs).every(([key, value]) => key === "content" || value == null)) choice.logprobs = null;
}
