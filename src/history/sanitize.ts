import { DocContext } from "../engine/doc-context.ts";
import { createRepairEngine } from "../engine/engine.ts";
import { HISTORY_CALL, HISTORY_ECHOED_CALL } from "../engine/output.ts";
import { isSpaceCode } from "../parse/char-form.ts";
import type { EchoGuard } from "../engine/types.ts";
import type { NudgeReason, ParseOptionsInput, Span, ToolSpec } from "../parse/types.ts";
import { opencodeBuiltinTools } from "../tools/opencode-builtins.ts";
import { cutOffMarkupEnd, strayMarkup, withSeedWrapper } from "./stray-markup.ts";

/** What replaces leaked markup in replayed history: short, and says nothing ran. */
export const REMOVED_NOTE = "[dsml-fix: a malformed tool call was removed here; it was not executed]";

interface SanitizedText {
  text: string;
  /** How many leaked spans were replaced. */
  removed: number;
}

/**
 * Replaces leaked tool-call markup in one replayed assistant text with REMOVED_NOTE: the one-text
 * case, kept for the tests that pin the note's rules (every route reads a reply's parts together
 * through redactReply). History never becomes calls, and documentation (fences, inline code) is
 * left exactly as written. `tools`: the tools the request declares, when the caller knows them
 * (the proxy, repairFetch and the AI SDK middleware read them from the request); left out,
 * OpenCode's built-in tools (the plugin, which runs in OpenCode).
 */
export function sanitizeAssistantText(text: string, options: ParseOptionsInput = {}, tools?: readonly ToolSpec[]): SanitizedText {
  const { text: out, removed } = redactLeaks(text, options, tools);
  return { text: out, removed };
}

interface RedactedText extends SanitizedText {
  /**
   * Why the first replaced span the model wrote itself was not a call; a well-formed call (history
   * never runs one) reads as "undeclared-tool". "echoed-markup" only when every span found was
   * quoted from given content (an echo guard was given, and matched). Null when nothing was found, or only markup the live
   * repair left unreported (src/history/stray-markup.ts: it asks for no correction).
   */
  nudge: NudgeReason | null;
  /** Shape ids of the replaced spans. */
  shapes: string[];
}

/**
 * sanitizeAssistantText, also saying what was replaced (for a correction and a debug line).
 *
 * The text is read exactly as the live repair reads a reply with these tools declared (the same
 * engine, EngineOptions.history), so every shape the live repair acts on, a call or markup it
 * nudges about, is found here too, and none is ever run: a well-formed call is replaced like
 * broken markup. Shapes whose verdict needs a declared tool (Hermes JSON that names one, a GLM
 * zero-argument call, a MiniMax bracket, a tool-named element) therefore need the tools: a name
 * no tool has is prose there, in history as in a live reply, which is what keeps a sentence that
 * shows the format (golden N21.9, N21.11, N29.3, N29.23, N9.7) as written.
 */
export function redactLeaks(text: string, options: ParseOptionsInput = {}, tools?: readonly ToolSpec[]): RedactedText {
  const { texts, ...rest } = redactReply([{ text }], options, tools);
  return { text: texts[0]!, ...rest };
}

/**
 * One text part of a replayed reply, in order. `apart`: markup never runs from the part before
 * into this one (the live repair ended a span there: a Responses output_text part, an Anthropic
 * text block after a block of another kind); documentation still carries over, as it does live.
 */
export interface ReplyPart {
  text: string;
  apart?: boolean;
  /**
   * Content given to the model inside the reply, between the part before this one and this one (a
   * server tool's result): handed to the echo guard (EchoGuard.addGiven) before this part is read,
   * so it is given to this part and the ones after it, never to the text before it.
   */
  given?: () => readonly string[];
}

interface RedactedReply extends Omit<RedactedText, "text"> {
  /** Each part's text after the pass, in the order given: the very strings given when nothing changed. */
  texts: string[];
}

/**
 * The text parts among one reply's parts, in order, with their indices there: a text part after a
 * part of another kind (a tool call, reasoning) is read apart, as the live repair ends a span at
 * an Anthropic block of another kind; consecutive text parts are one span.
 */
export function replyTextParts<P>(parts: readonly P[], textOf: (part: P) => string | undefined): { parts: ReplyPart[]; at: number[] } {
  const out: ReplyPart[] = [];
  const at: number[] = [];
  let other = false;
  parts.forEach((part, index) => {
    const text = textOf(part);
    if (text === undefined) {
      other = true;
      return;
    }
    out.push(other ? { text, apart: true } : { text });
    at.push(index);
    other = false;
  });
  return { parts: out, at };
}

/**
 * The replies among a conversation's messages, each as the indices of its assistant messages: a
 * run of consecutive assistant messages with nothing given between is one reply (a continuation
 * after max_tokens, a resumed stream stored as a message of its own), as the request path reads
 * them (src/adapters/request-history.ts repliesOf), so every route reads it as one text.
 */
export function assistantRuns<M>(messages: readonly M[], isAssistant: (message: M) => boolean): number[][] {
  const runs: number[][] = [];
  let open: number[] | undefined;
  messages.forEach((message, index) => {
    if (!isAssistant(message)) open = undefined;
    else if (open) open.push(index);
    else runs.push((open = [index]));
  });
  return runs;
}

/** How one reply is read beside its text and tools. */
interface ReplyReading {
  /**
   * The echo guard over what the request gave the model before this reply (never the reply's own
   * words), and what a part's `given` adds inside it (a server tool's result): a well-formed call it
   * matches is reported "echoed-markup" instead of "undeclared-tool".
   * Replaced all the same; only the reason, and so a correction, differs.
   */
  isEchoed?: EchoGuard;
  /**
   * Told what each reading replaced, when it replaced anything: per reading (the second reads the
   * first's texts), per part, that part's edits in order. A caller holding offsets into a part's
   * text (a citation's start_index) moves them through these, not by searching for its words: a
   * note may be longer than the markup it replaced, so words after it stand later than they did.
   */
  edits?: (passes: readonly (readonly TextEdit[])[][]) => void;
}

/** One replacement in a part's text: [start, end) of the text the reading was given became `length` characters (the note, a piece of it, or nothing). */
export interface TextEdit {
  start: number;
  end: number;
  length: number;
}

/**
 * The text parts of one replayed reply, read as the live repair read that reply: as one text (one
 * documentation context, so a fence opened in one part holds an example in the next), never each
 * part on its own. Each leak is replaced in the part where it stands.
 *
 * A leak whose markup runs from one part into the next (only where the live repair read the parts
 * as one span too, so it acted on that markup the same way) is replaced across them: the note where
 * the markup starts, the rest of the markup cut from the parts after it; unless that would leave a
 * part that had text with none (or only white space), which some APIs refuse (Anthropic rejects a
 * blank text block) and which would change the turn's shape: then the note goes into that part, and
 * when two or more parts would be left blank the note is cut into pieces at its words, one piece in
 * each of them, in order (the parts joined read exactly as the whole text's history; no part that
 * had text is left blank). A part that held only white space inside the markup is left empty: the
 * callers drop it from its message, or give it the note when the message would keep nothing
 * (emptied-parts.ts), since an empty text part is refused too.
 */
export function redactReply(parts: readonly ReplyPart[], options: ParseOptionsInput = {}, tools?: readonly ToolSpec[], reading: ReplyReading = {}): RedactedReply {
  const first = redactOnce(parts, options, tools, reading);
  if (first.removed === 0) return { texts: first.texts, removed: 0, nudge: first.nudge, shapes: first.shapes };
  // The redacted text is read once more: markup the live repair left as text only because it sat
  // beside a broken span (the lines after a cut-off value, parse/dialects/dsml/parse-span.ts endAtLastTag) may act on
  // its own once that span is a note. Bounded to one more pass (linear work). Only what the first
  // reading saw outside documentation counts there: the replaced span may have taken with it the
  // opener (a backtick, `<!--` on the cut-off line) of documentation that holds an example, which
  // stays as written (the live repair keeps it as text too).
  const seen = new FirstReading(parts.map((p) => p.text).join(""), first.replaced, first.calls);
  const again = redactOnce(
    first.texts.map((text, i) => ({ text, apart: parts[i]!.apart === true })),
    options,
    tools,
    reading,
    (at) => !seen.sawDocumentationAt(at),
  );
  const { replaced: _, calls: __, edits: ___, ...once } = first;
  reading.edits?.(again.removed === 0 ? [first.edits] : [first.edits, again.edits]);
  if (again.removed === 0) return once;
  return { texts: again.texts, removed: first.removed + again.removed, nudge: first.nudge ?? again.nudge, shapes: [...first.shapes, ...again.shapes] };
}

interface Redaction extends RedactedReply {
  /** The spans of the text read (the parts joined) that a note replaced (in order; one per note). */
  replaced: [number, number][];
  /** The spans of the well-formed calls the engine read (as markup, not as text), sorted by start. */
  calls: Span[];
  /** Per part, what this reading replaced in it (ReplyReading.edits). */
  edits: TextEdit[][];
}

/**
 * Whether the first reading saw a character of the redacted text as documentation: the
 * documentation context run over the original text as the engine runs it over a replayed reply
 * (every character visible, in order), except a well-formed call's span (`calls`): the engine
 * reads that as the markup the live repair ran (DocContext.afterMarkup), so a fence in the call's
 * arguments (golden L01, I10: a ```json fence whose closing line goes on with a token) opens no
 * documentation over the rest of the reply, and a leak after it is replaced as live runs it.
 * `replaced`: the spans of the original text the first pass replaced by notes; a character of a
 * note is not documentation. Asked at growing positions (a pass reports its spans in order), so a
 * whole pass costs one sweep of the original text.
 */
class FirstReading {
  private doc = new DocContext();
  private pos = 0;
  /** The next replaced span, and how far the redacted text is shifted before it. */
  private next = 0;
  private shift = 0;
  /** The next call span the sweep reaches. */
  private nextCall = 0;
  constructor(
    private readonly original: string,
    private readonly replaced: readonly Span[],
    private readonly calls: readonly Span[],
  ) {}

  sawDocumentationAt(at: number): boolean {
    for (;;) {
      const span = this.replaced[this.next];
      if (!span || at < span[0] + this.shift) break;
      if (at < span[0] + this.shift + REMOVED_NOTE.length) return false;
      this.shift += REMOVED_NOTE.length - (span[1] - span[0]);
      this.next++;
    }
    const q = at - this.shift;
    while (this.pos < q) {
      const call = this.calls[this.nextCall];
      if (call && call[0] <= this.pos) {
        this.nextCall++;
        if (this.pos < call[1]) this.skipCall(call);
        continue;
      }
      const stop = call ? Math.min(q, call[0]) : q;
      while (this.pos < stop) this.doc.advance(this.original.charCodeAt(this.pos++));
    }
    // Inside a call's span (markup, never documentation), or asked again behind the sweep.
    if (q < this.pos) return false;
    return q < this.original.length && this.doc.inDoc(this.original.charCodeAt(q));
  }

  /** A call's span, read as the engine reads it (Output.afterMarkup): markup, then the white space it ends with. */
  private skipCall([from, to]: Span): void {
    this.doc.afterMarkup();
    let k = to;
    while (k > from && isSpaceCode(this.original.charCodeAt(k - 1))) k--;
    if (k > from && k < to) this.doc.advanceText(this.original, k, to);
    this.pos = to;
  }
}

function redactOnce(parts: readonly ReplyPart[], options: ParseOptionsInput, tools: readonly ToolSpec[] | undefined, reading: ReplyReading, counts: (at: number) => boolean = () => true): Redaction {
  const texts = parts.map((p) => p.text);
  const text = texts.join("");
  const none: Redaction = { texts, removed: 0, nudge: null, shapes: [], replaced: [], calls: [], edits: [] };
  if (!mayHoldMarkup(text, options.standaloneJson === true)) return none;
  const engine = createRepairEngine({
    tools: tools ?? opencodeBuiltinTools,
    parse: options,
    bufferLimit: Number.MAX_SAFE_INTEGER,
    idPrefix: "history_",
    history: true,
    ...(reading.isEchoed ? { isEchoed: reading.isEchoed } : {}),
  });
  parts.forEach((part, i) => {
    if (i > 0 && part.apart) engine.endSpan?.();
    // The second reading (redactReply) hands nothing on: the guard holds what the first one added.
    if (part.given) reading.isEchoed?.addGiven?.(part.given);
    engine.feed(part.text);
  });
  engine.flush();
  const { broken } = engine.summary();
  // A list of calls reports one span and empty ones after it: one note for the span.
  const spans = broken.filter((b) => b.span[1] > b.span[0]).sort((a, b) => a.span[0] - b.span[0]);
  const calls = spans.filter((b) => b.detail === HISTORY_CALL || b.detail === HISTORY_ECHOED_CALL).map((b) => b.span);
  // Markup the live repair leaves as text (a lone block opener, a Hermes call whose closer never
  // came) is replaced too: history never runs it, and the model would imitate it (stray-markup.ts).
  const strayAll = strayMarkup(text, tools ?? opencodeBuiltinTools, spans.map((b) => b.span));
  // Asked in order of position over the engine's spans and the stray ones together: a FirstReading
  // sweeps the original text once and answers "not documentation" behind its sweep, so asking
  // about a later call first would make an earlier stray span it held as documentation count.
  const { skipped, keep } = askInOrder(spans, strayAll, counts);
  const engineFound = skipped.size === 0 ? spans : spans.filter((b) => !skipped.has(b));
  const stray = strayAll.filter((s) => keep.has(s));
  const found: { span: Span; shape: string; reason: NudgeReason }[] = [...engineFound, ...stray.map((s) => ({ ...s, reason: "broken-markup" as NudgeReason }))].sort((a, b) => a.span[0] - b.span[0]);
  if (found.length === 0) return none;
  // What a note replaces: each span, and a stray closer right after one with only white space
  // between (that leak's tail, which the live repair strips as noise): no second note for it. A
  // span the reply cut off ends at its last token (and the JSON right after it): the prose after it
  // stays (cutOffMarkupEnd). A Seed-OSS wrapper around a span goes with it.
  const regions: [number, number][] = [];
  let at = 0;
  for (const { span, shape, reason } of found) {
    let [start, end]: Span = span;
    if (start < at) continue;
    if (reason === "truncated-call") end = cutOffMarkupEnd(text, start, end);
    [start, end] = withSeedWrapper(text, start, end);
    if (start < at) start = at;
    if (regions.length > 0 && shape === "D08" && text.slice(at, start).trim() === "") regions[regions.length - 1]![1] = end;
    else regions.push([start, end]);
    at = end;
  }
  // Only the markup goes: a span that ends in white space (an unclosed call the stream ended at
  // the next non-blank line takes the line break, blank lines and indentation before it) gives that
  // white space back, so the line after the note keeps its structure (a fence line stays a fence
  // line, an indented code block stays one) and no character that was not markup is lost.
  for (const region of regions) region[1] = region[0] + text.slice(region[0], region[1]).trimEnd().length;
  const out = new PartWriter(texts);
  const replaced: [number, number][] = [];
  for (const region of regions) if (out.replace(region[0], region[1])) replaced.push(region);
  // The model's own leak names the reason; a quote of given content only when nothing else was found.
  // Stray markup (a lone opener, an unclosed Hermes call) names none: the live repair reported
  // nothing for it, so it asks for no correction; it is only replaced.
  const own = engineFound.find((b) => b.reason !== "echoed-markup") ?? engineFound[0];
  const nudge = own?.reason ?? null;
  const shapes = [...broken.filter((b) => !skipped.has(b)).map((b) => b.shape), ...stray.map((s) => s.shape)];
  if (replaced.length === 0) return { ...none, nudge, shapes };
  return { texts: out.finish(), removed: replaced.length, nudge, shapes, replaced, calls, edits: out.edits };
}

/**
 * Which engine spans `counts` skips and which stray spans it keeps, asking it once per span in
 * order of start (both lists are sorted by start): a merge, linear.
 */
function askInOrder<A extends { span: Span }, B extends { span: Span }>(spans: readonly A[], stray: readonly B[], counts: (at: number) => boolean): { skipped: Set<A>; keep: Set<B> } {
  const skipped = new Set<A>();
  const keep = new Set<B>();
  let i = 0;
  let j = 0;
  while (i < spans.length || j < stray.length) {
    if (j >= stray.length || (i < spans.length && spans[i]!.span[0] <= stray[j]!.span[0])) {
      const b = spans[i++]!;
      if (!counts(b.span[0])) skipped.add(b);
    } else {
      const s = stray[j++]!;
      if (counts(s.span[0])) keep.add(s);
    }
  }
  return { skipped, keep };
}

/**
 * Builds the parts' texts with regions of their joined text replaced by REMOVED_NOTE, in order of
 * position; one sweep of the parts (a region is found from the part the last one ended in).
 */
class PartWriter {
  private readonly out: string[];
  /** Where each part starts and ends in the joined text. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** The part the text written so far ends in, and how far that is. */
  private part = 0;
  private at = 0;
  /** Per part, the replacements made in it, in order (in that part's own offsets). */
  readonly edits: TextEdit[][];

  constructor(private readonly texts: readonly string[]) {
    this.out = texts.map(() => "");
    this.edits = texts.map(() => []);
    let at = 0;
    for (const text of texts) {
      this.starts.push(at);
      at += text.length;
      this.ends.push(at);
    }
  }

  /** Replaces [start, end) (non-empty, at or after what was written) by the note; false when it is left as written. */
  replace(start: number, end: number): boolean {
    this.copy(this.at, start);
    while (this.ends[this.part]! <= start) this.part++;
    let last = this.part;
    while (this.ends[last]! < end) last++;
    let into = this.part;
    if (last !== this.part) {
      // Parts that had text and would be left blank: at most one of them can take the note.
      const blank: number[] = [];
      if (hasText(this.texts[this.part]!) && !hasText(this.out[this.part]!)) blank.push(this.part);
      for (let i = this.part + 1; i < last; i++) if (hasText(this.texts[i]!)) blank.push(i);
      if (hasText(this.texts[last]!) && !hasText(this.texts[last]!.slice(end - this.starts[last]!))) blank.push(last);
      if (blank.length > 1) {
        // Each part the markup leaves blank takes a piece of the note (whole words while they go
        // round), so no part that had text is left blank and the parts joined read as the whole
        // text's history. Only more blank parts than the note has characters keep the markup.
        const pieces = notePieces(blank.length);
        if (!pieces) {
          this.copy(start, end);
          return false;
        }
        blank.forEach((part, i) => (this.out[part] += pieces[i]!));
        const pieceOf = new Map(blank.map((part, i) => [part, pieces[i]!.length]));
        this.noteEdits(start, end, last, (part) => pieceOf.get(part) ?? 0);
        this.at = end;
        return true;
      }
      into = blank[0] ?? this.part;
    }
    this.out[into] += REMOVED_NOTE;
    this.noteEdits(start, end, last, (part) => (part === into ? REMOVED_NOTE.length : 0));
    this.at = end;
    return true;
  }

  /** Records [start, end) of the joined text, over parts this.part..last, as each part's own edit: `inserted` says how long what went into it is. */
  private noteEdits(start: number, end: number, last: number, inserted: (part: number) => number): void {
    for (let k = this.part; k <= last; k++) {
      const from = Math.max(start, this.starts[k]!) - this.starts[k]!;
      const to = Math.min(end, this.ends[k]!) - this.starts[k]!;
      const length = inserted(k);
      if (to > from || length > 0) this.edits[k]!.push({ start: from, end: to, length });
    }
  }

  finish(): string[] {
    this.copy(this.at, this.ends.at(-1) ?? 0);
    return this.out;
  }

  /** Copies [from, to) of the joined text into the parts it belongs to. */
  private copy(from: number, to: number): void {
    while (from < to) {
      while (this.ends[this.part]! <= from) this.part++;
      const stop = Math.min(to, this.ends[this.part]!);
      this.out[this.part] += this.texts[this.part]!.slice(from - this.starts[this.part]!, stop - this.starts[this.part]!);
      from = stop;
    }
    this.at = Math.max(this.at, to);
  }
}

/** The note's words, each with the space after it; its non-space characters, each with the spaces after it. */
const NOTE_WORDS = REMOVED_NOTE.split(" ").map((w, i, all) => (i < all.length - 1 ? `${w} ` : w));
const NOTE_CHARS = [...REMOVED_NOTE].reduce<string[]>((units, c) => {
  if (c === " " && units.length > 0) units[units.length - 1] += c;
  else units.push(c);
  return units;
}, []);

/** REMOVED_NOTE cut into `n` pieces that each hold a non-blank character (null when it has too few). */
function notePieces(n: number): string[] | null {
  const words = NOTE_WORDS;
  const units = n <= words.length ? words : NOTE_CHARS;
  if (n > units.length) return null;
  // The first n - 1 pieces one unit each, the last piece the rest.
  return [...units.slice(0, n - 1), units.slice(n - 1).join("")];
}

function hasText(text: string): boolean {
  return text.trim() !== "";
}

/** Cheap pre-check: replayed history is mostly plain prose (a J01 call, when that is on, starts with a brace). */
function mayHoldMarkup(text: string, standaloneJson: boolean): boolean {
  return /[<|\uFF5C\u2016[]/.test(text) || (standaloneJson && text.includes("{"));
}
