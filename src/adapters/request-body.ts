// The fetch adapter reads the declared tools from the very request it forwards, so it must read the
// body in every form a client may pass (`BodyInit`, or a `Request`'s own body) and still forward an
// equivalent one: a stream is teed (one branch read, the other forwarded), a `Request` is cloned
// (the clone read, the original forwarded), every other form is read in place and forwarded as is.
// A body that is bytes (every form but a string or URLSearchParams) is also handed back as those
// bytes, so a history rewrite can splice them (src/adapters/json-splice.ts) rather than re-encode
// its text: bytes that are not valid UTF-8, or a byte order mark, go up as the client sent them.
import { concatBytes } from "../sse/framing.ts";

/**
 * The most bytes buffered from a stream to read a request (a `ReadableStream`, a `Request`'s body,
 * a `Blob`): a chat request with a long history is a few MB. Above it the adapter stands aside.
 * Strings and byte arrays are already whole in memory, so reading them costs no extra buffer.
 */
export const MAX_BUFFERED_BODY_BYTES = 32 * 1024 * 1024;

type FetchInput = string | URL | Request;

/**
 * What to forward, and the body's text or why it was not read (a debug line, never body content).
 * `bytes` are the body's exact bytes when it came as bytes, and `text` is then those bytes as a
 * replacing UTF-8 decoder with `ignoreBOM` reads them: a leading byte order mark stays in the text
 * (as a string body would hold it), bytes that are not valid UTF-8 read as U+FFFD.
 */
type BodyRead = { input: FetchInput; init: RequestInit | undefined } & ({ text: string; bytes?: Uint8Array } | { why: string });

/** Every form reads bytes as the same text: a byte order mark kept, invalid sequences replaced. */
const decode = (bytes: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
const bytesRead = (bytes: Uint8Array): { text: string; bytes: Uint8Array } => ({ text: decode(bytes), bytes });

export async function readRequestBody(input: FetchInput, init: RequestInit | undefined, limit = MAX_BUFFERED_BODY_BYTES): Promise<BodyRead> {
  const body = init?.body;
  if (body === undefined && input instanceof Request) return readRequest(input, init, limit);
  const forward = { input, init };
  if (body === undefined || body === null) return { ...forward, why: "request without a body" };
  if (typeof body === "string") return { ...forward, text: body };
  if (body instanceof ArrayBuffer) return { ...forward, ...bytesRead(new Uint8Array(body)) };
  if (ArrayBuffer.isView(body)) return { ...forward, ...bytesRead(asBytes(body)) };
  if (body instanceof URLSearchParams) return { ...forward, text: body.toString() };
  if (body instanceof Blob) {
    if (body.size > limit) return { ...forward, why: `request body (Blob of ${body.size} bytes) is over the ${limit}-byte read bound` };
    return { ...forward, ...bytesRead(new Uint8Array(await body.arrayBuffer())) };
  }
  if (body instanceof ReadableStream) {
    const [forwarded, read] = body.tee();
    return { input, init: { ...init, body: forwarded }, ...(await readBounded(read, limit, "ReadableStream")) };
  }
  if (body instanceof FormData) return { ...forward, why: "request body is FormData (multipart), not a JSON body" };
  return { ...forward, why: `request body of a form the adapter does not read (${kindOf(body)})` };
}

async function readRequest(request: Request, init: RequestInit | undefined, limit: number): Promise<BodyRead> {
  const forward = { input: request, init };
  if (request.body === null) return { ...forward, why: "request without a body" };
  if (request.bodyUsed) return { ...forward, why: "Request body already read by someone else" };
  return { ...forward, ...(await readBounded(request.clone().body!, limit, "Request")) };
}

/** Reads a byte stream whole, or gives up (cancelling it) past `limit` bytes; never throws. */
async function readBounded(stream: ReadableStream<unknown>, limit: number, form: string): Promise<{ text: string; bytes: Uint8Array } | { why: string }> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  const giveUp = (why: string) => {
    reader.cancel().catch(() => undefined);
    return { why };
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!ArrayBuffer.isView(value)) return giveUp(`request body (${form}) yields ${kindOf(value)} chunks, not bytes`);
      size += value.byteLength;
      if (size > limit) return giveUp(`request body (${form}) is over the ${limit}-byte read bound`);
      parts.push(asBytes(value));
    }
  } catch {
    return giveUp(`request body (${form}) could not be read`);
  }
  return bytesRead(concatBytes(parts));
}

/** The bytes a view covers, without copying them. */
function asBytes(view: ArrayBufferView): Uint8Array {
  return view instanceof Uint8Array ? view : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function kindOf(value: unknown): string {
  if (value === null || typeof value !== "object") return typeof value;
  // A class name is the caller's code, never request content; still, only a short identifier is logged.
  const name = String((value as object).constructor?.name ?? "object").slice(0, 40);
  let shown = "";
  for (const char of name) shown += isIdentifierChar(char) ? char : "?";
  return shown || "object";
}

function isIdentifierChar(char: string): boolean {
  return (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || (char >= "0" && char <= "9") || char === "_" || char === "$";
}

/**
 * The request to forward with `text` (the new body's text, or its bytes) instead of the body read
 * (the history pass changed it): the same method, headers and signal, and the same body form where
 * it decides a header (a Blob keeps its type, bytes stay bytes, so no implicit content-type appears
 * or changes). A stated content-length no longer holds, so it goes, from the Request's headers and
 * from `init`'s alike; a stream branch kept for forwarding is cancelled, nothing will read it now.
 */
export function withBody(input: FetchInput, init: RequestInit | undefined, text: string | Uint8Array): { input: FetchInput; init: RequestInit | undefined } {
  const body = init?.body;
  const headers = withoutLength(init?.headers);
  const sameInit = init && headers ? { ...init, headers } : init;
  if (body === undefined && input instanceof Request) {
    return { input: new Request(input, { body: typeof text === "string" ? text : (text as Uint8Array<ArrayBuffer>), headers: withoutLength(input.headers) ?? input.headers }), init: sameInit };
  }
  if (body instanceof ReadableStream) body.cancel().catch(() => undefined);
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : (text as Uint8Array<ArrayBuffer>);
  const replaced = body instanceof Blob ? new Blob([bytes], { type: body.type }) : typeof body === "string" && typeof text === "string" ? text : bytes;
  return { input, init: { ...sameInit, body: replaced } };
}

/** The headers without content-length, or undefined when they have none to drop. */
function withoutLength(headers: HeadersInit | undefined): Headers | undefined {
  if (headers === undefined) return undefined;
  const copy = new Headers(headers);
  if (!copy.has("content-length")) return undefined;
  copy.delete("content-length");
  return copy;
}
