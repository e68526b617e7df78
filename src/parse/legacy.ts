import { SENTENCEPIECE_SPACE } from "../grammar/markers.ts";
import { layUnits, tagsOf, type Segment, type UnitOutcome } from "./segments.ts";
import { Flaw, type Tag } from "../grammar/tags.ts";
import { callOutcome, callsOverSpan, checkedCall, jsonCallOutcome, truncatedCall, wholeSpan, type SpanContext } from "./call.ts";
import { parsePythonCalls } from "./dialects/pythonic.ts";
import { argumentsObject, coerceObject, parseJson } from "./values.ts";
import { abandon, abandonOnFirst, complete, type OpenerRule, type SpanKind, type SpanReader } from "./span-kind.ts";
import type { Shape } from "../grammar/shapes.ts";
import { LBRACKET } from "../grammar/chars.ts";
import { isObject } from "../grammar/plain-data.ts";
import { LegacyArgs, type LegacyRole } from "./legacy-args.ts";
import type { CloserRule } from "./closer-in-value.ts";

interface LegacyCall {
  start: number;
  end: number;
  contentStart: number;
  contentEnd: number;
  sepStart: number;
  sepEnd: number;
  closed: boolean;
  orphan: boolean;
  spaced: boolean;
}

/** Legacy DeepSeek V3/R1 and V3.1 tool tokens (L01-L07). */
function parseLegacySpan(span: string, ctx: SpanContext, inSection = false): Segment[] {
  const tags = tagsOf(span).filter((t) => t.family === "legacy");
  if (tags[0]?.legacy === "call-start") return parseLfm2(span, tags, ctx);
  const calls: LegacyCall[] = [];
  let cur: LegacyCall | null = null;
  let open = inSection;
  let sawSpacedToken = false;
  // A token inside a JSON string of the open call's arguments is that value's text (review 57, legacy-args.ts).
  const values = new LegacyArgs();
  // What follows a weighed end token is read up to the next legacy tag, as the stream's rule reads it (legacy-args.ts endTokenEnds).
  let nextTagAt = span.length;
  const source = { textBetween: (from: number, to: number) => span.slice(from, to), codeAt: (at: number) => (at < nextTagAt ? span.charCodeAt(at) : NaN) };
  const close = (end: number, contentEnd: number, closed: boolean) => {
    if (!cur) return;
    cur.end = end;
    cur.contentEnd = contentEnd;
    cur.closed = closed;
    calls.push(cur);
    cur = null;
  };
  for (let t = 0; t < tags.length; t++) {
    const tag = tags[t]!;
    nextTagAt = tags[t + 1]?.start ?? span.length;
    if (values.inValue(tag, tag.start, tag.end, source) === "value") continue;
    if (!span.slice(tag.start, tag.end).includes(SENTENCEPIECE_SPACE) && tag.name.includes("_")) sawSpacedToken = true;
    switch (tag.legacy) {
      case "section-begin":
        open = true;
        break;
      case "section-end":
        // The section's exact end token closes an open call (Kimi without its call end, issue 29 item 11).
        close(tag.start, tag.start, true);
        open = false;
        break;
      case "call-begin":
        close(tag.start, tag.start, false);
        cur = {
          start: tag.start, end: tag.end, contentStart: tag.end, contentEnd: tag.end, sepStart: -1, sepEnd: -1,
          closed: false, orphan: !open, spaced: false,
        };
        break;
      case "sep":
        if (cur && (cur as LegacyCall).sepStart < 0) {
          (cur as LegacyCall).sepStart = tag.start;
          (cur as LegacyCall).sepEnd = tag.end;
        }
        break;
      case "call-end":
        close(tag.end, tag.start, true);
        break;
      default:
        break;
    }
  }
  close(span.length, span.length, false);
  const units = calls.map((c) => ({ start: c.start, end: c.end, outcome: outcomeOf(c, span, ctx, sawSpacedToken) }));
  return layUnits(span.length, units, { kind: "broken", shape: "L07", reason: "truncated-call", detail: "tool-call section without a complete call" });
}

function outcomeOf(call: LegacyCall, span: string, ctx: SpanContext, spaced: boolean): UnitOutcome {
  if (!call.closed) return truncatedCall("L07");
  if (call.sepStart < 0) return { kind: "broken", shape: "L07", reason: "broken-markup", detail: "legacy tool call without a separator" };
  const before = span.slice(call.contentStart, call.sepStart).trim();
  const after = span.slice(call.sepEnd, call.contentEnd);
  let name: string;
  let args: string;
  let shape: Shape;
  const kimi = /^functions\.([\w.-]+):\d+$/.exec(before);
  if (kimi && ctx.options.dialects.kimi) {
    return callOutcome(kimi[1], stripFence(after.trim()), "O04", ctx);
  }
  if (before === "function" || before === "") {
    const newline = after.indexOf("\n");
    name = (newline < 0 ? after : after.slice(0, newline)).trim();
    args = newline < 0 ? "" : after.slice(newline + 1);
    shape = "L01";
  } else {
    name = before;
    args = after;
    shape = "L02";
  }
  const json = stripFence(args.trim());
  if (shape === "L01" && json.includes("\n")) shape = "L06";
  if (call.orphan) shape = "L05";
  else if (spaced) shape = "L04";
  if (call.orphan && !ctx.options.orphanInvoke) {
    return { kind: "broken", shape, reason: "broken-markup", detail: "orphan legacy call (parse.orphanInvoke is off)", tool: name };
  }
  const tool = ctx.tools.get(name);
  if (!tool) return { kind: "broken", shape: "B06", reason: "undeclared-tool", detail: "tool not declared by the request", tool: name };
  const input = argumentsObject(json);
  if (!input) return { kind: "broken", shape, reason: "broken-markup", detail: "legacy call arguments are not a JSON object", tool: name };
  return checkedCall(tool, coerceObject(input, tool.parameters), shape);
}

/**
 * The JSON inside a ``` / ~~~ fence (language label allowed), or the text itself. Only a fence
 * that ends the text closes it: text after a closing fence (`\n```\nrm -rf build`) stays in what
 * is returned, so the JSON reader refuses it and the call is broken, never run without that text.
 * An unclosed fence gives everything after its opening line.
 */
export function stripFence(text: string): string {
  const fence = text.startsWith("```") ? "```" : text.startsWith("~~~") ? "~~~" : null;
  if (!fence) return text;
  const firstNewline = text.indexOf("\n");
  if (firstNewline < 0) return text;
  const body = text.slice(firstNewline + 1).trimEnd();
  return (body.endsWith(fence) ? body.slice(0, -fence.length) : body).trim();
}

/**
 * O08 LFM2: one call list between the start and end tokens, pythonic (`[name(key=value)]`) or, when
 * the system prompt asks for JSON, a JSON array of `{"name", "arguments"}` objects.
 */
function parseLfm2(span: string, tags: Tag[], ctx: SpanContext): Segment[] {
  const start = tags[0]!;
  const end = tags.find((t) => t.legacy === "call-end");
  // A start token that ends the reply with no list after it is a mention, as for `<tool_call>` (N21.4).
  if (!end) return wholeSpan(span.length, span.slice(start.end).trim() === "" ? { kind: "foreign" } : truncatedCall("O08"));
  const body = span.slice(start.end, end.start);
  const calls = parsePythonCalls(body, (name) => ctx.tools.get(name)?.parameters);
  if (calls) return callsOverSpan(span.length, calls.map((c) => callOutcome(c.name, c.args, "O08", ctx)), "O08");
  const json = parseJson(body.trim());
  if (!json.ok || !Array.isArray(json.value) || !json.value.every(isObject)) {
    // Between both exact tokens a list the reader cannot read (positional arguments, a lost bracket) was still a call: nudge.
    const list = body.trim().startsWith("[");
    return wholeSpan(span.length, list ? { kind: "broken", shape: "O08", reason: "broken-markup", detail: "the call list could not be read" } : { kind: "foreign" });
  }
  const outcomes = (json.value as Record<string, unknown>[]).map((entry) => jsonCallOutcome(entry, "O08", ctx));
  return callsOverSpan(span.length, outcomes, "O08");
}

/**
 * The stream's reader of a legacy span's arguments (legacy-args.ts), made when the span opens:
 * its opener is read first, as parseLegacySpan reads it as the span's first tag.
 */
function argsOf(r: SpanReader): LegacyArgs {
  const values = new LegacyArgs();
  values.inValue(r.opener, r.start + r.opener.start, r.start + r.opener.end, r);
  return values;
}

/**
 * A legacy token inside a JSON string of the open call's arguments (review 57): the value's text,
 * no boundary ("value"); an end token there with no example open is held ("held") until what
 * follows decides (legacy-args.ts endTokenEnds). Not in LFM2's call list (opened by its start
 * token), which parseLfm2 reads to its first end token whatever stands before it, so the span must
 * end there too.
 */
const roleOf = (r: SpanReader, tag: Tag, base: number, values: LegacyArgs): LegacyRole =>
  tag.family === "legacy" && r.opener.legacy !== "call-start" ? values.inValue(tag, base + tag.start, base + tag.end, r) : "structure";

/**
 * A held end token (diff review 57a, finding 1) ends the call, at its own end, when only spaces
 * follow it before a line break, another legacy token or the reply's end; text after it on its
 * line proves it the value's text and reading goes on (valueCloser null: a line break decides). A
 * call's begin token right after it keeps the span going too: that call, begun after a cut one, is
 * weighed the same way at its own end (legacy-args.ts), so the span must hold both.
 */
const LEGACY_END_IN_VALUE: CloserRule = { valueCloser: null, boundary: (tag) => tag.family === "legacy" && tag.legacy !== "call-begin" };

/** A Kimi-style section: its calls trail one by one; the section's end closes the last. */
export const LEGACY_SECTION: SpanKind<LegacyArgs> = {
  watchesContent: false,
  content: abandonOnFirst,
  body: argsOf,
  tag(r, tag, base, _first, _closesBlock, values) {
    const role = roleOf(r, tag, base, values);
    if (role === "value") return null;
    if (role === "held") return r.tentatively(LEGACY_END_IN_VALUE, base + tag.end);
    if (tag.legacy === "section-end") return complete(base + tag.end);
    return tag.legacy === "call-end" ? r.trail() : null;
  },
  parse: ({ span, ctx, enclosing }) => parseLegacySpan(span, ctx, enclosing === true),
};

/** A call token read without its `<` (issue 29 item 11) is followed at once by its function id; a space first makes it prose. */
function lostLtMention(r: SpanReader, at: number): boolean {
  return (r.opener.flaws & Flaw.MissingLt) !== 0 && at !== r.start + r.opener.end;
}

export const LEGACY_CALL: SpanKind<LegacyArgs> = {
  watchesContent: false,
  // LFM2's call list (O08) opens with `[`: a start token mentioned in prose is released at its next word.
  content: (r, c, at, first) => (first && (r.opener.legacy === "call-start" ? c !== LBRACKET : lostLtMention(r, at)) ? abandon(at) : null),
  body: argsOf,
  tag(r, tag, base, _first, _closesBlock, values) {
    const role = roleOf(r, tag, base, values);
    if (role === "value") return null;
    // A section's end token inside a section still open is the block's (the opener rule's), held or not.
    if (role === "held" && (tag.legacy === "call-end" || !r.enclosing)) return r.tentatively(LEGACY_END_IN_VALUE, base + tag.end);
    // A call outside any section (Kimi without its section opener) also ends at the section's end token.
    if (tag.legacy === "section-end" && !r.enclosing) return complete(base + tag.end);
    if (tag.legacy !== "call-end") return null;
    return r.enclosing ? r.trail() : complete(base + tag.end);
  },
  parse: ({ span, ctx, enclosing }) => parseLegacySpan(span, ctx, enclosing === true),
};

/**
 * The legacy tokens' opener rule (tag family "legacy"): a section's begin token opens a section
 * (Kimi's behind its switch), a call's begin token a call (inside a section still open, its
 * continuation), LFM2's start token a call behind its switch. A section's end token ends the open
 * section; end tokens right after a recovered call are its noise.
 */
export const LEGACY_OPENER: OpenerRule = (tag, _s, view) => {
  if (tag.legacy === "section-begin") return !tag.name.includes("section") || view.dialects.kimi ? { open: "legacy-section" } : "text";
  if (tag.legacy === "call-begin") return view.openBlock === true ? { open: "legacy-call", enclosing: true } : { open: "legacy-call" };
  if (tag.legacy === "section-end") view.closeOpenBlock();
  if (tag.legacy === "call-start") return view.dialects.lfm2 ? { open: "legacy-call" } : "text";
  return view.tail ? "noise" : "text";
};
