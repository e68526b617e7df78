import { SLASH, SP, TAB } from "../grammar/chars.ts";
import { isBarCode } from "../grammar/markers.ts";
import { MAX_TAG, NEED_MORE, readTag, type Tag } from "../grammar/tags.ts";

// The tags a call quoted in documentation is followed by (DocContext.noteQuotedTag, review 45
// finding 5), read at a `<` the documentation context holds: by text mode as it scans, and by
// the documentation context itself over candidate text released as text.

/**
 * The DSML tag, or Claude-style invoke, parameter or block tag, at `s[j]` (a `<` in documentation):
 * the only ones a quoted call's values are counted by (DocContext.noteQuotedTag); NEED_MORE while
 * the text ends before that is known. Before any call is quoted (`quoting` false) only an opener
 * can matter: a `<` followed by a bar (spaces may come between) or an `i`; after one, a closer or
 * a `p`, `t` or `f` too. Any other `<` of ordinary code costs a comparison or two.
 */
export function quotedTagAt(s: string, j: number, final: boolean, quoting: boolean): Tag | null | typeof NEED_MORE {
  let k = j + 1;
  if (quoting && k < s.length && s.charCodeAt(k) === SLASH) k++;
  const name = k;
  // `< | DSML | …`: spaces before a sentinel (bounded by the tag reader's own limit).
  while (k < s.length && k - j < MAX_TAG && (s.charCodeAt(k) === SP || s.charCodeAt(k) === TAB)) k++;
  if (k >= s.length) return final ? null : NEED_MORE;
  const c = s.charCodeAt(k);
  const lower = c | 0x20;
  if (!isBarCode(c) && (k > name || (lower !== 0x69 && !(quoting && (lower === 0x70 || lower === 0x74 || lower === 0x66))))) return null;
  const r = readTag(s, j, final);
  if (r === NEED_MORE || r === null) return r;
  return (r.family === "dsml" || (r.family === "naked" && r.role !== "other")) && r.end > j ? r : null;
}
