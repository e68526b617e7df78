// Every tool name a request declared, of whatever kind: what another agent's name for a tool
// (src/parse/aliases.ts) may never be taken for. Read generously on every wire, since a name too
// many only keeps an alias from applying: a function tool (`function.name` on chat-completions,
// `name` on Responses and Anthropic Messages), a custom free-text tool (`custom.name` on
// chat-completions, `name` on Responses), a server or provider tool that carries a name, chat's
// deprecated `functions` list, the functions and custom tools a Responses `namespace` tool groups
// (and a Responses `tool_search_output` input item loads), and the tools a request names for a
// hosted MCP server (Responses `mcp` tools' `allowed_tools`, Anthropic's
// `mcp_servers[].tool_configuration.allowed_tools` and `mcp_toolset` tools' `configs`): the model
// calls those by their own names, and a leaked call to one is that server's tool or nothing, never
// the local tool its name is an alias of. A hosted MCP server whose tools the request does not
// list gives the model tools under names it never spells: UNSPELLED_TOOLS then stands in the list,
// as it does for a hosted code sandbox (Responses `code_interpreter` and a `shell` in an OpenAI
// container, Anthropic `code_execution_*`).
import { type Json, isObject } from "../sse/json.ts";
import type { JsonSchema, ToolSpec } from "../parse/types.ts";
import { UNSPELLED_TOOLS } from "../options/engine.ts";

export function declaredToolNames(body: Json): string[] {
  const names = new Set<string>();
  const add = (name: unknown) => {
    if (typeof name === "string" && name) names.add(name);
  };
  const addAll = (list: unknown) => {
    if (Array.isArray(list)) for (const name of list) add(name);
  };
  const addTools = (tools: unknown) => {
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (!isObject(tool)) continue;
      add(tool.name);
      if (isObject(tool.function)) add(tool.function.name);
      if (isObject(tool.custom)) add(tool.custom.name);
      // Responses `mcp`: `allowed_tools` is a list of names or `{ tool_names: [...] }`.
      addAll(tool.allowed_tools);
      if (isObject(tool.allowed_tools)) addAll(tool.allowed_tools.tool_names);
      // Anthropic `mcp_toolset`: per-tool settings keyed by the tool's name.
      if (isObject(tool.configs)) for (const name of Object.keys(tool.configs)) add(name);
      if (tool.type === "namespace") addNamespace(tool);
      if (unlistedServer(tool)) names.add(UNSPELLED_TOOLS);
    }
  };
  /**
   * Review 55a: a Responses `namespace` groups functions and custom tools under its name; the
   * model calls each by its own name (the call's `namespace` field says the group), so each is
   * reserved, and so is the namespace's name. Models trained on OpenAI's harmony format address a
   * namespaced tool as `<namespace>.<name>` (`functions.get_weather`, `browser.search`), so that
   * spelling is reserved too. One level: a namespace holds functions and custom tools only.
   */
  const addNamespace = (namespace: Json) => {
    if (!Array.isArray(namespace.tools)) return;
    const group = typeof namespace.name === "string" && namespace.name ? namespace.name : undefined;
    for (const inner of namespace.tools) {
      if (!isObject(inner)) continue;
      for (const name of [inner.name, isObject(inner.function) ? inner.function.name : undefined]) {
        if (typeof name !== "string" || !name) continue;
        add(name);
        if (group) add(`${group}.${name}`);
      }
    }
  };
  addTools(body.tools);
  if (Array.isArray(body.functions)) for (const fn of body.functions) if (isObject(fn)) add(fn.name);
  if (Array.isArray(body.mcp_servers)) {
    const toolsets = toolsetServers(body.tools);
    for (const server of body.mcp_servers) {
      if (!isObject(server)) continue;
      if (isObject(server.tool_configuration)) addAll(server.tool_configuration.allowed_tools);
      if (unlistedAnthropicServer(server, toolsets)) names.add(UNSPELLED_TOOLS);
    }
  }
  // Responses tool search run by the client: a `tool_search_output` item in the input loads tools
  // (functions, namespaces, MCP servers) the model is then given, as `tools` entries are.
  if (Array.isArray(body.input)) for (const item of body.input) if (isObject(item) && item.type === "tool_search_output") addTools(item.tools);
  return [...names];
}

/**
 * Review 55a: a hosted MCP tool entry that gives the model every tool its server has, by names
 * the request never spells: a Responses `mcp` tool without a name list in `allowed_tools` (absent,
 * null, or a filter with only `read_only`), or an Anthropic `mcp_toolset` whose `default_config`
 * leaves its tools enabled (the default: `configs` then only tunes some of them).
 */
function unlistedServer(tool: Json): boolean {
  if (tool.type === "mcp") return !Array.isArray(tool.allowed_tools) && !(isObject(tool.allowed_tools) && Array.isArray(tool.allowed_tools.tool_names));
  if (tool.type === "mcp_toolset") return !(isObject(tool.default_config) && tool.default_config.enabled === false);
  return hostedCode(tool);
}

/**
 * A hosted code tool the server runs (Responses `code_interpreter`, Anthropic `code_execution_*`):
 * it carries no name, yet the model calls it as its own sandbox, and a `<python>` or
 * `<code_interpreter>` costume written for it is that sandbox's code, never the local shell's.
 * So it reserves every alias and costume name as an unlisted server does; the runner's own
 * `<bash>` and declared tools still run as themselves.
 *
 * Review 56: so is a Responses `shell` tool run in a container OpenAI provisions
 * (`environment: {type: "container_auto"}` or `container_reference`, the hosted shell): a
 * `<shell>`, `<python>` or `execute_command` written for it is that container's. A `shell` with
 * no environment or a `local` one, and `local_shell`, are the client's own shell, whose commands
 * the client runs on its machine as it would the local bash's: they reserve nothing (as before).
 */
function hostedCode(tool: Json): boolean {
  if (tool.type === "shell") return isObject(tool.environment) && typeof tool.environment.type === "string" && tool.environment.type.startsWith("container_");
  return tool.type === "code_interpreter" || (typeof tool.type === "string" && tool.type.startsWith("code_execution_"));
}

/** The servers an Anthropic `mcp_toolset` configures (by `mcp_server_name`): that entry decides which of their tools are given. */
function toolsetServers(tools: unknown): Set<unknown> {
  const servers = new Set<unknown>();
  if (Array.isArray(tools)) for (const tool of tools) if (isObject(tool) && tool.type === "mcp_toolset") servers.add(tool.mcp_server_name);
  return servers;
}

/**
 * An Anthropic `mcp_servers` entry no `mcp_toolset` configures, whose tools are on (the
 * `tool_configuration` absent or not `enabled: false`) and not listed in `allowed_tools`.
 */
function unlistedAnthropicServer(server: Json, toolsets: Set<unknown>): boolean {
  if (toolsets.has(server.name)) return false;
  const config = server.tool_configuration;
  if (!isObject(config)) return true;
  return config.enabled !== false && !Array.isArray(config.allowed_tools);
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
