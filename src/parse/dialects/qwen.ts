import { tagsOf, type Segment } from "../segments.ts";
import { textArgsOutcome, truncatedCall, wholeSpan, type SpanContext } from "../call.ts";
import { trimLayoutNewlines } from "./common.ts";
import { abandonOnFirst, complete, type SpanKind, type SpanReader } from "../span-kind.ts";
import { closerEndsCall, closerRule, exampleEnd, exampleOpener } from "../closer-in-value.ts";
import type { Tag } from "../../grammar/tags.ts";

/**
 * O02 Qwen3-Coder: `<function=NAME>` then `<parameter=KEY>VALUE</parameter>` pairs then
 * `</function>`. Values are raw text (one hugging newline each side is layout), typed by schema.
 * A parameter ends at its closer, at the next parameter's opener, or at the function's closer;
 * the function ends at its closer or, inside a `<tool_call>` that closed, at the wrapper's closer
 * (`closedByWrapper`). Only a function that never reached either boundary is truncated.
 * A second `<function=…>` before the first closed is unread markup (the call is refused, never run
 * with the second function's parameters), unless it sits inside a parameter that its own
 * `</parameter>` closes: then it is that value's text, as a complete example of any dialect in a
 * value is when the value reaches its `</parameter>` (closer-in-value.ts ExampleInValue).
 */
export function parseQwenFunctions(span: string, from: number, to: number, ctx: SpanContext, closedByWrapper = false): Segment[] {
  let name: string | null = null;
  let closed = false;
  /** `closerAsText`: a `</function>` inside the value was read as its text (the closer rule). */
  let open: { key: string; start: number; function?: true; closerAsText?: true } | null = null;
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
  /** `byCloser`: the parameter's own `</parameter>` ends it (not the next opener, nor the function's end). */
  const endParam = (at: number, byCloser = false) => {
    if (open) pairs.push([open.key, trimLayoutNewlines(span.slice(open.start, at), !byCloser)]);
    if (open?.function && !byCloser) second = true;
    if (open?.closerAsText && !byCloser) cutShort = true;
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
    if (tag.family !== "naked") continue;
    if (tag.role === "function") {
      if (!tag.closing && name === null) name = tag.attrs.name ?? null;
      else if (!tag.closing) {
        if (open === null) second = true;
        else open.function = true;
      }
      // O02.5: `</function>` ends an open value only by the closer rule; otherwise it is the value's text.
      else if (name !== null && (open === null || closerEndsCall(span, tag.end, to, tags, index + 1, QWEN_VALUE))) {
        endParam(tag.start);
        closed = true;
      } else if (open !== null) open.closerAsText = true;
    } else if (tag.role === "parameter" && name !== null) {
      if (!tag.closing) {
        endParam(tag.start);
        open = { key: tag.attrs.name ?? "", start: tag.end };
      } else endParam(tag.start, true);
    } else if (name !== null && open === null) unread = true;
    outsideFrom = tag.end;
  }
  if (name === null) return wholeSpan(span.length, { kind: "foreign" });
  if (!closed) {
    if (!closedByWrapper) return wholeSpan(span.length, truncatedCall("O02", name));
    if (open === null && outsideFrom >= 0 && span.slice(outsideFrom, to).trim() !== "") unread = true;
    endParam(to);
  }
  if (second) return wholeSpan(span.length, { kind: "broken", shape: "O02", reason: "broken-markup", detail: "a second <function=…> before the first closed", tool: name });
  if (cutShort) {
    return wholeSpan(span.length, { kind: "broken", shape: "O02", reason: "broken-markup", detail: "a </function> inside a value was read as its text, and the value never reached its </parameter>", tool: name });
  }
  if (unread) return wholeSpan(span.length, { kind: "broken", shape: "O02", reason: "broken-markup", detail: "text or markup outside every parameter", tool: name });
  return wholeSpan(span.length, textArgsOutcome(name, pairs, "O02", ctx));
}

/** A bare `<function=NAME>` (Qwen3-Coder, O02 without its wrapper): a parameter comes first, the function's closer ends it. */
export const QWEN_FUNCTION: SpanKind = {
  watchesContent: false,
  content: abandonOnFirst,
  tag: (r, tag, base) => {
    if (trackQwenParameter(r, tag)) return r.tentatively(QWEN_VALUE, base + tag.end);
    return tag.closing && tag.role === "function" ? complete(base + tag.end) : null;
  },
  parse: ({ span, ctx }) => parseQwenFunctions(span, 0, span.length, ctx),
  valueFamily: (r) => (r.nest(0) === 2 ? "naked" : null),
};

/** A `</function>` inside an open value: a `</parameter>` next proves it was the value's text. */
export const QWEN_VALUE = closerRule("naked");

/**
 * As a Qwen3-Coder body streams: whether a parameter is open, kept as the reader's depth (2 while
 * a value is open; the next `<parameter=` ends a value too, O02.4). True for a `</function>` that
 * arrives while a value is open: it ends the call only by the closer rule (review finding 3).
 */
export function trackQwenParameter(r: SpanReader, tag: Tag): boolean {
  if (tag.family !== "naked") return false;
  const open = r.nest(0) === 2;
  if (tag.role === "parameter") {
    if (!tag.closing && !open) r.nest(1);
    else if (tag.closing && open) r.nest(-1);
    return false;
  }
  return tag.role === "function" && tag.closing && open;
}
