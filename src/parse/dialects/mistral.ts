import type { Tag } from "../../grammar/tags.ts";
import { textSpan, type Segment, type UnitOutcome } from "../segments.ts";
import { PROTOTYPE_KEY_DETAIL, parseJson } from "../values.ts";
import { callOutcome, callsOverSpan, jsonCallOutcome, truncatedCall, wholeSpan, type SpanContext } from "../call.ts";
import { JsonExtent, NAME_LIMIT, isNameCode, isSpaceCode, type CharState } from "../char-form.ts";
import { ignoreContent, type OpenerRule, type SpanKind, type Step } from "../span-kind.ts";
import { BACKSLASH, DQ, LBRACE, LBRACKET } from "../../grammar/chars.ts";
import { isObject } from "../../grammar/plain-data.ts";

/**
 * O06 Mistral: `[TOOL_CALLS]NAME[ARGS]{json}`, the newest tokenizers' `[TOOL_CALLS]NAME{json}`, the
 * older `[TOOL_CALLS][{"name", "arguments"}, ...]`, and (off by default) the residue
 * `NAME[ARGS]{json}` left when the special token is stripped.
 */
function parseMistralSpan(span: string, opener: Tag, ctx: SpanContext): Segment[] {
  const body = span.slice(opener.end).trim();
  if (body.startsWith("[")) {
    const parsed = parseJson(body);
    if (!parsed.ok) return wholeSpan(span.length, refusedList(body, parsed.prototypeKey === true, ctx));
    if (!Array.isArray(parsed.value)) return wholeSpan(span.length, { kind: "foreign" });
    const outcomes: UnitOutcome[] = parsed.value.map((entry) =>
      isObject(entry) ? jsonCallOutcome(entry, "O06", ctx) : { kind: "foreign" },
    );
    return callsOverSpan(span.length, outcomes, "O06");
  }
  const args = body.indexOf("[ARGS]");
  const brace = body.indexOf("{");
  // Two argument objects (MistralState took every object that followed the first): which one the
  // model meant is unknowable, so neither runs (broken-markup, text kept), as Kimi's reader refuses.
  const name = args >= 0 ? body.slice(0, args).trim() : body.slice(0, Math.max(brace, 0));
  if (brace > 0 && (args < 0 || brace > args) && objectsIn(body.slice(brace)) > 1) return wholeSpan(span.length, twoObjects(name, ctx));
  if (args >= 0) return wholeSpan(span.length, callOutcome(name, body.slice(args + 6).trim(), "O06", ctx));
  // Without `[ARGS]` only a JSON object proves the call: `[TOOL_CALLS]NAME{json}` written in prose is text.
  const parsed = brace > 0 ? parseJson(body.slice(brace)) : { ok: false as const };
  if (!parsed.ok || !isObject(parsed.value)) return wholeSpan(span.length, { kind: "foreign" });
  return wholeSpan(span.length, callOutcome(body.slice(0, brace), parsed.value, "O06", ctx));
}

/** How many JSON objects `text` (starting at a `{`) holds one after another, whitespace between (by extent; 2 is enough to know). */
function objectsIn(text: string): number {
  let objects = 0;
  let json = new JsonExtent();
  let open = false;
  for (let i = 0; i < text.length && objects < 2; i++) {
    const c = text.charCodeAt(i);
    if (open) {
      if (json.step(c)) {
        objects++;
        open = false;
        json = new JsonExtent();
      }
    } else if (c === LBRACE) {
      open = true;
      json.step(c);
    } else if (!isSpaceCode(c)) return objects;
  }
  return objects;
}

/** Broken-markup for a call holding two argument objects; the tool named when it is declared. */
function twoObjects(name: string, ctx: SpanContext): UnitOutcome {
  const out: UnitOutcome = { kind: "broken", shape: "O06", reason: "broken-markup", detail: "the call holds two argument objects: which one the model meant is unknowable" };
  if (ctx.tools.has(name)) out.tool = name;
  return out;
}

/**
 * A `[TOOL_CALLS][...]` list parseJson refused. Valid JSON it refused (a key written twice, a key
 * that names a prototype member, a number out of range) is a call list written out and not run:
 * broken-markup, as the `[ARGS]` form and every other dialect report it, so the model is told
 * (golden O47.1, O47.2). Anything else is no list of calls: text.
 */
function refusedList(body: string, prototypeKey: boolean, ctx: SpanContext): UnitOutcome {
  let list: unknown;
  try {
    list = JSON.parse(body);
  } catch {
    return { kind: "foreign" };
  }
  if (!Array.isArray(list)) return { kind: "foreign" };
  const detail = prototypeKey ? PROTOTYPE_KEY_DETAIL : "the call list's JSON names a key twice or holds a number no call can carry";
  const out: UnitOutcome = { kind: "broken", shape: "O06", reason: "broken-markup", detail };
  const name = list.length === 1 && isObject(list[0]) ? list[0].name : undefined;
  if (typeof name === "string" && ctx.tools.has(name)) out.tool = name;
  return out;
}

/** O06: read as characters by the stream (JSON or NAME [ARGS] JSON); no tag ends it. */
export const MISTRAL: SpanKind = {
  watchesContent: false,
  content: ignoreContent,
  tag: () => null,
  charForm: (opener, from) => new MistralState(from, opener.name === "residue"),
  parse({ span, opener, truncated, ctx }) {
    if (!truncated) return parseMistralSpan(span, opener, ctx);
    // Only the real `[TOOL_CALLS]` token proves a call was under way; the residue stays text.
    return opener.name === "tool_calls" && span.slice(opener.end).trim() !== "" ? wholeSpan(span.length, truncatedCall("O06")) : textSpan(span.length);
  },
};

/**
 * O06: after `[TOOL_CALLS]` either a JSON array, or NAME, `[ARGS]` (the newest tokenizers drop it)
 * and one JSON object (after `[ARGS]`, also a JSON string literal holding one); the residue starts
 * at NAME and always has `[ARGS]`.
 */
class MistralState implements CharState {
  private phase: "start" | "name" | "args" | "before-json" | "json" | "string" | "after-object" = "start";
  private escaped = false;
  /** The JSON being read is the `[...]` list (the older form), not one call's arguments object. */
  private list = false;
  /** Where the last arguments object ended (absolute), while only whitespace followed it. */
  private objectEnd = -1;
  private matched = 0;
  private nameLength = 0;
  private readonly json = new JsonExtent();

  constructor(
    private readonly from: number,
    private readonly residue: boolean,
  ) {
    if (residue) this.phase = "name";
  }

  completesAtEnd(): boolean {
    return false;
  }

  /** The reply ended after an arguments object and whitespace: the span ends at the object. */
  atEnd(): Step | null {
    return this.phase === "after-object" ? { kind: "complete", end: this.objectEnd } : null;
  }

  step(c: number, at: number): Step | null {
    // For the residue `from` is the candidate's own start: the engine's progress guarantee (spanEnd) releases its first character.
    const abandon: Step = { kind: "abandon", at: this.from };
    switch (this.phase) {
      case "start":
        if (isSpaceCode(c)) return null;
        if (c === LBRACKET) {
          this.phase = "json";
          this.list = true;
          this.json.step(c);
          return null;
        }
        this.phase = "name";
        return this.step(c, at);
      case "name":
        if (c === LBRACKET && this.nameLength > 0) {
          this.phase = "args";
          this.matched = 1;
          return null;
        }
        if (c === LBRACE && this.nameLength > 0 && !this.residue) {
          this.phase = "json";
          this.json.step(c);
          return null;
        }
        return isNameCode(c) && ++this.nameLength <= NAME_LIMIT ? null : abandon;
      case "args":
        if (c !== ARGS.charCodeAt(this.matched)) return abandon;
        if (++this.matched === ARGS.length) this.phase = "before-json";
        return null;
      case "before-json":
        if (isSpaceCode(c)) return null;
        // Issue 29 item 10: after `[ARGS]` the arguments may come double-encoded, as one JSON string literal.
        if (c === DQ) {
          this.phase = "string";
          return null;
        }
        if (c !== LBRACE) return abandon;
        this.phase = "json";
        this.json.step(c);
        return null;
      case "json":
        if (!this.json.step(c)) return null;
        if (this.list) return { kind: "complete", end: at + 1 };
        // Review 53: an object right after the arguments (whitespace between) is a second argument
        // set for the same call; the span takes it, so the call is refused whole (parseMistralSpan),
        // as Kimi and Hermes refuse two objects, rather than the first running and the second
        // being stripped after it. The call therefore completes at the next other character.
        this.phase = "after-object";
        this.objectEnd = at + 1;
        return null;
      case "after-object":
        if (isSpaceCode(c)) return null;
        if (c !== LBRACE) return { kind: "complete", end: this.objectEnd };
        this.phase = "json";
        this.json.step(c);
        return null;
      case "string":
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === DQ) return { kind: "complete", end: at + 1 };
        return null;
    }
  }
}

const ARGS = "[ARGS]";

/**
 * The bracket tokens' opener rule (tag family "mistral"): `[TOOL_CALLS]` opens Mistral (O06) and
 * `[TOOL_CALL]` MiniMax's bracket form (O05), each behind its own switch; a bracket closer right
 * after a recovered call is that call's noise.
 */
export const BRACKET_OPENER: OpenerRule = (tag, _s, view) => {
  if (tag.name === "tool_call") return !tag.closing && view.dialects.minimax ? { open: "minimax-bracket" } : view.tail ? "noise" : "text";
  return tag.name === "tool_calls" && view.dialects.mistral ? { open: "mistral" } : "text";
};
