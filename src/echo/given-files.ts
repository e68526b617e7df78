/**
 * Given files as the model reads them, for the echo guard's given content: from-request.ts walks
 * a request by its shape and hands each string, file part and base64 source here. The model reads
 * an attached file, not its base64, so markup planted in a file and quoted back is looked for in
 * the decoded text. Read as text: a `data:` URL (base64 or percent-encoded), an Anthropic
 * `{ type: "base64", media_type, data }` source, OpenAI's `file_data` (a `data:` URL or bare
 * base64) and an AI SDK file part, when the file is of a text
 * media type (decoded leniently) or of any other type whose bytes are UTF-8 with no NUL: scripts
 * come as `application/x-sh`, unknown files as `application/octet-stream`, and the model reads
 * them as text all the same. Never read: images, audio and video, which reach the model as media.
 * Binary data gives nothing and is never normalized: a file of no text type is judged on its first
 * bytes before it is decoded whole, and a long string that cannot hold markup (an image's base64,
 * an encrypted blob) is left out. Its own file: bytes and media types, with no bearing on which
 * fields of a request are given (from-request.ts); docs/SECURITY.md ("Files") states the rules.
 */
import { mayHoldQuote } from "./given-text.ts";

/** A string as the model reads it: a text file's `data:` URL decoded; a blob that cannot hold markup left out. */
export function pushText(text: string, out: string[]): void {
  if (text === "") return;
  const url = dataUrl(text);
  const reading = url === undefined ? undefined : fileReading(url.mediaType);
  if (url !== undefined && reading !== undefined && reading !== "media") {
    // Base64 is read from its offset: a binary file's payload is never copied whole.
    const decoded = url.base64 ? base64Text(text, reading, url.payloadAt) : percentDecoded(text.slice(url.payloadAt));
    if (decoded !== undefined || reading === "text") {
      out.push(decoded ?? text);
      return;
    }
    // Binary: a blob, left out below.
  }
  // Base64 (an image or PDF as a data: URL or raw, an encrypted reasoning blob) holds no character
  // that starts markup in any form the guard reads: left out before it is ever normalized.
  if (text.length >= BLOB && !mayHoldQuote(text)) return;
  out.push(text);
}

/**
 * OpenAI's `file_data` (a chat `file` part's `file`, a Responses `input_file`): "the base64 encoded
 * file data", as a `data:` URL or bare, beside a `filename` the server reads it by (review 51).
 * Bare base64 is read as a file of no declared type (sniffed: a binary file gives nothing, judged
 * on its first bytes before it is decoded whole, as for a `data:` URL); the string itself is read
 * too (pushText: a `data:` URL decoded, a long blob left out), in case it was never base64.
 */
export function pushFileData(data: string, out: string[]): void {
  if (dataUrl(data) === undefined) {
    const text = base64Text(data, "sniff");
    if (text !== undefined && text !== "") out.push(text);
  }
  pushText(data, out);
}

/** Strings at least this long are looked at as possible blobs. */
const BLOB = 256;

/**
 * Anthropic's `{ type: "base64", media_type, data }` source holding a text file: the decoded
 * document. False otherwise (binary: its data is a blob pushText leaves out; not base64: the
 * model may have read it as it is, so it is walked like any object).
 */
export function pushBase64Source(source: Record<string, unknown>, out: string[]): boolean {
  const { data, media_type: mediaType } = source;
  if (typeof data !== "string" || typeof mediaType !== "string") return false;
  const reading = fileReading(mediaType);
  const text = reading === "media" ? undefined : base64Text(data, reading);
  if (text === undefined) return false;
  if (text !== "") out.push(text);
  return true;
}

/** The longest `data:` header read (`data:` + media type + parameters, up to the comma). */
const MAX_DATA_HEADER = 256;

/**
 * RFC 2397's `data:[<media type>][;<parameter>…][;base64],<data>`, or undefined when `text` is not
 * one (a message that happens to start with "data:" and a space is prose).
 */
function dataUrl(text: string): { mediaType: string; base64: boolean; payloadAt: number } | undefined {
  if (text.length < 6 || text.slice(0, 5).toLowerCase() !== "data:") return undefined;
  const comma = text.slice(0, MAX_DATA_HEADER).indexOf(",");
  if (comma < 0) return undefined;
  const header = text.slice(5, comma);
  for (let i = 0; i < header.length; i++) if (!isHeaderChar(header.charCodeAt(i))) return undefined;
  const params = header.split(";");
  const base64 = params.length > 1 && params[params.length - 1]!.toLowerCase() === "base64";
  // An empty media type is text/plain (RFC 2397).
  return { mediaType: params[0] === "" ? "text/plain" : params[0]!, base64, payloadAt: comma + 1 };
}

/** Letters, digits and the punctuation a media type and its parameters use (RFC 2045 tokens), no space. */
function isHeaderChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || HEADER_PUNCTUATION.includes(String.fromCharCode(c));
}
const HEADER_PUNCTUATION = "!#$&'*+-.^_`~/;=";

/**
 * How a file is read, by its media type:
 * - "text": a type declared text, decoded even when its bytes are not all UTF-8 (a Latin-1 text
 *   file is still read, each stray byte U+FFFD);
 * - "media": images, audio and video, which reach the model as media (the AI SDK's providers send
 *   an image/* file part as an image input), never as text: not decoded;
 * - "sniff": any other type (`application/x-sh`, `application/typescript`, `application/ld+json`,
 *   `application/octet-stream`, a part with none): a text file when its bytes are (sniffedText).
 */
type FileReading = "text" | "media" | "sniff";

const TEXT_MEDIA = ["text/", "application/json", "application/xml", "application/x-yaml", "application/yaml", "application/javascript"];
const MEDIA = ["image/", "audio/", "video/"];

function fileReading(mediaType: string | undefined): FileReading {
  if (mediaType === undefined) return "sniff";
  const lower = mediaType.toLowerCase();
  if (TEXT_MEDIA.some((prefix) => lower.startsWith(prefix))) return "text";
  return MEDIA.some((prefix) => lower.startsWith(prefix)) ? "media" : "sniff";
}

/**
 * A file part as the model reads it, the same for a prompt's `file` part and a tool result's
 * `file-data` (or older `media`) part: its `data` decoded when it is a text file (fileReading), or
 * its `url` when that is a `data:` URL of one. A binary file, or a URL to fetch, gives nothing.
 */
export function pushFilePart(part: Record<string, unknown>, out: string[]): void {
  const { data, mediaType, url } = part;
  const reading = fileReading(typeof mediaType === "string" ? mediaType : undefined);
  const text = reading === "media" ? undefined : data instanceof Uint8Array ? utf8(data, reading) : typeof data === "string" ? base64Text(data, reading) : undefined;
  if (text !== undefined) {
    if (text !== "") out.push(text);
    return;
  }
  const link = typeof url === "string" ? url : typeof data === "string" || data instanceof URL ? String(data) : undefined;
  if (link !== undefined && dataUrl(link) !== undefined) pushText(link, out);
}

/**
 * A file of no declared type is judged on its first this many bytes (base64: SNIFF_CHARS
 * characters) before it is decoded: an image, an archive or a PDF fails there, so megabytes of
 * binary are ruled out without decoding them. A file that passes is decoded whole, as a text file
 * always was.
 */
const SNIFF_BYTES = 3072;
const SNIFF_CHARS = (SNIFF_BYTES / 3) * 4;

/**
 * The base64 from `from` in `source`, decoded as UTF-8 text; undefined when it is not base64 or (a
 * "sniff" reading) not text. The base64url alphabet (`-`, `_`, no padding) is read too, as the AI
 * SDK reads it (provider-utils convertBase64ToUint8Array). atob also exists outside Node.
 */
function base64Text(source: string, reading: "text" | "sniff", from = 0): string | undefined {
  try {
    if (reading === "sniff" && source.length - from > SNIFF_CHARS) {
      // Its first characters without the whitespace atob skips, a whole number of 4-character groups.
      const head = withoutBase64Spaces(standardBase64(source.slice(from, from + SNIFF_CHARS)));
      const whole = head.length - (head.length % 4);
      if (!sniffedText(latin1Bytes(atob(whole === head.length ? head : head.slice(0, whole))), true)) return undefined;
    }
    return utf8(latin1Bytes(atob(standardBase64(from === 0 ? source : source.slice(from)))), reading);
  } catch {
    return undefined;
  }
}

/** `data` without the ASCII whitespace atob skips (forgiving-base64 decode). */
function withoutBase64Spaces(data: string): string {
  let out = data;
  for (const space of BASE64_SPACES) if (out.includes(space)) out = out.split(space).join("");
  return out;
}
const BASE64_SPACES = [" ", "\t", "\n", "\f", "\r"];

/** Base64url's `-` and `_` as base64's `+` and `/`. */
function standardBase64(data: string): string {
  return data.includes("-") || data.includes("_") ? data.replaceAll("-", "+").replaceAll("_", "/") : data;
}

function latin1Bytes(binary: string): Uint8Array {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function percentDecoded(data: string): string | undefined {
  try {
    return decodeURIComponent(data);
  } catch {
    return undefined;
  }
}

/**
 * Bytes as text: a "text" reading decodes leniently (a stray byte reads U+FFFD); a "sniff" reading
 * only bytes that are text (sniffedText on their first SNIFF_BYTES, then UTF-8 throughout).
 */
function utf8(bytes: Uint8Array, reading: "text" | "sniff"): string | undefined {
  try {
    if (reading === "text") return new TextDecoder().decode(bytes);
    if (!sniffedText(bytes.subarray(0, SNIFF_BYTES), bytes.length > SNIFF_BYTES)) return undefined;
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Whether a file's first bytes are text: UTF-8 (a fatal decoder; `partial`: they may end inside a
 * character) with no NUL among them, git's and grep's test for a binary file. A PDF fails on its
 * second line (bytes above 0x7F that are no UTF-8, there to mark it binary), an image at once.
 */
function sniffedText(head: Uint8Array, partial: boolean): boolean {
  if (head.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: partial });
    return true;
  } catch {
    return false;
  }
}
