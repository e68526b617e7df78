// Review 51 (hostile, tests only): shared by review-51-wires-*.test.ts. The real repairFetch in front
// of a base fetch answering with a given body (JSON whole, or SSE in seeded byte cuts), and readers
// that assemble what a client keeps from the raw repaired answer on each wire: the calls (name and
// parsed input), the visible text, and the finish reason / stop_reason / status. No DSML marker bytes.
import { repairFetch } from "../../src/adapters/fetch.ts";
import { type Json, byteByByte, chunkedFetch, dataEvents, encode, namedSse, seededCuts } from "../adapters/wire-support.ts";

export type { Json };
export { namedSse };

export const READ_SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
export const WRITE_SCHEMA = { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] };
export const BASH_SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
export const URLS = { chat: "http://model.test/v1/chat/completions", anthropic: "http://model.test/v1/messages", responses: "http://model.test/v1/responses" } as const;
export type WireName = keyof typeof URLS;

/** A Hermes call of `name` with these arguments. */
export const hermes = (name: string, args: Json) => `<tool_call>{"name":"${name}","arguments":${JSON.stringify(args)}}</tool_call>`;

const SCHEMAS: Record<string, Json> = { read: READ_SCHEMA, write: WRITE_SCHEMA, bash: BASH_SCHEMA };
/** The request's `tools` on `wire`, for these tool names. */
export function toolsFor(wire: WireName, names: readonly string[] = ["read", "write", "bash"]): Json[] {
  return names.map((name) =>
    wire === "chat" ? { type: "function", function: { name, parameters: SCHEMAS[name] } } : wire === "anthropic" ? { name, input_schema: SCHEMAS[name] } : { type: "function", name, parameters: SCHEMAS[name] },
  );
}

/** A request on `wire` with `extra` fields (messages / input given there replace the default). */
export function requestFor(wire: WireName, stream: boolean, extra: Json = {}): Json {
  if (wire === "chat") return { model: "m", stream, messages: [{ role: "user", content: "go" }], tools: toolsFor(wire), ...extra };
  if (wire === "anthropic") return { model: "m", max_tokens: 100, stream, messages: [{ role: "user", content: "go" }], tools: toolsFor(wire), ...extra };
  return { model: "m", stream, input: [{ role: "user", content: "go" }], tools: toolsFor(wire), ...extra };
}

/** The raw repaired answer for `request`, the upstream answering with `body` (string whole, or byte chunks). */
export async function repairedRaw(wire: WireName, request: Json, body: string | Uint8Array[], type: string): Promise<string> {
  const base =
    typeof body === "string"
      ? ((async () => new Response(body, { headers: { "content-type": type } })) as unknown as typeof fetch)
      : chunkedFetch(body, { "content-type": type });
  const fix = repairFetch({}, base);
  const res = await fix(URLS[wire], { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return res.text();
}

export interface Kept {
  calls: { name: string; input: unknown }[];
  text: string;
  finish: unknown;
}

const parsed = (s: unknown) => {
  try {
    return JSON.parse(String(s));
  } catch {
    return { unparsed: s };
  }
};

/** What a client keeps of a repaired JSON answer (chat: choice `choice`). */
export function keptJson(wire: WireName, raw: string, choice = 0): Kept {
  const body = JSON.parse(raw) as Json;
  if (wire === "chat") {
    const c = (body.choices as Json[]).find((x) => x.index === choice)!;
    const calls = ((c.message.tool_calls ?? []) as Json[]).map((t) => ({ name: t.function.name, input: parsed(t.function.arguments) }));
    return { calls, text: c.message.content ?? "", finish: c.finish_reason };
  }
  if (wire === "anthropic") {
    const blocks = body.content as Json[];
    return {
      calls: blocks.filter((b) => b.type === "tool_use").map((b) => ({ name: b.name, input: b.input })),
      text: blocks.filter((b) => b.type === "text").map((b) => b.text).join(""),
      finish: body.stop_reason,
    };
  }
  const out = body.output as Json[];
  return {
    calls: out.filter((i) => i.type === "function_call").map((i) => ({ name: i.name, input: parsed(i.arguments) })),
    text: out.filter((i) => i.type === "message").flatMap((i) => (i.content as Json[]).filter((p) => p.type === "output_text").map((p) => p.text)).join(""),
    finish: body.incomplete_details ? `${body.status}:${body.incomplete_details.reason}` : body.status,
  };
}

/** What a client keeps of a repaired SSE answer (chat: choice `choice`). */
export function keptSse(wire: WireName, raw: string, choice = 0): Kept {
  const events = dataEvents(raw);
  if (wire === "chat") {
    let text = "";
    let finish: unknown = null;
    const calls = new Map<number, { name: string; args: string }>();
    for (const e of events) {
      for (const c of (e.choices ?? []) as Json[]) {
        if (c.index !== choice) continue;
        if (typeof c.delta?.content === "string") text += c.delta.content;
        for (const t of (c.delta?.tool_calls ?? []) as Json[]) {
          const at = calls.get(t.index) ?? { name: "", args: "" };
          if (t.function?.name) at.name += t.function.name;
          if (t.function?.arguments) at.args += t.function.arguments;
          calls.set(t.index, at);
        }
        if (c.finish_reason) finish = c.finish_reason;
      }
    }
    return { calls: [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => ({ name: c.name, input: parsed(c.args) })), text, finish };
  }
  if (wire === "anthropic") {
    const blocks = new Map<number, Json>();
    let finish: unknown;
    for (const e of events) {
      if (e.type === "content_block_start") blocks.set(e.index, { ...e.content_block, json: "" });
      else if (e.type === "content_block_delta") {
        const b = blocks.get(e.index)!;
        if (e.delta.type === "text_delta") b.text += e.delta.text;
        if (e.delta.type === "input_json_delta") b.json += e.delta.partial_json;
      } else if (e.type === "message_delta") finish = e.delta?.stop_reason;
    }
    const list = [...blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
    return {
      calls: list.filter((b) => b.type === "tool_use").map((b) => ({ name: b.name, input: b.json === "" ? b.input : parsed(b.json) })),
      text: list.filter((b) => b.type === "text").map((b) => b.text).join(""),
      finish,
    };
  }
  let text = "";
  const calls: Kept["calls"] = [];
  let finish: unknown;
  for (const e of events) {
    if (e.type === "response.output_text.delta") text += e.delta;
    if (e.type === "response.output_item.done" && e.item?.type === "function_call") calls.push({ name: e.item.name, input: parsed(e.item.arguments) });
    if (["response.completed", "response.incomplete", "response.failed"].includes(e.type)) {
      finish = e.response.incomplete_details ? `${e.response.status}:${e.response.incomplete_details.reason}` : e.response.status;
    }
  }
  return { calls, text, finish };
}

/** The SSE answer kept whole, byte by byte and at seeded cuts: every run. */
export async function keptEverySplit(wire: WireName, request: Json, sse: string, choice = 0, seeds = [1, 2, 3, 4]): Promise<Kept[]> {
  const bytes = encode(sse);
  const type = "text/event-stream";
  const runs = [keptSse(wire, await repairedRaw(wire, request, sse, type), choice), keptSse(wire, await repairedRaw(wire, request, byteByByte(bytes), type), choice)];
  for (const seed of seeds) runs.push(keptSse(wire, await repairedRaw(wire, request, seededCuts(bytes, seed, 40), type), choice));
  return runs;
}

export async function keptOfJson(wire: WireName, request: Json, body: Json, choice = 0): Promise<Kept> {
  return keptJson(wire, await repairedRaw(wire, request, JSON.stringify(body), "application/json"), choice);
}

// ---------------------------------------------------------------- bodies

const CHUNK = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };

/** A chat.completion with these choices' messages ({content, tool_calls, ...}) and finish reasons. */
export function chatJson(choices: { message: Json; finish?: string; extra?: Json }[]): Json {
  return {
    id: "chatcmpl-1", object: "chat.completion", created: 1, model: "m",
    choices: choices.map((c, index) => ({ index, message: { role: "assistant", ...c.message }, finish_reason: c.finish ?? "stop", ...(c.extra ?? {}) })),
  };
}

/** The same choices as chat SSE: content in deltas of `size`, native tool_calls after it, finish. */
export function chatSse(choices: { message: Json; finish?: string }[], size = 5): string {
  const chunks: Json[] = [];
  choices.forEach((c, index) => {
    chunks.push({ ...CHUNK, choices: [{ index, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    const content = typeof c.message.content === "string" ? c.message.content : "";
    for (let at = 0; at < content.length; at += size) chunks.push({ ...CHUNK, choices: [{ index, delta: { content: content.slice(at, at + size) }, finish_reason: null }] });
    ((c.message.tool_calls ?? []) as Json[]).forEach((t, i) => chunks.push({ ...CHUNK, choices: [{ index, delta: { tool_calls: [{ index: i, ...t }] }, finish_reason: null }] }));
  });
  choices.forEach((c, index) => chunks.push({ ...CHUNK, choices: [{ index, delta: {}, finish_reason: c.finish ?? "stop" }] }));
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
}

/** An Anthropic message with these content blocks. */
export function messageJson(content: Json[], stop = "end_turn"): Json {
  return { id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
}

/** The same message streamed: text in deltas of `size`, thinking and tool_use as the API streams them. */
export function messageSse(content: Json[], stop = "end_turn", size = 5): string {
  const events: Json[] = [{ type: "message_start", message: { ...messageJson([], null as never), content: [], stop_reason: null } }];
  content.forEach((b, index) => {
    if (b.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (let at = 0; at < b.text.length; at += size) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: b.text.slice(at, at + size) } });
    } else if (b.type === "thinking") {
      events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
      events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: b.thinking } });
      events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: b.signature } });
    } else if (b.type === "tool_use" || b.type === "server_tool_use") {
      events.push({ type: "content_block_start", index, content_block: { ...b, input: {} } });
      const json = JSON.stringify(b.input);
      if (json !== "{}") events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json } });
    } else events.push({ type: "content_block_start", index, content_block: b });
    events.push({ type: "content_block_stop", index });
  });
  events.push({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" });
  return namedSse(events);
}

export function outputText(text: string): Json {
  return { type: "output_text", text, annotations: [] };
}
export function messageItem(id: string, ...texts: string[]): Json {
  return { id, type: "message", status: "completed", role: "assistant", content: texts.map(outputText) };
}
export function responseJson(output: Json[], status = "completed", extra: Json = {}): Json {
  return { id: "resp_1", object: "response", created_at: 1, status, model: "m", output, ...extra };
}

/** The same response streamed (text parts in deltas of `size`). */
export function responseSse(output: Json[], status = "completed", extra: Json = {}, size = 5): string {
  const events: Json[] = [{ type: "response.created", response: responseJson([], "in_progress") }];
  output.forEach((item, output_index) => {
    if (item.type === "message") {
      events.push({ type: "response.output_item.added", output_index, item: { ...item, status: "in_progress", content: [] } });
      (item.content as Json[]).forEach((part, content_index) => {
        const at = { item_id: item.id, output_index, content_index };
        events.push({ type: "response.content_part.added", ...at, part: { ...part, text: "" } });
        for (let i = 0; i < part.text.length; i += size) events.push({ type: "response.output_text.delta", ...at, delta: part.text.slice(i, i + size) });
        events.push({ type: "response.output_text.done", ...at, text: part.text });
        events.push({ type: "response.content_part.done", ...at, part });
      });
    } else if (item.type === "reasoning") {
      events.push({ type: "response.output_item.added", output_index, item: { ...item, summary: [] } });
    } else {
      events.push({ type: "response.output_item.added", output_index, item: { ...item, status: "in_progress", ...(item.type === "function_call" ? { arguments: "" } : {}) } });
      if (item.type === "function_call") {
        events.push({ type: "response.function_call_arguments.delta", item_id: item.id, output_index, delta: item.arguments });
        events.push({ type: "response.function_call_arguments.done", item_id: item.id, output_index, arguments: item.arguments });
      }
    }
    events.push({ type: "response.output_item.done", output_index, item });
  });
  const end = status === "completed" ? "response.completed" : status === "incomplete" ? "response.incomplete" : "response.failed";
  events.push({ type: end, response: responseJson(output, status, extra) });
  return namedSse(events.map((e, sequence_number) => ({ ...e, sequence_number })));
}
