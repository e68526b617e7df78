import type { Tag } from "../grammar/tags.ts";
import { stripFence } from "./legacy.ts";
import { checkedCall, truncatedCall, wholeSpan, type SpanContext } from "./call.ts";
import { brokenSpan, tagsOf, type Segment } from "./segments.ts";
import { coerceObject, isPlainObject, parseJson } from "./values.ts";

/** I10: a DSML wrapper followed by a bare tool name and a (fenced) JSON object instead of invokes. */
export function parseNamedSpan(span: string, opener: Tag, ctx: SpanContext, truncated: boolean): Segment[] {
  if (truncated) return wholeSpan(span.length, truncatedCall("I10"));
  const closer = tagsOf(span, opener.end).find((t) => t.closing && t.role === "block");
  const body = span.slice(opener.end, closer ? closer.start : span.length).replace(/^\s+/, "");
  const newline = body.indexOf("\n");
  const name = (newline < 0 ? body : body.slice(0, newline)).trim();
  const tool = ctx.tools.get(name);
  if (!tool) return brokenSpan(span.length, "B06", "undeclared-tool", "tool not declared by the request", name);
  const parsed = parseJson(stripFence(body.slice(newline + 1).trim()));
  if (!parsed.ok || !isPlainObject(parsed.value)) {
    return brokenSpan(span.length, "I10", "broken-markup", "named tool call without a JSON object", name);
  }
  return wholeSpan(span.length, checkedCall(tool, coerceObject(parsed.value, tool.parameters), "I10"));
}
