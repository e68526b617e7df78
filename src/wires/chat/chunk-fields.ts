// What a chat.completion.chunk carries besides its content: the envelope synthetic chunks copy,
// and whether anything else in it matters to a client (then it cannot be dropped or stood for).
import type { Json } from "../../sse/json.ts";

const ENVELOPE = ["id", "object", "created", "model", "system_fingerprint"] as const;

/** A synthetic chunk's content (choice 0's delta). */
export function contentOf(synthetic: Json): unknown {
  return ((synthetic.choices as Json[])[0]?.delta as Json | undefined)?.content;
}

/** The chunk's envelope fields, which a synthetic chunk copies. */
export function envelopeOf(chunk: Json): Json {
  const out: Json = {};
  for (const key of ENVELOPE) if (chunk[key] !== undefined) out[key] = chunk[key];
  return out;
}

/** True when the event carries content and nothing else a client could act on, so a synthetic chunk can stand for it. */
export function onlyContent(chunk: Json, delta: Json): boolean {
  const keys = Object.keys(delta);
  return keys.length === 1 && keys[0] === "content" && onlyEnvelope(chunk, {});
}

/** True when, content removed, the event would carry nothing a client could act on. */
export function onlyEnvelope(chunk: Json, delta: Json): boolean {
  if (Object.keys(delta).length > 0 || (chunk.choices as unknown[]).length !== 1) return false;
  const choice = (chunk.choices as Json[])[0]!;
  for (const [key, value] of Object.entries(choice)) {
    if (key !== "index" && key !== "delta" && value != null) return false;
  }
  for (const [key, value] of Object.entries(chunk)) {
    if (key !== "choices" && !(ENVELOPE as readonly string[]).includes(key) && value != null) return false;
  }
  return true;
}
