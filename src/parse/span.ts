import { Flaw, type Tag } from "../grammar/tags.ts";
import { aliasMappingOf, aliasSpec, mapAliasCall } from "./aliases.ts";
import type { SpanContext } from "./call.ts";
import { COSTUME, INLINE_COSTUME, PARAGRAPH_COSTUME } from "./costume-hold.ts";
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
import type { ToolSpec } from "./types.ts";
import { isObject } from "../grammar/plain-data.ts";

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
  "paragraph-costume": PARAGRAPH_COSTUME,
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
  const read = (with_: SpanContext) => SPAN_KINDS[root].parse({ span, opener, named, truncated, ctx: with_, enclosing });
  const segments = read(ctx);
  if (!segments.some((s) => s.kind === "call")) return segments;
  // An opener that names an attribute twice (`<tool_call name="read" name="bash">`, `lang=` twice):
  // whichever value the dialect read, the model may have meant the other. No call, and no tool named.
  if (opener.flaws & Flaw.RepeatedAttr) return segments.map((s) => (s.kind === "call" ? repeatedAttr(s) : s));
  return sameUnderEveryDeclaration(segments, read, ctx).map((s) => gated(s, ctx));
}

/**
 * A name the request declares more than once with different schemas: its calls are read with the
 * first declaration (ctx.tools), so the span is read again with each other one in its place. A
 * call that any of them reads otherwise (`string="false"` `"a\nb"` decoded for an untyped place,
 * kept for a string one; another boundary, no call at all) is refused, whatever the order of the
 * declarations (fail closed); identical readings run, and the gate still checks the
 * arguments against every declaration. A call by another agent's name for such a tool (aliases.ts)
 * is read with the alias spec of each of its target's declarations alike.
 */
function sameUnderEveryDeclaration(segments: Segment[], read: (ctx: SpanContext) => Segment[], ctx: SpanContext): Segment[] {
  const rereads = new Map<ToolSpec, Segment[]>();
  return segments.map((seg) => {
    if (seg.kind !== "call") return seg;
    const first = ctx.tools.get(seg.tool);
    // Another agent's name for a tool declared twice (`Bash` for bash): read with the alias spec of each declaration of its target.
    const mapping = first ? aliasMappingOf(first) : undefined;
    for (const declared of ctx.schemas.declarationsOf(mapping ? mapping.target.name : seg.tool) ?? []) {
      const other = mapping ? aliasSpec(mapping.alias, declared) : declared;
      if (other === first) continue;
      let again = rereads.get(other);
      if (again === undefined) rereads.set(other, (again = read({ ...ctx, tools: new Map(ctx.tools).set(seg.tool, other) })));
      const same = again.some((s) => s.kind === "call" && s.start === seg.start && s.end === seg.end && s.tool === seg.tool && sameValue(s.input, seg.input));
      if (!same) return { kind: "broken", start: seg.start, end: seg.end, shape: seg.shape, reason: "invalid-arguments", detail: `tool ${seg.tool} is declared more than once, and its declarations read these arguments differently`, tool: seg.tool };
    }
    return seg;
  });
}

/** Two readings of arguments are the same data (plain data from a reader: no cycles; a token compares as itself). */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
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
    let mapped = mapAliasCall(alias, seg.input);
    // A target declared more than once: every declaration must take the renamed parameters (fail closed), whatever their order.
    for (const declared of ctx.schemas.declarationsOf(alias.target.name) ?? []) {
      if (!mapped.ok) break;
      if (declared !== alias.target) mapped = mapAliasCall({ ...alias, target: declared }, seg.input);
    }
    if (!mapped.ok) return { kind: "broken", start: seg.start, end: seg.end, shape: ALIAS_SHAPE, reason: "undeclared-tool", detail: mapped.detail, tool: alias.target.name, declared: alias.target.name };
    tool = alias.target;
    seg = { ...seg, tool: tool.name, input: mapped.input, shape: ALIAS_SHAPE };
  }
  const verdict = ctx.schemas.check(tool, seg.input);
  // Review 50: a key the schema does not declare refuses the call, after the echo guard (output.ts).
  if (verdict.ok && ctx.schemas.holdsUndeclaredKey(tool, verdict.input)) return { ...seg, input: verdict.input, undeclaredKey: true };
  if (verdict.ok) return verdict.input === seg.input ? seg : { ...seg, input: verdict.input };
  const broken: Segment = { kind: "broken", start: seg.start, end: seg.end, shape: seg.shape, reason: verdict.markup ? "broken-markup" : "invalid-arguments", detail: verdict.detail, tool: seg.tool };
  if (verdict.parameter !== undefined) broken.parameter = verdict.parameter;
  if (verdict.undeclaredArgument) broken.undeclaredArgument = true;
  return broken;
}
