// Shared by the Anthropic Messages and Responses adapter tests: named SSE events, a base fetch
// that answers in given byte chunks, and readers of what came out.
import { randomCuts } from "../support/run-engine.ts";

export type Json = Record<string, any>;

export const SSE_HEADERS = { "content-type": "text/event-stream" };
export const JSON_HEADERS = { "content-type": "application/json" };

/** `event: <type>` then `data: <json>`, as Anthropic and OpenAI's Responses API write them. */
export function namedSse(events: Json[], eol = "\n"): string {
  return events.map((e) => `event: ${e.type}${eol}data: ${JSON.stringify(e)}${eol}${eol}`).join("");
}

/** A base fetch answering with exactly these byte chunks, recording every request it saw. */
export function chunkedFetch(parts: Uint8Array[] | (() => Uint8Array[]), headers: Record<string, string> = SSE_HEADERS) {
  const seen: { url: string; init: RequestInit | undefined }[] = [];
  const fn = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input instanceof Request ? input.url : input), init });
    const list = typeof parts === "function" ? parts() : parts;
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of list) controller.enqueue(part);
          controller.close();
        },
      }),
      { status: 200, headers },
    );
  }) as unknown as typeof fetch;
  return Object.assign(fn, { seen });
}

export const encode = (text: string) => new TextEncoder().encode(text);

/** Every data payload, parsed, in order. */
export function dataEvents(text: string): Json[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n"))
    .filter((data) => data !== "" && data !== "[DONE]")
    .map((data) => JSON.parse(data) as Json);
}

/** Every event's `event:` line matches its data's type (synthetic events are named too). */
export function namedConsistently(text: string): boolean {
  for (const block of text.split(/\n\n/)) {
    const name = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (data === undefined) continue;
    if (name !== (JSON.parse(data) as Json).type) return false;
  }
  return true;
}

/** All byte splits of `bytes` into two parts, plus one byte per chunk. */
export function everySplit(bytes: Uint8Array): Uint8Array[][] {
  const splits: Uint8Array[][] = [[...bytes].map((b) => Uint8Array.of(b))];
  for (let at = 1; at < bytes.length; at++) splits.push([bytes.subarray(0, at), bytes.subarray(at)]);
  return splits;
}

export function postInit(body: Json, headers: Record<string, string> = {}): RequestInit {
  return { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}

/** A Responses reply's text as the server split it: message items, each with its output_text parts. */
export type ResponsesItems = { id: string; parts: string[] }[];

/** The completed message items of a Responses reply. */
export function responsesMessages(items: ResponsesItems): Json[] {
  return items.map(({ id, parts }) => ({ id, type: "message", status: "completed", role: "assistant", content: parts.map((text) => ({ type: "output_text", text, annotations: [] })) }));
}

/** The named SSE a Responses server sends for `items`, text deltas `deltaSize` characters long. */
export function responsesItemsStream(items: ResponsesItems, deltaSize: number): string {
  const response = (status: string, output: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "m", output });
  const events: Json[] = [{ type: "response.created", response: response("in_progress", []) }];
  items.forEach(({ id, parts }, index) => {
    events.push({ type: "response.output_item.added", output_index: index, item: { id, type: "message", status: "in_progress", role: "assistant", content: [] } });
    parts.forEach((text, content) => {
      const at = { item_id: id, output_index: index, content_index: content };
      events.push({ type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } });
      for (let i = 0; i < text.length; i += deltaSize) events.push({ type: "response.output_text.delta", ...at, delta: text.slice(i, i + deltaSize), logprobs: [] });
      events.push({ type: "response.output_text.done", ...at, text, logprobs: [] });
      events.push({ type: "response.content_part.done", ...at, part: { type: "output_text", text, annotations: [] } });
    });
    events.push({ type: "response.output_item.done", output_index: index, item: responsesMessages([{ id, parts }])[0] });
  });
  events.push({ type: "response.completed", response: response("completed", responsesMessages(items)) });
  return namedSse(events.map((e, sequence_number) => ({ ...e, sequence_number })));
}

/** The named SSE an Anthropic server sends for one text block, text deltas `deltaSize` characters long. */
export function anthropicTextStream(text: string, deltaSize: number): string {
  const deltas: string[] = [];
  for (let i = 0; i < text.length; i += deltaSize) deltas.push(text.slice(i, i + deltaSize));
  return namedSse(anthropicTextEvents(deltas));
}

/** The events an Anthropic server sends for one text block made of these text deltas. */
export function anthropicTextEvents(deltas: readonly string[]): Json[] {
  return [
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ...deltas.map((text): Json => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } },
    { type: "message_stop" },
  ];
}

/** `bytes` cut at seeded random points, pieces at most `maxChunk` bytes long. */
export function seededCuts(bytes: Uint8Array, seed: number, maxChunk = 64): Uint8Array[] {
  const cuts = [0, ...randomCuts(bytes.length, seed, maxChunk), bytes.length];
  return cuts.slice(1).map((end, i) => bytes.subarray(cuts[i]!, end));
}

/** One byte per chunk. */
export function byteByByte(bytes: Uint8Array): Uint8Array[] {
  return [...bytes].map((_, i) => bytes.subarray(i, i + 1));
}
