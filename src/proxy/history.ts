// The proxy's history pass: the request body as the client sent it (bytes), through the adapters'
// request history (src/adapters/request-history.ts) with the correction on, since the proxy keeps
// no session state; a body that is not JSON goes up untouched. The bytes are spliced, never decoded
// and encoded again, so a byte order mark and bytes that are not valid UTF-8 outside the changed
// strings go up as the client sent them. A compressed body (content-encoding gzip, deflate, br) is
// read through its coding and, when changed, encoded again with it, as the fetch adapter does
// (src/adapters/request-coding.ts); one it cannot read goes up untouched with a debug line.
import { decodeBody, encodeBody, requestCoding } from "../adapters/request-coding.ts";
import { holdsHistory, sanitizeRequestBytes, type HistoryOptions } from "../adapters/request-history.ts";
import { withoutBom } from "../adapters/json-splice.ts";
import type { CorrectionReason } from "../retry/state.ts";

interface SanitizedBody {
  body: Uint8Array<ArrayBuffer>;
  /** Leaked spans replaced; with no correction either, the body is the original bytes. */
  removed: number;
  /** Assistant turns that had a span replaced. */
  turns: number;
  correction: CorrectionReason | null;
  /** Why a due change was not made (a debug line, never body content); the body is the original bytes. */
  why?: string;
}

/**
 * The history pass over a body as it was sent, `headers` naming its content coding; decoding stops
 * at `limit` bytes (the proxy's body bound) so a small compressed body cannot fill memory.
 */
export async function sanitizeSentBody(pathname: string, body: Uint8Array<ArrayBuffer>, headers: Headers, options: HistoryOptions, limit: number): Promise<SanitizedBody> {
  const coding = requestCoding(pathname, { headers });
  if (coding.kind === "none") return sanitizeRequestBody(pathname, body, options);
  const unchanged = { body, removed: 0, turns: 0, correction: null };
  if ((!options.sanitize && !options.correct) || !holdsHistory(pathname)) return unchanged;
  if (coding.kind === "unread") return { ...unchanged, why: `${coding.why}: history not read` };
  const decoded = await decodeBody(body, coding.coding, limit);
  if ("why" in decoded) return { ...unchanged, why: `${decoded.why}: history not read` };
  const plain = sanitizeRequestBody(pathname, decoded.bytes as Uint8Array<ArrayBuffer>, options);
  if (plain.why) return { ...unchanged, why: plain.why };
  if (plain.body === decoded.bytes) return unchanged;
  return { ...plain, body: (await encodeBody(plain.body, coding.coding)) as Uint8Array<ArrayBuffer> };
}

/** A body with nothing to change is returned as the very same bytes; a changed one differs only in the changed strings. */
export function sanitizeRequestBody(pathname: string, body: Uint8Array<ArrayBuffer>, options: HistoryOptions): SanitizedBody {
  const unchanged = { body, removed: 0, turns: 0, correction: null };
  if ((!options.sanitize && !options.correct) || !holdsHistory(pathname)) return unchanged;
  // As the fetch adapter reads bytes (src/adapters/request-body.ts): a byte order mark kept in the
  // text, and skipped for JSON.parse; invalid sequences read as U+FFFD, the bytes themselves kept.
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutBom(text));
  } catch {
    return unchanged;
  }
  const result = sanitizeRequestBytes(pathname, body, text, parsed, options);
  if (result.why) return { ...unchanged, why: result.why };
  if (result.removed === 0 && !result.correction) return unchanged;
  return { body: result.bytes as Uint8Array<ArrayBuffer>, removed: result.removed, turns: result.turns, correction: result.correction };
}
