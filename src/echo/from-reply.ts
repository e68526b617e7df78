// Content given to the model inside its own reply: what a server-side tool returned (Anthropic's
// web fetch, web search, code execution and MCP connector results; a Responses `mcp_call`'s output,
// a `code_interpreter_call`'s logs, a `file_search_call`'s results; an AI SDK `tool-result` part of a
// provider-executed tool), and the citations of an Anthropic text block (a `cited_text` quotes the
// source, a searched page the client holds only encrypted). The model did not write it, so markup it quotes from there is an echo,
// exactly as when the same result is replayed in the next request (src/echo/from-request.ts reads
// it there with the same rules). It is given only to the text that follows it in the reply
// (EchoGuard.addGiven).
import { collectStrings, givenFromAnthropicBlock, OWN_BLOCKS, ownItem } from "./from-request.ts";
import { isObject } from "../grammar/plain-data.ts";

/**
 * An Anthropic content block of the reply: of the model's own blocks (text, thinking, tool_use,
 * server_tool_use, ...) only a text block's citations (givenFromAnthropicBlock); every string of any other.
 */
export function givenFromMessagesBlock(block: unknown): string[] {
  const out: string[] = [];
  givenFromAnthropicBlock(block, out);
  return out;
}

/** Whether an Anthropic text block of the reply cites a source (its citations are given to its text). */
export function citesSource(block: unknown): boolean {
  return isObject(block) && block.type === "text" && Array.isArray(block.citations) && block.citations.length > 0;
}

/** A streamed `citations_delta`: the citation's strings (its `cited_text` is the source's words), given to the text after it. */
export function givenFromCitationsDelta(delta: unknown): string[] {
  const out: string[] = [];
  if (isObject(delta) && delta.type === "citations_delta") collectStrings(delta.citation, out);
  return out;
}

/** Whether an Anthropic block of the reply is a result given to the model (not one of its own blocks). */
export function isGivenBlock(block: unknown): boolean {
  return isObject(block) && typeof block.type === "string" && !OWN_BLOCKS.has(block.type);
}

/** A Responses output item of the reply: nothing for the model's own (messages, reasoning, function and custom tool calls); every string of any other. */
export function givenFromResponsesItem(item: unknown): string[] {
  if (ownItem(item)) return [];
  const out: string[] = [];
  collectStrings(item, out);
  return out;
}

/**
 * An AI SDK `tool-result` part of the reply (a provider-executed tool's; the host runs no other in
 * the reply): every string of its result, and the result as JSON text (a JSON result may reach the
 * model as such, as givenFromPrompt reads a replayed one).
 */
export function givenFromToolResultPart(part: { readonly result?: unknown }): string[] {
  const out: string[] = [];
  collectStrings(part.result, out);
  if (typeof part.result === "object" && part.result !== null) {
    try {
      const json = JSON.stringify(part.result);
      if (json) out.push(json);
    } catch {
      // A result that is no JSON (a cycle) is read by its strings only.
    }
  }
  return out;
}
