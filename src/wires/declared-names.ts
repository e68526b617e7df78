// Every tool name a request declared, of whatever kind: what another agent's name for a tool
// (src/parse/aliases.ts) may never be taken for. Read generously on every wire, since a name too
// many only keeps an alias from applying: a function tool (`function.name` on chat-completions,
// `name` on Responses and Anthropic Messages), a custom free-text tool (`custom.name` on
// chat-completions, `name` on Responses), a server or provider tool that carries a name.
import { type Json, isObject } from "../sse/json.ts";

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
