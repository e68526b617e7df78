import { endCutOffAtLastTag, tagsOf, type Segment } from "../segments.ts";
import { textArgsOutcome, truncatedCall, wholeSpan, type SpanContext } from "../call.ts";
import { trimLayoutNewlines } from "./common.ts";
import { lineIndentBefore } from "../values.ts";
import { abandonOnFirst, complete, type SpanKind, type SpanReader } from "../span-kind.ts";
import { closerRule } from "../closer-in-value.ts";
import { closerEndsCall } from "../closer-ends-call.ts";
import { exampleEnd, exampleOpener } from "../example-in-value.ts";
import type { Tag } from "../../grammar/tags.ts";
import { CR, LF, SP, TAB } from "../../grammar/chars.ts";
import type { ToolSpec } from "../types.ts";
import { unreadParameterOpenerIn } from "../unread-opener.ts";

/**
 * O02 Qwen3-Coder: `<function=NAME>` then `<parameter=KEY>VALUE</parameter>` pairs then
 * `</function>`. Values are raw text (one hugging newline each side is layout), typed by schema.
 * A parameter ends at its closer or at the function's closer. The next parameter's opener may end
 * it as the stream's boundaries go (QwenParameters: at a line start, naming a parameter the tool
 * declares and the call has not given), but such a call is refused (O02.4, golden P47.10: the opener
 * may have been the value's text, a page documenting the format); any other `<parameter=` in a value is its text, and the value must
 * then reach its own `</parameter>` or the call is refused (golden G43.1-G43.3). A `</parameter>` that closes
 * no open value refuses the call too (golden G44.1-G44.2): the markup is not what the walk read. The function ends at its
 * closer or, inside a `<tool_call>` that closed, at the wrapper's closer (`closedByWrapper`). Only a
 * function that never reached either boundary is truncated.
 * A second `<function=…>` before the first closed is unread markup (the call is refused, never run
 * with the second function's parameters), unless it sits inside a parameter that its own
 * `</parameter>` closes: then it is that value's text, as a complete example of any dialect in a
 * value is when the value reaches its `</parameter>` (example-in-value.ts ExampleInValue).
 */
export function parseQwenFunctions(span: string, from: number, to: number, ctx: SpanContext, closedByWrapper = false): Segment[] {
  let name: string | null = null;
  let closed = false;
  /**
   * `closerAsText`: a `</function>` inside the value was read as its text (the closer rule);
   * `openerAsText`: a `<parameter=` inside it was (QwenParameters).
   */
  let open: { key: string; start: number; indent?: string | null; function?: true; closerAsText?: true; openerAsText?: true; wrapperAsText?: true } | null = null;
  let params: QwenParameters | null = null;
  const pairs: [string, string][] = [];
  /** Text between parameters (after a closer, before the next opener) that no parameter read. */
  let unread = false;
  /** A second function opener before the first closed, outside a value its own closer ends. */
  let second = false;
  let outsideFrom = -1;
  /**
   * A value that held a `</function>` as its text was then ended by something other than its own
   * `</parameter>` (the function's closer, the next parameter, the wrapper's closer): that closer may
   * have been the real one, so which value the model meant is unknowable. The call is refused.
   */
  let cutShort = false;
  /** The same for a value that held a `<parameter=` as its text (golden G43.1): it may have been a parameter of its own. */
  let openerCutShort = false;
  /**
   * The same for a value that held a `<tool_call>` opener of an example that did not end whole in
   * it: the `</tool_call>` that ended the body may have been that example's own.
   */
  let wrapperCutShort = false;
  /**
   * A `</parameter>` that closes no open value (golden G44.2). It carries no argument, but it shows the
   * markup is not what the walk read: after a value a line-start opener ended (a lost closer, O02.4)
   * the closers balance only if that opener was the value's text (a file documenting the format);
   * anywhere else it is markup outside every parameter, which refuses the call as text there does.
   * `lostCloser`: some value was ended by the next parameter's opener, not by its own closer.
   */
  let stray = false;
  let lostCloser = false;
  /** A value held a `<parameter=` the tag grammar does not read (`<parameter= workdir>`): its `</parameter>` may have been that opener's (golden O48.1). */
  let unreadOpener = false;
  /** `byCloser`: the parameter's own `</parameter>` ends it (not the next opener, nor the function's end). */
  const endParam = (at: number, byCloser = false) => {
    if (open) pairs.push([open.key, trimLayoutNewlines(span.slice(open.start, at), !byCloser, open.indent ?? null)]);
    if (open && unreadParameterOpenerIn(span, open.start, at, "qwen") >= 0) unreadOpener = true;
    if (open?.function && !byCloser) second = true;
    if (open?.closerAsText && !byCloser) cutShort = true;
    if (open?.openerAsText && !byCloser) openerCutShort = true;
    if (open?.wrapperAsText && !byCloser) wrapperCutShort = true;
    open = null;
  };
  const text = span.slice(0, to);
  const tags = tagsOf(text, from);
  // Tags before skipUntil are examples in a value; none starts before exampleFrom.
  let skipUntil = 0;
  let exampleFrom = 0;
  for (const [index, tag] of tags.entries()) {
    if (closed || index < skipUntil) continue;
    if (open !== null && index >= exampleFrom && exampleOpener(tag, "naked")) {
      const found = exampleEnd(text, tags, index, "naked");
      if (found.end >= 0) {
        skipUntil = found.end;
        continue;
      }
      exampleFrom = found.stop;
    }
    if (name !== null && open === null && outsideFrom >= 0 && span.slice(outsideFrom, tag.start).trim() !== "") unread = true;
    // A `</tool_call>` before the body's end sat in a value and was read as its text (tool-call.ts): only `</parameter>` may end that value.
    if (open !== null && tag.family === "costume" && tag.closing && tag.name === "tool_call") open.closerAsText = true;
    if (open !== null && tag.family === "costume" && !tag.closing && tag.name === "tool_call") open.wrapperAsText = true;
    if (tag.family !== "naked") continue;
    if (tag.role === "function") {
      if (!tag.closing && name === null) {
        name = tag.attrs.name ?? null;
        if (name !== null) params = new QwenParameters(ctx.tools.get(name));
      } else if (!tag.closing) {
        if (open === null) second = true;
        else open.function = true;
      }
      // O02.5: `</function>` ends an open value only by the closer rule; otherwise it is the value's text.
      else if (name !== null && (open === null || closerEndsCall(span, tag.end, to, tags, index + 1, QWEN_VALUE))) {
        endParam(tag.start);
        closed = true;
      } else if (open !== null) open.closerAsText = true;
    } else if (tag.role === "parameter" && params !== null) {
      if (!tag.closing) {
        const key = tag.attrs.name ?? "";
        if (params.opener(key, () => startsLineAfterBreak(span, tag.start)) === "opens") {
          if (open !== null) lostCloser = true;
          endParam(tag.start);
          open = { key, start: tag.end, indent: lineIndentBefore(span, tag.start, ctx.openerIndent) };
        } else if (open !== null) open.openerAsText = true;
      } else {
        const closer = params.closer();
        if (closer === "closes") endParam(tag.start, true);
        else if (closer === "stray") stray = true;
      }
    } else if (name !== null && open === null) unread = true;
    outsideFrom = tag.end;
  }
  if (name === null) return wholeSpan(span.length, { kind: "foreign" });
  if (!closed) {
    // Cut off: broken markup up to its last tag; the value's text and what follows stay text (test/history/cut-off-span.test.ts).
    if (!closedByWrapper) return endCutOffAtLastTag(wholeSpan(span.length, truncatedCall("O02", name)), span, from);
    if (open === null && outsideFrom >= 0 && span.slice(outsideFrom, to).trim() !== "") unread = true;
    endParam(to);
  }
  // Every refusal below is the whole span as one broken O02 call of this tool, its text kept.
  const tool = name;
  const refused = (detail: string) => wholeSpan(span.length, { kind: "broken", shape: "O02", reason: "broken-markup", detail, tool });
  if (second) return refused("a second <function=…> before the first closed");
  if (cutShort) return refused("a </function> inside a value was read as its text, and the value never reached its </parameter>");
  if (unreadOpener) return refused("a <parameter=…> the tag grammar does not read (a stray space or bar) stands inside a value: the </parameter> after it may be its own, so where the value ends is unknowable");
  if (wrapperCutShort) return refused("a <tool_call> inside a value opened an example, and the value never reached its </parameter>: the </tool_call> that ended it may be the example's");
  if (openerCutShort) return refused("a <parameter=…> inside a value was read as its text, and the value never reached its </parameter>");
  if (stray) {
    return refused(
      lostCloser ? "a </parameter> closes no value: the <parameter=…> that ended a value without its closer may have been that value's text" : "a </parameter> closes no value",
    );
  }
  // O02.4 (golden P47.10): a value the next `<parameter=…>` ended before its `</parameter>` refuses the call. A lost closer and
  // a value documenting an unclosed opener (then closed by the value's own closer) are the same tags and counts, so the
  // call would run either cut short with an argument the model only quoted, or with a value that swallowed a parameter.
  if (lostCloser) return refused("a <parameter=…> ended a value before its </parameter>: that opener may be the value's text, so where the value ends is unknowable");
  if (unread) return refused("text or markup outside every parameter");
  return wholeSpan(span.length, textArgsOutcome(name, pairs, "O02", ctx));
}

/** A bare `<function=NAME>` (Qwen3-Coder, O02 without its wrapper): a parameter comes first, the function's closer ends it. */
export const QWEN_FUNCTION: SpanKind<QwenParameters> = {
  watchesContent: false,
  body: (r) => new QwenParameters(r.tools.get(r.opener.attrs.name ?? "")),
  // A function for a declared tool whose body, laid out on lines of its own, is no parameter
  // (YAML-like lines, `content: |`, golden O48.4 without its wrapper) proved a call that broke:
  // refused whole up to its `</function>`, so a costume in the text it meant to write never runs
  // (as a broken `<tool_call>` body is). The same for a tool no one declared: its body is the
  // argument of a call that cannot run, and a costume in it is no call of its own. Named in a
  // sentence that goes on on its line (a mention), it is text at its first character, as before.
  content: (r, c, at, first) => {
    if (!first || !r.startsLine(at)) return abandonOnFirst(r, c, at, first);
    r.refuseWhole("O02", "the function's body is no <parameter=…> pairs", at);
    return null;
  },
  tag: (r, tag, base, _first, _closesBlock, params) => {
    if (trackQwenParameter(r, tag, base, params)) return r.tentatively(QWEN_VALUE, base + tag.end);
    return tag.closing && tag.role === "function" ? complete(base + tag.end) : null;
  },
  parse: ({ span, ctx }) => parseQwenFunctions(span, 0, span.length, ctx),
  valueFamily: (r) => (r.nest(0) === 2 ? "naked" : null),
};

/** A `</function>` inside an open value: a `</parameter>` next proves it was the value's text. */
const QWEN_VALUE = closerRule("naked");

/**
 * As a Qwen3-Coder body streams: whether a parameter is open, decided by `params` as the walk
 * decides it (parseQwenFunctions) and mirrored in the reader's depth (2 while a value is open).
 * True for a `</function>` that arrives while a value is open: it ends the call only by the closer
 * rule (golden A40.n4, A40.15).
 */
export function trackQwenParameter(r: SpanReader, tag: Tag, base: number, params: QwenParameters): boolean {
  if (tag.family !== "naked") return false;
  const open = params.open;
  if (tag.role === "parameter") {
    if (tag.closing) params.closer();
    else params.opener(tag.attrs.name ?? "", () => r.startsLine(base + tag.start));
    if (params.open !== open) r.nest(params.open ? 1 : -1);
    return false;
  }
  return tag.role === "function" && tag.closing && open;
}

/**
 * Which `<parameter=…>` tags of one Qwen3-Coder function open and close its values (golden G43.2).
 * With no value open, an opener opens one. With one open (its `</parameter>` lost, O02.4), the next
 * opener ends it only when it starts its line (only spaces or tabs before it) and names a parameter
 * the tool declares that this call has not given yet (for a tool with no declared properties, or no
 * declared tool: a line start alone); the walk then refuses the call (golden P47.10: a lost closer and a
 * value documenting the opener are the same tags), so this only sets the stream's boundaries. Any other opener is the value's text (a file documenting the
 * format, `echo <parameter=x>`), and the `</parameter>` that follows closes that opener, not the
 * value: the value's own closer is the one that balances them. A value that held such an opener and
 * ends any other way is refused by the walk, never run cut short, and so is a call holding a
 * `</parameter>` that closes no value ("stray": after a value a line-start opener ended, the
 * closers balance only if that opener was the value's text). The stray closer leaves this state as
 * it was, so the stream's boundaries do not depend on it. The walk (parseQwenFunctions,
 * tool-call.ts wrapperCloser) and the stream (trackQwenParameter) step this same state.
 */
export class QwenParameters {
  /** A value is open. */
  open = false;
  /** Openers read as the open value's text whose `</parameter>` has not come yet. */
  private inner = 0;
  /** Every key this call has opened a value for, the open one included. */
  private readonly given = new Set<string>();
  /** The tool's declared parameters, or null when it declares none (or is not declared). */
  private readonly declared: ReadonlySet<string> | null;

  constructor(tool: ToolSpec | undefined) {
    const properties = tool?.parameters?.properties;
    const keys = properties !== null && typeof properties === "object" ? Object.keys(properties) : [];
    this.declared = keys.length > 0 ? new Set(keys) : null;
  }

  /** `<parameter=KEY>`: "opens" a value (ending the open one, if any), or "text" of the open value. */
  opener(key: string, startsLine: () => boolean): "opens" | "text" {
    if (this.open && !this.endsValue(key, startsLine)) {
      this.inner++;
      return "text";
    }
    this.open = true;
    this.inner = 0;
    this.given.add(key);
    return "opens";
  }

  /** `</parameter>`: "closes" the open value, "text" (it closes an opener read as text), or "stray" (no value open). */
  closer(): "closes" | "text" | "stray" {
    if (!this.open) return "stray";
    if (this.inner > 0) {
      this.inner--;
      return "text";
    }
    this.open = false;
    return "closes";
  }

  /** The function's closer ended the open value. */
  end(): void {
    this.open = false;
    this.inner = 0;
  }

  private endsValue(key: string, startsLine: () => boolean): boolean {
    if (this.inner > 0) return false;
    if (this.declared !== null && (!this.declared.has(key) || this.given.has(key))) return false;
    return startsLine();
  }
}

/**
 * Only spaces or tabs stand between a line break (LF or CR) and `at` in `text`: the text's first
 * line does not count, as the stream's SpanReader.startsLine (engine/candidate.ts) reads it.
 */
export function startsLineAfterBreak(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) return true;
    if (c !== SP && c !== TAB) return false;
  }
  return false;
}
