import type { Tag } from "../../grammar/tags.ts";
import { textSpan, type Segment, type UnitOutcome } from "../segments.ts";
import { PROTOTYPE_KEY_DETAIL, parseJson } from "../values.ts";
import { callOutcome, callsOverSpan, jsonCallOutcome, truncatedCall, wholeSpan, type SpanContext } from "../call.ts";
import { JsonExtent, NAME_LIMIT, isNameCode, isSpaceCode, type CharState } from "../char-form.ts";
import { ignoreContent, type OpenerRule, type SpanKind, type Step } from "../span-kind.ts";
import { BACKSLASH, DQ, LBRACE, LBRACKET, RBRACKET } from "../../grammar/chars.ts";
import { isObject } from "../../grammar/plain-data.ts";

/**
 * O06 Mistral: `[TOOL_CALLS]NAME[ARGS]{json}`, the newest tokenizers' `[TOOL_CALLS]NAME{json}`, the
 * older `[TOOL_CALLS][{"name", "arguments"}, ...]`, and (off by default) the residue
 * `NAME[ARGS]{json}` left when the special token is stripped.
 */
function parseMistralSpan(span: string, opener: Tag, ctx: SpanContext): Segment[] {
  const body = span.slice(opener.end).trim();
  if (body.startsWith("[")) {
    // A value after the list (fix 53 follow-up): one reply holding two call sets; neither runs.
    const values = valuesIn(body);
    if (values.count > 1) return wholeSpan(span.length, twoValues(listTool(body.slice(0, values.firstEnd)), ctx, LIST_DETAIL));
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
  // Two argument values (MistralState took every object, or after `[ARGS]` string, that followed the
  // first): which one the model meant is unknowable, so neither runs (broken-markup, text kept), as
  // Kimi's reader refuses.
  const name = args >= 0 ? withoutCallId(body.slice(0, args)).trim() : body.slice(0, Math.max(brace, 0));
  if (args < 0 && brace > 0 && valuesIn(body.slice(brace)).count > 1) return wholeSpan(span.length, twoValues(name, ctx));
  if (args >= 0) {
    // After `[ARGS]` the value is an object or a double-encoded string; two of them (either kind) is refused.
    const value = body.slice(args + 6).trim();
    if (valuesIn(value).count > 1) return wholeSpan(span.length, twoValues(name, ctx));
    return wholeSpan(span.length, callOutcome(name, value, "O06", ctx));
  }
  // Without `[ARGS]` only a JSON object proves the call: `[TOOL_CALLS]NAME{json}` written in prose is text.
  const parsed = brace > 0 ? parseJson(body.slice(brace)) : { ok: false as const };
  if (!parsed.ok || !isObject(parsed.value)) return wholeSpan(span.length, { kind: "foreign" });
  return wholeSpan(span.length, callOutcome(body.slice(0, brace), parsed.value, "O06", ctx));
}

/**
 * The name before `[ARGS]` without the v11+ tokenizers' call id (`NAME[CALL_ID]ID`, review 57):
 * the id labels the call and is no argument; the engine gives every call its own id, so it is
 * dropped. MistralState took only an id of letters, digits, `_` and `-` there.
 */
function withoutCallId(name: string): string {
  const id = name.indexOf(CALL_ID);
  return id < 0 ? name : name.slice(0, id);
}

/**
 * How many JSON values (objects, arrays, string literals) `text` holds one after another, whitespace
 * between, by extent (2 is enough to know), and where the first ends. Any other character ends the count.
 */
function valuesIn(text: string): { count: number; firstEnd: number } {
  let count = 0;
  let firstEnd = text.length;
  for (let i = 0; i < text.length && count < 2; ) {
    const c = text.charCodeAt(i);
    if (isSpaceCode(c)) {
      i++;
      continue;
    }
    if (c !== LBRACE && c !== LBRACKET && c !== DQ) break;
    const end = valueEnd(text, i);
    if (end < 0) break;
    if (++count === 1) firstEnd = end;
    i = end;
  }
  return { count, firstEnd };
}

/** Where the JSON object, array or string literal starting at `from` ends (exclusive), or -1 when it does not. */
function valueEnd(text: string, from: number): number {
  const json = new JsonExtent();
  const string = text.charCodeAt(from) === DQ;
  for (let i = from; i < text.length; i++) {
    const closed = json.step(text.charCodeAt(i));
    // A top-level string literal ends where JsonExtent leaves it again; an object or array where it closes.
    if (string ? i > from && !json.inString : closed) return i + 1;
  }
  return -1;
}

const LIST_DETAIL = "the reply holds a call list and another value after it: which one the model meant is unknowable";

/** Broken-markup for a call holding two argument values; the tool named when it is declared. */
function twoValues(name: string | undefined, ctx: SpanContext, detail = "the call holds two argument values: which one the model meant is unknowable"): UnitOutcome {
  const out: UnitOutcome = { kind: "broken", shape: "O06", reason: "broken-markup", detail };
  if (name !== undefined && ctx.tools.has(name)) out.tool = name;
  return out;
}

/** The tool a list of exactly one call names, if the list reads as JSON. */
function listTool(list: string): string | undefined {
  try {
    const value: unknown = JSON.parse(list);
    const name = Array.isArray(value) && value.length === 1 && isObject(value[0]) ? value[0].name : undefined;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
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
 * at NAME and always has `[ARGS]`. The v11 tokenizers write a call id between the name and
 * `[ARGS]` (`NAME[CALL_ID]ID[ARGS]`, mistral-common's InstructTokenizerV11; review 57): read only
 * after the real token, only as letters, digits, `_` and `-` up to `[ARGS]`, so an id holding
 * JSON or markup proves the span no call. A second value right after the first (whitespace between) joins
 * the span so parseMistralSpan refuses the call whole (review 53 and its follow-up): after an object
 * only a further `{`, after a double-encoded string a `"` or `{`, after the list a JSON opener.
 */
class MistralState implements CharState {
  private phase: "start" | "name" | "token" | "id" | "before-json" | "json" | "string" | "after-object" | "after-bracket" = "start";
  /** The bracket token being matched after the name (`[ARGS]`, or `[CALL_ID]` once), and the id's length read so far. */
  private token = ARGS;
  private idLength = -1;
  private escaped = false;
  /** The call is the `[...]` list (the older form), not one call's arguments. */
  private list = false;
  /** The last value was a double-encoded string (read only after `[ARGS]`): only then is a further `"` a second value. */
  private afterString = false;
  /** Where the last value (arguments object or string, or the list) ended (absolute), while only whitespace followed it. */
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
    return this.phase === "after-object" || this.phase === "after-bracket" ? { kind: "complete", end: this.objectEnd } : null;
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
          this.phase = "token";
          this.token = ARGS;
          this.matched = 1;
          return null;
        }
        if (c === LBRACE && this.nameLength > 0 && !this.residue) {
          this.phase = "json";
          this.json.step(c);
          return null;
        }
        return isNameCode(c) && ++this.nameLength <= NAME_LIMIT ? null : abandon;
      case "token":
        // `[C` right after the name (never after an id, never in the residue): the call id's token.
        if (this.matched === 1 && this.idLength < 0 && !this.residue && c === CALL_ID.charCodeAt(1)) this.token = CALL_ID;
        if (c !== this.token.charCodeAt(this.matched)) return abandon;
        if (++this.matched < this.token.length) return null;
        if (this.token === CALL_ID) {
          this.phase = "id";
          this.idLength = 0;
        } else this.phase = "before-json";
        return null;
      case "id":
        if (c === LBRACKET && this.idLength > 0) {
          this.phase = "token";
          this.token = ARGS;
          this.matched = 1;
          return null;
        }
        return isIdCode(c) && ++this.idLength <= NAME_LIMIT ? null : abandon;
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
        // Review 53: an object right after the arguments (whitespace between) is a second argument
        // set for the same call; the span takes it, so the call is refused whole (parseMistralSpan),
        // as Kimi and Hermes refuse two objects, rather than the first running and the second
        // being stripped after it. The call therefore completes at the next other character.
        this.phase = "after-object";
        this.objectEnd = at + 1;
        this.afterString = false;
        return null;
      case "after-object":
        if (isSpaceCode(c)) return null;
        // Fix 53 follow-up: after a double-encoded string a second string is a second argument set
        // too, and after the list a second list; the span takes them so the call is refused whole.
        // Diff review 53a: after an OBJECT a `"` is prose (`"ls" lists the files.`), not a value:
        // the call ends at the object, and an unclosed quotation no longer holds it to the reply's end.
        if (c === DQ && this.afterString) {
          this.phase = "string";
          return null;
        }
        if (c === LBRACKET && this.list) {
          // `[TOOL_CALLS]` (the next call) or `[x]` prose also start with `[`: the next other character decides.
          this.phase = "after-bracket";
          this.json.step(c);
          return null;
        }
        if (c !== LBRACE) return { kind: "complete", end: this.objectEnd };
        this.phase = "json";
        this.json.step(c);
        return null;
      case "after-bracket":
        if (isSpaceCode(c)) return null;
        if (c !== LBRACE && c !== LBRACKET && c !== RBRACKET && c !== DQ) return { kind: "complete", end: this.objectEnd };
        this.phase = "json";
        return this.step(c, at);
      case "string":
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === DQ) {
          this.phase = "after-object";
          this.objectEnd = at + 1;
          this.afterString = true;
        }
        return null;
    }
  }
}

const ARGS = "[ARGS]";
const CALL_ID = "[CALL_ID]";
/** A call id's characters: Mistral's own are nine letters and digits; `_` and `-` cover ids replayed from other hosts. */
const isIdCode = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;

/**
 * The bracket tokens' opener rule (tag family "mistral"): `[TOOL_CALLS]` opens Mistral (O06) and
 * `[TOOL_CALL]` MiniMax's bracket form (O05), each behind its own switch; a bracket closer right
 * after a recovered call is that call's noise.
 */
export const BRACKET_OPENER: OpenerRule = (tag, _s, view) => {
  if (tag.name === "tool_call") return !tag.closing && view.dialects.minimax ? { open: "minimax-bracket" } : view.tail ? "noise" : "text";
  return tag.name === "tool_calls" && view.dialects.mistral ? { open: "mistral" } : "text";
};
