import { tagsOf, type Segment } from "../segments.ts";
import type { SpanContext } from "../dsml.ts";
import { textArgsOutcome, trimLayoutNewlines, wholeSpan } from "./common.ts";

/**
 * O02 Qwen3-Coder: `<function=NAME>` then `<parameter=KEY>VALUE</parameter>` pairs then
 * `</function>`. Values are raw text (one hugging newline each side is layout), typed by schema.
 */
export function parseQwenFunctions(span: string, from: number, to: number, ctx: SpanContext): Segment[] {
  let name: string | null = null;
  let closed = false;
  let open: { key: string; start: number } | null = null;
  const pairs: [string, string][] = [];
  for (const tag of tagsOf(span.slice(0, to), from)) {
    if (tag.family !== "naked") continue;
    if (tag.role === "function") {
      if (!tag.closing && name === null) name = tag.attrs.name ?? null;
      else if (tag.closing) closed = true;
    } else if (tag.role === "parameter") {
      if (!tag.closing) open = { key: tag.attrs.name ?? "", start: tag.end };
      else if (open) {
        pairs.push([open.key, trimLayoutNewlines(span.slice(open.start, tag.start))]);
        open = null;
      }
    }
  }
  if (name === null) return wholeSpan(span.length, { kind: "foreign" });
  if (!closed || open) return wholeSpan(span.length, { kind: "broken", shape: "O02", reason: "truncated-call", detail: "function never closed", tool: name });
  return wholeSpan(span.length, textArgsOutcome(name, pairs, "O02", ctx));
}
