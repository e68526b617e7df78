// A request body a client compressed (`content-encoding: gzip`, `br`, `deflate`; `zstd` where this
// runtime's node:zlib has it): decoded to read the tools, choice and given content from, and
// encoded again with the same coding when the history pass changes it (so the request's headers
// still describe its bytes, and an upstream that took the client's compressed body takes this
// one); a body that needs no change goes up as the very bytes the client sent. The decoded size is
// bounded as a plain body is (the adapter's read bound, the proxy's body limit), and decoding stops
// there: a small body that inflates without end (a zip bomb) never fills memory.
import * as zlib from "node:zlib";

type Codec = (bytes: Uint8Array, options: zlib.ZlibOptions | zlib.BrotliOptions) => Promise<Uint8Array>;

/** Node's callback codecs, awaited (zstd's are looked up, since Node before 22.15 has none). */
function codec(name: string): Codec | undefined {
  const fn = (zlib as unknown as Record<string, unknown>)[name];
  if (typeof fn !== "function") return undefined;
  return (bytes, options) =>
    new Promise((resolve, reject) => (fn as (b: Uint8Array, o: unknown, cb: (e: Error | null, r: Uint8Array) => void) => void)(bytes, options, (error, result) => (error ? reject(error) : resolve(result))));
}

interface Coding {
  /** The coding as the header names it (lower case; `x-gzip` read as gzip). */
  name: string;
  decode: Codec;
  encode: Codec;
  /** Options for encoding again: a fast brotli quality (the default, 11, takes seconds a megabyte). */
  encodeOptions?: zlib.BrotliOptions;
}

const CODINGS: Record<string, () => Coding | undefined> = {
  gzip: () => ({ name: "gzip", decode: codec("gunzip")!, encode: codec("gzip")! }),
  br: () => ({ name: "br", decode: codec("brotliDecompress")!, encode: codec("brotliCompress")!, encodeOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } } }),
  // HTTP's deflate is the zlib format (RFC 9110 8.4.1.2); raw deflate, which some senders write, is not read.
  deflate: () => ({ name: "deflate", decode: codec("inflate")!, encode: codec("deflate")! }),
  zstd: () => {
    const decode = codec("zstdDecompress");
    const encode = codec("zstdCompress");
    return decode && encode ? { name: "zstd", decode, encode } : undefined;
  },
};

/**
 * The request's content coding: "none" (no header, or identity only), one coding this runtime can
 * decode and encode again, or why not (a debug line: the coding's name is a header value the client
 * chose, so only a short token of it is named).
 */
export type RequestCoding = { kind: "none" } | { kind: "coded"; coding: Coding } | { kind: "unread"; why: string };

export function requestCoding(input: string | URL | Request, init: RequestInit | undefined): RequestCoding {
  // init's headers replace a Request's own, as fetch reads them.
  const headers = init?.headers !== undefined ? new Headers(init.headers) : input instanceof Request ? input.headers : undefined;
  const header = headers?.get("content-encoding");
  if (header === null || header === undefined) return { kind: "none" };
  const applied = header.toLowerCase().split(",").map((coding) => coding.trim()).filter((coding) => coding !== "" && coding !== "identity");
  if (applied.length === 0) return { kind: "none" };
  if (applied.length > 1) return { kind: "unread", why: `request body has ${applied.length} content codings (only one is read)` };
  const name = applied[0] === "x-gzip" ? "gzip" : applied[0]!;
  const coding = Object.hasOwn(CODINGS, name) ? CODINGS[name]!() : undefined;
  if (!coding) return { kind: "unread", why: `request body content coding ${JSON.stringify(token(name))} is not one this runtime decodes` };
  return { kind: "coded", coding };
}

/** Never more than 1 GiB decoded, whatever bound is given (a larger one than a Buffer may hold is refused outright). */
const MAX_DECODED_BYTES = 1024 * 1024 * 1024;

/** The decoded bytes, or why not (past `limit` decoded bytes, or not valid in its coding). */
export async function decodeBody(bytes: Uint8Array, coding: Coding, limit: number): Promise<{ bytes: Uint8Array } | { why: string }> {
  try {
    // maxOutputLength stops the inflater there (ERR_BUFFER_TOO_LARGE), in Node and in Bun alike.
    return { bytes: await coding.decode(bytes, { maxOutputLength: Math.min(limit, MAX_DECODED_BYTES) }) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ERR_BUFFER_TOO_LARGE") return { why: `request body (${coding.name}) decodes to more than the ${limit}-byte read bound` };
    return { why: `request body could not be decoded as ${coding.name}` };
  }
}

/** `bytes` encoded with the body's own coding, to go up in its place. */
export function encodeBody(bytes: Uint8Array, coding: Coding): Promise<Uint8Array> {
  return coding.encode(bytes, coding.encodeOptions ?? {});
}

/** A short, printable token of a header value (a debug line never carries more of it). */
function token(value: string): string {
  let out = "";
  for (const char of value.slice(0, 20)) out += isTokenChar(char) ? char : "?";
  return out;
}

function isTokenChar(char: string): boolean {
  return (char >= "a" && char <= "z") || (char >= "0" && char <= "9") || char === "." || char === "_" || char === "-";
}
