// Shared by the prefill tests (prefill, prefill-unsure, prefill-sent): the `read` tool on each wire,
// the Hermes call that reads /etc/passwd, a reply's text split every way, chat deltas written and
// read back, and an AI SDK model streaming text deltas through the repair middleware.
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { randomCuts } from "../support/run-engine.ts";
import { dataEvents } from "./wire-support.ts";

export const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
export const CHAT_TOOLS = [{ type: "function", function: { name: "read", parameters: SCHEMA } }];
export const MESSAGES_TOOLS = [{ name: "read", input_schema: SCHEMA }];
export const CALL = '<tool_call>{"name":"read","arguments":{"path":"/etc/passwd"}}</tool_call>';

/** The text split whole, char by char and at seeded random points. */
export function splits(text: string, seeds: number[]): [string, string[]][] {
  return [
    ["whole", [text]],
    ["char by char", [...text]],
    ...seeds.map((seed): [string, string[]] => {
      const bounds = [0, ...randomCuts(text.length, seed, 9), text.length];
      return [`random cuts ${seed}`, bounds.slice(1).map((to, i) => text.slice(bounds[i], to))];
    }),
  ];
}

/** A streamed chat reply of these content deltas from `model`, then its stop and `[DONE]`. */
export function chatDeltaSse(pieces: string[], model = "m"): string {
  const chunk = (delta: unknown, finish_reason: string | null) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model, choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  return `${pieces.map((content) => chunk({ content }, null)).join("")}${chunk({}, "stop")}data: [DONE]\n\n`;
}

/** What a client reads from a streamed chat reply: its content and how many tool calls. */
export function readChatSse(sse: string): { text: string; calls: number } {
  let text = "";
  let calls = 0;
  for (const event of dataEvents(sse)) {
    const delta = event.choices?.[0]?.delta ?? {};
    if (typeof delta.content === "string") text += delta.content;
    calls += delta.tool_calls?.length ?? 0;
  }
  return { text, calls };
}

/** The `read` tool as the AI SDK hands it to a model. */
export const READ_TOOL: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: SCHEMA as LanguageModelV3FunctionTool["inputSchema"] };
export const USAGE: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model stream of these text deltas, from its start to its finish. */
export function textStreamParts(pieces: string[]): LanguageModelV3StreamPart[] {
  return [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, ...pieces.map((delta) => ({ type: "text-delta" as const, id: "t", delta })), { type: "text-end", id: "t" }, { type: "finish", usage: USAGE, finishReason: { unified: "stop", raw: "stop" } }];
}

/** Calls and text out of the repair middleware when a mock model (of `provider`, if given) streams these text deltas for `params`. */
export async function middlewareStream(pieces: string[], params: LanguageModelV3CallOptions, provider?: string): Promise<{ calls: number; text: string }> {
  const mock = new MockLanguageModelV3({ ...(provider ? { provider } : {}), doStream: async () => ({ stream: convertArrayToReadableStream(textStreamParts(pieces)) }) });
  const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doStream(params);
  const out = await convertReadableStreamToArray(stream);
  return { calls: out.filter((p) => p.type === "tool-call").length, text: out.map((p) => (p.type === "text-delta" ? p.delta : "")).join("") };
}
