import { textSpan, type UnitOutcome } from "../segments.ts";
import { PROTOTYPE_KEY_DETAIL, parseJson } from "../values.ts";
import { callOutcome, declaredNameIn, jsonCallOutcome, truncatedCall, wholeSpan, type SpanContext } from "../call.ts";
import { bracketPairsOutcome, type BracketValue } from "./minimax-bracket-values.ts";
import { JsonExtent, isNameCode, isSpaceCode, type CharState } from "../char-form.ts";
import { ignoreContent, type SpanKind, type Step } from "../span-kind.ts";
import { BACKSLASH, BACKTICK, COLON, COMMA, CR, DASH, DQ, EQ, GT, LBRACE, LBRACKET, LF, RBRACE, RBRACKET, SP, SQ, TAB } from "../../grammar/chars.ts";
import { isObject } from "../../grammar/plain-data.ts";

/**
 * MiniMax's bracket form (O05, issue 29 item 8): `[TOOL_CALL]` one object `[/TOOL_CALL]`, the
 * object either Perl-style `{tool => "NAME", args => { --key "value" ... }}` or JSON
 * `{"tool": "NAME", "args": {...}}`, on one line or several. Both tokens are exact; the object is
 * read by a hand-written scanner (no regex), each character once.
 */
const CLOSER = "[/TOOL_CALL]";
const SHAPE = "O05";

export const MINIMAX_BRACKET: SpanKind = {
  watchesContent: false,
  content: ignoreContent,
  tag: () => null,
  charForm: () => new BracketCallState(),
  parse({ span, opener, truncated, ctx }) {
    const body = span.slice(opener.end, truncated || !span.endsWith(CLOSER) ? span.length : span.length - CLOSER.length).trim();
    // The exact token followed by an object proves a call was under way; the token alone at the end is a mention.
    if (truncated) return body === "" ? textSpan(span.length) : wholeSpan(span.length, truncatedCall(SHAPE));
    // Without its closer the stream ended the span at a blank line inside the object: cut off, a nudge when it names a declared tool.
    if (!span.endsWith(CLOSER) && !body.endsWith("}")) {
      const named = declaredNameIn(body, ctx);
      return named === undefined ? textSpan(span.length) : wholeSpan(span.length, { kind: "broken", shape: SHAPE, reason: "broken-markup", detail: "the call was cut off before its closer", tool: named });
    }
    const outcome = bracketCall(body, ctx);
    return outcome ? wholeSpan(span.length, outcome) : textSpan(span.length);
  },
};

/** The call one bracket body holds, or null when it is prose that names no declared tool. */
function bracketCall(body: string, ctx: SpanContext): UnitOutcome | null {
  const json = parseJson(body);
  if (json.ok) {
    if (!isObject(json.value) || typeof json.value.tool !== "string" || "name" in json.value) return null;
    const { tool, ...rest } = json.value;
    return jsonCallOutcome({ name: tool, ...rest }, SHAPE, ctx);
  }
  const refused = refusedJson(body, json.prototypeKey === true, ctx);
  if (refused !== null) return refused;
  const arrow = readArrowCall(body);
  if (arrow.kind === "call") return arrow.pairs ? bracketPairsOutcome(arrow.name, arrow.pairs, SHAPE, ctx) : callOutcome(arrow.name, arrow.args, SHAPE, ctx);
  if (arrow.name === undefined || !ctx.tools.has(arrow.name)) return null;
  return { kind: "broken", shape: SHAPE, reason: "broken-markup", detail: "the bracket call's arguments could not be read", tool: arrow.name };
}

/**
 * Review 53: a JSON body parseJson refused though it is valid JSON (a key written twice, a
 * prototype-member key, a number out of range) is a call written out and not run: broken-markup,
 * as the arrow form, Hermes, Kimi and Mistral report it, so the model is told; the tool named when
 * it is declared. Null when it is no JSON call object (the arrow reader decides).
 */
function refusedJson(body: string, prototypeKey: boolean, ctx: SpanContext): UnitOutcome | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isObject(value) || typeof value.tool !== "string" || Object.hasOwn(value, "name")) return null;
  const detail = prototypeKey ? PROTOTYPE_KEY_DETAIL : "the bracket call's JSON names a key twice or holds a number no call can carry";
  const out: UnitOutcome = { kind: "broken", shape: SHAPE, reason: "broken-markup", detail };
  if (ctx.tools.has(value.tool)) out.tool = value.tool;
  return out;
}

/**
 * A read arrow call: `pairs` as written for `{ --key VALUE ... }` (read by bracketPairsOutcome), or `args`
 * as JSON parsed them for `args => {json}`, typed as the JSON body form types them (callOutcome), so
 * a value keeps what the model wrote (1.10 for a string parameter is refused, never sent as "1.1").
 */
type ArrowRead = { kind: "call"; name: string; pairs: [string, BracketValue][]; args?: undefined } | { kind: "call"; name: string; pairs?: undefined; args: Record<string, unknown> } | { kind: "unread"; name?: string };

/**
 * `{tool => "NAME"[,] [args => ARGS]}` where ARGS is a JSON object or `{ --key VALUE ... }` (an
 * optional `:` after the key, or `=` right after it as in `--key=VALUE`; optional commas between
 * pairs); VALUE is a JSON string (its text), a single-quoted string without escapes (its text), a
 * bare word such as `20` or `true` (typed by the schema), or a JSON object or array.
 */
function readArrowCall(body: string): ArrowRead {
  const r = new Reader(body);
  if (!r.eat(0x7b) || r.word() !== "tool" || !r.arrow()) return { kind: "unread" };
  const name = r.jsonString();
  if (name === null) return { kind: "unread" };
  r.eat(0x2c);
  if (r.eat(0x7d)) return r.atEnd() ? { kind: "call", name, pairs: [] } : { kind: "unread", name };
  if (r.word() !== "args" || !r.arrow()) return { kind: "unread", name };
  if (r.peek() === LBRACE && r.peekSecond() !== DASH) {
    const args = r.jsonObject();
    if (args === null || !r.eat(0x7d) || !r.atEnd()) return { kind: "unread", name };
    return { kind: "call", name, args };
  }
  const pairs = r.dashPairs();
  if (pairs === null || !r.eat(0x7d) || !r.atEnd()) return { kind: "unread", name };
  return { kind: "call", name, pairs };
}

class Reader {
  private i = 0;
  constructor(private readonly s: string) {}

  private skip(): void {
    while (this.i < this.s.length && isSpaceCode(this.s.charCodeAt(this.i))) this.i++;
  }

  peek(): number {
    this.skip();
    return this.i < this.s.length ? this.s.charCodeAt(this.i) : -1;
  }

  /** The first non-space character after the next one (the `-` of `{ --key`), or -1. */
  peekSecond(): number {
    this.skip();
    let j = this.i + 1;
    while (j < this.s.length && isSpaceCode(this.s.charCodeAt(j))) j++;
    return j < this.s.length ? this.s.charCodeAt(j) : -1;
  }

  eat(c: number): boolean {
    if (this.peek() !== c) return false;
    this.i++;
    return true;
  }

  atEnd(): boolean {
    return this.peek() === -1;
  }

  /** `=>` */
  arrow(): boolean {
    if (!this.eat(0x3d) || this.s.charCodeAt(this.i) !== GT) return false;
    this.i++;
    return true;
  }

  word(): string {
    this.skip();
    const from = this.i;
    while (this.i < this.s.length && isNameCode(this.s.charCodeAt(this.i)) && this.s.charCodeAt(this.i) !== COLON) this.i++;
    return this.s.slice(from, this.i);
  }

  /** One JSON value's text (string, object or array), by extent; null if it never closes. */
  private jsonExtent(): string | null {
    this.skip();
    const from = this.i;
    const open = this.s.charCodeAt(this.i);
    if (open === DQ) {
      for (let j = this.i + 1, escaped = false; j < this.s.length; j++) {
        const c = this.s.charCodeAt(j);
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === DQ) {
          this.i = j + 1;
          return this.s.slice(from, this.i);
        }
      }
      return null;
    }
    const extent = new JsonExtent();
    for (let j = this.i; j < this.s.length; j++) {
      if (extent.step(this.s.charCodeAt(j))) {
        this.i = j + 1;
        return this.s.slice(from, this.i);
      }
    }
    return null;
  }

  jsonString(): string | null {
    if (this.peek() !== DQ) return null;
    const text = this.jsonExtent();
    const parsed = text === null ? { ok: false as const } : parseJson(text);
    return parsed.ok && typeof parsed.value === "string" ? parsed.value : null;
  }

  /** `args => {json}`: the object as JSON reads it (never turned back into text, which would change a number's digits). */
  jsonObject(): Record<string, unknown> | null {
    const text = this.jsonExtent();
    const parsed = text === null ? { ok: false as const } : parseJson(text);
    return parsed.ok && isObject(parsed.value) ? parsed.value : null;
  }

  /** `{ --key VALUE ... }` up to and including its `}`. */
  dashPairs(): [string, BracketValue][] | null {
    if (!this.eat(0x7b)) return null;
    const pairs: [string, BracketValue][] = [];
    for (;;) {
      if (this.eat(0x7d)) return pairs;
      if (!this.eat(0x2d) || this.s.charCodeAt(this.i) !== DASH) return null;
      this.i++;
      const key = this.word();
      if (key === "") return null;
      if (!this.equalsSeparator()) this.eat(COLON);
      const value = this.value();
      if (value === null) return null;
      pairs.push([key, value]);
      this.eat(0x2c);
    }
  }

  /**
   * `=` written right after the key (`--filePath="a.ts"`, the GNU long-option spelling) separates
   * it from its value as `:` does; the value after it is read as any value is (quoted or bare).
   * Not `=>`: a Perl arrow there is no separator this form knows, and its `=` then starts a bare
   * value, which is refused.
   */
  private equalsSeparator(): boolean {
    if (this.s.charCodeAt(this.i) !== EQ || this.s.charCodeAt(this.i + 1) === GT) return false;
    this.i++;
    return true;
  }

  /**
   * `'text'`: a string as a double-quoted one is, never a bare word that keeps its quotes
   * (`--filePath 'a.ts'` is the file a.ts, not 'a.ts'). Its text is read literally, up to the next
   * `'`, with no escapes; a backslash inside refuses it, since the languages that write this quote
   * disagree on what one means (Perl and the shell keep `\n` as two characters, Python and
   * JavaScript make it a line break), and so does a line break (a JSON string holds none either) or
   * a missing closing quote. A `'` inside the text ends it early, and the rest then fails as markup.
   */
  private singleQuoted(): string | null {
    for (let j = this.i + 1; j < this.s.length; j++) {
      const d = this.s.charCodeAt(j);
      if (d === BACKSLASH || d === LF || d === CR) return null;
      if (d === SQ) {
        const text = this.s.slice(this.i + 1, j);
        this.i = j + 1;
        return text;
      }
    }
    return null;
  }

  /**
   * One pair's value. A bare (unquoted) value never starts with `--`: written right after a key,
   * `--word` is the next key, so the key before it was written without a value and the pair list
   * is refused (a value-less `--newString --replaceAll` must not run with newString
   * "--replaceAll"). A value that really starts with `--` is written quoted (`"--force"`); a
   * single dash (`-la`, `-5`) stays a bare value. Nor does a bare value start with `=`: that is a
   * separator written apart from its key (`--key =x`, `--key: =x`, `--key => x`), and keeping it
   * would send a value the model never meant; it is refused. Nor with a backtick: `` `ls` `` is
   * inline code or a shell substitution, and either reading would keep quotes the model wrote
   * around the value as its content; refused.
   */
  private value(): BracketValue | null {
    const c = this.peek();
    if (c === DQ || c === SQ) {
      const text = c === DQ ? this.jsonString() : this.singleQuoted();
      return text === null ? null : { kind: "quoted", text };
    }
    if (c === LBRACE || c === LBRACKET) {
      const text = this.jsonExtent();
      return text === null ? null : { kind: "bracketed", text };
    }
    if ((c === DASH && this.s.charCodeAt(this.i + 1) === DASH) || c === EQ || c === BACKTICK) return null;
    const from = this.i;
    while (this.i < this.s.length) {
      const d = this.s.charCodeAt(this.i);
      if (isSpaceCode(d) || d === 0x2c || d === 0x7d) break;
      this.i++;
    }
    return this.i > from ? { kind: "bare", text: this.s.slice(from, this.i) } : null;
  }
}

/**
 * The stream's side: after `[TOOL_CALL]`, spaces then `{` (anything else: a mention, released at
 * that character), one brace-balanced object (strings respected; a blank line outside a string
 * proves prose and releases it), spaces, then exactly `[/TOOL_CALL]`. A reply that ends right after
 * the object completes it (the closer was cut), as for Hermes (O01.4).
 *
 * Strings are JSON's double-quoted ones and, where the reader takes one (readArrowCall: a value
 * right after a `--key` in the `{ --key VALUE }` object, KeyPosition), a single-quoted one read as
 * the reader reads it (golden A44.1-A44.2): literal up to the next `'`, so a `"` or a brace in it is text
 * (`--command 'echo }'`). A backslash or a line break before that `'` makes it no string for the
 * reader (refused), and so does the reply ending first (atEnd): the scanner then reads its
 * characters as if the quote were none, exactly as before: they are held from the `'` and stepped
 * then, each once at most.
 */
class BracketCallState implements CharState {
  private phase: "start" | "object" | "after" | "closer" = "start";
  private readonly object = new JsonExtent();
  private lineBlank = false;
  private matched = 0;
  private readonly key = new KeyPosition();
  /** The absolute position of an open single-quoted value's `'`, or -1; `held`: its characters since. */
  private quoteAt = -1;
  private held: number[] = [];

  completesAtEnd(): boolean {
    return this.phase === "after";
  }

  step(c: number, at: number): Step | null {
    if (this.quoteAt >= 0) return this.quoted(c);
    switch (this.phase) {
      case "start":
        if (isSpaceCode(c)) return null;
        if (c !== LBRACE) return { kind: "abandon", at };
        this.phase = "object";
        this.object.step(c);
        this.key.step(c, 1);
        return null;
      case "object":
        return this.objectChar(c, at, true);
      case "after":
        if (isSpaceCode(c)) return null;
        if (c !== LBRACKET) return { kind: "abandon", at };
        this.phase = "closer";
        this.matched = 1;
        return null;
      case "closer":
        if (c !== CLOSER.charCodeAt(this.matched)) return { kind: "abandon", at };
        return ++this.matched === CLOSER.length ? { kind: "complete", end: at + 1 } : null;
    }
  }

  /** One character of the object; `quotes`: a `'` at a value's place may open a single-quoted value. */
  private objectChar(c: number, at: number, quotes: boolean): Step | null {
    if (this.blankLine(c)) return { kind: "complete", end: at };
    if (quotes && c === SQ && !this.object.inString && this.object.level === 2 && this.key.atValue()) {
      this.quoteAt = at;
      return null;
    }
    const inString = this.object.inString;
    if (this.object.step(c)) this.phase = "after";
    this.key.step(c, this.object.level, inString || this.object.inString);
    return null;
  }

  /** Inside a single-quoted value: its `'` ends it; a backslash or a line break makes it none (unquote). */
  private quoted(c: number): Step | null {
    if (c === SQ) {
      this.quoteAt = -1;
      this.held = [];
      this.lineBlank = false;
      this.key.closedString();
      return null;
    }
    if (c !== BACKSLASH && c !== LF && c !== CR) {
      this.held.push(c);
      return null;
    }
    this.held.push(c);
    return this.unquote();
  }

  /** The reply ended inside a single-quoted value: it had no closing quote, so it is none. */
  atEnd(): Step | null {
    return this.quoteAt >= 0 ? this.unquote() : null;
  }

  /** The open `'` was no string: it and every held character are stepped as the object's text, in order. */
  private unquote(): Step | null {
    const from = this.quoteAt;
    const held = [SQ, ...this.held];
    this.quoteAt = -1;
    this.held = [];
    for (let k = 0; k < held.length; k++) {
      const step = this.phase === "object" ? this.objectChar(held[k]!, from + k, false) : this.step(held[k]!, from + k);
      if (step) return step;
    }
    return null;
  }

  /**
   * True at the first non-space character after an empty line outside any string. Asked before
   * `c` is stepped into the object, so the object's string state is the one `c` arrives in.
   */
  private blankLine(c: number): boolean {
    if (this.object.inString) return false;
    if (c === LF) {
      if (this.lineBlank) return true;
      this.lineBlank = true;
      return false;
    }
    if (c !== SP && c !== TAB && c !== CR) this.lineBlank = false;
    return false;
  }
}

/**
 * Where readArrowCall's dashPairs would read a value, one character at a time, for the `{ --key
 * VALUE }` object (depth 2 of the bracket's object): after `--` written where a key may start (the
 * object's `{`, a space, a `,`, or the end of a quoted value), the key's name characters (no `:`),
 * then either `=` right after the key (not `=>`) or a `:` after optional spaces, then optional
 * spaces (line breaks included). Only a `'` there opens a single-quoted value.
 */
class KeyPosition {
  private state: "none" | "dash" | "dashes" | "key" | "spaced" | "equals" | "separated" = "none";
  /** The next character starts a token (a key may begin here). */
  private tokenStart = false;

  atValue(): boolean {
    return this.state === "key" || this.state === "spaced" || this.state === "equals" || this.state === "separated";
  }

  /** A single-quoted value ended: a key may follow right after it. */
  closedString(): void {
    this.state = "none";
    this.tokenStart = true;
  }

  /** `c` stepped into the object at nesting `level` (after it); `inString`: it was inside or bounds a double-quoted string. */
  step(c: number, level: number, inString = false): void {
    const startsToken = this.tokenStart;
    this.tokenStart = false;
    if (inString) {
      // A double-quoted value (or key text): its closing quote ends a token.
      this.state = "none";
      this.tokenStart = c === DQ;
      return;
    }
    const space = isSpaceCode(c);
    if (c === LBRACE || c === COMMA || space || c === RBRACE || c === RBRACKET) this.tokenStart = true;
    if (level !== 2) {
      this.state = "none";
      return;
    }
    switch (this.state) {
      case "none":
        this.state = c === DASH && startsToken ? "dash" : "none";
        return;
      case "dash":
        this.state = c === DASH ? "dashes" : "none";
        return;
      case "dashes":
        this.state = isKeyCode(c) ? "key" : "none";
        return;
      case "key":
        if (isKeyCode(c)) return;
        this.state = c === EQ ? "equals" : c === COLON ? "separated" : space ? "spaced" : "none";
        return;
      case "spaced":
        this.state = space ? "spaced" : c === COLON ? "separated" : "none";
        return;
      case "equals":
        // `=>` is no separator (readArrowCall.equalsSeparator); spaces may follow `=` before the value.
        this.state = space ? "separated" : "none";
        return;
      case "separated":
        this.state = space ? "separated" : "none";
        return;
    }
  }
}

const isKeyCode = (c: number) => isNameCode(c) && c !== COLON;
