import { Flaw, type Tag } from "../../../grammar/tags.ts";

// Which attributes of a DSML (or unprefixed) tag the walk reads, and which only label it: any
// other attribute could carry an argument the call would never receive.

/**
 * Why a structural tag's attributes were not all read, or null. A repeated attribute is ambiguous
 * anywhere. An invoke or parameter opener is read for its `name` and a true/false `string` type
 * hint only: any other attribute (`value=` beside a body, a `string=` that is no hint, an argument
 * written on the invoke) would carry something the call never receives. The element form's
 * `<function>` and `<name>` carry none. Closers and block tags carry nothing that is read.
 */
export function unreadAttribute(tag: Tag): string | null {
  if (tag.flaws & Flaw.RepeatedAttr) return `<${tag.name}> names an attribute twice`;
  if (tag.closing || tag.role === "block") return null;
  const harmless = tag.role === "invoke" ? INVOKE_LABELS : tag.role === "parameter" ? PARAMETER_LABELS : NO_LABELS;
  for (const key in tag.attrs) {
    if (key === "name" && (tag.role === "invoke" || tag.role === "parameter")) continue;
    if (key === "string" && (tag.role === "invoke" || tag.role === "parameter") && (typeHint(tag.attrs.string) !== undefined || tag.attrs.string === "")) continue;
    if (harmless.has(key)) continue;
    return `attribute ${key} of <${tag.name}> is not read`;
  }
  return null;
}

/**
 * Attributes that label a tag without carrying an argument, as models and agents really write
 * them: a call's `id`, `index` or `type` on an invoke, a Claude-style `type="string"` on a
 * parameter. Anything else (`value=`, `workdir=`, a `string=` that is no type hint) could be an
 * argument the call would run without, so it refuses the call.
 */
const INVOKE_LABELS: ReadonlySet<string> = new Set(["id", "index", "type", "call_id"]);
const PARAMETER_LABELS: ReadonlySet<string> = new Set(["type"]);
const NO_LABELS: ReadonlySet<string> = new Set();

/** The `string=` type hint in any case (`True`, `FALSE`), or undefined for a value that is none. */
export function typeHint(value: string | undefined): "true" | "false" | undefined {
  const lower = value?.toLowerCase();
  return lower === "true" || lower === "false" ? lower : undefined;
}
