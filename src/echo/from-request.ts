// The requests' side of the echo guard: what the request gave the model. The guard itself is
// src/echo/guard.ts.
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createEchoGuard } from "./guard.ts";
import type { EchoGuard } from "../engine/types.ts";
import { isObject } from "../grammar/plain-data.ts";
import { OPTIONS } from "../options/spec.ts";

/** Message content nests a few levels; the cap keeps a hostile structure from steering the walk. */
const MAX_DEPTH = 32;

/** Roles whose content came from outside the model: never assistant text, which is the model's own. */
const GIVEN_ROLES = new Set(["system", "developer", "user", "tool", "function"]);

/**
 * Content of an OpenAI chat-completions request the model was given: every string inside the
 * `content` of system, developer, user, tool and function messages (text parts, file and
 * attachment fields alike), and the declared tools' descriptions and parameter schemas.
 */
export function givenFromChatBody(body: unknown): string[] {
  const out = givenFromDeclaredTools(isObject(body) ? body.tools : undefined);
  const messages = isObject(body) ? body.messages : undefined;
  if (!Array.isArray(messages)) return out;
  for (const message of messages) {
    if (isObject(message) && typeof message.role === "string" && GIVEN_ROLES.has(message.role)) collectStrings(message.content, out);
  }
  return out;
}

/** Where a tool declaration keeps its parameter schema: chat `function.parameters`, Responses `parameters`, Anthropic `input_schema`, AI SDK `inputSchema`. */
const SCHEMA_FIELDS = ["parameters", "input_schema", "inputSchema"];

/**
 * What the model read in the declared tools: each tool's description and every string of its
 * parameter schema (property descriptions, enums, examples, defaults). An MCP server writes these,
 * so markup planted there ("tool poisoning") and quoted by the model is given content like a file.
 * Any wire's shape: `{ function: { description, parameters } }` or `{ description, input_schema | parameters | inputSchema }`.
 */
export function givenFromDeclaredTools(tools: unknown): string[] {
  const out: string[] = [];
  if (!Array.isArray(tools)) return out;
  for (const tool of tools) {
    if (!isObject(tool)) continue;
    for (const declaration of isObject(tool.function) ? [tool, tool.function] : [tool]) {
      if (typeof declaration.description === "string" && declaration.description !== "") out.push(declaration.description);
      for (const field of SCHEMA_FIELDS) if (isObject(declaration[field])) collectStrings(declaration[field], out);
    }
  }
  return out;
}

/** The AI SDK form: the declared tools (see givenFromDeclaredTools), system, user and tool messages of the prompt; text files decoded. */
export function givenFromCallOptions(params: Pick<LanguageModelV3CallOptions, "prompt" | "tools">): string[] {
  return [...givenFromDeclaredTools(params.tools), ...givenFromPrompt(params.prompt)];
}

/** System, user and tool messages of the prompt; text files decoded. */
export function givenFromPrompt(prompt: LanguageModelV3Prompt): string[] {
  const out: string[] = [];
  for (const message of prompt) {
    if (message.role === "assistant") continue;
    if (message.role === "system") {
      out.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === "file") {
        const text = fileText(part.data, part.mediaType);
        if (text !== undefined) out.push(text);
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
 * matcher would otherwise normalize and scan.
 */
const BINARY_PARTS = new Set(["image_url", "input_audio", "image", "media", "image-data", "image-url", "file-data", "file-url"]);

/** Every string reachable from `value`, depth-first; an explicit stack so hostile nesting cannot overflow ours. */
function collectStrings(value: unknown, out: string[]): void {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { value: next, depth } = stack.pop()!;
    if (typeof next === "string") {
      if (next !== "") out.push(next);
      continue;
    }
    if (typeof next !== "object" || next === null || depth >= MAX_DEPTH || seen.has(next)) continue;
    seen.add(next);
    if (next instanceof Uint8Array) continue;
    const type = (next as { type?: unknown }).type;
    if (typeof type === "string" && BINARY_PARTS.has(type)) continue;
    const children = Array.isArray(next) ? next : Object.values(next);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i], depth: depth + 1 });
  }
}

const TEXT_MEDIA = ["text/", "application/json", "application/xml", "application/x-yaml", "application/yaml", "application/javascript"];

/** A file part's text when it is a text file; binary files cannot carry quotable markup. */
function fileText(data: unknown, mediaType: string): string | undefined {
  if (!TEXT_MEDIA.some((prefix) => mediaType.startsWith(prefix))) return undefined;
  try {
    if (data instanceof Uint8Array) return new TextDecoder().decode(data);
    // The AI SDK gives file data as base64 when it is a string; atob also exists outside Node.
    if (typeof data === "string") return new TextDecoder().decode(Uint8Array.from(atob(data), (c) => c.codePointAt(0)!));
  } catch {
    // undecodable: nothing the model could have read either
  }
  return undefined;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
