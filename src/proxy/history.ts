// History on the request side: leaked markup in replayed assistant turns becomes the plugin's
// inline note before the request goes up, so the model does not imitate its own old leaks.
import { sanitizeAssistantText } from "../history/sanitize.ts";
import type { ParseOptionsInput } from "../parse/types.ts";

type Json = Record<string, unknown>;

const WIRE_PATH = /\/(chat\/completions|messages|responses)$/;
/** Text parts of an assistant turn on the three wires: chat and Messages "text", Responses "output_text". */
const TEXT_PARTS = new Set(["text", "output_text"]);

export interface SanitizedBody {
  body: Uint8Array<ArrayBuffer>;
  /** Leaked spans replaced; 0 means the body is the original bytes. */
  removed: number;
}

/**
 * Chat `messages`, Messages `messages` and Responses `input` hold the replayed turns. A body with
 * nothing to replace is returned as the very same bytes; only a changed body is serialized again.
 */
export function sanitizeRequestBody(pathname: string, body: Uint8Array<ArrayBuffer>, options: ParseOptionsInput): SanitizedBody {
  if (!WIRE_PATH.test(pathname)) return { body, removed: 0 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return { body, removed: 0 };
  }
  if (!isObject(parsed)) return { body, removed: 0 };
  let removed = 0;
  for (const turns of [parsed.messages, parsed.input]) {
    if (!Array.isArray(turns)) continue;
    for (const turn of turns) if (isObject(turn) && turn.role === "assistant") removed += sanitizeTurn(turn, options);
  }
  return removed === 0 ? { body, removed } : { body: new Uint8Array(new TextEncoder().encode(JSON.stringify(parsed))), removed };
}

function sanitizeTurn(turn: Json, options: ParseOptionsInput): number {
  if (typeof turn.content === "string") {
    const result = sanitizeAssistantText(turn.content, options);
    if (result.removed > 0) turn.content = result.text;
    return result.removed;
  }
  if (!Array.isArray(turn.content)) return 0;
  let removed = 0;
  for (const part of turn.content) {
    if (!isObject(part) || !TEXT_PARTS.has(part.type as string) || typeof part.text !== "string") continue;
    const result = sanitizeAssistantText(part.text, options);
    if (result.removed > 0) part.text = result.text;
    removed += result.removed;
  }
  return removed;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
