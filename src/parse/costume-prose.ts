// Review 54: the mention re-read (costume-hold.ts unclosedRereadAt) recovers a call a never-closed
// costume opener would otherwise hold. It exists only to recover a missed call, so it reads no
// code: a string reader (review 53a) missed template literals, command substitution, comments that
// put it out of step, and every such miss ran a call the code wrote as data. The rule is
// structural instead: the text from the opener to the call is prose, words and sentence
// punctuation, holding nothing that could open a construct that goes on over a blank line (a
// quote or apostrophe, a backtick, `$`, `#`, `//` or `/*`, a bracket, `=`, `;`, `\`, `|`, `&`,
// `%` as in Ruby's `%q!...!`, `<` outside a costume tag). Anything else refuses the re-read: a
// missed call (a nudge) costs less than a call run from inside code.

import type { Tag } from "../grammar/tags.ts";
import { BACKTICK, BANG, COLON, COMMA, CR, DASH, DOT, HASH, LF, PLUS, QUESTION, SLASH, SP, STAR, TAB, TILDE, UNDERSCORE, isAsciiDigit, isAsciiLetter } from "../grammar/chars.ts";

const AT = 0x40;
// A `/` beside one of these may open or close a comment (`//`, `/*`, `*/`).
const COMMENT_NEIGHBOUR = new Set([SLASH, STAR]);
/** Sentence punctuation and list markers: nothing that opens a string, a substitution, a comment or a bracket. */
const PROSE_PUNCTUATION = new Set([SP, TAB, LF, CR, BANG, COMMA, DASH, DOT, COLON, QUESTION, STAR, UNDERSCORE, PLUS, TILDE, AT]);

/**
 * `span[from, to)` is prose: letters, digits, any non-ASCII character (prose in any script,
 * typographic quotes), sentence punctuation, a `/` beside no `/` or `*` (`and/or`, not a comment's
 * opener or closer), and costume tags written bare (`<python> and <shell>`, skipped whole; `tags`
 * holds the span's tags in order). Markdown's own block structure between paragraphs counts as prose too: an
 * ATX heading's `#` run, and a fence line of three or more backticks, as long as every fence
 * opened closed again and the backticks pair up (in shell or JavaScript a fence's backticks then
 * open nothing either; the fence's content is checked as prose like the rest). No word may be glued
 * to the opener at `from` or to a costume tag. Linear: one pass, the tags walked once.
 */
export function isProse(span: string, from: number, to: number, tags: readonly Tag[]): boolean {
  let t = 0;
  let i = from;
  let lineStart = false;
  let fenceOpen = false;
  let backticks = 0;
  if (glued(span, from)) return false;
  while (i < to) {
    const c = span.charCodeAt(i);
    if (lineStart && c !== SP && c !== TAB) {
      lineStart = false;
      const hashes = runOf(span, i, to, HASH);
      if (hashes >= 1 && hashes <= 6 && isBlankOrEnd(span.charCodeAt(i + hashes))) {
        i += hashes;
        continue;
      }
      const fence = runOf(span, i, to, BACKTICK);
      if (fence >= 3) {
        fenceOpen = !fenceOpen;
        backticks += fence;
        i += fence;
        continue;
      }
    }
    if (c === LF || c === CR) lineStart = true;
    while (t < tags.length && tags[t]!.start < i) t++;
    const tag = tags[t];
    if (tag !== undefined && tag.start === i && tag.family === "costume" && tag.end <= to && bareTag(span, tag)) {
      if (glued(span, tag.end)) return false;
      i = tag.end;
      continue;
    }
    const prose = c >= 0x80 || isAsciiLetter(c) || isAsciiDigit(c) || PROSE_PUNCTUATION.has(c) || (c === SLASH && !COMMENT_NEIGHBOUR.has(span.charCodeAt(i + 1)) && !COMMENT_NEIGHBOUR.has(span.charCodeAt(i - 1)));
    if (!prose) return false;
    i++;
  }
  return !fenceOpen && backticks % 2 === 0;
}

/**
 * A costume tag written bare, `<python>` or `</shell>`: only its name between the brackets. An
 * attribute's value may hold a quote or a backtick that opens a string in the code around it
 * (`echo <python a="x\">`, diff review 54b), so a tag with attributes is no prose to skip.
 */
function bareTag(span: string, tag: Tag): boolean {
  for (let k = tag.start + 1; k < tag.end - 1; k++) {
    const c = span.charCodeAt(k);
    if (!(isAsciiLetter(c) || isAsciiDigit(c) || c === UNDERSCORE || c === DASH || (c === SLASH && k === tag.start + 1))) return false;
  }
  return true;
}

/**
 * A word glued to a costume opener (`<python>import os`) is code written on the opener's line: a
 * mention stands apart from the words after it (`the <python> tool`, `<shell>.`).
 */
const glued = (span: string, at: number) => isAsciiLetter(span.charCodeAt(at)) || isAsciiDigit(span.charCodeAt(at));

/** How many `code` characters stand from `at` on (before `to`). */
function runOf(span: string, at: number, to: number, code: number): number {
  let i = at;
  while (i < to && span.charCodeAt(i) === code) i++;
  return i - at;
}

const isBlankOrEnd = (c: number) => c === SP || c === TAB || c === LF || c === CR || Number.isNaN(c);
