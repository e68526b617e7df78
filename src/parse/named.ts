import type { Tag } from "../grammar/tags.ts";
import { stripFence } from "./legacy.ts";
import { checkedCall, truncatedCall, wholeSpan, type SpanContext } from "./call.ts";
import { brokenSpan, tagsOf, type Segment } from "./segments.ts";
import { coerceObject, parseJson } from "./values.ts";
import { JsonExtent, NAME_LIMIT, isNameCode, isSpaceCode, type CharState } from "./char-form.ts";
import type { Step } from "./span-kind.ts";
import { BACKTICK, CR, LBRACE, LF, SP, TAB, TILDE } from "../grammar/chars.ts";
import { isObject } from "../grammar/plain-data.ts";

/** I10: a DSML wrapper followed by a bare tool name and a (fenced) JSON object instead of invokes. */
export function parseNamedSpan(span: string, opener: Tag, ctx: SpanContext, truncated: boolean): Segment[] {
  if (truncated) return wholeSpan(span.length, truncatedCall("I10"));
  const closer = tagsOf(span, opener.end).find((t) => t.closing && t.role === "block");
  const body = span.slice(opener.end, closer ? closer.start : span.length).replace(/^\s+/, "");
  const newline = body.indexOf("\n");
  const name = (newline < 0 ? body : body.slice(0, newline)).trim();
  const tool = ctx.tools.get(name);
  if (!tool) return brokenSpan(span.length, "B06", "undeclared-tool", "tool not declared by the request", name);
  const parsed = parseJson(stripFence(body.slice(newline + 1).trim()));
  if (!parsed.ok || !isObject(parsed.value)) {
    return brokenSpan(span.length, "I10", "broken-markup", "named tool call without a JSON object", name);
  }
  return wholeSpan(span.length, checkedCall(tool, coerceObject(parsed.value, tool.parameters), "I10"));
}

/** I10: name line, optional fence line, one JSON object, optional closing fence. */
export class NamedState implements CharState {
  private phase: "name" | "before-json" | "fence-run" | "fence-label" | "json" | "after-json" = "name";
  private nameLength = 0;
  private nameEnded = false;
  private fenced = false;
  private readonly json = new JsonExtent();
  private fenceChar = 0;
  private fenceRun = 0;
  private labelLength = 0;

  constructor(private readonly nameStart: number) {}

  completesAtEnd(): boolean {
    return this.phase === "after-json" && this.fenceRun >= 3;
  }

  step(c: number, at: number): Step | null {
    switch (this.phase) {
      case "name":
        if (c === LF) {
          this.phase = "before-json";
          return null;
        }
        if (c === SP || c === TAB || c === CR) {
          this.nameEnded = this.nameLength > 0;
          return null;
        }
        if (this.nameEnded || ++this.nameLength > NAME_LIMIT || !isNameCode(c)) return this.abandon();
        return null;
      case "before-json":
        if (isSpaceCode(c)) return null;
        // One fence line at most: a second one, or anything but JSON after it, is not this form.
        if ((c === BACKTICK || c === TILDE) && !this.fenced) {
          this.fenced = true;
          this.fenceChar = c;
          this.fenceRun = 1;
          this.phase = "fence-run";
          return null;
        }
        if (c === LBRACE) {
          this.phase = "json";
          this.json.step(c);
          return null;
        }
        return this.abandon();
      case "fence-run":
        if (c === this.fenceChar) {
          this.fenceRun++;
          return null;
        }
        if (this.fenceRun < 3) return this.abandon();
        this.fenceRun = 0;
        this.phase = "fence-label";
        return this.step(c, at);
      case "fence-label":
        // A fence label is one short word: reading on past it would make every abandoned opener
        // rescan the lines after it (quadratic on repeated openers).
        if (c === LF) {
          this.phase = "before-json";
          return null;
        }
        if (c === SP || c === TAB || c === CR) return null;
        return isNameCode(c) && ++this.labelLength <= NAME_LIMIT ? null : this.abandon();
      case "json":
        if (!this.json.step(c)) return null;
        if (!this.fenced) return { kind: "complete", end: at + 1 };
        this.phase = "after-json";
        return null;
      case "after-json":
        if (c === BACKTICK || c === TILDE) {
          this.fenceRun++;
          return null;
        }
        if (this.fenceRun >= 3) return { kind: "complete", end: at };
        return isSpaceCode(c) && this.fenceRun === 0 ? null : { kind: "complete", end: at };
    }
  }

  private abandon(): Step {
    return { kind: "abandon", at: this.nameStart };
  }
}
