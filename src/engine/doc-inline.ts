/**
 * Inline documentation inside paragraph, heading and table text (doc-blocks.ts feeds it the
 * text of one paragraph, line after line). Documentation here:
 * - code spans (a backtick run until a run of the same length; an unmatched run counts as open
 *   until the paragraph ends);
 * - raw HTML: inside a tag (a quoted attribute value holds a quote), a comment, a processing
 *   instruction, a declaration, CDATA; an unfinished tag counts until it fails;
 * - the content of the elements that hold quoted examples: `<code>`, `<kbd>`, `<pre>`, `<samp>`;
 * - link and image text: from `[` to its `]` (whether a `(url)` follows is not known yet);
 * - an inline link's destination and title, from the `(` right after a link text's `]` to its
 *   `)`, and a link reference definition at a paragraph's start (doc-links.ts reads both);
 * - display math: from `$$` to the next `$$`.
 * All of them end with the paragraph. A backslash before ASCII punctuation makes it literal
 * outside code spans, as in CommonMark (an escaped backtick never pairs with a real one).
 *
 * The link readers run beside the inline state here, which goes on as if their characters were
 * prose: one that fails leaves it as CommonMark then has it (a `](` among its characters opened a
 * link of its own: up to MAX_TAILS links are followed at once, more make the paragraph
 * documentation until one completes); one that completes puts back the inline state from before
 * it (a saved copy of four fields: O(1), whatever the length).
 */
import { BACKSLASH, BACKTICK, BANG, COLON, DASH, DOLLAR, DOT, DQ, EQ, GT, LBRACKET, LF, LPAREN, LT, QUESTION, RBRACKET, SLASH, SP, SQ, TAB, UNDERSCORE, isAsciiPunctuation } from "../grammar/chars.ts";
import { type InlineBefore, InlineLinks, ReferenceDefinition } from "./doc-links.ts";

/** States of a raw HTML tag being read (CommonMark's open tag, closing tag, and the `<!`/`<?` forms). */
const Tag = {
  None: 0,
  Lt: 1,
  Bang: 2,
  BangDash: 3,
  Cdata: 4,
  Name: 5,
  AttrSep: 6,
  AttrName: 7,
  AfterAttr: 8,
  BeforeValue: 9,
  Unquoted: 10,
  Double: 11,
  Single: 12,
  AfterValue: 13,
  SelfClose: 14,
  CloseStart: 15,
  CloseName: 16,
  CloseWs: 17,
} as const;
const FAIL = -1;
/** An open or closing tag is complete. */
const DONE = -2;
/** A comment, processing instruction, declaration or CDATA opened: its end string is looked for. */
const BODY = -3;

const CDATA = "[CDATA[";
const EXAMPLE_ELEMENTS = new Set(["code", "kbd", "pre", "samp"]);
const NAME_LIMIT = 12;

const isLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const lower = (c: number) => String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

export class InlineContext {
  /** Open code span's run length; -1: open with an unknown length, until the paragraph ends. */
  private span = 0;
  /** Backtick run being read. */
  private tick = 0;
  private tag: number = Tag.None;
  private tagName = "";
  private tagClose = false;
  /** A backtick inside a quoted attribute value: if the tag fails, it may have opened a code span. */
  private tagTick = false;
  private cdata = 0;
  /** End of the comment, processing instruction, declaration or CDATA being read. */
  private end = "";
  private endPos = 0;
  private element = "";
  private bracket = 0;
  private dollar = 0;
  private math = false;
  /** The last character completed an open or closing tag; its lower-cased name (at most 13 characters). */
  tagClosed = false;
  get closedTagName(): string {
    return this.tagName;
  }

  /** A backslash outside a code span: the next ASCII punctuation character is literal. */
  private escaped = false;

  /** The last character was a `]` that closed link text: a `(` right after it opens a destination. */
  private bracketClosed = false;
  private readonly links = new InlineLinks();
  private readonly definition = new ReferenceDefinition();

  /** Nothing pending: until the next backtick, `<`, `[`, `]`, `$`, backslash or line end, nothing changes. */
  get quiet(): boolean {
    return this.tick === 0 && this.tag === Tag.None && this.end === "" && this.dollar === 0 && !this.escaped && !this.bracketClosed && !this.links.reading && this.definition.idle;
  }

  /** The last character was a `<` that opened a tag (inside a quoted attribute value a `<` opens none). */
  get tagStarted(): boolean {
    return this.tag === Tag.Lt;
  }

  /** An open or closing tag may still be being read. */
  get inTag(): boolean {
    return this.tag !== Tag.None && this.tag !== Tag.Bang && this.tag !== Tag.BangDash && this.tag !== Tag.Cdata;
  }

  /**
   * `c`, arriving now, is made literal by the backslash before it: a writer who escapes `\<` is
   * showing the character, not writing markup, so markup opened by it is documentation.
   */
  escapes(c: number): boolean {
    return this.escaped && this.span === 0 && isAsciiPunctuation(c);
  }

  /**
   * A `<` was made literal by a backslash: the writer is showing markup, so the rest of the
   * paragraph is documentation, like an unmatched backtick run. (A sentinel opener is decided at
   * its bar, after the escaped `<`, and its block's later lines would open markup of their own.)
   */
  private escapedLt = false;

  get inDoc(): boolean {
    return (
      this.span !== 0 ||
      this.escapedLt ||
      this.tick > 0 ||
      this.tag !== Tag.None ||
      this.end !== "" ||
      this.element !== "" ||
      this.bracket > 0 ||
      this.math ||
      this.links.inDoc ||
      this.definition.inDoc
    );
  }

  /** At a continuation line's start: the paragraph so far is only link reference definitions. */
  get onlyDefinitions(): boolean {
    return this.definition.only;
  }

  /** A paragraph starts (not a heading or table row): a link reference definition may open it. */
  paragraphStart(): void {
    this.definition.paragraphStart();
  }

  /** Same contract as BlockReader.step (doc-blocks.ts): with take false only what `c` decides about earlier characters. */
  step(c: number, take: boolean): void {
    // A link's destination-and-title or a definition that `c` cannot continue was prose.
    if (this.bracketClosed && c !== LPAREN) this.bracketClosed = false;
    this.links.dropFailed(c);
    this.definition.dropFailed(c);
    if (this.tick > 0 && c !== BACKTICK) this.closeRun();
    if (this.dollar > 0 && c !== DOLLAR) {
      if (this.dollar >= 2) this.math = !this.math;
      this.dollar = 0;
    }
    if (this.tag !== Tag.None && this.tagNext(c) === FAIL) {
      // Not a tag: its characters were text, and a backtick in a "value" may have opened a code span.
      if (this.tagTick) this.span = -1;
      this.tag = Tag.None;
    }
    if (!take) return;
    this.tagClosed = false;
    // Open links and a definition read `c` first; one that completes puts the inline state back (`c` is no prose).
    let done = false;
    const before = this.links.step(c);
    if (before) {
      this.restore(before);
      done = true;
    }
    if (this.bracketClosed) {
      // `](`: a destination opens (after the links already open read the `(`).
      this.bracketClosed = false;
      this.links.open(this.bracket, this.element, this.math, this.escapedLt);
    }
    if (this.definition.step(c)) {
      this.clearInline();
      done = true;
    }
    if (done) return;
    if (this.tag !== Tag.None) {
      this.tagStep(c);
      return;
    }
    if (this.end !== "") {
      this.endPos = matchStep(this.end, this.endPos, c);
      if (this.endPos === this.end.length) this.end = "";
      return;
    }
    if (this.escaped) {
      this.escaped = false;
      if (c === LT) this.escapedLt = true;
      if (isAsciiPunctuation(c)) return;
    }
    if (c === BACKTICK) {
      this.tick++;
      return;
    }
    if (this.span !== 0) return;
    switch (c) {
      case BACKSLASH:
        this.escaped = true;
        return;
      case LT:
        this.tag = Tag.Lt;
        this.tagName = "";
        this.tagClose = false;
        this.tagTick = false;
        return;
      case LBRACKET:
        this.bracket++;
        return;
      case RBRACKET:
        if (this.bracket > 0) {
          this.bracket--;
          // Link text closed: a `(` right after it opens the destination.
          this.bracketClosed = true;
        }
        return;
      case DOLLAR:
        this.dollar++;
        return;
    }
  }

  /** The line ended: a run ends, and a tag reads the line end as whitespace. */
  endLine(): void {
    this.step(LF, true);
  }

  /** A backtick run of `length` read as paragraph text (a fence opener that was not one). */
  openedSpan(length: number): void {
    this.definition.cancel();
    if (this.span === 0) this.span = length;
    // It closed the open span: what followed on its line was not read, so assume the worst.
    else if (this.span === length) this.span = -1;
  }

  /** After markup the engine removed: outside any span. */
  afterMarkup(): void {
    this.reset();
  }

  /** The paragraph ended. */
  reset(): void {
    this.clearInline();
    this.definition.cancel();
  }

  /** Everything but a reference definition being read: a paragraph's state at its start. */
  private clearInline(): void {
    this.links.reset();
    this.clearProse();
  }

  /** Everything but the links and a reference definition being read. */
  private clearProse(): void {
    this.bracketClosed = false;
    this.span = 0;
    this.tick = 0;
    this.tag = Tag.None;
    this.end = "";
    this.endPos = 0;
    this.element = "";
    this.bracket = 0;
    this.dollar = 0;
    this.math = false;
    this.escaped = false;
    this.escapedLt = false;
    this.tagClosed = false;
  }

  /**
   * A link completed (InlineLinks dropped it and those opened inside it): the inline state before
   * its `(` (the rest was neutral right after a `]`), whatever its characters did as prose.
   */
  private restore(before: InlineBefore): void {
    this.clearProse();
    this.bracket = before.bracket;
    this.element = before.element;
    this.math = before.math;
    this.escapedLt = before.escapedLt;
  }

  private closeRun(): void {
    const n = this.tick;
    this.tick = 0;
    if (this.span === 0) this.span = n;
    else if (this.span === n) this.span = 0;
  }

  private tagStep(c: number): void {
    const next = this.tagNext(c);
    if (next === BODY) {
      this.end = this.tag === Tag.BangDash ? "-->" : this.tag === Tag.Cdata ? "]]>" : this.tag === Tag.Lt ? "?>" : ">";
      // `<!-->` and `<!--->` are complete comments: the two dashes count toward `-->`.
      this.endPos = this.tag === Tag.BangDash ? 2 : 0;
      this.tag = Tag.None;
      return;
    }
    if (next === DONE) {
      this.tag = Tag.None;
      this.tagClosed = true;
      if (!this.tagClose && this.element === "" && EXAMPLE_ELEMENTS.has(this.tagName)) this.element = this.tagName;
      else if (this.tagClose && this.tagName === this.element) this.element = "";
      return;
    }
    if (next === Tag.Name || next === Tag.CloseName) {
      if (this.tag === Tag.CloseStart) this.tagClose = true;
      if (this.tagName.length <= NAME_LIMIT) this.tagName += lower(c);
    } else if (next === Tag.Cdata) this.cdata = this.tag === Tag.Bang ? 1 : this.cdata + 1;
    else if ((next === Tag.Double || next === Tag.Single) && c === BACKTICK) this.tagTick = true;
    this.tag = next;
  }

  /** The state after `c`, FAIL when `c` cannot continue the tag, DONE or BODY when it completes an opener. */
  private tagNext(c: number): number {
    const ws = c === SP || c === TAB || c === LF;
    const nameStart = isLetter(c) || c === UNDERSCORE || c === COLON;
    switch (this.tag) {
      case Tag.Lt:
        if (isLetter(c)) return Tag.Name;
        if (c === SLASH) return Tag.CloseStart;
        if (c === BANG) return Tag.Bang;
        return c === QUESTION ? BODY : FAIL;
      case Tag.Bang:
        if (c === DASH) return Tag.BangDash;
        if (c === LBRACKET) return Tag.Cdata;
        return isLetter(c) ? BODY : FAIL;
      case Tag.BangDash:
        return c === DASH ? BODY : FAIL;
      case Tag.Cdata:
        if (c !== CDATA.charCodeAt(this.cdata)) return FAIL;
        return this.cdata === CDATA.length - 1 ? BODY : Tag.Cdata;
      case Tag.Name:
        if (isLetter(c) || isDigit(c) || c === DASH) return Tag.Name;
        return ws ? Tag.AttrSep : c === SLASH ? Tag.SelfClose : c === GT ? DONE : FAIL;
      case Tag.AttrSep:
        if (ws) return Tag.AttrSep;
        if (nameStart) return Tag.AttrName;
        return c === SLASH ? Tag.SelfClose : c === GT ? DONE : FAIL;
      case Tag.AttrName:
        if (nameStart || isDigit(c) || c === DOT || c === DASH) return Tag.AttrName;
        if (ws) return Tag.AfterAttr;
        return c === EQ ? Tag.BeforeValue : c === SLASH ? Tag.SelfClose : c === GT ? DONE : FAIL;
      case Tag.AfterAttr:
        if (ws) return Tag.AfterAttr;
        if (nameStart) return Tag.AttrName;
        return c === EQ ? Tag.BeforeValue : c === SLASH ? Tag.SelfClose : c === GT ? DONE : FAIL;
      case Tag.BeforeValue:
        if (ws) return Tag.BeforeValue;
        if (c === DQ) return Tag.Double;
        if (c === SQ) return Tag.Single;
        return c === GT || c === EQ || c === LT || c === BACKTICK ? FAIL : Tag.Unquoted;
      case Tag.Unquoted:
        if (ws) return Tag.AttrSep;
        if (c === GT) return DONE;
        return c === DQ || c === SQ || c === EQ || c === LT || c === BACKTICK ? FAIL : Tag.Unquoted;
      case Tag.Double:
        return c === DQ ? Tag.AfterValue : Tag.Double;
      case Tag.Single:
        return c === SQ ? Tag.AfterValue : Tag.Single;
      case Tag.AfterValue:
        if (ws) return Tag.AttrSep;
        return c === SLASH ? Tag.SelfClose : c === GT ? DONE : FAIL;
      case Tag.SelfClose:
        return c === GT ? DONE : FAIL;
      case Tag.CloseStart:
        return isLetter(c) ? Tag.CloseName : FAIL;
      case Tag.CloseName:
        if (isLetter(c) || isDigit(c) || c === DASH) return Tag.CloseName;
        return ws ? Tag.CloseWs : c === GT ? DONE : FAIL;
      case Tag.CloseWs:
        if (ws) return Tag.CloseWs;
        return c === GT ? DONE : FAIL;
      default:
        return FAIL;
    }
  }
}

/** One character through a search for `target` (`-->`, `?>`, `>`, `]]>`): the length now matched. */
export function matchStep(target: string, pos: number, c: number): number {
  if (c === target.charCodeAt(pos)) return pos + 1;
  if (c !== target.charCodeAt(0)) return 0;
  // `--->`: the matched prefix is all one character, so a repeat of it keeps the match.
  for (let i = 1; i < pos; i++) if (target.charCodeAt(i) !== c) return 1;
  return pos > 0 ? pos : 1;
}
