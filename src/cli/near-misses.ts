import { COSTUME_INNER } from "../grammar/dialects.ts";
import { readTag, type Tag } from "../grammar/tags.ts";
import type { ParseResult, Span } from "../parse/types.ts";

/**
 * Openers of tool-call markup the parser did not act on: quoted in a fence or inline code, or too
 * partial to be a call. Not leaks (nothing would run), but a sign the model writes the format, and
 * what a user checks before trusting that a session is clean. Only tags that open a call or a
 * block of calls count; `<pre>` and `<code>` are ordinary HTML and do not.
 */
export function countNearMisses(text: string, result: Pick<ParseResult, "calls" | "broken" | "stripped">): number {
  const spans: Span[] = [...result.calls, ...result.broken, ...result.stripped].map((item) => item.span).sort((a, b) => a[0] - b[0]);
  let count = 0;
  let next = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code !== 0x3c && code !== 0x5b) continue;
    while (next < spans.length && spans[next]![1] <= at) next++;
    const inside = next < spans.length && spans[next]![0] <= at;
    if (inside) {
      at = spans[next]![1] - 1;
      continue;
    }
    const tag = readTag(text, at, true);
    if (tag === null || tag === "need-more") continue;
    if (opensCall(tag)) count++;
    at = Math.max(at, tag.end - 1);
  }
  return count;
}

const HTML_COSTUMES = new Set(["pre", "code"]);
const OPENING_TOKENS = new Set(["section-begin", "call-begin", "call-start"]);

function opensCall(tag: Tag): boolean {
  if (tag.closing) return false;
  switch (tag.family) {
    case "dsml":
    case "naked":
      return tag.role === "block" || tag.role === "invoke" || tag.role === "function";
    case "legacy":
      return tag.legacy !== undefined && OPENING_TOKENS.has(tag.legacy);
    case "mistral":
      return tag.name === "tool_calls" || tag.name === "tool_call";
    case "costume":
      return !HTML_COSTUMES.has(tag.name) && !COSTUME_INNER.has(tag.name);
  }
}
