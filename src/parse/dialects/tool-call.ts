import type { SpanContext } from "../dsml.ts";
import type { Segment } from "../segments.ts";
import { textSpan } from "../segments.ts";
import { isPlainObject, parseJson } from "../values.ts";
import { callOutcome, element, textArgsOutcome, trimLayoutNewlines, wholeSpan } from "./common.ts";
import { parseQwenFunctions } from "./qwen.ts";

/**
 * `<tool_call>` is shared by four formats; the body tells them apart:
 * a JSON object (Hermes/Qwen, O01), `<function=` (Qwen3-Coder, O02), a name then `<arg_key>`
 * pairs (GLM, O03), or `<tool_name>`/`<code>` (the C01/C05 costume, handled by the caller).
 */
export function parseToolCallDialect(span: string, bodyStart: number, bodyEnd: number, ctx: SpanContext): Segment[] | null {
  const body = span.slice(bodyStart, bodyEnd);
  const trimmed = body.trim();
  const dialects = ctx.options.dialects;
  if (trimmed.startsWith("{")) {
    if (!dialects.hermes) return textSpan(span.length);
    const parsed = parseJson(trimmed);
    if (!parsed.ok || !isPlainObject(parsed.value)) return textSpan(span.length);
    const { name, arguments: args, parameters } = parsed.value as { name?: unknown; arguments?: unknown; parameters?: unknown };
    if (typeof name !== "string") return textSpan(span.length);
    return wholeSpan(span.length, callOutcome(name, args ?? parameters, "O01", ctx));
  }
  if (trimmed.startsWith("<function=")) {
    return dialects.qwen3coder ? parseQwenFunctions(span, bodyStart, bodyEnd, ctx) : textSpan(span.length);
  }
  if (body.includes("<arg_key>")) {
    if (!dialects.glm) return textSpan(span.length);
    const newline = trimmed.search(/[\n<]/);
    const name = (newline < 0 ? trimmed : trimmed.slice(0, newline)).trim();
    const pairs: [string, string][] = [];
    for (let at = 0; ; ) {
      const key = element(body, "arg_key", at);
      if (!key) break;
      const value = element(body, "arg_value", key.end);
      if (!value) return wholeSpan(span.length, { kind: "broken", shape: "O03", reason: "broken-markup", detail: "arg_key without arg_value", tool: name });
      pairs.push([key.value.trim(), trimLayoutNewlines(value.value)]);
      at = value.end;
    }
    return wholeSpan(span.length, textArgsOutcome(name, pairs, "O03", ctx));
  }
  return null;
}
