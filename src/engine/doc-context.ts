import { BlockReader, Mode } from "./doc-blocks.ts";
import { Leaf } from "./doc-open-blocks.ts";
import { CR, LBRACKET, LF, LT, SP, TAB } from "../grammar/chars.ts";
import { Flaw, NEED_MORE, readTag, type Tag } from "../grammar/tags.ts";
import type { ToolSpec } from "../parse/types.ts";
import { quotedTagAt } from "./quoted-tags.ts";
import { QuotedCall, quotedCallOf, quotedView } from "./quoted-dialects.ts";
import { LooseValue } from "./loose-value.ts";
import { openerMayStartAt, QuotedStrings } from "./quoted-strings.ts";

/**
 * Tracks where a reply is documentation, one character at a time, by following CommonMark's
 * block structure the way its reference parser does (commonmark.js, `incorporateLine`): a stack
 * of containers (blockquotes, list items with their content column), the open leaf of the
 * innermost one (paragraph, fence, indented code, HTML block, table), lazy continuation lines,
 * indented code only where a paragraph cannot continue, tabs to the next multiple of 4, and CR,
 * LF and CRLF line ends. Inline documentation (code spans, raw HTML, `<code>`-like elements,
 * link text, a link's destination and title, `$$` math) is the InlineContext's, and so are link
 * reference definitions: a new paragraph tells it that one may start there. test/property/commonmark-oracle.test.ts checks
 * the answers against commonmark.js.
 *
 * Documentation is: code (fenced, indented, spans, a fence's info string), anything inside a
 * blockquote (lazy lines included), raw HTML (blocks of types 1-7, inline tags, comments), table
 * rows, and the inline places of doc-inline.ts (a link's destination and title and a link
 * reference definition among them, read by doc-links.ts); and, from the tags the engine notes,
 * the open value of a call quoted in block documentation, past the end of that block, and the
 * quoted call's own markup after it (noteQuotedTag, the tail: further parameters, its closers).
 * Decisions depend only on earlier characters, so whole-text and chunked runs agree. Where CommonMark's answer depends on later text (a backtick
 * fence whose info string later holds a backtick, an inline tag that may never close) the
 * reading under which more text is documentation is taken: calling a quote documentation only
 * costs a missed repair, running one is a wrong execution.
 *
 * Linear: every character is handled once in O(1) plus at most a few bounded replays (a line
 * start's pending marker, at most 16 characters); containers nest at most MAX_DEPTH deep
 * (doc-open-blocks.ts; deeper nesting is documentation as a whole), so a blank line costs O(1).
 *
 * The reading is split by job: the block reader (doc-blocks.ts) with the open blocks
 * (doc-open-blocks.ts), the construct pending at a block start (doc-block-opener.ts), the open
 * fence (doc-fence.ts), HTML blocks (doc-html.ts) and the shapes decided at a line's end
 * (doc-line-shapes.ts); the inline places (doc-inline.ts, doc-links.ts, and the tag attempts:
 * doc-tags.ts, doc-tag-attempt.ts, doc-tag-reader.ts); a quoted call's tags (quoted-tags.ts,
 * noted here). This class is the engine's view of it: the questions asked while reading.
 */
export class DocContext extends BlockReader {
  /**
   * A call quoted in block documentation (a DSML or Claude-style invoke opener, a DSML tag named
   * after a declared tool, or a Qwen3-Coder, GLM or O09 call's opener (quoted-dialects.ts), read
   * where blockDocNow holds: a fence, indented code, an HTML block or comment, a block quote, a table row) whose value has not closed yet: its value openers, nested
   * ones counted, less their closers. While one is open, everything is documentation, whatever
   * CommonMark says about the block around it: a line inside the value that ends that block (the
   * page's own fence, a blank line, `-->`) is the quoted call's content, and so is a call example
   * after it, up to the value's own closer (golden N45.1-N45.4), and after it the quoted call's own
   * markup (the tail: further parameters, the invoke's and the block's closers). It adds
   * documentation to CommonMark's reading and takes none away (CommonMark's blocks are read on
   * underneath); a quote whose value never closes keeps the rest of the reply documentation (a
   * missed repair, never a wrong execution). Set only from the tags the engine notes
   * (noteQuotedTag).
   */
  private quotedValues = 0;
  /** The quoted call whose values are counted: its opener was read in block documentation and it has not closed. */
  private quotedCall: QuotedCall = QuotedCall.None;
  /** The tool a quoted tool-named element (I11, O09) is named after: its closer is the element's own. */
  private quotedName = "";
  /** The name of a quoted O09 element's open value (its child): only that name's tags open and close it. */
  private quotedKey = "";
  /**
   * The quoted call's own closers after its values (golden N45.5-N45.7): once a quoted
   * value closes, the quote goes on while only the quoted call's own markup follows (white space,
   * its further parameters with their values, the invoke or element closer and the closer of the
   * block the quote opened), whatever CommonMark says about the block around it, so a quote whose
   * block ended inside its value reports none of its closers as stray markup. A closer read in it
   * leaves the quote between calls (review 52): a further call quoted in the same place may follow
   * (takesInTail). Any other character ends it (advance); tags are taken per tag (takesInTail),
   * never per character.
   */
  private tail = false;
  /**
   * A block opener read in block documentation with only white space since (a DSML one, read by its
   * bar; a Claude-style one only once a call was quoted): the quoted call that follows opened it.
   */
  private pendingBlock = false;
  /** The quoted call opened a block: its closer is the quote's last own tag. */
  private quotedBlock = false;
  /** Where a value opens outside any readable call (loose-value.ts): read as a quoted call's value. */
  private readonly loose = new LooseValue();
  private looseCount = 0;
  /** See takeLooseTagEnd. */
  private looseTagEnd = -1;
  /** A call quoted in block documentation whose values are string literals (LFM2, the JSON dialects): quoted-strings.ts. */
  private readonly strings = new QuotedStrings();
  /** The character being advanced starts no string-valued opener, as the text after it shows (advanceAt). */
  private noOpener = false;

  /**
   * Whether a tag at this `<` (asked after inDoc) belongs to a quoted call: in block documentation
   * (not inline: a code span mentioning an opener quotes no call), or inside a quoted value.
   */
  get readsQuotedTags(): boolean {
    // Inside a quoted string-valued call a tag is its text (or a string's), no call of its own.
    if (this.strings.opaque) return false;
    return this.quotedValues > 0 || this.blockDocNow() || this.strings.handsOver(LT);
  }

  /** A quoted call or value is open: its closers and parameter openers count too, not only a call opener. */
  get quoting(): boolean {
    return this.quotedCall !== QuotedCall.None || this.quotedValues > 0 || this.tail;
  }

  /**
   * A DSML or Claude-style tag read where readsQuotedTags held (the engine then advances over it
   * as usual). A DSML opener named after one of `tools` opens a tool-named element (I11). An
   * invoke's values open and close with parameter tags; a tool-named element's with its DSML
   * children.
   */
  private noteQuotedTag(read: Tag, tools: ReadonlyMap<string, ToolSpec>): void {
    // Qwen3-Coder's, GLM's and O09's tags as the invoke, parameter and block tags they stand for.
    const tag = quotedView(read, this.quotedCall, this.quotedValues, this.quotedName, this.quotedKey, tools);
    if (tag === null) {
      // None of the quote's own: it ends a block opener's wait as text does.
      if (this.pendingBlock) this.endQuote();
      return;
    }
    const role = tag.role;
    const toolNamed = !tag.closing && role === "other" && tag.family === "dsml" && tools.has(tag.name);
    // A block opener read just before (white space between) is the block the quoted call opens in.
    const inBlock = this.pendingBlock;
    this.pendingBlock = false;
    if (this.quotedValues === 0) {
      // A tool-named tag inside a tool-named element is one of its values (a parameter named like a tool).
      if (tag.closing ? role === "block" || role === "invoke" : role === "invoke" || (toolNamed && this.quotedCall !== QuotedCall.Element)) {
        // A loose value's call (loose-value.ts) stands outside documentation: nothing after its closer is quoted.
        const loose = this.loose.active;
        this.loose.active = false;
        this.quotedCall = tag.closing || (tag.flaws & Flaw.SelfClosing) !== 0 ? QuotedCall.None : role === "invoke" ? quotedCallOf(tag) : QuotedCall.Element;
        if (this.quotedCall === QuotedCall.Element || this.quotedCall === QuotedCall.Plain) this.quotedName = tag.name;
        // A GLM or O09 quote holds only its own markup from its opener on (their tags are plain words).
        if (this.quotedCall === QuotedCall.Glm || this.quotedCall === QuotedCall.Plain) this.tail = true;
        // A further call in the quote's tail (between calls) is in the block the one before it opened.
        if (!tag.closing) this.quotedBlock = inBlock || (this.tail && this.quotedBlock);
        else if (!this.tail || loose) this.endQuote();
        // A closer in the quote's tail keeps it between calls (review 52): a further call opener,
        // the block's closer, and after that a further block opener (white space between) are the
        // quote's too (takesInTail), whatever CommonMark says of the block around it.
        else if (role === "block") this.quotedBlock = false;
        return;
      }
      if (!tag.closing && role === "block" && this.quotedCall === QuotedCall.None) {
        this.pendingBlock = (tag.flaws & Flaw.SelfClosing) === 0;
        return;
      }
      if (this.quotedCall === QuotedCall.None) return;
    }
    if (this.loose.active && this.quotedValues > 0 && role !== "parameter") {
      // An I11 example in a value opened outside any readable call (loose-value.ts): its element and children are counted.
      const values = this.loose.inValue(tag, this.quotedValues, toolNamed);
      if (values >= 0 && (this.quotedValues = values) === 0) this.tail = true;
      return;
    }
    if (role !== (this.quotedCall === QuotedCall.Element ? "other" : "parameter")) return;
    if (!tag.closing) {
      if (this.quotedValues === 0) this.quotedKey = tag.name;
      if ((tag.flaws & Flaw.SelfClosing) === 0) this.quotedValues++;
    } else if (this.quotedValues > 0) {
      // The quoted call's own markup may follow its value as documentation (the tail).
      if (--this.quotedValues === 0) this.tail = true;
      if (this.loose.active) this.loose.closed(this.quotedValues);
    }
    // A closer between values: the tool's own (I11; the block the quote opened may still close in
    // its tail), or a stray parameter closer; the quote is over.
    else {
      const element = this.quotedCall === QuotedCall.Element && tag.name === this.quotedName;
      this.quotedCall = QuotedCall.None;
      this.loose.active = false;
      if (!(this.tail && element)) this.endQuote();
    }
  }

  /** In a quoted call's tail between its tags (after a value closed, nothing but its own markup since): a `<` may start one of them (takesInTail). */
  get inQuoteTail(): boolean {
    return this.tail && this.quotedValues === 0;
  }

  /**
   * Whether `tag` (read at a `<` in the tail) is the quoted call's own markup: a further parameter
   * or the invoke's closer, a further value or the tool-named element's own closer, or, the call
   * closed, the closer of the block the quote opened. Anything else ends the tail where it stands.
   */
  takesInTail(read: Tag, tools?: ReadonlyMap<string, ToolSpec>): boolean {
    if (!this.inQuoteTail) return false;
    const tag = quotedView(read, this.quotedCall, this.quotedValues, this.quotedName, this.quotedKey, tools);
    if (tag === null) return false;
    const role = tag.role;
    switch (this.quotedCall) {
      case QuotedCall.Invoke:
      case QuotedCall.Glm:
      case QuotedCall.Plain:
        return tag.closing ? role === "invoke" : role === "parameter";
      case QuotedCall.Element:
        return role === "other" && (!tag.closing || tag.name === this.quotedName);
      default:
        // Between calls (the quoted call closed, only white space since): the closer of the block
        // it opened; a further call opener (an invoke, a DSML tag named after a declared tool) is
        // a further call quoted in the same place; the block closed (or none opened), so is a
        // further block opener (review 52), a `<tool_call>` too (Hermes' or Qwen3-Coder's: fx52
        // cross quote); a Claude-style block's closer even unnoted (quoted-tags.ts reads only an
        // invoke opener before a call is quoted).
        if (tag.closing) return role === "block" && (this.quotedBlock || tag.family === "naked");
        if (role === "invoke") return true;
        if (role === "block") return !this.quotedBlock;
        return role === "other" && tag.family === "dsml" && tools !== undefined && tools.has(tag.name);
    }
  }

  /** At a `<` in the tail that is none of the quote's own tags: QuotedStrings.settleAt (false: wait for more text). */
  settleTailAt(s: string, j: number, final: boolean): boolean {
    return this.strings.settleAt(s, j, final);
  }

  /**
   * A quoted call's tag at `text[tag.start]` where documentation holds it (readsQuotedTags) or in
   * the quote's tail (takesInTail): noted, then read as documentation like the rest; its own
   * characters do not end the tail.
   */
  readQuotedTag(tag: Tag, text: string, tools: ReadonlyMap<string, ToolSpec>): void {
    const own = this.takesInTail(tag, tools);
    // Another tag (a second invoke, a stray closer) ends the tail where it stands.
    if (this.inQuoteTail && !own) this.endQuote();
    if (own || (this.inDoc(LT) && this.readsQuotedTags)) {
      const loose = this.loose.active;
      const before = this.quotedValues;
      this.noteQuotedTag(tag, tools);
      // The loose call's own markup at its top level: a value's closer, a further parameter opener, its invoke's closer.
      if (loose && (before === 0 || this.quotedValues === 0)) this.looseTagEnd = tag.end;
    }
    for (let i = tag.start; i < tag.end; i++) {
      const c = text.charCodeAt(i);
      this.readStrings(c);
      super.advance(c);
    }
    // A closer leaving the quote between calls ends a quoted call: a string-valued opener right after it is quoted too (fx52 cross quote).
    if (tag.closing && this.inQuoteTail && this.quotedCall === QuotedCall.None) this.strings.follow();
  }

  /** A character the quoted call's own markup does not hold ends its tail (white space does not). */
  override advance(c: number): void {
    if ((this.tail || this.pendingBlock) && c !== SP && c !== TAB && c !== LF && c !== CR && this.ownOnly) this.endQuote();
    this.readStrings(c);
    super.advance(c);
  }

  /**
   * advance(`c`, which is `s[j]`) where the text after it is in view (text mode as it scans). A `<`
   * or `[` the text shows starts no string-valued call's opener is read with the quote left idle:
   * the same reading (the token phase would end at the first character that differs, which is no
   * `<` or `[`), but no character after it is read alone for it, so the engine's hot path goes on
   * at once (bench row 1b: code in an HTML block, a `<` or `[` every few characters).
   */
  advanceAt(s: string, j: number, c = s.charCodeAt(j)): void {
    if ((c === LT || c === LBRACKET) && this.strings.idle && !openerMayStartAt(s, j, c)) {
      // Through advance all the same (a context that reads otherwise overrides it: quote-blind.ts).
      this.noOpener = true;
      this.advance(c);
      this.noOpener = false;
    } else this.advance(c);
  }

  /** Feeds the string-valued quote (quoted-strings.ts) `c`, before `c` is taken by the blocks. */
  private readStrings(c: number): void {
    // Idle, only an opener's first character where one may open matters (the `<` of ordinary text costs a check or two).
    if (this.strings.idle) {
      if (!this.noOpener && this.opensStrings(c)) this.strings.take(c, true);
      return;
    }
    const ended = this.strings.ended;
    this.strings.take(c, this.opensStrings(c));
    // A string-valued quote just ended: between calls, as after a quoted DSML call's closer, so a
    // further call of the tags' dialects right after it is quoted too (takesInTail; fx52 cross quote).
    if (!ended && this.strings.ended && !this.quoting) {
      this.endQuote();
      this.tail = true;
    }
  }

  /** Whether a string-valued call's opener may start at `c` (`<` or `[`): in block documentation, no other quote open. A pure read. */
  private opensStrings(c: number): boolean {
    if ((c !== LT && c !== LBRACKET) || this.quoting) return false;
    this.step(c, false);
    return this.blockDocNow();
  }

  /**
   * A tag read outside documentation (asked after inDoc), before its characters are advanced: a
   * parameter opener outside any readable call opens a value read as a quoted call's
   * (loose-value.ts), up to its own closer, nested parameters counted.
   */
  noteLooseTag(tag: Tag): boolean {
    // A parameter opener mentioned in a sentence is no markup line: only one that starts its line opens a value.
    // Not inside a quote's value or its own markup after it (a quote over leaves only its call's kind behind).
    // So is an invoke or function opener mentioned in one (golden N14): it opens no call whose values a later parameter line could be.
    if (!tag.closing && (tag.role === "invoke" || tag.role === "function") && !this.atLineStart(LT)) return false;
    if (!this.loose.opens(tag) || this.quotedValues > 0 || this.ownOnly || !this.atLineStart(LT)) return false;
    this.quotedCall = QuotedCall.Invoke;
    this.quotedValues = 1;
    this.loose.active = true;
    this.quotedBlock = false;
    this.pendingBlock = false;
    this.looseCount++;
    return true;
  }

  /** How many values noteLooseTag opened so far (the engine reports each opener as broken markup). */
  get looseValues(): number {
    return this.looseCount;
  }

  /**
   * Where the last tag of a loose value's call read since the last take ends (its index in the text
   * readQuotedTag was given), or -1: a closer that closed the value at its top level, a further
   * parameter opener in its tail, its invoke's closer. The engine widens the opener's report to it,
   * so the report spans the broken call's markup (history replaces all of it, not the first opener
   * alone). A tag nested in the value (an example's) is not the call's; a value that never closes
   * reports its opener alone, the text after it kept.
   */
  takeLooseTagEnd(): number {
    const end = this.looseTagEnd;
    this.looseTagEnd = -1;
    return end;
  }

  /**
   * A part of the reply ended (the engine's endSpan): markup never spans two parts, so no readable
   * invoke opener read before it is open after it, and a parameter opener starting a line of the
   * next part opens a value outside any readable call, as in a fresh reply (loose-value.ts).
   * Documentation (a fence, a quoted call's value) goes on.
   */
  partEnded(): void {
    this.loose.reset();
  }

  /** Markup the engine removed (a call, noise) is no quoted call's: its tail is over. */
  override afterMarkup(): void {
    this.loose.reset();
    this.strings.reset();
    if (this.ownOnly) this.endQuote();
    super.afterMarkup();
  }

  /** Only the quoted call's own markup (or white space) may come next: its tail between values, or a block opener before its call. */
  private get ownOnly(): boolean {
    return this.inQuoteTail || this.pendingBlock;
  }

  /** The quote's tail is over: what follows is read as CommonMark reads it (the quoted call's own count stays). */
  private endQuote(): void {
    // A GLM or O09 quote is its own markup only: once that ends, so does the quote (a later value tag opens nothing).
    if (this.quotedCall === QuotedCall.Glm || this.quotedCall === QuotedCall.Plain) this.quotedCall = QuotedCall.None;
    this.loose.active = false;
    this.tail = false;
    this.pendingBlock = false;
    this.quotedBlock = false;
  }

  /**
   * advanceText over candidate text released as text (it proved no call), noting the quoted
   * call's tags in it as text mode notes them while it scans: a quote inside a costume (`<pre>`)
   * or a broken block is read like one in plain text. The text is whole: a tag cut at its end is
   * not read (the same for every split, since a candidate's span does not depend on them).
   */
  advanceReleased(text: string, tools: ReadonlyMap<string, ToolSpec>): void {
    let from = 0;
    for (let at = text.indexOf("<"); at !== -1; at = text.indexOf("<", from)) {
      this.advanceText(text, from, at);
      from = at + 1;
      const reads = this.inDoc(LT) && this.readsQuotedTags;
      if (reads || this.inQuoteTail) {
        const tag = quotedTagAt(text, at, true, this.quoting, tools);
        if (tag !== null && tag !== NEED_MORE && (reads || this.takesInTail(tag, tools))) {
          this.readQuotedTag(tag, text, tools);
          from = tag.end;
          continue;
        }
      }
      if (!this.inDoc(LT)) {
        // A tag outside documentation, as text mode notes it (noteLooseTag): a value it opens starts after it.
        const tag = readTag(text, at, true);
        if (tag !== null && tag !== NEED_MORE && this.noteLooseTag(tag)) {
          this.advanceText(text, at, tag.end);
          from = tag.end;
          continue;
        }
      }
      this.advance(LT);
    }
    this.advanceText(text, from);
  }

  /** Whether a character `c` (a trigger: `<`, a bar, `[`, a name start) arriving now would be documentation. */
  inDoc(c = LT): boolean {
    if (c === LF || c === CR) return false;
    this.step(c, false);
    return this.docNow(c) || (this.mode === Mode.Text && this.inline.escapes(c));
  }

  /**
   * Mid-line with nothing pending: until the next character the engine stops at (see
   * STOP in stop-chars.ts), characters cannot change any state here.
   */
  get midLine(): boolean {
    // A quote's tail ends at the first character that is not its own markup.
    if (this.ownOnly) return false;
    // A string-valued quote reads every character (a quote, a backslash, a bracket).
    if (!this.strings.idle) return false;
    // A thematic break or a table delimiter row is decided by every character of its line.
    if (this.shapes.live) return false;
    switch (this.mode) {
      case Mode.Code:
        return true;
      case Mode.Fence:
        return this.fence.content;
      case Mode.Info:
        return true;
      case Mode.Html:
        return this.blocks.htmlType >= 6 || this.htmlEnd.done;
      case Mode.Text:
        // A fresh line may still hold a line-start construct (a costume, a residue name) the engine checks for.
        return !this.fresh && !this.shapes.tagPending && this.inline.quiet;
      default:
        return false;
    }
  }

  /**
   * The columns (1 to 3) of indentation before a marker opening at the start of a line (past its
   * containers' prefixes), else 0. A candidate opened there is an indented (quoted) block: a
   * paragraph indented less than it, after a blank line, is no longer part of it
   * (src/engine/candidate.ts).
   */
  quoteIndent(c = LT): number {
    return this.atLineStart(c) ? Math.min(this.blocks.indent, 3) : 0;
  }

  /** At the start of a line (only whitespace and matched list indentation so far) and not in documentation. */
  atLineStart(c = LT): boolean {
    if (c === LF || c === CR) return false;
    this.step(c, false);
    return this.fresh && this.blocks.opened === 0 && !this.docNow(c);
  }

  /** At the start of a line that opens a new paragraph (it continues none) and not in documentation. */
  atParagraphStart(c = LT): boolean {
    return this.atLineStart(c) && !this.paragraphBefore;
  }

  /**
   * At the start of a paragraph at the top level (no container, no indentation, nothing or a
   * blank line or another block before it) and not in documentation: where a JSON call may stand
   * alone (issue 29 item 12). A line that would continue a paragraph is not one.
   */
  atTopLevelParagraphStart(c = LT): boolean {
    return this.atLineStart(c) && this.blocks.depth === 0 && this.blocks.col === 0 && this.mode === Mode.Text && !this.paragraphBefore;
  }

  private docNow(c: number): boolean {
    if (!this.strings.idle && this.strings.holds(c, this.opensStrings(c))) return true;
    return this.quotedValues > 0 || this.blockDocNow() || (this.paragraphText && this.inline.inDoc);
  }

  /** Paragraph text, or a line start that may still continue one: where the inline places count. */
  private get paragraphText(): boolean {
    return this.mode === Mode.Text || ((this.mode === Mode.Prefix || this.mode === Mode.Opener) && this.blocks.tipIsParagraph);
  }

  /** Documentation by CommonMark's blocks: everything docNow counts but the inline places. */
  private blockDocNow(): boolean {
    if (this.blocks.deep) return true;
    switch (this.mode) {
      case Mode.Code:
      case Mode.Fence:
      case Mode.Info:
      case Mode.Html:
        return true;
      case Mode.Text:
        return this.blocks.quoted || this.row;
      default:
        // Undecided line start: it may still continue the paragraph (lazily, inside every open container).
        if (this.blocks.tipIsParagraph) return this.blocks.quoted || this.blocks.leaf === Leaf.Table;
        // Whatever starts here closes the containers the line did not match.
        return this.blocks.matchedQuoted;
    }
  }
}
