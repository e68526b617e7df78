import { DocContext } from "./doc-context.ts";

/**
 * Documentation context for reading content the request gave the model (the echo guard), never a
 * reply: a quote inside a fence, a code span or a blockquote of a file is still given content, so
 * nothing here is documentation, and every word start counts as a line start (a `<shell>` or a
 * residue name mid-line in a file may be echoed on its own line). Word starts, not every
 * character, keep the residue check linear.
 */
export class QuoteBlindContext extends DocContext {
  private afterWord = false;

  override inDoc(): boolean {
    return false;
  }

  override get midLine(): boolean {
    return false;
  }

  override atLineStart(): boolean {
    return !this.afterWord;
  }

  override atParagraphStart(): boolean {
    return !this.afterWord;
  }

  override atTopLevelParagraphStart(): boolean {
    return !this.afterWord;
  }

  /** Given content is never documentation: no value read as a quote's either. */
  override noteLooseTag(): boolean {
    return false;
  }

  override afterMarkup(): void {
    this.afterWord = false;
  }

  override advanceText(text: string, from = 0, to = text.length): void {
    if (to > from) this.advance(text.charCodeAt(to - 1));
  }

  override advance(c: number): void {
    this.afterWord = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
  }
}
