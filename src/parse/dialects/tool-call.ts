import { Flaw, type Tag } from "../../grammar/tags.ts";
import { endCutOffAtLastTag, tagsOf, textSpan, type Segment, type UnitOutcome } from "../segments.ts";
import { parseJson, propertySchema } from "../values.ts";
import { ARGUMENT_KEYS, PROTOTYPE_KEY_DETAIL, callOutcome, declaredNameIn, jsonCallOutcome, readJsonCall, textArgsOutcome, truncatedCall, wholeSpan, type SpanContext } from "../call.ts";
import { trimLayoutNewlines } from "./common.ts";
import { parseQwenFunctions, QwenParameters, startsLineAfterBreak } from "./qwen.ts";
import { xmlToolCall } from "../costume-xml.ts";
import { complete, type SpanKind } from "../span-kind.ts";
import { ARGS_IN_VALUE, GLM_IN_VALUE, QWEN_IN_WRAPPER, ToolCallBody, ToolCallStart } from "./tool-call-body.ts";
import { closerEndsCall } from "../closer-ends-call.ts";
import { exampleEnd, exampleOpener } from "../example-in-value.ts";
import { COLON, DASH, DOT, UNDERSCORE } from "../../grammar/chars.ts";
import { isObject } from "../../grammar/plain-data.ts";
import { JsonSyntax } from "../../grammar/json-syntax.ts";

/** A GLM tool name as the body's first word (what the engine's name phase accepts), or undefined. */
function glmName(body: string): string | undefined {
  const isStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === UNDERSCORE;
  const isName = (c: number) => isStart(c) || (c >= 0x30 && c <= 0x39) || c === DASH || c === DOT || c === COLON;
  if (!isStart(body.charCodeAt(0))) return undefined;
  let end = 1;
  while (end < body.length && isName(body.charCodeAt(end))) end++;
  return body.slice(0, end);
}

/**
 * `<tool_call>` is shared by four formats; the body tells them apart: a JSON object (Hermes/Qwen,
 * O01), `<function=` (Qwen3-Coder, O02), a name then `<arg_key>` pairs or nothing (GLM, O03), or
 * `<tool_name>`/`<code>` (the C01/C05 costume, `xmlCostume`). `truncated`: the reply ended first.
 * Whatever the body, an opener attribute no body reads (`<tool_call timeout="600">`) refuses the
 * call: it would run without it. A call's `id` labels it; `name=` is read by T01's JSON body only.
 */
function parseToolCallSpan(span: string, opener: Tag, ctx: SpanContext, truncated: boolean, xmlCostume: (span: string) => Segment[]): Segment[] {
  const segments = readToolCallSpan(span, opener, ctx, truncated, xmlCostume);
  const json = span.slice(opener.end).trimStart().startsWith("{");
  const unread = Object.keys(opener.attrs).find((attr) => attr !== "id" && (attr !== "name" || !json));
  if (unread === undefined) return segments;
  return segments.map((s) => (s.kind === "call" ? { kind: "broken", start: s.start, end: s.end, shape: s.shape, reason: "broken-markup", detail: unreadAttributeDetail(unread, s.tool, ctx), tool: s.tool } : s));
}

/**
 * The detail for an opener attribute no body reads: the attribute is named only when the tool
 * declares a parameter of that name (`timeout=` on bash); an invented name may be anything the
 * model pasted and is never repeated.
 */
function unreadAttributeDetail(attr: string, toolName: string, ctx: SpanContext): string {
  const tool = ctx.tools.get(toolName);
  return tool && propertySchema(tool.parameters, attr) !== undefined ? `the opening tag carries ${attr}=, which no parameter reads` : "the opening tag carries an attribute no parameter reads";
}

function readToolCallSpan(span: string, opener: Tag, ctx: SpanContext, truncated: boolean, xmlCostume: (span: string) => Segment[]): Segment[] {
  const closer = truncated ? undefined : wrapperCloser(span, opener, ctx);
  const bodyEnd = closer ? closer.start : span.length;
  const body = span.slice(opener.end, bodyEnd);
  const trimmed = body.trim();
  const dialects = ctx.options.dialects;
  const whole = (outcome: Parameters<typeof wholeSpan>[1]) => wholeSpan(span.length, outcome);
  if (trimmed.startsWith("{")) {
    if (!dialects.hermes) return textSpan(span.length);
    const parsed = parseJson(trimmed);
    if (opener.attrs.name !== undefined) {
      // `<tool_call name="read" name="bash">`: which tool was meant is unknowable, so the nudge names none.
      if (opener.flaws & Flaw.RepeatedAttr) return whole({ kind: "broken", shape: "T01", reason: "broken-markup", detail: "the opening tag names an attribute twice" });
      // `<tool_call name="bash" timeout="600">`: the attribute is an argument the JSON body does not carry (a call's `id` labels it).
      const unread = Object.keys(opener.attrs).find((attr) => attr !== "name" && attr !== "id");
      if (unread !== undefined) return whole({ kind: "broken", shape: "T01", reason: "broken-markup", detail: unreadAttributeDetail(unread, opener.attrs.name, ctx), tool: opener.attrs.name });
      return whole(namedToolCall(opener.attrs.name, parsed, truncated, ctx));
    }
    if (!parsed.ok) {
      if (truncated) return whole(truncatedCall("O01"));
      // JSON that went wrong, then its own closer or a new line (a call cut off mid-JSON): a nudge when it names a declared tool.
      // (A body without its closer reaches here only when the stream ended it at such a line.)
      const named = declaredNameIn(trimmed, ctx);
      const detail = parsed.prototypeKey ? PROTOTYPE_KEY_DETAIL : "the call's JSON is malformed";
      return named === undefined ? textSpan(span.length) : whole({ kind: "broken", shape: "O01", reason: "broken-markup", detail, tool: named });
    }
    if (!isObject(parsed.value)) return textSpan(span.length);
    const name = parsed.value.name;
    if (typeof name !== "string") return textSpan(span.length);
    const read = readJsonCall(parsed.value);
    // `{"name": X}` alone is how prose shows the format; it is a call only for a declared tool that needs nothing.
    const tool = ctx.tools.get(name);
    // Keys it cannot place make a declared tool's call broken; for an undeclared name they are prose, as before.
    const mention = read.kind === "call" ? read.argumentsKey === null && (!tool || tool.parameters?.required?.length) : !tool;
    if (mention) return textSpan(span.length);
    return whole(jsonCallOutcome(parsed.value, "O01", ctx));
  }
  if (trimmed.startsWith("<function=")) {
    return dialects.qwen3coder ? parseQwenFunctions(span, opener.end, bodyEnd, ctx, closer !== undefined) : textSpan(span.length);
  }
  const name = glmName(trimmed);
  if (name !== undefined) {
    if (!dialects.glm) return textSpan(span.length);
    const rest = trimmed.slice(name.length).trim();
    // Zero arguments: a closed `<tool_call>NAME</tool_call>` for a declared tool; an unclosed or unknown name is prose.
    if (rest === "") return closer && ctx.tools.has(name) ? whole(textArgsOutcome(name, [], "O03", ctx)) : textSpan(span.length);
    // GLM closing a zero-argument call with its value closer, `<tool_call>NAME</arg_value>` (T02): the closer proves the markup.
    if (rest === VALUE_CLOSER) return ctx.tools.has(name) ? valueClosed(span, bodyEnd, closer !== undefined, textArgsOutcome(name, [], "T02", ctx)) : textSpan(span.length);
    // Cut off: broken markup up to its last tag; the value's text and what follows stay text (test/history/cut-off-span.test.ts).
    if (truncated) return endCutOffAtLastTag(whole(truncatedCall("O03", name)), span, opener.start);
    return whole(glmPairs(body, name, ctx));
  }
  if (truncated || !ctx.options.codeCostumes) return textSpan(span.length);
  return xmlCostume(span);
}

const VALUE_CLOSER = "</arg_value>";

/**
 * The `</tool_call>` that ends the body: the first one, except that inside a Qwen3-Coder value
 * (`echo "</tool_call>" && rm -rf build`) or a GLM `<arg_value>` it ends the call only by the closer
 * rule (parse/closer-in-value.ts; golden A40.n10, A40.23), as the stream reads it (tool-call-body.ts):
 * text after it on its line makes it the value's text, and parseQwenFunctions or glmPairs then
 * want the value's own `</parameter>` or `</arg_value>`. A complete example in such a value is
 * skipped whole (example-in-value.ts); after a Hermes JSON body, the first closer after the JSON.
 * Which Qwen3-Coder `<parameter=` tags open and close a value, QwenParameters decides, as for the stream.
 */
function wrapperCloser(span: string, opener: Tag, ctx: SpanContext): Tag | undefined {
  const head = span.slice(opener.end).trimStart();
  // A `</tool_call>` in a Hermes JSON string is its text, as the stream reads it (ToolCallStart).
  if (head.startsWith("{")) {
    const end = jsonValueEnd(span, opener.end);
    if (end >= 0) return tagsOf(span, end).find(isToolCallCloser);
  }
  const tags = tagsOf(span, opener.end);
  const qwen = head.startsWith("<function=");
  const glm = !qwen && glmName(head) !== undefined;
  let open = false;
  let params: QwenParameters | null = null;
  let skipUntil = 0;
  let exampleFrom = 0;
  for (const [index, tag] of tags.entries()) {
    if (index < skipUntil) continue;
    const family = glm ? "costume" : "naked";
    if ((qwen || glm) && open && index >= exampleFrom && exampleOpener(tag, family)) {
      const found = exampleEnd(span, tags, index, family);
      if (found.end >= 0) {
        skipUntil = found.end;
        continue;
      }
      exampleFrom = found.stop;
    }
    if (isToolCallCloser(tag)) {
      if (!open || closerEndsCall(span, tag.end, span.length, tags, index + 1, glm ? GLM_IN_VALUE : QWEN_IN_WRAPPER)) return tag;
      continue;
    }
    if (glm) {
      // As the stream's phases: a value opens at `<arg_value>` and only its own closer ends it.
      if (tag.family === "costume" && tag.name === "arg_value") open = !tag.closing;
      continue;
    }
    if (!qwen || tag.family !== "naked") continue;
    if (tag.role === "function" && !tag.closing && params === null) params = new QwenParameters(ctx.tools.get(tag.attrs.name ?? ""));
    else if (tag.role === "parameter" && params !== null) {
      if (tag.closing) params.closer();
      else params.opener(tag.attrs.name ?? "", () => startsLineAfterBreak(span, tag.start));
      open = params.open;
    } else if (tag.role === "function" && tag.closing && open && closerEndsCall(span, tag.end, span.length, tags, index + 1, QWEN_IN_WRAPPER)) {
      params?.end();
      open = false;
    }
  }
  return undefined;
}

// Just past the JSON value that starts after `from`, or -1.
function jsonValueEnd(span: string, from: number): number {
  const json = new JsonSyntax();
  for (let i = from; i < span.length; i++) {
    const step = json.step(span.charCodeAt(i));
    if (step === "done") return i + 1;
    if (step === "bad") return -1;
  }
  return -1;
}

/**
 * T02's unit: with the wrapper's own closer the whole span; without it the unit ends right after
 * `</arg_value>`, and what the span took after it (the layout up to the next content, read while the
 * closer might still come) is laid down as text: a blank line and the next line's indentation stay
 * visible, as after `</tool_call>`.
 */
function valueClosed(span: string, bodyEnd: number, closed: boolean, outcome: UnitOutcome): Segment[] {
  if (closed) return wholeSpan(span.length, outcome);
  const end = span.lastIndexOf(VALUE_CLOSER, bodyEnd) + VALUE_CLOSER.length;
  const unit = wholeSpan(end, outcome);
  return end < span.length ? [...unit, { kind: "text", start: end, end: span.length }] : unit;
}

/**
 * `<tool_call name="NAME">{json args}</tool_call>` (T01, seen from DeepSeek V4 Pro): the name sits in
 * the opener, the body is the arguments object. A body that is itself a call object (it carries a
 * key that names a tool or holds calls in any spelling this package reads as a call: see
 * CALL_ENVELOPE_KEYS) is never taken for the opener's tool's arguments, with one exception: every
 * key of the body is a declared parameter of the opener's tool (a `run_workflow` taking `name` and
 * `input`): then the body is plainly that tool's own arguments. Otherwise:
 * - spelled `{"name": …}` and naming the opener's tool, it is read as that call (R9.3), strictly as a
 *   Hermes body: a key it cannot place (`{"name": "list_sessions", "verbose": true}`, the flattened
 *   form a Hermes body refuses too) refuses it, never passing `name` to the tool (golden R44.8);
 * - under another name, or in another spelling (`{"tool": …}`, `{"function": {…}}`,
 *   `{"tool_calls": […]}`, `{"tool_name": …}`), it is refused naming no tool (golden R43.1,
 *   R44.6-R44.7): the opener and the body may name two tools, and which one was meant is
 *   unknowable, as for `name=` written twice (R12.6). Running the opener's tool with the other
 *   call as its arguments would run a call nobody wrote, and the inner tool's arguments were
 *   never meant for the opener's.
 * Anything else that is no JSON object is a broken call, since the opener already named a tool.
 */
function namedToolCall(name: string, parsed: ReturnType<typeof parseJson>, truncated: boolean, ctx: SpanContext): UnitOutcome {
  if (!parsed.ok) return truncated ? truncatedCall("T01", name) : { kind: "broken", shape: "T01", reason: "broken-markup", detail: "the call's JSON is malformed", tool: name };
  const body = parsed.value;
  if (!isObject(body)) return { kind: "broken", shape: "T01", reason: "broken-markup", detail: "tool call arguments are not a JSON object", tool: name };
  if (!isCallObject(body)) return callOutcome(name, body, "T01", ctx);
  const tool = ctx.tools.get(name);
  const ownArguments = tool !== undefined && Object.keys(body).every((key) => propertySchema(tool.parameters, key) !== undefined);
  // The same tool spelled as Hermes spells it: its arguments under an argument key, or flattened beside `name` unless `name` is the tool's own parameter.
  if (body.name === name && (hasArgumentKey(body) || !ownArguments)) return jsonCallOutcome(body, "T01", ctx);
  if (ownArguments) return callOutcome(name, body, "T01", ctx);
  return { kind: "broken", shape: "T01", reason: "broken-markup", detail: "the opening tag names one tool and the body is a call object of its own: which call was meant is unknowable" };
}

/**
 * The keys that make a JSON object a call (or calls) of its own, in every spelling a reader of this
 * package knows: `name` (Hermes, Mistral, J01 entries), `tool` (MiniMax's JSON bracket body),
 * `tool_calls` (J01's wrapper object), `function` (an OpenAI tool_calls entry,
 * `{"type": "function", "function": {"name": …}}`), `function_call` (its older form) and
 * `tool_name` (the C01 costume's field). An argument key alone (`{"arguments": {…}}`) names no
 * other tool: such a body stays the opener's tool's to read and its schema's to check. `type` alone
 * names no tool either (a common parameter name); an OpenAI entry carries `function` beside it.
 */
const CALL_ENVELOPE_KEYS = ["name", "tool", "tool_name", "function", "function_call", "tool_calls"] as const;

const hasKey = (body: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(body, key);
const isCallObject = (body: Record<string, unknown>) => CALL_ENVELOPE_KEYS.some((key) => hasKey(body, key));
const hasArgumentKey = (body: Record<string, unknown>) => ARGUMENT_KEYS.some((key) => hasKey(body, key));

/**
 * GLM's pairs (O03) read from the body's tags in order, as the stream reads them: `<arg_key>`, the
 * key, `</arg_key>`, then `<arg_value>` as the next tag, the value up to the first `</arg_value>`
 * (a `</tool_call>` in it is its text by the closer rule, wrapperCloser; a second `<arg_value>` in it
 * refuses the call); only whitespace between pairs. Anything else (text or a tag between pairs, a key opener without
 * its pair, an attribute on a pair's tag) refuses the call: a value is never taken from another pair.
 */
function glmPairs(body: string, name: string, ctx: SpanContext): UnitOutcome {
  const broken = (detail: string): UnitOutcome => ({ kind: "broken", shape: "O03", reason: "broken-markup", detail, tool: name });
  const tags = tagsOf(body);
  const glmTag = (i: number, tagName: string, closing: boolean) => {
    const tag = tags[i];
    return tag !== undefined && tag.family === "costume" && tag.name === tagName && tag.closing === closing ? tag : undefined;
  };
  const pairs: [string, string][] = [];
  let at = body.indexOf(name) + name.length;
  let exampleFrom = 0;
  for (let i = 0; i < tags.length; ) {
    const keyOpen = glmTag(i, "arg_key", false);
    if (!keyOpen || body.slice(at, keyOpen.start).trim() !== "") return broken("text or markup outside every arg_key/arg_value pair");
    const keyClose = glmTag(i + 1, "arg_key", true);
    if (!keyClose) return broken("arg_key without its closer");
    const valueOpen = glmTag(i + 2, "arg_value", false);
    if (!valueOpen || body.slice(keyClose.end, valueOpen.start).trim() !== "") return broken("arg_key without arg_value");
    let j = i + 3;
    let nested = false;
    for (; j < tags.length && !glmTag(j, "arg_value", true); j++) {
      if (j >= exampleFrom && exampleOpener(tags[j]!, "costume")) {
        const found = exampleEnd(body, tags, j, "costume");
        if (found.end >= 0) {
          j = found.end;
          break;
        }
        exampleFrom = found.stop;
      }
      nested ||= glmTag(j, "arg_value", false) !== undefined;
    }
    const valueClose = tags[j];
    if (!valueClose) return broken("arg_value without its closer");
    // A value that opens `<arg_value>` again (a file documenting a call, a pair missing its closer):
    // its first `</arg_value>` may end the inner one, so the value's end is unknowable.
    if (nested) return broken("arg_value opened again inside a value: which </arg_value> ends it is unknowable");
    const tagged = [keyOpen, keyClose, valueOpen, valueClose].find((t) => Object.keys(t.attrs).length > 0 || t.flaws & Flaw.SelfClosing);
    if (tagged) return broken(`<${tagged.closing ? "/" : ""}${tagged.name}> is written with an attribute or self-closing, which no parameter reads`);
    pairs.push([body.slice(keyOpen.end, keyClose.start).trim(), trimLayoutNewlines(body.slice(valueOpen.end, valueClose.start))]);
    at = valueClose.end;
    i = j + 1;
  }
  if (body.slice(at).trim() !== "") return broken("text or markup outside every arg_key/arg_value pair");
  return textArgsOutcome(name, pairs, "O03", ctx);
}

const isToolCallCloser = (tag: Tag) => tag.family === "costume" && tag.closing && tag.name === "tool_call";

/** `<tool_call>` (O01-O03, C01): its body decides the dialect, so every content character is weighed. */
export const TOOL_CALL: SpanKind<ToolCallBody> = {
  watchesContent: true,
  body: (r) => new ToolCallBody(r),
  content: (r, _c, at, _first, body) => body.content(r, at),
  tag: (r, tag, base, _first, closesBlock, body) => {
    if (!closesBlock) return body.tag(r, tag, base);
    // A refused body ends at the wrapper's closer (X48.1-X48.3): the whole span is one report.
    if (body.phase === "refused") return tag.family === "costume" && tag.name === "tool_call" && body.closeRefused() ? complete(base + tag.end) : null;
    // A closer written inside an open GLM value ends the call only by the closer rule (golden A40.n10, A40.23).
    if (body.phase === "glm-value") return r.tentatively(GLM_IN_VALUE, base + tag.end);
    // And one inside the XML costume's open `<tool_args>` (a JSON string mentioning the closer).
    return body.phase === "xml" && body.argsOpen ? r.tentatively(ARGS_IN_VALUE, base + tag.end) : complete(base + tag.end);
  },
  refusesAfterCall: (_r, tag, base, body) => body.tagAfterFunction(tag, base + tag.start),
  holdsAfterCall: (_r, body) => body.holdsAfterFunction(),
  tagWhileHeld: (_r, tag, heldAt, body) => body.tagWhileHeld(tag, heldAt),
  closesWrapper: isToolCallCloser,
  valueFamily: (r, body) => (body.phase === "glm-value" ? "costume" : body.phase !== "refused" && r.nest(0) === 2 ? "naked" : null),
  charForm: (_opener, from, body) => new ToolCallStart(from, body),
  parse: ({ span, opener, truncated, ctx }) => parseToolCallSpan(span, opener, ctx, truncated, (s) => xmlToolCall(s, ctx)),
};
