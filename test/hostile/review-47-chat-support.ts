// Review 47 (hostile, tests only): shared by review-47-chat-*.test.ts. A base fetch answering a
// chat-completions request with a given body, the real repairFetch (real engine) in front of it,
// and the AI SDK's own chat providers (@ai-sdk/openai-compatible as OpenCode uses it for DeepSeek,
// @ai-sdk/openai `.chat()`) reading what comes out: what the client parsed is what the tests check.
// Markup is Hermes `<tool_call>` JSON or DSML built by test/golden/notation.ts, so no DSML marker
// bytes are written here.
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { type Json, byteByByte, chunkedFetch, dataEvents, encode, seededCuts } from "../adapters/wire-support.ts";

export type { Json };
export { dataEvents };

export const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
export const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
export const CHAT_URL = "http://model.test/v1/chat/completions";
export const READ = { type: "function", function: { name: "read", parameters: SCHEMA } };
export const ENVELOPE = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };

/** A chunk of choice 0 with this delta (and finish_reason), in the usual envelope. */
export function chunk(delta: Json, finish: string | null = null, extra: Json = {}): Json {
  return { ...ENVELOPE, choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}

/** Content deltas of `size` characters, then a finish chunk. */
export function contentChunks(text: string, size = 7, finish = "stop"): Json[] {
  const out: Json[] = [chunk({ role: "assistant", content: "" })];
  for (let at = 0; at < text.length; at += size) out.push(chunk({ content: text.slice(at, at + size) }));
  out.push(chunk({}, finish));
  return out;
}

/** `data: <json>` events, then `data: [DONE]`. */
export function chatSse(chunks: (Json | string)[], eol = "\n", done = true): string {
  const lines = chunks.map((c) => (typeof c === "string" ? c : `data: ${JSON.stringify(c)}${eol}${eol}`));
  return lines.join("") + (done ? `data: [DONE]${eol}${eol}` : "");
}

/** A base fetch answering every request with `body` as `type`, recording the request bodies. */
export function answering(body: string, type: string) {
  const seen: Json[] = [];
  const fn = (async (_url: unknown, init?: RequestInit) => {
    if (typeof init?.body === "string") seen.push(JSON.parse(init.body));
    return new Response(body, { headers: { "content-type": type } });
  }) as unknown as typeof fetch;
  return Object.assign(fn, { seen });
}

/** The repaired answer's text, as the client's fetch gets it. */
export async function rawReply(request: Json, body: string, type = "text/event-stream"): Promise<{ text: string; results: AdapterResult[] }> {
  const results: AdapterResult[] = [];
  const fix = repairFetch({ onResult: (result) => void results.push(result) }, answering(body, type));
  const res = await fix(CHAT_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return { text: await res.text(), results };
}

export const SDK_TOOLS = [{ type: "function", name: "read", inputSchema: SCHEMA }];
const PROMPT = [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }];

export interface ClientView {
  parts: Json[];
  calls: { name: string; input: string }[];
  text: string;
  reasoning: string;
  finish: Json | undefined;
  errorAt: number;
}

function view(all: Json[]): ClientView {
  const parts = all.filter((p) => !["stream-start", "response-metadata", "raw"].includes(p.type));
  return {
    parts,
    calls: parts.filter((p) => p.type === "tool-call").map((p) => ({ name: p.toolName, input: p.input })),
    text: parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join(""),
    reasoning: parts.filter((p) => p.type === "reasoning-delta").map((p) => p.delta).join(""),
    finish: parts.find((p) => p.type === "finish"),
    errorAt: parts.findIndex((p) => p.type === "error"),
  };
}

async function drain(stream: ReadableStream<unknown>): Promise<Json[]> {
  const parts: Json[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value as Json);
  }
}

export type Provider = "compatible" | "openai";
export const PROVIDERS: Provider[] = ["compatible", "openai"];

function model(provider: Provider, fetch: typeof globalThis.fetch) {
  if (provider === "compatible") return createOpenAICompatible({ name: "deepseek", baseURL: "http://model.test/v1", apiKey: "k", fetch, includeUsage: true }).chatModel("deepseek-chat");
  return createOpenAI({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).chat("gpt-x");
}

/** The provider streaming the repaired SSE `body` (a string: sent as it is; byte chunks: sent in those). `extra`: more call options (tools, toolChoice). */
export async function chatClient(provider: Provider, body: string | Uint8Array[], extra: Json = {}): Promise<ClientView & { seen: Json[] }> {
  const base = typeof body === "string" ? answering(body, "text/event-stream") : chunkedFetch(body);
  const { stream } = await model(provider, repairFetch({}, base)).doStream({ prompt: PROMPT, tools: SDK_TOOLS, ...extra } as never);
  const seen = "seen" in base ? (base.seen as unknown[]).map((s) => (typeof s === "object" && s && "init" in s ? JSON.parse(String((s as Json).init?.body)) : s)) : [];
  return { ...view(await drain(stream as ReadableStream<unknown>)), seen: seen as Json[] };
}

/** What a client keeps, ids aside (recovered call ids are fresh on every run). */
export function kept(v: ClientView): Json {
  return { calls: v.calls, text: v.text, reasoning: v.reasoning, finish: v.finish?.finishReason, usage: v.finish?.usage, parts: v.parts.map((p) => p.type) };
}

/** The client's view of `body` whole, byte by byte and at seeded cuts, ids aside. */
export async function everySplitView(provider: Provider, body: string, extra: Json = {}, seeds = [1, 2, 3, 4, 5]): Promise<Json[]> {
  const bytes = encode(body);
  const runs = [kept(await chatClient(provider, body, extra)), kept(await chatClient(provider, byteByByte(bytes), extra))];
  for (const seed of seeds) runs.push(kept(await chatClient(provider, seededCuts(bytes, seed), extra)));
  return runs;
}

/** The provider reading the repaired JSON reply `body`. */
export async function chatGenerate(provider: Provider, body: Json | string, extra: Json = {}): Promise<ClientView & { content: Json[]; finishReason: unknown }> {
  const base = answering(typeof body === "string" ? body : JSON.stringify(body), "application/json");
  const result = await model(provider, repairFetch({}, base)).doGenerate({ prompt: PROMPT, tools: SDK_TOOLS, ...extra } as never);
  const content = result.content as Json[];
  const v = view(content.map((c) => (c.type === "text" ? { type: "text-delta", delta: c.text } : c.type === "reasoning" ? { type: "reasoning-delta", delta: c.text } : c)));
  return { ...v, content, finishReason: result.finishReason };
}

/** A chat.completion JSON reply with this message. */
export function completion(message: Json, finish = "stop", extra: Json = {}): Json {
  return { id: "chatcmpl-1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, ...extra };
}
