import { parse } from "../engine/parse.ts";
import type { NudgeReason, ParseOptionsInput, Span } from "../parse/types.ts";

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
  const { text: out, removed } = redactLeaks(text, options);
  return { text: out, removed };
}

export interface RedactedText extends SanitizedText {
  /** Why the first replaced span was not a call; with no declared tools a well-formed call reads as "undeclared-tool". */
  nudge: NudgeReason | null;
  /** Shape ids of the replaced spans. */
  shapes: string[];
}

/** sanitizeAssistantText, also saying what was replaced (for a correction and a debug line). */
export function redactLeaks(text: string, options: ParseOptionsInput = {}): RedactedText {
  if (!mayHoldMarkup(text)) return { text, removed: 0, nudge: null, shapes: [] };
  const result = parse(text, [], options);
  const spans: Span[] = [...result.broken.map((b) => b.span), ...result.calls.map((c) => c.span)].sort((a, b) => a[0] - b[0]);
  if (spans.length === 0) return { text, removed: 0, nudge: null, shapes: [] };
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    if (start < at) continue;
    out += text.slice(at, start) + REMOVED_NOTE;
    at = end;
  }
  const shapes = [...result.broken.map((b) => b.shape), ...result.calls.map((c) => c.shape)];
  return { text: out + text.slice(at), removed: spans.length, nudge: result.nudge, shapes };
}

/** Cheap pre-check: replayed history is mostly plain prose. */
function mayHoldMarkup(text: string): boolean {
  return /[<|\uFF5C\u2016[]/.test(text);
}
