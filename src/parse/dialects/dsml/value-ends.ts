import { Flaw, type Tag } from "../../../grammar/tags.ts";

// Where a DSML value ends when its own closer is not the plain answer: plain markup inside it
// that is its text (an XML file being written), or a garbled closer at its end (P02).

/**
 * For each sentinel parameter opener whose value holds plain markup and still ends at a sentinel
 * parameter closer: that closer's index. The plain tags before it are content, not structure (a
 * value that is an XML file). Not when another sentinel tag comes first (the plain closer was the
 * model's mis-closed parameter, P01/M07), nor when a plain closer that matches no plain opener in
 * the value is followed by a plain parameter or invoke tag (the model wrote the next parameter
 * without its sentinel). Each scan stops at the next sentinel tag, so the scans never overlap. A
 * self-closing opener has no value (it sat in an attribute): the plain tags after it are the
 * call's, as the stream reads them.
 */
export function plainMarkupValueEnds(tags: readonly Tag[]): Map<number, number> {
  const ends = new Map<number, number>();
  for (let i = 0; i < tags.length; i++) {
    const opener = tags[i]!;
    if (opener.family !== "dsml" || opener.role !== "parameter" || opener.closing || opener.flaws & Flaw.SelfClosing) continue;
    let depth = 0;
    let unmatchedCloser = false;
    let plain = false;
    for (let k = i + 1; k < tags.length; k++) {
      const tag = tags[k]!;
      if (tag.family === "dsml") {
        if (plain && tag.role === "parameter" && tag.closing) ends.set(i, k);
        i = k - 1;
        break;
      }
      if (tag.family !== "naked") continue;
      if (unmatchedCloser && ((tag.role === "parameter" && !tag.closing) || tag.role === "invoke")) {
        i = k - 1;
        break;
      }
      plain = true;
      if (tag.role !== "parameter") continue;
      if (!tag.closing) depth++;
      else if (depth > 0) depth--;
      else unmatchedCloser = true;
    }
  }
  return ends;
}

const GARBLED_CLOSER = /(?:<\/?[\uFF5C|\u2016]|[\uFF5C\u2016])[\s\uFF5C|\u2016>/]{0,8}(?:dsml[\s\uFF5C|\u2016>/]{0,8})?param[a-z]{0,8}\s{0,4}>?\s*$/i;

/**
 * P02: where a garbled parameter closer starts at the end of a value, or -1. Bounded to the last 64
 * characters. It starts with a sentinel bar (fullwidth U+FF5C or U+2016) or with `<` before any
 * bar: an ASCII `|` alone is a shell pipe (`make | paramfix`), not a closer.
 */
export function garbledCloserAt(value: string): number {
  const tailStart = Math.max(0, value.length - 64);
  const m = GARBLED_CLOSER.exec(value.slice(tailStart));
  return m ? tailStart + m.index : -1;
}
