import { CR, DOUBLE_VERTICAL_LINE, FULLWIDTH_BAR, GT, LF, LT, SENTENCEPIECE_SPACE_CODE, SP, TAB } from "../grammar/chars.ts";
import { isBarCode, isOpenerBarCode } from "../grammar/markers.ts";
import { NEED_MORE, readTag } from "../grammar/tags.ts";
import { lostLtParameterOpenerAt, mayStartUnreadOpener, unreadParameterOpenerIn, unreadQwenOpenerAt } from "../parse/unread-opener.ts";

/**
 * The one check of "is this a parameter opener spelling the tag grammar reads as no
 * tag" for text mode, asked alike on a plain line (a block still open, before an orphan invoke)
 * and in documentation inside a block still open (text-mode.ts strayInDocAt): so a spelling that
 * refuses the block's calls on a plain line refuses them in a fence, a block quote or inline code.
 */

/** `c` may start such an opener: a `<`, or a sentinel bar whose `<` was lost (never an ASCII `|`). */
export function mayOpenStrayParameter(c: number): boolean {
  return c === LT || c === FULLWIDTH_BAR || c === DOUBLE_VERTICAL_LINE;
}

/**
 * A stray parameter opener at `j` that is no tag: the one-bar spelling (golden P47.16), every
 * spelling the DSML reader takes (`<{D}parameter=workdir>`, `<{SP}parameter name=...>`,
 * `<{BAR}{BAR}parameter name=...>`, unread-opener.ts), or one whose `<` was lost
 * (`{BAR}parameter name="workdir">`, `before` the character before it). NEED_MORE while its line
 * (up to its `>`, at most STRAY_OPENER_REACH characters) is not all here.
 */
export function strayParameterOpenerAt(s: string, j: number, final: boolean, before: number): boolean | typeof NEED_MORE {
  const c = s.charCodeAt(j);
  if (c !== LT) {
    if (!mayOpenStrayParameter(c)) return false;
    const e = lineEnd(s, j, final);
    return e === NEED_MORE ? NEED_MORE : lostLtParameterOpenerAt(s, j, e, before);
  }
  const one = oneBarParameterAt(s, j, final);
  return one === false ? unreadStrayOpenerAt(s, j, final) : one;
}

/**
 * Text held after a Qwen3-Coder function inside its wrapper (wrapper-hold.ts) that starts with a
 * stray parameter opener the tag grammar reads as no tag (`<param:workdir>`): text mode's
 * stray-parameter rule refuses the call (I02, golden O50.1), as it did before the hold. `text`:
 * the held text from its start up to the wrapper's closer, at most STRAY_OPENER_HEAD characters
 * (the opener's whole reach, so it is read as final); `before`: the character before it.
 */
export function heldStartsWithStrayOpener(text: string, before: number, lineStart: boolean): boolean {
  if (text.length === 0) return false;
  return strayParameterOpenerAt(text, 0, true, before) === true || (text.charCodeAt(0) === LT && qwenStrayOpenerAt(text, 0, true, lineStart) === true);
}

/** How much of the held text heldStartsWithStrayOpener reads at most: twice STRAY_OPENER_REACH (an opener whose name= stands on its next line). */
export const STRAY_OPENER_HEAD = 400;

const PARAM_WORD = "param";

/**
 * A Qwen3-Coder parameter opener the tag grammar reads as no tag at `j`, every spelling the
 * Qwen3-Coder value reader takes (unread-opener.ts unreadQwenOpenerAt: `<param=workdir>`,
 * `<param:workdir>`, `<parameter:workdir>`): in a block still open (a `<tool_call>` whose function
 * completed, its closer still to come) it is a parameter outside the call, as the canonical
 * `<parameter=workdir>` is (golden P47.15). `<`, up to two bars, `param` (so `a < b` is let go at
 * its second character), then its line up to its `>`; `lineStart`: only spaces stand before `j` on
 * its line. True, false, or NEED_MORE.
 */
export function qwenStrayOpenerAt(s: string, j: number, final: boolean, lineStart: boolean): boolean | typeof NEED_MORE {
  let k = j + 1;
  while (k < s.length && k - j <= 2 && isBarCode(s.charCodeAt(k))) k++;
  for (let w = 0; w < PARAM_WORD.length; w++, k++) {
    if (k >= s.length) return final ? false : NEED_MORE;
    if ((s.charCodeAt(k) | 0x20) !== PARAM_WORD.charCodeAt(w)) return false;
  }
  const e = lineEnd(s, j, final);
  return e === NEED_MORE ? NEED_MORE : unreadQwenOpenerAt(s, j, e, lineStart);
}

const PARAMETER_WORD = "parameter";

/**
 * A parameter opener with one sentinel bar (or its lookalike, `<\u2502parameter`) and no DSML
 * word (`<{BAR}parameter name=...`), which the tag grammar reads as no tag: true when it stands at
 * `j`, NEED_MORE while the text so far could still be one. In a block still open it is a stray
 * parameter (golden P47.16).
 */
function oneBarParameterAt(s: string, j: number, final: boolean): boolean | typeof NEED_MORE {
  let k = j + 1;
  if (k >= s.length) return final ? false : NEED_MORE;
  if (!isOpenerBarCode(s.charCodeAt(k))) return false;
  k++;
  for (let w = 0; w < PARAMETER_WORD.length; w++, k++) {
    if (k >= s.length) return final ? false : NEED_MORE;
    if ((s.charCodeAt(k) | 0x20) !== PARAMETER_WORD.charCodeAt(w)) return false;
  }
  if (k >= s.length) return final ? false : NEED_MORE;
  const c = s.charCodeAt(k);
  return c === SP || c === TAB || c === GT || c === LF || c === CR;
}

/** How far past its start a degraded opener is looked for (its line, up to its `>`). */
const STRAY_OPENER_REACH = 200;

/**
 * Where the opener's reach from `j` ends (past its `>`, at the end of its line or, with
 * `nextLine`, of the line after it, or STRAY_OPENER_REACH), or NEED_MORE. The DSML reader takes an
 * opener whose `name=` stands on the next line (unread-opener.ts), so the stray check reads as far.
 */
function lineEnd(s: string, j: number, final: boolean, nextLine = false): number | typeof NEED_MORE {
  let e = j + 1;
  let breaks = nextLine ? 1 : 0;
  while (e < s.length && e - j < STRAY_OPENER_REACH) {
    const d = s.charCodeAt(e);
    if (d === GT) break;
    if (d === LF || d === CR) {
      if (breaks === 0) break;
      breaks--;
      if (d === CR && e + 1 < s.length && s.charCodeAt(e + 1) === LF) e++;
    }
    e++;
  }
  if (e >= s.length && !final && e - j < STRAY_OPENER_REACH) return NEED_MORE;
  return Math.min(s.length, e + 1);
}

/**
 * A DSML parameter opener the tag grammar reads as no tag at `j` (`<` then a bar, a lookalike bar
 * or U+2581, or `<DSML{BAR}` with the first bar lost: unread-opener.ts's rule, the runaway rule's
 * own, a parameter name following on its line or the next): true, false, or NEED_MORE.
 */
function unreadStrayOpenerAt(s: string, j: number, final: boolean): boolean | typeof NEED_MORE {
  const may = mayStartUnreadOpener(s, j, final);
  if (may !== true) return may;
  const e = lineEnd(s, j, final, true);
  return e === NEED_MORE ? NEED_MORE : unreadParameterOpenerIn(s, j, e, "dsml") === j;
}

/**
 * Whether a block closer's `>` at `end` ends its line: only spaces or tabs up to the line's end
 * (or the text's end, `final`), or the next markup (`</{D}tool_calls><{D}tool_calls>`): a tag the
 * tag grammar reads, or a marker opener it does not (`<` then a bar, a lookalike bar or U+2581). A
 * closer with words after it on its line (`</{D}tool_calls> is the closer.`, `<3 is the closer.`,
 * `<b>is</b> the closer.`) is prose naming one, and does not end the block the stray-parameter
 * rule watches. Past STRAY_OPENER_REACH spaces the line is unknown, and an unknown line keeps the
 * watch (false): ending it would let a stray after it pass. NEED_MORE while the line is not all
 * here; the look-ahead is bounded by the reach and the tag reader's MAX_TAG.
 */
export function closerEndsItsLine(s: string, end: number, final: boolean): boolean | typeof NEED_MORE {
  for (let k = end; k < s.length; k++) {
    if (k - end >= STRAY_OPENER_REACH) return false;
    const c = s.charCodeAt(k);
    if (c === LF || c === CR) return true;
    if (c === LT) return nextMarkupAt(s, k, final);
    if (c !== SP && c !== TAB) return false;
  }
  return final ? true : NEED_MORE;
}

/** Markup at `k` (a `<`) after a block closer on its line: a tag the grammar reads, or a marker opener (closerEndsItsLine). */
function nextMarkupAt(s: string, k: number, final: boolean): boolean | typeof NEED_MORE {
  if (k + 1 >= s.length) return final ? false : NEED_MORE;
  const c = s.charCodeAt(k + 1);
  if (isOpenerBarCode(c) || c === SENTENCEPIECE_SPACE_CODE) return true;
  const r = readTag(s, k, final);
  return r === NEED_MORE ? NEED_MORE : r !== null;
}
