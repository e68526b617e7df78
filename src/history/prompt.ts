import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { ParseOptionsInput, ToolSpec } from "../parse/types.ts";
import { redactReply, replyTextParts } from "./sanitize.ts";

/**
 * The AI SDK form of history sanitizing: assistant text parts of the prompt, nothing else; `tools`
 * as redactReply's (the request's declared tools; left out, OpenCode's built-in ones). The text
 * parts of one assistant message are one reply, read as one text (redactReply), as the live repair
 * read that reply: an example whose fence opens in one part stays an example in the next.
 */
export function sanitizePrompt(prompt: LanguageModelV3Prompt, options: ParseOptionsInput = {}, tools?: readonly ToolSpec[]): LanguageModelV3Prompt {
  let changed = false;
  const out = prompt.map((message) => {
    if (message.role !== "assistant") return message;
    const { parts, at } = replyTextParts(message.content, (part) => (part.type === "text" ? part.text : undefined));
    if (parts.length === 0) return message;
    const result = redactReply(parts, options, tools);
    if (result.removed === 0) return message;
    const content = message.content.slice();
    result.texts.forEach((text, i) => {
      const index = at[i]!;
      const part = content[index]!;
      if (part.type === "text" && text !== part.text) content[index] = { ...part, text };
    });
    changed = true;
    return { ...message, content };
  });
  return changed ? out : prompt;
}
