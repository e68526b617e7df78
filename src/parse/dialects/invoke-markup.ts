import { LBRACE, LT } from "../../grammar/chars.ts";
import { isNamespacedWrapper, isWrapperName } from "../../grammar/dialects.ts";
import { isBarCode } from "../../grammar/markers.ts";
import { Flaw, type Tag } from "../../grammar/tags.ts";
import { truncatedCall, wholeSpan } from "../call.ts";
import { parseDsmlSpan } from "./dsml/parse-span.ts";
import { parseNamedSpan } from "../named.ts";
import { endCutOffAtLastTag, tagsOf, type Segment } from "../segments.ts";
import { abandon, abandonOnFirst, complete, type OpenerRule, type SpanKind, type SpanParse, type SpanReader, type Step } from "../span-kind.ts";
import { mayNameTool, opensToolElement, writtenName } from "../tool-element-name.ts";

// DSML and the unprefixed wrappers written like it (MiniMax-M2 O05, Claude-style O07): a block, an
// invoke, a parameter or a bare function element can each open a span; one parser reads them all.

const closesUnit = (tag: Tag) => tag.closing && (tag.role === "invoke" || tag.role === "function");

function parseInvokeMarkup({ span, opener, named, truncated, ctx, enclosing }: SpanParse): Segment[] {
  // An opener that does not start its span follows a stray wrapper line the engine took in (W01).
  const segments = named ? parseNamedSpan(span, opener, ctx, truncated) : parseDsmlSpan(span, ctx, enclosing === true ? null : enclosing, opener.start > 0, !truncated);
  // Cut off, the wrapper is broken markup up to its last tag; what the model wrote after it stays text (test/history/cut-off-span.test.ts).
  return truncated && isUnprefixedWrapper(opener) && segments.every((s) => s.kind !== "call") && hasInvoke(span, opener)
    ? endCutOffAtLastTag(wholeSpan(span.length, truncatedCall(opener.name === "minimax:tool_call" ? "O05" : opener.name === "function_calls" ? "O07" : "W02")), span, opener.start)
    : segments;
}

/** MiniMax-M2 and Claude-style wrappers (O05, O07, W02): the whole wrapper is their gate, so a cut-off one reads as text to the DSML walk. */
function isUnprefixedWrapper(opener: Tag): boolean {
  return opener.family === "naked" && opener.role === "block" && (opener.name === "minimax:tool_call" || opener.name === "function_calls" || isNamespacedWrapper(opener.name));
}

/** An invoke opened inside the wrapper, or the reply ended inside one (`<invoke name="bash"`, `<inv`). */
function hasInvoke(span: string, opener: Tag): boolean {
  if (tagsOf(span, opener.end).some((t) => t.role === "invoke" && !t.closing && t.attrs.name !== undefined)) return true;
  const body = span.slice(opener.end).trim();
  return body.length > 1 && (INVOKE_OPENER.startsWith(body) || body.startsWith(INVOKE_OPENER));
}

const INVOKE_OPENER = "<invoke ";

/**
 * Whether an invoke is open in a streaming span, and where the markup after it starts if the model
 * started over (a block opener written while it was open). An invoke that never closed ran on into
 * whatever the model wrote next, a fenced example among them: the span ends where the next invoke
 * (or that block opener) starts (SpanReader.restart), as the walk ends the unit there ("next").
 */
class UnitWatch {
  restartAt = -1;
  /**
   * A block span's first unit: undecided (null), or whether a function element opened it. The walk
   * ends a unit at a function closer only when a function opener started it (walk.ts onTag, the
   * element form); after an invoke, a parameter or an I11 element a stray `</function>` ends
   * nothing there, so the stream must not end the unit at it either (it would run a call the walk
   * reads on past and refuses).
   */
  element: boolean | null = null;
  /** A block's first tags were stray (leavesFirst): its first content is still weighed as the first. */
  stray = false;
  constructor(public open: boolean) {}
}

/** Whether a tag starts a block span's first unit as the walk reads it, and whether as a function element; null: it starts none. */
function startsUnit(tag: Tag): boolean | null {
  if (tag.closing) return null;
  if (tag.role === "function") return true;
  // An invoke, a parameter (paramRoot), or a DSML tag that may open an I11 element (counted even if undeclared: the stream then only reads on).
  return tag.role === "invoke" || tag.role === "parameter" || mayNameTool(tag) ? false : null;
}

function nextUnit(r: SpanReader, tag: Tag, base: number, unit: UnitWatch): Step | null {
  if (tag.closing) {
    if (tag.role === "invoke") unit.open = false;
    // A block opener inside a value that then closed was the value's text.
    if (tag.role === "invoke" || tag.role === "parameter") unit.restartAt = -1;
    return null;
  }
  if (tag.role === "block") {
    if (unit.open && unit.restartAt < 0) unit.restartAt = base + tag.start;
    return null;
  }
  // A self-closing invoke inside an invoke is a parameter written as one (P12), as the walk reads it.
  if (tag.role !== "invoke" || tag.flaws & Flaw.SelfClosing) return null;
  if (unit.open) return r.restart(unit.restartAt >= 0 ? unit.restartAt : base + tag.start);
  unit.open = true;
  return null;
}

export const BLOCK: SpanKind<UnitWatch> = {
  watchesContent: false,
  body: () => new UnitWatch(false),
  content(r: SpanReader, c: number, at: number, first: boolean, unit) {
    if (!first) return null;
    // Text right after a DSML block opener can only be a named call (I10); anything else is a mention.
    // After a stray tag (golden A45.6) it is prose: released with the opener, never dropped.
    if (unit.stray || r.opener.family !== "dsml" || isBarCode(c)) return abandon(at);
    r.readNamedCall(at);
    return null;
  },
  leavesFirst(r, tag, unit) {
    if (!strayInBlock(r, tag)) return false;
    unit.stray = true;
    return true;
  },
  tag(r, tag, base, _first, closesBlock, unit) {
    if (closesBlock) return complete(base + tag.end);
    // Unprefixed dialect wrappers (O05, O07) are only calls when the whole wrapper closes.
    if (r.opener.family !== "dsml") return null;
    if (unit.element === null) unit.element = startsUnit(tag);
    const endsUnit = tag.closing && (tag.role === "invoke" || (tag.role === "function" && unit.element === true));
    return endsUnit ? r.trail() : nextUnit(r, tag, base, unit);
  },
  parse: parseInvokeMarkup,
};

/**
 * Golden A45.6: a tag right after a block opener that starts no unit (a stray closer, an
 * element that is no structure: `</{D}parameter>`, `</parameter>`, `<{D}thinking>`) leaves what
 * follows undecided, so prose after it proves a mention as it does right after the opener (the
 * walk keeps no text outside an invoke). Openers of a unit (an invoke, a parameter, a function
 * element, a tool element naming a declared tool, I11) and special tokens are structure.
 */
function strayInBlock(r: SpanReader, tag: Tag): boolean {
  if (tag.family !== "dsml" && tag.family !== "naked") return false;
  if (tag.closing) return tag.role !== "block";
  return tag.role === "other" && !(opensToolElement(tag) && namesTool(r, tag.name));
}

// A declared tool (or alias) named `name` as the tag scanner lowers it: the walk matches the written case, so any case counts here.
function namesTool(r: SpanReader, name: string): boolean {
  for (const tool of r.tools.keys()) if (tool.toLowerCase() === name) return true;
  return false;
}

export const INVOKE: SpanKind<UnitWatch> = {
  watchesContent: false,
  body: () => new UnitWatch(true),
  // A real invoke starts with a parameter or a JSON body; prose means the opener was only mentioned.
  content: (r, c, at, first) => (first && c !== LBRACE && !(r.opener.flaws & Flaw.RunawayAttr) ? abandon(at) : null),
  tag(r, tag, base, _first, closesBlock, unit) {
    const end = base + tag.end;
    if (!tag.closing) return nextUnit(r, tag, base, unit);
    if (tag.role === "parameter") nextUnit(r, tag, base, unit);
    if (tag.closing && tag.role === "invoke") {
      if (r.enclosing) return r.trail();
      // An invoke with no block around it takes a lone wrapper closer that comes next: the proof a
      // naked one needs (W01), and for DSML a closer whose `<` was lost too (`/{D}tool_calls>`).
      return r.takeCloser(end);
    }
    return closesBlock ? complete(end) : null;
  },
  parse: parseInvokeMarkup,
};

export const PARAMETER: SpanKind = {
  watchesContent: false,
  // Outside an invoke only a wrapped tool (I02) can become a call, and it opens with a parameter.
  content: abandonOnFirst,
  tag(r, tag, base, _first, closesBlock) {
    const depth = r.nest(tag.role === "parameter" ? (tag.closing ? -1 : 1) : 0);
    return depth === 0 || (tag.closing && tag.role === "invoke") || closesBlock ? complete(base + tag.end) : null;
  },
  parse: parseInvokeMarkup,
};

export const ELEMENT: SpanKind = {
  watchesContent: false,
  content: abandonOnFirst,
  tag(_r, tag, base, first, closesBlock) {
    if (first && !(tag.family === "naked" && tag.role === "name" && !tag.closing)) return abandon(base + tag.start);
    return closesUnit(tag) || closesBlock ? complete(base + tag.end) : null;
  },
  parse: parseInvokeMarkup,
};

/**
 * I11: a DSML tag named after a declared tool (`<{D}read_file>`), children named after its
 * parameters. The invoke's closer or the element's own closer ends it; a plain child (`<timeout>`)
 * is not a tag here, so the first thing inside must be a tag or a `<`.
 */
export const TOOL_ELEMENT: SpanKind = {
  watchesContent: false,
  content: (_r, c, at, first) => (first && c !== LT ? abandon(at) : null),
  tag(r, tag, base, first, closesBlock) {
    const end = base + tag.end;
    // An undeclared tool's element (opened only after a call in a block still open, DSML_OPENER) is a call only with a child first (`<{D}query>`): not `<{D}thinking>` before an example.
    if (first && !opensToolElement(tag) && !namesTool(r, r.opener.name)) return abandon(base + tag.start);
    // The tool's closer is the element's only where the value rule says so: a child named like the
    // tool (`<{D}note>` in `note`) is closed by it first (dsmlValueStep "close"), as the walk reads it.
    if (tag.closing && (tag.role === "invoke" || (tag.family === "dsml" && tag.name === r.opener.name && r.dsmlStep() === "end-call"))) {
      // Inside a value it ends the element only by the closer rule (golden E45.5-E45.7): the reader
      // weighs it after trail() or takeCloser() (the value's step is "end-call", parse/dsml-value.ts).
      if (r.enclosing) return r.trail();
      return r.valueOpen() ? r.takeCloser(end) : complete(end);
    }
    // A child named like a block only by a guess (`</{D}callback>`) closes no block here.
    return closesBlock && (tag.family !== "dsml" || isWrapperName(tag.name)) ? complete(end) : null;
  },
  parse: parseInvokeMarkup,
};

/**
 * DSML's opener rule (tag family "dsml"): a block, an invoke or a parameter opens its span; a tag
 * named after a declared tool opens a tool element (I11); an invoke or tool element inside a
 * block still open continues it. A block's closer ends the open block; other closers and inner
 * tags are a recovered call's noise, or stray markers reported as broken.
 */
export const DSML_OPENER: OpenerRule = (tag, s, view) => {
  if (tag.flaws & Flaw.MissingLt) {
    if (tag.closing || (tag.role !== "invoke" && tag.role !== "block")) return "text";
  }
  if (tag.closing && tag.role === "block" && view.closeOpenBlock()) return view.tail ? "noise" : "text";
  if (opensToolElement(tag) && view.declared(writtenName(s, tag))) {
    return view.openBlock !== null && view.openBlock !== true ? { open: "tool-element", enclosing: view.openBlock } : { open: "tool-element" };
  }
  // Review 52, finding 3: after a recovered call in a block still open, an undeclared tool's element is its call (reported undeclared-tool, kept), not the call's noise.
  if (view.tail && opensToolElement(tag) && view.openBlock !== null && view.openBlock !== true) return { open: "tool-element", enclosing: view.openBlock };
  if (tag.closing || tag.role === "other" || tag.role === "function" || tag.role === "name") return view.tail ? "noise" : "stray";
  if (tag.role === "invoke" && tag.attrs.name === undefined) return "stray";
  if (tag.role === "invoke" && view.openBlock !== null && view.openBlock !== true) return { open: "invoke", enclosing: view.openBlock };
  return { open: tag.role === "block" ? "block" : tag.role === "invoke" ? "invoke" : "parameter" };
};

/**
 * The unprefixed tags' opener rule (tag family "naked"): a wrapper opens a block (MiniMax's behind
 * its switch), a named invoke an invoke (inside a block still open, its continuation), a function
 * element an element, and `<function=NAME>` Qwen3-Coder (O02) behind its switch. A closer is text,
 * except a block's closer right after a recovered call, which is its noise.
 */
export const NAKED_OPENER: OpenerRule = (tag, _s, view) => {
  if (tag.closing) return tag.role === "block" && view.closeOpenBlock() && view.tail ? "noise" : "text";
  if (tag.flaws & Flaw.EqualsName) return tag.role === "function" && view.dialects.qwen3coder ? { open: "qwen-function" } : "text";
  if (tag.role === "block") return tag.name !== "minimax:tool_call" || view.dialects.minimax ? { open: "block" } : "text";
  if (tag.role === "invoke" && tag.attrs.name !== undefined) {
    return view.openBlock !== null && view.openBlock !== true ? { open: "invoke", enclosing: view.openBlock } : { open: "invoke" };
  }
  if (tag.role === "function") return { open: "element" };
  return "text";
};
