import { Flaw, type Tag } from "../../../grammar/tags.ts";
import type { ExampleOptions } from "../../example-in-value.ts";
import { PlainRunInValue } from "../../plain-run-in-value.ts";

// Where a DSML value ends when its own closer is not the plain answer: plain markup inside it
// that is its text (an XML file being written), or a garbled closer at its end (P02).

/**
 * Plain markup in an open sentinel value, from its first plain tag (`first`, the first since the
 * value opened or since the last sentinel tag the walk read): the index of the tag that ends the
 * value when all of it is the value's text (an XML file being written), or -1. Read as the stream
 * reads it (plain-run-in-value.ts PlainRunInValue): not when another sentinel tag comes first (the
 * plain closer was the model's mis-closed parameter, P01/M07), nor when a plain closer that
 * matches no plain opener in the value is followed by a plain parameter (the model wrote the next
 * parameter without its sentinel, M07.5); a DSML call example after the plain markup (golden
 * A45.4, E45.10) is read on to the value's own closer, which may then be the invoke closer (the call
 * is refused, walk.ts). The walk asks once per run of plain tags (value-examples.ts ValueExamples.skips). `options`: the
 * open value's I11 reading (declared tools, an I11 child's name), as for an example in it.
 */
export function plainRunEnd(span: string, tags: readonly Tag[], first: number, options?: ExampleOptions, out?: { ambiguous: boolean; before: boolean }): number {
  const run = new PlainRunInValue(tags[first]!, options);
  if (charsAfter(span, tags, first, run) === "fail") return -1;
  for (let k = first + 1; k < tags.length; k++) {
    const stepped = run.step(tags[k]!);
    // Content at a held prefix-less closer after the run's example: the tag before this one, or this one when its characters decided.
    const verdict = stepped ?? charsAfter(span, tags, k, run);
    if (verdict === "content" && stepped === "content" && run.contentAtHeld) k--;
    if (verdict === "content") {
      // The run's example ended ambiguously (ExampleInValue.ambiguous): the walk refuses the call.
      if (out) {
        out.ambiguous = run.ambiguous;
        // Only mentions, ended before a DSML tag that is no closer of the value (PlainRunInValue.endsBefore): that tag is read as usual.
        out.before = run.endsBefore;
      }
      return k;
    }
    if (verdict === "fail") return -1;
  }
  return -1;
}

/**
 * For each sentinel parameter opener whose value starts a run of plain markup before any other
 * sentinel tag: where that run ends the value (plainRunEnd), as [opener index, closer index]. A
 * self-closing opener has no value (it sat in an attribute). For tests of the lookahead.
 */
export function plainMarkupValueEnds(span: string, tags: readonly Tag[]): Map<number, number> {
  const ends = new Map<number, number>();
  for (let i = 0; i < tags.length; i++) {
    const opener = tags[i]!;
    if (opener.family !== "dsml" || opener.role !== "parameter" || opener.closing || opener.flaws & Flaw.SelfClosing) continue;
    let k = i + 1;
    while (k < tags.length && tags[k]!.family !== "dsml" && tags[k]!.family !== "naked") k++;
    if (k >= tags.length || tags[k]!.family !== "naked") continue;
    const end = plainRunEnd(span, tags, k);
    if (end >= 0) ends.set(i, end);
    // The run's own tags are decided; a failed run's tags are read again from the next sentinel tag.
    if (end >= 0) i = end - 1;
  }
  return ends;
}

// The characters between tag k and the next, while a closer in the run's example waits for one.
function charsAfter(span: string, tags: readonly Tag[], k: number, run: PlainRunInValue): "fail" | "content" | null {
  const until = k + 1 < tags.length ? tags[k + 1]!.start : span.length;
  for (let at = tags[k]!.end; at < until && run.awaitsChar; at++) {
    const v = run.char(span.charCodeAt(at));
    if (v !== null) return v;
  }
  return null;
}

// P02, a garbled closer at a value's end: garbled-closer.ts (a scanner, its sentinel word may be misspelled).
export { closerHeadStart, garbledCloser, garbledCloserAt } from "./garbled-closer.ts";
