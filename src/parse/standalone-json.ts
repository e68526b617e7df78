import { JsonSyntax } from "../grammar/json-syntax.ts";
import { jsonCallOutcome, readJsonCall, wholeSpan, type SpanContext } from "./call.ts";
import { isSpaceCode, type CharState } from "./char-form.ts";
import { textSpan, type Segment, type UnitOutcome } from "./segments.ts";
import { ignoreContent, type SpanKind, type Step } from "./span-kind.ts";
import { parseJson } from "./values.ts";
import { CR, LBRACE, LBRACKET, LF, SP, TAB } from "../grammar/chars.ts";
import { isObject } from "../grammar/plain-data.ts";

/**
 * J01 (issue 29 item 12): a JSON call standing alone, with no marker at all, as Devstral,
 * Qwen2.5-Coder and Llama 3.1/4 write it: `{"name": X, "arguments": {...}}`, a list of those, or
 * `{"tool_calls": [...]}`, as a whole paragraph. The riskiest leniency (a JSON reply the user asked
 * for looks the same), so it is off by default (parse.standaloneJson) and everything short of a
 * clean call is text, never a nudge.
 */
const SHAPE = "J01";

/** How a paragraph may begin to still be such a call; anything else is prose, released at once. */
const PREFIXES = ['{"name"', '{"tool_calls"', '[{"name"'];
/** Whitespace a prefix may hold between its tokens (`{\n  "name"`): bounded, so holding is too. */
const PREFIX_SPACE = 16;

/**
 * At a paragraph start, whether the text from `at` begins a standalone JSON call: "open" once one
 * of PREFIXES is read (spaces between its tokens allowed), "hold" while the text ends inside one
 * (never when `final`), "no" at the first character that rules every prefix out. Linear in what it reads.
 */
export function standalonePrefixAt(s: string, at: number, final: boolean): "open" | "hold" | "no" {
  const live = PREFIXES.map(() => true);
  let k = 0;
  let spaces = 0;
  for (let i = at; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isSpaceCode(c) && k > 0) {
      // Spaces only between tokens: after `{` or `[`, never inside the quoted key.
      const tokenBoundary = PREFIXES.some((p, n) => live[n] && (p.charCodeAt(k - 1) === LBRACE || p.charCodeAt(k - 1) === LBRACKET));
      if (!tokenBoundary || ++spaces > PREFIX_SPACE) return "no";
      continue;
    }
    let any = false;
    for (let n = 0; n < PREFIXES.length; n++) {
      if (!live[n]) continue;
      const p = PREFIXES[n]!;
      if (p.charCodeAt(k) !== c) live[n] = false;
      else if (k + 1 === p.length) return "open";
      else any = true;
    }
    if (!any) return "no";
    k++;
  }
  return final ? "no" : "hold";
}

export const STANDALONE_JSON: SpanKind = {
  watchesContent: false,
  content: ignoreContent,
  tag: () => null,
  charForm: () => new StandaloneJsonState(),
  parse: ({ span, truncated, ctx }) => (truncated ? textSpan(span.length) : standaloneCalls(span, ctx)),
};

/** Every entry a clean call of a declared tool with arguments that fit; otherwise the paragraph is text. */
function standaloneCalls(span: string, ctx: SpanContext): Segment[] {
  const parsed = parseJson(span);
  if (!parsed.ok) return textSpan(span.length);
  const value = parsed.value;
  const wrapped = isObject(value) && Object.keys(value).length === 1 && Array.isArray(value.tool_calls);
  const entries = wrapped ? (value.tool_calls as unknown[]) : Array.isArray(value) ? value : [value];
  if (entries.length === 0) return textSpan(span.length);
  const outcomes: UnitOutcome[] = [];
  for (const entry of entries) {
    if (!isObject(entry)) return textSpan(span.length);
    const read = readJsonCall(entry);
    // Arguments must be written under their key: `{"name": "bash"}` alone is data, not a call.
    if (read.kind !== "call" || read.argumentsKey === null || typeof read.name !== "string") return textSpan(span.length);
    const tool = ctx.tools.get(read.name);
    if (!tool) return textSpan(span.length);
    const outcome = jsonCallOutcome(entry, SHAPE, ctx);
    if (outcome.kind !== "call" || !ctx.schemas.check(tool, outcome.input).ok) return textSpan(span.length);
    outcomes.push(outcome);
  }
  return outcomes.map((o, i) => ({ ...(wholeSpan(span.length, o)[0] as Segment), start: i === 0 ? 0 : span.length, end: span.length }));
}

/**
 * The stream's side: strict JSON from the paragraph's first character (released at the first
 * character JSON forbids, or at a blank line inside it), then only spaces to the end of the line,
 * then a blank line or the end of the reply. Text after the object on its line or the next one
 * means it was part of a paragraph of prose: released.
 */
class StandaloneJsonState implements CharState {
  private phase: "json" | "after" | "next-line" = "json";
  private readonly json = new JsonSyntax();
  private objectEnd = 0;
  private lineBlank = false;

  completesAtEnd(): boolean {
    return this.phase !== "json";
  }

  step(c: number, at: number): Step | null {
    switch (this.phase) {
      case "json": {
        if (c === LF) {
          if (this.lineBlank) return { kind: "abandon", at };
          this.lineBlank = true;
        } else if (c !== SP && c !== TAB && c !== CR) this.lineBlank = false;
        const r = this.json.step(c);
        if (r === "bad") return { kind: "abandon", at };
        if (r === "done") {
          this.phase = "after";
          this.objectEnd = at + 1;
        }
        return null;
      }
      case "after":
        if (c === LF) this.phase = "next-line";
        else if (c !== SP && c !== TAB && c !== CR) return { kind: "abandon", at };
        return null;
      case "next-line":
        if (c === LF) return { kind: "complete", end: this.objectEnd };
        return c === SP || c === TAB || c === CR ? null : { kind: "abandon", at };
    }
  }
}
