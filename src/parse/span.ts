import type { Tag } from "../grammar/tags.ts";
import { parseCostumeSpan } from "./costume.ts";
import { parseDsmlSpan, type SpanContext } from "./dsml.ts";
import { parseLegacySpan } from "./legacy.ts";
import { parseNamedSpan } from "./named.ts";
import { wholeSpan } from "./dialects/common.ts";
import { parseMistralSpan } from "./dialects/mistral.ts";
import { parseQwenFunctions } from "./dialects/qwen.ts";
import { textSpan, type Segment } from "./segments.ts";

/** What opened a candidate; decides which closer ends it. */
export type Root =
  | "block"
  | "invoke"
  | "parameter"
  | "element"
  | "legacy-section"
  | "legacy-call"
  | "costume"
  | "qwen-function"
  | "mistral";

/** Parses one complete (or, at the end of the reply, truncated) candidate span by what opened it. */
export function parseSpan(span: string, root: Root, opener: Tag, named: boolean, truncated: boolean, ctx: SpanContext, enclosing: Tag | true | null = null): Segment[] {
  switch (root) {
    case "costume":
      return truncated ? textSpan(span.length) : parseCostumeSpan(span, opener, ctx);
    case "qwen-function":
      return truncated ? wholeSpan(span.length, { kind: "broken", shape: "O02", reason: "truncated-call", detail: "function never closed" }) : parseQwenFunctions(span, 0, span.length, ctx);
    case "mistral":
      return truncated ? textSpan(span.length) : parseMistralSpan(span, opener, ctx);
    case "legacy-section":
    case "legacy-call":
      return parseLegacySpan(span, ctx, enclosing === true);
    default:
      return named ? parseNamedSpan(span, opener, ctx, truncated) : parseDsmlSpan(span, ctx, enclosing === true ? null : enclosing);
  }
}
