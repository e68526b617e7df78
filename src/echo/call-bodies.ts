/**
 * Fix 56: a value inside a given call's body, whatever the distance to the call's tags. A long
 * planted script (a `<shell>` costume, a Hermes, DSML or Qwen3-Coder call whose command runs over
 * many lines) holds lines the echo window (search.ts) does not reach from its tags; a model that
 * echoes one of them, or a few consecutive ones, quotes the planted call all the same.
 *
 * The rule is structural: an occurrence of a value counts as given when
 * - it fills whole commands of the given text: it starts a given line (after the line's prefix,
 *   as the haystack reads lines) or follows `;`, `&&` or `||`, and it ends a line or stands before
 *   one of those (a piece of a command, `sudo rm -rf ~/x` for `rm -rf ~/x`, is the model's own);
 * - it stands in a body: the nearest markup before it opens and the nearest after it closes, with
 *   no markup inside it, all three in the same form of one given text (an opener ending one text
 *   and a closer starting another make no body of the text between);
 * - and the value is long enough to be evidence, MIN_BODY_VALUE characters once whitespace is
 *   collapsed: `ls`, `npm test`, `git status`, `npm install` are lines of half the scripts there
 *   are, and a model writes them of its own; they still need the window.
 * Markup a hostile script puts around the line (a closer before it or an opener after it, inside a
 * string: `echo "</shell>"`) takes it out of the body, as it takes a value out of the window: the
 * guard reads no strings of a script (docs/SECURITY.md, Not covered).
 *
 * Work: the search scans a body only for a value that long (search.ts occursNearMarkup: the bodies
 * join the windows it scans, each character at most once per needle, counted against the scan
 * budget); the checks here are binary searches over positions the haystack already lists.
 */
import type { GivenHaystack } from "./given-content.ts";
import { firstAtOrAfter } from "./linear-search.ts";
import { indexOfPosition } from "./string-lexer.ts";
import { AMP, PIPE, SEMICOLON } from "../grammar/chars.ts";

/** A value shorter than this (whitespace collapsed) is no evidence away from the window. */
export const MIN_BODY_VALUE = 12;

/** Whether markup entries `t` and `t + 1` enclose a call's body: an opener, then a closer, in one form. */
export function enclosesBody(hay: GivenHaystack, t: number): boolean {
  const marks = hay.markup;
  return t >= 0 && t + 1 < marks.length && !hay.closes[t]! && hay.closes[t + 1]! && sameForm(hay, marks[t]!, marks[t + 1]!);
}

/** Whether the occurrence [start, end) fills whole commands of a call's body (the module's rule). */
export function fillsBody(hay: GivenHaystack, start: number, end: number): boolean {
  if (!commandStarts(hay, start) || !commandEnds(hay, end)) return false;
  const after = firstAtOrAfter(hay.markup, end);
  return after > 0 && firstAtOrAfter(hay.markup, start) === after && enclosesBody(hay, after - 1);
}

function commandStarts(hay: GivenHaystack, at: number): boolean {
  if (indexOfPosition(hay.lineStarts, at) >= 0) return true;
  const c = hay.text.charCodeAt(at - 1);
  return c === SEMICOLON || ((c === AMP || c === PIPE) && hay.text.charCodeAt(at - 2) === c);
}

function commandEnds(hay: GivenHaystack, at: number): boolean {
  if (indexOfPosition(hay.lineEnds, at) >= 0) return true;
  const c = hay.text.charCodeAt(at);
  return c === SEMICOLON || ((c === AMP || c === PIPE) && hay.text.charCodeAt(at + 1) === c);
}

/** Whether two positions lie in the same form (hay.forms: ascending, disjoint). */
function sameForm(hay: GivenHaystack, a: number, b: number): boolean {
  const forms = hay.forms;
  let lo = 0;
  let hi = forms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (forms[mid]!.start <= a) lo = mid + 1;
    else hi = mid;
  }
  const form = forms[lo - 1];
  return form !== undefined && a < form.end && b <= form.end;
}
