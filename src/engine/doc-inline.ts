/**
 * Inline documentation inside paragraph, heading and table text (doc-context.ts feeds it the
 * text of one paragraph, line after line). Documentation here:
 * - code spans (a backtick run until a run of the same length; an unmatched run counts as open
 *   until the paragraph ends);
 * - raw HTML: inside a tag (a quoted attribute value holds a quote), a comment, a processing
 *   instruction, a declaration, CDATA; an unfinished tag counts until it fails;
 * - the content of the elements that hold quoted examples: `<code>`, `<kbd>`, `<pre>`, `<samp>`;
 * - link and image text: from `[` to its `]` (whether a `(url)` follows is not known yet);
 * - an inline link's destination and title: from the `(` right after a link text's `]` to its
 *   `)`, read as commonmark.js reads them (`<…>` or a bare destination with balanced
 *   parentheses, then after a space or one line end a title in '…', "…" or (…), which may span
 *   lines); `[text] (…)` with a space, or a `(…)` after no link text, is prose;
 * - a link reference definition at a paragraph's start (DocContext says where one starts):
 *   `[label]:`, its destination and its title (on its line or the next), until the line ending it;
 * - display math: from `$$` to the next `$$`.
 * All of them end with the paragraph. A backslash before ASCII punctuation makes it literal
 * outside code spans, as in CommonMark (an escaped backtick never pairs with a real one).
 *
 * A link's destination-and-title and a reference definition are read by their own small state
 * machines while the ordinary inline state goes on as if the characters were prose: if the
 * construct fails (a character it cannot take), CommonMark reads those characters again as
 * prose, which is the state the inline context then has (a `](` among them opened a link of its
 * own: up to MAX_TAILS links are followed at once, more make the paragraph documentation until
 * one completes); if it completes, the inline state is put back to what it was before it (a
 * saved copy of five fields: O(1), whatever the length). Until it completes or fails, the
 * construct is documentation: a call inside a title that later fails (a title not closed, text
 * after a definition's title on its line) was documentation, a missed repair, never a wrong
 * execution. A tab where CommonMark wants a space (`[a](/u	'title')`) makes no link, as in
 * commonmark.js.
 */
import { BACKSLASH, BACKTICK, BANG, COLON, DASH, DOLLAR, DOT, DQ, EQ, GT, LBRACKET, LF, LT, QUESTION, RBRACKET, RPAREN, SLASH, SP, SQ, TAB, UNDERSCORE, isAsciiPunctuation } from "../grammar/chars.ts";

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

/** States of an inline link's `(destination "title")` after its link text's `]`. */
const Link = {
  None: 0,
  /** After `(`: spaces and at most one line end before the destination. */
  Open: 2,
  /** A bare destination (balanced parentheses, no whitespace). */
  Dest: 3,
  /** A `<…>` destination. */
  Angle: 4,
  /** Right after a `<…>` destination: whitespace, or the `)`. */
  AfterAngle: 5,
  /** Whitespace after the destination: a title may open, or the `)` closes. */
  AfterDest: 6,
  Title: 7,
  /** After the title: spaces and one line end, then the `)`. */
  AfterTitle: 8,
} as const;

/** States of a link reference definition `[label]: destination 'title'` (commonmark.js parseReference). */
const Def = {
  None: 0,
  /** A paragraph's line where a definition may start: it does if the line opens with `[`. */
  Start: 1,
  Label: 2,
  /** After the label's `]`: a `:` must follow. */
  Colon: 3,
  /** Spaces and at most one line end before the destination. */
  BeforeDest: 4,
  Dest: 5,
  Angle: 6,
  AfterAngle: 7,
  /** Spaces after the destination on its line: a title may open, or the line ends. */
  AfterDest: 8,
  /**
   * The destination ended its line, so the definition holds (without a title): the next line
   * may hold its title, or start another definition, or be prose.
   */
  NextLine: 9,
  Title: 10,
  /** After the title: only spaces may follow before the line end. */
  AfterTitle: 11,
} as const;

/** A label is at most 999 characters. */
const LABEL_LIMIT = 999;
const LPAREN = 0x28;
const VT = 0x0b;
const FF = 0x0c;

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
  /**
   * Links whose destination-and-title is being read, outermost first. One that fails leaves the
   * others (CommonMark reads its characters again as prose, where a later `](` opens a link); one
   * that completes drops those opened inside it.
   */
  private readonly tails: LinkTail[] = Array.from({ length: MAX_TAILS }, () => new LinkTail());
  private tailCount = 0;
  /** More links opened inside each other than MAX_TAILS: documentation until one completes or the paragraph ends. */
  private overflow = false;

  // A link reference definition.
  private def: number = Def.None;
  private defDepth = 0;
  private defClose = 0;
  private defEsc = false;
  private defLabel = 0;
  /** The label holds only whitespace so far (such a label defines nothing). */
  private defBlank = true;

  /** Nothing pending: until the next backtick, `<`, `[`, `]`, `$`, backslash or line end, nothing changes. */
  get quiet(): boolean {
    return this.tick === 0 && this.tag === Tag.None && this.end === "" && this.dollar === 0 && !this.escaped && !this.bracketClosed && this.tailCount === 0 && this.def === Def.None;
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
      this.tailCount > 0 ||
      this.overflow ||
      (this.def >= Def.Label && this.def !== Def.NextLine)
    );
  }

  /** A paragraph starts (not a heading or table row): a link reference definition may open it. */
  paragraphStart(): void {
    this.def = Def.Start;
  }

  /** Same contract as DocContext.step: with take false only what `c` decides about earlier characters. */
  step(c: number, take: boolean): void {
    // A link's destination-and-title or a definition that `c` cannot continue was prose.
    if (this.bracketClosed && c !== LPAREN) this.bracketClosed = false;
    for (let i = this.tailCount - 1; i >= 0; i--) if (!this.tails[i]!.takes(c)) this.dropTail(i);
    if (this.def !== Def.None && !this.defTakes(c)) this.def = Def.None;
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
    for (let i = 0; i < this.tailCount; i++) {
      const tail = this.tails[i]!;
      if (!tail.step(c)) continue;
      // Completed: it and what opened inside it were no prose.
      this.tailCount = i;
      this.restore(tail);
      done = true;
      break;
    }
    if (this.bracketClosed) {
      // `](`: a destination opens (after the links already open read the `(`).
      this.bracketClosed = false;
      this.openTail();
    }
    if (this.def !== Def.None && this.defStep(c)) {
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
    this.def = Def.None;
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
    this.def = Def.None;
  }

  /** Everything but a reference definition being read: a paragraph's state at its start. */
  private clearInline(): void {
    this.bracketClosed = false;
    this.tailCount = 0;
    this.overflow = false;
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

  /** `](`: a link's destination-and-title opens; the inline state before it is kept for when it completes. */
  private openTail(): void {
    if (this.tailCount === MAX_TAILS) {
      this.overflow = true;
      return;
    }
    const tail = this.tails[this.tailCount++]!;
    tail.open();
    tail.bracket = this.bracket;
    tail.element = this.element;
    tail.math = this.math;
    tail.escapedLt = this.escapedLt;
    tail.overflow = this.overflow;
  }

  private dropTail(i: number): void {
    const dropped = this.tails[i]!;
    for (let j = i; j < this.tailCount - 1; j++) this.tails[j] = this.tails[j + 1]!;
    this.tails[--this.tailCount] = dropped;
  }

  /** The link completed: the inline state before its `(` (the rest was neutral right after a `]`), whatever its characters did as prose. */
  private restore(tail: LinkTail): void {
    const count = this.tailCount;
    this.clearInline();
    this.tailCount = count;
    this.bracket = tail.bracket;
    this.element = tail.element;
    this.math = tail.math;
    this.escapedLt = tail.escapedLt;
    this.overflow = tail.overflow;
  }

  /** Whether `c` can continue the reference definition (commonmark.js parseReference). */
  private defTakes(c: number): boolean {
    switch (this.def) {
      case Def.Start:
        return c === LBRACKET;
      case Def.Label:
        if (this.defEsc) return true;
        if (c === RBRACKET) return !this.defBlank;
        return c !== LBRACKET && this.defLabel < LABEL_LIMIT;
      case Def.Colon:
        return c === COLON;
      case Def.BeforeDest:
        return c !== TAB && c !== VT && c !== FF && c !== RPAREN;
      case Def.Dest:
        if (this.defEsc && isAsciiPunctuation(c)) return true;
        if (c === RPAREN) return this.defDepth > 0;
        if (c === SP || c === LF) return this.defDepth === 0;
        return c !== TAB && c !== VT && c !== FF;
      case Def.Angle:
        if (c === LF) return false;
        return this.defEsc || c !== LT;
      case Def.AfterAngle:
        return c === SP || c === LF;
      case Def.AfterDest:
        return c === SP || c === LF || c === SQ || c === DQ || c === LPAREN;
      case Def.NextLine:
        return c === SQ || c === DQ || c === LPAREN || c === LBRACKET;
      case Def.Title:
        return this.defEsc || !(this.defClose === RPAREN && c === LPAREN);
      case Def.AfterTitle:
        return c === SP || c === LF;
      default:
        return false;
    }
  }

  /** `c`, which defTakes, through the definition: true when a line end confirmed it (its text was no prose). */
  private defStep(c: number): boolean {
    switch (this.def) {
      case Def.Start:
      case Def.NextLine:
        if (c === LBRACKET) {
          this.def = Def.Label;
          this.defLabel = 0;
          this.defBlank = true;
          this.defEsc = false;
        } else this.openDefTitle(c);
        return false;
      case Def.Label:
        this.defLabel++;
        if (this.defEsc) {
          this.defEsc = false;
          this.defBlank = false;
        } else if (c === RBRACKET) this.def = Def.Colon;
        else if (c === BACKSLASH) {
          this.defEsc = true;
          this.defBlank = false;
        } else if (c !== SP && c !== TAB && c !== LF) this.defBlank = false;
        return false;
      case Def.Colon:
        this.def = Def.BeforeDest;
        return false;
      case Def.BeforeDest:
        if (c === SP || c === LF) return false;
        if (c === LT) {
          this.def = Def.Angle;
          this.defEsc = false;
          return false;
        }
        this.def = Def.Dest;
        this.defDepth = 0;
        this.defEsc = false;
        return this.defDestStep(c);
      case Def.Dest:
        return this.defDestStep(c);
      case Def.Angle:
        if (this.defEsc) this.defEsc = false;
        else if (c === BACKSLASH) this.defEsc = true;
        else if (c === GT) this.def = Def.AfterAngle;
        return false;
      case Def.AfterAngle:
      case Def.AfterDest:
        if (c === LF) return this.defLineEnd();
        if (c === SP) this.def = Def.AfterDest;
        else this.openDefTitle(c);
        return false;
      case Def.Title:
        if (this.defEsc) this.defEsc = false;
        else if (c === BACKSLASH) this.defEsc = true;
        else if (c === this.defClose) this.def = Def.AfterTitle;
        return false;
      case Def.AfterTitle:
        if (c !== LF) return false;
        // Confirmed with its title; the next line may start another definition.
        this.def = Def.Start;
        return true;
      default:
        return false;
    }
  }

  private openDefTitle(c: number): void {
    this.def = Def.Title;
    this.defClose = c === LPAREN ? RPAREN : c;
    this.defEsc = false;
  }

  private defDestStep(c: number): boolean {
    if (this.defEsc) {
      this.defEsc = false;
      if (isAsciiPunctuation(c)) return false;
    }
    if (c === BACKSLASH) this.defEsc = true;
    else if (c === LPAREN) this.defDepth++;
    else if (c === RPAREN) this.defDepth--;
    else if (c === SP) this.def = Def.AfterDest;
    else if (c === LF) return this.defLineEnd();
    return false;
  }

  /** The destination ended its line: the definition holds (its title may follow on the next line). */
  private defLineEnd(): boolean {
    this.def = Def.NextLine;
    return true;
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

/** At most this many links open inside each other's destination-and-title are told apart. */
const MAX_TAILS = 8;

/** An inline link's `(destination "title")`, after its link text's `]` (commonmark.js parseCloseBracket). */
class LinkTail {
  state: number = Link.None;
  private depth = 0;
  /** The title's closing delimiter. */
  private close = 0;
  private esc = false;
  // The inline state before the `(`.
  bracket = 0;
  element = "";
  math = false;
  escapedLt = false;
  overflow = false;

  open(): void {
    this.state = Link.Open;
    this.depth = 0;
    this.esc = false;
  }

  /** Whether `c` can continue it. */
  takes(c: number): boolean {
    switch (this.state) {
      case Link.Open:
        // spnl takes spaces only: a tab (or another whitespace) is no destination.
        return c !== TAB && c !== VT && c !== FF;
      case Link.Dest:
        if (this.esc && isAsciiPunctuation(c)) return true;
        if (c === SP || c === LF) return this.depth === 0;
        return c !== TAB && c !== VT && c !== FF;
      case Link.Angle:
        if (c === LF) return false;
        return this.esc || c !== LT;
      case Link.AfterAngle:
        return c === SP || c === LF || c === RPAREN;
      case Link.AfterDest:
        return c === SP || c === LF || c === RPAREN || c === SQ || c === DQ || c === LPAREN;
      case Link.Title:
        return this.esc || !(this.close === RPAREN && c === LPAREN);
      case Link.AfterTitle:
        return c === SP || c === LF || c === RPAREN;
      default:
        return false;
    }
  }

  /** `c`, which it takes: true when its `)` completed it. */
  step(c: number): boolean {
    switch (this.state) {
      case Link.Open:
        if (c === SP || c === LF) return false;
        if (c === RPAREN) return true;
        if (c === LT) {
          this.state = Link.Angle;
          return false;
        }
        this.state = Link.Dest;
        return this.destStep(c);
      case Link.Dest:
        return this.destStep(c);
      case Link.Angle:
        if (this.esc) this.esc = false;
        else if (c === BACKSLASH) this.esc = true;
        else if (c === GT) this.state = Link.AfterAngle;
        return false;
      case Link.AfterAngle:
        if (c === RPAREN) return true;
        this.state = Link.AfterDest;
        return false;
      case Link.AfterDest:
        if (c === RPAREN) return true;
        if (c === SQ || c === DQ || c === LPAREN) {
          this.state = Link.Title;
          this.close = c === LPAREN ? RPAREN : c;
          this.esc = false;
        }
        return false;
      case Link.Title:
        if (this.esc) this.esc = false;
        else if (c === BACKSLASH) this.esc = true;
        else if (c === this.close) this.state = Link.AfterTitle;
        return false;
      case Link.AfterTitle:
        return c === RPAREN;
      default:
        return false;
    }
  }

  /** A bare destination's character: parentheses balance, a backslash escapes punctuation, whitespace ends it. */
  private destStep(c: number): boolean {
    if (this.esc) {
      this.esc = false;
      if (isAsciiPunctuation(c)) return false;
    }
    if (c === BACKSLASH) this.esc = true;
    else if (c === LPAREN) this.depth++;
    else if (c === RPAREN) {
      if (this.depth === 0) return true;
      this.depth--;
    } else if (c === SP || c === LF) this.state = Link.AfterDest;
    return false;
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
