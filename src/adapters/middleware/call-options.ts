// What the middleware reads from the AI SDK's call options (LanguageModelV3CallOptions): the
// plugin's request tag among the headers, and the tools the call declared.
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { JsonSchema, ToolSpec } from "../../parse/types.ts";
import { REQUEST_TAG_HEADER } from "../options.ts";

/** The call without the plugin's request tag header, and the tag it carried (undefined: none). */
export function withoutRequestTag(params: LanguageModelV3CallOptions): { params: LanguageModelV3CallOptions; tag: string | undefined } {
  // Header names are case-insensitive; the AI SDK hands them on as the caller spelled them.
  const key = Object.keys(params.headers ?? {}).find((k) => k.toLowerCase() === REQUEST_TAG_HEADER);
  if (key === undefined) return { params, tag: undefined };
  const { [key]: tag, ...headers } = params.headers ?? {};
  return { params: { ...params, headers }, tag };
}

/** The function tools: the only ones a call recovered from text may name. */
export function declaredTools(params: LanguageModelV3CallOptions): ToolSpec[] {
  const tools: ToolSpec[] = [];
  for (const tool of params.tools ?? []) {
    if (tool.type === "function") tools.push({ name: tool.name, parameters: tool.inputSchema as JsonSchema });
  }
  return tools;
}

/** Function and provider tools alike: a provider tool's name is declared too. */
export function declaredNames(params: LanguageModelV3CallOptions): string[] {
  const names: string[] = [];
  for (const tool of params.tools ?? []) {
    const name: unknown = (tool as { name?: unknown }).name;
    if (typeof name === "string" && name) names.push(name);
  }
  return names;
}
