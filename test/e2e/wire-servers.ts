/**
 * Fake model servers for the two non-chat-completions wires OpenCode's bundled SDKs speak:
 * Anthropic Messages (`POST …/messages`) and OpenAI Responses (`POST …/responses`). Each answers
 * every main request with the next scripted text, streamed in small deltas the way the real API
 * frames it, and records what it was sent.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type WireKind = "anthropic" | "responses";

export interface WireRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface WireServer {
  /** Base URL to put in the provider's `options.baseURL` (ends in /v1). */
  baseURL: string;
  requests: WireRequest[];
  close(): Promise<void>;
}

const DELTA_SIZE = 7;

function deltas(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += DELTA_SIZE) out.push(text.slice(at, at + DELTA_SIZE));
  return out;
}

function sse(events: Record<string, unknown>[]): string {
  return events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

export function anthropicStream(text: string, model: string): string {
  const events: Record<string, unknown>[] = [
    { type: "message_start", message: { id: "msg_fake", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "ping" },
  ];
  for (const piece of deltas(text)) events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } });
  events.push(
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } },
    { type: "message_stop" },
  );
  return sse(events);
}

export function responsesStream(text: string, model: string): string {
  const response = (status: string, output: unknown[]) => ({
    id: "resp_fake", object: "response", created_at: 1, status, model, output,
    usage: status === "completed" ? { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 14 } : null,
  });
  const part = { type: "output_text", text, annotations: [] };
  const message = { id: "msg_fake", type: "message", status: "completed", role: "assistant", content: [part] };
  const events: Record<string, unknown>[] = [
    { type: "response.created", response: response("in_progress", []) },
    { type: "response.output_item.added", output_index: 0, item: { id: "msg_fake", type: "message", status: "in_progress", role: "assistant", content: [] } },
    { type: "response.content_part.added", item_id: "msg_fake", output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } },
  ];
  for (const piece of deltas(text)) events.push({ type: "response.output_text.delta", item_id: "msg_fake", output_index: 0, content_index: 0, delta: piece, logprobs: [] });
  events.push(
    { type: "response.output_text.done", item_id: "msg_fake", output_index: 0, content_index: 0, text, logprobs: [] },
    { type: "response.content_part.done", item_id: "msg_fake", output_index: 0, content_index: 0, part },
    { type: "response.output_item.done", output_index: 0, item: message },
    { type: "response.completed", response: response("completed", [message]) },
  );
  return sse(events.map((e, sequence_number) => ({ ...e, sequence_number })));
}

/** True once the request carries a tool result: the scripted call ran and the model is asked again. */
export function hasToolResult(kind: WireKind, body: any): boolean {
  if (kind === "responses") return Array.isArray(body?.input) && body.input.some((item: any) => item?.type === "function_call_output");
  return Array.isArray(body?.messages) && body.messages.some((m: any) => Array.isArray(m?.content) && m.content.some((b: any) => b?.type === "tool_result"));
}

/** Answers `first` until a tool result comes back, then `after`. */
export async function startWireServer(kind: WireKind, first: string, after: string): Promise<WireServer> {
  const requests: WireRequest[] = [];
  const suffix = kind === "anthropic" ? "/messages" : "/responses";
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8"));
      } catch {
        body = undefined;
      }
      if (req.method !== "POST" || !path.endsWith(suffix)) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `not found: ${req.method} ${path}` } }));
        return;
      }
      requests.push({ path, headers: req.headers, body });
      const text = hasToolResult(kind, body) ? after : first;
      const model = typeof body?.model === "string" ? body.model : "fake";
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(kind === "anthropic" ? anthropicStream(text, model) : responsesStream(text, model));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
