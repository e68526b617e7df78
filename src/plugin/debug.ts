import type { CorrectionReason } from "../retry/state.ts";

interface RequestDebugEntry {
  sessionID?: string | null;
  messageID?: string | null;
  sanitizedMessages: number;
  sanitizedParts: number;
  nudge: CorrectionReason | null;
}

type ResponseOutcome =
  | { kind: "recovered"; count: number }
  | { kind: "passthrough" }
  | { kind: "held-candidate-no-call" };

interface ResponseDebugEntry {
  sessionID?: string | null;
  messageID?: string | null;
  /** 1 for the first stream of the message, higher when the same message is retried. */
  attempt: number;
  outcome: ResponseOutcome;
  nudge?: CorrectionReason | null;
  /** Shape ids such as "D02"; anything else is dropped so argument values can never reach a log. */
  shapes?: readonly string[];
}

export function formatRequestLine(entry: RequestDebugEntry): string {
  const sanitized = `sanitized=${count(entry.sanitizedMessages)}msgs/${count(entry.sanitizedParts)}parts`;
  return `[dsml] request ${target(entry)} ${sanitized} nudge=${entry.nudge ?? "no"}`;
}

export function formatResponseLine(entry: ResponseDebugEntry): string {
  let line = `[dsml] response ${target(entry)}#${count(entry.attempt)} ${outcomeText(entry.outcome)}`;
  if (entry.nudge) line += ` nudge=${entry.nudge}`;
  const shapes = shapeIds(entry.shapes ?? []);
  if (shapes.length > 0) line += ` shapes=${shapes.join(",")}`;
  return line;
}

interface FallbackDebugEntry {
  sessionID?: string | null;
  /** The user message the reply answers, or the assistant message when that could not be read. */
  messageID?: string | null;
  removed?: number;
  nudge?: CorrectionReason | null;
  shapes?: readonly string[];
  /** The reply's message could not be read: its text was left as written. */
  unresolved?: boolean;
}

/** The fallback's response line (no attempt: OpenCode's text hook does not say which request it was). */
export function formatFallbackLine(entry: FallbackDebugEntry): string {
  let line = `[dsml] response ${target(entry)} mode=fallback`;
  if (entry.unresolved) return `${line} unresolved (message not found; text left unchanged)`;
  line += ` removed=${count(entry.removed ?? 0)}`;
  if (entry.nudge) line += ` nudge=${entry.nudge}`;
  const shapes = shapeIds(entry.shapes ?? []);
  if (shapes.length > 0) line += ` shapes=${shapes.join(",")}`;
  return line;
}

export interface DebugLog {
  readonly enabled: boolean;
  request(entry: RequestDebugEntry): void;
  response(entry: ResponseDebugEntry): void;
}

/** Lines are only formatted when enabled, so a disabled log costs a branch per call. */
export function createDebugLog(enabled: boolean, sink: (line: string) => void): DebugLog {
  if (!enabled) return { enabled, request() {}, response() {} };
  const write = (line: string) => {
    // A failing log sink must never fail the request it describes.
    try {
      sink(line);
    } catch {}
  };
  return {
    enabled,
    request: (entry) => write(formatRequestLine(entry)),
    response: (entry) => write(formatResponseLine(entry)),
  };
}

function outcomeText(outcome: ResponseOutcome): string {
  return outcome.kind === "recovered" ? `recovered=${count(outcome.count)}` : outcome.kind;
}

const SAFE_ID = /^[A-Za-z0-9_.-]+$/;
const SHAPE_ID = /^[A-Z][0-9]{2}$/;

/** Ids come from OpenCode; anything that could break the one-line format prints as unknown. */
function target(entry: { sessionID?: string | null; messageID?: string | null }): string {
  return `${idOrUnknown(entry.sessionID)}/${idOrUnknown(entry.messageID)}`;
}

function idOrUnknown(id: string | null | undefined): string {
  return id && SAFE_ID.test(id) ? id : "?";
}

function shapeIds(shapes: readonly string[]): string[] {
  return [...new Set(shapes.filter((shape) => SHAPE_ID.test(shape)))];
}

function count(value: number): string {
  return Number.isSafeInteger(value) && value >= 0 ? String(value) : "?";
}
