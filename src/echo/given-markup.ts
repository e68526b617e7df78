/**
 * Where tool-call markup of any dialect stands in given content (markupOf: a local test at one
 * position, never a reader with state), and the rendered forms that depend on it: HTML tags that
 * are not call markup removed, CommonMark backslash escapes removed. Used by the haystack
 * (given-content.ts) and its readings (given-readings.ts).
 */
import { isBarCode } from "../grammar/markers.ts";
import { costumeTool, GENERIC_TAG_NAMES } from "../grammar/dialects.ts";
import { asLostLtCloser, readTagHead } from "../grammar/tags.ts";
import { standalonePrefixAt } from "../parse/standalone-json.ts";
import { isAliasName } from "../parse/aliases.ts";
import { isLetterAt } from "./letters.ts";
import { COLON, DASH, LBRACE, LBRACKET, LT, SENTENCEPIECE_SPACE_CODE, SLASH, SP, UNDERSCORE, isAsciiDigit, isAsciiLetter, isAsciiPunctuation, lineEndFrom } from "../grammar/chars.ts";

export const NO_MARKUP = 0;
export const OPENS = 1;
export const CLOSES = 2;
export type MarkupKind = typeof NO_MARKUP | typeof OPENS | typeof CLOSES;

/** Whether the text holds an ASCII percent-escape (`%3C`), which decodeEncodings decodes. */
export function hasPercentEscape(text: string): boolean {
  for (let i = text.indexOf("%"); i >= 0; i = text.indexOf("%", i + 1)) {
    const hi = text.charCodeAt(i + 1);
    const lo = text.charCodeAt(i + 2);
    if (hi >= 0x30 && hi <= 0x37 && (isAsciiDigit(lo) || ((lo | 0x20) >= 0x61 && (lo | 0x20) <= 0x66))) return true;
  }
  return false;
}

/** CommonMark's backslash escapes (`\` before ASCII punctuation) removed: `\_` reads `_`, `\\` reads `\`. */
export function withoutMarkdownEscapes(text: string): string {
  let slash = text.indexOf("\\");
  if (slash < 0) return text;
  let out = "";
  let from = 0;
  while (slash >= 0 && slash + 1 < text.length) {
    if (!isAsciiPunctuation(text.charCodeAt(slash + 1))) {
      slash = text.indexOf("\\", slash + 1);
      continue;
    }
    out += text.slice(from, slash);
    from = slash + 1;
    slash = text.indexOf("\\", slash + 2);
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The longest HTML tag removed (attributes included); a longer one stays as written. */
const MAX_HTML_TAG = 1024;
/** Tags that end a line when rendered: read as a line break, so the words on either side stay apart. */
const BLOCK_TAGS = new Set(["br", "p", "div", "li", "ul", "ol", "tr", "td", "th", "table", "pre", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "section", "article", "header", "footer", "dd", "dt", "dl"]);

/**
 * HTML tags and comments removed as a browser shows the text, except tags that are call markup
 * (markupOf: `<shell>`, `<tool_call>`, a declared tool's element), which stay. A tag is `<` and a
 * letter (or `/` and a letter) up to the next `>` within MAX_HTML_TAG; a comment `<!--` up to
 * `-->`. One pass: the next `>`, `-->` and line end are each looked for again only once passed.
 */
export function withoutHtmlTags(text: string, toolNames?: ReadonlySet<string>): string {
  let lt = text.indexOf("<");
  if (lt < 0) return text;
  let out = "";
  let from = 0;
  let gt = -1;
  let commentEnd = -1;
  let lineEnd = -1;
  while (lt >= 0) {
    let end = -1;
    let replacement = "";
    if (text.startsWith("<!--", lt)) {
      if (commentEnd !== -2 && commentEnd < lt + 4) commentEnd = text.indexOf("-->", lt + 4);
      if (commentEnd < 0) commentEnd = -2;
      if (commentEnd >= 0) end = commentEnd + 3;
    } else {
      const slash = text.charCodeAt(lt + 1) === SLASH ? 1 : 0;
      if (isAsciiLetter(text.charCodeAt(lt + 1 + slash))) {
        if (gt !== -2 && gt < lt) gt = text.indexOf(">", lt);
        if (gt < 0) gt = -2;
        if (gt >= 0 && gt - lt <= MAX_HTML_TAG) {
          if (lineEnd < lt) lineEnd = lineEndFrom(text, lt);
          if (markupOf(text, lt, lineEnd, toolNames).kind === NO_MARKUP) {
            end = gt + 1;
            let k = lt + 1 + slash;
            while (k < gt && (isAsciiLetter(text.charCodeAt(k)) || isAsciiDigit(text.charCodeAt(k)))) k++;
            if (BLOCK_TAGS.has(text.slice(lt + 1 + slash, k).toLowerCase())) replacement = "\n";
          }
        }
      }
    }
    if (end < 0) {
      lt = text.indexOf("<", lt + 1);
      continue;
    }
    out += text.slice(from, lt) + replacement;
    from = end;
    lt = text.indexOf("<", end);
  }
  return from === 0 ? text : out + text.slice(from);
}

const MAX_NAME = 40;

/**
 * The call markup that begins at `i`, if any, and the tool a code costume opening there names
 * (`<shell>`, `<py>`: bash; dialects.ts costumeTool), else null.
 *
 * Found with the engine's own grammar, so no spelling the engine opens a candidate at can be
 * missing here (golden E45.1-E45.4): a tag is markup when the tag reader reads its head there
 * (grammar/tags.ts readTagHead: DSML and its degraded sentinels, a lost `<`, spaces after `<`,
 * namespaced Claude-style names, the legacy, Kimi and LFM2 tokens, Mistral's and MiniMax's bracket
 * tokens), whatever its attributes, except the generic words the reader knows only inside a span
 * (dialects.ts GENERIC_TAG_NAMES); a JSON call object is markup where a standalone JSON call
 * (J01) would open (parse/standalone-json.ts standalonePrefixAt), on any line, spaces and line
 * breaks after the brace included (issue 29 items 8, 12). The guard adds what only it needs: an
 * element named after a declared tool or an alias (`<read_file>`, O09), attributes and closer
 * allowed, and a special token of words the grammar does not know (`<|im_start|>`,
 * `</{BAR}tool_call_end{BAR}>`). More markup only makes more quotes count as given.
 *
 * Closing tags and end tokens (`</…`, a legacy token whose words say `end`) CLOSE; the rest OPENS.
 * Looks at most one token ahead (a head never crosses its line).
 */
export function markupOf(s: string, i: number, end: number, toolNames?: ReadonlySet<string>): { kind: MarkupKind; tool: string | null } {
  const c = s.charCodeAt(i);
  if ((c === LBRACE || c === LBRACKET) && standalonePrefixAt(s, i, true) === "open") return { kind: OPENS, tool: null };
  if (c !== LT && c !== LBRACKET && !isBarCode(c)) return NOTHING;
  const head = readTagHead(s, i);
  if (head !== null) {
    const tag = asLostLtCloser(head, i > 0 ? s.charCodeAt(i - 1) : 0);
    if (!GENERIC_TAG_NAMES.has(tag.name)) {
      if (tag.closing || (tag.family === "legacy" && tag.name.includes("end"))) return { kind: CLOSES, tool: null };
      return { kind: OPENS, tool: tag.family === "costume" ? costumeTool(tag.name) : null };
    }
  }
  return c === LT ? { kind: guardOnlyMarkup(s, i, end, toolNames), tool: null } : NOTHING;
}

const NOTHING = { kind: NO_MARKUP, tool: null } as const;

/**
 * At a `<` the grammar reads no tag at: an element named after a declared tool or alias (`<read>`,
 * `</read_file>`), or a special token (`<`, a bar, a word) of any words. Looks at most MAX_NAME characters.
 */
function guardOnlyMarkup(s: string, i: number, end: number, toolNames: ReadonlySet<string> | undefined): MarkupKind {
  let j = i + 1;
  const slash = j < end && s.charCodeAt(j) === SLASH;
  if (slash) j++;
  if (j < end && isBarCode(s.charCodeAt(j))) {
    let k = j + 1;
    while (k < end && k - j < 4 && (s.charCodeAt(k) === SP || s.charCodeAt(k) === SENTENCEPIECE_SPACE_CODE)) k++;
    if (k >= end || !isLetterAt(s, k)) return NO_MARKUP;
    if (slash) return CLOSES;
    const token = s.slice(k, Math.min(end, k + MAX_NAME));
    const close = token.indexOf(">");
    return (close < 0 ? token : token.slice(0, close)).toLowerCase().includes("end") ? CLOSES : OPENS;
  }
  let k = j;
  while (k < end && k - j < MAX_NAME && isNameCode(s.charCodeAt(k))) k++;
  // Another agent's tool name is that agent's call markup when written as an element (`<read_file>`, O09).
  if (k === j) return NO_MARKUP;
  const name = s.slice(j, k);
  if (!(isAliasName(name) || toolNames?.has(name))) return NO_MARKUP;
  return slash ? CLOSES : OPENS;
}

function isNameCode(c: number): boolean {
  return (isAsciiLetter(c)) || isAsciiDigit(c) || c === UNDERSCORE || c === COLON || c === DASH;
}
