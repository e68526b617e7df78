import { COSTUME_INNER } from "../../grammar/dialects.ts";
import { JsonSyntax } from "../../grammar/json-syntax.ts";
import { Flaw, type Tag } from "../../grammar/tags.ts";
import { CR, LBRACE, LF, LT, UNDERSCORE } from "../../grammar/chars.ts";
import { HAND_OFF, NAME_LIMIT, isNameCode, isSpaceCode, type CharState } from "../char-form.ts";
import type { SpanReader, Step } from "../span-kind.ts";
import { closerRule } from "../closer-in-value.ts";
import { QwenParameters, trackQwenParameter } from "./qwen.ts";

/** `</function>` in an open value inside `<tool_call>`: the wrapper's closer on its line ends the call too. */
export const QWEN_IN_WRAPPER = closerRule("naked", (tag) => tag.family === "costume" && tag.closing && tag.name === "tool_call");

/**
 * `</tool_call>` (or a block's closer) in an open GLM `<arg_value>` (O03): it ends the call only by
 * the closer rule (parse/closer-in-value.ts); `</arg_value>` coming next proves it was the value's
 * text, and the wrapper's closer or the next `<tool_call>` on its line ends the call there.
 */
export const GLM_IN_VALUE = closerRule(
  "costume",
  (tag) => tag.family === "costume" && tag.name === "tool_call",
  (tag) => tag.family === "costume" && tag.closing && tag.name === "arg_value",
);

// The streaming rules of a `<tool_call>` body (O01-O03, C01): where a span opened by `<tool_call>`
// ends or proves a mention while it streams. The span's parser is beside them in tool-call.ts.

/**
 * What a `<tool_call>` body has proved to be so far (O01-O03, C01): "await-tag" wants a tag next,
 * "json" a complete Hermes object that only its closer may follow, "bad-json" a Hermes object that
 * went wrong at a `<` (the call was cut off and closed: only the closer may follow, for a nudge), "name" a GLM tool name that
 * wants `<arg_key>` or the closer; GLM then alternates one-word keys and free values ("glm-*"),
 * Qwen3-Coder waits for `</function>`, the XML costume for the wrapper's closer.
 */
type ToolCallPhase = "await-tag" | "json" | "bad-json" | "name" | "function" | "function-inner" | "xml" | "glm-key" | "glm-value-next" | "glm-value" | "glm-pair-next";

/**
 * One `<tool_call>` span's body rules after its first characters (ToolCallStart sets the phase
 * they proved): which tags and which free text each body allows next.
 */
export class ToolCallBody {
  phase: ToolCallPhase = "await-tag";
  /** GLM: where the last character of the current key was, to refuse a key of several words. */
  private keyEnd = -1;
  /** Qwen3-Coder: which of the function's `<parameter=` tags open and close its values (made at `<function=NAME>`). */
  private qwen: QwenParameters | null = null;

  /** Inside `<tool_call>`: the first tag names the body; anything a body cannot hold proves a mention. */
  tag(r: SpanReader, tag: Tag, base: number): Step | null {
    const abandon: Step = { kind: "abandon", at: base + tag.start };
    switch (this.phase) {
      case "await-tag":
        if (tag.role === "function" && !tag.closing && tag.flaws & Flaw.EqualsName) {
          this.phase = "function-inner";
          this.qwen = new QwenParameters(r.tools.get(tag.attrs.name ?? ""));
        } else if (tag.family === "costume" && !tag.closing && COSTUME_INNER.has(tag.name) && !tag.name.startsWith("arg_")) this.phase = "xml";
        else return abandon;
        return null;
      case "name":
        // GLM closing a zero-argument call with its value closer (`<tool_call>NAME</arg_value>`, T02); its own closer may follow.
        if (tag.family === "costume" && tag.closing && tag.name === "arg_value") return r.trail();
        return this.glmTag(tag, "arg_key", false, "glm-key", abandon);
      case "glm-pair-next":
        return this.glmTag(tag, "arg_key", false, "glm-key", abandon);
      case "glm-key":
        return this.glmTag(tag, "arg_key", true, "glm-value-next", abandon);
      case "glm-value-next":
        return this.glmTag(tag, "arg_value", false, "glm-value", abandon);
      case "glm-value":
        // A value is free text: only its own closer ends it.
        if (tag.family === "costume" && tag.closing && tag.name === "arg_value") this.phase = "glm-pair-next";
        return null;
      case "json":
      case "bad-json":
        return abandon;
      case "function-inner":
        // Qwen3-Coder: right after `<function=NAME>` comes a parameter or the function's closer.
        if (this.qwen === null || tag.family !== "naked" || (tag.role !== "parameter" && tag.role !== "function")) return abandon;
        this.phase = "function";
        trackQwenParameter(r, tag, base, this.qwen);
        return tag.closing && tag.role === "function" ? r.trail() : null;
      case "function":
        // A complete function is the call; the wrapper's closer joins it when it comes next (O02).
        // One that would end an open value does so only by the closer rule (golden A40.n4, A40.15).
        if (this.qwen !== null && trackQwenParameter(r, tag, base, this.qwen)) {
          r.trail();
          return r.tentatively(QWEN_IN_WRAPPER);
        }
        return tag.closing && tag.role === "function" ? r.trail() : null;
      case "xml":
        return null;
    }
  }

  /** GLM (O03): `<arg_key>` one word `</arg_key>` then `<arg_value>` anything `</arg_value>`, repeated. */
  private glmTag(tag: Tag, name: string, closing: boolean, next: ToolCallPhase, abandon: Step): Step | null {
    if (tag.family !== "costume" || tag.closing !== closing || tag.name !== name) return abandon;
    this.phase = next;
    this.keyEnd = -1;
    return null;
  }

  /** Free text belongs only in values and code; a GLM key is a single word. */
  content(at: number): Step | null {
    switch (this.phase) {
      case "glm-key":
        if (this.keyEnd >= 0 && at !== this.keyEnd + 1) return { kind: "abandon", at };
        this.keyEnd = at;
        return null;
      case "glm-value":
      case "xml":
      case "function":
        return null;
      default:
        return { kind: "abandon", at };
    }
  }
}

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

  /** `body`: where what the start proves is written, for the tag rules after the hand-off. */
  constructor(
    private readonly from: number,
    private readonly body: ToolCallBody,
  ) {}

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
        this.body.phase = "name";
        this.nameLength = 1;
        return null;
      case "json": {
        // Cut where the JSON went wrong: what came before it is released without a second scan.
        const r = this.json.step(c);
        if (r === "bad") {
          // A `<` outside any JSON string may be the wrapper's closer after a call cut off mid-JSON: the tag scanner decides.
          if (c === LT) {
            this.body.phase = "bad-json";
            return HAND_OFF;
          }
          // JSON that goes wrong at a line break, or only on the next line, was cut off there (the model moved on to prose):
          // the span ends before that line and is read as a cut-off call (a nudge when it names a declared tool).
          return this.lineBroke || c === LF || c === CR ? { kind: "complete", end: at } : { kind: "abandon", at };
        }
        // A line ends at LF, CR LF or a lone CR.
        if (c === LF || c === CR) this.lineBroke = true;
        else if (!isSpaceCode(c)) this.lineBroke = false;
        if (r === "done") {
          this.phase = "after-json";
          this.body.phase = "json";
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
