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
 * An autolink (`<http://…>`, `<a@b.c>`) is no documentation, but opaque: nothing inside it opens
 * any of them.
 *
 * The raw HTML and autolink readers (doc-tag-attempt.ts, pending in doc-tags.ts) and the link readers run beside the inline state
 * here, which goes on as if their characters were prose: one that fails leaves it as CommonMark
 * then has it (the `<` of a failed tag is text and what followed it is read again: a `[`, `<!--`
 * or `<tag` inside its "attribute value" opened its own construct; a `](` among a failed link's
 * characters opened a link of its own); one that completes puts back the inline state from
 * before it (a saved copy of four fields: O(1), whatever the length) and drops the readers opened
 * after it, which were inside it. Up to 8 of each kind are followed at once, more make the
 * paragraph documentation until one opened before them completes.
 */
import { BACKSLASH, BACKTICK, DOLLAR, LBRACKET, LF, LPAREN, LT, RBRACKET, isAsciiPunctuation } from "../grammar/chars.ts";
import { type InlineBefore, InlineLinks, ReferenceDefinition } from "./doc-links.ts";
import { Outcome, matchStep } from "./doc-tag-attempt.ts";
import { InlineTags } from "./doc-tags.ts";

const EXAMPLE_ELEMENTS = new Set(["code", "kbd", "pre", "samp"]);

export class InlineContext {
  /** Open code span's run length; -1: open with an unknown length, until the paragraph ends. */
  private span = 0;
  /** Backtick run being read. */
  private tick = 0;
  /** End of the comment, processing instruction, declaration or CDATA being read. */
  private end = "";
  private endPos = 0;
  private element = "";
  private bracket = 0;
  private dollar = 0;
  private math = false;
  /** The opening number (seq) of the tag attempt the last character opened, else 0. */
  openedTag = 0;
  /** The opening number of the open or closing tag the last character completed, else 0. */
  closedTag = 0;
  /** That tag's lower-cased name (at most 13 characters). */
  closedTagName = "";

  /** A backslash outside a code span: the next ASCII punctuation character is literal. */
  private escaped = false;

  /** The last character was a `]` that closed link text: a `(` right after it opens a destination. */
  private bracketClosed = false;
  /** Openings of links and tags, in order (InlineBefore.seq): the last one. */
  private seq = 0;
  private readonly links = new InlineLinks();
  private readonly tags = new InlineTags();
  private readonly definition = new ReferenceDefinition();

  /** Nothing pending: until the next backtick, `<`, `[`, `]`, `$`, backslash or line end, nothing changes. */
  get quiet(): boolean {
    return this.tick === 0 && !this.tags.pending && this.end === "" && this.dollar === 0 && !this.escaped && !this.bracketClosed && !this.links.reading && this.definition.idle;
  }

  /** The tag attempt opened as `seq` (openedTag) is pending and may still be an open or closing tag. */
  tagPending(seq: number): boolean {
    return this.tags.tagPending(seq);
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
      this.tags.inDoc ||
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
    // A link's destination-and-title, a tag, an autolink or a definition that `c` cannot continue was prose.
    if (this.bracketClosed && c !== LPAREN) this.bracketClosed = false;
    this.links.dropFailed(c);
    this.tags.dropFailed(c);
    this.definition.dropFailed(c);
    if (this.tick > 0 && c !== BACKTICK) this.closeRun();
    if (this.dollar > 0 && c !== DOLLAR) {
      if (this.dollar >= 2) this.math = !this.math;
      this.dollar = 0;
    }
    if (!take) return;
    this.openedTag = 0;
    this.closedTag = 0;
    // Open links, tags and a definition read `c` first; one that completes puts the inline state back (`c` is no prose).
    let done = false;
    const before = this.links.step(c);
    if (before) {
      this.restore(before);
      done = true;
    }
    const attempt = this.tags.step(c);
    if (attempt) {
      this.restore(attempt);
      this.tagDone(attempt.seq, attempt.name, attempt.close, attempt.body, attempt.bodyPos);
      done = true;
    }
    if (this.bracketClosed) {
      // `](`: a destination opens (after the links already open read the `(`).
      this.bracketClosed = false;
      this.links.open(++this.seq, this.bracket, this.element, this.math, this.escapedLt);
    }
    if (this.definition.step(c)) {
      this.clearInline();
      done = true;
    }
    if (done) return;
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
        // A tag or an autolink may open: read on as if the `<` were text until it completes.
        this.openedTag = ++this.seq;
        this.tags.open(this.seq, this.bracket, this.element, this.math, this.escapedLt);
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
    this.tags.reset();
    this.clearProse();
  }

  /** Everything but the links, tags and a reference definition being read. */
  private clearProse(): void {
    this.bracketClosed = false;
    this.span = 0;
    this.tick = 0;
    this.end = "";
    this.endPos = 0;
    this.element = "";
    this.bracket = 0;
    this.dollar = 0;
    this.math = false;
    this.escaped = false;
    this.escapedLt = false;
    this.openedTag = 0;
    this.closedTag = 0;
  }

  /**
   * A link or a tag completed (and those opened after it were dropped): the inline state before
   * its `(` or `<` (the rest was neutral there), whatever its characters did as prose.
   */
  private restore(before: InlineBefore): void {
    this.clearProse();
    this.links.dropAfter(before.seq);
    this.tags.dropAfter(before.seq);
    this.bracket = before.bracket;
    this.element = before.element;
    this.math = before.math;
    this.escapedLt = before.escapedLt;
  }

  /** What a completed tag attempt leaves: an example element opened or closed, or a comment's (…) end to look for. */
  private tagDone(seq: number, name: string, close: boolean, body: string, bodyPos: number): void {
    if (this.tags.outcome === Outcome.Body) {
      // Its end may already be matched (`<!-->`, or read while an e-mail autolink was possible).
      if (bodyPos < body.length) {
        this.end = body;
        this.endPos = bodyPos;
      }
      return;
    }
    if (this.tags.outcome !== Outcome.Tag) return;
    this.closedTag = seq;
    this.closedTagName = name;
    if (!close && this.element === "" && EXAMPLE_ELEMENTS.has(name)) this.element = name;
    else if (close && name === this.element) this.element = "";
  }

  private closeRun(): void {
    const n = this.tick;
    this.tick = 0;
    if (this.span === 0) this.span = n;
    else if (this.span === n) this.span = 0;
  }
}
