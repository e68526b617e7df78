// Which declared tools the request let the model call. A recovered call never names any other, so
// the rule lives here once, over a wire-neutral choice; each wire format only translates into it.
import { isObject } from "../sse/json.ts";

/** A request's tool choice, whatever API it came from. */
export type ToolChoice =
  /** The model may call any declared tool, or none (also what an absent choice means). */
  | { type: "auto" }
  /** The model may call no tool. */
  | { type: "none" }
  /** The model must call some declared tool. */
  | { type: "required" }
  /** The model must call exactly this tool. */
  | { type: "tool"; name: string }
  /** The model may (mode "auto") or must (mode "required") call one of these tools only. */
  | { type: "allowed"; names: readonly string[]; mode: "auto" | "required" }
  /** A form this code does not understand: nothing is recoverable (fail closed). */
  | { type: "invalid"; why: string };

/** What a request allows the calls recovered from one reply: which tools, and how many. */
export interface CallPolicy {
  choice: ToolChoice;
  /**
   * The request switched parallel tool calls off: one call per reply at most, a native call
   * included. Calls after it are treated like calls to a tool the request does not offer.
   */
  oneCall: boolean;
}

/**
 * OpenAI's `parallel_tool_calls` (chat-completions and Responses): absent, null or true allow
 * parallel calls. Only false switches them off, but any other value reads as off too: one call
 * too few costs the model a turn, one too many may be a wrong execution.
 */
export function openAiOneCall(raw: unknown): boolean {
  return !(raw === undefined || raw === null || raw === true);
}

/**
 * Anthropic's `tool_choice.disable_parallel_tool_use`: absent, null or false allow parallel calls;
 * true, or any value not understood, switches them off (as openAiOneCall). A tool choice that is
 * no object carries no switch (an invalid one recovers nothing anyway).
 */
export function anthropicOneCall(toolChoice: unknown): boolean {
  try {
    if (!isObject(toolChoice)) return false;
    const raw = toolChoice.disable_parallel_tool_use;
    return !(raw === undefined || raw === null || raw === false);
  } catch {
    return true;
  }
}

/**
 * The AI SDK's switch, in LanguageModelV3CallOptions.providerOptions: @ai-sdk/openai reads
 * `parallelToolCalls` (chat and Responses) and @ai-sdk/anthropic `disableParallelToolUse`, each under
 * its provider's key ("openai", "anthropic", or the name a custom provider was given); and
 * @ai-sdk/openai-compatible copies any key it has no option for into the body, so a raw
 * `parallel_tool_calls` there reaches the server as it is. The middleware cannot tell which
 * provider it wraps, so every key is read: a switch meant for another provider costs at most a
 * turn. Values read as openAiOneCall and anthropicOneCall do; options that cannot be read, as off.
 */
export function sdkOneCall(providerOptions: unknown): boolean {
  try {
    if (!isObject(providerOptions)) return false;
    for (const entry of Object.values(providerOptions)) {
      if (!isObject(entry)) continue;
      if (openAiOneCall(entry.parallelToolCalls) || openAiOneCall(entry.parallel_tool_calls)) return true;
      if (anthropicOneCall({ disable_parallel_tool_use: entry.disableParallelToolUse })) return true;
    }
    return false;
  } catch {
    return true;
  }
}

/**
 * The names, among the declared ones, a recovered call may use under `choice`. "none", an
 * invalid choice, or a choice naming only undeclared tools leave none: leaked markup stays text
 * and reads as an undeclared-tool leak instead of running. The request side's stateless
 * correction (src/adapters/request-history.ts mayCall: the proxy's; the fetch adapter adds none)
 * is never added under "none": its text asks for the call again, which such a request forbids.
 */
export function offeredToolNames(declared: Iterable<string>, choice: ToolChoice): Set<string> {
  const names = new Set(declared);
  switch (choice.type) {
    case "auto":
    case "required":
      return names;
    case "tool":
      return names.has(choice.name) ? new Set([choice.name]) : new Set();
    case "allowed":
      return new Set(choice.names.filter((name) => names.has(name)));
    default:
      return new Set();
  }
}

/** The declared tools, narrowed to those `choice` offers; declaration order is kept. */
export function offeredTools<T extends { name: string }>(declared: readonly T[], choice: ToolChoice): T[] {
  const offered = offeredToolNames(declared.map((tool) => tool.name), choice);
  return declared.filter((tool) => offered.has(tool.name));
}

/**
 * OpenAI chat-completions `tool_choice`: "none" | "auto" | "required", a named function or custom
 * tool, or `allowed_tools`. Absent (or null) is "auto". A custom tool takes free text, never the
 * JSON arguments a recovered call carries, so forcing or allowing one offers no recoverable tool.
 * `legacy` is the request's deprecated `function_call`, if any (readLegacyFunctionCall).
 */
export function chatToolChoice(raw: unknown, legacy?: unknown): ToolChoice {
  return unlessThrown(() => {
    const choice = readChatToolChoice(raw);
    if (legacy === undefined || legacy === null) return choice;
    const old = readLegacyFunctionCall(legacy);
    if (raw === undefined || raw === null) return old;
    return sameChoice(choice, old) ? choice : { type: "invalid", why: "tool_choice and function_call disagree" };
  });
}

/**
 * The deprecated chat `function_call` ("none" | "auto" | `{ name }`): a client may still send it,
 * even beside `tools`, and a server that honours it forbids or forces a tool just as tool_choice
 * does. Read it as the choice when tool_choice is absent; when both are sent and disagree nothing
 * is recoverable (fail closed: which one the server obeyed cannot be known).
 */
function readLegacyFunctionCall(raw: unknown): ToolChoice {
  if (raw === "none" || raw === "auto") return { type: raw };
  if (isObject(raw) && typeof raw.name === "string" && raw.name !== "") return { type: "tool", name: raw.name };
  return invalid(raw, "function_call");
}

function sameChoice(a: ToolChoice, b: ToolChoice): boolean {
  return a.type === b.type && (a.type !== "tool" || (b.type === "tool" && a.name === b.name));
}

function readChatToolChoice(raw: unknown): ToolChoice {
  if (raw === undefined || raw === null) return { type: "auto" };
  if (raw === "auto" || raw === "none" || raw === "required") return { type: raw };
  if (!isObject(raw)) return invalid(raw);
  if (raw.type === "function") {
    const name = functionName(raw);
    return name === undefined ? invalid(raw) : { type: "tool", name };
  }
  if (raw.type === "custom") return customName(raw) === undefined ? invalid(raw) : { type: "allowed", names: [], mode: "required" };
  if (raw.type === "allowed_tools") return allowedTools(raw.allowed_tools);
  return invalid(raw);
}

function allowedTools(allowed: unknown): ToolChoice {
  if (!isObject(allowed) || (allowed.mode !== "auto" && allowed.mode !== "required") || !Array.isArray(allowed.tools)) {
    return invalid(allowed, "allowed_tools");
  }
  const names: string[] = [];
  for (const tool of allowed.tools) {
    if (!isObject(tool)) return invalid(tool, "allowed_tools entry");
    if (tool.type === "function") {
      const name = functionName(tool);
      if (name === undefined) return invalid(tool, "allowed_tools entry");
      names.push(name);
    } else if (tool.type !== "custom" || customName(tool) === undefined) {
      return invalid(tool, "allowed_tools entry");
    }
  }
  return { type: "allowed", names, mode: allowed.mode };
}

function functionName(entry: Record<string, unknown>): string | undefined {
  const fn = entry.function;
  return isObject(fn) && typeof fn.name === "string" && fn.name !== "" ? fn.name : undefined;
}

function customName(entry: Record<string, unknown>): string | undefined {
  const custom = entry.custom;
  return isObject(custom) && typeof custom.name === "string" && custom.name !== "" ? custom.name : undefined;
}

/** AI SDK LanguageModelV3 `toolChoice`; absent is "auto". */
export function sdkToolChoice(raw: unknown): ToolChoice {
  return unlessThrown(() => readSdkToolChoice(raw));
}

function readSdkToolChoice(raw: unknown): ToolChoice {
  if (raw === undefined) return { type: "auto" };
  if (!isObject(raw)) return invalid(raw);
  if (raw.type === "auto" || raw.type === "none" || raw.type === "required") return { type: raw.type };
  if (raw.type === "tool" && typeof raw.toolName === "string" && raw.toolName !== "") return { type: "tool", name: raw.toolName };
  return invalid(raw);
}

/** Anthropic Messages `tool_choice`: auto, any (some tool must be called), a named tool, none; absent is auto. */
export function anthropicToolChoice(raw: unknown): ToolChoice {
  return unlessThrown(() => {
    if (raw === undefined || raw === null) return { type: "auto" };
    if (!isObject(raw)) return invalid(raw);
    if (raw.type === "auto" || raw.type === "none") return { type: raw.type };
    if (raw.type === "any") return { type: "required" };
    if (raw.type === "tool" && typeof raw.name === "string" && raw.name !== "") return { type: "tool", name: raw.name };
    return invalid(raw);
  });
}

/**
 * OpenAI Responses `tool_choice`: "none" | "auto" | "required", a named function, `allowed_tools`,
 * or a custom or hosted tool forced; absent is auto. Only functions take the JSON arguments a
 * recovered call carries, so a forced custom or hosted tool offers none.
 */
export function responsesToolChoice(raw: unknown): ToolChoice {
  return unlessThrown(() => {
    if (raw === undefined || raw === null) return { type: "auto" };
    if (raw === "auto" || raw === "none" || raw === "required") return { type: raw };
    if (!isObject(raw) || typeof raw.type !== "string") return invalid(raw);
    if (raw.type === "function") return typeof raw.name === "string" && raw.name !== "" ? { type: "tool", name: raw.name } : invalid(raw);
    if (raw.type === "allowed_tools") {
      if ((raw.mode !== "auto" && raw.mode !== "required") || !Array.isArray(raw.tools)) return invalid(raw, "allowed_tools");
      const names: string[] = [];
      for (const tool of raw.tools) {
        if (!isObject(tool)) return invalid(tool, "allowed_tools entry");
        if (tool.type === "function" && typeof tool.name === "string" && tool.name !== "") names.push(tool.name);
      }
      return { type: "allowed", names, mode: raw.mode };
    }
    return { type: "allowed", names: [], mode: "required" };
  });
}

/** A getter or proxy that throws while the choice is read is one more form not understood. */
function unlessThrown(read: () => ToolChoice): ToolChoice {
  try {
    return read();
  } catch {
    return { type: "invalid", why: "tool choice could not be read" };
  }
}

/** Names only the shape, never values: a tool choice is request content. */
function invalid(value: unknown, where = "tool choice"): ToolChoice {
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const type = isObject(value) && typeof value.type === "string" ? ` of type ${JSON.stringify(value.type.slice(0, 40))}` : "";
  return { type: "invalid", why: `unrecognised ${where} (${kind}${type})` };
}
