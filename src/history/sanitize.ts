import { parse } from "../stream/parse-text.ts";
import type { ParseOptionsInput, Span } from "../parse/types.ts";

/** What replaces leaked markup in replayed history: short, and says nothing ran. */
export const REMOVED_NOTE = "[dsml-fix: a malformed tool call was removed here; it was not executed]";

export interface SanitizedText {
  text: string;
  /** How many leaked spans were replaced. */
  removed: number;
}

/**
 * Replaces leaked tool-call markup in replayed assistant text with REMOVED_NOTE. History never
 * becomes calls: the text is parsed with no declared tools, so every leak is a span to redact,
 * and documentation (fences, inline code) is left exactly as written.
 */
export function sanitizeAssistantText(text: string, options: ParseOptionsInput = {}): SanitizedText {
  if (!mayHoldMarkup(text)) return { text, removed: 0 };
  const result = parse(text, [], options);
  const spans: Span[] = [...result.broken.map((b) => b.span), ...result.calls.map((c) => c.span)].sort((a, b) => a[0] - b[0]);
  if (spans.length === 0) return { text, removed: 0 };
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    if (start < at) continue;
    out += text.slice(at, start) + REMOVED_NOTE;
    at = end;
  }
  return { text: out + text.slice(at), removed: spans.length };
}

/** Cheap pre-check: replayed history is mostly plain prose. */
function mayHoldMarkup(text: string): boolean {
  return /[<|\uFF5C\u2016[]/.test(text);
}
