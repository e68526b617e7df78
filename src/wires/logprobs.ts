// The logprobs riding along a streamed text event whose text the repair changed (a chat chunk's
// `logprobs.content`, a Responses output_text.delta's or output_text.done's `logprobs`): each
// entry is one token of the event's own text, so once the engine took some of that text out (into
// a recovered call, or held it to decide later) only the leading entries that spell what the event
// still shows stay: a client collecting logprobs (the AI SDK's providerMetadata) must not list the
// tokens of markup that became a call. One rule for both wires: the entries have one shape.
import { isObject } from "../sse/json.ts";

const utf8 = new TextEncoder();

/**
 * How many leading `entries` spell a prefix of `shown`. An entry's `bytes` (its UTF-8 bytes, when
 * given) are compared, else its `token` (as UTF-8): a character the API splits across tokens (an
 * emoji as two byte tokens, each `token` a byte escape) spells its bytes, not its token strings.
 * Linear in `shown` and the entries' bytes.
 */
export function shownEntries(entries: readonly unknown[], shown: string): number {
  const want = utf8.encode(shown);
  let at = 0;
  let keep = 0;
  for (const entry of entries) {
    const bytes = bytesOf(entry);
    if (bytes === undefined || at + bytes.length > want.length) break;
    let same = true;
    for (let i = 0; i < bytes.length && same; i++) same = bytes[i] === want[at + i];
    if (!same) break;
    at += bytes.length;
    keep++;
  }
  return keep;
}

/** An entry's UTF-8 bytes: its `bytes` when they are a list of byte values, else its `token` encoded. */
function bytesOf(entry: unknown): ArrayLike<number> | undefined {
  if (!isObject(entry)) return undefined;
  const { bytes, token } = entry;
  if (Array.isArray(bytes) && bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return bytes as number[];
  return typeof token === "string" ? utf8.encode(token) : undefined;
}

/** `entries` cut to the leading ones that spell `shown` (the same array when all do). */
export function shownLogprobs(entries: unknown[], shown: string): unknown[] {
  const keep = shownEntries(entries, shown);
  return keep === entries.length ? entries : entries.slice(0, keep);
}
