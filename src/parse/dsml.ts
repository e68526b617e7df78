import { CANONICAL_WRAPPERS, isNamespacedWrapper } from "../grammar/dialects.ts";
import { Flaw, type Tag } from "../grammar/tags.ts";
import { layUnits, tagsOf, type Segment, type UnitOutcome } from "./segments.ts";
import { buildInput, type ParamValue } from "./invoke-input.ts";
import type { SpanContext } from "./call.ts";
import type { NudgeReason } from "./types.ts";
import { aliasMappingOf } from "./aliases.ts";
import { mayNameTool, opensToolElement, readPlainChildren, writtenName } from "./tool-element.ts";
import { propertySchema } from "./values.ts";
import type { Shape } from "../grammar/shapes.ts";
import { closerEndsCall, closerRule, exampleEnd, exampleOpener } from "./closer-in-value.ts";

type CloseFlaw = "" | "P01" | "P02" | "P03" | "P11";

interface ParamDraft {
  name: string;
  hint: "true" | "false" | undefined;
  opener: Tag;
  valueStart: number;
  valueEnd: number;
  closed: boolean;
  flaw: CloseFlaw;
  children: ParamDraft[] | null;
  /** A self-closing parameter's value, read from its attribute (the span holds no value text). */
  literal?: string;
  /** An invoke closer inside the value was read as its text (the closer rule); only the value's own parameter closer may then end it. */
  closerAsText?: boolean;
}

interface InvokeDraft {
  start: number;
  end: number;
  name: string | null;
  nameRunaway: boolean;
  params: ParamDraft[];
  body: string;
  closed: boolean;
  orphan: boolean;
  paramRoot: boolean;
  element: boolean;
  tags: Tag[];
  nameStart: number;
  /**
   * Markup in the body that no parameter read (a self-closing element without a readable value, a
   * DSML element that is no parameter, a tag inside a value that ended early): why the call cannot
   * be trusted to carry what the model wrote. Text outside parameters is counted in `body`.
   */
  unread: string | null;
  /** I11: opened by a DSML tag named after the tool; its children are named after its parameters. */
  toolNamed: boolean;
  /** What ended it: its own closer (or its block's), the next invoke's opener, or the end of the span. */
  endedBy: "closer" | "next" | "end";
  /**
   * Where the markup after it starts when the next invoke ended it: that opener, or a block opener
   * written before it while this invoke was still open (the model started over). -1 otherwise.
   */
  resumeAt: number;
  /** A value held an invoke closer as its text and something else than its own parameter closer ended it (DsmlWalk.cutShort). */
  cutShort: boolean;
}

/**
 * DSML and its degraded shapes (section 2A-2F of the catalogue) over one complete candidate span.
 * The walk is tolerant: every closer the model garbled still ends what it most plausibly closes.
 */
/** `enclosing`: the opener of a block this span continues (its earlier calls were emitted already). */
export function parseDsmlSpan(span: string, ctx: SpanContext, enclosing: Tag | null = null, strayLine = false, complete = false): Segment[] {
  const walk = new DsmlWalk(span, ctx, enclosing);
  walk.strayLine = strayLine;
  walk.complete = complete;
  const invokes = walk.run();
  const units = invokes.map((inv) => ({ start: inv.start, end: inv.end, outcome: outcomeOf(inv, walk, span, ctx) }));
  const fallback: UnitOutcome = walk.sawDsml
    ? { kind: "broken", shape: walk.blockTags.length > 0 ? "S02" : "D08", reason: walk.truncatedBlock ? "truncated-call" : "broken-markup", detail: "tool-call markup without a usable invoke" }
    : { kind: "foreign" };
  // A broken invoke that never closed (cut off mid-value, or prose where its closer should be) ran
  // on into what followed, and what followed may be anything the model wrote next, a fenced
  // example among them. No later unit is read from this span: the segments end where the next
  // markup starts, and the engine reads the rest again as text, after the broken text went through
  // its documentation context (so a fence opened in it is seen, and a complete call outside any
  // documentation is still recovered on its own).
  const stop = invokes.findIndex((inv, i) => i < invokes.length - 1 && inv.endedBy === "next" && units[i]!.outcome.kind === "broken");
  const until = stop >= 0 ? invokes[stop]!.resumeAt : span.length;
  const segments = layUnits(until, stop >= 0 ? units.slice(0, stop + 1) : units, fallback, span);
  const last = stop >= 0 ? stop : invokes.length - 1;
  if (last >= 0 && invokes[last]!.endedBy === "next" && units[last]!.outcome.kind === "broken") endAtLastTag(segments, lastTagEnd(invokes[last]!, until), until);
  return segments;
}

/**
 * A broken invoke the next markup ended (the walk's "next", the stream's SpanReader.restart) is
 * broken markup up to the end of the last tag it read: the parameter opener of a cut-off value,
 * or the parameter closer before the prose where its closer should be. What follows, up to that
 * next markup, is text: visible as before and read by the documentation context as before, but
 * no part of the broken span, which history replaces by a note. So a fence opener, a backtick or
 * `<!--` written after the tags stays with the text, and the example it opens stays documentation
 * in history too (golden S02.2, S02.6, S02.7, Q29.13). That text is not read again for calls:
 * the model may have meant it as the cut-off value (a file being written), so markup there never
 * runs, as before.
 */
function endAtLastTag(segments: Segment[], at: number, until: number): void {
  const seg = segments[segments.length - 1];
  if (!seg || seg.kind !== "broken" || seg.end !== until || at <= seg.start || at >= until) return;
  seg.end = at;
  segments.push({ kind: "text", start: at, end: until });
}

/** The end of the last tag `inv` read before `until`. */
function lastTagEnd(inv: InvokeDraft, until: number): number {
  let end = inv.start;
  for (const tag of inv.tags) if (tag.start < until && tag.end > end) end = tag.end;
  return end;
}

class DsmlWalk {
  readonly blockTags: Tag[] = [];
  readonly invokes: InvokeDraft[] = [];
  sawDsml = false;
  /** A block tag of this span names an attribute twice: none of its calls may run. */
  repeatedBlockAttr = false;
  truncatedBlock = false;
  /** The span opens with a stray wrapper line the engine took into it (`call`, issue 29 item 7). */
  strayLine = false;
  /**
   * The span ended before the reply did: an invoke still open at its end was ended by the next
   * one's opener (the stream ends a span there, SpanReader.restart), not cut off.
   */
  complete = false;
  private blockOpen = false;
  private cur: InvokeDraft | null = null;
  /** A block opener written while the current invoke was still open: where the model started over. */
  private restartAt: number | undefined;
  private stack: ParamDraft[] = [];
  /** The span's tags, and the index of the one being read (the closer rule looks at the next). */
  private tags: Tag[] = [];
  private at = 0;
  /** Tags before this index are an example inside a value (exampleAt); none starts before exampleFrom. */
  private skipUntil = 0;
  private exampleFrom = 0;

  constructor(
    private readonly span: string,
    private readonly ctx: SpanContext,
    enclosing: Tag | null,
  ) {
    if (enclosing) {
      this.blockTags.push(enclosing);
      this.blockOpen = true;
      if (enclosing.flaws & Flaw.RepeatedAttr) this.repeatedBlockAttr = true;
    }
  }

  run(): InvokeDraft[] {
    let pos = 0;
    const tags = tagsOf(this.span);
    const valueEnds = plainMarkupValueEnds(tags);
    let contentUntil = -1;
    this.tags = tags;
    for (let index = 0; index < tags.length; index++) {
      const tag = tags[index]!;
      this.at = index;
      this.onText(pos, tag.start);
      pos = tag.end;
      if (tag.family === "dsml") this.sawDsml = true;
      // Plain markup inside a value that its own sentinel closer ends is the value's text (an XML file).
      if (index < contentUntil || index < this.skipUntil || this.exampleAt(index)) continue;
      this.onTag(tag);
      contentUntil = valueEnds.get(index) ?? -1;
    }
    this.onText(pos, this.span.length);
    if (this.cur) this.closeInvoke(this.span.length, this.span.length, this.complete ? "next" : "end");
    this.truncatedBlock = this.blockOpen;
    return this.invokes;
  }

  /**
   * Review finding 2: a block or invoke opener written inside an open value starts an example that
   * is the value's text when, once closed, the value's own parameter closer comes next
   * (closer-in-value.ts, the stream's rule too): its tags are skipped. Otherwise the restart rule
   * stands, and no example starts again before the tag that decided it (so each tag is looked at
   * a bounded number of times).
   */
  private exampleAt(index: number): boolean {
    const top = this.stack[this.stack.length - 1];
    if (!this.cur || !top || top.children !== null || index < this.exampleFrom) return false;
    const family = top.opener.family;
    if ((family !== "dsml" && family !== "naked") || !exampleOpener(this.tags[index]!, family)) return false;
    const found = exampleEnd(this.span, this.tags, index, family, this.span.length, true);
    if (found.end >= 0) {
      this.skipUntil = found.end;
      // Ended by the invoke closer (P01), not a parameter closer: the call is refused (cutShort), the example never runs.
      if (this.tags[found.end]!.role !== "parameter") top.closerAsText = true;
      return true;
    }
    this.exampleFrom = found.stop;
    return false;
  }

  /** Text outside every value (between parameters, or between a wrapped tool's children) is the body. */
  private onText(from: number, to: number): void {
    const cur = this.cur;
    if (from >= to || !cur) return;
    const top = this.stack[this.stack.length - 1];
    if (top && top.children === null) return;
    // The element form's `<name>bash</name>` is the tool name, read on its own.
    if (cur.element && cur.nameStart >= 0 && cur.name === null) return;
    cur.body += this.span.slice(from, to);
  }

  private onTag(tag: Tag): void {
    if (tag.family === "legacy" || tag.family === "costume") return this.onText(tag.start, tag.end);
    if (mayNameTool(tag) && (tag.role === "other" || this.cur?.toolNamed !== false) && this.onToolNamed(tag)) return;
    const cur = this.cur;
    if (cur) cur.tags.push(tag);
    // Invoke and parameter openers are checked where they open; a block tag breaks every call of its block.
    if (tag.role === "block") this.repeatedBlockAttr ||= (tag.flaws & Flaw.RepeatedAttr) !== 0;
    else if (cur && tag.role !== "other" && (tag.closing || (tag.role !== "invoke" && tag.role !== "parameter"))) cur.unread ??= unreadAttribute(tag);
    if (cur && !tag.closing && tag.flaws & Flaw.SelfClosing && (tag.role === "parameter" || tag.role === "invoke")) return this.selfClosingParam(cur, tag);
    if (cur && !tag.closing && this.stack.length === 0 && (tag.role === "other" || (!cur.element && tag.role === "name"))) {
      cur.unread ??= `markup <${tag.name}> in the invoke body is not a parameter`;
    }
    switch (tag.role) {
      case "block":
        if (tag.closing && cur && this.closerInValue(tag)) {
          // The value's text (a file holding `</{D}tool_calls>`): no structure of this call.
          cur.tags.pop();
          return;
        }
        this.blockTags.push(tag);
        if (tag.closing) {
          if (cur) this.closeInvoke(tag.start, tag.start, "closer");
          this.blockOpen = false;
        } else if (!cur) this.blockOpen = true;
        else this.restartAt ??= tag.start;
        return;
      case "invoke":
        if (tag.closing) {
          if (cur && !this.closerInValue(tag)) this.closeInvoke(tag.start, tag.end, "closer");
          return;
        }
        if (cur) this.closeInvoke(tag.start, tag.start, "next");
        this.openInvoke(tag, tag.attrs.name ?? null, false);
        return;
      case "parameter":
        return tag.closing ? this.closeParam(tag) : this.openParam(tag);
      case "function":
        if (!tag.closing && !cur) this.openInvoke(tag, null, true);
        else if (tag.closing && cur?.element) this.closeInvoke(tag.start, tag.end, "closer");
        return;
      case "name":
        if (!cur?.element) return;
        if (!tag.closing) cur.nameStart = tag.end;
        else if (cur.nameStart >= 0) cur.name = this.span.slice(cur.nameStart, tag.start).trim();
        return;
      default:
        return;
    }
  }

  /**
   * Review finding 3: an invoke closer inside an open value ends it (P01) only by the closer rule
   * (parse/closer-in-value.ts, the engine's rule too): text after it on its line, or a parameter
   * closer next, makes it the value's text (`"</{D}invoke>"` in a file being written). A block's or
   * wrapper's closer there (`"</{D}tool_calls>"`, `"</function_calls>"`) is weighed the same way.
   */
  private closerInValue(tag: Tag): boolean {
    const top = this.stack[this.stack.length - 1];
    if (!top || top.children !== null) return false;
    const rule = top.opener.family === "naked" ? NAKED_VALUE : DSML_VALUE;
    if (closerEndsCall(this.span, tag.end, this.span.length, this.tags, this.at + 1, rule)) return false;
    top.closerAsText = true;
    return true;
  }

  /**
   * A value that held an invoke closer as its text, ended by anything but its own parameter closer
   * (the block's closer, a later invoke closer, the next parameter): the closer read as text may
   * have been the real one, so the value is unknowable (`ls</invoke> Now reading.` then the block
   * closer). The call is refused as broken markup, never run with the closer and the prose in it.
   */
  private cutShort(param: ParamDraft): void {
    if (param.closerAsText && param.children === null) this.cur!.cutShort = true;
  }

  private openInvoke(tag: Tag, name: string | null, element: boolean): void {
    this.cur = {
      start: tag.start, end: tag.end, name, nameRunaway: (tag.flaws & Flaw.RunawayAttr) !== 0, params: [], body: "",
      closed: false, orphan: !this.blockOpen, paramRoot: false, element, tags: [tag], nameStart: -1, unread: unreadAttribute(tag), toolNamed: false,
      endedBy: "end", resumeAt: -1, cutShort: false,
    };
    this.stack = [];
    this.restartAt = undefined;
  }

  /**
   * I11: a DSML tag named after a declared tool (or alias) opens an invoke; inside it, DSML tags
   * named after parameters open values, closed by their own closer or a parameter closer; the
   * tool's own closer (or the invoke closer) ends it. False: the tag is not this form's.
   */
  private onToolNamed(tag: Tag): boolean {
    const cur = this.cur;
    if (!cur) {
      if (!opensToolElement(tag)) return false;
      const name = writtenName(this.span, tag);
      if (!this.ctx.tools.has(name)) return false;
      this.openInvoke(tag, name, false);
      this.cur!.toolNamed = true;
      return true;
    }
    if (!cur.toolNamed) return false;
    cur.tags.push(tag);
    const top = this.stack[this.stack.length - 1];
    if (tag.closing) {
      if (tag.name === cur.name!.toLowerCase() && top?.name.toLowerCase() !== tag.name) this.closeInvoke(tag.start, tag.end, "closer");
      else if (top) this.closeParam(tag);
      else cur.unread ??= `closer </${tag.name}> closes no element`;
      return true;
    }
    // Inside a value a DSML tag is the value's text; between values it opens the next one. A child
    // with an attribute other than the type hint, or self-closing, carries what nobody reads.
    if (top) return true;
    if (tag.flaws & Flaw.SelfClosing || Object.keys(tag.attrs).some((k) => k !== "string")) cur.unread ??= `element <${tag.name}> carries a value in an attribute`;
    else if (tag.flaws & Flaw.RepeatedAttr) cur.unread ??= `element <${tag.name}> names an attribute twice`;
    else this.openParam(tag, writtenName(this.span, tag));
    return true;
  }

  /**
   * `<parameter name="k" value="v" />`, or the same written as a nested `<invoke ... />`: the value
   * sits in an attribute. Unambiguous when there is one value attribute besides `name` (`value`, or
   * a `string` that is not the true/false type hint) and no value is open around it; otherwise the
   * markup carried a parameter that cannot be read, and the call is broken.
   */
  private selfClosingParam(cur: InvokeDraft, tag: Tag): void {
    const top = this.stack[this.stack.length - 1];
    const name = tag.attrs.name;
    const others = Object.keys(tag.attrs).filter((k) => k !== "name");
    const valueKey = others.length === 1 && (others[0] === "value" || (others[0] === "string" && typeHint(tag.attrs.string) === undefined)) ? others[0] : null;
    if (!name || valueKey === null || (top && top.children === null) || tag.flaws & Flaw.RepeatedAttr) {
      cur.unread ??= "a self-closing parameter whose value could not be read";
      return;
    }
    const param: ParamDraft = {
      name, hint: undefined, opener: tag, valueStart: tag.end, valueEnd: tag.end, closed: true, flaw: "", children: null, literal: tag.attrs[valueKey]!,
    };
    (top?.children ?? cur.params).push(param);
  }

  private openParam(tag: Tag, name = tag.attrs.name ?? ""): void {
    if (!this.cur) {
      this.openInvoke(tag, null, false);
      this.cur!.paramRoot = true;
    }
    const cur = this.cur!;
    let top = this.stack[this.stack.length - 1];
    if (top && top.children === null) {
      const valueSoFar = this.span.slice(top.valueStart, tag.start);
      if (valueSoFar.trim() === "" && this.ctx.tools.has(top.name) && this.ctx.options.wrappedTool) {
        top.children = [];
      } else {
        const residue = garbledCloserAt(valueSoFar);
        this.cutShort(top);
        this.endParam(top, residue >= 0 ? top.valueStart + residue : tag.start, residue >= 0 ? "P02" : "P03", residue >= 0);
        this.stack.pop();
        top = this.stack[this.stack.length - 1];
      }
    }
    if (tag.role === "parameter") cur.unread ??= unreadAttribute(tag);
    const param: ParamDraft = {
      name, hint: typeHint(tag.attrs.string), opener: tag,
      valueStart: tag.end, valueEnd: -1, closed: false, flaw: "", children: null,
    };
    (top?.children ?? cur.params).push(param);
    this.stack.push(param);
  }

  private closeParam(tag: Tag): void {
    const top = this.stack.pop();
    if (!top || !this.cur) return;
    const flaw: CloseFlaw = tag.flaws & Flaw.MissingGt ? "P11" : tag.flaws & Flaw.Misspelled ? "P02" : "";
    this.endParam(top, tag.start, flaw, true);
    if (this.stack.length === 0 && this.cur.paramRoot) this.closeInvoke(tag.end, tag.end, "closer");
  }

  private endParam(param: ParamDraft, valueEnd: number, flaw: CloseFlaw, closed: boolean): void {
    param.valueEnd = valueEnd;
    param.flaw = flaw;
    param.closed = closed;
  }

  /** `how`: "closer" ends params unambiguously (P01); "next" and "end" leave an open value truncated. */
  private closeInvoke(valueEnd: number, end: number, how: "closer" | "next" | "end"): void {
    const cur = this.cur!;
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const param = this.stack[i]!;
      this.cutShort(param);
      if (param.children !== null) this.endParam(param, valueEnd, "", true);
      else this.endParam(param, valueEnd, how === "closer" ? "P01" : "", how === "closer");
    }
    cur.end = end;
    cur.closed = how === "closer" || (how === "next" && this.stack.length === 0);
    cur.endedBy = how;
    if (how === "next") cur.resumeAt = this.restartAt ?? end;
    this.invokes.push(cur);
    this.cur = null;
    this.stack = [];
  }
}

/**
 * For each sentinel parameter opener whose value holds plain markup and still ends at a sentinel
 * parameter closer: that closer's index. A self-closing opener has no value (it sat in an
 * attribute): the plain tags after it are the call's, as the stream reads them. The plain tags before it are content, not structure (a
 * value that is an XML file). Not when another sentinel tag comes first (the plain closer was the
 * model's mis-closed parameter, P01/M07), nor when a plain closer that matches no plain opener in
 * the value is followed by a plain parameter or invoke tag (the model wrote the next parameter
 * without its sentinel). Each scan stops at the next sentinel tag, so the scans never overlap.
 */
export function plainMarkupValueEnds(tags: readonly Tag[]): Map<number, number> {
  const ends = new Map<number, number>();
  for (let i = 0; i < tags.length; i++) {
    const opener = tags[i]!;
    if (opener.family !== "dsml" || opener.role !== "parameter" || opener.closing || opener.flaws & Flaw.SelfClosing) continue;
    let depth = 0;
    let unmatchedCloser = false;
    let plain = false;
    for (let k = i + 1; k < tags.length; k++) {
      const tag = tags[k]!;
      if (tag.family === "dsml") {
        if (plain && tag.role === "parameter" && tag.closing) ends.set(i, k);
        i = k - 1;
        break;
      }
      if (tag.family !== "naked") continue;
      if (unmatchedCloser && ((tag.role === "parameter" && !tag.closing) || tag.role === "invoke")) {
        i = k - 1;
        break;
      }
      plain = true;
      if (tag.role !== "parameter") continue;
      if (!tag.closing) depth++;
      else if (depth > 0) depth--;
      else unmatchedCloser = true;
    }
  }
  return ends;
}

/**
 * Why a structural tag's attributes were not all read, or null. A repeated attribute is ambiguous
 * anywhere. An invoke or parameter opener is read for its `name` and a true/false `string` type
 * hint only: any other attribute (`value=` beside a body, a `string=` that is no hint, an argument
 * written on the invoke) would carry something the call never receives. The element form's
 * `<function>` and `<name>` carry none. Closers and block tags carry nothing that is read.
 */
function unreadAttribute(tag: Tag): string | null {
  if (tag.flaws & Flaw.RepeatedAttr) return `<${tag.name}> names an attribute twice`;
  if (tag.closing || tag.role === "block") return null;
  const harmless = tag.role === "invoke" ? INVOKE_LABELS : tag.role === "parameter" ? PARAMETER_LABELS : NO_LABELS;
  for (const key in tag.attrs) {
    if (key === "name" && (tag.role === "invoke" || tag.role === "parameter")) continue;
    if (key === "string" && (tag.role === "invoke" || tag.role === "parameter") && (typeHint(tag.attrs.string) !== undefined || tag.attrs.string === "")) continue;
    if (harmless.has(key)) continue;
    return `attribute ${key} of <${tag.name}> is not read`;
  }
  return null;
}

/**
 * Attributes that label a tag without carrying an argument, as models and agents really write
 * them: a call's `id`, `index` or `type` on an invoke, a Claude-style `type="string"` on a
 * parameter. Anything else (`value=`, `workdir=`, a `string=` that is no type hint) could be an
 * argument the call would run without, so it refuses the call.
 */
const INVOKE_LABELS: ReadonlySet<string> = new Set(["id", "index", "type", "call_id"]);
const PARAMETER_LABELS: ReadonlySet<string> = new Set(["type"]);
const NO_LABELS: ReadonlySet<string> = new Set();

/** The `string=` type hint in any case (`True`, `FALSE`), or undefined for a value that is none. */
function typeHint(value: string | undefined): "true" | "false" | undefined {
  const lower = value?.toLowerCase();
  return lower === "true" || lower === "false" ? lower : undefined;
}

const DSML_VALUE = closerRule("dsml");
const NAKED_VALUE = closerRule("naked");

const GARBLED_CLOSER = /(?:<\/?[\uFF5C|\u2016]|[\uFF5C\u2016])[\s\uFF5C|\u2016>/]{0,8}(?:dsml[\s\uFF5C|\u2016>/]{0,8})?param[a-z]{0,8}\s{0,4}>?\s*$/i;

/**
 * P02: where a garbled parameter closer starts at the end of a value, or -1. Bounded to the last 64
 * characters. It starts with a sentinel bar (fullwidth U+FF5C or U+2016) or with `<` before any
 * bar: an ASCII `|` alone is a shell pipe (`make | paramfix`), not a closer.
 */
export function garbledCloserAt(value: string): number {
  const tailStart = Math.max(0, value.length - 64);
  const m = GARBLED_CLOSER.exec(value.slice(tailStart));
  return m ? tailStart + m.index : -1;
}

function outcomeOf(inv: InvokeDraft, walk: DsmlWalk, span: string, ctx: SpanContext): UnitOutcome {
  const shapes: Shape[] = [];
  let params = inv.params;
  let name = inv.name;
  if (inv.paramRoot) {
    const wrapper = params[0];
    if (params.length !== 1 || !wrapper?.children || wrapper.children.length === 0) {
      return broken("I02", "broken-markup", "parameter outside any invoke");
    }
    name = wrapper.name;
    params = wrapper.children;
    shapes.push("I02");
  } else if (params.length === 1 && params[0]!.children && params[0]!.children.length > 0) {
    // The invoke names one tool, its wrapper another: which one was meant is unknowable.
    if (name !== null && name !== params[0]!.name) return broken("I02", "broken-markup", "the invoke and its wrapped parameter name different tools");
    name = params[0]!.name;
    params = params[0]!.children;
    shapes.push("I02");
  }
  if (inv.nameRunaway) return broken("I01", "broken-markup", "invoke name ran into the following text");
  // A tool named twice (`name="read" name="bash"`) names no tool the nudge could repeat.
  if (inv.tags[0]!.flaws & Flaw.RepeatedAttr) return broken("I04", "broken-markup", inv.unread ?? "the invoke names an attribute twice");
  if (walk.repeatedBlockAttr) return broken("I04", "broken-markup", "a block tag names an attribute twice", name);
  if (inv.tags.some((t) => t.role === "parameter" && !t.closing && (t.flaws & Flaw.RunawayAttr) !== 0)) {
    return broken("I01", "broken-markup", "a parameter attribute ran into the following text", name);
  }
  if (!name) return broken("I06", "broken-markup", "invoke without a tool name");
  if (!inv.closed) return broken(inv.orphan ? "B07" : "S02", "truncated-call", "the call never closed", name);
  if (inv.cutShort) return broken("P01", "broken-markup", "a closer inside a value was read as its text, but the value never reached its own parameter closer", name);
  // Everything the body carried must have been read: unread markup or text beside the parameters breaks the call.
  if (inv.unread !== null) return broken(inv.toolNamed ? "I11" : "I04", "broken-markup", inv.unread, name);
  let body = inv.body;
  if (inv.toolNamed) {
    // Plain children (`<timeout>600</timeout>`) sit in the body; nothing else may.
    const plain = readPlainChildren(body, 0, body.length);
    if (plain === null) return broken("I11", "broken-markup", "text in the element body outside every parameter", name);
    params = [...params, ...plain.map((c) => plainParam(c.name, c.value, inv.tags[0]!))];
    body = "";
    shapes.unshift("I11");
  }
  if (params.length > 0 && body.trim() !== "") return broken("I04", "broken-markup", "text in the invoke body outside every parameter", name);
  const dsmlTagged = inv.tags.some((t) => t.family === "dsml") || walk.blockTags.some((t) => t.family === "dsml");
  // Unprefixed markup is DSML that lost its sentinel (M08) only by the hints it carries: with no
  // parameter (an empty or a JSON body) there is none, and another dialect's gate decides.
  const hinted = params.length > 0 && allParams(params, (p) => p.hint !== undefined);
  const dialect = dsmlTagged || hinted ? null : unprefixedDialect(walk, ctx, walk.strayLine);
  if (dialect === "foreign") return { kind: "foreign" };
  if (dialect) shapes.push(dialect);
  if (inv.orphan && !ctx.options.orphanInvoke) return broken("B05", "broken-markup", "orphan invoke (parse.orphanInvoke is off)", name);
  const tool = ctx.tools.get(name);
  if (!tool) return broken("B06", "undeclared-tool", "tool not declared by the request", name);
  const stranger = inv.toolNamed && !aliasMappingOf(tool) ? params.find((p) => propertySchema(tool.parameters, p.name) === undefined) : undefined;
  if (stranger) return broken("I11", "broken-markup", `element <${stranger.name}> is not a parameter of ${name}`, name);
  const flaws = params.map((p) => p.flaw).filter((f) => f !== "");
  if (flaws.length > 0 && !ctx.options.looseParameters) {
    return broken(flaws[0]!, "broken-markup", "mis-closed parameter (parse.looseParameters is off)", name);
  }
  const values: ParamValue[] = params.map((p) => ({
    name: p.name, hint: p.hint, raw: p.literal ?? span.slice(p.valueStart, p.valueEnd), dropped: p.flaw === "P03", implicitEnd: p.flaw === "P01" || p.flaw === "P03",
    openerNewline: (p.opener.flaws & Flaw.MissingGt) !== 0,
  }));
  const built = buildInput(tool, values, body, ctx.options);
  if (!built.ok) return broken(built.shape, built.reason, built.detail, name);
  shapes.push(...flaws);
  if (!inv.toolNamed && params.some((p) => p.literal !== undefined)) shapes.push("P12");
  shapes.push(...built.shapes);
  shapes.push(...structureShapes(inv, walk, span));
  return { kind: "call", tool: name, input: built.input, shape: shapes[0] ?? canonicalShape(walk) };
}

/** A plain child of a tool-named element, as a parameter whose value was read from the body. */
function plainParam(name: string, value: string, opener: Tag): ParamDraft {
  return { name, hint: undefined, opener, valueStart: 0, valueEnd: 0, closed: true, flaw: "", children: null, literal: value };
}

function allParams(params: ParamDraft[], test: (p: ParamDraft) => boolean): boolean {
  return params.every((p) => test(p) && (p.children === null || allParams(p.children, test)));
}

function broken(shape: Shape, reason: NudgeReason, detail: string, tool?: string | null): UnitOutcome {
  const out: UnitOutcome = { kind: "broken", shape, reason, detail };
  if (tool) out.tool = tool;
  return out;
}

function structureShapes(inv: InvokeDraft, walk: DsmlWalk, span: string): Shape[] {
  const shapes: Shape[] = [];
  if (inv.element) shapes.push("I09");
  if (inv.orphan) shapes.push("B05");
  const tags = [...walk.blockTags, ...inv.tags];
  if (tags.some((t) => t.flaws & Flaw.MissingGt)) shapes.push("B03");
  if (tags.some((t) => t.flaws & Flaw.MissingLt)) shapes.push("B04");
  if (tags.some((t) => t.flaws & Flaw.TypographicQuote)) shapes.push("Q01");
  const opener = walk.blockTags.find((t) => !t.closing);
  if (opener && !CANONICAL_WRAPPERS.has(opener.name)) shapes.push(opener.name === "toolcalls" ? "B01" : "B02");
  for (const t of tags) {
    const variant = sentinelShape(t);
    if (variant) shapes.push(variant);
  }
  const families = new Set(tags.map((t) => t.family));
  if (families.has("dsml") && families.has("naked")) shapes.push("M07");
  if (!families.has("dsml")) shapes.push("M08");
  if (inv.tags.some((t) => t.role === "parameter" && !t.closing && t.attrs.string === undefined)) shapes.push("P04");
  if (inv.tags.some((t) => t.role === "parameter" && !t.closing && Object.keys(t.attrs)[0] === "string")) shapes.push("P05");
  if (!span.includes("\n")) shapes.push("D04");
  if (inv.tags.some((t) => typeHint(t.attrs.string) === "false")) shapes.push("D05");
  return shapes;
}

/** M01-M06 from how the sentinel around DSML was written. */
function sentinelShape(tag: Tag): Shape | null {
  if (tag.family !== "dsml") return null;
  if (tag.flaws & Flaw.Spaced) return "M04";
  if (tag.flaws & Flaw.SpaceBeforeName) return "M06";
  const s = tag.sentinel;
  if (s.includes("\u2016")) return "M05";
  const fullwidth = s.split("\uFF5C").length - 1;
  const ascii = s.split("|").length - 1;
  if (fullwidth === 4) return "M01";
  if (ascii === 4) return "M03";
  if (ascii === 2) return "M02";
  if (fullwidth === 2 && ascii === 0) return null;
  return "M07";
}

function canonicalShape(walk: DsmlWalk): Shape {
  const opener = walk.blockTags.find((t) => !t.closing);
  return opener?.name === "function_calls" ? "D01" : "D02";
}

/**
 * Unprefixed invoke/parameter without `string=` belongs to another model's grammar. It is a call
 * only inside that grammar's own complete wrapper: MiniMax-M2's `minimax:tool_call` (O05) or the
 * Claude-style `function_calls` block (O07). A bare invoke stays text.
 */
function unprefixedDialect(walk: DsmlWalk, ctx: SpanContext, strayLine: boolean): "O05" | "O07" | "W01" | "W02" | "foreign" {
  const opener = walk.blockTags.find((t) => !t.closing);
  const closer = walk.blockTags.find((t) => t.closing);
  const claude = ctx.options.dialects.claudeXml;
  // Issue 29 item 7: an invoke with no wrapper of its own, proved markup by a stray wrapper line
  // before it or a lone wrapper closer right after it (W01).
  if (!opener) return claude && (strayLine || closer !== undefined) ? "W01" : "foreign";
  if (!closer || opener.name !== closer.name) return "foreign";
  if (opener.name === "minimax:tool_call" && ctx.options.dialects.minimax) return "O05";
  if (opener.name === "function_calls" && claude) return "O07";
  if (isNamespacedWrapper(opener.name) && claude) return "W02";
  return "foreign";
}
