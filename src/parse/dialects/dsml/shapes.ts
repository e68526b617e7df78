import { CANONICAL_WRAPPERS } from "../../../grammar/dialects.ts";
import type { Shape } from "../../../grammar/shapes.ts";
import { Flaw, type Tag } from "../../../grammar/tags.ts";
import { typeHint } from "./attributes.ts";
import type { BlockFacts, InvokeDraft } from "./drafts.ts";

// The shape ids a recovered DSML call reports (docs/PATTERNS.md): reporting only, never a reason
// to run or refuse a call.

/** What the call's markup looked like beyond its arguments: the form, the flaws of its tags, the sentinel, the hints. */
export function structureShapes(inv: InvokeDraft, block: BlockFacts, span: string): Shape[] {
  const shapes: Shape[] = [];
  if (inv.element) shapes.push("I09");
  if (inv.orphan) shapes.push("B05");
  const tags = [...block.blockTags, ...inv.tags];
  if (tags.some((t) => t.flaws & Flaw.MissingGt)) shapes.push("B03");
  if (tags.some((t) => t.flaws & Flaw.MissingLt)) shapes.push("B04");
  if (tags.some((t) => t.flaws & Flaw.TypographicQuote)) shapes.push("Q01");
  const opener = block.blockTags.find((t) => !t.closing);
  if (opener && !CANONICAL_WRAPPERS.has(opener.name)) shapes.push(opener.name === "toolcalls" ? "B01" : "B02");
  for (const t of tags) {
    const variant = sentinelShape(t);
    if (variant) shapes.push(variant);
  }
  const families = new Set(tags.map((t) => t.family));
  if (families.has("dsml") && families.has("naked")) shapes.push("M07");
  if (!families.has("dsml")) shapes.push("M08");
  if (inv.tags.some((t) => t.role === "parameter" && !t.closing && t.attrs.string === undefined)) shapes.push("P04");
  if (inv.tags.some((t) => t.role === "parameter" && !t.closing && Object.keys(t.attrs)[0] === "string")) shapes.push("P05");
  if (!span.includes("\n")) shapes.push("D04");
  if (inv.tags.some((t) => typeHint(t.attrs.string) === "false")) shapes.push("D05");
  return shapes;
}

/** M01-M06 from how the sentinel around DSML was written. */
function sentinelShape(tag: Tag): Shape | null {
  if (tag.family !== "dsml") return null;
  if (tag.flaws & Flaw.Spaced) return "M04";
  if (tag.flaws & Flaw.SpaceBeforeName) return "M06";
  const s = tag.sentinel;
  if (s.includes("\u2016")) return "M05";
  const fullwidth = s.split("\uFF5C").length - 1;
  const ascii = s.split("|").length - 1;
  if (fullwidth === 4) return "M01";
  if (ascii === 4) return "M03";
  if (ascii === 2) return "M02";
  if (fullwidth === 2 && ascii === 0) return null;
  return "M07";
}

/** The shape of a call with nothing else to report: canonical DSML, in its `function_calls` (D01) or `tool_calls` (D02) block. */
export function canonicalShape(block: BlockFacts): Shape {
  const opener = block.blockTags.find((t) => !t.closing);
  return opener?.name === "function_calls" ? "D01" : "D02";
}
