import { BACKSLASH, COLON, COMMA, CR, DASH, DOT, DQ, EQ, GT, LBRACE, LBRACKET, LF, LPAREN, LT, PLUS, RBRACE, RBRACKET, RPAREN, SP, SQ, TAB, isAsciiDigit, isAsciiLetter } from "../grammar/chars.ts";
import { NAME_LIMIT } from "../parse/char-form.ts";
import { isElementNameCode } from "../parse/tool-element-name.ts";

// A call quoted in block documentation written in a dialect whose values are string literals
// (LFM2's pythonic list, Hermes JSON, Kimi, Mistral, MiniMax's bracket form; review 51): from its
// opener token on, read one character at a time, so a quoted string value keeps the holder (fence,
// HTML block, comment, `<pre>`) open up to the value's own closing quote, as a quoted DSML value
// keeps it open to its closer (quoted-dialects.ts; golden N45.1-N45.4). A page shown as a write's
// content breaks its holder by CommonMark's reading, but by the dialect's own reading every line of
// it is the string's text, so a call example in it stays documentation. DocContext feeds it every
// character (midLine is false while it is not idle) and adds `holds` to its documentation; where
// the text is in view, a `<` or `[` it shows starts no opener leaves it idle (openerMayStartAt).
// Right after a DSML-side quote's end DocContext puts it where it is after its own end (follow),
// and its own end leaves DocContext's quote between calls: either hands over to the other.

/** The tokens read, each exact; none is a prefix of another (one completes at most per character). */
const TOKENS = [
  // Openers: where a quoted call starts (read only where block documentation holds and no other quote is open).
  "<|tool_call_start|>",
  "<tool_call>",
  "<|tool_call_begin|>",
  "<|tool_call_argument_begin|>",
  "[TOOL_CALLS]",
  "[TOOL_CALL]",
  // Between a name and the arguments (Mistral's, Kimi's).
  "[ARGS]",
  "<|tool_call_argument_begin|>",
  // The quoted call's closers after its arguments.
  "<|tool_call_end|>",
  "<|tool_calls_section_end|>",
  "</tool_call>",
  "[/TOOL_CALL]",
  // Kimi's section opener: no call of its own, but its calls follow it (white space between), as
  // after a quoted call's end (fx52 cross quote: a second section after a quoted one).
  "<|tool_calls_section_begin|>",
  // Mistral's v11 call id between the name and `[ARGS]` (`NAME[CALL_ID]ID[ARGS]`, review 57): the id follows as a name does.
  "[CALL_ID]",
] as const;
const SECTION = 1 << 12;
const CALL_ID = 1 << 13;
const OPENERS = 0b0000_0011_1111 | SECTION;
const INNER = 0b0000_1100_0000 | CALL_ID;
const CLOSERS = 0b1111_0000_0000;
/** Openers a name follows before the arguments: Kimi's `<|tool_call_begin|>NAME`, Mistral's `[TOOL_CALLS]NAME[ARGS]`. */
const NAMED = (1 << 2) | (1 << 4);

const Phase = {
  Idle: 0,
  /** Inside a token (mask: the tokens still matching, pos: characters matched). */
  Token: 1,
  /** After an opener (or an inner token): white space, a name where the opener takes one, then the arguments. */
  Prelude: 2,
  /** The arguments: a bracketed structure whose string literals are its values. */
  Body: 3,
  /** The arguments closed: white space and the quoted call's closers. */
  After: 4,
} as const;
type PhaseValue = (typeof Phase)[keyof typeof Phase];

/**
 * A quoted opener's name: longer than any name a live reader takes (Mistral's NAME_LIMIT, Kimi's
 * and a declared MCP tool's longer), since a quote only adds documentation and a name cut short
 * here let the call example in a quoted value run (review 57: `[TOOL_CALLS]` and a 64-character name).
 */
const QUOTED_NAME_LIMIT = 4 * NAME_LIMIT;
/** White space and name characters a prelude may hold (bounded: a quote's prelude is a few words at most). */
const PRELUDE_LIMIT = QUOTED_NAME_LIMIT + NAME_LIMIT;

const isSpace = (c: number) => c === SP || c === TAB || c === LF || c === CR;

/**
 * What the arguments hold outside their strings without being prose that ends the quote: brackets,
 * separators, names and literals (`key=`, `true`, `-1.5`, MiniMax's `=>` and `--key`).
 */
const isSyntax = (c: number) => isSpace(c) || isAsciiLetter(c) || isAsciiDigit(c) || c === COMMA || c === COLON || c === EQ || c === GT || c === DASH || c === PLUS || c === DOT || c === 0x5f;

export class QuotedStrings {
  private phase: PhaseValue = Phase.Idle;
  private mask = 0;
  private pos = 0;
  /** The token being matched started where an opener may start (block documentation, no other quote). */
  private startable = false;
  /** Prelude: the opener takes a name; how many characters of it and of white space were read. */
  private named = false;
  private nameLength = 0;
  private preludeLength = 0;
  /** Body: the open string's quote (0: none), a backslash just read in it, the open brackets. */
  private quote = 0;
  private escaped = false;
  private depth = 0;

  /**
   * A tag at `c` is read as a quoted call's (DocContext.readsQuotedTags) right after this quoted
   * call's end (a further call quoted in the same place: `<tool_call>`) and right after an opener
   * that takes no name, before anything else (`<tool_call>` then `<function=…>`: Qwen3-Coder's quote).
   */
  handsOver(c: number): boolean {
    if (c !== LT) return false;
    return this.phase === Phase.After || (this.phase === Phase.Prelude && !this.named && this.nameLength === 0);
  }

  /** The quoted call ended (its arguments or closers read), only white space since: a further opener may follow. */
  get ended(): boolean {
    return this.phase === Phase.After;
  }

  /**
   * Another quote ended right here (a DSML, Claude-style or tool-named call's closer between calls,
   * DocContext.readQuotedTag): read on as after this quote's own end, so a further opener of these
   * dialects (white space between) is a further call quoted in the same place (fx52 cross quote).
   * Only from idle: a quote of these dialects already open is not given up.
   */
  follow(): void {
    if (this.phase === Phase.Idle) this.phase = Phase.After;
  }

  /**
   * At a `<` (`s[j]`, the text in view) in a DocContext quote's tail that is none of its own tags.
   * After a quoted call's end this reader holds a `<` that may start one of its tokens (a further
   * call's opener, a closer); where none is spelled here its wait is over, so this `<` (a block
   * closer the quote did not open, `<div>`) is read as CommonMark reads it and a stray closer is
   * still reported. False while the text ends before that is known (the caller waits for more).
   */
  settleAt(s: string, j: number, final: boolean): boolean {
    if (this.phase !== Phase.After) return true;
    const token = tokenAfterEndAt(s, j, final);
    if (token === null) return false;
    if (!token) this.reset();
    return true;
  }

  /** Nothing read: only an opener's first character (`<`, `[`) matters. */
  get idle(): boolean {
    return this.phase === Phase.Idle;
  }

  /**
   * Inside the quoted call's arguments: no tag in them is any other quote's (a tag right after an
   * opener is still read as one: `<tool_call>` then `<function=…>` is Qwen3-Coder's quote).
   */
  get opaque(): boolean {
    return this.phase === Phase.Body;
  }

  /** Whether `c` (may an opener start at it: `startable`) is the quoted call's own text: documentation. A pure read. */
  holds(c: number, startable: boolean): boolean {
    return this.phase !== Phase.Idle && this.step(c, startable, false);
  }

  /** Reads `c`; `startable`: an opener may start at it (asked only for `<` and `[`). */
  take(c: number, startable: boolean): void {
    this.step(c, startable, true);
  }

  reset(): void {
    this.phase = Phase.Idle;
    this.quote = 0;
    this.escaped = false;
    this.depth = 0;
  }

  /** Whether `c` continues the quoted call; with `take`, also moves on (a character it does not continue ends the quote). */
  private step(c: number, startable: boolean, take: boolean): boolean {
    switch (this.phase) {
      case Phase.Idle:
        if (take) this.startToken(c, startable ? OPENERS : 0, startable);
        return false;
      case Phase.Token: {
        const mask = matching(this.mask, this.pos, c);
        if (mask === 0) {
          if (take) this.startToken(c, startable ? OPENERS : 0, startable);
          return false;
        }
        if (!take) return true;
        const done = completed(mask, this.pos + 1);
        if (done < 0) {
          this.mask = mask;
          this.pos++;
        } else if ((1 << done) & CLOSERS) this.phase = Phase.After;
        else if ((1 << done) & INNER) this.enterPrelude(((1 << done) & CALL_ID) !== 0);
        else if ((1 << done) & SECTION) this.phase = this.startable ? Phase.After : Phase.Idle;
        else if (this.startable) this.enterPrelude(((1 << done) & NAMED) !== 0);
        else this.phase = Phase.Idle;
        return true;
      }
      case Phase.Prelude:
        return this.prelude(c, take);
      case Phase.Body:
        return this.body(c, take);
      case Phase.After:
        if (isSpace(c)) return true;
        // A further opener right after the quoted call's end is a further call quoted in the same
        // place (its block held by this quote, whatever CommonMark says): it starts a quote too.
        if (!take) return matching(CLOSERS | OPENERS, 0, c) !== 0;
        return this.startToken(c, CLOSERS | OPENERS, true);
    }
  }

  /** Starts matching a token of `among` at `c`: whether one starts (else the quote is idle). */
  private startToken(c: number, among: number, startable: boolean): boolean {
    const mask = c === LT || c === LBRACKET ? matching(among, 0, c) : 0;
    if (mask === 0) this.reset();
    else this.phase = Phase.Token;
    this.mask = mask;
    this.pos = 1;
    this.startable = startable;
    return mask !== 0;
  }

  private enterPrelude(named: boolean): void {
    this.phase = Phase.Prelude;
    this.named = named;
    this.nameLength = 0;
    this.preludeLength = 0;
  }

  private prelude(c: number, take: boolean): boolean {
    let to: PhaseValue = Phase.Prelude;
    // What ends the prelude is read before its bound, which counts only what it holds (a name as
    // long as the bound is still followed by its `[ARGS]`).
    if (this.nameLength > 0 && (c === LT || c === LBRACKET)) to = matching(INNER, 0, c) !== 0 ? Phase.Token : Phase.Idle;
    else if (c === LBRACE || c === LBRACKET) to = Phase.Body;
    else if (this.preludeLength >= PRELUDE_LIMIT) to = Phase.Idle;
    else if (!isSpace(c) && !(this.named && this.nameLength < QUOTED_NAME_LIMIT && (isElementNameCode(c) || c === COLON))) to = Phase.Idle;
    // A tag right after an opener that takes no name (`<tool_call>` then `<function=…>`) is another
    // dialect's call quoted in the same place: held as documentation, so the tag's own quote
    // (quoted-dialects.ts, Qwen3-Coder's) opens there even where CommonMark's block has ended (a
    // string of the call quoted before it broke the block). Taking it ends this quote.
    if (!take) return to !== Phase.Idle || this.handsOver(c);
    if (to === Phase.Token) this.startToken(c, INNER, false);
    else if (to === Phase.Body) this.enterBody();
    else if (to === Phase.Idle) this.reset();
    else {
      this.preludeLength++;
      if (!isSpace(c)) this.nameLength++;
    }
    return to !== Phase.Idle;
  }

  private enterBody(): void {
    this.phase = Phase.Body;
    this.depth = 1;
    this.quote = 0;
    this.escaped = false;
  }

  private body(c: number, take: boolean): boolean {
    if (this.quote !== 0) {
      if (take) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === this.quote) this.quote = 0;
      }
      return true;
    }
    const opens = c === LBRACE || c === LBRACKET || c === LPAREN;
    const closes = c === RBRACE || c === RBRACKET || c === RPAREN;
    if (!opens && !closes && c !== DQ && c !== SQ && !isSyntax(c)) {
      // Prose (a fence line, a tag) where the arguments hold only syntax: what was quoted is no call; the quote ends.
      if (take) this.reset();
      return false;
    }
    if (!take) return true;
    if (c === DQ || c === SQ) this.quote = c;
    else if (opens) this.depth++;
    else if (closes && --this.depth === 0) this.phase = Phase.After;
    return true;
  }
}

/** Each opener's character codes, compared by openerMayStartAt without reading the tokens again. */
const OPENER_CODES: readonly (readonly number[])[] = TOKENS.filter((_, i) => (OPENERS & (1 << i)) !== 0).map((t) => Array.from(t, (ch) => ch.charCodeAt(0)));
/** An opener's second character (`|`, `t`, `T`: all ASCII), by code: the `<` of code is turned down by one lookup. */
const SECOND = new Uint8Array(0x80);
for (const codes of OPENER_CODES) SECOND[codes[1]!] = 1;

/**
 * Whether an opener may start at `s[j]` (`c`, a `<` or `[`) as far as the text shows: one matches
 * it whole, or up to the text's end. A pure read of at most one opener's length (the `<` of code
 * costs one read: its next character). Where it is false the token phase would only read the
 * characters up to the first that differs and end there (no token holds a `<` or `[` past its first
 * character), so DocContext.advanceAt leaves the quote idle: the engine's hot path then resumes
 * right after the `<` of code (`a<b`, `<div>`) instead of reading its next character alone.
 */
export function openerMayStartAt(s: string, j: number, c: number): boolean {
  if (j + 1 >= s.length) return true;
  const next = s.charCodeAt(j + 1);
  if (next >= 0x80 || SECOND[next] === 0) return false;
  for (const codes of OPENER_CODES) {
    if (codes[0] !== c || codes[1] !== next) continue;
    const end = Math.min(codes.length, s.length - j);
    let k = 2;
    while (k < end && codes[k] === s.charCodeAt(j + k)) k++;
    if (k === end) return true;
  }
  return false;
}

/** The tokens read right after a quoted call's end (the After phase): its closers and openers. */
const AFTER_CODES: readonly (readonly number[])[] = TOKENS.filter((_, i) => ((CLOSERS | OPENERS) & (1 << i)) !== 0).map((t) => Array.from(t, (ch) => ch.charCodeAt(0)));

/**
 * Whether a token read right after a quoted call's end (a closer, an opener) starts at `s[j]`:
 * true where one is spelled whole, false where none is, null while the text ends inside one and
 * more may come (not `final`). A pure read of at most the longest token, per token.
 */
function tokenAfterEndAt(s: string, j: number, final: boolean): boolean | null {
  let more = false;
  for (const codes of AFTER_CODES) {
    const end = Math.min(codes.length, s.length - j);
    let k = 0;
    while (k < end && codes[k] === s.charCodeAt(j + k)) k++;
    if (k === codes.length) return true;
    if (k === end) more = true;
  }
  return more && !final ? null : false;
}

/** The tokens of `mask` whose character at `pos` is `c`. */
function matching(mask: number, pos: number, c: number): number {
  let out = 0;
  for (let i = 0; i < TOKENS.length; i++) if ((mask & (1 << i)) !== 0 && TOKENS[i]!.charCodeAt(pos) === c) out |= 1 << i;
  return out;
}

/** The token of `mask` that is `length` characters long (matched whole), or -1. */
function completed(mask: number, length: number): number {
  for (let i = 0; i < TOKENS.length; i++) if ((mask & (1 << i)) !== 0 && TOKENS[i]!.length === length) return i;
  return -1;
}
