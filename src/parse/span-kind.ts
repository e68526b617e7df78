import type { DialectSwitches } from "../grammar/dialects.ts";
import type { Tag, TagFamily } from "../grammar/tags.ts";
import type { SpanContext } from "./call.ts";
import type { Segment } from "./segments.ts";
import type { CloserRule } from "./closer-in-value.ts";
import type { DsmlValueStep } from "./dsml-value.ts";
import type { ToolSpec } from "./types.ts";
import type { Shape } from "../grammar/shapes.ts";

/** What opened a candidate; decides which closer ends it (parse/span.ts maps each to its SpanKind). */
export type Root =
  | "block"
  | "invoke"
  | "parameter"
  | "element"
  | "legacy-section"
  | "legacy-call"
  | "costume"
  /** A code costume's opener that does not start its line: read like one, never run (costume-hold.ts INLINE_COSTUME). */
  | "inline-costume"
  /**
   * A code costume opening a line that continues a paragraph (golden N48.1-N48.3, C48.5) (a prose line right before
   * it): it runs only when no prose line follows its closer's line (costume-hold.ts PARAGRAPH_COSTUME).
   */
  | "paragraph-costume"
  | "qwen-function"
  | "tool-call"
  | "mistral"
  /** Issue 29 item 5: a DSML tag named after a declared tool (I11), or a plain one (O09). */
  | "tool-element"
  | "plain-element"
  | "minimax-bracket"
  | "standalone-json";

/** Where a streaming span stands after a piece of text: wants more, ended at `end`, or proved not markup at `at`. */
export type Step = { kind: "more" } | { kind: "complete"; end: number } | { kind: "abandon"; at: number };

/** A char-level state hands the rest of the span to the tag scanner, starting with this character. */
export const HAND_OFF = "hand-off" as const;

/** A span body read one character at a time (parse/char-form.ts); null: the character is taken. */
export interface CharState {
  step(c: number, at: number): Step | null | typeof HAND_OFF;
  completesAtEnd(): boolean;
  /**
   * The reply ended (after every character was stepped): a state that held characters back
   * undecided reads them now, and may end the span earlier than the reply did. Null: nothing
   * changed (completesAtEnd then decides).
   */
  atEnd?(): Step | null;
}

/**
 * The streaming reader's state a kind's boundary rules may read or move (the candidate in
 * src/engine/ implements it): rules stay here with their dialect without importing upward.
 */
export interface SpanReader {
  readonly opener: Tag;
  /** Where the span starts (absolute): the opener's offsets are relative to it. */
  readonly start: number;
  /** The block opener (or true for a legacy section) this span continues, if any. */
  readonly enclosing: Tag | true | null;
  /** The tools a call may name (the parser's SpanContext.tools): a kind's rules may read a tool's declared parameters. */
  readonly tools: ReadonlyMap<string, ToolSpec>;
  /** The opener stands at the start of its line, not in a running sentence (a mention). */
  readonly opensLine: boolean;
  /** Only spaces or tabs stand before absolute offset `at` (inside the span) on its line. */
  startsLine(at: number): boolean;
  /**
   * The span's text between absolute offsets `from` and `to` (read so far): a kind whose rule reads
   * the body's own lines (a costume's heredocs, costume-heredoc.ts) asks for each piece once.
   */
  textBetween(from: number, to: number): string;
  /** A unit closed inside a still-open block: the span takes the layout after it and ends at what comes next. */
  trail(): null;
  /**
   * A unit closed at `end` with no block around it: the span takes a wrapper closer that comes next
   * (after whitespace), and otherwise ends at `end`, so what follows is read as text again.
   */
  takeCloser(end: number): null;
  /**
   * The closer just read may be content (parse/closer-in-value.ts): it ends the
   * span only if the rule says so at the next thing written; otherwise reading goes on as if it
   * were text. After trail() or takeCloser(), or alone with `end` (the span would end there).
   */
  tentatively(rule: CloserRule, end?: number): null;
  /**
   * A unit opened while the one before it was still open (no closer of its own): the span ends at
   * `at`, where the new markup starts, so what was written in between reaches the documentation
   * context before the rest is read again; a block still open goes on around what follows.
   */
  restart(at: number): Step;
  /** A parameter's value was open before the tag being read (a DSML value as parse/dsml-value.ts decides it). */
  valueOpen(): boolean;
  /** What the DSML tag being read did to the open value (parse/dsml-value.ts); "text" for any other tag. */
  dsmlStep(): DsmlValueStep;
  /** Parameter nesting: adds `delta` and returns the new depth (it starts at 1, the opener's own). */
  nest(delta: number): number;
  /** I10: the characters from `at` are a named call (name line, JSON object), read one at a time. */
  readNamedCall(at: number): void;
  /**
   * The body broke after it proved to be a call (golden O48.2-O48.4): the span is refused
   * whole, whatever its parser makes of it, so no markup inside it (a costume, an example in a
   * value the body meant to write) runs. `shape` names the dialect for the report; `at`
   * (absolute) is where the body broke. `nested`: it broke at a call example left open in a value;
   * with the reply ended first, what follows stays that value's text (otherwise it is read again,
   * no call after it running).
   */
  refuseWhole(shape: Shape, detail: string, at: number, nested?: boolean): void;
}

export interface SpanParse {
  span: string;
  opener: Tag;
  /** The span was read as a char-level named call (I10). */
  named: boolean;
  truncated: boolean;
  ctx: SpanContext;
  enclosing: Tag | true | null;
}

/**
 * One span kind: its boundary rules (where a streaming span ends or proves a mention) and its
 * parser (what the complete span holds). Fixing a dialect touches its kind. `Body`: the state a
 * kind's rules keep for one span beyond the reader's own (the `<tool_call>` body's phase), made by
 * `body()` when the span opens and handed back to the rules; kinds without one ignore it.
 */
export interface SpanKind<Body = undefined> {
  /**
   * A non-space character outside tags. The reader asks on the first one, and on every later one
   * only when `watchesContent` (so a span's body costs no call per character otherwise).
   */
  content(r: SpanReader, c: number, at: number, first: boolean, body: Body): Step | null;
  readonly watchesContent: boolean;
  /**
   * A marker tag inside the span at `base + tag.start` (`first`: nothing came before it);
   * `closesBlock` already counts this kind's own wrapper closer.
   */
  tag(r: SpanReader, tag: Tag, base: number, first: boolean, closesBlock: boolean, body: Body): Step | null;
  /**
   * A tag read before any content (`first`) that leaves the span's first content undecided (a
   * stray tag right after a block opener): the next content or tag is still the first.
   */
  leavesFirst?(r: SpanReader, tag: Tag, body: Body): boolean;
  /** This kind's state for one span, made when it opens (before charForm). */
  body?(r: SpanReader): Body;
  /** A body read as characters from the opener's end (`from`, absolute), before any tag. */
  charForm?(opener: Tag, from: number, body: Body): CharState;
  /**
   * A tag after a call completed inside this kind's wrapper, before the wrapper's closer (a costume
   * after a Qwen3-Coder `</function>`): true when the body refused itself whole there, so the span
   * reads on to its balancing closer instead of ending before the tag.
   */
  refusesAfterCall?(r: SpanReader, tag: Tag, base: number, body: Body): boolean;
  /**
   * Text (or an element the tag grammar does not read) after a call completed inside this kind's
   * wrapper, before the wrapper's closer (a line after a Qwen3-Coder `</function>`): true when it is
   * held, the span read on, until tagWhileHeld, the reply's end or the buffer limit decides.
   */
  holdsAfterCall?(r: SpanReader, body: Body): boolean;
  /**
   * A code costume's closer ended its line, where its span would end (costume-hold.ts): true when
   * what follows is held, the call not yet run, until tagWhileHeld, the reply's end or the buffer
   * limit decides, as after a call inside a wrapper (holdsAfterCall).
   */
  holdsAfterCloserLine?(r: SpanReader, body: Body): boolean;
  /**
   * A tag read while that text is held (`heldAt`, absolute: where it began). "refused": the
   * wrapper's closer came, so it held more than its call, and the body refused itself whole (the
   * span ends after the tag); "ends": the hold is over, the span ends where the text began, as it
   * would have without the hold; null: read on.
   */
  tagWhileHeld?(r: SpanReader, tag: Tag, heldAt: number, body: Body): "refused" | "ends" | null;
  /** This kind's wrapper closer, beyond a block closer, ends a trailing span too. */
  closesWrapper?(tag: Tag): boolean;
  /** The family of a value open in this kind's body, whose examples are its text (example-in-value.ts), or null; else the reader tracks values. */
  valueFamily?(r: SpanReader, body: Body): TagFamily | null;
  parse(p: SpanParse): Segment[];
}

export const complete = (end: number): Step => ({ kind: "complete", end });
export const abandon = (at: number): Step => ({ kind: "abandon", at });
/** Rules for a kind whose first content character proves the opener was only mentioned. */
export const abandonOnFirst = (_r: SpanReader, _c: number, at: number, first: boolean): Step | null => (first ? abandon(at) : null);
export const ignoreContent = (): null => null;

/**
 * What a marker tag does where the engine's text mode meets it: opens a candidate of a root (inside
 * a block or legacy section still open, when `enclosing` is given), is a recovered call's noise,
 * is a stray marker reported as broken, or is text.
 */
export type Opening = { open: Root; enclosing?: Tag | true } | "noise" | "stray" | "text";

/**
 * The little of the engine's state an opener rule reads (parse/ sits below the engine, so the
 * engine hands this view down): read-only, plus the one move a block's closer makes.
 */
export interface OpenerView {
  /** Text after a recovered call is held (the tail): a wrapper closer or a stray marker now is the call's noise. */
  readonly tail: boolean;
  /** The block (its opener) or legacy section (true) whose last call was emitted but which has not closed yet, or null. */
  readonly openBlock: Tag | true | null;
  /** Documentation context: the tag starts its line. */
  atLineStart(): boolean;
  /** The tag starts a line that continues a paragraph (a prose line stands right before it); absent: never. */
  continuesParagraph?(): boolean;
  /** The request declared a tool (or alias) of this name. */
  declared(name: string): boolean;
  readonly dialects: DialectSwitches;
  readonly codeCostumes: boolean;
  /** Forgets the open block; true when there was one, so its closer is the block's, not a stray. */
  closeOpenBlock(): boolean;
  /** A `</tool_call>` came: a Qwen3-Coder wrapper whose call waits for it (golden P47.15) is closed. */
  closeToolCall(): void;
}

/**
 * One tag family's opener rule, kept beside the dialect it opens (parse/openers.ts lists them):
 * `s` is the text the tag's offsets are in (a tool-named DSML tag is read as written, I11).
 */
export type OpenerRule = (tag: Tag, s: string, view: OpenerView) => Opening;
