import type { Segment } from "../parse/segments.ts";
import type { BrokenSpan, NudgeReason, ParseOptionsInput, RecoveredCall, StrippedSpan, ToolSpec } from "../parse/types.ts";
import type { CutReports } from "./cut-tag.ts";
import type { DocContext } from "./doc-context.ts";
import type { LineEnds } from "./line-ends.ts";

export type EngineEvent =
  | { type: "text"; text: string }
  | { type: "call"; call: RecoveredCall };

export interface EngineOptions {
  tools: readonly ToolSpec[];
  /**
   * Names another agent's name for a tool (src/parse/aliases.ts) is never taken for, though no
   * tool in `tools` has them: every tool the request declared, of any kind, before policy narrowed
   * `tools` (a denied or not offered `execute_command` is not bash), and each alias name
   * denyTools matches. A call written to one of them runs nothing.
   */
  reservedNames?: readonly string[];
  parse?: ParseOptionsInput;
  /** Characters a candidate may hold before it is released verbatim (responseFix.bufferLimit). */
  bufferLimit?: number;
  /**
   * Prefix for call ids, followed by the call's number. When omitted, each call gets nine letters and
   * digits from one process-wide counter that starts at random (output.ts recoveredCallId): ids no
   * scrub to Mistral's nine-character form can make equal.
   */
  idPrefix?: string;
  /**
   * Echo guard: called with a call just before it would be recovered; true means the model only
   * quoted content it was given, so the markup is stripped and never executed.
   */
  isEchoed?: EchoGuard;
  /**
   * "reasoning" (D06): the text is the model's thinking. Prose after a recovered call is the model
   * still thinking, so it is released at once instead of being held as a possible fabricated result.
   */
  channel?: "content" | "reasoning";
  /** Set only when the engine reads content the request gave the model (the echo guard), never a reply. */
  readingGiven?: GivenReader;
  /**
   * The most calls this engine may recover, counting those of the parts before it (`continues`):
   * 1 when the request switched parallel tool calls off. A further call is treated like a call to
   * a tool the request does not offer: it does not run, and is nudged as "extra-call".
   */
  maxCalls?: number;
  /**
   * The answer this engine's text continues: an earlier part of the same reply (a Responses
   * output_text part or message item), read by an engine now flushed or at the end of a span. Its
   * documentation context (a fence opened there is still open here), its calls, the text it
   * holds after its last call (AnswerSoFar.tail) and markup of unknown end before (overflowed)
   * carry over.
   */
  continues?: AnswerSoFar;
  /**
   * The text is replayed history (src/history/sanitize.ts), read only to find its leaks: no call
   * is ever recovered; each well-formed one is reported broken ("undeclared-tool": it ran nothing)
   * where it stood, its text left visible, so a caller can replace every leak in place. With
   * `isEchoed`, a call the guard matches is reported "echoed-markup" instead (visible all the same).
   */
  history?: boolean;
}

/** Where the text of one reply stood when an engine was flushed; opaque outside the engine. */
export interface AnswerSoFar {
  readonly doc: DocContext;
  /** Calls recovered from the reply so far, this engine's and every earlier part's. */
  readonly calls: number;
  /**
   * Set when the reply's text so far ends after a recovered call and what came after it is still
   * undecided (held: released if another call follows, stripped at the reply's end, S03): the
   * characters held, this engine's and the earlier parts'. The next engine holds its own text
   * after that call too. Never set after flush(), which decides it.
   */
  readonly tail?: number;
  /**
   * Set once markup in the reply so far ended where no one can tell (a candidate released verbatim
   * past bufferLimit, a code costume refused at the end of its span past its hold cap or at its
   * own closer after an earlier one was read as its code): what followed it may be its text, so
   * no later call of the reply runs, in this part or any after it ("overflowed-markup"). A prefill read before the reply hands it on too, and sets it when it
   * ends with markup still open (src/adapters/call-engines.ts): the reply goes on inside it.
   */
  readonly overflowed?: true;
  /** The line state (the line before an opener, line-ends.ts), carried like `doc`: a later part reads on from the line the part before it left. */
  readonly lines?: LineEnds;
  /** A parameter outside every invoke was read in the reply so far: a later part's orphan invokes are refused (golden P48.5). */
  readonly strayBefore?: true;
  /**
   * A marker tag the part's end cut off unfinished (`<parameter name="content"`, src/engine/cut-tag.ts):
   * if the next part's first characters complete it, the markup's end is unknown (overflowed).
   */
  readonly cutTag?: string;
  /** Reports of calls the part's end cut off mid-line, withdrawn if the next part brings text (src/engine/cut-tag.ts). */
  readonly cutReports?: CutReports;
}

/** A call about to be recovered, as the echo guard sees it. */
export interface EchoQuery {
  tool: string;
  input: Record<string, unknown>;
  /** The call's markup as the reply wrote it. */
  markup: string;
  /** The tools this engine recovers: the given content is read with the same ones. */
  tools: ReadonlyMap<string, ToolSpec>;
}

export interface EchoGuard {
  (call: EchoQuery): boolean;
  /**
   * Content given to the model inside the reply itself: what a server-side tool (a web fetch, a
   * web search, code execution, an MCP server) returned before the text that follows it. From the
   * call on, it is given content for every call the guard is asked about, as what the request gave
   * is; a call decided before it stays decided (text before the result cannot quote it). `texts` is
   * read only when a call is about to be recovered; the same function added twice counts once.
   */
  addGiven?(texts: () => readonly string[]): void;
}

/**
 * Reading given content, the engine also reports every candidate that ended, so markup a candidate
 * swallowed without making it a call (a quote inside an unclosed `<shell>`) can be read again.
 */
export interface GivenReader {
  /** `segments` is null when the candidate was released as text; `openerLength` 0 for the O06 residue. */
  candidateEnded(span: string, openerLength: number, segments: readonly Segment[] | null): void;
}

export interface EngineSummary {
  recovered: number;
  nudge: NudgeReason | null;
  broken: BrokenSpan[];
  stripped: StrippedSpan[];
  /**
   * Candidates (and text held after a call) released verbatim because they hit bufferLimit. After
   * a candidate's release no later call of the reply runs: each is reported "overflowed-markup".
   */
  heldCandidateNoCall: number;
}

/**
 * One instance per response: feed text deltas in order, then flush once. feed() has its own fast
 * path for the usual delta (nothing held, nothing that could matter in it), invisible here.
 */
export interface RepairEngine {
  feed(delta: string): EngineEvent[];
  flush(): EngineEvent[];
  /**
   * The response carries native tool calls: leaked markup is stripped, never turned into a second
   * call. Calls the engine still held (a block's, waiting for its closer) were never sent: they are
   * the native call's duplicates too. The text held after the calls already recovered is released
   * (another call follows: S03); the events returned carry it (an engine that releases nothing
   * may return nothing).
   */
  noteNativeToolCall(): EngineEvent[] | void;
  /**
   * A native call came while the caller still held back every call this engine recovered (the
   * request allows one call, so a recovered call waits for the reply's end): as
   * noteNativeToolCall, and those calls never ran. They are reported as the native call's
   * duplicates, as if the native call had come first; the text held after them is released (the
   * markup in it stripped as a duplicate too). Also after flush(), where only the report changes.
   */
  withdrawCalls?(): EngineEvent[];
  /**
   * The caller held back every call this engine recovered (one call allowed: EngineOptions.maxCalls)
   * and can no longer wait for the reply's end to send them (its stream stands aside, so a native
   * call that comes later could not withdraw them): they never run. Each is reported as
   * "broken-markup"; their markup, as the reply wrote it, is returned for the caller to show as
   * text. Also after flush() or the caller's stop; "" for an engine without maxCalls.
   */
  unrunCalls?(): string;
  /**
   * The caller can wait no longer for the reply's end to decide the text held after a recovered
   * call (a Responses stream holding a part's closing events for it): it is released as text, as
   * when it outgrows bufferLimit; the calls stand.
   */
  releaseTail?(): EngineEvent[];
  /**
   * The text fed so far ends a span (an Anthropic text block followed by a block of another kind):
   * a tag or candidate still open is decided as at the end, so markup never continues past it.
   * Text held after a call, and the documentation context, carry on into the next span.
   */
  endSpan?(): EngineEvent[];
  /**
   * After flush() or endSpan(): where the reply's text stands, for the engine of its next part
   * (EngineOptions.continues). Engines that cannot say (test stubs) leave it out.
   */
  carryOver?(): AnswerSoFar;
  /** Characters currently held back: always the last ones fed. */
  readonly held: number;
  /**
   * The held text at offsets [from, to) of everything fed, as it stood after
   * the last feed() or flush() that returned; throws for a range no longer held. Read after a
   * failure, to hand the text back: a feed that throws may have stored its delta but never drops
   * what was held before it.
   */
  heldText(from: number, to: number): string;
  summary(): EngineSummary;
}
