// Review 46 (hostile, tests only): shared by review-46-wires-*.test.ts. A base fetch that answers
// with a given body, the real repairFetch (real engine) in front of it, and the AI SDK's own
// Anthropic and OpenAI Responses providers reading what comes out: what the client parsed is what
// the tests check. Markup is Hermes `<tool_call>` JSON or DSML built by test/golden/notation.ts, so
// no DSML marker bytes are written here.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { type Json, dataEvents, namedSse } from "../adapters/wire-support.ts";

export type { Json };
export { dataEvents, namedSse };

export const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
export const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
/** The same call with its closer never written. */
export const UNCLOSED = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}';

export const MESSAGES_URL = "http://model.test/v1/messages";
export const RESPONSES_URL = "http://model.test/v1/responses";

/** A base fetch answering every request with `body` as `type`, recording the request bodies. */
export function answering(body: string, type: string) {
  const seen: Json[] = [];
  const fn = (async (_url: unknown, init?: RequestInit) => {
    seen.push(JSON.parse(String(init?.body)));
    return new Response(body, { headers: { "content-type": type } });
  }) as unknown as typeof fetch;
  return Object.assign(fn, { seen });
}

/** The repaired answer's text, as the client's fetch gets it. */
export async function rawReply(url: string, request: Json, body: string, type: string): Promise<{ text: string; results: AdapterResult[] }> {
  const results: AdapterResult[] = [];
  const fix = repairFetch({ onResult: (result) => void results.push(result) }, answering(body, type));
  const res = await fix(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return { text: await res.text(), results };
}

export const SDK_TOOLS = [{ type: "function", name: "read", inputSchema: SCHEMA }];
const PROMPT = [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }];

export interface ClientView {
  /** Every stream part the provider reported, but stream-start, response-metadata and raw. */
  parts: Json[];
  calls: { name: string; input: string }[];
  text: string;
  /** Index in `parts` of the first error part, -1 without one. */
  errorAt: number;
}

function view(all: Json[]): ClientView {
  const parts = all.filter((p) => !["stream-start", "response-metadata", "raw"].includes(p.type));
  return {
    parts,
    calls: parts.filter((p) => p.type === "tool-call").map((p) => ({ name: p.toolName, input: p.input })),
    text: parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join(""),
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

/** @ai-sdk/anthropic streaming the repaired SSE of `events`. `extra`: more call options (providerOptions, toolChoice). */
export async function anthropicClient(events: Json[], extra: Json = {}): Promise<ClientView> {
  const base = answering(namedSse(events), "text/event-stream");
  const model = createAnthropic({ baseURL: "http://model.test/v1", apiKey: "k", fetch: repairFetch({}, base) }).messages("claude-x");
  const { stream } = await model.doStream({ prompt: PROMPT, tools: SDK_TOOLS, ...extra } as never);
  return view(await drain(stream as ReadableStream<unknown>));
}

/** @ai-sdk/anthropic reading the repaired JSON reply `body`. */
export async function anthropicGenerate(body: Json, extra: Json = {}): Promise<ClientView & { content: Json[] }> {
  const base = answering(JSON.stringify(body), "application/json");
  const model = createAnthropic({ baseURL: "http://model.test/v1", apiKey: "k", fetch: repairFetch({}, base) }).messages("claude-x");
  const result = await model.doGenerate({ prompt: PROMPT, tools: SDK_TOOLS, ...extra } as never);
  const content = result.content as Json[];
  return { ...view(content.map((c) => (c.type === "text" ? { type: "text-delta", delta: c.text } : c))), content };
}

/** @ai-sdk/openai `.responses()` streaming the repaired SSE of `events`. */
export async function responsesClient(events: Json[], extra: Json = {}): Promise<ClientView> {
  const base = answering(namedSse(events), "text/event-stream");
  const model = createOpenAI({ baseURL: "http://model.test/v1", apiKey: "k", fetch: repairFetch({}, base) }).responses("gpt-x");
  const { stream } = await model.doStream({ prompt: PROMPT, tools: SDK_TOOLS, ...extra } as never);
  return view(await drain(stream as ReadableStream<unknown>));
}

// ---------------------------------------------------------------- Anthropic events

export function messageStart(): Json {
  return { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
}

export function textBlock(index: number, deltas: string[]): Json[] {
  return [
    { type: "content_block_start", index, content_block: { type: "text", text: "" } },
    ...deltas.map((text) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } })),
    { type: "content_block_stop", index },
  ];
}

export function toolUseBlock(index: number, id: string, input: Json): Json[] {
  return [
    { type: "content_block_start", index, content_block: { type: "tool_use", id, name: "read", input: {} } },
    { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } },
    { type: "content_block_stop", index },
  ];
}

export function messageEnd(stop = "end_turn"): Json[] {
  return [{ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" }];
}

export const OVERLOADED = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };

// ---------------------------------------------------------------- Responses events

export function message(id: string, ...texts: string[]): Json {
  return { id, type: "message", status: "completed", role: "assistant", content: texts.map((text) => ({ type: "output_text", text, annotations: [] })) };
}

export function functionCall(id: string, args: Json): Json {
  return { id, type: "function_call", status: "completed", call_id: `call_${id}`, name: "read", arguments: JSON.stringify(args) };
}

/** The events a Responses server streams for these output items (message text in one delta per part). */
export function responsesEvents(output: Json[]): Json[] {
  const response = (status: string, out: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "m", output: out });
  const events: Json[] = [{ type: "response.created", response: response("in_progress", []) }];
  output.forEach((item, index) => {
    if (item.type === "message") {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } });
      (item.content as Json[]).forEach((part, content) => {
        const at = { item_id: item.id, output_index: index, content_index: content };
        events.push({ type: "response.content_part.added", ...at, part: { ...part, text: "" } });
        events.push({ type: "response.output_text.delta", ...at, delta: part.text, logprobs: [] });
        events.push({ type: "response.output_text.done", ...at, text: part.text, logprobs: [] });
        events.push({ type: "response.content_part.done", ...at, part });
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
  events.push({ type: "response.completed", response: response("completed", output) });
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}
