// The prompt's history before it goes upstream: replayed assistant turns lose the leaks they
// carried (src/history/prompt.ts), or the caller's own sanitizer runs instead.
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { sanitizePrompt } from "../../history/prompt.ts";
import type { ToolSpec } from "../../parse/types.ts";
import { readGuarded } from "../../options/settle.ts";
import { type AdapterOptions, sanitizeEnabled } from "../options.ts";
import { debugLine } from "../report.ts";

type ProviderOptions = LanguageModelV3CallOptions["providerOptions"];

export interface MiddlewareOptions extends AdapterOptions {
  /** Replaces the built-in history sanitizer (src/history/prompt.ts). */
  sanitizeHistory?: (prompt: LanguageModelV3Prompt) => LanguageModelV3Prompt;
}

/**
 * The built-in sanitizer reads history with the call's declared tools, as the live repair reads the
 * reply; the call's providerOptions tell whether a changed message must lose its item ids (keepsItemIds).
 */
type HistorySanitizer = (prompt: LanguageModelV3Prompt, tools: readonly ToolSpec[], providerOptions?: ProviderOptions) => LanguageModelV3Prompt;

/** undefined: history.sanitize is off and no sanitizer of the caller's replaces it, so the prompt goes as it is. */
export function historySanitizer(given: MiddlewareOptions, settled: MiddlewareOptions): HistorySanitizer | undefined {
  const custom = readGuarded(given, "sanitizeHistory");
  if (!custom.ok) debugLine(settled, "option sanitizeHistory could not be read; using the built-in sanitizer");
  if (custom.ok && typeof custom.value === "function") {
    const replacement = custom.value as NonNullable<MiddlewareOptions["sanitizeHistory"]>;
    return (prompt) => replacement(prompt);
  }
  // settleOptions read history.sanitize already (an unreadable key: its default, with a debug line).
  if (!sanitizeEnabled(settled)) return undefined;
  return (prompt, tools, providerOptions) => sanitizePrompt(prompt, settled.parse, tools, !keepsItemIds(providerOptions));
}

/**
 * The call sends replayed parts as written with their item ids (`store: false`), or the server
 * holds the conversation (`conversation`, `previousResponseId`: a part sent again would repeat
 * it, and the server's copy can't be sanitized from here): a sanitized message keeps its item ids.
 * Otherwise (OpenAI Responses' default, store on) a part with an item id goes as a reference to the
 * server's copy, leak and all, so a sanitized message goes without them (sanitizePrompt).
 */
function keepsItemIds(providerOptions: ProviderOptions): boolean {
  if (!providerOptions || typeof providerOptions !== "object") return false;
  return Object.values(providerOptions).some((entry) => entry !== null && typeof entry === "object" && (entry.store === false || entry.conversation != null || entry.previousResponseId != null));
}
