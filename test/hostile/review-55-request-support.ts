// Review 55 (hostile, tests only): what a request declares, read by the fetch adapter. One fake
// upstream per wire answering a JSON reply (or a stream) whose text leaks a Hermes `<tool_call>`
// (no DSML marker bytes needed), and readers of the calls the client gets back.
import { repairFetch } from "../../src/adapters/fetch.ts";
import { randomCuts } from "../support/run-engine.ts";
import { assemble, sseText } from "../security/support.ts";

export type Json = Record<string, any>;
export type WireName = "chat" | "anthropic" | "responses";
export const WIRES: WireName[] = ["chat", "anthropic", "responses"];

export const URLS: Record<WireName, string> = {
  chat: "http://127.0.0.1:1/v1/chat/completions",
  anthropic: "http://127.0.0.1:1/v1/messages",
  responses: "http://127.0.0.1:1/v1/responses",
};

export const BASH_SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
export const READ_SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

/** No schema key at all (a default parameter cannot say it: `undefined` takes the default). */
export const NO_SCHEMA = Symbol("no schema");

/** A function tool as `wire` declares it; `parameters` NO_SCHEMA leaves the schema key out. */
export function fn(wire: WireName, name: string, schema: unknown = BASH_SCHEMA, extra: Json = {}): Json {
  const parameters = schema === NO_SCHEMA ? undefined : schema;
  if (wire === "chat") return { type: "function", function: { name, ...(parameters === undefined ? {} : { parameters }), ...extra } };
  if (wire === "anthropic") return { name, ...(parameters === undefined ? {} : { input_schema: parameters }), ...extra };
  return { type: "function", name, ...(parameters === undefined ? {} : { parameters }), ...extra };
}

/** A Hermes leak of `name` with `args`. */
export const leak = (name: string, args: Json = { command: "ls -la" }) => `<tool_call>{"name":${JSON.stringify(name)},"arguments":${JSON.stringify(args)}}</tool_call>`;

/** A minimal request of `wire` with `tools` and a user turn, plus `extra` fields. */
export function requestBody(wire: WireName, tools: Json[], extra: Json = {}, user = "list the files"): Json {
  if (wire === "responses") return { model: "m", input: [{ role: "user", content: user }], tools, ...extra };
  return { model: "m", max_tokens: 100, messages: [{ role: "user", content: user }], tools, ...extra };
}

/** The JSON reply of `wire` whose one text is `text`. */
export function replyJson(wire: WireName, text: string): Json {
  if (wire === "chat") return { id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] };
  if (wire === "anthropic") return { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  return { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output: [{ id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }] };
}

export interface Call {
  name: string;
  args: Json;
}

/** The tool calls a client reads in `wire`'s JSON reply, and its visible text. */
export function readReply(wire: WireName, reply: Json): { calls: Call[]; text: string } {
  const calls: Call[] = [];
  let text = "";
  if (wire === "chat") {
    const message = reply.choices?.[0]?.message ?? {};
    text = message.content ?? "";
    for (const call of message.tool_calls ?? []) calls.push({ name: call.function.name, args: JSON.parse(call.function.arguments) });
  } else if (wire === "anthropic") {
    for (const block of reply.content ?? []) {
      if (block.type === "text") text += block.text;
      if (block.type === "tool_use") calls.push({ name: block.name, args: block.input });
    }
  } else {
    for (const item of reply.output ?? []) {
      if (item.type === "message") for (const part of item.content) text += part.text ?? "";
      if (item.type === "function_call") calls.push({ name: item.name, args: JSON.parse(item.arguments) });
    }
  }
  return { calls, text };
}

/** What the fake upstream saw: the body text it was sent. */
export interface Seen {
  body: string | undefined;
}

/** An upstream answering every request with `answer` as JSON, recording the body it read. */
export function upstream(answer: Json | string, seen: Seen = { body: undefined }, type = "application/json"): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.body = request.body ? await request.text() : undefined;
    return new Response(typeof answer === "string" ? answer : JSON.stringify(answer), { status: 200, headers: { "content-type": type } });
  }) as unknown as typeof fetch;
}

/**
 * `reply` (the model's text) answered as JSON to `body` (an object, sent as JSON, or the body's
 * exact text or bytes) on `wire`: the calls the client gets and its text.
 */
export async function run(wire: WireName, body: Json | string | Uint8Array, reply: string, init: RequestInit = {}): Promise<{ calls: Call[]; text: string; seen: Seen; nudges: string[] }> {
  const seen: Seen = { body: undefined };
  const nudges: string[] = [];
  const sent = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
  const options = { onResult: (result: { summary: { nudge: { reason?: string } | null } }) => void nudges.push(JSON.stringify({ nudge: result.summary.nudge, stripped: (result.summary as never as { stripped: unknown[] }).stripped, broken: (result.summary as never as { broken: unknown[] }).broken })) };
  const res = await repairFetch(options as never, upstream(replyJson(wire, reply), seen))(URLS[wire], { method: "POST", headers: { "content-type": "application/json" }, body: sent as BodyInit, ...init });
  return { ...readReply(wire, await res.json()), seen, nudges };
}

export const names = (calls: Call[]) => calls.map((call) => call.name);

/**
 * `reply` streamed on the chat wire to `body`, whole, one character per delta and at seeded
 * random cuts: the tool names the client assembles under each (they must agree).
 */
export async function chatStreamNames(body: Json, reply: string): Promise<string[][]> {
  const cuttings: string[][] = [[reply], [...reply]];
  for (const seed of [1, 2, 3]) {
    const cuts = [0, ...randomCuts(reply.length, seed, 9), reply.length];
    cuttings.push(cuts.slice(1).map((end, i) => reply.slice(cuts[i]!, end)));
  }
  const out: string[][] = [];
  for (const contents of cuttings) {
    const res = await repairFetch({}, upstream(sseText(contents), undefined, "text/event-stream"))(URLS.chat, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    out.push(assemble(await res.text()).calls.map((call) => call.name ?? ""));
  }
  return out;
}
