// The proxy's history pass: the request body as the client sent it (bytes), through the adapters'
// request history (src/adapters/request-history.ts) with the correction on, since the proxy keeps
// no session state; a body that is not UTF-8 JSON goes up untouched.
import { holdsHistory, sanitizeRequestText, type HistoryOptions } from "../adapters/request-history.ts";
import type { CorrectionReason } from "../retry/state.ts";

export type { HistoryOptions } from "../adapters/request-history.ts";

export interface SanitizedBody {
  body: Uint8Array<ArrayBuffer>;
  /** Leaked spans replaced; with no correction either, the body is the original bytes. */
  removed: number;
  /** Assistant turns that had a span replaced. */
  turns: number;
  correction: CorrectionReason | null;
}

/** A body with nothing to change is returned as the very same bytes; only a changed one is encoded again. */
export function sanitizeRequestBody(pathname: string, body: Uint8Array<ArrayBuffer>, options: HistoryOptions): SanitizedBody {
  const unchanged = { body, removed: 0, turns: 0, correction: null };
  if ((!options.sanitize && !options.correct) || !holdsHistory(pathname)) return unchanged;
  let text: string;
  let parsed: unknown;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    parsed = JSON.parse(text);
  } catch {
    return unchanged;
  }
  const result = sanitizeRequestText(pathname, text, parsed, options);
  if (result.text === text) return unchanged;
  return { body: new Uint8Array(new TextEncoder().encode(result.text)), removed: result.removed, turns: result.turns, correction: result.correction };
}
