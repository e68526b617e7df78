// OpenAI chat-completions (`…/chat/completions`): leaked markup in a message's `content` comes back
// as `tool_calls`; a call written in its reasoning (D06) runs only as the reasoning's trailing block.
import type { RecoveredCall, ToolSpec } from "../../parse/types.ts";
import type { EngineSummary } from "../../engine/types.ts";
import { textAndCalls } from "../../engine/events.ts";
import { givenFromChatBody } from "../../echo/from-request.ts";
import { ReasoningChannel } from "../../engine/reasoning-channel.ts";
import { type Json, isObject } from "../../sse/json.ts";
import { chatToolChoice, openAiOneCall } from "../tool-choice.ts";
import { declaredFunction, declaredToolNames } from "../declared-names.ts";
import { movedAnnotations } from "../annotations.ts";
import { chatPrefill } from "../prefill.ts";
import type { Wire, WireJsonContext } from "../wire.ts";
import { openAiCall } from "./openai.ts";
import { ChunkRewriter } from "./rewriter.ts";
import { CUT_FINISH_REASONS } from "./call-numbering.ts";

export const chatWire: Wire = {
  name: "chat-completions",
  declared: declaredTools,
  declaredNames: declaredToolNames,
  allowed: (body) => ({ choice: chatToolChoice(body.tool_choice, body.function_call), oneCall: openAiOneCall(body.parallel_tool_calls) }),
  given: givenFromChatBody,
  prefill: chatPrefill,
  repairJson: repairChatJson,
  rewriter: ({ guard, onFinal, engine, oneCall, tools }) => {
    // D06: one engine per stretch of reasoning, each reading on where the last left off; their
    // summaries join the content's once, at the end.
    const reasoning = new ReasoningChannel((continues) => engine("reasoning", continues));
    return new ChunkRewriter(guard, () => onFinal(reasoning.summaries()), reasoning, oneCall, tools);
  },
};

/**
 * The function tools of `tools`. The deprecated `functions` list is only reserved
 * (declaredToolNames), never a tool a call is recovered for: a client that declares its tools
 * there (the legacy API) reads a call from `message.function_call`, not the `tool_calls` a
 * recovered call is written as, so the call would vanish with its markup. A `functions` entry
 * named like a `tools` one is one more declaration of it: a recovered call must fit both
 * (a request reading either list, as its server may, gave the model both).
 */
function declaredTools(body: Json): ToolSpec[] {
  if (!Array.isArray(body.tools)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of body.tools) {
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function)) continue;
    const { name, parameters } = tool.function;
    if (typeof name !== "string" || !name) continue;
    tools.push(declaredFunction(name, parameters));
  }
  if (tools.length === 0 || !Array.isArray(body.functions)) return tools;
  const names = new Set(tools.map((tool) => tool.name));
  for (const fn of body.functions) {
    if (isObject(fn) && typeof fn.name === "string" && names.has(fn.name)) tools.push(declaredFunction(fn.name, fn.parameters));
  }
  return tools;
}

// ---------------------------------------------------------------- JSON

function repairChatJson(body: Json, ctx: WireJsonContext): boolean {
  if (!Array.isArray(body.choices)) return false;
  const summaries: EngineSummary[] = [];
  let changed = false;
  for (const choice of body.choices) {
    const message = isObject(choice) ? choice.message : undefined;
    if (!isObject(choice) || !isObject(message)) continue;
    // A reply whose answer is all in reasoning (D06) may come with no content at all.
    const content = typeof message.content === "string" ? message.content : message.content == null && hasReasoning(message) ? "" : undefined;
    if (content === undefined) continue;
    const native = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    const guard = ctx.engine();
    const thinking = messageReasoning(message, content, native, ctx);
    // A content filter stopped the reply, the provider failed it, or the server aborted it: cut, not ended. What the
    // engine holds at the end stays as written, and no call runs from the reasoning (rewriter.ts).
    const cut = CUT_FINISH_REASONS.has(choice.finish_reason as string);
    const step = guard.step({ native, delta: content, flush: !cut });
    // A failed engine leaves the whole response as it came, unreported.
    if (!step.ok) return false;
    const released = textAndCalls(step.events);
    const contentCalls = released.calls;
    const visible = cut ? released.text + guard.stop() : released.text;
    if (cut) thinking?.channel.abandon();
    const calls: RecoveredCall[] = [...contentCalls, ...(cut ? [] : (thinking?.channel.settle(contentCalls.length) ?? []))];
    // A trailing block that did not run goes back into the reasoning.
    if (thinking) thinking.text += thinking.channel.take();
    const summary = guard.summary();
    if (summary) summaries.push(summary, ...(thinking?.channel.summaries() ?? []));
    if (thinking && thinking.text !== message[thinking.key]) {
      // `reasoning` mirroring `reasoning_content` (vLLM between PR #27752 and #33402) gets the same edit; another one is left as it came.
      if (thinking.key === "reasoning_content" && message.reasoning === message.reasoning_content) message.reasoning = thinking.text;
      message[thinking.key] = thinking.text;
      changed = true;
    }
    if (visible === content && calls.length === 0) continue;
    changed = true;
    message.content = visible === "" && calls.length > 0 ? null : visible;
    // Offsets into the content (url_citation start_index/end_index) follow the words they cite, or go with them.
    if (visible !== content && Array.isArray(message.annotations)) message.annotations = movedAnnotations(message.annotations, content, visible);
    if (calls.length > 0) {
      const existing = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      message.tool_calls = [...existing, ...calls.map((call) => openAiCall(call))];
      if (!cut) choice.finish_reason = "tool_calls";
    }
  }
  ctx.report(summaries);
  return changed;
}

/** D06 for a whole message: its reasoning text without a trailing block that may run, and the channel holding that block. */
function messageReasoning(message: Record<string, unknown>, content: string, native: boolean, ctx: WireJsonContext) {
  const key = reasoningKey(message);
  if (key === undefined) return undefined;
  const channel = new ReasoningChannel(() => ctx.engine("reasoning"));
  if (native) channel.noteNative();
  channel.noteContent(content);
  const text = channel.feed(message[key] as string) + channel.close();
  return { key, channel, text };
}

/** The key the client reads reasoning from: `reasoning_content` when it is a string, `reasoning` its fallback (the AI SDK's `??`). */
function reasoningKey(message: Record<string, unknown>): "reasoning_content" | "reasoning" | undefined {
  if (typeof message.reasoning_content === "string") return "reasoning_content";
  return typeof message.reasoning === "string" ? "reasoning" : undefined;
}

function hasReasoning(message: Record<string, unknown>): boolean {
  return reasoningKey(message) !== undefined;
}
