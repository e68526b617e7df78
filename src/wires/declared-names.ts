// Every tool name a request declared, of whatever kind: what another agent's name for a tool
// (src/parse/aliases.ts) may never be taken for. Read generously on every wire, since a name too
// many only keeps an alias from applying: a function tool (`function.name` on chat-completions,
// `name` on Responses and Anthropic Messages), a custom free-text tool (`custom.name` on
// chat-completions, `name` on Responses), a server or provider tool that carries a name, chat's
// deprecated `functions` list, and the tools a request names for a hosted MCP server (Responses
// `mcp` tools' `allowed_tools`, Anthropic's `mcp_servers[].tool_configuration.allowed_tools` and
// `mcp_toolset` tools' `configs`): the model calls those by their own names, and a leaked call to
// one is that server's tool or nothing, never the local tool its name is an alias of.
import { type Json, isObject } from "../sse/json.ts";
import type { JsonSchema, ToolSpec } from "../parse/types.ts";

export function declaredToolNames(body: Json): string[] {
  const names = new Set<string>();
  const add = (name: unknown) => {
    if (typeof name === "string" && name) names.add(name);
  };
  const addAll = (list: unknown) => {
    if (Array.isArray(list)) for (const name of list) add(name);
  };
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) {
      if (!isObject(tool)) continue;
      add(tool.name);
      if (isObject(tool.function)) add(tool.function.name);
      if (isObject(tool.custom)) add(tool.custom.name);
      // Responses `mcp`: `allowed_tools` is a list of names or `{ tool_names: [...] }`.
      addAll(tool.allowed_tools);
      if (isObject(tool.allowed_tools)) addAll(tool.allowed_tools.tool_names);
      // Anthropic `mcp_toolset`: per-tool settings keyed by the tool's name.
      if (isObject(tool.configs)) for (const name of Object.keys(tool.configs)) add(name);
    }
  }
  if (Array.isArray(body.functions)) for (const fn of body.functions) if (isObject(fn)) add(fn.name);
  if (Array.isArray(body.mcp_servers)) {
    for (const server of body.mcp_servers) if (isObject(server) && isObject(server.tool_configuration)) addAll(server.tool_configuration.allowed_tools);
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

/**
 * An OpenAI function (chat-completions `tools[].function`, a legacy `functions` entry, a Responses
 * function tool): OpenAI documents that leaving `parameters` out defines a function with an EMPTY
 * parameter list (and `strict: true` holds the model to it), so the key absent reads as an object
 * with no properties: a call with no arguments runs, any key is refused, as `properties: {}` is.
 * A schema given is handed on as declaredTool hands it.
 */
export function declaredFunction(name: string, parameters: unknown): ToolSpec {
  return declaredTool(name, parameters === undefined ? { type: "object", properties: {} } : parameters);
}
