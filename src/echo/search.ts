/**
 * The echo guard's decision, from the side of the reply: a call the reply would execute is a
 * quote when the given content holds that call, i.e. every one of its string argument values
 * (normalized like the given content, src/echo/given-content.ts) occurs there as a whole token
 * next to tool-call markup of any dialect. No reader with state walks the given content, so
 * nothing placed before a quote (an unclosed string or attribute, a line prefix, a word glued to
 * a costume) can hide it; and a text that names the same command without markup never stops it.
 *
 * "Next to" is a window around a markup position: BASE_WINDOW for attributes and a tool name,
 * plus, per argument, its key, twice its value and PER_FIELD, the room a quote of this very call
 * can put between one value and the markup (a JSON call's later fields sit after its earlier
 * ones). Numbers and booleans are not required (`True` and `true`, `"15"` and `15` are written
 * differently for the same call). An occurrence stands inside markup when the nearest markup
 * before it opens or the nearest after it closes; or when it fills a string literal that opens
 * after an opener within the window, markup inside the call's other strings not counting
 * (string-lexer.ts: `"id": "[/TOOL_CALL]"` before the value is no closer; golden E42.1). That lexer
 * restarts at every opener and only adds a way to count as given, so nothing before a quote hides
 * it. A value is also searched as a JSON string spells it (`\"`, `\n`), in the form as written,
 * where such strings read exactly. A value that is evidence (12 characters or more, or a short
 * flag-and-bare-path command: call-bodies.ts isBodyEvidence) also counts where it fills whole
 * commands of a given call's body, however far from the call's tags (fix 56: one line from the
 * middle of a long planted script), looked up in an index of the bodies built once (BodyIndex).
 *
 * Values without a letter or digit: short or repetitive ones (".", "*", "**" + "/*", "{}", "---")
 * stand next to markup in almost any given content, so they are no evidence. A call with no value
 * that has a letter or digit is given when its tool name stands next to markup (a code costume
 * such as `<shell>` names the tool it maps to, bash), or when it has symbol values long and varied
 * enough to be distinctive (a fork bomb `:(){ :|:& };:`: MIN_SYMBOLS characters, MIN_DISTINCT of
 * them different) and each of their lines occurs next to markup. Those are searched in a second
 * haystack that keeps line prefixes: the first removes every line's leading non-letters, which is
 * all of such a line. It is built the first time such a value is searched, and scanned under the
 * same budget.
 *
 * Work: the haystack is built once per request, the first time a call is about to be recovered;
 * content given inside the reply (addGiven: a server tool's result) is appended to it at the next
 * call asked about after it came, linear in what it adds.
 * Each needle is searched with Knuth-Morris-Pratt only inside the windows around markup, so a
 * text with little markup costs little per call; the characters scanned for one request are
 * bounded (SCAN_FACTOR times the haystack plus SCAN_FLOOR), and past that bound every further
 * call is treated as given: a hostile request can only stop calls, never make one run.
 */
import { COSTUME_DESCRIPTIONS, heredocCode } from "../parse/costume.ts";
import { failureTable, firstAtOrAfter } from "./linear-search.ts";
import { acrossSeam } from "./seam-search.ts";
import { BodyIndex, isBodyEvidence } from "./call-bodies.ts";
import { appendToHaystack, buildGivenHaystack, isSpaceCode, needleForms, readable, symbolLines, type GivenHaystack } from "./given-content.ts";
import { isAlnumAt, isLetterAt } from "./letters.ts";
import { indexOfPosition } from "./string-lexer.ts";
import { BACKSLASH, CR, DQ, LF, SQ } from "../grammar/chars.ts";
import type { EchoQuery } from "../engine/types.ts";

const BASE_WINDOW = 64;
const PER_FIELD = 16;
/** The longest markup token markupOf() (given-content.ts) reports: a value after it is measured from its start. */
const MAX_TOKEN = 48;
/** The reply's own markup is a second net: markup shorter than this is too generic to call an echo. */
const MIN_MARKUP = 8;
/** A value without a letter or digit is evidence from this many characters (whitespace aside), this many of them different. */
const MIN_SYMBOLS = 6;
const MIN_DISTINCT = 4;
const SCAN_FACTOR = 16;
const SCAN_FLOOR = 4_000_000;
/** Arguments nest; deeper than this, or past this many leaves, they are not walked (fewer needles: only more echoes). */
const MAX_DEPTH = 64;
const MAX_LEAVES = 4096;
const MEMO_LIMIT = 256;

/**
 * How a needle's first character must be delimited in the haystack: "none" for symbols (no
 * delimiting), "markup" for the reply's own markup (not delimited, and markup within the
 * occurrence is enough: nearMarkup's `inside`).
 */
type Lead = "alnum" | "letter" | "none" | "markup";

interface EchoSearch {
  (call: EchoQuery): boolean;
  /** Characters scanned so far (tests measure work with it). */
  scanned(): number;
  /** Content given inside the reply (EchoGuard.addGiven): searched for every call asked about from now on. */
  addGiven(texts: () => readonly string[]): void;
}

export function createEchoSearch(given: () => readonly string[]): EchoSearch {
  let texts: string[] = [];
  /**
   * Content given inside the reply, not yet read: read when the next call is asked about, and then
   * appended to the haystacks built (each added function once).
   */
  let added: (() => readonly string[])[] = [];
  const seen = new Set<() => readonly string[]>();
  let toolNames: ReadonlySet<string> = new Set();
  let hay: GivenHaystack | null = null;
  /** The haystack that keeps line prefixes, for symbol values; built on first need. */
  let kept: GivenHaystack | null = null;
  let budget = 0;
  let scanned = 0;
  const memo = new Map<string, boolean>();

  /**
   * The whole commands of every given call's body, per haystack (call-bodies.ts): indexed on first
   * need, then as content is appended. Like building the haystack, indexing is one pass over it per
   * request, linear and done once, so it is not charged to the per-call scan budget; the lookups are.
   */
  const bodies = new Map<GivenHaystack, BodyIndex>();
  const bodyHolds = (where: GivenHaystack, needle: string, head: string, cost: { scanned: number }): boolean => {
    let index = bodies.get(where);
    if (index === undefined) bodies.set(where, (index = new BodyIndex(where)));
    index.update();
    // The lookup stops where the budget runs out and then counts as found, like every search past it.
    return index.holds(needle, head, cost, budget - cost.scanned);
  };
  /**
   * `head`: the needle's first line, when the needle may also fill whole commands of a given call's
   * body, whatever the distance (call-bodies.ts: a lookup in the bodies' index, not a scan).
   */
  const found = (where: GivenHaystack, needle: string, lead: Lead, window: number, head: string | null = null): boolean => {
    // Past the bound every search counts as found: a hostile request can only stop calls.
    if (budget < 0) return true;
    const key = `${where === kept ? "k" : "h"}\u0000${window}\u0000${lead}\u0000${head ?? ""}\u0000${needle}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const cost = { scanned: 0 };
    const result = occursNearMarkup(where, needle, lead, window, cost) || (head !== null && bodyHolds(where, needle, head, cost));
    scanned += cost.scanned;
    budget -= cost.scanned;
    if (memo.size < MEMO_LIMIT) memo.set(key, result);
    return result;
  };
  /** A value cut between two consecutive given texts (search across their seam: acrossSeam). */
  const seamFound = (needle: string, window: number): boolean => {
    if (budget < 0) return true;
    const key = `s\u0000${window}\u0000${needle}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const cost = { scanned: 0 };
    const result = acrossSeam(hay!, needle, window + MAX_TOKEN, cost);
    scanned += cost.scanned;
    budget -= cost.scanned;
    if (memo.size < MEMO_LIMIT) memo.set(key, result);
    return result;
  };
  const valueGiven = (value: string, window: number): boolean => {
    const forms = needleForms(value);
    // Fix 56: a value that is evidence (call-bodies.ts) is also looked for in the bodies of given calls, far from their tags.
    const body = isBodyEvidence(forms.first);
    if (found(hay!, forms.first, "alnum", window, body ? forms.firstHead : null) || (forms.stripped !== null && found(hay!, forms.stripped, "letter", window, body ? forms.strippedHead : null))) return true;
    if (seamFound(forms.first, window)) return true;
    // As a JSON string spells it (`\"`, `\n`): in the form as written, where a quoted call's strings read as its reader reads them.
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value && found(hay!, needleForms(escaped).first, "alnum", window)) return true;
    // In the shell reading (shell-words.ts): the model dropped or swapped the quotes of a plain word, or a line continuation.
    const shell = needleForms(value, true);
    return shell.first !== forms.first && (found(hay!, shell.first, "alnum", window, body ? shell.firstHead : null) || (shell.stripped !== null && found(hay!, shell.stripped, "letter", window, body ? shell.strippedHead : null)));
  };
  /** A code costume in given content names its tool; otherwise the name itself must stand next to markup. */
  const toolNamed = (tool: string): boolean => hay!.costumeTools.has(tool) || found(hay!, tool, "alnum", BASE_WINDOW + tool.length);
  const symbolsGiven = (symbols: readonly string[], window: number): boolean => {
    if (symbols.length === 0) return false;
    if (kept === null) {
      kept = buildGivenHaystack(texts, toolNames, true);
      budget += SCAN_FACTOR * kept.text.length;
    }
    if (kept.markup.length === 0) return false;
    const where = kept;
    return symbols.every((value) => symbolLines(value).every((line) => found(where, line, "none", window, isBodyEvidence(line) ? line : null)));
  };

  /**
   * What was given inside the reply since the last call asked about, appended to the haystacks
   * built, each growing the budget as the request's content does. Copying a haystack to append
   * costs its length, counted as scanned: one copy per call asked about at most, so the work stays
   * bounded by the budget. A verdict that was "not given" may change now; a "given" one stays.
   */
  const readAdded = (): void => {
    const more = added.flatMap((read) => read());
    added = [];
    if (more.length === 0) return;
    for (const text of more) texts.push(text);
    for (const where of [hay!, kept]) {
      if (where === null) continue;
      const before = where.text.length;
      appendToHaystack(where, more, toolNames, where === kept);
      if (where.text.length === before) continue;
      budget += SCAN_FACTOR * (where.text.length - before) - where.text.length;
      scanned += where.text.length;
    }
    for (const [key, verdict] of memo) if (!verdict) memo.delete(key);
  };

  const search = ((call: EchoQuery): boolean => {
    if (hay === null) {
      texts = given().concat(added.flatMap((read) => read()));
      added = [];
      toolNames = new Set(call.tools.keys());
      hay = buildGivenHaystack(texts, toolNames);
      budget = SCAN_FACTOR * hay.text.length + SCAN_FLOOR;
    } else if (added.length > 0) readAdded();
    if (hay.markup.length === 0) return false;
    if (budget < 0) return true;
    const evidence = evidenceOf(call.tool, call.input);
    const valuesGiven =
      evidence.values.length === 0
        ? toolNamed(call.tool) || symbolsGiven(evidence.symbols, evidence.window)
        : evidence.values.every((value) => valueGiven(value, evidence.window));
    if (valuesGiven) return true;
    const markup = needleForms(call.markup);
    if (markup.first.length >= MIN_MARKUP && (found(hay, markup.first, "markup", BASE_WINDOW) || (markup.stripped !== null && found(hay, markup.stripped, "markup", BASE_WINDOW)))) return true;
    return budget < 0;
  }) as EchoSearch;
  search.scanned = () => scanned;
  search.addGiven = (read) => {
    if (seen.has(read)) return;
    seen.add(read);
    added.push(read);
  };
  return search;
}

interface Evidence {
  /** String values with a letter or digit: each must be given. */
  values: string[];
  /** Distinctive string values without a letter or digit: the evidence of a call that has no `values`. */
  symbols: string[];
  window: number;
}

/** The values a quote of this call must hold, and how far from its markup a quote can put them. */
function evidenceOf(tool: string, input: Record<string, unknown>): Evidence {
  const values: string[] = [];
  const symbols: string[] = [];
  /** Describing values (DESCRIBING_KEYS): evidence only for a call without a deciding one. */
  const notes: string[] = [];
  let span = tool.length;
  const stack: { key: string; value: unknown; depth: number }[] = [{ key: "", value: input, depth: 0 }];
  for (let leaves = 0; stack.length > 0 && leaves < MAX_LEAVES; ) {
    const { key, value, depth } = stack.pop()!;
    if (typeof value === "object" && value !== null) {
      if (depth >= MAX_DEPTH) continue;
      const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
      for (const [k, v] of entries) stack.push({ key: k, value: v, depth: depth + 1 });
      continue;
    }
    leaves++;
    if (typeof value !== "string") {
      span += key.length + String(value).length + PER_FIELD;
      continue;
    }
    const text = ourOwnPart(tool, key, depth, value);
    if (text === null) continue;
    span += key.length + 2 * text.length + PER_FIELD;
    if (depth === 1 && DESCRIBING_KEYS.has(key) && isProse(text)) notes.push(text);
    else if (hasAlnum(text)) values.push(text);
    else if (distinctive(text)) symbols.push(text);
  }
  // A describing value counts only when the call has no deciding evidence at all (as before).
  if (values.length === 0 && symbols.length === 0) values.push(...notes.filter(hasAlnum));
  return { values, symbols, window: BASE_WINDOW + span };
}

/**
 * Parameters that only describe a call and decide nothing it does: OpenCode bash's `description`
 * (the model fills it for every bash call, so a quote of a `<shell>` costume or of a call without
 * one never holds it) and the same free-text role under the other names tools give it. Rule (echo:
 * a describing value is not the model's own): when the call also has a deciding value, such a
 * value (top level, prose: one line with a letter) is not required to be given, so a planted
 * command echoed with the model's added description is still an echo. This only ever refuses more;
 * every deciding value must still be given, so a call whose command the model wrote itself runs.
 */
const DESCRIBING_KEYS: ReadonlySet<string> = new Set(["description", "explanation", "reason", "summary", "title"]);
const MAX_PROSE = 400;

/**
 * One line of at most MAX_PROSE characters with a letter: how a call's description reads. Trimmed
 * first: a line end the model put after its sentence (`"Run the setup script\n"` in JSON markup,
 * which keeps it where DSML trims it) does not make a second line (review 53).
 */
function isProse(value: string): boolean {
  const text = value.trim();
  if (text.length > MAX_PROSE) return false;
  let letter = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR || c === 0x2028 || c === 0x2029) return false;
    if (!letter && isLetterAt(text, i)) letter = true;
  }
  return letter;
}

const OUR_DESCRIPTIONS = new Set(Object.values(COSTUME_DESCRIPTIONS));

/**
 * What of a value the model wrote: a code costume's bash call carries our heredoc around Python
 * code and our description, neither of which a quote holds. null: nothing to look for.
 */
function ourOwnPart(tool: string, key: string, depth: number, value: string): string | null {
  if (tool !== "bash" || depth !== 1) return value;
  if (key === "description" && OUR_DESCRIPTIONS.has(value)) return null;
  if (key === "command") return heredocCode(value) ?? value;
  return value;
}

function hasAlnum(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isAlnumAt(text, i)) return true;
  return false;
}

/**
 * Whether a value without a letter or digit is long and varied enough to be evidence: at least
 * MIN_SYMBOLS characters besides whitespace, MIN_DISTINCT of them different (after the encodings
 * the haystack decodes). `:(){ :|:& };:` is; `.`, `**` + `/*`, `../..`, `{}`, `() =>`, `|---|---|` are not.
 */
function distinctive(value: string): boolean {
  const text = readable(value);
  const seen = new Set<number>();
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpaceCode(c)) continue;
    count++;
    if (seen.size < MIN_DISTINCT) seen.add(c);
    if (count >= MIN_SYMBOLS && seen.size >= MIN_DISTINCT) return true;
  }
  return false;
}

/**
 * Whether `needle` occurs in the haystack, delimited as `lead` says at its start and by a
 * non-alphanumeric character after an alphanumeric end, within `window` of markup. Only the
 * windows around markup are scanned (KMP, restarted per window); `cost.scanned` counts them.
 */
function occursNearMarkup(hay: GivenHaystack, needle: string, lead: Lead, window: number, cost: { scanned: number }): boolean {
  const m = needle.length;
  if (m === 0) return false;
  const text = hay.text;
  const marks = hay.markup;
  const fail = failureTable(needle);
  const reach = window + MAX_TOKEN + m;
  const endsAlnum = isAlnumAt(needle, m - 1);
  const startsAlnum = lead === "alnum" && isAlnumAt(needle, 0);
  const fills = lead === "markup" ? null : stringFills(needle);
  const first = needle[0]!;
  // The next occurrence of the needle's first character: found by indexOf (native) while nothing is
  // matched, and looked for again only once passed, so all windows together cost one pass.
  let next = -1;
  for (let t = 0; t < marks.length; ) {
    // One window: the union of the reaches of consecutive markup positions that overlap.
    const from = Math.max(0, marks[t]! - reach);
    let to = Math.min(text.length, marks[t]! + reach);
    while (++t < marks.length && marks[t]! - reach <= to) to = Math.min(text.length, marks[t]! + reach);
    cost.scanned += to - from;
    let k = 0;
    for (let i = from; i < to; i++) {
      if (k === 0) {
        if (next < i) next = text.indexOf(first, i);
        if (next < 0) return false;
        if (next >= to) break;
        i = next;
      }
      const c = text.charCodeAt(i);
      while (k > 0 && c !== needle.charCodeAt(k)) k = fail[k - 1]!;
      if (c === needle.charCodeAt(k)) k++;
      if (k < m) continue;
      const start = i + 1 - m;
      k = fail[k - 1]!;
      if (startsAlnum && start > 0 && isAlnumAt(text, start - 1)) continue;
      if (lead === "letter" && start > 0 && isLetterAt(text, start - 1)) continue;
      if (endsAlnum && i + 1 < text.length && isAlnumAt(text, i + 1)) continue;
      if (nearMarkup(hay, start, i + 1, window, lead === "markup") || (fills !== null && fillsQuotedString(hay, start, i + 1, window, fills))) return true;
    }
  }
  return false;
}

/**
 * Whether the occurrence [start, end) stands where a quoted call puts a value: the nearest markup
 * before it opens (`<parameter …>`, `<shell>`, `<tool_call>{…`) within `window`, or the nearest
 * markup after it closes (`</tool_call>` after a JSON call's last fields) within `window`. Text
 * after a closing tag or before an opener is prose next to a quote, not inside one. For the
 * reply's own markup (`inside`), markup within the occurrence is enough.
 */
function nearMarkup(hay: GivenHaystack, start: number, end: number, window: number, inside: boolean): boolean {
  const marks = hay.markup;
  const before = firstAtOrAfter(marks, start) - 1;
  if (before >= 0 && !hay.closes[before]! && start - marks[before]! <= window + MAX_TOKEN) return true;
  const after = firstAtOrAfter(marks, end);
  if (inside) return after > before + 1;
  return after < marks.length && hay.closes[after]! && marks[after]! - end <= window;
}

/** Which quote characters can delimit a string that `needle` fills whole: those it holds none of unescaped, when it ends in no escaping backslash. */
interface StringFills {
  dq: boolean;
  sq: boolean;
}

function stringFills(needle: string): StringFills {
  let dq = true;
  let sq = true;
  let backslashes = 0;
  for (let i = 0; i < needle.length; i++) {
    const c = needle.charCodeAt(i);
    if (c === BACKSLASH) {
      backslashes++;
      continue;
    }
    if (backslashes % 2 === 0) {
      if (c === DQ) dq = false;
      else if (c === SQ) sq = false;
    }
    backslashes = 0;
  }
  return backslashes % 2 === 0 ? { dq, sq } : { dq: false, sq: false };
}

/**
 * Whether the occurrence [start, end) fills a string literal that opens, outside any string, after
 * an opener within `window` (string-lexer.ts): the quote before it opens such a string, the same
 * quote follows it, and the needle holds that quote only escaped. Markup between the opener and the
 * value lies inside the call's other strings and does not count (golden E42.1: a quoted
 * call's `"id": "[/TOOL_CALL]"` before the value and `"type": "[TOOL_CALL]"` after it).
 */
function fillsQuotedString(hay: GivenHaystack, start: number, end: number, window: number, fills: StringFills): boolean {
  if (start === 0 || end >= hay.text.length) return false;
  const quote = hay.text.charCodeAt(start - 1);
  if (!((quote === DQ && fills.dq) || (quote === SQ && fills.sq)) || hay.text.charCodeAt(end) !== quote) return false;
  const k = indexOfPosition(hay.quoted, start - 1);
  return k >= 0 && start - hay.quotedOpener[k]! <= window + MAX_TOKEN;
}
