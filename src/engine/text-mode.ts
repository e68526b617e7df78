import { CR, LBRACE, LBRACKET, LF, LT, SP, TAB } from "../grammar/chars.ts";
import { isWrapperName } from "../grammar/dialects.ts";
import { isTriggerCode } from "../grammar/markers.ts";
import { mayStartStrayLine, readStrayLine } from "../grammar/stray-line.ts";
import { NEED_MORE, readTag, type Tag } from "../grammar/tags.ts";
import type { SpanContext } from "../parse/call.ts";
import { withAliases } from "../parse/aliases.ts";
import { isMalformedBlock, markMalformedBlock } from "../parse/dialects/dsml/parse-span.ts";
import { declaresParameterNamed } from "../parse/declared-names.ts";
import { isStrayParameter } from "../parse/stray-value-closer.ts";
import { opensToolElement } from "../parse/tool-element-name.ts";
import { OPENERS, type Opening, type OpenerView } from "../parse/openers.ts";
import { SchemaGate } from "../parse/schema-gate.ts";
import { standalonePrefixAt } from "../parse/standalone-json.ts";
import { resolveParseOptions, type ToolSpec } from "../parse/types.ts";
import { Candidate } from "./candidate.ts";
import { isBlank } from "./fed-text.ts";
import { LineEnds } from "./line-ends.ts";
import { looseOpener } from "./loose-value.ts";
import { Output } from "./output.ts";
import { lookalikeTagAt, quotedTagAt } from "./quoted-tags.ts";
import { stopAt } from "./stop-chars.ts";
import { closerEndsItsLine, mayOpenStrayParameter, qwenStrayOpenerAt, strayParameterOpenerAt } from "./stray-opener.ts";
import { isNameStart, RESIDUE_OPENER, STANDALONE_OPENER, ToolNameOpeners } from "./tagless-openers.ts";
import type { AnswerSoFar, EngineOptions } from "./types.ts";

/**
 * Text mode, the engine's reading between candidates: it releases everything that cannot start a
 * marker in the same chunk and holds at most one undecided tag. What opens a candidate is decided
 * here: a tag, by its family's opener rule (parse/openers.ts), or an opener without a tag of its
 * own (tagless-openers.ts). It also watches the DSML block still open (strayBlock) for a parameter
 * outside every invoke, which refuses the calls held for the block's closer (output.ts holdCall).
 * The engine (engine.ts) extends it with the candidates and the steps; what text mode lets go of
 * goes where the class it extends decides (output.ts).
 */
export class TextMode extends Output {
  protected readonly ctx: SpanContext;
  /** The candidate open, if any: text mode opens it, the engine feeds and ends it. */
  protected cand: Candidate | null = null;
  /** A block (its opener) or legacy section whose last call has been emitted but which has not closed yet. */
  protected openBlock: Tag | true | null = null;
  /**
   * The block (its opener) whose opener was read and whose closer has not come, for the
   * stray-parameter rule: prose does not forget it (openBlock is forgotten by prose, for reading
   * what comes next). Its calls wait for its closer (Output.blockHold); a parameter outside every
   * invoke before that refuses them all, and every later call read before it closes (golden
   * P47.11-P47.16; P47.n1, P47.n2 what it must not refuse).
   */
  protected strayBlock: Tag | null = null;
  /**
   * The containers (block quotes, list items) around the watched block's opener: a block closer
   * read in more or fewer of them is documentation of one, and does not end the watch (golden P48.3, P48.4).
   */
  protected strayDepth = 0;
  /** The containers around the candidate opened last (its opener's `<`): strayDepth when it opens the watched block. */
  protected openedDepth = 0;
  /**
   * A DSML parameter outside every invoke was read (no wrapped tool): with no block open, or in a
   * block (whose calls it refused), in this part or an earlier one of the reply (carryOver). Every
   * later orphan DSML invoke of the reply (no block around it) is refused as a block's calls are
   * after one (I02, golden P48.5); which call it was meant for is a guess. A parameter after the
   * last orphan invoke is not weighed (that would hold every orphan call to the reply's end): a known gap.
   */
  protected strayBefore = false;
  /** The span being finished is an orphan DSML invoke's (engine.ts finish): strayBefore refuses its calls. */
  protected finishingOrphan = false;
  /** The span being finished showed a stray DSML parameter in text no call took (span-stray.ts): its later calls are refused. */
  protected strayInSpan = false;
  /**
   * A span ended at the watched block's closer (engine.ts finish): the watch ends when nothing but
   * spaces follows it on its line, read where text mode goes on (scanTextFrom); words after it make
   * it prose naming a closer, and the block stays watched.
   */
  protected pendingClose = false;
  /** The tag text mode is deciding (decide): a block closer's word and containers say whether it ends the watch. */
  private deciding: { tag: Tag; depth: number; ownLine: boolean } | null = null;

  /** The `[` trigger (Mistral's and MiniMax's bracket tokens). */
  private readonly brackets: boolean;
  /** O06: the residue is on (mistralResidue) and a tool is declared. */
  private readonly residue: boolean;
  /** O09: a tool is declared, so a plain tool-named element may open. */
  private readonly elements: boolean;
  private readonly names: ToolNameOpeners;
  /** J01: a JSON call standing alone as a paragraph (parse.standaloneJson). */
  private readonly standalone: boolean;
  /** Claude-style XML is on: a stray wrapper line before a bare invoke is looked for (item 7). */
  private readonly strayLines: boolean;
  /** What the opener rules may read of this engine (and the one move they make). */
  private readonly view: OpenerView;
  /** The last non-space character of the line before the one being read (LineEnds). */
  protected readonly lines: LineEnds;
  /** How far in scanText's `s` the line tracker has read. */
  private trackedTo = 0;

  constructor(options: EngineOptions) {
    const tools = new Map<string, ToolSpec>();
    // A name declared twice is read with its first declaration (as a host that looks it up with
    // Array.prototype.find runs it); the gate checks the call against every declaration of it.
    for (const tool of options.tools) if (!tools.has(tool.name)) tools.set(tool.name, tool);
    withAliases(tools, options.reservedNames);
    super(options, tools);
    // A later part of one reply reads on from the line the part before it left, as the documentation context does.
    this.lines = (options.readingGiven ? undefined : options.continues?.lines) ?? new LineEnds();
    // And from the stray parameter it showed, as it reads on from its lines.
    this.strayBefore = !options.readingGiven && options.continues?.strayBefore === true;
    this.ctx = { tools, options: resolveParseOptions(options.parse), schemas: new SchemaGate(options.tools) };
    const dialects = this.ctx.options.dialects;
    this.brackets = dialects.mistral || dialects.mistralResidue || dialects.minimax;
    this.standalone = this.ctx.options.standaloneJson;
    this.strayLines = dialects.claudeXml;
    this.residue = dialects.mistralResidue && tools.size > 0;
    this.elements = tools.size > 0;
    this.names = new ToolNameOpeners(tools);
    const engine = this;
    this.view = {
      get tail() {
        return engine.tail !== null;
      },
      get openBlock() {
        return engine.openBlock;
      },
      atLineStart: () => this.doc.atLineStart(),
      // And the line before ends mid-sentence (a letter, a digit or a comma last): a line ending in `:` or `.` introduces what follows.
      continuesParagraph: () => this.doc.atLineStart() && !this.doc.atParagraphStart() && this.lines.endsMidSentence(),
      declared: (name) => tools.has(name),
      dialects,
      codeCostumes: this.ctx.options.codeCostumes,
      closeOpenBlock: () => this.closeOpenBlock(),
      closeToolCall: () => {
        if (this.strayBlock?.family === "costume") this.leaveStrayBlock();
      },
    };
  }

  /**
   * Releases plain text until a candidate opens (returns its index, this.cand set), a tag needs
   * more text (returns its index, no candidate), or the text ends (returns -1).
   */
  protected scanText(s: string, from: number, base: number, final: boolean): number {
    this.trackedTo = from;
    const stop = this.scanTextFrom(s, from, base, final);
    this.lines.read(s, this.trackedTo, stop < 0 ? s.length : stop);
    return stop;
  }

  private scanTextFrom(s: string, from: number, base: number, final: boolean): number {
    if (this.pendingClose) {
      const ends = closerEndsItsLine(s, from, final);
      if (ends === NEED_MORE) return from;
      this.pendingClose = false;
      if (ends) this.leaveStrayBlock();
    }
    let emitFrom = from;
    const doc = this.doc;
    for (let j = from; j < s.length; ) {
      if (doc.midLine) {
        // The hot path: skip what can neither start a marker nor change documentation context.
        const k = stopAt(s, j);
        if (k === -1) break;
        j = k;
      }
      const c = s.charCodeAt(j);
      if (c === LT && doc.inQuoteTail) {
        // A quoted call's own markup after its value (its closers, a further parameter): documentation, noted.
        const own = quotedTagAt(s, j, final, true);
        if (own === NEED_MORE) {
          this.emitText(s, emitFrom, j, base);
          return j;
        }
        if (own !== null && doc.takesInTail(own, this.ctx.tools)) {
          doc.readQuotedTag(own, s, this.ctx.tools);
          this.widenLoose(base);
          j = own.end;
          continue;
        }
        // None of the quote's own: documentation only where a further call's opener starts here.
        if (!doc.settleTailAt(s, j, final)) {
          this.emitText(s, emitFrom, j, base);
          return j;
        }
      }
      if (this.standalone && (c === LBRACE || c === LBRACKET) && doc.atTopLevelParagraphStart(c)) {
        // J01: held only while the paragraph can still begin a JSON call (`{"name"`, `{"tool_calls"`, `[{"name"`).
        const prefix = standalonePrefixAt(s, j, final);
        if (prefix !== "no") {
          this.emitText(s, emitFrom, j, base);
          if (prefix === "open") this.cand = new Candidate(this.store, this.ctx.tools, base + j, STANDALONE_OPENER, "standalone-json");
          return j;
        }
      }
      if (this.residue && isNameStart(c) && doc.atLineStart(c)) {
        const residue = this.names.residueAt(s, j, final);
        if (residue !== "no") {
          this.emitText(s, emitFrom, j, base);
          if (residue === "open") this.cand = new Candidate(this.store, this.ctx.tools, base + j, RESIDUE_OPENER, "mistral");
          return j;
        }
      }
      if (this.strayLines && mayStartStrayLine(c) && doc.atParagraphStart(c)) {
        const stray = this.strayLineAt(s, j, base, final, doc.quoteIndent(c));
        if (stray !== "no") {
          this.emitText(s, emitFrom, j, base);
          return j;
        }
      }
      if ((isTriggerCode(c) || (c === LBRACKET && this.brackets)) && !doc.inDoc(c)) {
        const r = readTag(s, j, final);
        if (r === NEED_MORE) {
          this.emitText(s, emitFrom, j, base);
          return j;
        }
        if (r === null && c === LT && this.elements && doc.atLineStart(c)) {
          const element = this.names.elementAt(s, j, final);
          if (element === "hold") {
            this.emitText(s, emitFrom, j, base);
            return j;
          }
          if (element !== null) {
            this.emitText(s, emitFrom, j, base);
            this.cand = new Candidate(this.store, this.ctx.tools, base + j, element, "plain-element", null, doc.quoteIndent(c));
            return j;
          }
        }
        if (r === null && mayOpenStrayParameter(c) && (this.strayBlock !== null || !this.strayBefore)) {
          // `<{BAR}parameter` (one bar, the DSML word lost) in a block still open is a parameter outside every invoke too (golden P47.16).
          // So is every parameter opener spelling the DSML reader takes that is no tag
          // (`<{D}parameter=workdir>`, `<{BAR}parameter name="workdir">`), and with no block open it
          // refuses the later orphan invokes as the canonical spelling does.
          // One shared check (stray-opener.ts), the `<`-lost spelling too.
          let one = strayParameterOpenerAt(s, j, final, this.charBefore(s, j));
          // In a block still open, a Qwen3-Coder spelling the tag grammar does not read
          // (`<param=workdir>` after a wrapped function's `</function>`) is one too, as `<parameter=workdir>` is (P47.15).
          if (one === false && c === LT && this.strayBlock !== null) one = qwenStrayOpenerAt(s, j, final, doc.atLineStart(c));
          if (one === NEED_MORE) {
            this.emitText(s, emitFrom, j, base);
            return j;
          }
          if (one && this.strayBlock === null) this.strayBefore = true;
          else if (one && this.strayBlock !== null) {
            // Text before it reaches the tail first, as before a tag (the limit counts to the point read, whatever the split).
            this.emitText(s, emitFrom, j, base);
            emitFrom = j;
            this.refuseStrayBlock(this.strayBlock);
          }
        }
        if (r === null && c === LT && doc.atLineStart(c)) {
          // A sentinel parameter opener written with lookalike bars opens a value outside any readable call too (loose-value.ts).
          const folded = lookalikeTagAt(s, j, final);
          if (folded === NEED_MORE) {
            this.emitText(s, emitFrom, j, base);
            return j;
          }
          if (folded !== null) this.noteStrayParameter(folded);
          if (folded !== null && folded.role === "parameter" && doc.noteLooseTag(folded)) {
            this.reportLoose(looseOpener(base + j, base + folded.end));
            doc.advanceText(s, j, folded.end);
            j = folded.end;
            continue;
          }
        }
        if (r !== null) {
          // Text before the tag reaches the tail first, so the decision never depends on where a chunk ended.
          this.emitText(s, emitFrom, j, base);
          emitFrom = j;
          this.noteStrayParameter(r);
          this.lines.read(s, this.trackedTo, j);
          this.trackedTo = j;
          if (this.strayBlock !== null && r.closing && r.role === "block") {
            // Only a closer standing as the block's closer ends the watch: right after the call's
            // markup (openBlock: nothing but blank since) or at a line start, and ending its line;
            // one inside a running line (`ends with </{D}tool_calls> here.`, `*</{D}tool_calls>*`,
            // `</{D}tool_calls> is the closer.`) is prose.
            const ownLine = (this.openBlock !== null || doc.atLineStart(c)) && closerEndsItsLine(s, r.end, final);
            if (ownLine === NEED_MORE) return j;
            this.deciding = { tag: r, depth: doc.containerDepth(c), ownLine };
          }
          const decision = this.decide(r, s);
          this.deciding = null;
          if (typeof decision === "object") {
            this.openedDepth = doc.containerDepth(c);
            this.cand = new Candidate(this.store, this.ctx.tools, base + j, shift(r), decision.open, decision.enclosing ?? null, doc.quoteIndent(c), doc.atLineStart(c));
            this.cand.openerIndent = this.lines.lead;
            this.cand.openerPlace = !doc.atLineStart(c) ? "inline" : this.lines.endsMidSentence() && !doc.atParagraphStart(c) ? "paragraph" : "line-start";
            return j;
          }
          if (decision === "noise") {
            this.holdInTail(s.slice(j, r.end), base + j, true);
            doc.afterMarkup();
            j = emitFrom = r.end;
            continue;
          }
          if (decision === "stray") {
            this.broken.push({ span: [base + j, base + r.end], shape: "D08", reason: "broken-markup", detail: "stray tool-call marker" });
            emitFrom = j;
          }
          // A parameter opener outside any readable call opens a value that is text (loose-value.ts).
          if (doc.noteLooseTag(r)) this.reportLoose(looseOpener(base + j, base + r.end));
          doc.advanceText(s, j, r.end);
          j = r.end;
          continue;
        }
      } else if (mayOpenStrayParameter(c)) {
        if (this.strayBlock !== null) {
          // In a block still open, a parameter outside every invoke refuses its calls even
          // where it reads as documentation (a fence, a block quote, an HTML block): the block's own
          // text is no documentation of anything, and which call it was meant for is a guess.
          const stray = this.strayInDocAt(s, j, final);
          if (stray === NEED_MORE) {
            this.emitText(s, emitFrom, j, base);
            return j;
          }
          if (stray) {
            this.emitText(s, emitFrom, j, base);
            emitFrom = j;
            if (this.strayBlock !== null) this.refuseStrayBlock(this.strayBlock);
          }
        }
        // A quoted call's tag (golden N45.1-N45.7): noted, then documentation like the rest. The
        // `<` of ordinary code is turned down by its next character before the documentation
        // context is asked where it stands (both are pure reads).
        const quoted = c === LT ? quotedTagAt(s, j, final, doc.quoting, this.ctx.tools) : null;
        if (quoted !== null && doc.readsQuotedTags) {
          if (quoted === NEED_MORE) {
            this.emitText(s, emitFrom, j, base);
            return j;
          }
          doc.readQuotedTag(quoted, s, this.ctx.tools);
          this.widenLoose(base);
          j = quoted.end;
          continue;
        }
      }
      // With the text in view: a `<` or `[` of code that opens no quoted call leaves the hot path on (DocContext.advanceAt).
      doc.advanceAt(s, j, c);
      j++;
    }
    this.emitText(s, emitFrom, s.length, base);
    return -1;
  }

  /**
   * Issue 29 item 7: a stray wrapper line (`call`) right before a Claude-style invoke opener on the
   * next line. The invoke's candidate then starts at the stray word, so the line is the call's
   * markup when the invoke proves a call, and is released with it as text otherwise. "hold" while
   * the text could still be one (a word of at most five letters, its line end, an indentation).
   */
  private strayLineAt(s: string, j: number, base: number, final: boolean, indent: number): "open" | "hold" | "no" {
    const at = readStrayLine(s, j, final);
    if (at === null) return "no";
    if (at === NEED_MORE) return "hold";
    const r = readTag(s, at, final);
    if (r === NEED_MORE) return "hold";
    if (r === null || r.family !== "naked" || r.role !== "invoke" || r.closing || r.attrs.name === undefined) return "no";
    const decision = this.decide(r, s);
    if (typeof decision !== "object") return "no";
    const opener: Tag = { ...r, start: at - j, end: r.end - j };
    // Opened like every other candidate: an indented stray line is a quoted block (quoteIndent).
    this.cand = new Candidate(this.store, this.ctx.tools, base + j, opener, decision.open, decision.enclosing ?? null, indent);
    return "open";
  }

  /**
   * A tag at `j` (a `<` in documentation) while a block is still open: true when it is a stray
   * parameter (isStrayParameter and no wrapped tool, or the one-bar spelling), which refuses the
   * block's calls as outside documentation; NEED_MORE while the tag is cut off. A pure read.
   */
  private strayInDocAt(s: string, j: number, final: boolean): boolean | typeof NEED_MORE {
    const r = readTag(s, j, final);
    if (r === NEED_MORE) return NEED_MORE;
    if (r !== null) return isStrayParameter(r) && !this.ctx.tools.has(r.attrs.name ?? "");
    const one = strayParameterOpenerAt(s, j, final, this.charBefore(s, j));
    return one === false && s.charCodeAt(j) === LT ? qwenStrayOpenerAt(s, j, final, false) : one;
  }

  /** The character before `s[j]`: in `s`, or the last one the line tracker read before it (-1: none). */
  private charBefore(s: string, j: number): number {
    return j > 0 ? s.charCodeAt(j - 1) : this.lines.prev;
  }

  override carryOver(): AnswerSoFar {
    return { ...super.carryOver(), lines: this.lines, ...(this.strayBefore ? { strayBefore: true as const } : {}) };
  }

  /** Each tag family's own rule decides (parse/openers.ts); `s` is the text the tag's offsets are in. */
  private decide(tag: Tag, s: string): Opening {
    return OPENERS[tag.family](tag, s, this.view);
  }

  /** Forgets an open block; true when there was one, so its closer is the block's, not a stray. */
  private closeOpenBlock(): boolean {
    const was = this.openBlock !== null;
    this.openBlock = null;
    // The block's closer came (after prose too): the calls held for it run (golden P47.n2). Not a
    // closer whose word only starts like a wrapper's (`</{D}tool_callsX>`), nor one standing in a
    // container the block's opener was not in (`- </{D}tool_calls>`): documentation of a closer (golden P48.3, P48.4).
    const closer = this.deciding;
    if (closer === null || (closer.ownLine && closesWatchedBlock(closer.tag) && closer.depth === this.strayDepth)) this.leaveStrayBlock();
    return was;
  }

  /** `block` is watched from now on (its opener's containers: strayDepth); calls held for an earlier one stay held for it. */
  protected watchBlock(block: Tag): void {
    this.strayBlock = block;
    this.strayDepth = this.openedDepth;
  }

  /** The block the stray-parameter rule watches ended (its closer, the reply's end, the limit): its held calls run. */
  protected leaveStrayBlock(): void {
    this.pendingClose = false;
    if (this.strayBlock === null) return;
    this.strayBlock = null;
    this.settleHeldCalls("run");
  }

  /**
   * A parameter opener read in text mode (after prose, a line that only looks blank, or
   * text on the invoke closer's line) while a block is still open stands outside every invoke of it:
   * the block is malformed, the calls held for its closer are refused, and so is every later call of
   * it (golden P47.11, P47.12, P47.13). A parameter named after a declared tool (a wrapped call,
   * I02) is read as before.
   */
  private noteStrayParameter(tag: Tag): void {
    const block = this.strayBlock;
    if (block !== null && this.namesParameter(tag)) {
      this.refuseStrayBlock(block);
      return;
    }
    if (!isStrayParameter(tag)) return;
    if (this.ctx.tools.has(tag.attrs.name ?? "")) return;
    if (block === null) {
      // The prefix-less spelling too (`<parameter name="workdir">`), which the DSML reader takes (M07).
      this.strayBefore = true;
      return;
    }
    this.refuseStrayBlock(block);
  }

  /**
   * Review 52, finding 2: a DSML tag in I11's spelling named after a parameter a declared tool
   * declares (`<{D}workdir>`), in a block still open outside every invoke: the same parameter outside
   * every invoke as `<{D}parameter name="workdir">`, which call it was meant for a guess.
   */
  private namesParameter(tag: Tag): boolean {
    return opensToolElement(tag) && declaresParameterNamed(this.ctx.tools, tag.name);
  }

  /** A parameter outside every invoke of the block still open: it is malformed, and the calls held for its closer are refused. */
  private refuseStrayBlock(block: Tag): void {
    markMalformedBlock(block);
    this.strayBefore = true;
    this.settleHeldCalls("refuse");
  }

  protected override blockRefusesCalls(): boolean {
    if ((this.finishingOrphan && this.strayBefore) || this.strayInSpan) return true;
    return this.strayBlock !== null && isMalformedBlock(this.strayBlock);
  }

  protected override blockHoldsCalls(): boolean {
    return this.strayBlock !== null;
  }

  private emitText(s: string, from: number, to: number, base: number): void {
    if (to <= from) return;
    // Prose after a call means the block is over, even if its closer never comes.
    if (this.openBlock !== null && !isBlank(s, from, to)) this.openBlock = null;
    this.pushText(from === 0 && to === s.length ? s : s.slice(from, to), base + from);
  }
}


/** A block closer that ends the watched block: a DSML one only with a wrapper's word (isWrapperName), not one dsmlRole guessed from `call` in it. */
function closesWatchedBlock(tag: Tag): boolean {
  return tag.family !== "dsml" || isWrapperName(tag.name.toLowerCase());
}

/** The opener with offsets relative to its own candidate span. */
function shift(tag: Tag): Tag {
  return { ...tag, start: 0, end: tag.end - tag.start };
}
