import { isNamespacedWrapper } from "../../../grammar/dialects.ts";
import type { Shape } from "../../../grammar/shapes.ts";
import { Flaw, type Tag } from "../../../grammar/tags.ts";
import { aliasMappingOf } from "../../aliases.ts";
import type { SpanContext } from "../../call.ts";
import { buildInput, type ParamValue } from "../../invoke-input.ts";
import type { UnitOutcome } from "../../segments.ts";
import { readPlainChildren } from "../../tool-element.ts";
import type { NudgeReason } from "../../types.ts";
import { unreadParameterOpenerIn } from "../../unread-opener.ts";
import { lineIndentBefore, propertySchema } from "../../values.ts";
import type { BlockFacts, InvokeDraft, ParamDraft } from "./drafts.ts";
import { canonicalShape, structureShapes } from "./shapes.ts";

/** The detail of a parameter written where no invoke is open (no wrapped tool): a stray parameter. */
export const ORPHAN_PARAMETER = "parameter outside any invoke";

/**
 * One finished invoke draft judged: a call only when every tag and every character of it was read,
 * the tool is declared and the arguments fit its schema; broken markup (with the shape and the
 * reason the nudge names) when it was the model's call but cannot be trusted; foreign when it is
 * another grammar's markup outside that grammar's gate, which stays text.
 */
export function invokeOutcome(inv: InvokeDraft, block: BlockFacts, span: string, ctx: SpanContext): UnitOutcome {
  const shapes: Shape[] = [];
  let params = inv.params;
  let name = inv.name;
  if (inv.paramRoot) {
    const wrapper = params[0];
    if (params.length !== 1 || !wrapper?.children || wrapper.children.length === 0) {
      return broken("I02", "broken-markup", ORPHAN_PARAMETER);
    }
    name = wrapper.name;
    params = wrapper.children;
    shapes.push("I02");
  } else if (params.length === 1 && params[0]!.children && params[0]!.children.length > 0) {
    // The invoke names one tool, its wrapper another: which one was meant is unknowable.
    if (name !== null && name !== params[0]!.name) return broken("I02", "broken-markup", "the invoke and its wrapped parameter name different tools");
    name = params[0]!.name;
    params = params[0]!.children;
    shapes.push("I02");
  }
  if (inv.nameRunaway) return broken("I01", "broken-markup", "invoke name ran into the following text");
  // A tool named twice (`name="read" name="bash"`) names no tool the nudge could repeat.
  if (inv.tags[0]!.flaws & Flaw.RepeatedAttr) return broken("I04", "broken-markup", inv.unread ?? "the invoke names an attribute twice");
  if (block.repeatedBlockAttr) return broken("I04", "broken-markup", "a block tag names an attribute twice", name);
  if (inv.tags.some((t) => t.role === "parameter" && !t.closing && (t.flaws & Flaw.RunawayAttr) !== 0)) {
    return broken("I01", "broken-markup", "a parameter attribute ran into the following text", name);
  }
  if (!name) return broken("I06", "broken-markup", "invoke without a tool name");
  if (!inv.closed) return broken(inv.orphan ? "B07" : "S02", "truncated-call", "the call never closed", name);
  if (inv.cutShort) return broken("P01", "broken-markup", "a closer inside a value was read as its text, but the value never reached its own parameter closer", name);
  // Everything the body carried must have been read: unread markup or text beside the parameters breaks the call.
  if (inv.unread !== null) return broken(inv.toolNamed ? "I11" : "I04", "broken-markup", inv.unread, name);
  let body = inv.body;
  if (inv.toolNamed) {
    // Plain children (`<timeout>600</timeout>`) sit in the body; nothing else may.
    const plain = readPlainChildren(body, 0, body.length);
    if (plain === null) return broken("I11", "broken-markup", "text in the element body outside every parameter", name);
    params = [...params, ...plain.map((c) => plainParam(c.name, c.value, inv.tags[0]!))];
    body = "";
    shapes.unshift("I11");
  }
  if (params.length > 0 && body.trim() !== "") return broken("I04", "broken-markup", "text in the invoke body outside every parameter", name);
  const dsmlTagged = inv.tags.some((t) => t.family === "dsml") || block.blockTags.some((t) => t.family === "dsml");
  // Unprefixed markup is DSML that lost its sentinel (M08) only by the hints it carries: with no
  // parameter (an empty or a JSON body) there is none, and another dialect's gate decides.
  const hinted = params.length > 0 && allParams(params, (p) => p.hint !== undefined);
  const dialect = dsmlTagged || hinted ? null : unprefixedDialect(block, ctx);
  if (dialect === "foreign") return { kind: "foreign" };
  if (dialect) shapes.push(dialect);
  if (inv.orphan && !ctx.options.orphanInvoke) return broken("B05", "broken-markup", "orphan invoke (parse.orphanInvoke is off)", name);
  const tool = ctx.tools.get(name);
  if (!tool) return broken("B06", "undeclared-tool", "tool not declared by the request", name);
  const stranger = inv.toolNamed && !aliasMappingOf(tool) ? params.find((p) => propertySchema(tool.parameters, p.name) === undefined) : undefined;
  // The stranger's name is the model's own (it may be anything, a token included): not repeated.
  if (stranger) return broken("I11", "broken-markup", `an element is not a parameter of ${name}`, name);
  // P03 by spelling (golden P48.6, P48.7): a parameter opener the tag grammar does not read, inside a value, is the next parameter all the same.
  if (anyParam(params, (p) => p.children === null && p.literal === undefined && p.valueEnd > p.valueStart && unreadParameterOpenerIn(span, p.valueStart, p.valueEnd, "dsml") >= 0)) {
    return broken("P03", "broken-markup", "a parameter opener the tag grammar does not read stands inside a value: the value ran into the next parameter", name);
  }
  const flaws = params.map((p) => p.flaw).filter((f) => f !== "");
  if (flaws.length > 0 && !ctx.options.looseParameters) {
    return broken(flaws[0]!, "broken-markup", "mis-closed parameter (parse.looseParameters is off)", name);
  }
  const values: ParamValue[] = params.map((p) => ({
    name: p.name, hint: p.hint, raw: p.literal ?? span.slice(p.valueStart, p.valueEnd), dropped: p.flaw === "P03", implicitEnd: p.flaw === "P01" || p.flaw === "P03",
    openerNewline: (p.opener.flaws & Flaw.MissingGt) !== 0,
    indent: lineIndentBefore(span, p.opener.start, ctx.openerIndent),
  }));
  const built = buildInput(tool, values, body, ctx.options);
  if (!built.ok) return broken(built.shape, built.reason, built.detail, name);
  shapes.push(...flaws);
  if (!inv.toolNamed && params.some((p) => p.literal !== undefined)) shapes.push("P12");
  shapes.push(...built.shapes);
  shapes.push(...structureShapes(inv, block, span));
  return { kind: "call", tool: name, input: built.input, shape: shapes[0] ?? canonicalShape(block) };
}

/** A plain child of a tool-named element, as a parameter whose value was read from the body. */
function plainParam(name: string, value: string, opener: Tag): ParamDraft {
  return { name, hint: undefined, opener, valueStart: 0, valueEnd: 0, closed: true, flaw: "", children: null, literal: value };
}

function anyParam(params: ParamDraft[], test: (p: ParamDraft) => boolean): boolean {
  return params.some((p) => test(p) || (p.children !== null && anyParam(p.children, test)));
}

function allParams(params: ParamDraft[], test: (p: ParamDraft) => boolean): boolean {
  return params.every((p) => test(p) && (p.children === null || allParams(p.children, test)));
}

function broken(shape: Shape, reason: NudgeReason, detail: string, tool?: string | null): UnitOutcome {
  const out: UnitOutcome = { kind: "broken", shape, reason, detail };
  if (tool) out.tool = tool;
  return out;
}

/**
 * Unprefixed invoke/parameter without `string=` belongs to another model's grammar. It is a call
 * only inside that grammar's own complete wrapper: MiniMax-M2's `minimax:tool_call` (O05) or the
 * Claude-style `function_calls` block (O07). A bare invoke stays text.
 */
function unprefixedDialect(block: BlockFacts, ctx: SpanContext): "O05" | "O07" | "W01" | "W02" | "foreign" {
  const opener = block.blockTags.find((t) => !t.closing);
  const closer = block.blockTags.find((t) => t.closing);
  const claude = ctx.options.dialects.claudeXml;
  // Issue 29 item 7: an invoke with no wrapper of its own, proved markup by a stray wrapper line
  // before it or a lone wrapper closer right after it (W01).
  if (!opener) return claude && (block.strayLine || closer !== undefined) ? "W01" : "foreign";
  if (!closer || opener.name !== closer.name) return "foreign";
  if (opener.name === "minimax:tool_call" && ctx.options.dialects.minimax) return "O05";
  if (opener.name === "function_calls" && claude) return "O07";
  if (isNamespacedWrapper(opener.name) && claude) return "W02";
  return "foreign";
}
