// One repaired call's state, shared by the generate and the stream path, and what both tell the
// host when the reply ends: the finish reason, the `dsmlFix` provider metadata, the one report.
import type { LanguageModelV3FinishReason, LanguageModelV3StreamPart, SharedV3ProviderMetadata } from "@ai-sdk/provider";
import type { RecoveredCall, ToolSpec } from "../../parse/types.ts";
import type { GuardedEngine } from "../../engine/guarded.ts";
import type { EchoGuard } from "../../engine/types.ts";
import { givenFromToolResultPart } from "../../echo/from-reply.ts";
import type { ReasoningChannel } from "../../engine/reasoning-channel.ts";
import { mergeSummaries } from "../merge-summaries.ts";
import type { AdapterOptions } from "../options.ts";
import { report } from "../report.ts";

export interface CallContext {
  options: AdapterOptions;
  guard: GuardedEngine;
  /** D06: reasoning parts through their own engines; their calls run only when reasoning was the answer. */
  reasoning: ReasoningChannel;
  /** Calls emitted from the reasoning channel. */
  fromReasoning: number;
  /** The call switched parallel tool calls off (sdkOneCall): one call per reply, held back until it ends. */
  oneCall: boolean;
  /** The tools the call offers: a native call repeating a recovered one is read under their schemas (src/wires/sent-calls.ts). */
  tools?: readonly ToolSpec[];
  tag: string | undefined;
  attempt: number;
  reported: boolean;
  /** The call's echo guard (shared by every engine of the reply); undefined when it is off. */
  isEchoed?: EchoGuard | undefined;
}

/**
 * A provider-executed tool's result in the reply (a web fetch's page): given content for the text
 * that follows it, as it is once replayed in the next request's prompt (givenFromPrompt).
 */
export function noteToolResult(ctx: CallContext, part: { readonly result?: unknown }): void {
  ctx.isEchoed?.addGiven?.(() => givenFromToolResultPart(part));
}

/** The one report of the call (AdapterOptions.onResult); none from an engine that failed. */
export function finishReport(ctx: CallContext): void {
  if (ctx.reported || ctx.guard.failed) return;
  ctx.reported = true;
  const summary = fullSummary(ctx);
  if (summary) report(ctx.options, { requestTag: ctx.tag, summary, attempt: ctx.attempt });
}

/** The content engine's report, with the reasoning engines' when the reasoning was the answer. */
function fullSummary(ctx: CallContext) {
  const summary = ctx.guard.summary();
  if (!summary) return undefined;
  const thought = ctx.reasoning.summaries();
  return thought.length > 0 ? mergeSummaries([summary, ...thought]) : summary;
}

function recovered(ctx: CallContext): number {
  return ctx.guard.recovered + ctx.fromReasoning;
}

/** The reply ended: calls written in reasoning, if the reasoning was the whole answer. */
export function reasoningCalls(ctx: CallContext): RecoveredCall[] {
  const calls = ctx.reasoning.settle(ctx.guard.recovered);
  ctx.fromReasoning += calls.length;
  return calls;
}

/** "tool-calls" once a call was recovered, so the host runs it; the provider's raw reason stays. */
export function finishReason(reason: LanguageModelV3FinishReason, ctx: CallContext): LanguageModelV3FinishReason {
  return recovered(ctx) > 0 && !cutsReply(reason) ? { unified: "tool-calls", raw: reason.raw } : reason;
}

/**
 * A finish that cuts the reply rather than ends it: a content filter (an Anthropic refusal, a
 * chat content_filter) stopped it, or it failed. Nothing held is decided there, and the finish
 * reason stays as it came, a recovered call or not. The provider's own reason counts too: the
 * openai-compatible provider maps a chat `abort` (SGLang's aborted request) and `error` to
 * "other", which would read as an end (the chat wire's CUT_FINISH_REASONS, as the fetch path has it).
 */
export function cutsReply(reason: LanguageModelV3FinishReason | undefined): boolean {
  const unified = reason?.unified as string | undefined;
  if (unified === "content-filter" || unified === "error") return true;
  return unified === "other" && typeof reason?.raw === "string" && CUT_RAW_REASONS.has(reason.raw.toLowerCase());
}

/** Raw chat finish reasons that cut the reply, when the provider mapped them to "other". */
const CUT_RAW_REASONS: ReadonlySet<string> = new Set(["abort", "error", "content_filter"]);

/** The provider's metadata with `dsmlFix`: how many calls were recovered, and the nudge if one is due. */
export function metadata(existing: SharedV3ProviderMetadata | undefined, ctx: CallContext): SharedV3ProviderMetadata {
  const nudge = ctx.guard.failed ? null : (fullSummary(ctx)?.nudge ?? null);
  return { ...existing, dsmlFix: { recovered: recovered(ctx), nudge } };
}

export function toolCallPart(call: RecoveredCall): Extract<LanguageModelV3StreamPart, { type: "tool-call" }> {
  return { type: "tool-call", toolCallId: call.id, toolName: call.tool, input: JSON.stringify(call.input) };
}

/**
 * The keys under which providers put what makes a reasoning part signed: replayed, it must be
 * the text the provider wrote (an Anthropic or Bedrock thinking block's `signature` and a redacted
 * block's `redactedData`, Google's `thoughtSignature`, OpenAI's `reasoningEncryptedContent`).
 */
const SIGNING_KEYS = ["signature", "redactedData", "thoughtSignature", "reasoningEncryptedContent", "encryptedContent"];

/**
 * A reasoning part carrying a provider's signature: passed on as written and never read for calls
 * (D06), as the Anthropic and Responses wires leave thinking alone.
 */
export function signedReasoning(metadata: SharedV3ProviderMetadata | undefined): boolean {
  if (!metadata) return false;
  for (const entry of Object.values(metadata)) {
    if (entry === null || typeof entry !== "object") continue;
    for (const key of SIGNING_KEYS) {
      const value = (entry as Record<string, unknown>)[key];
      if (typeof value === "string" && value !== "") return true;
    }
  }
  return false;
}

/**
 * The keys of a text part's provider data that belong to a call made from that text, under any
 * provider's name (`google`, `vertex`, a custom one): Gemini's `thoughtSignature`, which
 * @ai-sdk/google replays from a tool-call part (it skips an empty text part, signature and all).
 * Every other key names the text item itself (OpenAI Responses' `itemId` and `phase`,
 * annotations, citations): on a call, an `itemId` claims a message item is the call, and with a
 * server-side conversation @ai-sdk/openai then sends no function_call at all.
 */
const CALL_KEYS = new Set(["thoughtSignature"]);

/** A text part's provider data split into what moves onto a call recovered from it and what stays with the text. */
export function callMetadata(meta: SharedV3ProviderMetadata): { call?: SharedV3ProviderMetadata; text?: SharedV3ProviderMetadata } {
  let call: SharedV3ProviderMetadata | undefined;
  let text: SharedV3ProviderMetadata | undefined;
  for (const [provider, entry] of Object.entries(meta)) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry) || Object.keys(entry).length === 0) {
      (text ??= {})[provider] = entry;
      continue;
    }
    for (const [key, value] of Object.entries(entry)) {
      const side = CALL_KEYS.has(key) ? (call ??= {}) : (text ??= {});
      (side[provider] ??= {})[key] = value;
    }
  }
  return { call, text };
}
