import { CR, LF, SP, TAB } from "../grammar/chars.ts";
import { readTag } from "../grammar/tags.ts";

// P03 by spelling (review 48): a parameter opener the tag grammar reads as no tag, inside a value.
// The value's end is still found (a garbled closer at its end, P02; the invoke's or block's closer,
// P01; the value's own closer), so without this the value swallows the next parameter and the
// call runs with it (`rm -rf ./*` then `<{BAR}parameter name="workdir" ...>/tmp/scratch` as one
// command). Such a value refuses its call as a runaway (P03, O02 in Qwen3-Coder), as it does when
// the opener is a tag.

/** Sentinel bars as the garbled closer reads them (dialects/dsml/value-ends.ts GARBLED_CLOSER). */
const BARS = "\\uFF5C|\\u2016";
/** The prefix and word of a garbled parameter closer, without its `/`: bars, `>` or `/`, an optional `DSML` and more of those, a word starting with `param`. */
const PREFIXED_WORD = `[${BARS}>/]{0,8}(?:dsml[${BARS}>/]{0,8})?param[a-z]{0,8}`;

/**
 * Every DSML parameter opener spelling whose closer the garbled-closer rule accepts (value-ends.ts
 * garbledCloserAt), so the two rules agree on the same tag: `<` then a bar (fullwidth, ASCII or
 * U+2016) and the rest of a closer's spelling, ended by no name character (`<{BAR}parameter
 * name=...>`, `<|parameter>`, `<{DVL}param=...`); or, its `<` lost, a sentinel bar (never an
 * ASCII `|` alone, a shell pipe) not glued to markup or a word before it (the second bar of
 * `<{D}parameter` is the tag's), the same spelling, then an
 * attribute or `=` (`{BAR}parameter name="workdir">`), which a closer never carries. No
 * whitespace inside the prefix, as in a closer: `f <| params` (F#, Elm) is code.
 */
const DSML_OPENER = new RegExp(
  `<[${BARS}]${PREFIXED_WORD}(?![\\w-])|(?<![<>/\\w${BARS}])[\\uFF5C\\u2016]${PREFIXED_WORD}(?:[ \\t]+[a-z_][\\w-]*[ \\t]*=|=)`,
  "gi",
);

/**
 * A Qwen3-Coder parameter opener (`<parameter=NAME>`) with a stray space or bar the tag grammar
 * does not read (`<parameter= workdir>`, `<parameter=workdir >`, `<{BAR}parameter=workdir>`): its
 * `</parameter>` closes the value as the walk reads it. Group 1: spaces before the `=`, which
 * count only at a line start (`echo <parameter = description>x` is the value's text, review 44).
 */
const QWEN_OPENER = new RegExp(`<[${BARS}]{0,2}parameter([ \\t]*)=`, "gi");

/**
 * Where in `span[from, to)` (a value's text) a parameter opener of `kind` stands that the tag
 * grammar reads as no tag, or -1. A spelling it does read as a tag is no runaway here: the walk
 * read it as markup, or skipped it as text (an example written in the value). Linear in the value.
 */
export function unreadParameterOpenerIn(span: string, from: number, to: number, kind: "dsml" | "qwen"): number {
  if (to <= from) return -1;
  const re = kind === "dsml" ? DSML_OPENER : QWEN_OPENER;
  const value = span.slice(from, to);
  re.lastIndex = 0;
  for (let m = re.exec(value); m !== null; m = re.exec(value)) {
    const at = from + m.index;
    if (readTag(span, at, true) === null && (m[1] === undefined || m[1] === "" || startsLine(span, at, from))) return at;
    re.lastIndex = m.index + 1;
  }
  return -1;
}

/** Only spaces or tabs between the value's start or a line break and `at`. */
function startsLine(span: string, at: number, from: number): boolean {
  for (let i = at - 1; i >= from; i--) {
    const c = span.charCodeAt(i);
    if (c === LF || c === CR) return true;
    if (c !== SP && c !== TAB) return false;
  }
  return true;
}
