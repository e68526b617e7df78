// The requests' side of the echo guard: what the request gave the model. The guard itself is
// src/echo/guard.ts.
//
// The rule, on every wire: given content is every string of the request body except the model's
// own words. A field nobody here knows (a new tool kind, a response schema, a prompt template's
// variables, an item type OpenAI adds next year) counts as given; only what the model itself
// wrote is left out, and each wire names exactly that (its OWN_* sets below).
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createEchoGuard } from "./guard.ts";
import { mayHoldQuote } from "./given-text.ts";
import type { EchoGuard } from "../engine/types.ts";
import { isObject } from "../grammar/plain-data.ts";
import { OPTIONS } from "../options/spec.ts";

/**
 * Request bodies nest a few levels above their content (body, messages, message, content, part);
 * the cap keeps a hostile structure from steering the walk.
 */
const MAX_DEPTH = 64;

/**
 * Every string of `body` but the model's own words: each entry of its conversation list (`turns`:
 * `messages`, `input`) goes through `turnGiven`, which collects what of it was given; every other
 * field is given whole.
 */
function givenFromBody(body: unknown, turns: string, turnGiven: (turn: unknown, out: string[]) => void): string[] {
  const out: string[] = [];
  if (!isObject(body)) {
    collectStrings(body, out);
    return out;
  }
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (key === turns && Array.isArray(value)) for (const turn of value) turnGiven(turn, out);
    else collectStrings(value, out);
  }
  return out;
}

/**
 * OpenAI chat completions: everything but the assistant messages, which are the model's own
 * (their text, reasoning and tool_calls alike). System, developer, user, tool and function
 * messages, file parts (text files decoded), every kind of declared tool (a `custom` tool's
 * description too), response_format's schema, and any field added later.
 */
export function givenFromChatBody(body: unknown): string[] {
  return givenFromBody(body, "messages", (message, out) => {
    if (!(isObject(message) && message.role === "assistant")) collectStrings(message, out);
  });
}

/**
 * The blocks of an Anthropic assistant turn the model wrote. Every other block there was given to
 * it: a server tool's result (`web_fetch_tool_result`, `web_search_tool_result`,
 * `code_execution_tool_result`, `mcp_tool_result`, any `*_tool_result`) is what a server fetched
 * or ran, replayed in the assistant turn.
 */
export const OWN_BLOCKS: ReadonlySet<string> = new Set(["text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "mcp_tool_use"]);

/**
 * Anthropic Messages: everything but the model's words in assistant turns (a string content, and
 * the OWN_BLOCKS blocks). `system`, user turns (text, tool_result and document blocks, base64
 * text documents decoded), server tool results in assistant turns, the declared tools and any
 * field added later.
 */
export function givenFromMessagesBody(body: unknown): string[] {
  return givenFromBody(body, "messages", (message, out) => {
    if (!(isObject(message) && message.role === "assistant")) return collectStrings(message, out);
    for (const key of Object.keys(message)) {
      const value = message[key];
      if (key !== "content") collectStrings(value, out);
      else if (Array.isArray(value)) for (const block of value) if (!(isObject(block) && typeof block.type === "string" && OWN_BLOCKS.has(block.type))) collectStrings(block, out);
      // a string content is the model's own text
    }
  });
}

/** The Responses input items the model wrote, besides assistant messages. */
const OWN_ITEMS: ReadonlySet<string> = new Set(["reasoning", "function_call", "custom_tool_call"]);

/**
 * OpenAI Responses: everything but the model's own input items (assistant messages, reasoning,
 * function_call, custom_tool_call). `instructions`, a string `input`, user/system/developer
 * messages, every tool output item (function_call_output, local_shell_call_output,
 * shell_call_output, mcp_call, file_search_call results, any item type added later), files
 * (text files decoded), the declared tools, `text.format`'s schema, prompt variables.
 */
export function givenFromResponsesBody(body: unknown): string[] {
  return givenFromBody(body, "input", (item, out) => {
    if (!ownItem(item)) collectStrings(item, out);
  });
}

export function ownItem(item: unknown): boolean {
  if (!isObject(item)) return false;
  if (item.type === undefined || item.type === "message") return item.role === "assistant";
  return typeof item.type === "string" && OWN_ITEMS.has(item.type);
}

/**
 * What the model read in the declared tools: every string of every declaration (descriptions,
 * parameter schemas with their property descriptions, enums, examples and defaults, a provider
 * tool's args). An MCP server writes these, so markup planted there ("tool poisoning") and quoted
 * by the model is given content like a file.
 */
export function givenFromDeclaredTools(tools: unknown): string[] {
  const out: string[] = [];
  collectStrings(tools, out);
  return out;
}

/**
 * The AI SDK form: the declared tools (see givenFromDeclaredTools), the response format's schema,
 * the call's provider options, and the prompt's given parts (givenFromPrompt). Provider options
 * reach the model as text in places (`openai.instructions` is the Responses API's `instructions`,
 * its system prompt); every string of them counts, as every field a wire body adds does.
 */
export function givenFromCallOptions(params: Pick<LanguageModelV3CallOptions, "prompt" | "tools"> & Partial<Pick<LanguageModelV3CallOptions, "responseFormat" | "providerOptions">>): string[] {
  const out = givenFromDeclaredTools(params.tools);
  collectStrings(params.responseFormat, out);
  collectStrings(params.providerOptions, out);
  return [...out, ...givenFromPrompt(params.prompt)];
}

/**
 * System, user and tool messages of the prompt, text files decoded (with their name and provider
 * options: `anthropic.title` and `anthropic.context` are sent with the document); and in assistant
 * messages the results of provider-executed tools (a web search's pages), which the model did not
 * write. Its text, reasoning, tool calls and generated files are its own.
 */
export function givenFromPrompt(prompt: LanguageModelV3Prompt): string[] {
  const out: string[] = [];
  for (const message of prompt) {
    if (message.role === "system") {
      out.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (message.role === "assistant" && part.type !== "tool-result") continue;
      if (part.type === "file") {
        pushFilePart(part as unknown as Record<string, unknown>, out);
        collectStrings([part.filename, part.providerOptions], out);
        continue;
      }
      if (part.type === "tool-result") {
        collectStrings(part.output, out);
        // A JSON result reaches the model as JSON text: it may quote that form too.
        if (part.output.type === "json" || part.output.type === "error-json") out.push(safeStringify(part.output.value));
        continue;
      }
      collectStrings(part, out);
    }
  }
  return out;
}

/**
 * The matcher handed to the engine as `isEchoed`, or undefined when responseFix.echoGuard is off.
 * `given` runs at most once, the first time a call is about to be recovered.
 */
export function requestEchoGuard(options: { readonly responseFix?: { readonly echoGuard?: boolean } }, given: () => readonly string[]): EchoGuard | undefined {
  return (options.responseFix?.echoGuard ?? OPTIONS.fields.responseFix.fields.echoGuard.default) === false ? undefined : createEchoGuard(given);
}

/**
 * Parts whose strings are base64 or URLs: no quotable text, and an image can be megabytes the
 * matcher would otherwise normalize and scan. Only a text file among them is read
 * (pushFilePart), with its name and provider options: a tool result's `file-data` part of type
 * `text/markdown` reaches the model as text (`@ai-sdk/openai` sends it as an `input_file` with a
 * `data:text/markdown;base64,…` URL).
 */
const BINARY_PARTS = new Set(["image_url", "input_audio", "input_image", "image", "media", "image-data", "image-url", "file-data", "file-url"]);
/** The fields of such a part that are words, not data. */
const FILE_PART_WORDS = ["filename", "providerOptions"] as const;

/**
 * Every string reachable from `value`, depth-first; an explicit stack so hostile nesting cannot
 * overflow ours. A `data:` URL and a base64 source (Anthropic's `{ type: "base64", media_type,
 * data }`) holding a text file give their decoded text: the model reads the file, not its base64.
 * A text file is one of a text media type, or of any other but images, audio and video whose
 * bytes are text (fileReading): scripts come as `application/x-sh`, unknown files as
 * `application/octet-stream`. Binary data (images, PDFs, any long base64 run) gives nothing.
 */
export function collectStrings(value: unknown, out: string[]): void {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { value: next, depth } = stack.pop()!;
    if (typeof next === "string") {
      pushText(next, out);
      continue;
    }
    if (typeof next !== "object" || next === null || depth >= MAX_DEPTH || seen.has(next)) continue;
    seen.add(next);
    if (next instanceof Uint8Array) continue;
    const type = (next as { type?: unknown }).type;
    if (typeof type === "string" && BINARY_PARTS.has(type)) {
      const part = next as Record<string, unknown>;
      pushFilePart(part, out);
      for (const key of FILE_PART_WORDS) if (part[key] !== undefined) stack.push({ value: part[key], depth: depth + 1 });
      continue;
    }
    if (type === "base64" && pushBase64Source(next as Record<string, unknown>, out)) continue;
    const children = Array.isArray(next) ? next : Object.values(next);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i], depth: depth + 1 });
  }
}

/** A string as the model reads it: a text file's `data:` URL decoded; a blob that cannot hold markup left out. */
function pushText(text: string, out: string[]): void {
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

/** Strings at least this long are looked at as possible blobs. */
const BLOB = 256;

/**
 * Anthropic's `{ type: "base64", media_type, data }` source holding a text file: the decoded
 * document. False otherwise (binary: its data is a blob pushText leaves out; not base64: the
 * model may have read it as it is, so it is walked like any object).
 */
function pushBase64Source(source: Record<string, unknown>, out: string[]): boolean {
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
function pushFilePart(part: Record<string, unknown>, out: string[]): void {
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

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
