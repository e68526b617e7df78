import { Flaw, type Tag } from "../grammar/tags.ts";
import { aliasMappingOf, mapAliasCall } from "./aliases.ts";
import type { SpanContext } from "./call.ts";
import { COSTUME, INLINE_COSTUME } from "./costume-hold.ts";
import { BLOCK, ELEMENT, INVOKE, PARAMETER, TOOL_ELEMENT } from "./dialects/invoke-markup.ts";
import { MINIMAX_BRACKET } from "./dialects/minimax-bracket.ts";
import { MISTRAL } from "./dialects/mistral.ts";
import { QWEN_FUNCTION } from "./dialects/qwen.ts";
import { TOOL_CALL } from "./dialects/tool-call.ts";
import { LEGACY_CALL, LEGACY_SECTION } from "./legacy.ts";
import type { Segment } from "./segments.ts";
import { PLAIN_ELEMENT } from "./tool-element.ts";
import { STANDALONE_JSON } from "./standalone-json.ts";
import type { Root, SpanKind } from "./span-kind.ts";

export type { Root };

/** Every span kind by the root that opens it: its boundary rules (the stream's candidate) and its parser. */
export const SPAN_KINDS: Readonly<Record<Root, SpanKind<unknown>>> = {
  block: BLOCK,
  invoke: INVOKE,
  parameter: PARAMETER,
  element: ELEMENT,
  "legacy-section": LEGACY_SECTION,
  "legacy-call": LEGACY_CALL,
  costume: COSTUME,
  "inline-costume": INLINE_COSTUME,
  "qwen-function": QWEN_FUNCTION,
  "tool-call": TOOL_CALL,
  mistral: MISTRAL,
  "tool-element": TOOL_ELEMENT,
  "plain-element": PLAIN_ELEMENT,
  "minimax-bracket": MINIMAX_BRACKET,
  "standalone-json": STANDALONE_JSON,
};

/**
 * Parses one complete (or, at the end of the reply, truncated) candidate span by what opened it.
 * Every call it yields has passed the schema gate: whatever the dialect, a call whose arguments do
 * not fit its tool's declared schema is a broken span ("invalid-arguments") and never runs.
 */
export function parseSpan(span: string, root: Root, opener: Tag, named: boolean, truncated: boolean, ctx: SpanContext, enclosing: Tag | true | null = null): Segment[] {
  const segments = SPAN_KINDS[root].parse({ span, opener, named, truncated, ctx, enclosing });
  if (!segments.some((s) => s.kind === "call")) return segments;
  // An opener that names an attribute twice (`<tool_call name="read" name="bash">`, `lang=` twice):
  // whichever value the dialect read, the model may have meant the other. No call, and no tool named.
  if (opener.flaws & Flaw.RepeatedAttr) return segments.map((s) => (s.kind === "call" ? repeatedAttr(s) : s));
  return segments.map((s) => gated(s, ctx));
}

function repeatedAttr(seg: Segment & { kind: "call" }): Segment {
  return { kind: "broken", start: seg.start, end: seg.end, shape: seg.shape, reason: "broken-markup", detail: "the opening tag names an attribute twice" };
}

/** A call written with another agent's name for a declared tool, mapped onto it (issue 29 item 6). */
const ALIAS_SHAPE = "A01";

function gated(seg: Segment, ctx: SpanContext): Segment {
  if (seg.kind !== "call") return seg;
  let tool = ctx.tools.get(seg.tool);
  // Code costumes name bash themselves; every other call was looked up already. No tool, no call.
  if (!tool) return { kind: "broken", start: seg.start, end: seg.end, shape: seg.shape, reason: "undeclared-tool", detail: "tool not declared by the request", tool: seg.tool };
  // Another agent's name for a declared tool (src/parse/aliases.ts): every parameter maps exactly, or no call.
  const alias = aliasMappingOf(tool);
  if (alias) {
    const mapped = mapAliasCall(alias, seg.input);
    if (!mapped.ok) return { kind: "broken", start: seg.start, end: seg.end, shape: ALIAS_SHAPE, reason: "undeclared-tool", detail: mapped.detail, tool: alias.target.name, declared: alias.target.name };
    tool = alias.target;
    seg = { ...seg, tool: tool.name, input: mapped.input, shape: ALIAS_SHAPE };
  }
  const verdict = ctx.schemas.check(tool, seg.input);
  if (verdict.ok) return verdict.input === seg.input ? seg : { ...seg, input: verdict.input };
  const broken: Segment = { kind: "broken", start: seg.start, end: seg.end, shape: seg.shape, reason: verdict.markup ? "broken-markup" : "invalid-arguments", detail: verdict.detail, tool: seg.tool };
  if (verdict.parameter !== undefined) broken.parameter = verdict.parameter;
  if (verdict.undeclaredArgument) broken.undeclaredArgument = true;
  return broken;
}
