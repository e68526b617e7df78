import type { Tag } from "../grammar/tags.ts";
import { parseCostumeSpan, xmlToolCall } from "./costume.ts";
import { parseDsmlSpan } from "./dsml.ts";
import { parseLegacySpan } from "./legacy.ts";
import { parseNamedSpan } from "./named.ts";
import { truncatedCall, wholeSpan, type SpanContext } from "./call.ts";
import { parseMistralSpan } from "./dialects/mistral.ts";
import { parseQwenFunctions } from "./dialects/qwen.ts";
import { parseToolCallSpan } from "./dialects/tool-call.ts";
import { tagsOf, textSpan, type Segment } from "./segments.ts";

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
  | "tool-call"
  | "mistral";

/**
 * Parses one complete (or, at the end of the reply, truncated) candidate span by what opened it.
 * Every call it yields has passed the schema gate: whatever the dialect, a call whose arguments do
 * not fit its tool's declared schema is a broken span ("invalid-arguments") and never runs.
 */
export function parseSpan(span: string, root: Root, opener: Tag, named: boolean, truncated: boolean, ctx: SpanContext, enclosing: Tag | true | null = null): Segment[] {
  const segments = readSpan(span, root, opener, named, truncated, ctx, enclosing);
  return segments.some((s) => s.kind === "call") ? segments.map((s) => gated(s, ctx)) : segments;
}

function gated(seg: Segment, ctx: SpanContext): Segment {
  if (seg.kind !== "call") return seg;
  const tool = ctx.tools.get(seg.tool);
  // Code costumes name bash themselves; every other call was looked up already. No tool, no call.
  if (!tool) return { kind: "broken", start: seg.start, end: seg.end, shape: seg.shape, reason: "undeclared-tool", detail: "tool not declared by the request", tool: seg.tool };
  const verdict = ctx.schemas.check(tool, seg.input);
  if (verdict.ok) return verdict.input === seg.input ? seg : { ...seg, input: verdict.input };
  const broken: Segment = { kind: "broken", start: seg.start, end: seg.end, shape: seg.shape, reason: "invalid-arguments", detail: verdict.detail, tool: seg.tool };
  if (verdict.parameter !== undefined) broken.parameter = verdict.parameter;
  return broken;
}

function readSpan(span: string, root: Root, opener: Tag, named: boolean, truncated: boolean, ctx: SpanContext, enclosing: Tag | true | null): Segment[] {
  switch (root) {
    case "costume":
      return truncated ? textSpan(span.length) : parseCostumeSpan(span, opener, ctx);
    case "tool-call":
      return parseToolCallSpan(span, opener, ctx, truncated, (s) => xmlToolCall(s, ctx));
    case "qwen-function":
      return parseQwenFunctions(span, 0, span.length, ctx);
    case "mistral":
      if (!truncated) return parseMistralSpan(span, opener, ctx);
      // Only the real `[TOOL_CALLS]` token proves a call was under way; the residue stays text.
      return opener.name === "tool_calls" && span.slice(opener.end).trim() !== "" ? wholeSpan(span.length, truncatedCall("O06")) : textSpan(span.length);
    case "legacy-section":
    case "legacy-call":
      return parseLegacySpan(span, ctx, enclosing === true);
    default: {
      const segments = named ? parseNamedSpan(span, opener, ctx, truncated) : parseDsmlSpan(span, ctx, enclosing === true ? null : enclosing);
      return truncated && isUnprefixedWrapper(opener) && segments.every((s) => s.kind !== "call") && hasInvoke(span, opener)
        ? wholeSpan(span.length, truncatedCall(opener.name === "minimax:tool_call" ? "O05" : "O07"))
        : segments;
    }
  }
}

/** MiniMax-M2 and Claude-style wrappers (O05, O07): the whole wrapper is their gate, so a cut-off one reads as text to the DSML walk. */
function isUnprefixedWrapper(opener: Tag): boolean {
  return opener.family === "naked" && opener.role === "block" && (opener.name === "minimax:tool_call" || opener.name === "function_calls");
}

function hasInvoke(span: string, opener: Tag): boolean {
  return tagsOf(span, opener.end).some((t) => t.role === "invoke" && !t.closing && t.attrs.name !== undefined);
}
