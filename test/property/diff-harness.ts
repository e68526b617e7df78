/**
 * Differential harness (review): one model reply and one request, run through every path that
 * repairs it (the engine whole, char by char and at seeded splits; repairFetch on chat, Anthropic
 * Messages and Responses, as SSE and as JSON; the AI SDK middleware streamed and generated), each
 * reduced to what a client sees: the recovered calls, the visible text and the nudge.
 * Stream framing is checked on the way (Anthropic block indices, Responses event order).
 */
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineEvent } from "../../src/engine/types.ts";
import { givenFromChatBody, requestEchoGuard } from "../../src/echo/from-request.ts";
import type { ToolSpec } from "../../src/parse/types.ts";
import { fixtureTools } from "../golden/tools.ts";
import { escaped } from "../golden/notation.ts";
import { randomCuts } from "../support/run-engine.ts";
import { anthropicShown, middlewareShown } from "../support/anthropic-blank.ts";

export type Json = Record<string, any>;

export interface Scenario {
  /** The reply's content text. */
  text: string;
  /** Reasoning text sent before the content (chat reasoning_content, Anthropic thinking, Responses reasoning, SDK reasoning). */
  reasoning?: string;
  choice?: "auto" | "none" | "required" | { name: string };
  parallelOff?: boolean;
  /** A user message the model was given (echo guard). */
  given?: string;
  /** A native tool call in the reply, before the text. */
  nativeBefore?: boolean;
  tools?: readonly ToolSpec[];
}

export interface Outcome {
  calls: { tool: string; input: unknown }[];
  text: string;
  nudge: string | null;
}

const NATIVE_INPUT = { pattern: "NATIVE_CALL" };
const dropNative = (calls: Outcome["calls"]) => calls.filter((c) => JSON.stringify(c.input) !== JSON.stringify(NATIVE_INPUT));

function toolsOf(s: Scenario) {
  return s.tools ?? fixtureTools;
}

function lastNudge(results: AdapterResult[]): string | null {
  // One result per response.
  if (results.length === 0) return null;
  return results[results.length - 1]!.summary.nudge;
}

// ---------------------------------------------------------------- reference: the engine as the adapters build it

function offered(s: Scenario): ToolSpec[] {
  const tools = toolsOf(s);
  if (s.choice === "none") return [];
  if (typeof s.choice === "object") return tools.filter((t) => t.name === (s.choice as { name: string }).name);
  return [...tools];
}

export function chatBody(s: Scenario, stream: boolean): Json {
  const body: Json = {
    model: "deepseek-chat",
    stream,
    messages: [{ role: "system", content: "You are helpful." }, { role: "user", content: s.given ?? "hi" }],
    tools: toolsOf(s).map((t) => ({ type: "function", function: { name: t.name, description: t.name, parameters: t.parameters } })),
  };
  if (s.choice !== undefined) body.tool_choice = typeof s.choice === "object" ? { type: "function", function: { name: s.choice.name } } : s.choice;
  if (s.parallelOff) body.parallel_tool_calls = false;
  return body;
}

/** Feeds `s.text` cut at `cuts` into an engine built the way the fetch adapter builds it (chat request). */
export function engineRun(s: Scenario, cuts: readonly number[]): Outcome {
  const isEchoed = requestEchoGuard({}, () => givenFromChatBody(chatBody(s, true)));
  const engine = createRepairEngine({ tools: offered(s), idPrefix: "call_", ...(isEchoed ? { isEchoed } : {}), ...(s.parallelOff ? { maxCalls: 1 } : {}) });
  if (s.nativeBefore) engine.noteNativeToolCall();
  const out: EngineEvent[] = [];
  let prev = 0;
  for (const cut of [...cuts, s.text.length]) {
    out.push(...engine.feed(s.text.slice(prev, cut)));
    prev = cut;
  }
  out.push(...engine.flush());
  return {
    calls: out.flatMap((e) => (e.type === "call" ? [{ tool: e.call.tool, input: e.call.input }] : [])),
    text: out.map((e) => (e.type === "text" ? e.text : "")).join(""),
    nudge: engine.summary().nudge,
  };
}

/** As engineRun, one engine with endSpan() after each part but the last (how the Anthropic wire reads text blocks with other blocks between, and the Responses wire its parts). */
export function spannedEngineRun(s: Scenario, parts: readonly string[]): Outcome {
  const { blocks, nudge } = spannedEvents(s, parts);
  const out = blocks.flat();
  return {
    calls: out.flatMap((e) => (e.type === "call" ? [{ tool: e.call.tool, input: e.call.input }] : [])),
    text: out.map((e) => (e.type === "text" ? e.text : "")).join(""),
    nudge,
  };
}

/**
 * spannedEngineRun (engineRun fed whole, for one part) as an Anthropic client sees it: whitespace
 * alone beside a call in a text block is not sent (review 57 A1, test/support/anthropic-blank.ts).
 */
export function anthropicEngineRun(s: Scenario, parts: readonly string[] = [s.text]): Outcome {
  const { blocks } = spannedEvents(s, parts);
  return { ...spannedEngineRun(s, parts), text: anthropicShown(blocks.map((events) => ({ events }))) };
}

/** The reply fed whole as one text part through the AI SDK middleware shows it: whitespace alone beside a call in its part is not sent (fix 57 diff B, middlewareShown). */
export function middlewareEngineRun(s: Scenario): Outcome {
  const { blocks } = spannedEvents(s, [s.text]);
  return { ...spannedEngineRun(s, [s.text]), text: middlewareShown(blocks[0]!) };
}

/** Each part's events (its endSpan, or the flush after the last), and the nudge. */
function spannedEvents(s: Scenario, parts: readonly string[]): { blocks: EngineEvent[][]; nudge: string | null } {
  const isEchoed = requestEchoGuard({}, () => givenFromChatBody(chatBody(s, true)));
  const engine = createRepairEngine({ tools: offered(s), idPrefix: "call_", ...(isEchoed ? { isEchoed } : {}), ...(s.parallelOff ? { maxCalls: 1 } : {}) });
  if (s.nativeBefore) engine.noteNativeToolCall();
  const blocks = parts.map((part, i) => [...engine.feed(part), ...(i < parts.length - 1 ? engine.endSpan!() : engine.flush())]);
  return { blocks, nudge: engine.summary().nudge };
}

// ---------------------------------------------------------------- SSE helpers

const encode = (t: string) => new TextEncoder().encode(t);

function base(body: string | Uint8Array[], type: string): typeof fetch {
  return (async () => {
    const parts = typeof body === "string" ? [encode(body)] : body;
    return new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          for (const p of parts) c.enqueue(p);
          c.close();
        },
      }),
      { status: 200, headers: { "content-type": type } },
    );
  }) as unknown as typeof fetch;
}

function byteCuts(text: string, seed: number): Uint8Array[] {
  const bytes = encode(text);
  const cuts = [0, ...randomCuts(bytes.length, seed, 48), bytes.length];
  return cuts.slice(1).map((end, i) => bytes.subarray(cuts[i]!, end));
}

function deltas(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function frames(raw: string): { event?: string; data: string }[] {
  if (!raw.endsWith("\n\n") && raw.length > 0) throw new Error(`SSE does not end with a blank line: ${JSON.stringify(raw.slice(-40))}`);
  return raw
    .split("\n\n")
    .filter((b) => b !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event:"))?.slice(6).trim();
      const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
      for (const l of lines) if (!/^(event|data|id|retry):|^:/.test(l)) throw new Error(`bad SSE line ${JSON.stringify(l)}`);
      return { event, data };
    });
}

async function through(url: string, body: Json, reply: string | Uint8Array[], type: string): Promise<{ raw: string; nudge: string | null }> {
  const results: AdapterResult[] = [];
  const fetcher = repairFetch({ onResult: (r) => results.push(r), debug: (l) => debugLines.push(l) }, base(reply, type));
  const res = await fetcher(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const raw = await res.text();
  return { raw, nudge: lastNudge(results) };
}

export const debugLines: string[] = [];

// ---------------------------------------------------------------- chat-completions

const CHAT_URL = "http://model.test/v1/chat/completions";
const chunk = (delta: Json, finish: string | null = null) => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: "deepseek-chat", choices: [{ index: 0, delta, finish_reason: finish }] });
const nativeChat = { index: 0, id: "call_native", type: "function", function: { name: "glob", arguments: JSON.stringify(NATIVE_INPUT) } };

export function chatSse(s: Scenario, size: number, reasoningBetween = false): string {
  const events: Json[] = [chunk({ role: "assistant", content: "" })];
  if (s.reasoning) for (const r of deltas(s.reasoning, size)) events.push(chunk({ reasoning_content: r }));
  if (s.nativeBefore) events.push(chunk({ tool_calls: [nativeChat] }));
  for (const c of deltas(s.text, size)) {
    events.push(chunk({ content: c }));
    if (reasoningBetween) events.push(chunk({ reasoning_content: "hmm " }));
  }
  events.push(chunk({}, s.nativeBefore ? "tool_calls" : "stop"));
  return [...events.map((e) => JSON.stringify(e)), "[DONE]"].map((d) => `data: ${d}\n\n`).join("");
}

export async function chatStream(s: Scenario, seed: number, reasoningBetween = false): Promise<Outcome> {
  const { raw, nudge } = await through(CHAT_URL, chatBody(s, true), byteCuts(chatSse(s, 1 + (seed % 9), reasoningBetween), seed), "text/event-stream");
  let text = "";
  const slots = new Map<number, { name: string; args: string }>();
  let done = false;
  for (const f of frames(raw)) {
    if (f.data === "[DONE]") {
      done = true;
      continue;
    }
    if (done) throw new Error("event after [DONE]");
    const choice = JSON.parse(f.data).choices?.[0];
    const delta = choice?.delta ?? {};
    if (typeof delta.content === "string") text += delta.content;
    for (const c of delta.tool_calls ?? []) {
      const slot = slots.get(c.index) ?? { name: "", args: "" };
      slot.name += c.function?.name ?? "";
      slot.args += c.function?.arguments ?? "";
      slots.set(c.index, slot);
    }
  }
  if (!done) throw new Error("chat stream without [DONE]");
  return { text, calls: dropNative([...slots.values()].map((c) => ({ tool: c.name, input: JSON.parse(c.args) }))), nudge };
}

export async function chatJson(s: Scenario): Promise<Outcome> {
  const message: Json = { role: "assistant", content: s.text };
  if (s.reasoning) message.reasoning_content = s.reasoning;
  if (s.nativeBefore) message.tool_calls = [{ id: "call_native", type: "function", function: nativeChat.function }];
  const reply = { id: "c1", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [{ index: 0, message, finish_reason: "stop" }] };
  const { raw, nudge } = await through(CHAT_URL, chatBody(s, false), JSON.stringify(reply), "application/json");
  const m = JSON.parse(raw).choices[0].message;
  return { text: m.content ?? "", calls: dropNative((m.tool_calls ?? []).map((c: Json) => ({ tool: c.function.name, input: JSON.parse(c.function.arguments) }))), nudge };
}

// ---------------------------------------------------------------- Anthropic Messages

const MSG_URL = "http://model.test/v1/messages";

export function anthropicBody(s: Scenario, stream: boolean): Json {
  const body: Json = {
    model: "m",
    max_tokens: 100,
    stream,
    system: "You are helpful.",
    messages: [{ role: "user", content: s.given ?? "hi" }],
    tools: toolsOf(s).map((t) => ({ name: t.name, description: t.name, input_schema: t.parameters ?? { type: "object" } })),
  };
  const choice: Json | undefined =
    s.choice === undefined ? (s.parallelOff ? { type: "auto" } : undefined) : s.choice === "required" ? { type: "any" } : typeof s.choice === "object" ? { type: "tool", name: s.choice.name } : { type: s.choice };
  if (choice && s.parallelOff) choice.disable_parallel_tool_use = true;
  if (choice) body.tool_choice = choice;
  return body;
}

const named = (events: Json[]) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

/** `texts`: the text blocks; a thinking block before the first and between each two when `thinkingBetween`. */
export function anthropicSse(s: Scenario, texts: string[], size: number, thinkingBetween = false): string {
  const events: Json[] = [{ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }];
  let index = 0;
  const thinking = (t: string) => {
    events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } });
    for (const d of deltas(t, size)) events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: d } });
    events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "sig" } });
    events.push({ type: "content_block_stop", index });
    index++;
  };
  if (s.reasoning) thinking(s.reasoning);
  if (s.nativeBefore) {
    events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: "toolu_native", name: "glob", input: {} } });
    events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(NATIVE_INPUT) } });
    events.push({ type: "content_block_stop", index });
    index++;
  }
  texts.forEach((t, i) => {
    if (i > 0 && thinkingBetween) thinking("hmm");
    events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const d of deltas(t, size)) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: d } });
    events.push({ type: "content_block_stop", index });
    index++;
  });
  events.push({ type: "message_delta", delta: { stop_reason: s.nativeBefore ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" });
  return named(events);
}

/** Reads an Anthropic stream strictly: block indices 0,1,2..., start/stop balanced, deltas of the open block only. */
export function readAnthropic(raw: string): { text: string; calls: { tool: string; input: unknown }[]; blocks: string[] } {
  let open: Json | undefined;
  let next = 0;
  let json = "";
  let text = "";
  const calls: { tool: string; input: unknown }[] = [];
  const blocks: string[] = [];
  let stopped = false;
  for (const f of frames(raw)) {
    const e = JSON.parse(f.data);
    if (f.event !== e.type) throw new Error(`event name ${f.event} for ${e.type}`);
    if (stopped) throw new Error(`event after message_stop: ${e.type}`);
    if (e.type === "content_block_start") {
      if (open) throw new Error(`block ${e.index} starts while ${open.index} is open`);
      if (e.index !== next) throw new Error(`block index ${e.index}, expected ${next}`);
      open = { ...e.content_block, index: e.index };
      json = "";
    } else if (e.type === "content_block_delta") {
      if (!open || e.index !== open.index) throw new Error(`delta for block ${e.index}, open ${open?.index}`);
      if (e.delta.type === "text_delta") {
        if (open.type !== "text") throw new Error("text_delta in a non-text block");
        text += e.delta.text;
      } else if (e.delta.type === "input_json_delta") json += e.delta.partial_json;
    } else if (e.type === "content_block_stop") {
      if (!open || e.index !== open.index) throw new Error(`stop for block ${e.index}, open ${open?.index}`);
      blocks.push(open.type);
      if (open.type === "tool_use") calls.push({ tool: open.name, input: JSON.parse(json || "{}") });
      open = undefined;
      next++;
    } else if (e.type === "message_stop") {
      if (open) throw new Error("message_stop with a block open");
      stopped = true;
    }
  }
  if (!stopped) throw new Error("no message_stop");
  return { text, calls, blocks };
}

export async function anthropicStream(s: Scenario, seed: number, texts = [s.text], thinkingBetween = false): Promise<Outcome & { blocks: string[] }> {
  const { raw, nudge } = await through(MSG_URL, anthropicBody(s, true), byteCuts(anthropicSse(s, texts, 1 + (seed % 9), thinkingBetween), seed), "text/event-stream");
  const read = readAnthropic(raw);
  return { text: read.text, calls: dropNative(read.calls), nudge, blocks: read.blocks };
}

export async function anthropicJson(s: Scenario, texts = [s.text], thinkingBetween = false): Promise<Outcome> {
  const content: Json[] = [];
  if (s.reasoning) content.push({ type: "thinking", thinking: s.reasoning, signature: "sig" });
  if (s.nativeBefore) content.push({ type: "tool_use", id: "toolu_native", name: "glob", input: NATIVE_INPUT });
  texts.forEach((t, i) => {
    if (i > 0 && thinkingBetween) content.push({ type: "thinking", thinking: "hmm", signature: "sig" });
    content.push({ type: "text", text: t });
  });
  const reply = { id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  const { raw, nudge } = await through(MSG_URL, anthropicBody(s, false), JSON.stringify(reply), "application/json");
  const body = JSON.parse(raw);
  return {
    text: body.content.filter((b: Json) => b.type === "text").map((b: Json) => b.text).join(""),
    calls: dropNative(body.content.filter((b: Json) => b.type === "tool_use").map((b: Json) => ({ tool: b.name, input: b.input }))),
    nudge,
  };
}

// ---------------------------------------------------------------- Responses

const RESP_URL = "http://model.test/v1/responses";

export function responsesBody(s: Scenario, stream: boolean): Json {
  const body: Json = {
    model: "m",
    stream,
    instructions: "You are helpful.",
    input: [{ role: "user", content: [{ type: "input_text", text: s.given ?? "hi" }] }],
    tools: toolsOf(s).map((t) => ({ type: "function", name: t.name, description: t.name, parameters: t.parameters })),
  };
  if (s.choice !== undefined) body.tool_choice = typeof s.choice === "object" ? { type: "function", name: s.choice.name } : s.choice;
  if (s.parallelOff) body.parallel_tool_calls = false;
  return body;
}

/** `items`: message items, each a list of output_text parts. */
function responsesOutput(s: Scenario, items: string[][]): Json[] {
  const out: Json[] = [];
  if (s.reasoning) out.push({ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: s.reasoning }] });
  if (s.nativeBefore) out.push({ id: "fc_native", type: "function_call", status: "completed", call_id: "call_native", name: "glob", arguments: JSON.stringify(NATIVE_INPUT) });
  items.forEach((parts, i) => out.push({ id: `msg_${i}`, type: "message", status: "completed", role: "assistant", content: parts.map((text) => ({ type: "output_text", text, annotations: [] })) }));
  return out;
}

export function responsesSse(s: Scenario, items: string[][], size: number): string {
  const response = (status: string, output: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "m", output });
  const events: Json[] = [{ type: "response.created", response: response("in_progress", []) }];
  const output = responsesOutput(s, items);
  output.forEach((item, index) => {
    if (item.type === "message") {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } });
      (item.content as Json[]).forEach((part, content) => {
        const at = { item_id: item.id, output_index: index, content_index: content };
        events.push({ type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } });
        for (const d of deltas(part.text, size)) events.push({ type: "response.output_text.delta", ...at, delta: d, logprobs: [] });
        events.push({ type: "response.output_text.done", ...at, text: part.text, logprobs: [] });
        events.push({ type: "response.content_part.done", ...at, part });
      });
      events.push({ type: "response.output_item.done", output_index: index, item });
    } else if (item.type === "function_call") {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", arguments: "" } });
      events.push({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: index, delta: item.arguments });
      events.push({ type: "response.function_call_arguments.done", item_id: item.id, output_index: index, arguments: item.arguments });
      events.push({ type: "response.output_item.done", output_index: index, item });
    } else {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...item, summary: [] } });
      events.push({ type: "response.output_item.done", output_index: index, item });
    }
  });
  events.push({ type: "response.completed", response: response("completed", output) });
  return named(events.map((e, sequence_number) => ({ ...e, sequence_number })));
}

/** Reads a Responses stream strictly: output_index in order, items added before their parts and done after, sequence numbers increasing. */
export function readResponses(raw: string): { text: string; calls: { tool: string; input: unknown }[]; completedText: string; completedCalls: { tool: string; input: unknown }[] } {
  let text = "";
  const calls: { tool: string; input: unknown }[] = [];
  let completed: Json | undefined;
  let seq = -1;
  let nextIndex = 0;
  const openItems = new Map<number, Json>();
  const openParts = new Set<string>();
  for (const f of frames(raw)) {
    const e = JSON.parse(f.data);
    if (f.event !== e.type) throw new Error(`event name ${f.event} for ${e.type}`);
    if (completed) throw new Error(`event after response.completed: ${e.type}`);
    if (typeof e.sequence_number === "number") {
      if (e.sequence_number <= seq) throw new Error(`sequence_number ${e.sequence_number} after ${seq}`);
      seq = e.sequence_number;
    }
    if (e.type === "response.output_item.added") {
      if (e.output_index !== nextIndex) throw new Error(`item added at ${e.output_index}, expected ${nextIndex}`);
      if (openItems.size > 0) throw new Error(`item ${e.output_index} added while ${[...openItems.keys()]} open`);
      openItems.set(e.output_index, e.item);
      nextIndex++;
    } else if (e.type === "response.output_item.done") {
      if (!openItems.has(e.output_index)) throw new Error(`item done at ${e.output_index} not open`);
      openItems.delete(e.output_index);
      if (e.item.type === "function_call") calls.push({ tool: e.item.name, input: JSON.parse(e.item.arguments) });
    } else if (e.type === "response.content_part.added") {
      if (!openItems.has(e.output_index)) throw new Error(`part added in item ${e.output_index} not open`);
      openParts.add(`${e.output_index}/${e.content_index}`);
    } else if (e.type === "response.content_part.done") {
      if (!openParts.delete(`${e.output_index}/${e.content_index}`)) throw new Error(`part done ${e.output_index}/${e.content_index} not open`);
    } else if (e.type === "response.output_text.delta") {
      if (!openParts.has(`${e.output_index}/${e.content_index}`)) throw new Error(`text delta for ${e.output_index}/${e.content_index} not open`);
      text += e.delta;
    } else if (e.type === "response.function_call_arguments.delta" || e.type === "response.function_call_arguments.done") {
      if (!openItems.has(e.output_index)) throw new Error(`arguments for item ${e.output_index} not open`);
    } else if (e.type === "response.completed") completed = e.response;
  }
  if (!completed) throw new Error("no response.completed");
  if (openItems.size > 0 || openParts.size > 0) throw new Error("items or parts left open");
  const out = completed.output as Json[];
  return {
    text,
    calls,
    completedText: out.filter((i) => i.type === "message").flatMap((i) => i.content).map((c: Json) => c.text ?? "").join(""),
    completedCalls: out.filter((i) => i.type === "function_call").map((i) => ({ tool: i.name, input: JSON.parse(i.arguments) })),
  };
}

export async function responsesStream(s: Scenario, seed: number, items: string[][] = [[s.text]]): Promise<Outcome & { completed: Outcome }> {
  const { raw, nudge } = await through(RESP_URL, responsesBody(s, true), byteCuts(responsesSse(s, items, 1 + (seed % 9)), seed), "text/event-stream");
  const read = readResponses(raw);
  return { text: read.text, calls: dropNative(read.calls), nudge, completed: { text: read.completedText, calls: dropNative(read.completedCalls), nudge } };
}

export async function responsesJson(s: Scenario, items: string[][] = [[s.text]]): Promise<Outcome> {
  const reply = { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output: responsesOutput(s, items) };
  const { raw, nudge } = await through(RESP_URL, responsesBody(s, false), JSON.stringify(reply), "application/json");
  const items2 = JSON.parse(raw).output as Json[];
  return {
    text: items2.filter((i) => i.type === "message").flatMap((i) => i.content).map((c: Json) => c.text ?? "").join(""),
    calls: dropNative(items2.filter((i) => i.type === "function_call").map((i) => ({ tool: i.name, input: JSON.parse(i.arguments) }))),
    nudge,
  };
}

// ---------------------------------------------------------------- AI SDK middleware

type Part = LanguageModelV3StreamPart;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

function sdkParams(s: Scenario): Partial<LanguageModelV3CallOptions> {
  const p: Partial<LanguageModelV3CallOptions> = {
    prompt: [{ role: "system", content: "You are helpful." }, { role: "user", content: [{ type: "text", text: s.given ?? "hi" }] }],
    tools: toolsOf(s).map((t) => ({ type: "function", name: t.name, description: t.name, inputSchema: (t.parameters ?? { type: "object" }) as any })),
  };
  if (s.choice !== undefined) p.toolChoice = typeof s.choice === "object" ? { type: "tool", toolName: s.choice.name } : { type: s.choice };
  if (s.parallelOff) p.providerOptions = { openai: { parallelToolCalls: false } };
  return p;
}

export async function middlewareStream(s: Scenario, size: number): Promise<Outcome> {
  const parts: Part[] = [{ type: "stream-start", warnings: [] }];
  if (s.reasoning) {
    parts.push({ type: "reasoning-start", id: "r" });
    for (const d of deltas(s.reasoning, size)) parts.push({ type: "reasoning-delta", id: "r", delta: d });
    parts.push({ type: "reasoning-end", id: "r" });
  }
  if (s.nativeBefore) parts.push({ type: "tool-call", toolCallId: "native", toolName: "glob", input: JSON.stringify(NATIVE_INPUT) });
  parts.push({ type: "text-start", id: "t" });
  for (const d of deltas(s.text, size)) parts.push({ type: "text-delta", id: "t", delta: d });
  parts.push({ type: "text-end", id: "t" }, { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } });
  const results: AdapterResult[] = [];
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({ onResult: (r) => results.push(r) }) });
  const { stream } = await model.doStream(sdkParams(s) as LanguageModelV3CallOptions);
  const out = await convertReadableStreamToArray(stream);
  // text-start/end balance
  const open = new Set<string>();
  for (const p of out) {
    if (p.type === "text-start") {
      if (open.has(p.id)) throw new Error(`text-start ${p.id} twice`);
      open.add(p.id);
    } else if (p.type === "text-delta" && !open.has(p.id)) throw new Error(`text-delta for ${p.id} not open`);
    else if (p.type === "text-end" && !open.delete(p.id)) throw new Error(`text-end for ${p.id} not open`);
  }
  if (open.size > 0) throw new Error("text parts left open");
  return {
    text: out.map((p) => (p.type === "text-delta" ? p.delta : "")).join(""),
    calls: dropNative(out.flatMap((p) => (p.type === "tool-call" ? [{ tool: p.toolName, input: JSON.parse(p.input) }] : []))),
    nudge: lastNudge(results),
  };
}

export async function middlewareGenerate(s: Scenario): Promise<Outcome> {
  const content: any[] = [];
  if (s.reasoning) content.push({ type: "reasoning", text: s.reasoning });
  if (s.nativeBefore) content.push({ type: "tool-call", toolCallId: "native", toolName: "glob", input: JSON.stringify(NATIVE_INPUT) });
  content.push({ type: "text", text: s.text });
  const results: AdapterResult[] = [];
  const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({ onResult: (r) => results.push(r) }) });
  const result = await model.doGenerate(sdkParams(s) as LanguageModelV3CallOptions);
  return {
    text: result.content.map((p) => (p.type === "text" ? p.text : "")).join(""),
    calls: dropNative(result.content.flatMap((p) => (p.type === "tool-call" ? [{ tool: p.toolName, input: JSON.parse(p.input) }] : []))),
    nudge: lastNudge(results),
  };
}

/** Outcomes compared by value, keys in one order. */
export const show = (v: unknown) => escaped(JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x)));
