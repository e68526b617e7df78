// The requests' side of the echo guard: what the request gave the model. The guard itself is
// src/echo/guard.ts.
//
// The rule, on every wire: given content is every string of the request body except the model's
// own words. A field nobody here knows (a new tool kind, a response schema, a prompt template's
// variables, an item type OpenAI adds next year) counts as given; only what the model itself
// wrote is left out, and each wire names exactly that (its OWN_* sets below).
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createEchoGuard } from "./guard.ts";
import { pushBase64Source, pushFileData, pushFilePart, pushText } from "./given-files.ts";
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
 * the OWN_BLOCKS blocks but a text block's citations). `system`, user turns (text, tool_result and document blocks, base64
 * text documents decoded), server tool results in assistant turns, the declared tools and any
 * field added later.
 */
export function givenFromMessagesBody(body: unknown): string[] {
  return givenFromBody(body, "messages", (message, out) => {
    if (!(isObject(message) && message.role === "assistant")) return collectStrings(message, out);
    for (const key of Object.keys(message)) {
      const value = message[key];
      if (key !== "content") collectStrings(value, out);
      else if (Array.isArray(value)) for (const block of value) givenFromAnthropicBlock(block, out);
      // a string content is the model's own text
    }
  });
}

/**
 * What of an Anthropic assistant block was given: every string of a block the model did not write
 * (OWN_BLOCKS); of its own text block, the citations. A citation's `cited_text` is the source's
 * words (a web search result's page, which the client otherwise holds only encrypted; a document),
 * quoted by the API, not by the model: markup the model echoes from it is an echo.
 */
export function givenFromAnthropicBlock(block: unknown, out: string[]): void {
  if (!(isObject(block) && typeof block.type === "string" && OWN_BLOCKS.has(block.type))) collectStrings(block, out);
  else if (block.type === "text" && block.citations !== undefined) collectStrings(block.citations, out);
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
function givenFromDeclaredTools(tools: unknown): string[] {
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
 * bytes are text (given-files.ts fileReading): scripts come as `application/x-sh`, unknown files
 * as `application/octet-stream`. Binary data (images, PDFs, any long base64 run) gives nothing.
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
    // OpenAI's `file_data` may be bare base64 (no `data:` URL): read as a file (pushFileData), its other fields walked.
    const fileData = Array.isArray(next) ? undefined : (next as { file_data?: unknown }).file_data;
    if (typeof fileData === "string") {
      pushFileData(fileData, out);
      const rest = Object.entries(next).filter(([key]) => key !== "file_data");
      for (let i = rest.length - 1; i >= 0; i--) stack.push({ value: rest[i]![1], depth: depth + 1 });
      continue;
    }
    const children = Array.isArray(next) ? next : Object.values(textPartWithoutType(next as Record<string, unknown>));
    for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i], depth: depth + 1 });
  }
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

/**
 * A text part (`{ type: "text", text }`, `{ type: "input_text", text }`, the AI SDK's
 * `{ type: "text", value }`) without its `type` word: that word is the API's, never content the
 * model reads, and between the texts of consecutive parts it would stand between what the model
 * reads joined (given-content.ts appendToHaystack reads consecutive texts joined too: markup cut
 * across a tool result's text blocks, review 53). Any other object is walked whole.
 */
function textPartWithoutType(part: Record<string, unknown>): Record<string, unknown> {
  const { type, text, value } = part;
  if (typeof type !== "string" || !isPartTypeWord(type) || (typeof text !== "string" && typeof value !== "string")) return part;
  const { type: _word, ...rest } = part;
  return rest;
}

/** A part type as the APIs spell it: 1 to 32 of `a-z`, `_`, `-` (`text`, `input_text`). */
function isPartTypeWord(word: string): boolean {
  if (word.length === 0 || word.length > 32) return false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d)) return false;
  }
  return true;
}
