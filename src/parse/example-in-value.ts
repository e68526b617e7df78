import type { LegacyRole } from "../grammar/dialects.ts";
import { Flaw, type Tag, type TagFamily } from "../grammar/tags.ts";
import { CR, LF, isWhiteSpace } from "../grammar/chars.ts";
import { closerBoundary, closesChild, closesParameter } from "./closer-in-value.ts";
import { mayNameTool, opensToolElement } from "./tool-element-name.ts";

/** How an example in a value is read beyond its family (ExampleInValue, exampleEnd); each is off when absent. */
export interface ExampleOptions {
  /** Whether a DSML tag names a declared tool (an I11 example's opener, golden A45.3, E45.8); none without it. */
  readonly declared?: (tag: Tag) => boolean;
  /** The open value is an I11 child of that name (lower case): its own closer closes it too. */
  readonly valueName?: string;
  /**
   * At most this many examples in a row (after a closer that ended its line, golden A45.5, E45.11:
   * EXAMPLES_AFTER_CLOSER): one more after them proves none, so the lookahead from each such
   * closer stops at a bounded number of call openers. No bound when absent.
   */
  readonly most?: number;
  /**
   * The open value is an unprefixed parameter in a DSML span (M07.5, the model wrote the next
   * parameter without its sentinel): a DSML parameter or invoke closer ends it too, as the walk
   * reads it, so an example in it that the DSML closer ends is its text.
   */
  readonly dsmlCloses?: boolean;
}

/** Every reading off: an example of the value's family only. */
export const NO_EXAMPLE_OPTIONS: ExampleOptions = Object.freeze({});

/**
 * Golden A45.5, A45.8, A46.5 and A46.1-A46.3: after a DSML invoke or block closer that ended its
 * line in a value (and at most MORE_CLOSER_LINES more, closer-ends-call.ts), this many call examples in a row that
 * the value's own closer ends are the page's text (a page documenting a closer, then its examples);
 * after a complete call, this many examples before a stray value closer are read with it
 * (stray-value-closer.ts). A constant: each such lookahead reads at most this many examples, so
 * the work stays linear.
 */
export const EXAMPLES_AFTER_CLOSER = 4;

/**
 * A complete example of any dialect written inside an open value (a file
 * documenting a call) is the value's text when the value's own closer comes next (golden S02.8-S02.16). It starts at a
 * DSML block or named invoke opener, or (in an unprefixed, Qwen3-Coder or GLM value) an unprefixed
 * block, named invoke, function element or `<tool_call>`, and runs to its own closer. Its own
 * parameters nest; inside one, a closer with text after it on its line is that value's text, one
 * that ends its line or meets a tag ends the value (P01). After it: the value's closer (text),
 * another example, a costume or Mistral tag (read on), or anything else: no example, the restart
 * rule stands (S02.3), but only until the value's own closer comes (golden A41.1-A41.3): its parameter
 * closer (any spelling) after an example or at its own level makes them text; its invoke closer
 * after one too, the call then refused (dialects/dsml/). A block closer proves nothing (S02.5). The walks (dialects/dsml/walk.ts, qwen.ts, tool-call.ts) and the stream
 * (engine/candidate.ts, which also feeds the characters after a waiting closer) step this state.
 */
export class ExampleInValue {
  // Inside an example of that kind, or "after": one closed, the next tag decides.
  private mode: "block" | "invoke" | "function" | "wrapper" | "tool" | "special" | "after" = "after";
  // A special-token example's (LFM2, Kimi, DeepSeek V3) closing token.
  private specialEnd: LegacyRole = "call-end";
  // A tool-named example's (I11) tool, as the tag reader spells it.
  private tool = "";
  // The examples opened so far (ExampleOptions.most).
  private count = 0;
  // The example's own parameters open around the text, their family, and a closer inside one waiting for the next character.
  private depth = 0;
  private params: TagFamily = "naked";
  private pending: Tag | null = null;
  // After an example in a DSML value: the unprefixed parameters opened in the text since (textAfter).
  private plainDepth = 0;
  // The waiting closer is a block's closer after an example (textAfter), weighed by the closer rule.
  private afterCloser = false;
  private afterLineEnded = false;
  /**
   * Golden A45.10: after an example, a block closer ended its line and text
   * or a tag other than the value's closer came next. P01 reads that closer as the end of the call,
   * so the example was a new call (the restart rule); a closer of the value after it (its parameter
   * or invoke closer) says the example was its text. Read on as after any example: if such a
   * closer comes, the example never runs and the call is refused (the walk marks it unread), never
   * written with a guess; otherwise the restart rule stands as before.
   */
  ambiguous = false;
  /**
   * After an example in a DSML value, a prefix-less parameter closer waits for the next character
   * (heldCloser): text after it on its line makes it the page's mention (`</parameter> tags`), read
   * on; a line end or a tag next makes it the value's closer, "content" at that held tag
   * (contentAtHeld: the tag before the one just stepped, or the one whose characters were read).
   */
  heldCloser = false;
  contentAtHeld = false;

  constructor(
    opener: Tag,
    // The open value's family: only its closer (GLM's `</arg_value>` for "costume") proves the examples were text.
    private readonly family: TagFamily,
    // A DSML or Claude-style value: its invoke closer after an example ends them too (P01).
    private readonly invokeCloses = false,
    private readonly options: ExampleOptions = NO_EXAMPLE_OPTIONS,
  ) {
    this.open(opener);
  }

  /** The example (the last one read) closed and nothing after it was read yet: stray-value-closer.ts's ExampleRun reads on from there itself. */
  get ended(): boolean {
    return this.mode === "after" && this.pending === null && !this.heldCloser;
  }

  /** A closer waits: the next character that is no tag decides it (char). */
  get awaitsChar(): boolean {
    return this.pending !== null || this.heldCloser;
  }

  /** A character between tags while a closer waits: a line end ends the example's value there, other text makes the closer its text. */
  char(c: number): "fail" | "content" | null {
    if (this.heldCloser) {
      if (c !== LF && c !== CR && isWhiteSpace(c)) return null;
      this.heldCloser = false;
      if (c !== LF && c !== CR) return null;
      this.contentAtHeld = true;
      return "content";
    }
    if (this.pending === null || (c !== LF && c !== CR && isWhiteSpace(c))) return null;
    if (this.afterCloser) {
      // A block closer after an example, by the closer rule: text on its line makes it the page's
      // text; once its line ended, only the value's own closer next does (closesValue), text is P01.
      if (c === LF || c === CR) {
        this.afterLineEnded = true;
        return null;
      }
      this.pending = null;
      this.afterCloser = false;
      if (this.afterLineEnded) this.ambiguous = true;
      return null;
    }
    const closer = this.pending;
    this.pending = null;
    if (c !== LF && c !== CR) return null;
    this.depth = 0;
    return this.structure(closer) === "fail" ? "fail" : null;
  }

  /** A tag after the opener: "content" (this tag is the value's closer), "fail", or null (read on). */
  step(tag: Tag): "content" | "fail" | null {
    if (this.heldCloser) {
      this.heldCloser = false;
      this.contentAtHeld = true;
      return "content";
    }
    if (this.pending !== null) {
      // A tag right after a waiting closer: the example's value ended there (P01).
      const closer = this.pending;
      this.pending = null;
      if (this.afterCloser) {
        // After an example: the closer rule (a block's closer or the next invoke on its line ends the value).
        this.afterCloser = false;
        // Its line ended and a tag other than the value's closer came: read on as after text (ambiguous).
        if (this.afterLineEnded && !this.closesValue(tag)) this.ambiguous = true;
        else if (!this.closesValue(tag) && closerBoundary(tag)) return "fail";
      } else {
        this.depth = 0;
        if (this.structure(closer) === "fail") return "fail";
      }
    }
    if (this.closesValue(tag)) {
      // Restart follow-up: the closer rule for a prefix-less closer after an example in a DSML value (heldCloser).
      if (this.mode === "after" && this.family === "dsml" && tag.family === "naked" && tag.role === "parameter") {
        this.heldCloser = true;
        return null;
      }
      return "content";
    }
    if (this.mode === "after") {
      if (this.invokeCloses && tag.closing && tag.role === "invoke" && (tag.family === this.family || (this.options.dsmlCloses && tag.family === "dsml")) && !(tag.flaws & Flaw.SelfClosing)) return "content";
      // After an example, one of any dialect is read on too (a page documenting several, golden S02.17, S02.18):
      // a special-token example (LFM2, Kimi, DeepSeek V3), and in a DSML value a `<tool_call>`
      // wrapper's (Hermes, GLM, Qwen3-Coder); only the value's own closer after them makes them text.
      if (exampleOpener(tag, this.family, this.options.declared) || specialOpener(tag) || (this.family === "dsml" && isToolCallOpener(tag))) {
        if (this.options.most !== undefined && this.count >= this.options.most) return "fail";
        this.open(tag);
        return null;
      }
      if (this.family === "dsml" && this.textAfter(tag)) return null;
      return (tag.family === "costume" && !isToolCallTag(tag) && !this.glmPair(tag)) || tag.family === "mistral" ? null : "fail";
    }
    if (this.mode === "special") return this.special(tag);
    // GLM's pair tags in an example in a GLM value: which `</arg_value>` ends the value is unknowable.
    if (this.glmPair(tag)) return "fail";
    if (this.depth > 0) {
      // Another call starts there (the restart rule), as before; it also keeps the work linear.
      if (opensCall(tag)) return "fail";
      // I11: a sentinel opener in a child's value is its text; a child's closer ends it.
      if (this.mode === "tool") {
        if (this.endsValue(tag)) this.pending = tag;
        else if (tag.closing && this.isParameter(tag)) this.depth = 0;
        return null;
      }
      if (this.isParameter(tag)) {
        if (!tag.closing) this.depth++;
        else this.depth--;
      } else if (this.endsValue(tag)) this.pending = tag;
      return null;
    }
    return this.structure(tag);
  }

  /**
   * Golden A45.11, after an example in a DSML value: markup mentioned in the page's prose
   * (`</invoke>`, `<parameter name="x">`, `<{D}thinking>`) is its text, as before the example
   * (PlainRunInValue): unprefixed tags (a `</parameter>` that closes one opened here counted) and
   * sentinel tags that are no structure read on to the value's own closer.
   */
  private textAfter(tag: Tag): boolean {
    if (tag.family === "dsml" && tag.closing && tag.role === "block" && !(tag.flaws & Flaw.SelfClosing)) {
      // A block's closer: text after it on its line makes it the page's text (the closer rule), a line end ends the value.
      this.pending = tag;
      this.afterCloser = true;
      this.afterLineEnded = false;
      return true;
    }
    if (tag.family === "dsml") return tag.role === "other";
    if (tag.family !== "naked") return false;
    if (tag.role === "parameter" && !(tag.flaws & Flaw.SelfClosing)) this.plainDepth += tag.closing ? -1 : 1;
    return true;
  }

  // The value's own closer, after an example or at its own level (one that never closed itself).
  private closesValue(tag: Tag): boolean {
    if (this.mode !== "after" && this.depth > 0) return false;
    if (this.mode === "after" && this.plainDepth > 0 && tag.family === "naked") return false;
    if (this.family === "costume") return this.mode === "after" && isGlmValueTag(tag) && tag.closing;
    const valueName = this.options.valueName;
    return closesParameter(tag, this.family) || (this.options.dsmlCloses === true && closesParameter(tag, "dsml")) || (valueName !== undefined && closesChild(tag, valueName));
  }

  // A closer that ends one of this example's values, as it ends one of the reply's (the closer rule).
  private endsValue(tag: Tag): boolean {
    if (!tag.closing) return false;
    if (this.mode === "function" || this.mode === "wrapper") return isToolCallTag(tag) || (tag.family === "naked" && tag.role === "function");
    if (this.mode === "tool" && this.closesTool(tag)) return true;
    return (tag.family === "dsml" || tag.family === "naked") && (tag.role === "block" || tag.role === "invoke");
  }

  // An I11 example's own closer.
  private closesTool(tag: Tag): boolean {
    return tag.family === "dsml" && tag.closing && tag.name === this.tool && !(tag.flaws & Flaw.SelfClosing);
  }

  // A GLM pair tag while the open value is GLM's.
  private glmPair(tag: Tag): boolean {
    return this.family === "costume" && tag.family === "costume" && (tag.name === "arg_value" || tag.name === "arg_key");
  }

  // One of the example's own parameter tags; the other family's are text in its value (M07 mixes them).
  private isParameter(tag: Tag): boolean {
    if (this.mode === "tool") return tag.family === "dsml" && !(tag.flaws & Flaw.SelfClosing) && (tag.role === "parameter" || (mayNameTool(tag) && tag.name !== this.tool));
    return tag.family === this.params && tag.role === "parameter" && !(tag.flaws & Flaw.SelfClosing);
  }

  /**
   * A tag inside a special-token example: its closing token ends it (a section's end, or a call's
   * end for LFM2's start token and a call outside a section); a section's calls and separators, a
   * call's separator are its own; any other special token is no example (the restart rule). A call
   * opener starts another call there (the restart rule, as in any example); other markup is its text.
   */
  private special(tag: Tag): "fail" | null {
    if (tag.family !== "legacy") return opensCall(tag) ? "fail" : null;
    if (tag.legacy === this.specialEnd) {
      this.mode = "after";
      return null;
    }
    const own = this.specialEnd === "section-end" ? tag.legacy === "call-begin" || tag.legacy === "call-end" || tag.legacy === "sep" : tag.legacy === "sep";
    return own ? null : "fail";
  }

  private open(opener: Tag): void {
    this.count++;
    if (opener.family === "legacy") {
      this.mode = "special";
      this.specialEnd = opener.legacy === "section-begin" ? "section-end" : "call-end";
      this.depth = 0;
      return;
    }
    this.params = opener.family === "dsml" ? "dsml" : "naked";
    this.mode = opener.family === "costume" ? "wrapper" : opener.role === "block" ? "block" : opener.role === "invoke" ? "invoke" : opener.family === "dsml" ? "tool" : "function";
    this.tool = this.mode === "tool" ? opener.name : "";
    this.depth = 0;
  }

  // A tag at the example's own level (no parameter of it open).
  private structure(tag: Tag): "fail" | null {
    if (this.isParameter(tag)) {
      // A stray parameter closer: DSML and Claude-style examples read on as before; a function's or wrapper's is broken.
      if (tag.closing) return this.mode === "function" || this.mode === "wrapper" ? "fail" : null;
      this.depth = 1;
      return null;
    }
    const markup = tag.family === "dsml" || tag.family === "naked";
    const block = markup && tag.role === "block";
    const namedInvoke = opensCall(tag) && !block;
    switch (this.mode) {
      case "block":
        if (!block) return null;
        if (!tag.closing) return "fail";
        break;
      case "invoke":
        if (block || namedInvoke) return "fail";
        if (!(markup && tag.role === "invoke" && tag.closing && !(tag.flaws & Flaw.SelfClosing))) return null;
        break;
      case "function":
        if (block || namedInvoke || (isToolCallTag(tag) && tag.closing)) return "fail";
        if (!(tag.family === "naked" && tag.role === "function" && !(tag.flaws & Flaw.SelfClosing))) return null;
        if (!tag.closing) return "fail";
        break;
      case "wrapper":
        if (block || namedInvoke) return "fail";
        if (!isToolCallTag(tag)) return null;
        if (!tag.closing) return "fail";
        break;
      case "tool":
        // Closed by its own closer or, as models write it (golden E29.1), an invoke closer.
        if (block || namedInvoke) return "fail";
        if (!this.closesTool(tag) && !(markup && tag.role === "invoke" && tag.closing && !(tag.flaws & Flaw.SelfClosing))) return null;
        break;
      case "after":
        return null;
    }
    this.mode = "after";
    return null;
  }
}


/** A DSML or unprefixed block opener or named invoke opener: where another call starts. */
const opensCall = (tag: Tag) =>
  (tag.family === "dsml" || tag.family === "naked") &&
  (tag.role === "block" ? !tag.closing : tag.role === "invoke" && !tag.closing && tag.attrs.name !== undefined && !(tag.flaws & Flaw.SelfClosing));

const isToolCallTag = (tag: Tag) => tag.family === "costume" && tag.name === "tool_call";
const isToolCallOpener = (tag: Tag) => isToolCallTag(tag) && !tag.closing && !(tag.flaws & Flaw.SelfClosing);

/** A special token that opens a call example: a section's begin (Kimi, DeepSeek V3), a call's begin, LFM2's start. */
const specialOpener = (tag: Tag) => tag.family === "legacy" && (tag.legacy === "section-begin" || tag.legacy === "call-begin" || tag.legacy === "call-start");
const isGlmValueTag = (tag: Tag) => tag.family === "costume" && tag.name === "arg_value";

/**
 * An opener that may start an example in a value of `family` (a DSML value reads unprefixed markup
 * as text already, PlainRunInValue). In a DSML value, a sentinel tag named after a declared tool
 * (`declared`) starts a tool-named example (I11, golden A45.3, E45.8).
 */
export function exampleOpener(tag: Tag, family: TagFamily, declared?: (tag: Tag) => boolean): boolean {
  if (tag.closing || tag.flaws & Flaw.SelfClosing) return false;
  if (tag.family === "dsml") {
    if (tag.role === "block" || (tag.role === "invoke" && tag.attrs.name !== undefined)) return true;
    return family === "dsml" && declared !== undefined && opensToolElement(tag) && declared(tag);
  }
  if (family !== "naked" && family !== "costume") return false;
  if (tag.family === "costume") return tag.name === "tool_call";
  return tag.family === "naked" && (tag.role === "block" || tag.role === "function" || (tag.role === "invoke" && tag.attrs.name !== undefined));
}

/**
 * An opener that may start an example of any dialect where a DSML value's text reads
 * examples after a closer alone on its line (closer-ends-call.ts, the stream's
 * Candidate.exampleAfterCloser) or after a complete call (stray-value-closer.ts): a DSML one, an
 * unprefixed block, named invoke or function, a `<tool_call>` wrapper, or a special token that
 * opens a call (LFM2, Kimi, DeepSeek V3). Only the value's own closer after them makes them text.
 */
export function anyExampleOpener(tag: Tag, declared?: (tag: Tag) => boolean): boolean {
  return exampleOpener(tag, "dsml", declared) || exampleOpener(tag, "naked") || specialOpener(tag);
}

/**
 * Over a complete span (`text`, read up to `to`): the index of the value's closer that ends the
 * examples from `at` (`end`), or -1 and the index where no example was (`stop`; the tag count at the end).
 */
export function exampleEnd(
  text: string,
  tags: readonly Tag[],
  at: number,
  family: TagFamily,
  to = text.length,
  invokeCloses = false,
  options: ExampleOptions = NO_EXAMPLE_OPTIONS,
): { end: number; stop: number; ambiguous?: boolean } {
  const example = new ExampleInValue(tags[at]!, family, invokeCloses, options);
  for (let k = at + 1; k < tags.length; k++) {
    const verdict = example.step(tags[k]!);
    // Content at a held prefix-less closer (ExampleInValue.heldCloser): the tag before this one.
    if (verdict === "content") return { end: example.contentAtHeld ? k - 1 : k, stop: -1, ambiguous: example.ambiguous };
    if (verdict === "fail") return { end: -1, stop: k };
    const until = k + 1 < tags.length ? tags[k + 1]!.start : to;
    for (let i = tags[k]!.end; i < until && example.awaitsChar; i++) {
      const v = example.char(text.charCodeAt(i));
      if (v === "fail") return { end: -1, stop: k + 1 };
      if (v === "content") return { end: k, stop: -1, ambiguous: example.ambiguous };
    }
  }
  return { end: -1, stop: tags.length };
}
