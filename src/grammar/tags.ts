import { COSTUME_INNER, COSTUME_OPENERS, dsmlRole, executeLanguage, legacyRole, nakedRole, type LegacyRole, type TagRole } from "./dialects.ts";
import { isBarCode } from "./markers.ts";
import { COLON, CR, DASH, DOT, DQ, EQ, GT, LBRACKET, LF, LT, SENTENCEPIECE_SPACE_CODE, SLASH, SP, SQ, TAB, UNDERSCORE } from "./chars.ts";

/**
 * One marker tag, read by a hand-written scanner that looks at most MAX_TAG characters ahead and
 * never backtracks: the streaming engine holds at most one such token while it waits for more text.
 */
export const MAX_TAG = 512;

/**
 * CommonMark's HTML block of type 1 opens with one of these tags and ends on the first line
 * holding the closing tag of any of them (any case): the documentation context's block reader
 * (engine/doc-html.ts) and the `<pre>` costume's re-read (parse/costume-hold.ts) both read it.
 */
export const HTML_TYPE1_NAMES: readonly string[] = ["script", "pre", "style", "textarea"];

export const enum Flaw {
  None = 0,
  MissingGt = 1,
  MissingLt = 2,
  RunawayAttr = 4,
  Misspelled = 8,
  Spaced = 16,
  SpaceBeforeName = 32,
  /** Qwen3-Coder's `<function=NAME>` / `<parameter=NAME>`. */
  EqualsName = 64,
  /** Written `<... />`: an element with no content (a value, if any, sits in an attribute). */
  SelfClosing = 128,
  /** An attribute value in typographic quotes (U+201C/U+201D, U+2018/U+2019, fullwidth U+FF02). */
  TypographicQuote = 256,
  /**
   * The tag names one attribute twice (`name="read" name="bash"`, compared as read: any case). Only
   * the first value is kept, but which one the model meant is unknowable, so a call built on such a
   * tag is refused (broken markup), never run with either.
   */
  RepeatedAttr = 512,
}

export type TagFamily = "dsml" | "naked" | "legacy" | "costume" | "mistral";

export interface Tag {
  start: number;
  end: number;
  family: TagFamily;
  closing: boolean;
  /** Role inside DSML-like grammars; "other" for costume and legacy tags. */
  role: TagRole;
  /** Legacy token meaning, for family "legacy". */
  legacy?: LegacyRole;
  /** Lower-cased tag name as written (costume tags: the costume name). */
  name: string;
  attrs: Record<string, string>;
  /** Sentinel as written, e.g. two fullwidth bars around DSML, for shape naming. */
  sentinel: string;
  flaws: number;
}

export const NEED_MORE = "need-more" as const;
export type ReadResult = Tag | null | typeof NEED_MORE;

const isSpace = (c: number) => c === SP || c === TAB;
const isNameCode = (c: number) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === UNDERSCORE || c === DASH || c === COLON;
const isLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);

/** First two letters of every unprefixed tag name we know: a quick reject for the `<` of ordinary code. */
const PLAIN_NAMES = ["minimax:tool_call", "tool_calls", "function_calls", "invoke", "parameter", "function", "name", "shell", "sh", "bash", "python", "py", "pre", "tool_call", "code_interpreter", "code", "tool_name", "tool_args", "language", "arg_key", "arg_value", "execute_"];
/**
 * For each lower-case first letter, a bit per lower-case second letter some name starts with
 * (every name above starts with two letters).
 * A table, not a Set: code has a `<` every few dozen characters, and a Set lookup cost more than
 * the rest of the rejection (measured).
 */
const PLAIN_PREFIXES = new Uint32Array(26);
for (const name of PLAIN_NAMES) PLAIN_PREFIXES[name.charCodeAt(0) - 0x61]! |= 1 << (name.charCodeAt(1) - 0x61);

/** Whether the text after a `<` could still begin a tag; true when it cannot tell yet. */
function mayStartTag(text: string, i: number): boolean {
  if (i >= text.length) return true;
  let c = text.charCodeAt(i);
  if (c === SLASH) {
    if (++i >= text.length) return true;
    c = text.charCodeAt(i);
  }
  const nameAt = i;
  while (c === SP || c === TAB) {
    if (++i >= text.length) return true;
    c = text.charCodeAt(i);
  }
  if (isBarCode(c)) return true;
  if (!isLetter(c)) return false;
  const seconds = PLAIN_PREFIXES[(c | 0x20) - 0x61]!;
  if (i + 1 >= text.length) return true;
  const second = (text.charCodeAt(i + 1) | 0x20) - 0x61;
  if (second >= 0 && second < 26 && (seconds & (1 << second)) !== 0) return true;
  return i === nameAt && mayBeNamespaced(text, i);
}

const MAX_NAMESPACE = 16;

/**
 * `<xx:function_calls>`: a short namespace right after the `<` (or `</`), then a colon (issue 29
 * item 7); the reader checks the local name. Undecided while the text ends inside the namespace.
 */
function mayBeNamespaced(text: string, i: number): boolean {
  const limit = Math.min(text.length, i + MAX_NAMESPACE + 1);
  for (let k = i + 1; k < limit; k++) {
    const c = text.charCodeAt(k);
    if (c === COLON) return true;
    if (!isNameCode(c)) return false;
  }
  return limit === text.length && limit < i + MAX_NAMESPACE + 1;
}

/**
 * A tag whose `<` was lost starts with its sentinel: one or two bars, spaces, then "DSML", or a
 * tool token's first word (`|tool_call_begin|>`, Kimi and DeepSeek's own tokens, issue 29 item 11).
 */
function mayStartSentinel(text: string, i: number): boolean {
  let bars = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isBarCode(c)) {
      if (++bars > 2) return false;
    } else if (c !== SP && c !== TAB) return (c | 0x20) === 0x64 || (c | 0x20) === 0x74;
  }
  return true;
}

/** `[TOOL_CALLS]` before its prefix `[TOOL_CALL]`, so the longer token is tried first. */
const BRACKET_TOKENS = ["[TOOL_CALLS]", "[ARGS]", "[TOOL_CALL]", "[/TOOL_CALL]"];

/**
 * Mistral's `[TOOL_CALLS]` and `[ARGS]` (O06), and MiniMax's bracket pair `[TOOL_CALL]` …
 * `[/TOOL_CALL]` (O05, issue 29 item 8), spelled exactly; the bracket tokens share the "mistral"
 * family, and the closer is `closing` with the name "tool_call". Compared in place: code is full
 * of `[`, and almost every one is rejected at its second character.
 */
function readBracketToken(text: string, start: number, final: boolean): ReadResult {
  for (const token of BRACKET_TOKENS) {
    const available = Math.min(token.length, text.length - start);
    let k = 1;
    while (k < available && text.charCodeAt(start + k) === token.charCodeAt(k)) k++;
    if (k < available) continue;
    if (available < token.length) return final ? null : NEED_MORE;
    const closing = token.charCodeAt(1) === SLASH;
    return {
      start, end: start + token.length, family: "mistral", closing, role: "other", name: token.slice(closing ? 2 : 1, -1).toLowerCase(),
      attrs: {}, sentinel: "", flaws: Flaw.None,
    };
  }
  return null;
}

/**
 * Reads the tag starting at `start` (a `<`, or a bar where the `<` was lost).
 * Returns NEED_MORE when `text` ends before a decision and `final` is false.
 */
export function readTag(text: string, start: number, final: boolean): ReadResult {
  if (text.charCodeAt(start) === LBRACKET) return readBracketToken(text, start, final);
  if (text.charCodeAt(start) === LT ? !mayStartTag(text, start + 1) : !mayStartSentinel(text, start)) return null;
  const reader = new TagReader(text, start, final);
  const result = reader.read();
  if (reader.starved) return NEED_MORE;
  return result;
}

/**
 * The head of the tag starting at `start` (a `<`, a bar where the `<` was lost, or a `[`), read by
 * the same reader as readTag on a final text: the sentinel, the spaces the reader tolerates, the
 * name (a namespaced one too), a legacy or bracket token whole; of the attributes only the first
 * one's name, with an empty value (so asLostLtCloser decides as on the whole tag); `end` is where
 * the attributes begin. Null where readTag reads no tag whatever follows the head. The echo guard
 * finds call markup in given content with it (src/echo/given-content.ts), so every spelling the
 * engine opens a candidate at is markup there too, never a second list that can fall behind.
 * A head never crosses a line end, and costs at most what it reads of one token.
 */
export function readTagHead(text: string, start: number): Tag | null {
  if (text.charCodeAt(start) === LBRACKET) {
    const token = readBracketToken(text, start, true);
    return token === NEED_MORE ? null : token;
  }
  if (text.charCodeAt(start) === LT ? !mayStartTag(text, start + 1) : !mayStartSentinel(text, start)) return null;
  return new TagReader(text, start, true, true).read();
}

/**
 * A DSML tag read where its `<` was lost, right after a `/`: the closer `</…>` written without its
 * `<` (issue 29 item 11, a client that strips the brackets). Closers carry no attributes, so one
 * with attributes stays what it was read as. `before`: the character before the tag.
 */
export function asLostLtCloser(tag: Tag, before: number): Tag {
  if (before !== SLASH || tag.family !== "dsml" || tag.closing || !(tag.flaws & Flaw.MissingLt)) return tag;
  for (const _ in tag.attrs) return tag;
  return { ...tag, start: tag.start - 1, closing: true };
}

/** peek() past the text (more could arrive) and past MAX_TAG. */
const STARVED = -2;
const TOO_LONG = -3;

class TagReader {
  private pos: number;
  private readonly limit: number;
  starved = false;
  constructor(
    private readonly text: string,
    private readonly start: number,
    private readonly final: boolean,
    /** readTagHead: stop where the attributes begin (finishTag reads none). */
    private readonly headOnly = false,
  ) {
    this.pos = start;
    this.limit = start + MAX_TAG;
  }

  /** -1 at the true end of a final text, so a tag may end there; STARVED when more text could decide. */
  private peek(): number {
    if (this.pos >= this.limit) return TOO_LONG;
    if (this.pos >= this.text.length) {
      if (this.final) return -1;
      this.starved = true;
      return STARVED;
    }
    return this.text.charCodeAt(this.pos);
  }

  private skipSpaces(): number {
    const from = this.pos;
    while (isSpace(this.peek())) this.pos++;
    return this.pos - from;
  }

  read(): Tag | null {
    const first = this.peek();
    const lostLt = isBarCode(first);
    let closing = false;
    let flaws = lostLt ? Flaw.MissingLt : Flaw.None;
    if (!lostLt) {
      this.pos++;
      if (this.peek() === SLASH) {
        closing = true;
        this.pos++;
      }
      if (this.skipSpaces() > 0) flaws |= Flaw.Spaced;
    }
    if (isBarCode(this.peek())) return this.readBarred(closing, flaws);
    if (lostLt) return null;
    return this.readPlain(closing);
  }

  /** After `<` or `</`: bars then either DSML (sentinel) or a legacy phrase. */
  private readBarred(closing: boolean, flaws: number): Tag | null {
    const sentinelStart = this.pos;
    const barsBefore = this.readBars();
    if (barsBefore > 2) return null;
    if (this.skipSpaces() > 0) flaws |= Flaw.Spaced;
    if (this.matchWordCaseless("dsml")) {
      if (this.skipSpaces() > 0) flaws |= Flaw.Spaced;
      const barsAfter = this.readBars();
      if (barsAfter === 0 || barsAfter > 2) return null;
      const sentinel = this.text.slice(sentinelStart, this.pos);
      if (this.skipSpaces() > 0) flaws |= Flaw.SpaceBeforeName;
      return this.readDsmlNameAndAttrs(closing, flaws, sentinel);
    }
    return this.readLegacy(closing, flaws & Flaw.MissingLt);
  }

  private readBars(): number {
    let n = 0;
    while (isBarCode(this.peek())) {
      this.pos++;
      n++;
      if (n > 2) return n;
    }
    return n;
  }

  private matchWordCaseless(word: string): boolean {
    for (let i = 0; i < word.length; i++) {
      if ((this.peek() | 0x20) !== word.charCodeAt(i)) return false;
      this.pos++;
    }
    return true;
  }

  private readName(): string {
    const from = this.pos;
    while (isNameCode(this.peek())) this.pos++;
    return this.text.slice(from, this.pos);
  }

  private readDsmlNameAndAttrs(closing: boolean, flaws: number, sentinel: string): Tag | null {
    const name = this.readName();
    if (name.length === 0 || !isLetter(name.charCodeAt(0))) return null;
    const role = dsmlRole(name);
    const lower = name.toLowerCase();
    if ((role === "parameter" && lower !== "parameter") || (role === "invoke" && lower !== "invoke")) {
      flaws |= Flaw.Misspelled;
    }
    return this.finishTag("dsml", closing, role, lower, sentinel, flaws, true);
  }

  private readPlain(closing: boolean): Tag | null {
    if (!isLetter(this.peek())) return null;
    const name = this.readName().toLowerCase();
    if (!closing && (name === "function" || name === "parameter") && this.peek() === EQ) {
      if (!this.headOnly) return this.readEqualsName(name);
      return { start: this.start, end: this.pos, family: "naked", closing: false, role: name, name, attrs: Object.create(null), sentinel: "", flaws: Flaw.EqualsName };
    }
    const role = nakedRole(name);
    if (role !== null) return this.finishTag("naked", closing, role, name, "", Flaw.None, false);
    if (COSTUME_OPENERS.has(name) || COSTUME_INNER.has(name) || executeLanguage(name) !== null) {
      return this.finishTag("costume", closing, "other", name, "", Flaw.None, false);
    }
    return null;
  }

  /** O02: `<function=bash>`; the value runs to `>` and may not hold spaces or newlines. */
  private readEqualsName(name: "function" | "parameter"): Tag | null {
    this.pos++;
    const from = this.pos;
    for (;;) {
      const c = this.peek();
      if (c === GT) break;
      if (c < 0x21 || c === LT) return null;
      this.pos++;
    }
    if (this.pos === from) return null;
    let value = this.text.slice(from, this.pos);
    this.pos++;
    let flaws: number = Flaw.EqualsName;
    // `<function="bash">`, `<function=“bash”>`: the quotes are the attribute's, not the name's.
    const first = value.charCodeAt(0);
    const last = value.charCodeAt(value.length - 1);
    if (value.length > 2 && quoteFamily(first) !== 0 && quoteFamily(first) === quoteFamily(last)) {
      if (first !== DQ && first !== SQ) flaws |= Flaw.TypographicQuote;
      value = value.slice(1, -1);
    }
    return {
      start: this.start, end: this.pos, family: "naked", closing: false, role: name, name, attrs: { name: value },
      sentinel: "", flaws,
    };
  }

  /** `lostLt`: read from a bar, so only a tool token (its first word `tool`) is one. */
  private readLegacy(closing: boolean, lostLt: number): Tag | null {
    if (closing) return null;
    const words: string[] = [];
    let word = "";
    for (;;) {
      const c = this.peek();
      if (isLetter(c)) {
        word += String.fromCharCode(c | 0x20);
        this.pos++;
      } else if (c === SENTENCEPIECE_SPACE_CODE || c === SP || c === UNDERSCORE) {
        if (word) words.push(word);
        word = "";
        this.pos++;
      } else break;
      if (words.length > 6) return null;
    }
    if (word) words.push(word);
    if (lostLt && words[0] !== "tool") return null;
    const role = legacyRole(words.join(" "));
    if (role === null) return null;
    if (this.readBars() === 0) return null;
    if (this.peek() !== GT) return null;
    this.pos++;
    return {
      start: this.start, end: this.pos, family: "legacy", closing: false, role: "other", legacy: role,
      name: words.join("_"), attrs: {}, sentinel: "", flaws: lostLt,
    };
  }

  /**
   * Attributes then `>`; DSML tags may also end at a newline or the next `<` (B03, P11). Every
   * attribute needs a value: words without one are prose that happens to follow a marker.
   */
  private finishTag(family: TagFamily, closing: boolean, role: TagRole, name: string, sentinel: string, flaws: number, tolerant: boolean): Tag | null {
    const attrs: Record<string, string> = Object.create(null);
    if (this.headOnly) {
      // Whether any attribute follows (asLostLtCloser asks): its name, read as finishTag reads it, without a value.
      const at = this.pos;
      if (this.skipSpaces() > 0 && isLetter(this.peek())) attrs[this.readName().toLowerCase()] = "";
      return { start: this.start, end: at, family, closing, role, name, attrs, sentinel, flaws };
    }
    for (;;) {
      const spaced = this.skipSpaces();
      const c = this.peek();
      if (c === GT) {
        this.pos++;
        break;
      }
      if (c === SLASH) {
        this.pos++;
        if (this.peek() !== GT) return null;
        this.pos++;
        flaws |= Flaw.SelfClosing;
        break;
      }
      if (c === -1 || c === LF || c === CR || c === LT) {
        if (!tolerant) return null;
        flaws |= Flaw.MissingGt;
        break;
      }
      if (!isLetter(c) || spaced === 0) return null;
      const attrName = this.readName().toLowerCase();
      this.skipSpaces();
      if (this.peek() !== EQ) return null;
      this.pos++;
      this.skipSpaces();
      const value = this.readAttrValue(tolerant);
      if (value === null) return null;
      if (value.typographic) flaws |= Flaw.TypographicQuote;
      if (attrName in attrs) flaws |= Flaw.RepeatedAttr;
      else attrs[attrName] = value.text;
      if (value.runaway) {
        flaws |= Flaw.RunawayAttr;
        break;
      }
    }
    return { start: this.start, end: this.pos, family, closing, role, name, attrs, sentinel, flaws };
  }

  /**
   * A quoted value that never closes on its line (or within MAX_TAG) is a runaway (I01): the tag ends there.
   * Typographic quotes (a client's or the model's "smart quotes") delimit a value like ASCII ones: a
   * double one closes on any double, a single one on any single, as autocorrect mixes left and right.
   */
  private readAttrValue(tolerant: boolean): { text: string; runaway: boolean; typographic: boolean } | null {
    const quote = this.peek();
    const family = quoteFamily(quote);
    if (family !== 0) {
      const typographic = quote !== DQ && quote !== SQ;
      this.pos++;
      const from = this.pos;
      for (;;) {
        const c = this.peek();
        if (typographic ? quoteFamily(c) === family && c !== DQ && c !== SQ : c === quote) {
          const text = this.text.slice(from, this.pos);
          this.pos++;
          return { text, runaway: false, typographic };
        }
        if (c === STARVED) return null;
        if (c === LF || c === -1 || c === TOO_LONG) {
          if (!tolerant) return null;
          return { text: this.text.slice(from, this.pos), runaway: true, typographic };
        }
        this.pos++;
      }
    }
    const from = this.pos;
    while (isNameCode(this.peek()) || this.peek() === DOT) this.pos++;
    if (this.pos === from) return null;
    return { text: this.text.slice(from, this.pos), runaway: false, typographic: false };
  }
}

const DOUBLE_QUOTE = 1;
const SINGLE_QUOTE = 2;

/** Which quote a character is: ASCII `"`, U+201C, U+201D and fullwidth U+FF02 are double; `'`, U+2018, U+2019 single; 0 otherwise. */
function quoteFamily(c: number): number {
  if (c === DQ || c === 0x201c || c === 0x201d || c === 0xff02) return DOUBLE_QUOTE;
  if (c === SQ || c === 0x2018 || c === 0x2019) return SINGLE_QUOTE;
  return 0;
}
