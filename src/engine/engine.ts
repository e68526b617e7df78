import { LBRACE, LBRACKET, LT } from "../grammar/chars.ts";
import { isTriggerCode } from "../grammar/markers.ts";
import { mayStartStrayLine, readStrayLine } from "../grammar/stray-line.ts";
import { NEED_MORE, readTag, type Tag } from "../grammar/tags.ts";
import type { SpanContext } from "../parse/call.ts";
import { withAliases } from "../parse/aliases.ts";
import { OPENERS, type Opening, type OpenerView } from "../parse/openers.ts";
import { SchemaGate } from "../parse/schema-gate.ts";
import { parseSpan } from "../parse/span.ts";
import { standalonePrefixAt } from "../parse/standalone-json.ts";
import type { Segment } from "../parse/segments.ts";
import { resolveParseOptions, type ToolSpec } from "../parse/types.ts";
import { Candidate, type Step } from "./candidate.ts";
import { isBlank } from "./fed-text.ts";
import { Output } from "./output.ts";
import { stopAt } from "./stop-chars.ts";
import { isNameStart, RESIDUE_OPENER, STANDALONE_OPENER, ToolNameOpeners } from "./tagless-openers.ts";
import type { EngineEvent, EngineOptions, GivenReader, RepairEngine } from "./types.ts";

/** Smallest piece of a delta handed to a candidate at once. */
const PIECE = 256;

export function createRepairEngine(options: EngineOptions): RepairEngine {
  return new Engine(options);
}

/**
 * The incremental engine: text mode releases everything that cannot start a marker in the same
 * chunk and holds at most one undecided tag; a candidate holds only its own span. Each character
 * is scanned a bounded number of times, so a feed costs O(chunk) plus at most one tag. Where what
 * it read goes (the events, the text held after a call, the calls and the report) is decided by
 * the class it extends (output.ts).
 */
class Engine extends Output implements RepairEngine {
  private readonly ctx: SpanContext;
  /** Text from an opener still undecided (a tag cut off, a name that may be one): read again with the next delta. */
  private carry = "";
  /** Offset, in everything fed, where `carry` starts (with no carry: the end of what was fed). */
  private pos = 0;
  private cand: Candidate | null = null;
  /** A block (its opener) or legacy section whose last call has been emitted but which has not closed yet. */
  private openBlock: Tag | true | null = null;
  private flushed = false;

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
  private readonly given: GivenReader | undefined;
  /** What the opener rules may read of this engine (and the one move they make). */
  private readonly view: OpenerView;

  constructor(options: EngineOptions) {
    const tools = new Map<string, ToolSpec>();
    for (const tool of options.tools) tools.set(tool.name, tool);
    withAliases(tools);
    super(options, tools);
    this.ctx = { tools, options: resolveParseOptions(options.parse), schemas: new SchemaGate() };
    const dialects = this.ctx.options.dialects;
    this.brackets = dialects.mistral || dialects.mistralResidue || dialects.minimax;
    this.standalone = this.ctx.options.standaloneJson;
    this.strayLines = dialects.claudeXml;
    this.given = options.readingGiven;
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
      declared: (name) => tools.has(name),
      dialects,
      codeCostumes: this.ctx.options.codeCostumes,
      closeOpenBlock: () => this.closeOpenBlock(),
    };
  }

  get held(): number {
    return this.carry.length + (this.cand?.length ?? 0) + (this.tail?.length ?? 0);
  }

  withdrawCalls(): EngineEvent[] {
    const out = this.withdraw();
    if (!this.flushed) this.store.keepLast(this.held);
    return out;
  }

  releaseTail(): EngineEvent[] {
    this.out = [];
    this.releaseHeldTail();
    this.store.keepLast(this.held);
    return this.out;
  }

  endSpan(): EngineEvent[] {
    if (this.flushed) throw new Error("dsml-fix engine: endSpan after flush");
    this.out = [];
    this.process("", true);
    this.store.keepLast(this.held);
    return this.out;
  }

  feed(delta: string): EngineEvent[] {
    if (this.flushed) throw new Error("dsml-fix engine: feed after flush");
    if (this.isPlain(delta)) {
      this.releasePlain(delta.length);
      return delta.length > 0 ? [{ type: "text", text: delta }] : [];
    }
    this.out = [];
    if (delta.length > 0) {
      this.store.append(delta);
      this.process(delta, false);
      this.store.keepLast(this.held);
    }
    return this.out;
  }

  heldText(from: number, to: number): string {
    return this.store.slice(from, to);
  }

  /** Most deltas are mid-line text with nothing that could matter: released as they are. */
  private isPlain(delta: string): boolean {
    return this.quiet() && stopAt(delta, 0) === -1;
  }

  /** A plain delta released whole: it moves the offsets on and is never stored. */
  private releasePlain(length: number): void {
    this.pos += length;
    this.store.skip(length);
  }

  /** Nothing held, nothing pending, mid-line: a delta without a STOP character changes nothing here. */
  private quiet(): boolean {
    return this.carry === "" && this.cand === null && this.tail === null && this.doc.midLine;
  }

  flush(): EngineEvent[] {
    this.out = [];
    if (this.flushed) return this.out;
    this.flushed = true;
    this.process("", true);
    this.endTail();
    this.store.keepLast(this.held);
    return this.out;
  }

  /** Reads the carry and `text` on: text mode and candidates in turn. `final`: no more text comes in this span. */
  private process(text: string, final: boolean): void {
    let s = this.carry === "" ? text : this.carry + text;
    let base = this.pos;
    let i = 0;
    this.carry = "";
    for (;;) {
      const cand = this.cand;
      if (cand) {
        // Pieces grow with the candidate, so a long delta costs each candidate O(its own span).
        const room = cand.start + this.limit - cand.end;
        const take = Math.min(room, s.length - i, Math.max(PIECE, cand.length));
        const last = i + take === s.length;
        const step = cand.consume(i === 0 && last ? s : s.slice(i, i + take), final && last);
        const fedEnd = i + take;
        if (step.kind === "more") {
          if (cand.length >= this.limit) {
            this.releaseCandidate(cand, cand.length, true);
            i = fedEnd;
            continue;
          }
          if (!last) {
            i = fedEnd;
            continue;
          }
          if (final) {
            const read = this.finishAtEnd(cand);
            if (read < cand.length) {
              // The span's parser read only a prefix: the rest is text again (see finish).
              s = cand.textFrom(cand.start + read);
              base = cand.start + read;
              i = 0;
              continue;
            }
          }
          this.pos = base + s.length;
          return;
        }
        let cut = spanEnd(cand, step);
        if (step.kind === "complete" && cut === step.end) cut = cand.start + this.finish(cand, cut - cand.start, false);
        else this.releaseCandidate(cand, cut - cand.start, false);
        // The rest is still in `s` unless the span ended inside an earlier delta.
        const rest = cut >= base ? null : cand.textFrom(cut) + s.slice(fedEnd);
        if (rest === null) {
          i = cut - base;
        } else {
          s = rest;
          base = cut;
          i = 0;
        }
        continue;
      }
      const stop = this.scanText(s, i, base, final);
      if (stop < 0) {
        this.pos = base + s.length;
        return;
      }
      i = stop;
      if (!this.cand) {
        this.carry = s.slice(i);
        this.pos = base + i;
        return;
      }
    }
  }

  /**
   * Releases plain text until a candidate opens (returns its index, this.cand set), a tag needs
   * more text (returns its index, no candidate), or the text ends (returns -1).
   */
  private scanText(s: string, from: number, base: number, final: boolean): number {
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
      if (this.standalone && (c === LBRACE || c === LBRACKET) && doc.atTopLevelParagraphStart(c)) {
        // J01: held only while the paragraph can still begin a JSON call (`{"name"`, `{"tool_calls"`, `[{"name"`).
        const prefix = standalonePrefixAt(s, j, final);
        if (prefix !== "no") {
          this.emitText(s, emitFrom, j, base);
          if (prefix === "open") this.cand = new Candidate(this.store, base + j, STANDALONE_OPENER, "standalone-json");
          return j;
        }
      }
      if (this.residue && isNameStart(c) && doc.atLineStart(c)) {
        const residue = this.names.residueAt(s, j, final);
        if (residue !== "no") {
          this.emitText(s, emitFrom, j, base);
          if (residue === "open") this.cand = new Candidate(this.store, base + j, RESIDUE_OPENER, "mistral");
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
            this.cand = new Candidate(this.store, base + j, element, "plain-element", null, doc.quoteIndent(c));
            return j;
          }
        }
        if (r !== null) {
          // Text before the tag reaches the tail first, so the decision never depends on where a chunk ended.
          this.emitText(s, emitFrom, j, base);
          emitFrom = j;
          const decision = this.decide(r, s);
          if (typeof decision === "object") {
            this.cand = new Candidate(this.store, base + j, shift(r), decision.open, decision.enclosing ?? null, doc.quoteIndent(c));
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
          doc.advanceText(s, j, r.end);
          j = r.end;
          continue;
        }
      }
      doc.advance(c);
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
    this.cand = new Candidate(this.store, base + j, opener, decision.open, decision.enclosing ?? null, indent);
    return "open";
  }

  /** Each tag family's own rule decides (parse/openers.ts); `s` is the text the tag's offsets are in. */
  private decide(tag: Tag, s: string): Opening {
    return OPENERS[tag.family](tag, s, this.view);
  }

  /** Forgets an open block; true when there was one, so its closer is the block's, not a stray. */
  private closeOpenBlock(): boolean {
    const was = this.openBlock !== null;
    this.openBlock = null;
    return was;
  }

  private emitText(s: string, from: number, to: number, base: number): void {
    if (to <= from) return;
    // Prose after a call means the block is over, even if its closer never comes.
    if (this.openBlock !== null && !isBlank(s, from, to)) this.openBlock = null;
    this.pushText(from === 0 && to === s.length ? s : s.slice(from, to), base + from);
  }
  private finishAtEnd(cand: Candidate): number {
    return this.finish(cand, cand.length, !cand.completesAtEnd());
  }

  /**
   * Applies a complete span's segments; returns how much of the span they cover. A parser may read
   * only a prefix (a broken invoke that ran on into later markup, parse/dsml.ts): the rest is read
   * again as text by the caller, after the prefix went through the documentation context, still
   * inside the candidate's block when there was one.
   */
  private finish(cand: Candidate, length: number, truncated: boolean): number {
    this.cand = null;
    this.openBlock = cand.endsInBlock && !truncated ? (cand.root === "block" ? cand.opener : cand.root === "legacy-section" ? true : cand.enclosing) : null;
    const text = cand.text();
    let span = length === text.length ? text : text.slice(0, length);
    let segments: Segment[];
    try {
      segments = parseSpan(span, cand.root, cand.opener, cand.named !== null, truncated, this.ctx, cand.enclosing);
    } catch {
      segments = [{ kind: "text", start: 0, end: span.length }];
    }
    const read = segments.length > 0 ? segments[segments.length - 1]!.end : span.length;
    if (read > 0 && read < span.length) {
      span = span.slice(0, read);
      this.openBlock = cand.root === "block" ? cand.opener : cand.enclosing;
    }
    this.given?.candidateEnded(span, cand.opener.end, segments);
    for (const seg of segments) this.applySegment(seg, span, cand.start);
    return span.length;
  }

  /** Candidate text that proved not to be a call: visible, and documentation context sees it. */
  private releaseCandidate(cand: Candidate, length: number, hitLimit: boolean): void {
    this.cand = null;
    this.openBlock = null;
    if (hitLimit) this.heldNoCall++;
    const text = cand.text();
    const released = length === text.length ? text : text.slice(0, length);
    this.given?.candidateEnded(released, cand.opener.end, null);
    this.releaseVisible(released, cand.start);
  }
}

/**
 * The progress guarantee, kept here and nowhere else: a candidate never ends where it began, so
 * every turn of process() moves at least one character past the candidate's start, and text mode
 * (which only opens a candidate at or after that point) can never meet the same start twice. A
 * candidate whose opener is 0 characters long (the O06 residue) and that proves not to be a call
 * at its own first character releases that one character; a "complete" at its own start (no
 * dialect produces one) is released the same way rather than made an empty call.
 */
function spanEnd(cand: Candidate, step: Exclude<Step, { kind: "more" }>): number {
  const cut = step.kind === "complete" ? step.end : step.at;
  return cut > cand.start ? cut : cand.start + 1;
}

/** The opener with offsets relative to its own candidate span. */
function shift(tag: Tag): Tag {
  return { ...tag, start: 0, end: tag.end - tag.start };
}
