/**
 * Review 49 (differential): the replayed assistant turn as every in-process history entry sends it
 * upstream (redactLeaks, repairFetch on chat / Anthropic Messages / Responses, the AI SDK
 * middleware's transformParams). Shared by review-49-diff-entries.test.ts and
 * review-49-diff-findings.test.ts.
 */
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { redactLeaks } from "../../src/history/sanitize.ts";
import type { ToolSpec } from "../../src/parse/types.ts";

let sent = "";
const recorder = (async (input: string | URL | Request, init?: RequestInit) => {
  sent = await new Request(input, init).text();
  return new Response(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] }), { status: 200, headers: { "content-type": "application/json" } });
}) as unknown as typeof fetch;

/** A chat request replaying `text` as the assistant's turn. */
export const historyChatBody = (text: string, tools: readonly ToolSpec[]) => ({
  model: "m",
  tools: tools.map((t) => ({ type: "function", function: { name: t.name, parameters: t.parameters } })),
  messages: [{ role: "user", content: "go" }, { role: "assistant", content: text }, { role: "user", content: "and?" }],
});

export async function replayedInProcess(text: string, tools: readonly ToolSpec[]): Promise<Record<string, string>> {
  const fetcher = repairFetch({}, recorder);
  const out: Record<string, string> = { redactLeaks: redactLeaks(text, {}, tools).text };
  await fetcher("http://m.test/v1/chat/completions", { method: "POST", body: JSON.stringify(historyChatBody(text, tools)) });
  out.fetchChat = JSON.parse(sent).messages.find((m: { role: string }) => m.role === "assistant").content;
  const messages = { model: "m", max_tokens: 5, tools: tools.map((t) => ({ name: t.name, input_schema: t.parameters ?? { type: "object" } })), messages: [{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "text", text }] }, { role: "user", content: "and?" }] };
  await fetcher("http://m.test/v1/messages", { method: "POST", body: JSON.stringify(messages) });
  out.fetchAnthropic = JSON.parse(sent).messages[1].content.map((b: { text: string }) => b.text).join("");
  const responses = { model: "m", tools: tools.map((t) => ({ type: "function", name: t.name, parameters: t.parameters })), input: [{ role: "user", content: "go" }, { type: "message", role: "assistant", content: [{ type: "output_text", text }] }, { role: "user", content: "and?" }] };
  await fetcher("http://m.test/v1/responses", { method: "POST", body: JSON.stringify(responses) });
  const item = JSON.parse(sent).input[1];
  out.fetchResponses = typeof item.content === "string" ? item.content : item.content.map((b: { text: string }) => b.text).join("");
  const middleware = repairMiddleware({});
  const prompt = [{ role: "user", content: [{ type: "text", text: "go" }] }, { role: "assistant", content: [{ type: "text", text }] }, { role: "user", content: [{ type: "text", text: "and?" }] }];
  const params = (await middleware.transformParams!({ type: "generate", params: { prompt, tools: tools.map((t) => ({ type: "function", name: t.name, inputSchema: t.parameters ?? { type: "object" } })) } as any, model: {} as any })) as any;
  out.middleware = params.prompt[1].content.map((p: { text: string }) => p.text).join("");
  return out;
}
