import { DocContext } from "../engine/doc-context.ts";
import type { Span, ToolSpec } from "../parse/types.ts";

/**
 * History-only readings of leaked markup the live repair leaves as text (it runs nothing and needs
 * no span there), or reports with a span that runs on over the prose after it. Replayed history
 * never becomes calls; these only decide what the note replaces, and never take prose.
 */

/** A DSML, DeepSeek V3 legacy, Kimi or LFM2 special token, and Mistral's call-list token: never prose. */
const TOKEN = /<\/?[\uFF5C\u2016|]\s*DSML\s*[\uFF5C\u2016|][^<>\n]{0,80}>|<[\uFF5C|][^<>\n\uFF5C|]{1,60}[\uFF5C|]>|\[TOOL_CALLS\]/g;

/**
 * Where a span the reply cut off (reason truncated-call) ends as markup: at its last special token,
 * and after the complete JSON arguments or call list that follow it directly (a DeepSeek V3 call's
 * arguments, Mistral's `[{...}` list whose `]` never came). Review 45's rule (test/history/cut-off-span.test.ts):
 * what follows the last tag is text (a cut-off value shown live, or prose), kept as written. The
 * end given back when the span holds no token, or what follows its tokens is no line of text free
 * of markup (a token cut off at the reply's end belongs to the span).
 */
export function cutOffMarkupEnd(text: string, start: number, end: number): number {
  const body = text.slice(start, end);
  let last = -1;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(body); m !== null; m = TOKEN.exec(body)) last = m.index + m[0].length;
  if (last <= 0) return end;
  const at = start + afterJson(body, last);
  if (!proseLineIn(text, at, end) || markupAfter(text, at, end)) return end;
  return at;
}

/** After a token at `at`: the end of the complete JSON object, or list of objects (up to its last complete one), written right after it. */
function afterJson(s: string, at: number): number {
  let i = skip(s, at, false);
  if (s[i] === "{") {
    const e = objectEnd(s, i);
    return e < 0 ? at : e;
  }
  if (s[i] !== "[") return at;
  let end = i + 1;
  i++;
  for (;;) {
    i = skip(s, i, true);
    if (s[i] !== "{") return end;
    const e = objectEnd(s, i);
    if (e < 0) return end;
    end = e;
    i = skip(s, e, true);
    if (s[i] === "]") return i + 1;
    if (s[i] !== ",") return end;
    i++;
  }
}

function skip(s: string, i: number, lines: boolean): number {
  while (i < s.length && (s[i] === " " || s[i] === "\t" || (lines && (s[i] === "\n" || s[i] === "\r")))) i++;
  return i;
}

/** The end of the balanced JSON object starting at `i` (strings read with escapes), or -1 when it never closes. */
function objectEnd(s: string, i: number): number {
  let depth = 0;
  let str = false;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (str) {
      if (c === "\\") j++;
      else if (c === '"') str = false;
    } else if (c === '"') str = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

/** A line break followed by a non-blank character in [from, to): a line of text after the markup. */
function proseLineIn(text: string, from: number, to: number): boolean {
  let broke = false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) broke = true;
    else if (broke && !isBlank(c) && c !== 12 && c !== 11) return true;
  }
  return false;
}

/** A Seed-OSS wrapper around a span (only white space between): it belongs to the span. */
export function withSeedWrapper(text: string, start: number, end: number): Span {
  const open = "<seed:tool_call>";
  const close = "</seed:tool_call>";
  let i = start;
  while (i > 0 && isSpace(text.charCodeAt(i - 1))) i--;
  let j = end;
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  if (i < open.length || !text.startsWith(open, i - open.length) || !text.startsWith(close, j)) return [start, end];
  return [i - open.length, j + close.length];
}

/** White space, line breaks included. */
function isSpace(c: number): boolean {
  return isBlank(c) || c === LF || c === 12 || c === 11;
}

/** Whether `</tool_call>` follows `end` with only white space between. */
function closerAfter(text: string, end: number): boolean {
  let j = end;
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  return text.startsWith("</tool_call>", j);
}

/** A block or section opener no call followed: the token alone. */
const LONE_OPENER = /<[\uFF5C\u2016|]DSML[\uFF5C\u2016|]tool_calls>|<[\uFF5C|]tool[\u2581_ ]calls[\u2581_ ]begin[\uFF5C|]>|<\|tool_calls_section_begin\|>|<\|tool_call_start\|>/g;
/** Whether [start, end) stands on lines of its own: only white space before it on its first line and after it on its last. */
function ownLine(text: string, start: number, end: number): boolean {
  return startsLine(text, start) && endsLine(text, end);
}

/** Only white space before `start` on its line. Scans only the white space next to it: linear overall. */
function startsLine(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && isBlank(text.charCodeAt(i))) i--;
  return i < 0 || text.charCodeAt(i) === LF;
}

/** Only white space after `end` on its line. */
function endsLine(text: string, end: number): boolean {
  let j = end;
  while (j < text.length && isBlank(text.charCodeAt(j))) j++;
  return j === text.length || text.charCodeAt(j) === LF || text.charCodeAt(j) === CR;
}

const LF = 10;
const CR = 13;
/** A space, tab or CR: white space within a line. */
function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === CR;
}

/** Whether markup of any dialect's tokens starts in [from, to) (no copy of the rest). */
function markupAfter(text: string, from: number, to = text.length): boolean {
  MARKER_AFTER.lastIndex = from;
  const m = MARKER_AFTER.exec(text);
  return m !== null && m.index < to;
}
const MARKER_AFTER = /[\uFF5C\u2016\u2581]|<\||\|>|\[TOOL_CALLS/g;

/** A Hermes call opener followed by a JSON object. */
const HERMES = /<tool_call>[ \t\r\n]*\{/g;

/**
 * Markup the live repair leaves as text that history replaces all the same (outside documentation
 * and outside `taken`, the spans already found), each only on lines of its own (a token named in a
 * sentence is prose about the format: golden N15, N16, N21.7, N22.1): a lone block or section
 * opener with no markup after it (the token only; the prose after it stays), and a Hermes call
 * naming a declared tool whose `</tool_call>` never came (up to the end of its JSON; the prose on
 * the lines after it stays). `taken` sorted by start. Sorted by position.
 */
export function strayMarkup(text: string, tools: readonly ToolSpec[], taken: readonly Span[]): { span: Span; shape: string }[] {
  const found: { span: Span; shape: string }[] = [];
  LONE_OPENER.lastIndex = 0;
  for (let m = LONE_OPENER.exec(text); m !== null; m = LONE_OPENER.exec(text)) {
    const end = m.index + m[0].length;
    // Lone: on a line of its own, and no markup after it (a pasted sample the live repair left as text goes on with more).
    if (ownLine(text, m.index, end) && !markupAfter(text, end)) found.push({ span: [m.index, end], shape: "I10" });
  }
  const names = new Set(tools.map((t) => t.name));
  HERMES.lastIndex = 0;
  // Each character is read by one JSON scan at most: a candidate inside the JSON the last one
  // read (or after one that never closed) is skipped, so many unclosed openers cost linear work.
  let scanned = 0;
  for (let m = HERMES.exec(text); m !== null; m = HERMES.exec(text)) {
    if (m.index < scanned || !startsLine(text, m.index)) continue;
    const open = m.index + m[0].length - 1;
    const end = objectEnd(text, open);
    scanned = end < 0 ? text.length : end;
    if (end < 0 || !ownLine(text, m.index, end) || closerAfter(text, end)) continue;
    let call: unknown;
    try {
      call = JSON.parse(text.slice(open, end));
    } catch {
      continue;
    }
    if (call === null || typeof call !== "object" || !names.has((call as { name?: unknown }).name as string)) continue;
    found.push({ span: [m.index, end], shape: "T01" });
  }
  if (found.length === 0) return found;
  found.sort((a, b) => a.span[0] - b.span[0]);
  // Documentation as the engine reads text (a quoted call's value and tags among it: DocContext.advanceReleased).
  const doc = new DocContext();
  const byName = new Map(tools.map((t) => [t.name, t]));
  let pos = 0;
  // `taken` is sorted by start: one sweep, keeping the furthest end of the spans that start before.
  let next = 0;
  let reach = 0;
  return found.filter(({ span }) => {
    while (next < taken.length && taken[next]![0] <= span[0]) reach = Math.max(reach, taken[next++]![1]);
    if (reach > span[0] || (next < taken.length && taken[next]![0] < span[1])) return false;
    if (span[0] < pos) return false;
    doc.advanceReleased(text.slice(pos, span[0]), byName);
    pos = span[0];
    return !doc.inDoc(text.charCodeAt(span[0]));
  });
}
