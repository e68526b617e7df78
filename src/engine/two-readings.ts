import { DocContext } from "./doc-context.ts";
import { LT } from "../grammar/chars.ts";
import type { Tag } from "../grammar/tags.ts";
import type { ToolSpec } from "../parse/types.ts";

/**
 * The documentation context of a reply that may continue a prefill or may start a fresh message
 * (src/wires/prefill.ts: a trailing assistant turn the server is not known to continue). Both
 * readings follow the reply, each in a DocContext of its own: `asContinued` from where the
 * prefill left it, `asFresh` from a new document. Every question gets the more guarded answer:
 * documentation where either reading says so, a line start (or a paragraph start) only where both
 * are, quiet mid-line only where both are, indented as the more indented of the two. So a
 * candidate opens only where both readings would open it: a fence the prefill opened and one the
 * reply opens alike keep the example inside them. Where the readings agree (a prefill like
 * "Sure." and a leak) the reply is read as either would read it.
 *
 * Only the public questions and moves of DocContext are answered here, each by asking both
 * readings; this object's own inherited state is never fed, so none of them may be left
 * un-overridden (the engine uses no others). It costs a second context only for such a reply.
 */
export class TwoReadings extends DocContext {
  private readonly asFresh = new DocContext();

  constructor(private readonly asContinued: DocContext) {
    super();
  }

  override afterMarkup(): void {
    this.asContinued.afterMarkup();
    this.asFresh.afterMarkup();
  }

  override partEnded(): void {
    this.asContinued.partEnded();
    this.asFresh.partEnded();
  }

  override advanceText(text: string, from = 0, to = text.length): void {
    this.asContinued.advanceText(text, from, to);
    this.asFresh.advanceText(text, from, to);
  }

  /** Each reading reads the released text's quoted tags where it holds them (as readQuotedTag reads them). */
  override advanceReleased(text: string, tools: ReadonlyMap<string, ToolSpec>): void {
    this.asContinued.advanceReleased(text, tools);
    this.asFresh.advanceReleased(text, tools);
  }

  override noteLooseTag(tag: Tag): boolean {
    const continued = this.asContinued.noteLooseTag(tag);
    const fresh = this.asFresh.noteLooseTag(tag);
    return continued || fresh;
  }

  /** Grows whenever either reading opens one (only growth is asked). */
  override get looseValues(): number {
    return this.asContinued.looseValues + this.asFresh.looseValues;
  }

  /** Taken from both readings (each is reset): the later end either read. */
  override takeLooseTagEnd(): number {
    const continued = this.asContinued.takeLooseTagEnd();
    const fresh = this.asFresh.takeLooseTagEnd();
    return Math.max(continued, fresh);
  }

  override advance(c: number): void {
    this.asContinued.advance(c);
    this.asFresh.advance(c);
  }

  override advanceAt(s: string, j: number, c = s.charCodeAt(j)): void {
    this.asContinued.advanceAt(s, j, c);
    this.asFresh.advanceAt(s, j, c);
  }

  override inDoc(c = LT): boolean {
    // Both are asked: a question settles what `c` decides about earlier characters in each.
    const continued = this.asContinued.inDoc(c);
    const fresh = this.asFresh.inDoc(c);
    return continued || fresh;
  }

  /** Both readings' depths in one number: equal to another answer only where both readings are (a block closer ends the stray watch only then). */
  override containerDepth(c: number): number {
    const continued = this.asContinued.containerDepth(c);
    const fresh = this.asFresh.containerDepth(c);
    return continued * 0x10000 + fresh;
  }

  override get readsQuotedTags(): boolean {
    return this.asContinued.readsQuotedTags || this.asFresh.readsQuotedTags;
  }

  override get quoting(): boolean {
    return this.asContinued.quoting || this.asFresh.quoting;
  }

  /** Noted by each reading that reads it as a quoted call's tag (in documentation or its quote's tail), read on by both. */
  override readQuotedTag(tag: Tag, text: string, tools: ReadonlyMap<string, ToolSpec>): void {
    this.asContinued.readQuotedTag(tag, text, tools);
    this.asFresh.readQuotedTag(tag, text, tools);
  }

  override get inQuoteTail(): boolean {
    return this.asContinued.inQuoteTail || this.asFresh.inQuoteTail;
  }

  /** Each reading settles its own wait; the caller waits while either cannot tell yet. */
  override settleTailAt(s: string, j: number, final: boolean): boolean {
    const continued = this.asContinued.settleTailAt(s, j, final);
    const fresh = this.asFresh.settleTailAt(s, j, final);
    return continued && fresh;
  }

  override takesInTail(tag: Tag, tools?: ReadonlyMap<string, ToolSpec>): boolean {
    return this.asContinued.takesInTail(tag, tools) || this.asFresh.takesInTail(tag, tools);
  }

  override get midLine(): boolean {
    return this.asContinued.midLine && this.asFresh.midLine;
  }

  /**
   * The larger indentation: a candidate's indented block ends at a blank line followed by a line
   * indented less (src/engine/candidate.ts), so the larger one gives the markup up first.
   */
  override quoteIndent(c = LT): number {
    return Math.max(this.asContinued.quoteIndent(c), this.asFresh.quoteIndent(c));
  }

  override atLineStart(c = LT): boolean {
    const continued = this.asContinued.atLineStart(c);
    const fresh = this.asFresh.atLineStart(c);
    return continued && fresh;
  }

  override atParagraphStart(c = LT): boolean {
    const continued = this.asContinued.atParagraphStart(c);
    const fresh = this.asFresh.atParagraphStart(c);
    return continued && fresh;
  }

  override atTopLevelParagraphStart(c = LT): boolean {
    const continued = this.asContinued.atTopLevelParagraphStart(c);
    const fresh = this.asFresh.atTopLevelParagraphStart(c);
    return continued && fresh;
  }
}
