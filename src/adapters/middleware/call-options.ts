// What the middleware reads from the AI SDK's call options (LanguageModelV3CallOptions): the
// plugin's request tag among the headers, the tools the call declared, and what it lets a
// recovered call be (tool choice, the parallel-call switch, the content given for the echo guard).
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { JsonSchema, ToolSpec } from "../../parse/types.ts";
import { givenFromCallOptions, requestEchoGuard } from "../../echo/from-request.ts";
import { offeredTools, sdkOneCall, sdkToolChoice } from "../../wires/tool-choice.ts";
import { sdkPrefill } from "../../wires/prefill.ts";
import type { CallScope } from "../call-engines.ts";
import { type AdapterOptions, REQUEST_TAG_HEADER } from "../options.ts";
import { debugLine } from "../report.ts";
import { UNSPELLED_TOOLS } from "../../options/engine.ts";
import { isObject } from "../../sse/json.ts";

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

/**
 * What the call lets a recovered call be and where its reply starts, read from its call options;
 * `tools`: declaredTools(params); `provider`: the model's (LanguageModelV3.provider).
 */
export function callScope(params: LanguageModelV3CallOptions, tools: readonly ToolSpec[], options: AdapterOptions, provider?: string): CallScope {
  // Read only if a call is about to be recovered: the passthrough path never walks the prompt.
  const isEchoed = requestEchoGuard(options, () => givenFromCallOptions(params));
  const choice = sdkToolChoice(params.toolChoice);
  if (choice.type === "invalid") debugLine(options, `${choice.why}: no call is recovered from this response`);
  return {
    tools: offeredTools(tools, choice),
    declaredNames: declaredToolNames(params),
    isEchoed,
    // One call per reply, when the call switched parallel calls off.
    oneCall: sdkOneCall(params.providerOptions),
    // A prompt that ends in an assistant turn: the reply may continue its text (surely with the anthropic provider).
    prefill: sdkPrefill(params.prompt, provider),
  };
}

/**
 * Function and provider tools alike: a provider tool's name is declared too. As the fetch route
 * reads the same request (src/wires/declared-names.ts, review 55a): the tools an `openai.mcp`
 * provider tool lists are reserved, and one that lists none, a hosted code sandbox (hostedSandbox)
 * or an Anthropic MCP server in the provider options without a tool list gives the model names
 * the request never spells (UNSPELLED_TOOLS: no alias or costume but `<bash>` is taken).
 */
function declaredToolNames(params: LanguageModelV3CallOptions): string[] {
  const names: string[] = [];
  const addAll = (list: unknown) => {
    if (Array.isArray(list)) for (const name of list) if (typeof name === "string" && name) names.push(name);
  };
  for (const tool of params.tools ?? []) {
    const { name, id, args } = tool as { name?: unknown; id?: unknown; args?: unknown };
    if (typeof name === "string" && name) names.push(name);
    if (typeof id !== "string") continue;
    if (id === "openai.mcp") {
      const allowed = isObject(args) ? args.allowedTools : undefined;
      const listed = Array.isArray(allowed) ? allowed : isObject(allowed) && Array.isArray(allowed.toolNames) ? allowed.toolNames : undefined;
      if (listed) addAll(listed);
      else names.push(UNSPELLED_TOOLS);
    }
    if (hostedSandbox(id, args)) names.push(UNSPELLED_TOOLS);
  }
  const anthropic = params.providerOptions?.anthropic;
  const servers = isObject(anthropic) ? anthropic.mcpServers : undefined;
  if (Array.isArray(servers)) {
    for (const server of servers) {
      const config = isObject(server) ? server.toolConfiguration : undefined;
      if (isObject(config) && config.enabled === false) continue;
      if (isObject(config) && Array.isArray(config.allowedTools)) addAll(config.allowedTools);
      else names.push(UNSPELLED_TOOLS);
    }
  }
  return names;
}

/**
 * A provider tool the provider runs as a code sandbox of its own: `openai.code_interpreter`,
 * `anthropic.code_execution_*`, Gemini's `google.code_execution`, and (review 56) `openai.shell`
 * in a container OpenAI provisions (`environment: {type: "containerAuto"}` or
 * `containerReference`; @ai-sdk/openai then has the provider execute it). `openai.shell` with no
 * environment or a `local` one, and `openai.local_shell`, are the caller's own shell, run on its
 * machine as the local bash would be: they reserve only their names (as before).
 *
 * Review 57: read by the tool type after the provider's prefix, not by provider, so xAI's
 * `xai.code_execution` (Grok's server-side Python) and any provider's `code_interpreter`,
 * `code_execution` or `code_execution_<version>` count: every such AI SDK tool known runs in the
 * provider's sandbox, and a provider tool so named that did not would only lose a costume (no
 * call), never run one as the local bash.
 */
function hostedSandbox(id: string, args: unknown): boolean {
  if (id === "openai.shell") {
    const environment = isObject(args) ? args.environment : undefined;
    return isObject(environment) && typeof environment.type === "string" && environment.type.startsWith("container");
  }
  const type = id.slice(id.indexOf(".") + 1);
  return type === "code_interpreter" || type === "code_execution" || type.startsWith("code_execution_");
}
