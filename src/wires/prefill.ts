// The text a reply continues. A request that ends in an assistant turn asks the model to go on
// writing that turn (a "prefill"): Anthropic Messages always does, DeepSeek's chat prefix
// completion (`prefix: true`), vLLM (`continue_final_message`), OpenRouter, llama.cpp and Ollama
// do, and OpenCode itself ends its last step with one (MAX_STEPS). The reply is then the rest of
// that text, so it is read after it (EngineOptions.continues): a fence the prefill opened is still
// open in the reply, and an example written inside it stays an example.
//
// The rule, on every request shape: the last turn is the assistant's and its last part is text. A
// turn that ends in a call (a tool call part, a tool_use block, `tool_calls`) is no prefill: there
// is no text to go on with.
//
// Whether the server continues the turn is known for some forms only (Prefill.certain): Anthropic
// Messages always does; a chat request does when it says so (DeepSeek's `prefix: true` on the last
// message, vLLM's top-level `continue_final_message: true`); the AI SDK's anthropic provider does.
// Any other trailing assistant text turn (chat without those flags, Responses, any other AI SDK
// provider) may as well be answered with a fresh message (OpenAI's own API does so), and a call
// then runs only where both readings would run it (src/engine/two-readings.ts): read as fresh, a
// reply opening a fence over an example must not have that fence taken for the prefill's closer.
//
// One reader per request shape, beside the tool-choice readers (tool-choice.ts); what comes out
// is the turn's text as spans: the runs of text between its parts of another kind (a thinking
// block, a tool call), which markup never crosses, as the live repair reads one reply's parts.
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { isObject } from "../sse/json.ts";

/** The text a reply continues. */
export interface Prefill {
  /** The turn's text as spans (text no markup crosses); never empty, never all "". */
  readonly spans: readonly string[];
  /** The server surely continues the turn; false: it may instead start a fresh message. */
  readonly certain: boolean;
}

/**
 * OpenAI chat completions: a last `assistant` message with text content and no `tool_calls`.
 * Certain only with DeepSeek's `prefix: true` on it or vLLM's `continue_final_message: true`.
 */
export function chatPrefill(body: unknown): Prefill | undefined {
  const last = lastOf(isObject(body) ? body.messages : undefined);
  if (!isObject(last) || last.role !== "assistant") return undefined;
  if (Array.isArray(last.tool_calls) && last.tool_calls.length > 0) return undefined;
  const certain = last.prefix === true || (isObject(body) && body.continue_final_message === true);
  return prefill(contentSpans(last.content, (part) => part.type === "text"), certain);
}

/**
 * Anthropic Messages: a last `assistant` message whose content is a string or ends in a text
 * block. The API combines consecutive assistant turns into one and continues it whole, so every
 * trailing assistant message is the turn.
 */
export function messagesPrefill(body: unknown): Prefill | undefined {
  const parts = trailingTurn(isObject(body) ? body.messages : undefined, (content) => (typeof content === "string" ? [{ type: "text", text: content }] : content));
  return parts && prefill(contentSpans(parts, (part) => part.type === "text"), true);
}

/**
 * OpenAI Responses: the last input item is an assistant message (`type: "message"` or no type)
 * whose content is a string or ends in a text part. OpenAI's own API does not continue it; a
 * Responses-compatible server may: never certain. Each part is a span of its own, as the live
 * repair reads a reply's output_text parts.
 */
export function responsesPrefill(body: unknown): Prefill | undefined {
  const last = lastOf(isObject(body) ? body.input : undefined);
  if (!isObject(last) || last.role !== "assistant" || (last.type !== undefined && last.type !== "message")) return undefined;
  if (typeof last.content === "string") return prefill(nonEmpty([last.content]), false);
  if (!Array.isArray(last.content) || !isResponsesText(last.content.at(-1))) return undefined;
  return prefill(nonEmpty(last.content.filter(isResponsesText).map((part) => part.text)), false);
}

/**
 * The AI SDK prompt: a last `assistant` message whose last part is text. `provider` is the
 * model's (LanguageModelV3.provider): certain only for the anthropic provider's Messages model
 * ("anthropic.messages", its default name, @ai-sdk/anthropic), whose API always continues. That
 * provider sends every trailing assistant message as one turn (groupIntoBlocks) and the turn's
 * last text part trimmed (Anthropic refuses a prefill ending in whitespace): the text is read as
 * it is sent. Another provider sends the last message on its own, as written.
 */
export function sdkPrefill(prompt: LanguageModelV3Prompt | undefined, provider?: string): Prefill | undefined {
  const isText = (part: Record<string, unknown>) => part.type === "text";
  if (provider !== ANTHROPIC_MESSAGES) {
    const last = Array.isArray(prompt) ? prompt.at(-1) : undefined;
    if (!last || last.role !== "assistant") return undefined;
    return prefill(contentSpans(last.content as unknown, isText), false);
  }
  const parts = trailingTurn(prompt, (content) => content);
  const end = parts?.at(-1);
  if (!parts || !isObject(end) || !isText(end) || typeof end.text !== "string") return undefined;
  return prefill(contentSpans([...parts.slice(0, -1), { ...end, text: end.text.trim() }], isText), true);
}

/** The provider name @ai-sdk/anthropic gives its Messages models unless told another. */
const ANTHROPIC_MESSAGES = "anthropic.messages";

function lastOf(list: unknown): unknown {
  return Array.isArray(list) ? list.at(-1) : undefined;
}

/**
 * The parts of the run of assistant messages that ends `messages`, as one turn (`parts` gives a
 * message's content as a list); undefined when the last message is not the assistant's. A
 * message whose content is no list counts as one part of another kind: markup never crosses it.
 */
function trailingTurn(messages: unknown, parts: (content: unknown) => unknown): unknown[] | undefined {
  if (!Array.isArray(messages)) return undefined;
  let from = messages.length;
  while (from > 0 && isObject(messages[from - 1]) && (messages[from - 1] as Record<string, unknown>).role === "assistant") from--;
  if (from === messages.length) return undefined;
  return messages.slice(from).flatMap((message: Record<string, unknown>) => {
    const list = parts(message.content);
    return Array.isArray(list) ? list : [{}];
  });
}

/**
 * A turn's content as spans: a string is one; a list of parts must end in text, and each run of
 * consecutive text parts is one span, cut where a part of another kind stood.
 */
function contentSpans(content: unknown, isText: (part: Record<string, unknown>) => boolean): string[] | undefined {
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

function nonEmpty(spans: string[]): string[] | undefined {
  return spans.some((span) => span !== "") ? spans : undefined;
}

function prefill(spans: readonly string[] | undefined, certain: boolean): Prefill | undefined {
  return spans && { spans, certain };
}
