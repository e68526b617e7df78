// Responses API streams for adapter tests: a reply's output items as the server streams them, and
// a strict reader of what the repair sent on.
import { expect } from "bun:test";
import { type Json, dataEvents, namedConsistently, namedSse } from "./wire-support.ts";

/** Arguments of the native function_call item (a `read` call). */
export const NATIVE_ARGS = '{"path":"n.ts"}';

/** One output item of the reply as the server sends it. */
export type Item = { message: string; parts: string[] } | { reasoning: string; text?: string; chunks?: number } | { native: string };

export function completedItem(item: Item): Json {
  if ("message" in item) return { id: item.message, type: "message", status: "completed", role: "assistant", content: item.parts.map((text) => ({ type: "output_text", text, annotations: [] })) };
  // A reasoning item sent in many deltas (`chunks`) is listed without its text, so no one event outgrows the SSE bound.
  if ("reasoning" in item) return { id: item.reasoning, type: "reasoning", summary: item.text === undefined || item.chunks !== undefined ? [] : [{ type: "summary_text", text: item.text }] };
  return { id: item.native, type: "function_call", call_id: `call_${item.native}`, name: "read", arguments: NATIVE_ARGS, status: "completed" };
}

/** The named SSE of `items`, text deltas `size` characters long; `completed: false` ends the body without response.completed. */
export function responsesItemSse(items: Item[], size: number, completed = true, eol = "\n"): string {
  const response = (status: string, output: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "m", output });
  const events: Json[] = [{ type: "response.created", response: response("in_progress", []) }];
  items.forEach((item, index) => {
    const done = completedItem(item);
    if ("message" in item) {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...done, status: "in_progress", content: [] } });
      item.parts.forEach((text, content) => {
        const at = { item_id: item.message, output_index: index, content_index: content };
        events.push({ type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } });
        for (let i = 0; i < text.length; i += size) events.push({ type: "response.output_text.delta", ...at, delta: text.slice(i, i + size), logprobs: [] });
        events.push({ type: "response.output_text.done", ...at, text, logprobs: [] });
        events.push({ type: "response.content_part.done", ...at, part: { type: "output_text", text, annotations: [] } });
      });
    } else if ("reasoning" in item) {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...done, summary: [] } });
      if (item.text !== undefined) {
        const at = { item_id: item.reasoning, output_index: index, summary_index: 0 };
        for (let i = 0; i < (item.chunks ?? 1); i++) events.push({ type: "response.reasoning_summary_text.delta", ...at, delta: item.text });
      }
    } else {
      events.push({ type: "response.output_item.added", output_index: index, item: { ...done, arguments: "", status: "in_progress" } });
      events.push({ type: "response.function_call_arguments.delta", item_id: item.native, output_index: index, delta: NATIVE_ARGS });
      events.push({ type: "response.function_call_arguments.done", item_id: item.native, output_index: index, arguments: NATIVE_ARGS });
    }
    events.push({ type: "response.output_item.done", output_index: index, item: done });
  });
  if (completed) events.push({ type: "response.completed", response: response("completed", items.map(completedItem)) });
  return namedSse(
    events.map((e, sequence_number) => ({ ...e, sequence_number })),
    eol,
  );
}

/**
 * Reads a repaired stream and fails unless it is valid: sequence numbers run on from 0, items
 * follow one another (each event's output_index is the one open item), every `done` text equals
 * the deltas that went out for its part, and response.completed lists the items as they closed.
 */
export function readStream(out: string, completed = true): Json[] {
  expect(namedConsistently(out)).toBe(true);
  const events = dataEvents(out);
  const items: Json[] = [];
  const texts = new Map<string, string>();
  let open: number | undefined;
  let final: Json[] | undefined;
  events.forEach((event, seq) => {
    expect(event.sequence_number).toBe(seq);
    const key = `${event.item_id}/${event.content_index}`;
    switch (event.type) {
      case "response.output_item.added":
        expect(open).toBeUndefined();
        expect(event.output_index).toBe(items.length);
        open = event.output_index;
        items.push(event.item);
        return;
      case "response.output_item.done":
        expect(open).toBe(event.output_index);
        open = undefined;
        items[event.output_index] = event.item;
        if (event.item.type === "message") event.item.content.forEach((p: Json, i: number) => expect(p.text).toBe(texts.get(`${event.item.id}/${i}`) ?? ""));
        return;
      case "response.completed":
        final = event.response.output;
        return;
      case "response.output_text.delta":
        texts.set(key, (texts.get(key) ?? "") + event.delta);
        break;
      case "response.output_text.done":
        expect(event.text).toBe(texts.get(key) ?? "");
        break;
      case "response.content_part.done":
        expect(event.part.text).toBe(texts.get(key) ?? "");
        break;
    }
    if (typeof event.output_index === "number") expect(open).toBe(event.output_index);
  });
  expect(open).toBeUndefined();
  if (completed) expect(final).toEqual(items);
  else expect(final).toBeUndefined();
  return items;
}

