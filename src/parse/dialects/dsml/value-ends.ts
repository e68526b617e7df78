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

/**
 * A garbled closer at a value's end, with no whitespace inside it: `<` (and `/`) before a bar, or a
 * sentinel bar alone; then bars, `>` or `/`; an optional `DSML` and more of those; a word starting
 * with `param` (group 2); an optional `>`; only layout after it. Group 1: the `<` that led it.
 */
const GARBLED_CLOSER = /(?:(<\/?)[\uFF5C|\u2016]|[\uFF5C\u2016])[\uFF5C|\u2016>/]{0,8}(?:dsml[\uFF5C|\u2016>/]{0,8})?(param[a-z]{0,8})>?\s*$/i;
/** Words spelled like `parameter`, cut short or with one letter lost; never a plural (`parameters`, `params`). */
const PARAMETER_LIKE: ReadonlySet<string> = new Set(["param", "parame", "paramet", "paramete", "parameter", "parametr", "paramter", "paramer"]);

/**
 * P02: where a garbled parameter closer starts at the end of a value, or -1. Bounded to the last 64
 * characters. It starts with a sentinel bar (fullwidth U+FF5C or U+2016) or with `<` before any
 * bar: an ASCII `|` alone is a shell pipe (`make | paramfix`), not a closer. No
 * whitespace inside it (`名称 {BAR} parameters` is a table cell), and one led by a bare sentinel bar
 * shows markup (a `>` or `DSML` in it, `{BAR}>{BAR}parameter`, `{DVL}parameter>`) or is glued to the
 * value and spelled like `parameter` (`{BAR}param`): a bar after a space, or before an ordinary
 * word (`{BAR}parameters`), is the value's text, kept.
 */
export function garbledCloserAt(value: string): number {
  const tailStart = Math.max(0, value.length - 64);
  const m = GARBLED_CLOSER.exec(value.slice(tailStart));
  if (!m) return -1;
  const at = tailStart + m.index;
  if (m[1] === undefined) {
    const marked = m[0].includes(">") || m[0].toLowerCase().includes("dsml");
    const glued = at === 0 || value[at - 1]!.trim() !== "";
    if (!marked && !(glued && PARAMETER_LIKE.has(m[2]!.toLowerCase()))) return -1;
  }
  return at;
}
