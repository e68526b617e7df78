import type { Tag } from "../../grammar/tags.ts";
import { tagsOf, textSpan, type Segment, type UnitOutcome } from "../segments.ts";
import { parseJson } from "../values.ts";
import { callOutcome, declaredNameIn, jsonCallOutcome, readJsonCall, textArgsOutcome, truncatedCall, wholeSpan, type SpanContext } from "../call.ts";
import { element, trimLayoutNewlines } from "./common.ts";
import { parseQwenFunctions } from "./qwen.ts";
import { xmlToolCall } from "../costume.ts";
import { JsonSyntax } from "../../grammar/json-syntax.ts";
import { HAND_OFF, NAME_LIMIT, isNameCode, isSpaceCode, type CharState } from "../char-form.ts";
import { complete, type SpanKind, type Step } from "../span-kind.ts";
import { COLON, CR, DASH, DOT, LBRACE, LF, LT, UNDERSCORE } from "../../grammar/chars.ts";
import { isObject } from "../../grammar/plain-data.ts";

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
 */
export function parseToolCallSpan(span: string, opener: Tag, ctx: SpanContext, truncated: boolean, xmlCostume: (span: string) => Segment[]): Segment[] {
  const closer = truncated ? undefined : tagsOf(span, opener.end).find((t) => t.family === "costume" && t.closing && t.name === "tool_call");
  const bodyEnd = closer ? closer.start : span.length;
  const body = span.slice(opener.end, bodyEnd);
  const trimmed = body.trim();
  const dialects = ctx.options.dialects;
  const whole = (outcome: Parameters<typeof wholeSpan>[1]) => wholeSpan(span.length, outcome);
  if (trimmed.startsWith("{")) {
    if (!dialects.hermes) return textSpan(span.length);
    const parsed = parseJson(trimmed);
    if (opener.attrs.name !== undefined) return whole(namedToolCall(opener.attrs.name, parsed, truncated, ctx));
    if (!parsed.ok) {
      if (truncated) return whole(truncatedCall("O01"));
      // JSON that went wrong, then its own closer or a new line (a call cut off mid-JSON): a nudge when it names a declared tool.
      // (A body without its closer reaches here only when the stream ended it at such a line.)
      const named = declaredNameIn(trimmed, ctx);
      return named === undefined ? textSpan(span.length) : whole({ kind: "broken", shape: "O01", reason: "broken-markup", detail: "the call's JSON is malformed", tool: named });
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
    if (rest === VALUE_CLOSER) return ctx.tools.has(name) ? whole(textArgsOutcome(name, [], "T02", ctx)) : textSpan(span.length);
    if (truncated) return whole(truncatedCall("O03", name));
    return whole(glmPairs(body, name, ctx));
  }
  if (truncated || !ctx.options.codeCostumes) return textSpan(span.length);
  return xmlCostume(span);
}

const VALUE_CLOSER = "</arg_value>";

/**
 * `<tool_call name="NAME">{json args}</tool_call>` (T01, seen from DeepSeek V4 Pro): the name sits in
 * the opener, the body is the arguments object. A body that is itself a call object for that same
 * name (`{"name": NAME, "arguments": …}`) is read as one; anything else that is no JSON object is a
 * broken call, since the opener already named a tool.
 */
function namedToolCall(name: string, parsed: ReturnType<typeof parseJson>, truncated: boolean, ctx: SpanContext): UnitOutcome {
  if (!parsed.ok) return truncated ? truncatedCall("T01", name) : { kind: "broken", shape: "T01", reason: "broken-markup", detail: "the call's JSON is malformed", tool: name };
  if (!isObject(parsed.value)) return { kind: "broken", shape: "T01", reason: "broken-markup", detail: "tool call arguments are not a JSON object", tool: name };
  const read = readJsonCall(parsed.value);
  return read.kind === "call" && read.name === name && read.argumentsKey !== null ? jsonCallOutcome(parsed.value, "T01", ctx) : callOutcome(name, parsed.value, "T01", ctx);
}

function glmPairs(body: string, name: string, ctx: SpanContext): Parameters<typeof wholeSpan>[1] {
  const pairs: [string, string][] = [];
  for (let at = 0; ; ) {
    const key = element(body, "arg_key", at);
    if (!key) break;
    const value = element(body, "arg_value", key.end);
    if (!value) return { kind: "broken", shape: "O03", reason: "broken-markup", detail: "arg_key without arg_value", tool: name };
    pairs.push([key.value.trim(), trimLayoutNewlines(value.value)]);
    at = value.end;
  }
  return textArgsOutcome(name, pairs, "O03", ctx);
}

const isToolCallCloser = (tag: Tag) => tag.family === "costume" && tag.closing && tag.name === "tool_call";

/** `<tool_call>` (O01-O03, C01): its body decides the dialect, so every content character is weighed. */
export const TOOL_CALL: SpanKind = {
  watchesContent: true,
  content: (r, _c, at) => r.toolCallContent(at),
  tag: (r, tag, base, _first, closesBlock) => (closesBlock ? complete(base + tag.end) : r.toolCallTag(tag, base)),
  closesWrapper: isToolCallCloser,
  charForm: (_opener, from) => new ToolCallStart(from),
  parse: ({ span, opener, truncated, ctx }) => parseToolCallSpan(span, opener, ctx, truncated, (s) => xmlToolCall(s, ctx)),
};

/**
 * What a `<tool_call>` body has proved to be so far (O01-O03, C01): "await-tag" wants a tag next,
 * "json" a complete Hermes object that only its closer may follow, "bad-json" a Hermes object that
 * went wrong at a `<` (the call was cut off and closed: only the closer may follow, for a nudge), "name" a GLM tool name that
 * wants `<arg_key>` or the closer; GLM then alternates one-word keys and free values ("glm-*"),
 * Qwen3-Coder waits for `</function>`, the XML costume for the wrapper's closer.
 */
export type ToolCallBody = "await-tag" | "json" | "bad-json" | "name" | "function" | "function-inner" | "xml" | "glm-key" | "glm-value-next" | "glm-value" | "glm-pair-next";

/**
 * The start of a `<tool_call>` body, read as characters: a Hermes JSON object (checked as strict
 * JSON while it streams), a GLM tool name, or a tag (handed to the tag scanner). Prose proves
 * itself at its first character that none of these allow.
 */
export class ToolCallStart implements CharState {
  private phase: "start" | "json" | "after-json" | "name" | "after-name" = "start";
  private readonly json = new JsonSyntax();
  private nameLength = 0;
  /** Only whitespace, with a line break in it, since the last JSON character. */
  private lineBroke = false;
  body: ToolCallBody = "await-tag";

  constructor(private readonly from: number) {}

  completesAtEnd(): boolean {
    return this.phase === "after-json";
  }

  step(c: number, at: number): Step | null | typeof HAND_OFF {
    const abandonName: Step = { kind: "abandon", at: this.from };
    switch (this.phase) {
      case "start":
        if (isSpaceCode(c)) return null;
        if (c === LT) return HAND_OFF;
        if (c === LBRACE) {
          this.phase = "json";
          this.json.step(c);
          return null;
        }
        if (!isNameStartCode(c)) return { kind: "abandon", at };
        this.phase = "name";
        this.body = "name";
        this.nameLength = 1;
        return null;
      case "json": {
        // Cut where the JSON went wrong: what came before it is released without a second scan.
        const r = this.json.step(c);
        if (r === "bad") {
          // A `<` outside any JSON string may be the wrapper's closer after a call cut off mid-JSON: the tag scanner decides.
          if (c === LT) {
            this.body = "bad-json";
            return HAND_OFF;
          }
          // JSON that goes wrong at a line break, or only on the next line, was cut off there (the model moved on to prose):
          // the span ends before that line and is read as a cut-off call (a nudge when it names a declared tool).
          return this.lineBroke || c === LF || c === CR ? { kind: "complete", end: at } : { kind: "abandon", at };
        }
        if (c === LF) this.lineBroke = true;
        else if (!isSpaceCode(c)) this.lineBroke = false;
        if (r === "done") {
          this.phase = "after-json";
          this.body = "json";
        }
        return null;
      }
      case "after-json":
        if (isSpaceCode(c)) return null;
        return c === LT ? HAND_OFF : { kind: "abandon", at };
      case "name":
        if (c === LT) return HAND_OFF;
        if (isSpaceCode(c)) {
          this.phase = "after-name";
          return null;
        }
        return isNameCode(c) && ++this.nameLength <= NAME_LIMIT ? null : abandonName;
      case "after-name":
        if (isSpaceCode(c)) return null;
        return c === LT ? HAND_OFF : abandonName;
    }
  }
}

const isNameStartCode = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === UNDERSCORE;
