// Review 48 (hostile, tests only): shared by review-48-wires-*.test.ts. The real repairFetch in
// front of a base fetch answering with given bytes (whole or in chunks), read by @ai-sdk/anthropic
// and @ai-sdk/openai `.responses()`; plus checkers of the raw repaired event sequence (block
// indices, output_index, sequence_number, response.completed output). No DSML marker bytes here.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { type Json, byteByByte, chunkedFetch, dataEvents, encode, namedSse, seededCuts } from "../adapters/wire-support.ts";

export type { Json };
export { dataEvents, namedSse, encode };

export const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
export const WRITE_SCHEMA = { type: "object", properties: { path: { type: "string" }, text: { type: "string" } }, required: ["path", "text"] };
export const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
export const HERMES_WRITE = '<tool_call>{"name":"write","arguments":{"path":"x.sh","text":"rm -rf ~"}}</tool_call>';
export const MESSAGES_URL = "http://model.test/v1/messages";
export const RESPONSES_URL = "http://model.test/v1/responses";
export const SDK_TOOLS = [{ type: "function", name: "read", inputSchema: SCHEMA }];
export const SDK_TWO_TOOLS = [...SDK_TOOLS, { type: "function", name: "write", inputSchema: WRITE_SCHEMA }];
const PROMPT = [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }];

/** A base fetch answering with `body` (a string, or byte chunks), recording the request bodies. */
function base(body: string | Uint8Array[], type: string) {
  const seen: Json[] = [];
  const inner = typeof body === "string" ? undefined : chunkedFetch(body, { "content-type": type });
  const fn = (async (url: unknown, init?: RequestInit) => {
    if (typeof init?.body === "string") seen.push(JSON.parse(init.body));
    if (inner) return inner(url as string, init);
    return new Response(body as string, { headers: { "content-type": type } });
  }) as unknown as typeof fetch;
  return Object.assign(fn, { seen });
}

/** The repaired answer's text and reports, for a raw request body. */
export async function rawReply(url: string, request: Json, body: string, type = "text/event-stream"): Promise<{ text: string; results: AdapterResult[] }> {
  const results: AdapterResult[] = [];
  const fix = repairFetch({ onResult: (result) => void results.push(result) }, base(body, type));
  const res = await fix(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return { text: await res.text(), results };
}

export interface ClientView {
  parts: Json[];
  calls: { name: string; input: string }[];
  text: string;
  reasoning: string;
  finish: unknown;
  errorAt: number;
  seen: Json[];
}

function view(all: Json[], seen: Json[]): ClientView {
  const parts = all.filter((p) => !["stream-start", "response-metadata", "raw"].includes(p.type));
  const finish = parts.find((p) => p.type === "finish");
  return {
    parts,
    calls: parts.filter((p) => p.type === "tool-call").map((p) => ({ name: p.toolName, input: p.input })),
    text: parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join(""),
    reasoning: parts.filter((p) => p.type === "reasoning-delta").map((p) => p.delta).join(""),
    finish: finish ? (typeof finish.finishReason === "object" ? finish.finishReason.unified : finish.finishReason) : undefined,
    errorAt: parts.findIndex((p) => p.type === "error"),
    seen,
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

export type Api = "anthropic" | "responses";

function model(api: Api, fetch: typeof globalThis.fetch) {
  if (api === "anthropic") return createAnthropic({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).messages("claude-x");
  return createOpenAI({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).responses("gpt-x");
}

/** The provider streaming the repaired SSE `body`. `extra`: more call options (tools, toolChoice, providerOptions). */
export async function client(api: Api, body: string | Uint8Array[], extra: Json = {}): Promise<ClientView> {
  const b = base(body, "text/event-stream");
  const { stream } = await model(api, repairFetch({}, b)).doStream({ prompt: PROMPT, tools: SDK_TOOLS, ...extra } as never);
  return view(await drain(stream as ReadableStream<unknown>), b.seen);
}

/** The provider reading the repaired JSON reply. */
export async function generate(api: Api, body: Json | string, extra: Json = {}): Promise<ClientView & { content: Json[] }> {
  const b = base(typeof body === "string" ? body : JSON.stringify(body), "application/json");
  const result = await model(api, repairFetch({}, b)).doGenerate({ prompt: PROMPT, tools: SDK_TOOLS, ...extra } as never);
  const content = result.content as Json[];
  const v = view(
    [...content.map((c) => (c.type === "text" ? { type: "text-delta", delta: c.text } : c.type === "reasoning" ? { type: "reasoning-delta", delta: c.text } : c)), { type: "finish", finishReason: result.finishReason }],
    b.seen,
  );
  return { ...v, content };
}

/** What a client keeps, ids aside. */
export function kept(v: ClientView): Json {
  return { calls: v.calls, text: v.text, reasoning: v.reasoning, finish: v.finish, parts: v.parts.map((p) => p.type) };
}

/** The client's view of `body` whole, byte by byte and at seeded cuts, ids aside. */
export async function everySplitView(api: Api, body: string, extra: Json = {}, seeds = [1, 2, 3, 4, 5, 6, 7, 8]): Promise<Json[]> {
  const bytes = encode(body);
  const runs = [kept(await client(api, body, extra)), kept(await client(api, byteByByte(bytes), extra))];
  for (const seed of seeds) runs.push(kept(await client(api, seededCuts(bytes, seed, 48), extra)));
  return runs;
}

// ---------------------------------------------------------------- Anthropic

export function messageStart(): Json {
  return { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
}
export function textBlock(index: number, deltas: string[], start: Json = {}): Json[] {
  return [
    { type: "content_block_start", index, content_block: { type: "text", text: "", ...start } },
    ...deltas.map((text) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } })),
    { type: "content_block_stop", index },
  ];
}
export function thinkingBlock(index: number, deltas: string[], signature = "sig"): Json[] {
  return [
    { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } },
    ...deltas.map((thinking) => ({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } })),
    { type: "content_block_delta", index, delta: { type: "signature_delta", signature } },
    { type: "content_block_stop", index },
  ];
}
export function toolUseBlock(index: number, id: string, input: Json, name = "read"): Json[] {
  return [
    { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } },
    { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } },
    { type: "content_block_stop", index },
  ];
}
export function messageEnd(stop = "end_turn", usage: Json = { output_tokens: 9 }): Json[] {
  return [{ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage }, { type: "message_stop" }];
}
export function messagesRequest(extra: Json = {}): Json {
  return { model: "claude-x", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }], ...extra };
}

/**
 * Problems in a repaired Anthropic event sequence, as a client reads it: block indices 0, 1, 2…
 * each started once, one block open at a time, deltas and stops only for the open block, every
 * block stopped, message_delta and message_stop after every block.
 */
export function anthropicProblems(text: string): string[] {
  const problems: string[] = [];
  let next = 0;
  let open: number | undefined;
  for (const e of dataEvents(text)) {
    if (e.type === "content_block_start") {
      if (open !== undefined) problems.push(`start ${e.index} while ${open} open`);
      if (e.index !== next) problems.push(`start ${e.index}, expected ${next}`);
      next = e.index + 1;
      open = e.index;
    } else if (e.type === "content_block_delta") {
      if (e.index !== open) problems.push(`delta for ${e.index}, open ${open}`);
    } else if (e.type === "content_block_stop") {
      if (e.index !== open) problems.push(`stop for ${e.index}, open ${open}`);
      open = undefined;
    } else if (e.type === "message_delta" || e.type === "message_stop") {
      if (open !== undefined) problems.push(`${e.type} while ${open} open`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------- Responses

export function message(id: string, ...texts: string[]): Json {
  return { id, type: "message", status: "completed", role: "assistant", content: texts.map((text) => ({ type: "output_text", text, annotations: [] })) };
}
export function functionCall(id: string, args: Json, name = "read"): Json {
  return { id, type: "function_call", status: "completed", call_id: `call_${id}`, name, arguments: JSON.stringify(args) };
}
export function responseObject(status: string, output: Json[], extra: Json = {}): Json {
  return { id: "resp_1", object: "response", created_at: 1, status, model: "m", output, ...extra };
}

/** The events a Responses server streams for these output items (text parts in deltas of `size` characters). */
export function responsesEvents(output: Json[], size = 1000, end: Json = { type: "response.completed", response: responseObject("completed", output) }): Json[] {
  const events: Json[] = [{ type: "response.created", response: responseObject("in_progress", []) }];
  output.forEach((item, index) => {
    if (item.type === "message") {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } });
      (item.content as Json[]).forEach((part, content) => {
        const at = { item_id: item.id, output_index: index, content_index: content };
        const key = part.type === "refusal" ? "refusal" : "text";
        events.push({ type: "response.content_part.added", ...at, part: { ...part, [key]: "" } });
        const whole = part[key] as string;
        for (let i = 0; i < whole.length; i += size) {
          events.push(part.type === "refusal" ? { type: "response.refusal.delta", ...at, delta: whole.slice(i, i + size) } : { type: "response.output_text.delta", ...at, delta: whole.slice(i, i + size), logprobs: [] });
        }
        events.push(part.type === "refusal" ? { type: "response.refusal.done", ...at, refusal: whole } : { type: "response.output_text.done", ...at, text: whole, logprobs: [] });
        events.push({ type: "response.content_part.done", ...at, part });
      });
    } else if (item.type === "reasoning") {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...item, summary: [] } });
      (item.summary as Json[]).forEach((part, summary_index) => {
        const at = { item_id: item.id, output_index: index, summary_index };
        events.push({ type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } });
        events.push({ type: "response.reasoning_summary_text.delta", ...at, delta: part.text });
        events.push({ type: "response.reasoning_summary_text.done", ...at, text: part.text });
        events.push({ type: "response.reasoning_summary_part.done", ...at, part });
      });
    } else {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", ...(item.type === "function_call" ? { arguments: "" } : {}) } });
      if (item.type === "function_call") {
        events.push({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: index, delta: item.arguments });
        events.push({ type: "response.function_call_arguments.done", item_id: item.id, output_index: index, arguments: item.arguments });
      }
    }
    events.push({ type: "response.output_item.done", output_index: index, item });
  });
  events.push(end);
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}
export function responsesRequest(extra: Json = {}): Json {
  return { model: "gpt-x", stream: true, input: [{ role: "user", content: "read a.ts" }], tools: [{ type: "function", name: "read", parameters: SCHEMA }], ...extra };
}

/**
 * Problems in a repaired Responses event sequence: sequence_number 0, 1, 2…; items added at
 * output_index 0, 1, 2… one at a time, each done once with the same id; events of an item only
 * while it is open; the final response's output lists the done items, in order, same ids and types.
 */
export function responsesProblems(text: string): string[] {
  const problems: string[] = [];
  const events = dataEvents(text);
  let next = 0;
  let open: { index: number; id: unknown } | undefined;
  const done: Json[] = [];
  events.forEach((e, at) => {
    if (typeof e.sequence_number === "number" && e.sequence_number !== at) problems.push(`event ${at} (${e.type}) has sequence_number ${e.sequence_number}`);
    if (e.type === "response.output_item.added") {
      if (open) problems.push(`item ${e.output_index} added while ${open.index} open`);
      if (e.output_index !== next) problems.push(`item added at ${e.output_index}, expected ${next}`);
      next = e.output_index + 1;
      open = { index: e.output_index, id: e.item?.id };
    } else if (e.type === "response.output_item.done") {
      if (!open || open.index !== e.output_index) problems.push(`item done at ${e.output_index}, open ${open?.index}`);
      else if (open.id !== e.item?.id) problems.push(`item done at ${e.output_index} with id ${e.item?.id}, added ${open.id}`);
      done.push(e.item);
      open = undefined;
    } else if (typeof e.output_index === "number") {
      if (!open || open.index !== e.output_index) problems.push(`${e.type} at ${e.output_index}, open ${open?.index}`);
      else if (e.item_id !== undefined && e.item_id !== open.id) problems.push(`${e.type} item_id ${e.item_id}, open ${open.id}`);
    } else if (e.type === "response.completed" || e.type === "response.incomplete") {
      const output = (e.response?.output ?? []) as Json[];
      const a = output.map((i) => `${i.type}:${i.id}`).join(",");
      const b = done.map((i) => `${i.type}:${i.id}`).join(",");
      if (a !== b) problems.push(`${e.type} lists ${a}, streamed ${b}`);
    }
  });
  return problems;
}
