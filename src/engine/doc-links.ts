/**
 * The Markdown link readers of the inline documentation tracker (doc-inline.ts), read as
 * commonmark.js reads them:
 * - an inline link's destination and title: from the `(` right after a link text's `]` to its
 *   `)` (`<…>` or a bare destination with balanced parentheses, then after a space or one line
 *   end a title in '…', "…" or (…), which may span lines); `[text] (…)` with a space, or a `(…)`
 *   after no link text, is prose;
 * - a link reference definition at a paragraph's start (the block reader, doc-blocks.ts, says where one starts):
 *   `[label]:`, its destination and its title (on its line or the next), until the line ending it.
 * Both read "a destination, then an optional title" with one LinkTarget: they differ only in the
 * character that ends it (the link's `)`, the definition's line end) and in what frames it.
 *
 * They run beside the ordinary inline state, which goes on as if their characters were prose: if
 * one fails (a character it cannot take), CommonMark reads those characters again as prose, which
 * is the state the inline context then has; if it completes, the inline context puts its state
 * back to what it was before it. Until it completes or fails, it is documentation: a call inside a
 * title that later fails was documentation, a missed repair, never a wrong execution. A tab where
 * CommonMark wants a space (`[a](/u	'title')`) makes no link, as in commonmark.js.
 *
 * That holds for a title that never closes too (`[x]: /u` then `'t` and a call on the next lines:
 * commonmark.js then ends the definition at its destination and shows the rest as a paragraph,
 * where the call would run). It is not decided later, for two reasons: in the title the call's
 * trigger is documentation, so no candidate opens and nothing is held (deciding at the paragraph's
 * end would mean holding the finished call and all the text after it until then, and reading that
 * text again, in the engine, not here); and the end of the text is not known to end the paragraph,
 * since a reply's later part reads on in this context (EngineOptions.continues) and may close the
 * title there (test/hostile/review-44-docs.test.ts pins both).
 */
import { BACKSLASH, COLON, DQ, FF, GT, LBRACKET, LF, LPAREN, LT, RBRACKET, RPAREN, SP, SQ, TAB, VT, isAsciiPunctuation } from "../grammar/chars.ts";

/** Where a LinkTarget is. */
const Part = {
  /** Spaces and at most one line end before the destination. */
  Before: 0,
  /** A bare destination (balanced parentheses, no whitespace). */
  Bare: 1,
  /** A `<…>` destination. */
  Angle: 2,
  /** Right after a `<…>` destination: whitespace, or the end. */
  AfterAngle: 3,
  /** Whitespace after the destination: a title may open, or the end. */
  AfterDest: 4,
  Title: 5,
  /** After the title: whitespace, then the end. */
  AfterTitle: 6,
} as const;

/**
 * A link destination followed by an optional title (commonmark.js parseLinkDestination and
 * parseLinkTitle, with the spaces around them), until its end character: O(1) a character, no
 * allocation.
 */
class LinkTarget {
  private part: number = Part.Before;
  /** Open parentheses in a bare destination. */
  private depth = 0;
  /** The title's closing delimiter. */
  private close = 0;
  /** A backslash: the next ASCII punctuation character is literal. */
  private esc = false;

  /** `end`: the character that ends it where it may end (an inline link's `)`, a definition's line end). */
  constructor(private readonly end: number) {}

  start(): void {
    this.part = Part.Before;
    this.depth = 0;
    this.esc = false;
  }

  /** It ended after its title (it can end without one). */
  get titled(): boolean {
    return this.part === Part.AfterTitle;
  }

  /** Whether `c` can continue it. */
  takes(c: number): boolean {
    if (this.endsAt(c)) return true;
    switch (this.part) {
      case Part.Before:
        // spnl takes spaces only: a tab (or another whitespace) is no destination, and a `)` closes none.
        return c !== TAB && c !== VT && c !== FF && c !== RPAREN;
      case Part.Bare:
        if (this.esc && isAsciiPunctuation(c)) return true;
        if (c === RPAREN) return this.depth > 0;
        if (c === SP || c === LF) return this.depth === 0;
        return c !== TAB && c !== VT && c !== FF;
      case Part.Angle:
        if (c === LF) return false;
        return this.esc || c !== LT;
      case Part.AfterAngle:
      case Part.AfterTitle:
        return c === SP || c === LF;
      case Part.AfterDest:
        return c === SP || c === LF || c === SQ || c === DQ || c === LPAREN;
      case Part.Title:
        return this.esc || !(this.close === RPAREN && c === LPAREN);
      default:
        return false;
    }
  }

  /** `c`, which it takes: true when `c` is its end character and ended it. */
  step(c: number): boolean {
    if (this.endsAt(c)) return true;
    switch (this.part) {
      case Part.Before:
        if (c === SP || c === LF) return false;
        this.esc = false;
        if (c === LT) this.part = Part.Angle;
        else {
          this.part = Part.Bare;
          this.depth = 0;
          this.bareStep(c);
        }
        return false;
      case Part.Bare:
        this.bareStep(c);
        return false;
      case Part.Angle:
        if (this.closedBy(c, GT)) this.part = Part.AfterAngle;
        return false;
      case Part.AfterAngle:
        this.part = Part.AfterDest;
        return false;
      case Part.AfterDest:
        if (c === SQ || c === DQ || c === LPAREN) this.openTitle(c);
        return false;
      case Part.Title:
        if (this.closedBy(c, this.close)) this.part = Part.AfterTitle;
        return false;
      default:
        return false;
    }
  }

  /** A title opened by `c` (' " or `(`), closed by the same character (`)` for `(`). */
  openTitle(c: number): void {
    this.part = Part.Title;
    this.close = c === LPAREN ? RPAREN : c;
    this.esc = false;
  }

  /**
   * `c` is the end character where it may end: after the destination or the title, not inside
   * them nor escaped; before the destination only a `)` ends it (an empty destination), since a
   * line end there is spacing.
   */
  private endsAt(c: number): boolean {
    if (c !== this.end) return false;
    switch (this.part) {
      case Part.Before:
        return c !== LF;
      case Part.Bare:
        return this.depth === 0 && !(this.esc && isAsciiPunctuation(c));
      case Part.AfterAngle:
      case Part.AfterDest:
      case Part.AfterTitle:
        return true;
      default:
        return false;
    }
  }

  /** A bare destination's character: parentheses balance, a backslash escapes punctuation, whitespace ends it. */
  private bareStep(c: number): void {
    if (this.esc) {
      this.esc = false;
      if (isAsciiPunctuation(c)) return;
    }
    if (c === BACKSLASH) this.esc = true;
    else if (c === LPAREN) this.depth++;
    else if (c === RPAREN) this.depth--;
    else if (c === SP || c === LF) this.part = Part.AfterDest;
  }

  /** A `<…>` destination's or a title's character: whether it is their unescaped `close`. */
  private closedBy(c: number, close: number): boolean {
    if (this.esc) this.esc = false;
    else if (c === BACKSLASH) this.esc = true;
    else return c === close;
    return false;
  }
}

/**
 * The inline state before a link's `(` or a tag's `<` (doc-tag-attempt.ts), put back when it completes;
 * `seq` numbers the openings of both kinds in order (what opened after one that completes was
 * inside it).
 */
export interface InlineBefore {
  readonly bracket: number;
  readonly element: string;
  readonly math: boolean;
  readonly escapedLt: boolean;
  readonly seq: number;
}

/** At most this many links open inside each other's destination-and-title are told apart. */
const MAX_TAILS = 8;

/** An inline link's `(destination "title")`, after its link text's `]` (commonmark.js parseCloseBracket). */
class LinkTail implements InlineBefore {
  readonly target = new LinkTarget(RPAREN);
  bracket = 0;
  element = "";
  math = false;
  escapedLt = false;
  seq = 0;
}

/**
 * The inline links whose destination-and-title is being read, outermost first. One that fails
 * leaves the others (CommonMark reads its characters again as prose, where a later `](` opens a
 * link); one that completes drops those opened inside it (links here, tags in doc-tags.ts: both
 * are numbered in one opening order). Up to MAX_TAILS, in a fixed array.
 */
export class InlineLinks {
  private readonly tails: LinkTail[] = Array.from({ length: MAX_TAILS }, () => new LinkTail());
  private count = 0;
  /**
   * More links opened inside each other than MAX_TAILS: the opening number of the first one left
   * out (0: none), documentation until one opened before it completes or the paragraph ends.
   */
  private overflowSeq = 0;

  /** Some link's destination-and-title is being read. */
  get reading(): boolean {
    return this.count > 0;
  }

  get inDoc(): boolean {
    return this.count > 0 || this.overflowSeq !== 0;
  }

  /** `](`: a link's destination-and-title opens as `seq`; the inline state before it is kept for when it completes. */
  open(seq: number, bracket: number, element: string, math: boolean, escapedLt: boolean): void {
    if (this.count === MAX_TAILS) {
      if (this.overflowSeq === 0) this.overflowSeq = seq;
      return;
    }
    const tail = this.tails[this.count++]!;
    tail.target.start();
    tail.bracket = bracket;
    tail.element = element;
    tail.math = math;
    tail.escapedLt = escapedLt;
    tail.seq = seq;
  }

  /** Drops the links `c` cannot continue: their characters were prose. */
  dropFailed(c: number): void {
    for (let i = this.count - 1; i >= 0; i--) if (!this.tails[i]!.target.takes(c)) this.drop(i);
  }

  /**
   * `c` through the open links, outermost first: the inline state before the one whose `)`
   * completed (it and those opened inside it were no prose), or null.
   */
  step(c: number): InlineBefore | null {
    for (let i = 0; i < this.count; i++) {
      const tail = this.tails[i]!;
      if (!tail.target.step(c)) continue;
      this.count = i;
      if (this.overflowSeq > tail.seq) this.overflowSeq = 0;
      return tail;
    }
    return null;
  }

  /** Something opened as `seq` completed (a tag, doc-tags.ts): the links opened after it were inside it. */
  dropAfter(seq: number): void {
    while (this.count > 0 && this.tails[this.count - 1]!.seq > seq) this.count--;
    if (this.overflowSeq > seq) this.overflowSeq = 0;
  }

  reset(): void {
    this.count = 0;
    this.overflowSeq = 0;
  }

  private drop(i: number): void {
    const dropped = this.tails[i]!;
    for (let j = i; j < this.count - 1; j++) this.tails[j] = this.tails[j + 1]!;
    this.tails[--this.count] = dropped;
  }
}

/** Where a reference definition is (commonmark.js parseReference). */
const Def = {
  None: 0,
  /** A paragraph's line where a definition may start: it does if the line opens with `[`. */
  Start: 1,
  Label: 2,
  /** After the label's `]`: a `:` must follow. */
  Colon: 3,
  /** Its destination and title, until the line end after them. */
  Target: 4,
  /**
   * The destination ended its line, so the definition holds (without a title): the next line
   * may hold its title, or start another definition, or be prose.
   */
  NextLine: 5,
} as const;

/** A label is at most 999 characters. */
const LABEL_LIMIT = 999;

/** A link reference definition `[label]: destination 'title'` at a paragraph's start. */
export class ReferenceDefinition {
  private state: number = Def.None;
  private readonly target = new LinkTarget(LF);
  private labelLength = 0;
  private labelEsc = false;
  /** The label holds only whitespace so far (such a label defines nothing). */
  private labelBlank = true;

  /** Nothing is being read and none may start. */
  get idle(): boolean {
    return this.state === Def.None;
  }

  /**
   * At a continuation line's start: every line of the paragraph so far was a confirmed
   * definition (a new paragraph's first character leaves Start at once), so nothing is left of
   * it once they are removed: an underline under it makes no setext heading (commonmark.js).
   */
  get only(): boolean {
    return this.state === Def.Start || this.state === Def.NextLine;
  }

  /** Its label, destination or title is being read: not confirmed yet. */
  get inDoc(): boolean {
    return this.state === Def.Label || this.state === Def.Colon || this.state === Def.Target;
  }

  /** A paragraph starts (not a heading or table row): a definition may open it. */
  paragraphStart(): void {
    this.state = Def.Start;
  }

  cancel(): void {
    this.state = Def.None;
  }

  /** Cancels it if `c` cannot continue it: its characters were prose. */
  dropFailed(c: number): void {
    if (this.state !== Def.None && !this.takes(c)) this.state = Def.None;
  }

  /** `c` through it (which takes it): true when a line end confirmed it (its text was no prose). */
  step(c: number): boolean {
    switch (this.state) {
      case Def.Start:
      case Def.NextLine:
        if (c === LBRACKET) {
          this.state = Def.Label;
          this.labelLength = 0;
          this.labelBlank = true;
          this.labelEsc = false;
        } else {
          // A title on the line after the destination.
          this.state = Def.Target;
          this.target.openTitle(c);
        }
        return false;
      case Def.Label:
        this.labelStep(c);
        return false;
      case Def.Colon:
        this.state = Def.Target;
        this.target.start();
        return false;
      case Def.Target:
        if (!this.target.step(c)) return false;
        // After a title the next line may start another definition; after a destination, also hold its title.
        this.state = this.target.titled ? Def.Start : Def.NextLine;
        return true;
      default:
        return false;
    }
  }

  private takes(c: number): boolean {
    switch (this.state) {
      case Def.Start:
        return c === LBRACKET;
      case Def.Label:
        if (this.labelEsc) return true;
        if (c === RBRACKET) return !this.labelBlank;
        return c !== LBRACKET && this.labelLength < LABEL_LIMIT;
      case Def.Colon:
        return c === COLON;
      case Def.Target:
        return this.target.takes(c);
      case Def.NextLine:
        return c === SQ || c === DQ || c === LPAREN || c === LBRACKET;
      default:
        return false;
    }
  }

  private labelStep(c: number): void {
    this.labelLength++;
    if (this.labelEsc) {
      this.labelEsc = false;
      this.labelBlank = false;
    } else if (c === RBRACKET) this.state = Def.Colon;
    else if (c === BACKSLASH) {
      this.labelEsc = true;
      this.labelBlank = false;
    } else if (c !== SP && c !== TAB && c !== LF) this.labelBlank = false;
  }
}
