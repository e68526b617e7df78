import { CR, GT, LF, SLASH, SP, TAB } from "../grammar/chars.ts";
import { isBarCode, isBarLookalike } from "../grammar/markers.ts";
import { MAX_TAG, NEED_MORE, readTag, type Tag } from "../grammar/tags.ts";
import type { ToolSpec } from "../parse/types.ts";
import { dialectTagAt } from "./quoted-dialects.ts";

// The tags a call quoted in documentation is followed by (DocContext.noteQuotedTag, golden
// N45.1-N45.7), read at a `<` the documentation context holds: by text mode as it scans, and by
// the documentation context itself over candidate text released as text.

/** The Claude-style names read before a call is quoted (only an opener matters then), and after. */
const OPENER_NAMES = ["invoke"];
const QUOTING_NAMES = ["invoke", "parameter", "tool_calls", "function_calls"];
/** The first letters of those names: a `<` followed by anything else is refused at once (mayFollowLt). */
const OPENER_FIRSTS = new Set(OPENER_NAMES.map((n) => n.charCodeAt(0)));
const QUOTING_FIRSTS = new Set(QUOTING_NAMES.map((n) => n.charCodeAt(0)));

/**
 * The DSML tag, or Claude-style invoke, parameter or block tag, at `s[j]` (a `<` in documentation):
 * the only ones a quoted call's values are counted by (DocContext.noteQuotedTag); NEED_MORE while
 * the text ends before that is known. Before any call is quoted (`quoting` false) only an opener
 * can matter: a `<` followed by a bar (spaces may come between) or by `invoke`; after one, a
 * closer and the other names too. The tag reader runs only past that check, so the `<` of
 * ordinary code costs a comparison or two and is held at a chunk's end only as far as the check
 * needs.
 */
export function quotedTagAt(s: string, j: number, final: boolean, quoting: boolean, tools?: ReadonlyMap<string, ToolSpec>): Tag | null | typeof NEED_MORE {
  // A tag neither the sentinel nor the Claude-style reading takes may be a Qwen3-Coder, GLM or O09 call's (quoted-dialects.ts).
  const tag = sentinelOrClaudeTagAt(s, j, final, quoting);
  return tag === null ? dialectTagAt(s, j, final, quoting, tools) : tag;
}

function sentinelOrClaudeTagAt(s: string, j: number, final: boolean, quoting: boolean): Tag | null | typeof NEED_MORE {
  let k = j + 1;
  // The `<` of ordinary code (`a<b`, `<T>`, `<div>`): the next character starts none of them.
  if (k < s.length && !mayFollowLt(s.charCodeAt(k), quoting)) return null;
  if (quoting && k < s.length && s.charCodeAt(k) === SLASH) k++;
  const name = k;
  // `< | DSML | …`: spaces before a sentinel (bounded by the tag reader's own limit).
  while (k < s.length && k - j < MAX_TAG && (s.charCodeAt(k) === SP || s.charCodeAt(k) === TAB)) k++;
  if (k >= s.length) return final ? null : NEED_MORE;
  const c = s.charCodeAt(k);
  if (!isBarCode(c)) {
    if (isBarLookalike(c)) return lookalikeTagAt(s, j, final);
    if (k > name) return null;
    const named = namePrefix(s, k, quoting ? QUOTING_NAMES : OPENER_NAMES);
    if (named !== true) return named === NEED_MORE && final ? null : named;
  }
  const r = readTag(s, j, final);
  if (r === NEED_MORE || r === null) return r;
  return (r.family === "dsml" || (r.family === "naked" && r.role !== "other")) && r.end > j ? r : null;
}

/** Whether one of `names` is spelled at `s[k]`: true, null, or NEED_MORE where the text ends inside one. */
function namePrefix(s: string, k: number, names: readonly string[]): true | null | typeof NEED_MORE {
  for (const n of names) {
    const available = Math.min(n.length, s.length - k);
    let i = 0;
    while (i < available && s.charCodeAt(k + i) === n.charCodeAt(i)) i++;
    if (i === n.length) return true;
    if (i === available) return NEED_MORE;
  }
  return null;
}

/**
 * Whether `c`, right after a `<`, may begin what quotedTagAt reads: a space or tab (before a
 * sentinel), a bar, the first letter of one of the names, or (quoting) a closer's `/`.
 */
function mayFollowLt(c: number, quoting: boolean): boolean {
  if (c === SP || c === TAB || isBarCode(c) || isBarLookalike(c)) return true;
  return quoting ? c === SLASH || QUOTING_FIRSTS.has(c) : OPENER_FIRSTS.has(c);
}

/**
 * The DSML tag at `s[j]` (a `<`) written with lookalike bars (grammar/markers.ts isBarLookalike;
 * one right after the `<` or `</`, spaces may come between), read as the grammar reads it with each lookalike up to the tag's `>`
 * or line end folded into a bar; null when no such tag is read (one without a lookalike there is
 * the grammar's own); NEED_MORE while the text ends before that is known. Reads at most MAX_TAG
 * characters, like the tag reader, and only past a lookalike: other text costs a comparison.
 */
export function lookalikeTagAt(s: string, j: number, final: boolean): Tag | null | typeof NEED_MORE {
  let k = j + 1;
  if (k < s.length && s.charCodeAt(k) === SLASH) k++;
  while (k < s.length && k - j < MAX_TAG && (s.charCodeAt(k) === SP || s.charCodeAt(k) === TAB)) k++;
  if (k >= s.length) return final ? null : NEED_MORE;
  if (!isBarLookalike(s.charCodeAt(k))) return null;
  const limit = Math.min(s.length, j + MAX_TAG);
  let folded = "";
  let from = j;
  let end = k;
  for (; end < limit; end++) {
    const c = s.charCodeAt(end);
    if (c === GT || c === LF || c === CR) break;
    if (!isBarLookalike(c)) continue;
    folded += s.slice(from, end) + "|";
    from = end + 1;
  }
  if (end === s.length && !final) return NEED_MORE;
  folded += s.slice(from, Math.min(s.length, end + 1));
  const r = readTag(folded, 0, true);
  if (r === NEED_MORE || r === null || r.family !== "dsml") return null;
  return { ...r, start: j, end: r.end + j };
}
