// The text a reply continues. A request that ends in an assistant turn asks the model to go on
// writing that turn (a "prefill"): Anthropic Messages always does, DeepSeek's chat prefix
// completion (`prefix: true`), vLLM (`continue_final_message`), OpenRouter, llama.cpp and Ollama
// do, and OpenCode itself ends its last step with one (MAX_STEPS). The reply is then the rest of
// that text, so it is read after it (EngineOptions.continues): a fence the prefill opened is still
// open in the reply, and an example written inside it stays an example.
//
// The rule, on every request shape: the last turn is the assistant's and its last part is text.
// Which server continues and which starts a fresh message cannot be told from the request, so any
// such turn counts as continued: that reading is right on every server that continues, and a
// request that ends in an assistant turn it does not want continued is rare (OpenAI's own API
// starts a fresh message there). A turn that ends in a call (a tool call part, a tool_use block,
// `tool_calls`) is no prefill: there is no text to go on with.
//
// One reader per request shape, beside the tool-choice readers (tool-choice.ts); what comes out
// is the turn's text as spans: the runs of text between its parts of another kind (a thinking
// block, a tool call), which markup never crosses, as the live repair reads one reply's parts.
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { isObject } from "../sse/json.ts";

/** The text a reply continues, as spans (text no markup crosses); never empty, never all "". */
export type Prefill = readonly string[];

/** OpenAI chat completions: a last `assistant` message with text content and no `tool_calls`. */
export function chatPrefill(body: unknown): Prefill | undefined {
  const last = lastOf(isObject(body) ? body.messages : undefined);
  if (!isObject(last) || last.role !== "assistant") return undefined;
  if (Array.isArray(last.tool_calls) && last.tool_calls.length > 0) return undefined;
  return contentSpans(last.content, (part) => part.type === "text");
}

/** Anthropic Messages: a last `assistant` message whose content is a string or ends in a text block. */
export function messagesPrefill(body: unknown): Prefill | undefined {
  const last = lastOf(isObject(body) ? body.messages : undefined);
  if (!isObject(last) || last.role !== "assistant") return undefined;
  return contentSpans(last.content, (part) => part.type === "text");
}

/**
 * OpenAI Responses: the last input item is an assistant message (`type: "message"` or no type)
 * whose content is a string or ends in a text part. OpenAI's own API does not continue it; a
 * Responses-compatible server may, and the rule is the same on every shape. Each part is a span
 * of its own, as the live repair reads a reply's output_text parts.
 */
export function responsesPrefill(body: unknown): Prefill | undefined {
  const last = lastOf(isObject(body) ? body.input : undefined);
  if (!isObject(last) || last.role !== "assistant" || (last.type !== undefined && last.type !== "message")) return undefined;
  if (typeof last.content === "string") return nonEmpty([last.content]);
  if (!Array.isArray(last.content) || !isResponsesText(last.content.at(-1))) return undefined;
  return nonEmpty(last.content.filter(isResponsesText).map((part) => part.text));
}

/** The AI SDK prompt: a last `assistant` message whose last part is text. */
export function sdkPrefill(prompt: LanguageModelV3Prompt | undefined): Prefill | undefined {
  const last = Array.isArray(prompt) ? prompt.at(-1) : undefined;
  if (!last || last.role !== "assistant") return undefined;
  return contentSpans(last.content as unknown, (part) => part.type === "text");
}

function lastOf(list: unknown): unknown {
  return Array.isArray(list) ? list.at(-1) : undefined;
}

/**
 * A turn's content as spans: a string is one; a list of parts must end in text, and each run of
 * consecutive text parts is one span, cut where a part of another kind stood.
 */
function contentSpans(content: unknown, isText: (part: Record<string, unknown>) => boolean): Prefill | undefined {
  if (typeof content === "string") return nonEmpty([content]);
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const spans: string[] = [];
  let run: string | undefined;
  for (const part of content) {
    if (isObject(part) && isText(part) && typeof part.text === "string") {
      run = (run ?? "") + part.text;
      continue;
    }
    if (run !== undefined) spans.push(run);
    run = undefined;
  }
  // The turn ends in a part of another kind: nothing the reply writes continues its text.
  if (run === undefined) return undefined;
  spans.push(run);
  return nonEmpty(spans);
}

function isResponsesText(part: unknown): part is { text: string } {
  return isObject(part) && (part.type === "output_text" || part.type === "input_text") && typeof part.text === "string";
}

function nonEmpty(spans: string[]): Prefill | undefined {
  return spans.some((span) => span !== "") ? spans : undefined;
}
