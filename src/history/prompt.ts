import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { ParseOptionsInput, ToolSpec } from "../parse/types.ts";
import { sanitizeAssistantText } from "./sanitize.ts";

/** The AI SDK form of history sanitizing: assistant text parts of the prompt, nothing else; `tools` as sanitizeAssistantText's. */
export function sanitizePrompt(prompt: LanguageModelV3Prompt, options: ParseOptionsInput = {}, tools?: readonly ToolSpec[]): LanguageModelV3Prompt {
  let changed = false;
  const out = prompt.map((message) => {
    if (message.role !== "assistant") return message;
    let touched = false;
    const content = message.content.map((part) => {
      if (part.type !== "text") return part;
      const result = sanitizeAssistantText(part.text, options, tools);
      if (result.removed === 0) return part;
      touched = true;
      return { ...part, text: result.text };
    });
    if (!touched) return message;
    changed = true;
    return { ...message, content };
  });
  return changed ? out : prompt;
}
