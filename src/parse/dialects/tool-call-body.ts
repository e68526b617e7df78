import { COSTUME_INNER } from "../../grammar/dialects.ts";
import { JsonSyntax } from "../../grammar/json-syntax.ts";
import { Flaw, type Tag, type TagFamily } from "../../grammar/tags.ts";
import { exampleOpener } from "../example-in-value.ts";
import { COLON, CR, DOT, LBRACE, LBRACKET, LF, LT, UNDERSCORE } from "../../grammar/chars.ts";
import type { Shape } from "../../grammar/shapes.ts";
import { HAND_OFF, NAME_LIMIT, isNameCode, isSpaceCode, type CharState } from "../char-form.ts";
import type { SpanReader, Step } from "../span-kind.ts";
import { closerRule } from "../closer-in-value.ts";
import { QwenParameters, trackQwenParameter } from "./qwen.ts";
import { WrapperCount } from "./wrapper-count.ts";

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

/**
 * `</tool_call>` inside an open `<tool_args>` (C48.3's JSON arguments): a JSON string holds no raw
 * line break, so a closer with text after it on its line (`"end </tool_call> here"`) is the
 * value's text by the closer rule, and `</tool_args>` coming next proves it.
 */
export const ARGS_IN_VALUE = closerRule(
  "costume",
  (tag) => tag.family === "costume" && tag.name === "tool_call",
  (tag) => tag.family === "costume" && tag.closing && tag.name === "tool_args",
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
type ToolCallPhase = "await-tag" | "json" | "bad-json" | "name" | "function" | "function-inner" | "xml" | "glm-key" | "glm-value-next" | "glm-value" | "glm-pair-next" | "refused";

const GLM_BROKEN = "the call's arg_key/arg_value pairs are malformed";
const QWEN_BROKEN = "the call's function body is malformed";
/** `<NAME>` opening (a `<tool_call>` or GLM `<arg_value>`). */
const openerOfWrapper = (tag: Tag, name: string) => !tag.closing && tag.family === "costume" && tag.name === name;
/**
 * A call example's opener (a block, an invoke, a function) at the start of its line in an open
 * value that no complete example took (ExampleInValue reads those whole): the value holds a call it
 * does not close, or more examples than it can tell from its own end.
 */
const exampleAtLineStart = (r: SpanReader, tag: Tag, base: number, family: TagFamily) => exampleOpener(tag, family) && r.startsLine(base + tag.start);

const GLM_NESTED = "a <tool_call> or <arg_value> opened inside a value: which </arg_value> ends it is unknowable";
const QWEN_NESTED = "a <tool_call> opened inside a value: which </tool_call> ends the call is unknowable";
const JSON_BROKEN = "the call's JSON is malformed";
const CLOSER_MISSING = "a call whose </tool_call> never came, with prose after it";
const TEXT_IN_WRAPPER = "text after the call's function before </tool_call>: the wrapper holds more than the call";

/**
 * One `<tool_call>` span's body rules after its first characters (ToolCallStart sets the phase
 * they proved): which tags and which free text each body allows next.
 */
export class ToolCallBody {
  phase: ToolCallPhase = "await-tag";

  /** `reader`: the span this body is read in (refuse() marks it). */
  constructor(private readonly reader: SpanReader) {}
  /** The XML costume: `<tool_args>` is open (a `</tool_call>` in it is weighed by ARGS_IN_VALUE). */
  argsOpen = false;
  /** GLM: where the last character of the current key was, to refuse a key of several words. */
  private keyEnd = -1;
  /** Qwen3-Coder: which of the function's `<parameter=` tags open and close its values (made at `<function=NAME>`). */
  private qwen: QwenParameters | null = null;

  /**
   * The body broke after it proved to be a call (a Hermes object, a GLM pair, a Qwen3-Coder
   * function): the span is refused whole up to the wrapper's closer (or the reply's end, or the
   * buffer limit), so markup inside it, often the text of a file it meant to write, never runs
   * (golden O48.2-O48.4). Claude-style, MiniMax, Mistral, Kimi and LFM2 bodies refuse the same way.
   */
  refuse(r: SpanReader | null, shape: Shape, detail: string): null {
    this.phase = "refused";
    (r ?? this.reader).refuseWhole(shape, detail, this.at, detail === GLM_NESTED || detail === QWEN_NESTED);
    return null;
  }

  /** Where the tag or character being read starts (absolute): where the body broke, if it did. */
  private at = 0;

  /**
   * Only a wrapper that opens its line, or whose body is laid out on lines of its own (nothing after
   * the opener on its line but a GLM name: `I ran <tool_call>` then the call), is refused whole:
   * `<tool_call>` named mid-sentence with its body on the same line (golden N21.3-N21.8, N29.30) is
   * a mention, proved at the character that breaks it, as before.
   */
  get refusable(): boolean {
    return this.reader.opensLine || this.laidOut;
  }

  /** Where text held after a complete Hermes object on a later line began (ToolCallStart), or -1. */
  textAt = -1;

  /**
   * A complete Hermes object naming a declared tool, a line break, then a `<` (ToolCallStart): where
   * the object ended (absolute), or -1. Text there that is no tag (`</tool_ca` then prose: its
   * closer garbled) refuses the span up to the object's end, as a closer that never came does.
   */
  declaredObjectEnd = -1;

  /** A line ended after the opener (and a GLM name) before anything else (ToolCallStart). */
  laidOut = false;

  /**
   * A tag after the Qwen3-Coder function completed inside the wrapper (the span trails), other than
   * the wrapper's closer or Qwen3-Coder's own markup: the body is not one readable call, so it is refused
   * whole as Hermes and GLM bodies are (a costume there never runs).
   */
  tagAfterFunction(tag: Tag, at: number): boolean {
    if (this.phase !== "function" || !this.refusable) return false;
    // Its own markup (the next function, a stray parameter: golden P47.15) is read by the rules for
    // it; the next wrapper opening (this one's closer left out) starts the next call, as before.
    if ((tag.family === "naked" && (tag.role === "function" || tag.role === "parameter")) || openerOfWrapper(tag, "tool_call")) return false;
    this.at = at;
    this.refuse(null, "O02", QWEN_BROKEN);
    return true;
  }

  /**
   * Text or an element the tag grammar does not read after the completed function, in a wrapper
   * that opens its line (`workdir: /tmp/scratch`, `<workdir>…</workdir>`, a JSON object): held,
   * the call not yet run, until tagWhileHeld, the reply's end or the buffer limit decides (review
   * 50, finding 4). Only whitespace there is the normal layout and is never held.
   */
  holdsAfterFunction(): boolean {
    return this.phase === "function" && this.refusable;
  }

  /**
   * A tag while text after the function is held. The wrapper's closer: the wrapper held more than
   * its call (a workdir the model meant for it, as a Hermes body with a line after its object,
   * golden O49.1), so it is refused whole, every character visible. The next wrapper's opener: this
   * wrapper's closer never came, and the call runs with the text after it as before (golden O02.8).
   * Any other tag (a costume, the next function) is read on: the closer or the reply's end decides.
   */
  tagWhileHeld(tag: Tag, heldAt: number): "refused" | "ends" | null {
    if (tag.family !== "costume" || tag.name !== "tool_call") return null;
    if (!tag.closing) return "ends";
    this.at = heldAt;
    this.refuse(null, "O02", TEXT_IN_WRAPPER);
    return "refused";
  }

  /** Whether a call may name `name` (a declared tool). */
  declares(name: unknown): boolean {
    return typeof name === "string" && this.reader.tools.has(name);
  }

  /** `<tool_call>` openers and closers read inside the JSON before it broke (ToolCallStart): its strings' ends are unknown then, so they count. */
  countWrappers(opened: number, closed: number): void {
    this.nesting = Math.max(1, this.nesting + opened - closed);
  }

  /** refuse() with the body broken at `at` (absolute). */
  refuseAt(shape: Shape, detail: string, at: number): void {
    this.at = at;
    this.refuse(null, shape, detail);
  }

  /** refuse() for a wrapper that opens its line; `otherwise` for one mentioned mid-line. */
  refuseOr(shape: Shape, detail: string, at: number, otherwise: Step | typeof HAND_OFF): Step | null | typeof HAND_OFF {
    if (!this.refusable) return otherwise;
    this.at = at;
    this.refuse(null, shape, detail);
    return HAND_OFF;
  }

  /**
   * `<tool_call>` wrappers open in a refused span, its own included: an example's `</tool_call>`
   * inside it (a write's page documenting the format) closes the example, and only the closer that
   * balances the span's own opener ends it (closeRefused).
   */
  private nesting = 1;

  /** Inside `<tool_call>`: the first tag names the body; anything a body cannot hold proves a mention. */
  tag(r: SpanReader, tag: Tag, base: number): Step | null {
    this.at = base + tag.start;
    const step = this.readTag(r, tag, base);
    if (this.phase === "refused" && tag.family === "costume" && !tag.closing && tag.name === "tool_call") this.nesting++;
    return step;
  }

  /** A `</tool_call>` in a refused span: true when it balances the span's own opener (the span ends there). */
  closeRefused(): boolean {
    return --this.nesting <= 0;
  }

  private readTag(r: SpanReader, tag: Tag, base: number): Step | null {
    const abandon: Step = { kind: "abandon", at: base + tag.start };
    switch (this.phase) {
      case "refused":
        return null;
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
        // The next wrapper opening (this one's closer left out) starts the next call, as before.
        if (openerOfWrapper(tag, "tool_call")) return abandon;
        // Any other tag after the name (another dialect's call: `<tool_call>read` over `<function=bash>`)
        // is a call written in two dialects at once, refused whole as a JSON body there is: which tool
        // the model meant is unknowable, whether the two names agree or not (review 51). Mid-sentence: a mention, as before.
        return this.glmTag(tag, "arg_key", false, "glm-key", abandon, r);
      case "glm-pair-next":
        return this.glmTag(tag, "arg_key", false, "glm-key", abandon, r);
      case "glm-key":
        return this.glmTag(tag, "arg_key", true, "glm-value-next", abandon, r);
      case "glm-value-next":
        return this.glmTag(tag, "arg_value", false, "glm-value", abandon, r);
      case "glm-value":
        // A value is free text: only its own closer ends it.
        if (tag.family === "costume" && tag.closing && tag.name === "arg_value") this.phase = "glm-pair-next";
        // A `<tool_call>` or `<arg_value>` opener in it that no complete example took (a GLM example, or
        // one of another dialect followed by more): which `</arg_value>` ends the value is unknowable, so
        // the call is refused whole up to its own closer and nothing in the value runs (golden O48.3).
        else if (this.refusable && (openerOfWrapper(tag, "arg_value") || openerOfWrapper(tag, "tool_call") || exampleAtLineStart(r, tag, base, "costume"))) return this.refuse(r, "O03", GLM_NESTED);
        return null;
      case "json":
      case "bad-json":
        // Prose after the object, then the next wrapper: this one's closer never came (its call stays text, as before).
        if (this.textAt >= 0 && openerOfWrapper(tag, "tool_call")) return { kind: "abandon", at: this.textAt };
        // A tag after a Hermes object (or inside one that broke at a `<`) other than the wrapper's closer.
        return this.refusable ? this.refuse(r, "O01", JSON_BROKEN) : abandon;
      case "function-inner":
        // Qwen3-Coder: right after `<function=NAME>` comes a parameter or the function's closer.
        if (this.qwen === null || tag.family !== "naked" || (tag.role !== "parameter" && tag.role !== "function")) return this.refusable ? this.refuse(r, "O02", QWEN_BROKEN) : abandon;
        this.phase = "function";
        trackQwenParameter(r, tag, base, this.qwen);
        return tag.closing && tag.role === "function" ? r.trail() : null;
      case "function":
        // A `<tool_call>` opener in an open value that no complete example took: the `</tool_call>`
        // that follows may be its own or the wrapper's, so the call is refused whole.
        if (r.nest(0) === 2 && this.refusable && (openerOfWrapper(tag, "tool_call") || exampleAtLineStart(r, tag, base, "naked"))) return this.refuse(r, "O02", QWEN_NESTED);
        // A complete function is the call; the wrapper's closer joins it when it comes next (O02).
        // One that would end an open value does so only by the closer rule (golden A40.n4, A40.15).
        if (this.qwen !== null && trackQwenParameter(r, tag, base, this.qwen)) {
          r.trail();
          return r.tentatively(QWEN_IN_WRAPPER);
        }
        return tag.closing && tag.role === "function" ? r.trail() : null;
      case "xml":
        if (tag.family === "costume" && tag.name === "tool_args") this.argsOpen = !tag.closing;
        return null;
    }
  }

  /** GLM (O03): `<arg_key>` one word `</arg_key>` then `<arg_value>` anything `</arg_value>`, repeated. */
  private glmTag(tag: Tag, name: string, closing: boolean, next: ToolCallPhase, abandon: Step, refuseIn: SpanReader | null): Step | null {
    // Past the name a pair has begun: the body is a call, and one that breaks is refused whole.
    if (tag.family !== "costume" || tag.closing !== closing || tag.name !== name) return refuseIn === null || !this.refusable ? abandon : this.refuse(refuseIn, "O03", GLM_BROKEN);
    this.phase = next;
    this.keyEnd = -1;
    return null;
  }

  /** Free text belongs only in values and code; a GLM key is a single word. */
  content(r: SpanReader, at: number): Step | null {
    this.at = at;
    switch (this.phase) {
      case "glm-key":
        if (this.keyEnd >= 0 && at !== this.keyEnd + 1) return this.refusable ? this.refuse(r, "O03", GLM_BROKEN) : { kind: "abandon", at };
        this.keyEnd = at;
        return null;
      case "glm-pair-next":
      case "glm-value-next":
        return this.refusable ? this.refuse(r, "O03", GLM_BROKEN) : { kind: "abandon", at };
      case "function-inner":
        return this.refusable ? this.refuse(r, "O02", QWEN_BROKEN) : { kind: "abandon", at };
      case "glm-value":
      case "xml":
      case "function":
      case "refused":
        return null;
      case "json":
        if (this.declaredObjectEnd >= 0 && this.refusable) {
          this.at = this.declaredObjectEnd;
          return this.refuse(r, "O01", CLOSER_MISSING);
        }
        return { kind: "abandon", at };
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
  private phase: "start" | "json" | "after-json" | "name" | "after-name" | "after-name-bracket" = "start";
  /** Where a `[` after GLM's name line began (after-name-bracket; nameLength then counts its word's characters). */
  private bracketAt = -1;
  private readonly json = new JsonSyntax();
  /** `<tool_call>` wrappers written in the JSON so far (WrapperCount): they count once it breaks. */
  private readonly wrappers = new WrapperCount();
  private nameLength = 0;
  /** The GLM name as read (at most NAME_LIMIT characters), for endsSentence's declared-tool check. */
  private name = "";
  /** Line breaks read after a name that ends a sentence, or -1 after any other name (countSentenceBreak); afterCR: a CR LF is one. */
  private sentenceBreaks = -1;
  private afterCR = false;
  /** Only whitespace, with a line break in it, since the last JSON character. */
  private lineBroke = false;
  /** Where text on a later line after a complete object began (-1: none). */
  private textAt = -1;
  /** The object as read (for the name it calls, when its closer never came) and where it ended (absolute). */
  private object = "";
  private objectEnd = -1;

  /** `body`: where what the start proves is written, for the tag rules after the hand-off. */
  constructor(
    private readonly from: number,
    private readonly body: ToolCallBody,
  ) {}

  completesAtEnd(): boolean {
    return this.phase === "after-json" && this.textAt < 0;
  }

  /**
   * The reply ended in text held after the object (no tag came): a call whose closer never came,
   * prose after it. An object naming a declared tool is refused as broken markup up to its end
   * (O01, as a body cut off then prose, golden T29.8), so the model is told and history's note
   * replaces what live reported; one naming no declared tool is read again as prose, as before.
   */
  atEnd(): Step | null {
    if (this.textAt < 0) return null;
    if (!this.body.declares(calledName(this.object))) return { kind: "abandon", at: this.textAt };
    this.body.refuseAt("O01", CLOSER_MISSING, this.objectEnd);
    return null;
  }

  /**
   * A "name" that ends in sentence punctuation GLM names never end in (`here.`, `here:`) and no
   * declared tool spells: the word of a sentence naming the wrapper, `Use <tool_call> here.`.
   * Alone it proves nothing yet: a call written in two dialects may follow on the next line
   * (O51.1), and is refused whole as before; a blank line after it proves the mention (sentenceBreaks).
   */
  private endsSentence(): boolean {
    const last = this.name.charCodeAt(this.name.length - 1);
    // The word without its stop: `<tool_call>read:` names the declared tool read (diff review 54a).
    return (last === DOT || last === COLON) && !this.body.declares(this.name.slice(0, -1));
  }

  /**
   * Counts the line breaks after a name that ends a sentence. True at the second, a blank line: the
   * mention's paragraph ended, so the opener and the word are text and what follows is read afresh,
   * as after a costume mention (a later call in a paragraph of its own runs; review 53, fix 54).
   */
  private countSentenceBreak(c: number): boolean {
    const lf = c === LF && !this.afterCR;
    this.afterCR = c === CR;
    if (this.sentenceBreaks < 0 || !(lf || c === CR)) return false;
    return ++this.sentenceBreaks >= 2;
  }

  step(c: number, at: number): Step | null | typeof HAND_OFF {
    const abandonName: Step = { kind: "abandon", at: this.from };
    switch (this.phase) {
      case "start":
        if (c === LF || c === CR) this.body.laidOut = true;
        if (isSpaceCode(c)) return null;
        if (c === LT) return HAND_OFF;
        if (c === LBRACE) {
          this.phase = "json";
          this.object = "{";
          this.json.step(c);
          return null;
        }
        if (!isNameStartCode(c)) return { kind: "abandon", at };
        this.phase = "name";
        this.body.phase = "name";
        this.nameLength = 1;
        this.name = String.fromCharCode(c);
        return null;
      case "json": {
        // Cut where the JSON went wrong: what came before it is released without a second scan.
        const r = this.json.step(c);
        this.wrappers.step(c);
        this.object += String.fromCharCode(c);
        if (r === "bad") {
          // Where the JSON's strings ended is unknown now: a wrapper written in one counts for the refused body's balance.
          this.body.countWrappers(this.wrappers.opened, this.wrappers.closed);
          // A `<` outside any JSON string may be the wrapper's closer after a call cut off mid-JSON: the tag scanner decides.
          if (c === LT) {
            this.body.phase = "bad-json";
            return HAND_OFF;
          }
          // JSON that goes wrong (a raw line break in a string, a trailing comma, a Python `True`, a
          // comment, the model moving on to prose): the body proved to be a call and broke, so the
          // span is refused whole up to the wrapper's closer (golden O48.2), never read again as prose.
          return this.body.refuseOr("O01", JSON_BROKEN, at, this.lineBroke || c === LF || c === CR ? { kind: "complete", end: at } : { kind: "abandon", at });
        }
        // A line ends at LF, CR LF or a lone CR.
        if (c === LF || c === CR) this.lineBroke = true;
        else if (!isSpaceCode(c)) this.lineBroke = false;
        if (r === "done") {
          this.objectEnd = at + 1;
          this.phase = "after-json";
          this.body.phase = "json";
        }
        return null;
      }
      case "after-json":
        if (c === LF || c === CR) this.lineBroke = true;
        if (this.textAt >= 0) {
          // Text held after the object: a tag next (a costume, the wrapper's closer) is read in the
          // body, which refuses it whole, so the costume never runs; the reply's end (or the buffer
          // limit, as for any candidate) decides the text as prose after a call whose closer never
          // came; a shorter hold let a costume after long prose inside the wrapper run (O49.4).
          if (c === LT) {
            this.body.textAt = this.textAt;
            return HAND_OFF;
          }
          return null;
        }
        if (isSpaceCode(c)) return null;
        if (c === LT) {
          if (this.lineBroke && this.body.declares(calledName(this.object))) this.body.declaredObjectEnd = this.objectEnd;
          return HAND_OFF;
        }
        // Text after a complete object on its line (golden N21.7: a sentence showing the format) proves a mention.
        if (!this.lineBroke || !this.body.refusable) return { kind: "abandon", at };
        // On a later line it may still be inside the wrapper (`extra` then `<shell>…</shell>` then `</tool_call>`): held.
        this.textAt = at;
        return null;
      case "name":
        if (c === LT) return HAND_OFF;
        if (isSpaceCode(c)) {
          if (c === LF || c === CR) this.body.laidOut = true;
          this.phase = "after-name";
          if (this.endsSentence()) this.sentenceBreaks = 0;
          return this.countSentenceBreak(c) ? abandonName : null;
        }
        if (!isNameCode(c) || ++this.nameLength > NAME_LIMIT) return abandonName;
        this.name += String.fromCharCode(c);
        return null;
      case "after-name":
        if (c === LF || c === CR) this.body.laidOut = true;
        // `Use <tool_call> here.` then a blank line: the word ended a sentence and its paragraph.
        if (this.countSentenceBreak(c)) return abandonName;
        if (isSpaceCode(c)) return null;
        if (c === LT) return HAND_OFF;
        // A bracket token's call (Mistral's `[TOOL_CALLS]`, MiniMax's `[TOOL_CALL]`) on the next line: read on to its word.
        if (c === LBRACKET && this.body.laidOut) {
          this.phase = "after-name-bracket";
          this.bracketAt = at;
          this.nameLength = 1;
          return null;
        }
        // GLM's name line then a JSON object as its body: a call written in two dialects at once, refused whole.
        return c === LBRACE ? this.body.refuseOr("O03", GLM_BROKEN, at, abandonName) : abandonName;
      case "after-name-bracket":
        // `[TOOL_CALL` spelled whole (both tokens start so; review 51): two dialects at once, refused whole. Anything else (a link): as before.
        if (c !== BRACKET_WORD.charCodeAt(this.nameLength)) return abandonName;
        return ++this.nameLength < BRACKET_WORD.length ? null : this.body.refuseOr("O03", GLM_BROKEN, this.bracketAt, abandonName);
    }
  }
}

/** What Mistral's `[TOOL_CALLS]` and MiniMax's `[TOOL_CALL]` both start with. */
const BRACKET_WORD = "[TOOL_CALL";

/** The tool a complete Hermes object names (`name`, or OpenAI's `function.name`), or undefined. */
function calledName(object: string): unknown {
  try {
    const o = JSON.parse(object) as { name?: unknown; function?: { name?: unknown } } | null;
    return o?.name ?? o?.function?.name;
  } catch {
    return undefined;
  }
}

const isNameStartCode = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === UNDERSCORE;
