// What the runtime's own fetch did with an answer's content coding. fetch never says: the
// `content-encoding` header stays on the Response whether the body was decoded or not, and the two
// runtimes the proxy and the plugin run under decode different sets (measured with a loopback
// server; test/adapters/content-coding.test.ts checks every row below against the real fetch of
// Bun and of Node):
//
//   undici (Node's fetch): every coding of the list, read from the end, must be gzip, x-gzip,
//     deflate or br (zstd too from undici 7.11, Node 24), or nothing is decoded: `gzip, gzip` is
//     decoded, `gzip, identity` is not. More than five codings fail the request.
//   Bun (1.4): identity and empty entries aside, exactly one coding, one of gzip, x-gzip, deflate,
//     br, zstd: `gzip, identity` is decoded, `gzip, gzip` is not.
//
// A body fetch decoded no longer matches its content-encoding and content-length; a body it did
// not decode is still the upstream's encoded bytes, which nothing here can read.

/**
 * - "none": no coding applies (no header, or identity only): the bytes are as labelled.
 * - "decoded": fetch decoded the body: its content-encoding and content-length no longer hold.
 * - "encoded": the body (if there is one) is still encoded as the header says: the header holds,
 *   and the bytes are not text to read.
 */
type BodyCoding = "none" | "decoded" | "encoded";

const UNDICI = new Set(["gzip", "x-gzip", "deflate", "br"]);
const BUN = new Set(["gzip", "x-gzip", "deflate", "br", "zstd"]);
/** undici's fetch limit: a longer list fails the request, so no answer with one is ever seen. */
const UNDICI_MAX_CODINGS = 5;

export interface Runtime {
  bun: boolean;
  /** Node's fetch decodes zstd (undici 7.11 and later, which only Node versions with zstd in node:zlib ship). */
  zstd: boolean;
}

function currentRuntime(): Runtime {
  const versions = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process?.versions ?? {};
  const [major = 0, minor = 0] = (versions.undici ?? "").split(".").map(Number);
  return { bun: versions.bun !== undefined, zstd: major > 7 || (major === 7 && minor >= 11) };
}

const RUNTIME = currentRuntime();

/**
 * What this runtime's fetch did with the body of `response` (see the top of this file); `init` is
 * what the request asked (Bun's `decompress: false` leaves every body as it came).
 */
export function bodyCoding(response: Pick<Response, "headers" | "body">, init?: { decompress?: unknown }, runtime: Runtime = RUNTIME): BodyCoding {
  const header = response.headers.get("content-encoding");
  if (header === null) return "none";
  const codings = header.toLowerCase().split(",").map((coding) => coding.trim());
  const applied = codings.filter((coding) => coding !== "" && coding !== "identity");
  if (applied.length === 0) return "none";
  // No body (HEAD, 204, 304): nothing was decoded, and the header still describes the resource.
  if (response.body === null) return "encoded";
  if (runtime.bun) return init?.decompress !== false && applied.length === 1 && BUN.has(applied[0]!) ? "decoded" : "encoded";
  if (codings.length > UNDICI_MAX_CODINGS) return "encoded";
  return codings.every((coding) => UNDICI.has(coding) || (coding === "zstd" && runtime.zstd)) ? "decoded" : "encoded";
}
