/**
 * A leaked reply on the 1.18 plugin's wire route, in process: chat.headers tags the request, the
 * plugin's process fetch (which the plugin wraps at start) repairs the model's stream and reports
 * it to the retry. Where a test needs "a reply the plugin owes a correction and a wake", this is
 * it: the text fallback (experimental.text.complete) never corrects or wakes (src/plugin/fallback.ts).
 */
import { block, live } from "../golden/notation.ts";
import { assemble, deltas, openAiTools, sseText, type Json } from "../security/support.ts";

/** A call of a tool no request declares: never run, an "undeclared-tool" correction and one wake. */
export const UNDECLARED_LEAK = live(`Let me check.\n\n${block("tool_calls", [["wipe_disk", [["path", "/"]]]])}`);

export type LeakScope = { fetch: typeof fetch; [key: symbol]: unknown };

/** The process scope to start the plugin with: its fetch answers every request with `reply()`, streamed. */
export function leakScope(reply: () => string = () => UNDECLARED_LEAK): LeakScope {
  const upstream = async () => new Response(sseText(deltas(reply(), 7)), { status: 200, headers: { "content-type": "text/event-stream" } });
  return { fetch: Object.assign(upstream, { preconnect: () => undefined }) as unknown as typeof fetch };
}

type HeaderHook = (input: unknown, output: { headers: Record<string, string> }) => Promise<void>;

/** One DeepSeek chat request of `turn` through the started plugin's fetch; the reply's text as OpenCode gets it. */
export async function wireReply(hooks: { "chat.headers"?: unknown }, scope: LeakScope, sessionID: string, turn: string): Promise<string> {
  const output = { headers: {} as Record<string, string> };
  const model = { id: "deepseek-chat", providerID: "deepseek", api: { id: "deepseek-chat", npm: "@ai-sdk/openai-compatible" } };
  await (hooks["chat.headers"] as HeaderHook)({ sessionID, agent: "build", provider: { id: "deepseek" }, model, message: { id: turn } }, output);
  const body: Json = { model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "go" }], tools: openAiTools() };
  const response = await scope.fetch("https://api.deepseek.com/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", ...output.headers },
    body: JSON.stringify(body),
  });
  return assemble(await response.text()).content;
}
