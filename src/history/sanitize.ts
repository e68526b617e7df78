import { DocContext } from "../engine/doc-context.ts";
import { createRepairEngine } from "../engine/engine.ts";
import type { NudgeReason, ParseOptionsInput, Span, ToolSpec } from "../parse/types.ts";
import { opencodeBuiltinTools } from "../tools/opencode-builtins.ts";

/** What replaces leaked markup in replayed history: short, and says nothing ran. */
export const REMOVED_NOTE = "[dsml-fix: a malformed tool call was removed here; it was not executed]";

export interface SanitizedText {
  text: string;
  /** How many leaked spans were replaced. */
  removed: number;
}

/**
 * Replaces leaked tool-call markup in replayed assistant text with REMOVED_NOTE. History never
 * becomes calls, and documentation (fences, inline code) is left exactly as written. `tools`: the
 * tools the request declares, when the caller knows them (the proxy and the AI SDK middleware read
 * them from the request); left out, OpenCode's built-in tools (the plugin, which runs in OpenCode).
 */
export function sanitizeAssistantText(text: string, options: ParseOptionsInput = {}, tools?: readonly ToolSpec[]): SanitizedText {
  const { text: out, removed } = redactLeaks(text, options, tools);
  return { text: out, removed };
}

export interface RedactedText extends SanitizedText {
  /** Why the first replaced span was not a call; a well-formed call (history never runs one) reads as "undeclared-tool". */
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
  const first = redactOnce(text, options, tools);
  if (first.removed === 0) return { text: first.text, removed: 0, nudge: first.nudge, shapes: first.shapes };
  // The redacted text is read once more: markup the live repair left as text only because it sat
  // beside a broken span (the lines after a cut-off value, parse/dialects/dsml/parse-span.ts endAtLastTag) may act on
  // its own once that span is a note. Bounded to one more pass (linear work). Only what the first
  // reading saw outside documentation counts there: the replaced span may have taken with it the
  // opener (a backtick, `<!--` on the cut-off line) of documentation that holds an example, which
  // stays as written (the live repair keeps it as text too).
  const reading = new FirstReading(text, first.replaced);
  const again = redactOnce(first.text, options, tools, (at) => !reading.sawDocumentationAt(at));
  const { replaced: _, ...once } = first;
  if (again.removed === 0) return once;
  return { text: again.text, removed: first.removed + again.removed, nudge: first.nudge, shapes: [...first.shapes, ...again.shapes] };
}

interface Redaction extends RedactedText {
  /** The spans of the text read that a note replaced (in order; one per note). */
  replaced: [number, number][];
}

/**
 * Whether the first reading saw a character of the redacted text as documentation: the
 * documentation context run over the original text as the engine runs it over a replayed reply
 * (every character visible, in order). `replaced`: the spans of the original text the first pass
 * replaced by notes; a character of a note is not documentation. Asked at growing positions (a
 * pass reports its spans in order), so a whole pass costs one sweep of the original text.
 */
class FirstReading {
  private doc = new DocContext();
  private pos = 0;
  /** The next replaced span, and how far the redacted text is shifted before it. */
  private next = 0;
  private shift = 0;
  constructor(
    private readonly original: string,
    private readonly replaced: readonly Span[],
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
    if (q < this.pos) return false; // never: the positions asked grow
    while (this.pos < q) this.doc.advance(this.original.charCodeAt(this.pos++));
    return q < this.original.length && this.doc.inDoc(this.original.charCodeAt(q));
  }
}

function redactOnce(text: string, options: ParseOptionsInput, tools?: readonly ToolSpec[], counts: (at: number) => boolean = () => true): Redaction {
  if (!mayHoldMarkup(text, options.standaloneJson === true)) return { text, removed: 0, nudge: null, shapes: [], replaced: [] };
  const engine = createRepairEngine({ tools: tools ?? opencodeBuiltinTools, parse: options, bufferLimit: Number.MAX_SAFE_INTEGER, idPrefix: "history_", history: true });
  engine.feed(text);
  engine.flush();
  const { broken } = engine.summary();
  // A list of calls reports one span and empty ones after it: one note for the span.
  const spans = broken.filter((b) => b.span[1] > b.span[0]).sort((a, b) => a.span[0] - b.span[0]);
  // Asked in order of position: a FirstReading sweeps the original text once.
  const skipped = new Set(spans.filter((b) => !counts(b.span[0])));
  const found = skipped.size === 0 ? spans : spans.filter((b) => !skipped.has(b));
  if (found.length === 0) return { text, removed: 0, nudge: null, shapes: [], replaced: [] };
  let out = "";
  let at = 0;
  let removed = 0;
  const replaced: [number, number][] = [];
  for (const { span, shape } of found) {
    const [start, end]: Span = span;
    if (start < at) continue;
    // A stray closer right after a replaced span is that leak's tail (the live repair strips it as noise): no second note.
    if (removed > 0 && shape === "D08" && text.slice(at, start).trim() === "") {
      replaced[replaced.length - 1]![1] = end;
      at = end;
      continue;
    }
    out += text.slice(at, start) + REMOVED_NOTE;
    replaced.push([start, end]);
    at = end;
    removed++;
  }
  return { text: out + text.slice(at), removed, nudge: found[0]!.reason, shapes: broken.filter((b) => !skipped.has(b)).map((b) => b.shape), replaced };
}

/** Cheap pre-check: replayed history is mostly plain prose (a J01 call, when that is on, starts with a brace). */
function mayHoldMarkup(text: string, standaloneJson: boolean): boolean {
  return /[<|\uFF5C\u2016[]/.test(text) || (standaloneJson && text.includes("{"));
}
