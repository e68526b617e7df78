// Every tool name a request declared, of whatever kind: what another agent's name for a tool
// (src/parse/aliases.ts) may never be taken for. Read generously on every wire, since a name too
// many only keeps an alias from applying: a function tool (`function.name` on chat-completions,
// `name` on Responses and Anthropic Messages), a custom free-text tool (`custom.name` on
// chat-completions, `name` on Responses), a server or provider tool that carries a name.
import { type Json, isObject } from "../sse/json.ts";
import type { JsonSchema, ToolSpec } from "../parse/types.ts";

export function declaredToolNames(body: Json): string[] {
  if (!Array.isArray(body.tools)) return [];
  const names = new Set<string>();
  const add = (name: unknown) => {
    if (typeof name === "string" && name) names.add(name);
  };
  for (const tool of body.tools) {
    if (!isObject(tool)) continue;
    add(tool.name);
    if (isObject(tool.function)) add(tool.function.name);
    if (isObject(tool.custom)) add(tool.custom.name);
  }
  return [...names];
}

/**
 * One declared function tool, the same on every wire: a tool that declares no schema (the key
 * absent) is checked against none; any schema it does declare is handed on as given, so one that
 * is not an object (`false`, the JSON Schema that accepts nothing, `"object"`, `null`: a client or
 * host bug) fails closed in the gate, as parse() and the middleware do. Read as "no schema", it
 * would let any arguments run.
 */
export function declaredTool(name: string, schema: unknown): ToolSpec {
  return schema === undefined ? { name } : { name, parameters: schema as JsonSchema };
}
