import { Flaw, type Tag, type TagFamily } from "../grammar/tags.ts";

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
 * example starts at a block or named invoke opener written while the value is open (DSML's, or an
 * unprefixed one inside an unprefixed value); a block runs to its closer (another block opener
 * first: no example), an invoke to its closer (another invoke opener or a block tag first: no
 * example). After the closer the next tag is the value's parameter closer (the examples were
 * text), another example's opener (read on), or anything else, or nothing: the restart rule
 * stands (S02.3). The walk (dsml.ts) and the stream (engine/candidate.ts) step this same state.
 */
export class ExampleInValue {
  /** "block"/"invoke": inside an example of that kind; "after": one closed, the next tag decides. */
  private mode: "block" | "invoke" | "after";

  constructor(
    opener: Tag,
    /** The open value's family: only its parameter closer proves the examples were text. */
    private readonly family: TagFamily,
  ) {
    this.mode = opener.role === "block" ? "block" : "invoke";
  }

  /** A tag after the opener: "content" (this tag is the value's closer), "fail", or null (read on). */
  step(tag: Tag): "content" | "fail" | null {
    if (this.mode === "after") {
      if (tag.closing && tag.role === "parameter" && tag.family === this.family) return "content";
      if (!exampleOpener(tag, this.family)) return "fail";
      this.mode = tag.role === "block" ? "block" : "invoke";
      return null;
    }
    if (tag.family !== "dsml" && tag.family !== "naked") return null;
    if (tag.role === "block") {
      if (this.mode === "invoke" || !tag.closing) return "fail";
      this.mode = "after";
      return null;
    }
    if (this.mode === "invoke" && tag.role === "invoke" && !(tag.flaws & Flaw.SelfClosing)) {
      if (!tag.closing) return tag.attrs.name !== undefined ? "fail" : null;
      this.mode = "after";
    }
    return null;
  }
}

/** A block opener, or a named invoke opener, that may start an example inside a value of `family`. */
export function exampleOpener(tag: Tag, family: TagFamily): boolean {
  if (tag.closing || (tag.family !== "dsml" && (tag.family !== "naked" || family !== "naked"))) return false;
  return tag.role === "block" || (tag.role === "invoke" && tag.attrs.name !== undefined && !(tag.flaws & Flaw.SelfClosing));
}

/**
 * Over a complete span: the index of the value's parameter closer that ends the examples from
 * `at` (`end`), or -1 and the index of the tag that proved no example (`stop`; the tag count when
 * the span ended first).
 */
export function exampleEnd(tags: readonly Tag[], at: number, family: TagFamily): { end: number; stop: number } {
  const example = new ExampleInValue(tags[at]!, family);
  for (let k = at + 1; k < tags.length; k++) {
    const verdict = example.step(tags[k]!);
    if (verdict === "content") return { end: k, stop: -1 };
    if (verdict === "fail") return { end: -1, stop: k };
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
