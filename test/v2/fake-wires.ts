/**
 * One fake upstream for the three wires, answering each request with `reply(wire)` as SSE (body
 * `stream: true`) or JSON. SSE frames on Messages and Responses come from the e2e suite's
 * test/e2e/wire-servers.ts; chat-completions is framed like DeepSeek's API, in 7-character deltas.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicStream, responsesStream } from "../e2e/wire-servers.ts";

export type Wire = "chat" | "messages" | "responses";

export interface Recorded {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface FakeWires {
  baseURL: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export function chatStream(text: string): string {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "deepseek-chat", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: "assistant", content: "" });
  for (let i = 0; i < text.length; i += 7) out += chunk({ content: text.slice(i, i + 7) });
  out += chunk({}, "stop");
  return `${out}data: [DONE]\n\n`;
}

function json(wire: Wire, text: string, model: string): unknown {
  if (wire === "chat") return { id: "c1", object: "chat.completion", created: 1, model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] };
  if (wire === "messages") return { id: "msg_fake", type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 5, output_tokens: 9 } };
  return {
    id: "resp_fake", object: "response", created_at: 1, status: "completed", model,
    output: [{ id: "msg_fake", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }],
    usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 14 },
  };
}

export function wireOf(pathname: string): Wire {
  return pathname.endsWith("/chat/completions") ? "chat" : pathname.endsWith("/messages") ? "messages" : "responses";
}

export async function startFakeWires(reply: (wire: Wire, body: any) => string): Promise<FakeWires> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => {
      const pathname = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      const body = JSON.parse(Buffer.concat(parts).toString("utf8") || "null");
      requests.push({ path: pathname, headers: req.headers, body });
      const wire = wireOf(pathname);
      const text = reply(wire, body);
      const model = typeof body?.model === "string" ? body.model : "fake";
      if (body?.stream !== true) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(json(wire, text, model)));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const sse = wire === "chat" ? chatStream(text) : wire === "messages" ? anthropicStream(text, model) : responsesStream(text, model);
      // Uneven byte slices, so SSE lines and UTF-8 sequences are cut too.
      const bytes = Buffer.from(sse);
      for (let i = 0; i < bytes.length; i += 13) res.write(bytes.subarray(i, i + 13));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const BASH_SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };

/** A request body on `wire` declaring the `bash` tool, as OpenCode's native providers send it. */
export function requestBody(wire: Wire, prompt: string, stream: boolean): Record<string, unknown> {
  if (wire === "chat") {
    return { model: "deepseek-chat", stream, messages: [{ role: "user", content: prompt }], tools: [{ type: "function", function: { name: "bash", description: "run", parameters: BASH_SCHEMA } }] };
  }
  if (wire === "messages") {
    return { model: "deepseek-chat", stream, max_tokens: 100, messages: [{ role: "user", content: [{ type: "text", text: prompt }] }], tools: [{ name: "bash", description: "run", input_schema: BASH_SCHEMA }] };
  }
  return { model: "deepseek-chat", stream, input: [{ role: "user", content: [{ type: "input_text", text: prompt }] }], tools: [{ type: "function", name: "bash", description: "run", parameters: BASH_SCHEMA }] };
}

export function pathOf(wire: Wire): string {
  return wire === "chat" ? "/chat/completions" : wire === "messages" ? "/messages" : "/responses";
}

/** The tool calls a response carries, read the way each wire's client reads them (SSE or JSON). */
export async function callsIn(wire: Wire, response: Response): Promise<{ calls: { name: string; input: unknown }[]; text: string }> {
  const raw = await response.text();
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("event-stream")) return fromJson(wire, JSON.parse(raw));
  const events = raw.split(/\n\n/).flatMap((frame) => {
    const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
    return data && data !== "[DONE]" ? [JSON.parse(data)] : [];
  });
  return fromEvents(wire, events);
}

function fromJson(wire: Wire, body: any) {
  if (wire === "chat") {
    const message = body.choices[0].message;
    return { text: message.content ?? "", calls: (message.tool_calls ?? []).map((c: any) => ({ name: c.function.name, input: JSON.parse(c.function.arguments) })) };
  }
  if (wire === "messages") {
    return {
      text: body.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join(""),
      calls: body.content.filter((b: any) => b.type === "tool_use").map((b: any) => ({ name: b.name, input: b.input })),
    };
  }
  const items = body.output as any[];
  return {
    text: items.filter((i) => i.type === "message").flatMap((i) => i.content).map((c: any) => c.text ?? "").join(""),
    calls: items.filter((i) => i.type === "function_call").map((i) => ({ name: i.name, input: JSON.parse(i.arguments) })),
  };
}

function fromEvents(wire: Wire, events: any[]) {
  let text = "";
  const calls: { name: string; input: unknown }[] = [];
  if (wire === "chat") {
    const args = new Map<number, { name: string; args: string }>();
    for (const event of events) {
      const delta = event.choices?.[0]?.delta ?? {};
      if (typeof delta.content === "string") text += delta.content;
      for (const call of delta.tool_calls ?? []) {
        const entry = args.get(call.index) ?? { name: "", args: "" };
        entry.name += call.function?.name ?? "";
        entry.args += call.function?.arguments ?? "";
        args.set(call.index, entry);
      }
    }
    for (const entry of args.values()) calls.push({ name: entry.name, input: JSON.parse(entry.args) });
    return { text, calls };
  }
  if (wire === "messages") {
    const blocks = new Map<number, { name: string; json: string }>();
    for (const event of events) {
      if (event.type === "content_block_start" && event.content_block?.type === "tool_use") blocks.set(event.index, { name: event.content_block.name, json: "" });
      if (event.type === "content_block_delta" && event.delta?.type === "text_delta") text += event.delta.text;
      if (event.type === "content_block_delta" && event.delta?.type === "input_json_delta") blocks.get(event.index)!.json += event.delta.partial_json;
    }
    for (const block of blocks.values()) calls.push({ name: block.name, input: JSON.parse(block.json || "{}") });
    return { text, calls };
  }
  for (const event of events) {
    if (event.type === "response.output_text.delta") text += event.delta;
    if (event.type === "response.output_item.done" && event.item?.type === "function_call") calls.push({ name: event.item.name, input: JSON.parse(event.item.arguments) });
  }
  return { text, calls };
}
