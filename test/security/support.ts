/**
 * Helpers for the security tests: OpenAI-shaped requests and SSE replies for the fetch adapter
 * (no network: the base fetch is a function), AI SDK prompts and streams for the middleware, and
 * readers of what comes out. Markup is only ever built through test/golden/notation.ts.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware, type MiddlewareOptions } from "../../src/adapters/middleware.ts";
import type { AdapterDeps, AdapterOptions, AdapterResult } from "../../src/adapters/options.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";

export type Json = Record<string, unknown>;
export const URL_CHAT = "http://model.test/v1/chat/completions";

/** OpenAI `tools` for the fixture tools (bash, read, write, ...). */
export function openAiTools(tools: readonly ToolSpec[] = fixtureTools): Json[] {
  return tools.map((t) => ({ type: "function", function: { name: t.name, description: t.name, parameters: t.parameters } }));
}

export function chatInit(body: Json): RequestInit {
  return { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "deepseek-chat", stream: true, tools: openAiTools(), ...body }) };
}

const envelope = { id: "chatcmpl-s", object: "chat.completion.chunk", created: 1, model: "deepseek-chat" };

export function chunk(delta: Json, finish: string | null = null): Json {
  return { ...envelope, choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** A recorded-shape stream: role chunk, the content deltas, a stop finish, [DONE]. */
export function sseText(contents: readonly string[], options: { eol?: string; before?: Json[] } = {}): string {
  const eol = options.eol ?? "\n";
  const events = [chunk({ role: "assistant", content: "" }), ...(options.before ?? []), ...contents.map((c) => chunk({ content: c })), chunk({}, "stop")];
  return [...events.map((e) => JSON.stringify(e)), "[DONE]"].map((data) => `data: ${data}${eol}${eol}`).join("");
}

/** `text` cut into deltas of `size` characters. */
export function deltas(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** A base fetch that answers every call with `reply()` and counts the calls. */
export function fakeBase(reply: () => Response): typeof fetch & { calls: number } {
  const base = Object.assign(
    async () => {
      base.calls++;
      return reply();
    },
    { calls: 0, preconnect: () => undefined },
  );
  return base as unknown as typeof fetch & { calls: number };
}

export const sseReply = (text: string) => () => new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });
export const jsonReply = (body: Json) => () => new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

export function completion(content: string, extra: Json = {}): Json {
  return { id: "c1", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [{ index: 0, message: { role: "assistant", content, ...extra }, finish_reason: "stop" }] };
}

export interface Assembled {
  content: string;
  calls: { name?: string; arguments: string }[];
  finish: string | null;
  done: boolean;
}

/** What an OpenAI client rebuilds from a streamed reply. */
export function assemble(text: string): Assembled {
  const out: Assembled = { content: "", calls: [], finish: null, done: false };
  const slots = new Map<number, { name?: string; arguments: string }>();
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trim())
      .join("\n");
    if (data === "") continue;
    if (data === "[DONE]") {
      out.done = true;
      continue;
    }
    const choice = ((JSON.parse(data) as Json).choices as Json[])[0];
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Json;
    if (typeof delta.content === "string") out.content += delta.content;
    for (const call of (delta.tool_calls ?? []) as Json[]) {
      const fn = (call.function ?? {}) as Json;
      let slot = slots.get(call.index as number);
      if (!slot) {
        slot = { arguments: "" };
        slots.set(call.index as number, slot);
        out.calls.push(slot);
      }
      if (fn.name) slot.name = fn.name as string;
      slot.arguments += (fn.arguments as string | undefined) ?? "";
    }
    if (choice.finish_reason != null) out.finish = choice.finish_reason as string;
  }
  return out;
}

/** One request through repairFetch with the real engine; the reply is streamed unless `json` is given. */
export async function throughFetch(
  body: Json,
  reply: { sse?: string; json?: Json },
  options: AdapterOptions = {},
  deps: AdapterDeps = {},
): Promise<{ out: Assembled; json?: Json; results: AdapterResult[] }> {
  const results: AdapterResult[] = [];
  const base = fakeBase(reply.json ? jsonReply(reply.json) : sseReply(reply.sse ?? sseText([])));
  const repaired = repairFetch({ ...options, onResult: (r) => results.push(r) }, base, deps);
  const response = await repaired(URL_CHAT, chatInit({ ...body, stream: !reply.json }));
  const text = await response.text();
  if (!reply.json) return { out: assemble(text), results };
  const json = JSON.parse(text) as Json;
  const message = ((json.choices as Json[])[0]!.message ?? {}) as Json;
  const calls = ((message.tool_calls ?? []) as Json[]).map((c) => ({ name: (c.function as Json).name as string, arguments: (c.function as Json).arguments as string }));
  return { out: { content: (message.content as string | null) ?? "", calls, finish: (json.choices as Json[])[0]!.finish_reason as string, done: true }, json, results };
}

// ---------------------------------------------------------------- middleware

type Part = LanguageModelV3StreamPart;

export function sdkTools(tools: readonly ToolSpec[] = fixtureTools): LanguageModelV3FunctionTool[] {
  return tools.map((t) => ({ type: "function", name: t.name, inputSchema: (t.parameters ?? { type: "object" }) as LanguageModelV3FunctionTool["inputSchema"] }));
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

export function textStream(text: string, size = 7, before: Part[] = []): Part[] {
  return [
    { type: "stream-start", warnings: [] },
    ...before,
    { type: "text-start", id: "t" },
    ...deltas(text, size).map((delta): Part => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
  ];
}

export interface SdkRun {
  text: string;
  calls: { toolName: string; input: string }[];
  results: AdapterResult[];
}

/** One streamed call through repairMiddleware with the real engine. */
export async function throughMiddleware(
  prompt: LanguageModelV3Prompt,
  parts: Part[],
  options: MiddlewareOptions = {},
  extra: Partial<LanguageModelV3CallOptions> = {},
): Promise<SdkRun> {
  const results: AdapterResult[] = [];
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({ ...options, onResult: (r) => results.push(r) }) });
  const { stream } = await model.doStream({ prompt, tools: sdkTools(), ...extra });
  const out = await convertReadableStreamToArray(stream);
  return {
    text: out.map((p) => (p.type === "text-delta" ? p.delta : "")).join(""),
    calls: out.flatMap((p) => (p.type === "tool-call" ? [{ toolName: p.toolName, input: p.input }] : [])),
    results,
  };
}

/** The same through doGenerate: one text part. */
export async function generateThroughMiddleware(prompt: LanguageModelV3Prompt, text: string, options: MiddlewareOptions = {}): Promise<SdkRun> {
  const results: AdapterResult[] = [];
  const mock = new MockLanguageModelV3({
    doGenerate: async () => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
  });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({ ...options, onResult: (r) => results.push(r) }) });
  const result = await model.doGenerate({ prompt, tools: sdkTools() });
  return {
    text: result.content.map((p) => (p.type === "text" ? p.text : "")).join(""),
    calls: result.content.flatMap((p) => (p.type === "tool-call" ? [{ toolName: p.toolName, input: p.input }] : [])),
    results,
  };
}
