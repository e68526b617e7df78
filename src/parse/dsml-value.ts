import { Flaw, type Tag } from "../grammar/tags.ts";
import { mayNameTool } from "./tool-element-name.ts";

/**
 * Golden A45.1-A45.3: what a sentinel tag read inside a DSML call (outside an example, which
 * example-in-value.ts reads) does to its values, decided once for the span walk
 * (dialects/dsml/walk.ts onTag, onToolNamed) and the stream (engine/candidate.ts), so the two
 * never disagree on whether a value is open: a stream that forgets an open value no longer weighs
 * a later closer by the closer rule and runs the call cut at it.
 *
 * - "open": a value opens (a parameter opener; in the tool-named form I11, a child opener between values).
 * - "close": the open value ends at it (a parameter closer; in I11 any child closer but the tool's).
 * - "end-call": the call ends at it, and with it an open value, but only by the closer rule
 *   (closer-in-value.ts): an invoke or block closer, the I11 tool's own closer.
 * - "next": another invoke starts (an invoke opener): the open value ends, cut short.
 * - "text": nothing changes. Every other tag: inside a value its text (`<{D}thinking>`, `</{D}bash>`,
 *   a self-closing parameter, a block opener the restart rule reads), outside one no value structure.
 *
 * `open`: a value is open before the tag. `tool`: the I11 element's tool name as the tag reader
 * spells it (lower case), or null in an invoke. `valueName`: the open value's name (lower case).
 */
export type DsmlValueStep = "open" | "close" | "end-call" | "next" | "text";

export function dsmlValueStep(tag: Tag, open: boolean, tool: string | null, valueName: string): DsmlValueStep {
  if (tag.family !== "dsml") return "text";
  // I11: every tag that may name a tool or a parameter is the element's (walk.ts onToolNamed).
  if (tool !== null && mayNameTool(tag)) {
    if (tag.closing) return tag.name === tool && valueName !== tag.name ? "end-call" : open ? "close" : "text";
    if (open || tag.flaws & Flaw.SelfClosing || Object.keys(tag.attrs).some((k) => k !== "string") || tag.flaws & Flaw.RepeatedAttr) return "text";
    return "open";
  }
  return structuralValueStep(tag);
}

/**
 * The same step for a tag read by its role alone (no I11 element, or before one opens): the rule
 * above for a sentinel tag, and how the span walk reads an unprefixed one written in a DSML span
 * (walk.ts onTag, which calls this for both families, so the stream's rule and the walk's switch
 * cannot drift). A self-closing invoke or parameter opens nothing: the walk reads its attribute value.
 */
export function structuralValueStep(tag: Tag): DsmlValueStep {
  switch (tag.role) {
    case "parameter":
      if (tag.closing) return "close";
      // A self-closing parameter carries its value in an attribute: no value opens, an open one stays open.
      return tag.flaws & Flaw.SelfClosing ? "text" : "open";
    case "invoke":
      if (tag.closing) return "end-call";
      return tag.flaws & Flaw.SelfClosing ? "text" : "next";
    case "block":
      return tag.closing ? "end-call" : "text";
    default:
      return "text";
  }
}

/** The name of the value a DSML tag that opens one ("open") opens, lower case: its `name` attribute, or the I11 child's own name. */
export function dsmlValueName(tag: Tag): string {
  return tag.role === "parameter" && !mayNameTool(tag) ? (tag.attrs.name ?? "").toLowerCase() : tag.name;
}
