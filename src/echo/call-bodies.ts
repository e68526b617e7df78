/**
 * Fix 56: a value inside a given call's body, whatever the distance to the call's tags. A long
 * planted script (a `<shell>` costume, a Hermes, DSML or Qwen3-Coder call whose command runs over
 * many lines) holds lines the echo window (search.ts) does not reach from its tags; a model that
 * echoes one of them, or a few consecutive ones, quotes the planted call all the same.
 *
 * The rule is structural: an occurrence of a value counts as given when
 * - it fills whole commands of the given text: it begins where a command begins and ends where one
 *   ends (splitCommands). A command begins at a given line's start (after the line's prefix, as the
 *   haystack reads lines) and after a command separator: `;`, `&&`, `||`, a single `&` (a
 *   background job; not the `&` of a redirection, `2>&1`, `&>`), `|` (a pipeline), `(` and `)` (a
 *   subshell, `$(…)`), `}`, a backtick (`` `…` ``, review 57); and a command's leading `(`, `{ `,
 *   `! ` and the reserved words `then`, `do`, `else`, `elif`, `if`, `while`, `until` are skipped
 *   (`if x; then rm -rf ~/p; fi` holds the command `rm -rf ~/p`). It ends at a line end or before a
 *   separator. A line is also read as the string values of a call it holds (stringValues, review
 *   57): a JSON call's argument decoded begins after `"command": "` and ends before `",`, so its
 *   first and last lines are whole commands too. The separators, grouping characters and spaces
 *   around the value itself are read off first (commandCore: `rm -rf ~/p;`, `(rm -rf ~/p)` are
 *   `rm -rf ~/p`). A piece of a command (`sudo rm -rf ~/x` for `rm -rf ~/x`) or a quoted string
 *   (`echo "rm -rf ~/x"`) is the model's own;
 * - it stands in a body of one form of one given text (hay.forms), with no markup inside it: between
 *   an opener and the closer right after it; or after the form's last markup when that opens (the
 *   text ends before the closer: a file read in pages, a truncated tool result); or before the
 *   form's first markup when that closes (the next page). Not in the reading of consecutive texts
 *   joined (group -1): an opener ending one text makes no body of the next texts (review 53's
 *   joined reading is for markup cut at a seam);
 * - and the value is evidence (isBodyEvidence): MIN_BODY_VALUE characters once whitespace is
 *   collapsed and the marks around it read off, or MIN_SHORT_VALUE with a flag and a bare path or
 *   glob (`rm -rf ~`, `rm -rf /*`, `rm -rf .`). `ls`, `npm test`, `git status`, `npm install` are
 *   lines of half the scripts there are, and a model writes them of its own; they still need the
 *   window.
 * Markup a hostile script puts around the line (a closer before it or an opener after it, inside a
 * string: `echo "</shell>"`) takes it out of the body, as it takes a value out of the window: the
 * guard reads no strings of a script (docs/SECURITY.md, Not covered).
 *
 * Work (diff review 56a): the bodies of a haystack are indexed once, lazily, in one pass linear in
 * their length (BodyIndex.update; content appended later is indexed when it comes): every whole
 * command of every body, as the haystack spells it, with where it stands. A value is then a lookup
 * of the commands of its first line: one map lookup when the value is one command, else a check at
 * each place its rarest first-line command stands (each costs the value's length, counted against
 * the scan budget, and looked at before each place: past it the lookup stops and counts as found,
 * review 57). No body is rescanned per value.
 */
import type { GivenHaystack } from "./given-content.ts";
import { firstAtOrAfter } from "./linear-search.ts";
import { indexOfPosition } from "./string-lexer.ts";
import { AMP, BACKTICK, BANG, COLON, COMMA, DOLLAR, DQ, EQ, GT, LBRACE, LBRACKET, LPAREN, LT, PIPE, RBRACE, RBRACKET, RPAREN, SEMICOLON, SP, SQ, UNDERSCORE } from "../grammar/chars.ts";
import { isAlnumAt } from "./letters.ts";

/** A value shorter than this (whitespace collapsed) is no evidence away from the window, unless isBodyEvidence's short rule holds. */
export const MIN_BODY_VALUE = 12;
/** The shortest value the short rule admits: `rm -r ~` is 7. */
const MIN_SHORT_VALUE = 6;
/** Reserved words that begin a compound command's list or condition: the command after them begins there too. */
const KEYWORDS = ["then", "do", "else", "elif", "if", "while", "until"];

/**
 * Whether a value (whitespace collapsed) is evidence in a body far from the tags: MIN_BODY_VALUE
 * characters, or (review 56a, finding 2) MIN_SHORT_VALUE with a flag word (`-rf`, `--force`) and a
 * word made of path and glob signs only (`~`, `/`, `.`, `..`, `/*`, `~/*`): the short destructive
 * lines (`rm -rf ~`, `rm -rf /*`, `rm -rf .`). `ls`, `npm test`, `git status`, `make build` have
 * neither and still need the window; `ls -la ~` has both and, when a given body holds it as a whole
 * command, is read as that body's (only ever a call stopped).
 */
export function isBodyEvidence(value: string): boolean {
  const [from, to] = commandCore(value);
  const needle = value.slice(from, to);
  if (needle.length >= MIN_BODY_VALUE) return true;
  if (needle.length < MIN_SHORT_VALUE) return false;
  let flag = false;
  let sign = false;
  for (const word of needle.split(" ")) {
    if (word.length > 1 && word.charCodeAt(0) === 0x2d && word.charCodeAt(word.length - 1) !== 0x2d) flag = true;
    else if (word !== "" && onlyPathSigns(word)) sign = true;
  }
  return flag && sign;
}

/** Whether every character of `word` is `~`, `/`, `*` or `.` (scanned by hand: no new regex to audit). */
function onlyPathSigns(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c !== 0x7e && c !== 0x2f && c !== 0x2a && c !== 0x2e) return false;
  }
  return true;
}

/**
 * The length of a command separator at `i` (0 for none): `;`, `|`, `&` (not a redirection's), `(`,
 * `)`, `}`, and a backtick, which opens and closes a command substitution as `$(` and `)` do
 * (review 57, finding 2: `` out=`rm -rf ~/p` `` holds the command `rm -rf ~/p`).
 */
function separatorAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === SEMICOLON || c === PIPE || c === LPAREN || c === RPAREN || c === RBRACE || c === BACKTICK) return 1;
  if (c !== AMP) return 0;
  const before = i > 0 ? s.charCodeAt(i - 1) : -1;
  return before === GT || before === LT || s.charCodeAt(i + 1) === GT ? 0 : 1;
}

/**
 * The span of a value (normalized) inside the separators, grouping characters and spaces around it
 * (review 57, finding 1): leading `;`, `&`, `|`, `(`, `)`, `{`, `}`, a backtick, `$(` and spaces;
 * trailing the same but `{` and `$`. `rm -rf ~/p;`, `rm -rf ~/p &`, `(rm -rf ~/p)`, `{ rm -rf ~/p; }`
 * run the commands inside, so a value is given when what is inside is: the marks around a copied
 * command never make it the model's own. [from, to), empty when the value is only marks.
 */
export function commandCore(value: string): [number, number] {
  let from = 0;
  let to = value.length;
  for (;;) {
    const c = value.charCodeAt(from);
    if (from < to && (isCommandMark(c) || c === LBRACE || (c === DOLLAR && value.charCodeAt(from + 1) === LPAREN))) from++;
    else break;
  }
  while (to > from && isCommandMark(value.charCodeAt(to - 1))) to--;
  return [from, to];
}

function isCommandMark(c: number): boolean {
  return c === SP || c === SEMICOLON || c === AMP || c === PIPE || c === LPAREN || c === RPAREN || c === RBRACE || c === BACKTICK;
}

/** Past what may lead a command before its first word: spaces, `(`, `{ `, `! `, a reserved word and its space. */
function skipLead(s: string, i: number, to: number): number {
  for (;;) {
    while (i < to && s.charCodeAt(i) === SP) i++;
    if (i >= to) return i;
    const c = s.charCodeAt(i);
    const spaced = (at: number) => at >= to || s.charCodeAt(at) === SP;
    if (c === LPAREN) i++;
    else if ((c === LBRACE || c === BANG) && spaced(i + 1)) i++;
    else {
      const word = KEYWORDS.find((w) => s.startsWith(w, i) && spaced(i + w.length));
      if (word === undefined) return i;
      i += word.length;
    }
  }
}

/**
 * The whole commands of `s` in [from, to), one line's content or a part of it: `piece(start, end,
 * raw)` for each non-empty one (`raw`: where its command began, before skipLead), trailing spaces
 * trimmed. `atStart`: a command begins at `from`; `endsAtTo`: one ends at `to` (a line end, not
 * markup in the middle of a line). Linear in to - from.
 */
export function splitCommands(s: string, from: number, to: number, atStart: boolean, endsAtTo: boolean, piece: (start: number, end: number, raw: number) => void): void {
  const emit = (start: number, end: number, raw: number) => {
    while (end > start && s.charCodeAt(end - 1) === SP) end--;
    if (end > start) piece(start, end, raw);
  };
  let raw = atStart ? from : -1;
  let start = atStart ? skipLead(s, from, to) : -1;
  for (let i = start < 0 ? from : start; i < to; ) {
    const n = separatorAt(s, i);
    if (n === 0) {
      i++;
      continue;
    }
    if (start >= 0) emit(start, i, raw);
    raw = i + n;
    start = skipLead(s, raw, to);
    i = start;
  }
  if (start >= 0 && endsAtTo) emit(start, to, raw);
}

/**
 * The pieces of one line [from, to) that a string value of a call's arguments holds, read as its
 * own lines (review 57, finding 3): a JSON call's string decoded is a line of the haystack's JSON
 * form, but its first line begins after `"command": "` and its last ends before `",` / `"}` /
 * `"` + line end, neither of which is a command boundary to the shell. `read(start, end, ended)`:
 * a value opens after a quote that follows a key (`"key": `, `'key': `, and a pythonic keyword
 * `(key=`, `, key=`), and it ends before the same quote followed by `,`, `}`, `]`, `)` or the line
 * end (`ended`), or at `to` (the value runs on to the next line: `ended` when `to` ends the line).
 * A line that begins a body's line (`atStart`) may continue a value from the line before: its
 * start to such a closing quote is read too. Only ever extra commands, so a value counts as given
 * more often, never less. Values never overlap, so the line is read once more at most: linear.
 */
function stringValues(s: string, from: number, to: number, atStart: boolean, lineEnd: boolean, read: (start: number, end: number, ended: boolean) => void): void {
  // The value being read: where it began and its quote (-1: a continued line, either quote).
  let open = atStart ? from : -1;
  let quote = -1;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c !== DQ && c !== SQ) continue;
    if (open >= 0 && (quote < 0 || quote === c) && closesValue(s, i + 1, to, lineEnd)) {
      read(open, i, true);
      open = -1;
    } else if (opensValue(s, i, from)) {
      open = i + 1;
      quote = c;
    }
  }
  // A value opened on this line runs on to the next (a continued line's whole reading is splitCommands's own).
  if (open >= 0 && quote >= 0) read(open, to, lineEnd);
}

/** Whether what follows a quote ending at `i` ends a value: an optional space and `,`, `}`, `]`, `)`, or the line's end. */
function closesValue(s: string, i: number, to: number, lineEnd: boolean): boolean {
  if (i < to && s.charCodeAt(i) === SP) i++;
  if (i >= to) return lineEnd;
  const c = s.charCodeAt(i);
  return c === COMMA || c === RBRACE || c === RBRACKET || c === RPAREN;
}

/** Whether the quote at `q` opens a value: after `"key":` or `'key':` (a space between allowed), or after a pythonic keyword `(key=` / `, key=`. */
function opensValue(s: string, q: number, from: number): boolean {
  let i = q - 1;
  if (i >= from && s.charCodeAt(i) === SP) i--;
  if (i <= from) return false;
  const c = s.charCodeAt(i);
  if (c === COLON) {
    const key = s.charCodeAt(i - 1);
    return key === DQ || key === SQ;
  }
  if (c !== EQ || q - 1 !== i) return false;
  // A keyword: letters, digits and `_` back to `(` or `, `. Each character is passed by one keyword's walk at most.
  let k = i - 1;
  while (k >= from && (isAlnumAt(s, k) || s.charCodeAt(k) === UNDERSCORE)) k--;
  if (k === i - 1 || k < from) return false;
  if (s.charCodeAt(k) === SP) k--;
  return k >= from && (s.charCodeAt(k) === LPAREN || s.charCodeAt(k) === COMMA);
}

/** Where a body spans in the haystack's text: a command in it begins at or after `lo` and ends at or before `hi`. */
interface Entry {
  at: number;
  lo: number;
  hi: number;
}

/** The whole commands of every body of one haystack (the module's rule), indexed once. */
export class BodyIndex {
  private readonly commands = new Map<string, Entry[]>();
  private readonly starts = new Set<number>();
  private readonly ends = new Set<number>();
  /** How many of the haystack's forms are indexed: content appended later is indexed when asked. */
  private done = 0;

  constructor(private readonly hay: GivenHaystack) {}

  /** Indexes the forms added since the last call; the characters read (each body's span, once). */
  update(): number {
    const { forms, markup: marks, closes } = this.hay;
    let read = 0;
    for (; this.done < forms.length; this.done++) {
      const form = forms[this.done]!;
      const first = firstAtOrAfter(marks, form.start);
      const last = firstAtOrAfter(marks, form.end + 1) - 1;
      if (last < first) continue;
      // The form's text before its first markup when that closes, after its last when that opens (a page, a cut text).
      if (form.group >= 0 && closes[first]!) read += this.body(form.start, marks[first]!);
      for (let t = first; t < last; t++) if (!closes[t]! && closes[t + 1]!) read += this.body(marks[t]! + 1, marks[t + 1]!);
      if (form.group >= 0 && !closes[last]!) read += this.body(marks[last]! + 1, form.end);
    }
    return read;
  }

  /** Indexes the commands in [lo, hi), line by line; the characters read. */
  private body(lo: number, hi: number): number {
    const { text, lineStarts, lineEnds } = this.hay;
    if (hi <= lo) return 0;
    for (let line = firstAtOrAfter(lineEnds, lo + 1); line < lineEnds.length; line++) {
      const end = lineEnds[line]!;
      const from = Math.max(lo, lineStarts[line]!);
      if (from >= hi) break;
      const to = Math.min(end, hi);
      const add = (start: number, stop: number, raw: number) => {
        const key = text.slice(start, stop);
        const list = this.commands.get(key);
        const entry = { at: start, lo, hi };
        if (list === undefined) this.commands.set(key, [entry]);
        else list.push(entry);
        this.starts.add(raw).add(start);
        this.ends.add(stop);
      };
      const atStart = indexOfPosition(lineStarts, from) >= 0;
      splitCommands(text, from, to, atStart, to === end, add);
      // The line again as the string values it holds read (a JSON call's `"command": "rm -rf ~/p`).
      stringValues(text, from, to, atStart, to === end, (start, stop, ended) => splitCommands(text, start, stop, true, ended, add));
    }
    return hi - lo;
  }

  /**
   * Whether `needle` (normalized as the haystack is) fills whole commands of a body, `head` being
   * its first line: a prefix of `needle`. First inside the separators and grouping characters
   * around it (commandCore), then as written (a `{x` that the haystack reads whole). `cost.scanned`
   * counts the characters compared; past `limit` the lookup stops and counts as found (review 57,
   * finding 4: the scan budget's rule, a hostile request can only stop calls).
   */
  holds(needle: string, head: string, cost: { scanned: number }, limit = Number.POSITIVE_INFINITY): boolean {
    const [from, to] = commandCore(needle);
    if (from === 0 && to === needle.length) return this.fills(needle, head, cost, limit);
    return (to > from && this.fills(needle.slice(from, to), head.slice(from, Math.min(head.length, to)), cost, limit)) || this.fills(needle, head, cost, limit);
  }

  private fills(needle: string, head: string, cost: { scanned: number }, limit: number): boolean {
    const pieces: { start: number; end: number }[] = [];
    splitCommands(head, 0, head.length, true, true, (start, end) => void pieces.push({ start, end }));
    cost.scanned += head.length;
    if (pieces.length === 0) return false;
    if (pieces.length === 1 && pieces[0]!.start === 0 && pieces[0]!.end === needle.length) return this.commands.has(needle);
    // The first line's rarest command: the value stands, if anywhere, where that one does.
    let best: Entry[] | undefined;
    let offset = 0;
    for (const { start, end } of pieces) {
      const list = this.commands.get(head.slice(start, end));
      if (list === undefined) return false;
      if (best === undefined || list.length < best.length) [best, offset] = [list, start];
    }
    const m = needle.length;
    for (const { at, lo, hi } of best!) {
      // Each place costs up to the value's length: the budget is looked at per place, so one lookup overshoots it by one place at most.
      if (cost.scanned > limit) return true;
      cost.scanned++;
      const p = at - offset;
      if (p < lo || p + m > hi || !this.starts.has(p) || !this.ends.has(p + m)) continue;
      cost.scanned += m;
      if (this.hay.text.startsWith(needle, p)) return true;
    }
    return false;
  }
}
