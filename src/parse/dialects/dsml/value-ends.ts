import { Flaw, type Tag } from "../../../grammar/tags.ts";
import { PlainRunInValue } from "../../closer-in-value.ts";

// Where a DSML value ends when its own closer is not the plain answer: plain markup inside it
// that is its text (an XML file being written), or a garbled closer at its end (P02).

/**
 * For each sentinel parameter opener whose value holds plain markup and still ends at a sentinel
 * parameter closer: that closer's index. The plain tags before it are content, not structure (a
 * value that is an XML file). The run is read as the stream reads it (closer-in-value.ts
 * PlainRunInValue): not when another sentinel tag comes first (the plain closer was the model's
 * mis-closed parameter, P01/M07), nor when a plain closer that matches no plain opener in the
 * value is followed by a plain parameter (the model wrote the next parameter without its
 * sentinel, M07.5); a DSML call example after the plain markup (review 45 finding 2) is read on to
 * the value's own closer, which may then be the invoke closer (the call is refused, walk.ts). Each
 * scan stops where its run is decided; the next starts after it, or at the failed example's opener
 * (its parameters are then the call's, each weighed again; an example holds no call opener, so a
 * tag is scanned a bounded number of times). A
 * self-closing opener has no value (it sat in an attribute): the plain tags after it are the
 * call's, as the stream reads them.
 */
export function plainMarkupValueEnds(span: string, tags: readonly Tag[]): Map<number, number> {
  const ends = new Map<number, number>();
  for (let i = 0; i < tags.length; i++) {
    const opener = tags[i]!;
    if (opener.family !== "dsml" || opener.role !== "parameter" || opener.closing || opener.flaws & Flaw.SelfClosing) continue;
    let run: PlainRunInValue | null = null;
    // The first sentinel tag in the run (its example's opener): a failed run's next scan starts there.
    let firstDsml = -1;
    for (let k = i + 1; k < tags.length; k++) {
      const tag = tags[k]!;
      if (firstDsml < 0 && tag.family === "dsml") firstDsml = k;
      let verdict: "content" | "fail" | null;
      if (run) verdict = run.step(tag);
      else if (tag.family === "dsml") verdict = "fail";
      else if (tag.family === "naked") {
        run = new PlainRunInValue(tag);
        verdict = null;
      } else continue;
      if (verdict === null && run) verdict = charsAfter(span, tags, k, run);
      if (verdict === "content") ends.set(i, k);
      if (verdict !== null) {
        i = (verdict === "fail" && firstDsml >= 0 ? firstDsml : k) - 1;
        break;
      }
    }
  }
  return ends;
}

// The characters between tag k and the next, while a closer in the run's example waits for one.
function charsAfter(span: string, tags: readonly Tag[], k: number, run: PlainRunInValue): "fail" | null {
  const until = k + 1 < tags.length ? tags[k + 1]!.start : span.length;
  for (let at = tags[k]!.end; at < until && run.awaitsChar; at++) if (run.char(span.charCodeAt(at)) === "fail") return "fail";
  return null;
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
