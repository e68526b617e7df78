import type { Tag } from "../../grammar/tags.ts";
import type { Segment, UnitOutcome } from "../segments.ts";
import { isPlainObject, parseJson } from "../values.ts";
import { callOutcome, callsOverSpan, jsonCallOutcome, wholeSpan, type SpanContext } from "../call.ts";
import { textSpan } from "../segments.ts";
import { ignoreContent, type SpanKind } from "../span-kind.ts";
import { truncatedCall } from "../call.ts";

/**
 * O06 Mistral: `[TOOL_CALLS]NAME[ARGS]{json}`, the newest tokenizers' `[TOOL_CALLS]NAME{json}`, the
 * older `[TOOL_CALLS][{"name", "arguments"}, ...]`, and (off by default) the residue
 * `NAME[ARGS]{json}` left when the special token is stripped.
 */
export function parseMistralSpan(span: string, opener: Tag, ctx: SpanContext): Segment[] {
  const body = span.slice(opener.end).trim();
  if (body.startsWith("[")) {
    const parsed = parseJson(body);
    if (!parsed.ok || !Array.isArray(parsed.value)) return wholeSpan(span.length, { kind: "foreign" });
    const outcomes: UnitOutcome[] = parsed.value.map((entry) =>
      isPlainObject(entry) ? jsonCallOutcome(entry, "O06", ctx) : { kind: "foreign" },
    );
    return callsOverSpan(span.length, outcomes, "O06");
  }
  const args = body.indexOf("[ARGS]");
  if (args >= 0) return wholeSpan(span.length, callOutcome(body.slice(0, args).trim(), body.slice(args + 6).trim(), "O06", ctx));
  // Without `[ARGS]` only a JSON object proves the call: `[TOOL_CALLS]NAME{json}` written in prose is text.
  const brace = body.indexOf("{");
  const parsed = brace > 0 ? parseJson(body.slice(brace)) : { ok: false as const };
  if (!parsed.ok || !isPlainObject(parsed.value)) return wholeSpan(span.length, { kind: "foreign" });
  return wholeSpan(span.length, callOutcome(body.slice(0, brace), parsed.value, "O06", ctx));
}

/** O06: read as characters by the stream (JSON or NAME [ARGS] JSON); no tag ends it. */
export const MISTRAL: SpanKind = {
  watchesContent: false,
  content: ignoreContent,
  tag: () => null,
  parse({ span, opener, truncated, ctx }) {
    if (!truncated) return parseMistralSpan(span, opener, ctx);
    // Only the real `[TOOL_CALLS]` token proves a call was under way; the residue stays text.
    return opener.name === "tool_calls" && span.slice(opener.end).trim() !== "" ? wholeSpan(span.length, truncatedCall("O06")) : textSpan(span.length);
  },
};
