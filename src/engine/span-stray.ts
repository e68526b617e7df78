import { NEED_MORE, readTag, type Tag } from "../grammar/tags.ts";
import { strayParameterOpenerAt } from "./stray-opener.ts";

/**
 * Whether the text of a span no call took (a cut-off or broken candidate's text or broken
 * segment, `span[from, to)`) shows a DSML parameter that is no invoke's: one outside every DSML
 * invoke opened in it (a namespaced or Claude-style candidate that ran on over a stray
 * `<{D}parameter name="workdir">`), or a further parameter of a DSML invoke that never closed,
 * opened while the value before it never closed (`git st` cut off, a blank line, then the
 * workdir; a value that closed before the next one is the call's own, golden S02.5). Text mode
 * never read that text, so the stray-parameter rule (I02, golden P48.5) would miss it: the orphan
 * invokes after it must be refused as after any stray parameter. `inInvoke`: the span opened with
 * a DSML invoke (its own first parameter is no stray). Linear: each tag read once.
 */
export function showsStrayInText(span: string, from: number, to: number, declared: ReadonlyMap<string, unknown>, inInvoke: boolean): boolean {
  const tags: { at: number; tag: Tag | null }[] = [];
  let lastInvokeCloser = -1;
  for (let j = span.indexOf("<", from); j !== -1 && j < to; j = span.indexOf("<", j + 1)) {
    const r = readTag(span, j, true);
    // A tag reaching past the segment is not its own (no copy of the segment is made).
    const tag = r === null || r === NEED_MORE || r.end > to ? null : r;
    if (tag !== null && tag.family === "dsml" && tag.role === "invoke" && tag.closing) lastInvokeCloser = j;
    tags.push({ at: j, tag });
  }
  let invokeOpen = inInvoke;
  let valueOpen = false;
  for (const { at, tag } of tags) {
    if (tag === null) {
      // A spelling the tag grammar reads as no tag (`<{D}parameter=workdir>`): outside an invoke, a stray.
      if (!invokeOpen && strayParameterOpenerAt(span, at, to === span.length, at > 0 ? span.charCodeAt(at - 1) : -1) === true) return true;
      continue;
    }
    if (tag.family !== "dsml") continue;
    if (tag.role === "invoke") {
      invokeOpen = !tag.closing;
      valueOpen = false;
    } else if (tag.role === "parameter" && tag.closing) {
      valueOpen = false;
    } else if (tag.role === "parameter" && !declared.has(tag.attrs.name ?? "")) {
      if (!invokeOpen || (valueOpen && lastInvokeCloser < at)) return true;
      valueOpen = true;
    }
  }
  return false;
}
