import { Flaw, type Tag, type TagFamily } from "../grammar/tags.ts";
import { CR, LF, SP, TAB } from "../grammar/chars.ts";

/**
 * Review finding 3: a closer written inside a value (`"</{D}invoke>"` in a file, `'</function>'`
 * in a grep, `"</shell>"` in a command) is the value's text unless it really ends the call. A
 * closer that would end an open value (P01, O02.5) or a costume's code is taken as the boundary
 * only when nothing but spaces follows it on its line (a line ends at LF, CR LF or a lone CR, as
 * in the documentation context; or the span or reply ends, or a block's closer or the next invoke
 * comes on that line), and, for a value, no parameter closer of the value's family is the next
 * thing written. A block's or wrapper's closer inside an open value is weighed the same way. The streaming reader (engine/candidate.ts) and the
 * span parsers (dsml.ts, dialects/qwen.ts) decide with this same rule, so whole text and any
 * split agree.
 *
 * Reading a closer as text is a guess the rest of the span must confirm (review overreach): a
 * value stands only if it then reaches its own parameter closer; ended by anything else (the
 * block's or wrapper's closer, a later invoke or function closer, the next parameter) the call is
 * refused as broken markup (dsml.ts, qwen.ts), and a costume read on past such a closer ends, as
 * text up to its first closer, at the next call or block opener or the end of the reply (costume.ts).
 */
export interface CloserRule {
  /** The family whose parameter closer, coming next, proves the closer was inside the value; null for a costume's code. */
  valueCloser: TagFamily | null;
  /** A tag that ends the call when it comes on the closer's line: a block's closer, the next invoke. */
  boundary(tag: Tag): boolean;
  /**
   * The value's own closer when it is no parameter closer of `valueCloser`'s family (GLM's
   * `</arg_value>`, family "costume"): coming next, it proves the closer was in the value.
   */
  closesValue?(tag: Tag): boolean;
}

/** What comes next after a tentative closer: true when it proves the closer was content. */
export function closerWasContent(rule: CloserRule, next: Tag | null, lineEnded: boolean): boolean {
  if (next !== null && rule.valueCloser !== null && (rule.closesValue ? rule.closesValue(next) : next.family === rule.valueCloser && next.role === "parameter" && next.closing)) return true;
  if (lineEnded) return false;
  return next === null || !rule.boundary(next);
}

/**
 * Block closers (not a costume's), invoke openers and special tokens (a legacy-family tag: end of
 * sentence, tool calls end, ..., which no value holds as text) end a call on the closer's line;
 * `wrapper` adds a kind's own wrapper closer; `closesValue` names the value's own closer when it is
 * no parameter closer (CloserRule.closesValue).
 */
export function closerRule(valueCloser: TagFamily | null, wrapper?: (tag: Tag) => boolean, closesValue?: (tag: Tag) => boolean): CloserRule {
  return {
    valueCloser,
    ...(closesValue ? { closesValue } : {}),
    boundary: (tag) =>
      (tag.closing && tag.role === "block" && tag.family !== "costume") || (!tag.closing && tag.role === "invoke") || tag.family === "legacy" || (wrapper?.(tag) ?? false),
  };
}

/**
 * The same decision over a complete span: the closer ends at `at`; `tags` are the span's tags and
 * `next` the index of the first one after the closer. The end of the span ends the call (the
 * stream ended it there, or the reply ended).
 */
export function closerEndsCall(span: string, at: number, to: number, tags: readonly Tag[], next: number, rule: CloserRule): boolean {
  let lineEnded = false;
  for (let i = at; i < to; i++) {
    const c = span.charCodeAt(i);
    // A lone CR ends a line as the documentation context reads it (CR LF once): review finding 7.
    if (c === 0x0a || c === 0x0d) lineEnded = true;
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    const tag = tags[next];
    return !closerWasContent(rule, tag !== undefined && tag.start === i ? tag : null, lineEnded);
  }
  return true;
}

/**
 * Review finding 2: a complete example written inside an open value (a file documenting a call)
 * is the value's text when, once it closed, the value's own parameter closer is the next tag. An
 * example of any known dialect starts at an opener written while the value is open: a DSML block or
 * named invoke, or, inside an unprefixed value (Claude-style, MiniMax, Qwen3-Coder) or a GLM
 * `<arg_value>`, an unprefixed block, named invoke or function element (`<function=NAME>`,
 * `<function>`) or a `<tool_call>` wrapper (Hermes, Qwen3-Coder, GLM bodies; in a GLM value, an
 * example holding GLM's own pair tags is none: which `</arg_value>` ends the value is unknowable). It runs to its own closer: a block's, an invoke's, a
 * function's, the wrapper's (an opener of another call before it, or a closer of a wider kind: no
 * example). The example's own parameters nest (`depth`): inside one of them every tag is that
 * value's text except parameter tags, and a closer there follows the closer rule of the reply's
 * values, mirrored: text after it on its line makes it that value's text (`echo "</invoke>" x`), a
 * line end or a tag next ends the example's value there (P01). After the closer the next tag is the
 * value's parameter closer (the examples were text), another example's opener (read on), a
 * costume or Mistral tag (text in any value, read on), or anything else, or nothing: the restart
 * rule stands (S02.3) and every other rule reads the text again from the first example's opener.
 * The walks (dsml.ts, dialects/qwen.ts, dialects/tool-call.ts) and the stream
 * (engine/candidate.ts) step this same state, with the characters between tags while a closer
 * waits, so whole text and any split agree.
 */
export class ExampleInValue {
  /** Inside an example of that kind, or "after": one closed, the next tag decides. */
  private mode: "block" | "invoke" | "function" | "wrapper" | "after" = "after";
  /** How many of the example's own parameters are open around the text being read. */
  private depth = 0;
  /** The family of the example's own parameter tags: DSML's for a DSML example, unprefixed otherwise. */
  private params: TagFamily = "naked";
  /** A closer read inside one of the example's values, waiting for the next character (awaitsChar). */
  private pending: Tag | null = null;

  constructor(
    opener: Tag,
    /** The open value's family: only its parameter closer (GLM's `</arg_value>` for "costume") proves the examples were text. */
    private readonly family: TagFamily,
  ) {
    this.open(opener);
  }

  /** A closer waits: the next character that is no tag decides it (char). */
  get awaitsChar(): boolean {
    return this.pending !== null;
  }

  /**
   * A character between tags while a closer waits: a line end makes it the end of the example's
   * value (and "fail" if that closer ends no part of the example), other text on its line makes it
   * that value's text. Spaces decide nothing.
   */
  char(c: number): "fail" | null {
    if (this.pending === null || c === SP || c === TAB) return null;
    const closer = this.pending;
    this.pending = null;
    if (c !== LF && c !== CR) return null;
    this.depth = 0;
    return this.structure(closer) === "fail" ? "fail" : null;
  }

  /** A tag after the opener: "content" (this tag is the value's closer), "fail", or null (read on). */
  step(tag: Tag): "content" | "fail" | null {
    if (this.pending !== null) {
      // A tag right after a closer in the example's value: that value ended there (P01).
      const closer = this.pending;
      this.pending = null;
      this.depth = 0;
      if (this.structure(closer) === "fail") return "fail";
    }
    if (this.mode === "after") {
      if (this.family === "costume" ? isGlmValueTag(tag) && tag.closing : tag.closing && tag.role === "parameter" && tag.family === this.family) return "content";
      if (exampleOpener(tag, this.family)) {
        this.open(tag);
        return null;
      }
      return (tag.family === "costume" && !isToolCallTag(tag) && !this.glmPair(tag)) || tag.family === "mistral" ? null : "fail";
    }
    // GLM's own pair tags inside an example in a GLM value: which `</arg_value>` ends the value is unknowable, as before.
    if (this.glmPair(tag)) return "fail";
    if (this.depth > 0) {
      // A block or named invoke opener in the example's value: another call starts there (the
      // restart rule), so no example, as before; each span's examples end there, so the work stays linear.
      if (opensCall(tag)) return "fail";
      if (this.isParameter(tag)) {
        if (!tag.closing) this.depth++;
        else this.depth--;
      } else if (this.endsValue(tag)) this.pending = tag;
      return null;
    }
    return this.structure(tag);
  }

  /**
   * A closer that ends an open value of this kind of example as it ends one of the reply's (the
   * closer rule): an invoke's or a block's in DSML and Claude-style markup, a function's or the
   * wrapper's in Qwen3-Coder's. Any other closer inside the example's value is its text.
   */
  private endsValue(tag: Tag): boolean {
    if (!tag.closing) return false;
    if (this.mode === "function" || this.mode === "wrapper") return isToolCallTag(tag) || (tag.family === "naked" && tag.role === "function");
    return (tag.family === "dsml" || tag.family === "naked") && (tag.role === "block" || tag.role === "invoke");
  }

  /** A GLM pair tag (`<arg_key>`, `<arg_value>`) while the open value is GLM's. */
  private glmPair(tag: Tag): boolean {
    return this.family === "costume" && tag.family === "costume" && (tag.name === "arg_value" || tag.name === "arg_key");
  }

  /**
   * One of the example's own parameter tags (a self-closing one holds no value). Parameter tags of
   * the other family are text in the example's value, as the degraded DSML a model writes mixes
   * them (`<{D}parameter ...>ls</parameter>`, M07).
   */
  private isParameter(tag: Tag): boolean {
    return tag.family === this.params && tag.role === "parameter" && !(tag.flaws & Flaw.SelfClosing);
  }

  private open(opener: Tag): void {
    this.params = opener.family === "dsml" ? "dsml" : "naked";
    this.mode = opener.family === "costume" ? "wrapper" : opener.role === "block" ? "block" : opener.role === "invoke" ? "invoke" : "function";
    this.depth = 0;
  }

  /** A tag at the example's own level (no parameter of it open). */
  private structure(tag: Tag): "fail" | null {
    if (this.isParameter(tag)) {
      // A parameter closer that closes none of the example's: a DSML or Claude-style example reads
      // on past it as before; Qwen3-Coder's and a wrapper's own structure is broken there.
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
const isGlmValueTag = (tag: Tag) => tag.family === "costume" && tag.name === "arg_value";

/**
 * An opener that may start an example inside a value of `family`: a DSML block or named invoke in
 * any value; in an unprefixed value (family "naked": Claude-style, MiniMax, Qwen3-Coder) or a GLM
 * `<arg_value>` (family "costume") also an unprefixed block, named invoke or function element, or a
 * `<tool_call>` wrapper. A DSML value reads the unprefixed markup in it as its text already
 * (dsml.ts plainMarkupValueEnds, the stream's PlainRunInValue).
 */
export function exampleOpener(tag: Tag, family: TagFamily): boolean {
  if (tag.closing || tag.flaws & Flaw.SelfClosing) return false;
  if (tag.family === "dsml") return tag.role === "block" || (tag.role === "invoke" && tag.attrs.name !== undefined);
  if (family !== "naked" && family !== "costume") return false;
  if (tag.family === "costume") return tag.name === "tool_call";
  return tag.family === "naked" && (tag.role === "block" || tag.role === "function" || (tag.role === "invoke" && tag.attrs.name !== undefined));
}

/**
 * Over a complete span: the index of the value's parameter closer that ends the examples from
 * `at` (`end`), or -1 and the index of the tag that proved no example (`stop`; the tag count when
 * the span ended first). `text` is the span the tags were read from (`to`: where reading stops):
 * while a closer waits, the characters after it decide it, as the stream reads them.
 */
export function exampleEnd(text: string, tags: readonly Tag[], at: number, family: TagFamily, to = text.length): { end: number; stop: number } {
  const example = new ExampleInValue(tags[at]!, family);
  for (let k = at + 1; k < tags.length; k++) {
    const verdict = example.step(tags[k]!);
    if (verdict === "content") return { end: k, stop: -1 };
    if (verdict === "fail") return { end: -1, stop: k };
    const until = k + 1 < tags.length ? tags[k + 1]!.start : to;
    for (let i = tags[k]!.end; i < until && example.awaitsChar; i++) {
      // A closer that a line end ended where it ends nothing of the example: the next tag is where no example was.
      if (example.char(text.charCodeAt(i)) === "fail") return { end: -1, stop: k + 1 };
    }
  }
  return { end: -1, stop: tags.length };
}

/**
 * Unprefixed markup inside a DSML value, as the stream reads it: the walk (dsml.ts
 * plainMarkupValueEnds) takes every plain tag up to the first DSML tag as the value's text when that
 * tag is the value's parameter closer (an XML file, a Claude-style or Qwen3-Coder call documented in
 * a file), unless a plain parameter closer that matches no plain opener is followed by a plain
 * parameter opener or invoke tag (the model wrote the next parameter without its sentinel). Started
 * at the first plain tag of a value, this steps the same decision, so the stream never ends the
 * value at a plain closer the walk reads as text (`echo "</invoke>"` in a documented call). Proved
 * otherwise, the stream reads the value again as before (engine/candidate.ts).
 */
export class PlainRunInValue {
  private depth = 0;
  private unmatchedCloser = false;
  readonly awaitsChar = false;

  constructor(first: Tag) {
    this.step(first);
  }

  char(): null {
    return null;
  }

  step(tag: Tag): "content" | "fail" | null {
    if (tag.family === "dsml") return tag.role === "parameter" && tag.closing ? "content" : "fail";
    if (tag.family !== "naked") return null;
    if (this.unmatchedCloser && ((tag.role === "parameter" && !tag.closing) || tag.role === "invoke")) return "fail";
    if (tag.role !== "parameter") return null;
    if (!tag.closing) this.depth++;
    else if (this.depth > 0) this.depth--;
    else this.unmatchedCloser = true;
    return null;
  }
}
