import { Flaw, type Tag, type TagFamily } from "../grammar/tags.ts";

/**
 * A closer written inside a value (golden A40.n3-A40.n5, A40.8; `"</{D}invoke>"` in a file, `'</function>'`
 * in a grep, `"</shell>"` in a command) is the value's text unless it really ends the call. A
 * closer that would end an open value (P01, O02.5) or a costume's code is taken as the boundary
 * only when nothing but spaces follows it on its line (a line ends at LF, CR LF or a lone CR, as
 * in the documentation context; or the span or reply ends, or a block's closer or the next invoke
 * comes on that line; spaces as trim() reads them), and, for a value, no closer the parser
 * accepts for it (its family's parameter closer; for DSML the prefix-less one too, M07) is the
 * next thing written. A block's or wrapper's closer inside an open value is weighed the same way.
 * The streaming reader (engine/candidate.ts) and the span parsers (dialects/dsml/walk.ts,
 * dialects/qwen.ts) decide with this same rule, so whole text and any split agree: the stream
 * steps it one tag and character at a time, a complete span asks closer-ends-call.ts, and an
 * example written in the value is read by example-in-value.ts.
 *
 * Reading a closer as text is a guess the rest of the span must confirm (golden A40.14, A40.22, A40.23): a
 * value stands only if it then reaches its own parameter closer; ended by anything else (the
 * block's or wrapper's closer, a later invoke or function closer, the next parameter) the call is
 * refused as broken markup (dialects/dsml/, qwen.ts), and a costume read on past such a closer ends, as
 * text up to its first closer, at the next call or block opener or the end of the reply (costume-hold.ts).
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
  /**
   * A costume's code only (valueCloser null, golden N48.1, N48.2, C48.5): the line ending after the closer does not
   * end the span; the next line decides (engine/tentative-closer.ts): a blank line, a tag or the
   * reply's end or anything but a lower-case letter, and the costume ended at its closer; a
   * lower-case letter, the sentence runs on around it, so it was shown in prose: the span is text.
   */
  nextLine?: boolean;
}

/** What comes next after a tentative closer: true when it proves the closer was content. */
export function closerWasContent(rule: CloserRule, next: Tag | null, lineEnded: boolean): boolean {
  if (next !== null && rule.valueCloser !== null && (rule.closesValue ? rule.closesValue(next) : closesParameter(next, rule.valueCloser))) return true;
  if (lineEnded) return false;
  return next === null || !rule.boundary(next);
}

/** A parameter closer that closes an open value of `family`: its own, or for DSML the prefix-less one too (M07). */
export const closesParameter = (tag: Tag, family: TagFamily) =>
  tag.role === "parameter" && tag.closing && !(tag.flaws & Flaw.SelfClosing) && (tag.family === family || (family === "dsml" && tag.family === "naked"));

/**
 * Golden E45.5-E45.7: a value of the tool-named DSML form (I11, `<{D}content>`) is closed by its
 * own child closer too (`</{D}content>`): coming next, it proves a closer was in it, as a
 * parameter closer does for an invoke's value.
 */
export const closesChild = (tag: Tag, valueName: string) => tag.family === "dsml" && tag.closing && tag.name === valueName && !(tag.flaws & Flaw.SelfClosing);

/** The closer rule for an I11 value named `valueName` (lower case). */
export function toolNamedValueRule(valueName: string): CloserRule {
  return closerRule("dsml", undefined, (tag) => closesParameter(tag, "dsml") || closesChild(tag, valueName));
}

/** Where a value's text may end a call: a block closer, an invoke opener, a legacy token. */
export function closerBoundary(tag: Tag): boolean {
  return (tag.closing && tag.role === "block" && tag.family !== "costume") || (!tag.closing && tag.role === "invoke") || tag.family === "legacy";
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
    boundary: (tag) => closerBoundary(tag) || (wrapper?.(tag) ?? false),
  };
}
