import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterOptions, AdapterResult } from "../../src/adapters/options.ts";
import { stubFactory } from "./stub-engine.ts";
import { JSON_HEADERS, type Json, chunkedFetch, dataEvents, encode, everySplit, namedConsistently, namedSse, postInit } from "./wire-support.ts";

const URL_RESPONSES = "http://model.test/v1/responses";
const TOOLS = [
  { type: "function", name: "read", description: "read a file", parameters: { type: "object", properties: { path: { type: "string" } } }, strict: false },
  { type: "web_search" },
];

function request(extra: Json = {}): RequestInit {
  return postInit({ model: "gpt-oss", stream: true, input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }], tools: TOOLS, ...extra });
}

/** A recorded-shape stream: reasoning item, one message item with these deltas, optional native call item. */
function stream(texts: string[], extra: { reasoning?: string; native?: boolean } = {}): Json[] {
  const events: Json[] = [];
  const response = (status: string, output: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "gpt-oss", output, usage: status === "completed" ? { input_tokens: 3, output_tokens: 5, total_tokens: 8 } : null });
  const output: Json[] = [];
  events.push({ type: "response.created", response: response("in_progress", []) }, { type: "response.in_progress", response: response("in_progress", []) });
  let index = 0;
  if (extra.reasoning !== undefined) {
    const item = { id: "rs_1", type: "reasoning", summary: [] as Json[] };
    events.push({ type: "response.output_item.added", output_index: index, item });
    events.push({ type: "response.reasoning_summary_part.added", item_id: "rs_1", output_index: index, summary_index: 0, part: { type: "summary_text", text: "" } });
    events.push({ type: "response.reasoning_summary_text.delta", item_id: "rs_1", output_index: index, summary_index: 0, delta: extra.reasoning });
    events.push({ type: "response.reasoning_summary_part.done", item_id: "rs_1", output_index: index, summary_index: 0, part: { type: "summary_text", text: extra.reasoning } });
    const done = { ...item, summary: [{ type: "summary_text", text: extra.reasoning }] };
    events.push({ type: "response.output_item.done", output_index: index, item: done });
    output.push(done);
    index++;
  }
  const text = texts.join("");
  events.push({ type: "response.output_item.added", output_index: index, item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] } });
  events.push({ type: "response.content_part.added", item_id: "msg_1", output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
  for (const t of texts) events.push({ type: "response.output_text.delta", item_id: "msg_1", output_index: index, content_index: 0, delta: t, logprobs: [] });
  events.push({ type: "response.output_text.done", item_id: "msg_1", output_index: index, content_index: 0, text, logprobs: [] });
  const part = { type: "output_text", text, annotations: [] };
  events.push({ type: "response.content_part.done", item_id: "msg_1", output_index: index, content_index: 0, part });
  const message = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [part] };
  events.push({ type: "response.output_item.done", output_index: index, item: message });
  output.push(message);
  index++;
  if (extra.native) {
    const args = '{"path":"n.ts"}';
    const item = { type: "function_call", id: "fc_native", call_id: "call_native", name: "read", arguments: "", status: "in_progress" };
    events.push({ type: "response.output_item.added", output_index: index, item });
    events.push({ type: "response.function_call_arguments.delta", item_id: "fc_native", output_index: index, delta: args });
    events.push({ type: "response.function_call_arguments.done", item_id: "fc_native", output_index: index, arguments: args });
    const done = { ...item, arguments: args, status: "completed" };
    events.push({ type: "response.output_item.done", output_index: index, item: done });
    output.push(done);
  }
  events.push({ type: "response.completed", response: response("completed", output) });
  return events.map((e, seq) => ({ ...e, sequence_number: seq }));
}

interface Assembled {
  text: string;
  reasoning: string;
  calls: { id: string; name: string; arguments: string }[];
  finalOutput: string[];
}

/** Reads the stream as @ai-sdk/openai does, and fails on numbering that does not add up. */
function assemble(text: string): Assembled {
  const out: Assembled = { text: "", reasoning: "", calls: [], finalOutput: [] };
  const items: Json[] = [];
  const open = new Set<number>();
  dataEvents(text).forEach((event, seq) => {
    expect(event.sequence_number).toBe(seq);
    if (event.type === "response.output_item.added") {
      expect(event.output_index).toBe(items.length);
      items.push(event.item);
      open.add(event.output_index);
    } else if (typeof event.output_index === "number") {
      expect(open.has(event.output_index)).toBe(true);
      if (event.type === "response.output_item.done") {
        open.delete(event.output_index);
        items[event.output_index] = event.item;
        if (event.item.type === "function_call") out.calls.push({ id: event.item.call_id, name: event.item.name, arguments: event.item.arguments });
      }
    }
    if (event.type === "response.output_text.delta") out.text += event.delta;
    if (event.type === "response.reasoning_summary_text.delta") out.reasoning += event.delta;
    if (event.type === "response.output_text.done") expect(event.text).toBe(out.text);
    if (event.type === "response.completed") {
      expect(event.response.output).toEqual(items);
      out.finalOutput = event.response.output.map((item: Json) => item.type);
    }
  });
  expect(open.size).toBe(0);
  return out;
}

function fix(base: typeof fetch, options: AdapterOptions = {}) {
  return repairFetch(options, base, { createEngine: stubFactory() });
}

async function run(upstream: string | Uint8Array[], init = request(), options: AdapterOptions = {}) {
  const base = chunkedFetch(typeof upstream === "string" ? [encode(upstream)] : upstream);
  return (await fix(base, options)(URL_RESPONSES, init)).text();
}

const LEAK = ["I'll read it. <", "<CA", "LL read ", '{"path":', '"a.ts"}>', "> done"];

describe("Responses API stream", () => {
  test("a stream without candidates comes back byte for byte, reasoning included", async () => {
    const original = namedSse(stream(["Plain: a < b, caf\u00e9."], { reasoning: "maybe <<CALL read {}>>" }));
    expect(await run(original)).toBe(original);
  });

  test("a leak becomes a function_call item after the message; numbering stays consistent", async () => {
    const results: AdapterResult[] = [];
    const upstream = stream(LEAK, { reasoning: 'think <<CALL read {"path":"t"}>>' });
    const text = await run(namedSse(upstream), request(), { onResult: (r) => results.push(r) });
    expect(assemble(text)).toEqual({
      text: "I'll read it.  done",
      reasoning: 'think <<CALL read {"path":"t"}>>',
      calls: [{ id: "stub_0", name: "read", arguments: '{"path":"a.ts"}' }],
      finalOutput: ["reasoning", "message", "function_call"],
    });
    // Reasoning events before the first change keep their bytes.
    for (const event of upstream.slice(0, 7)) expect(text).toContain(`data: ${JSON.stringify(event)}\n\n`);
    expect(namedConsistently(text)).toBe(true);
    expect(results.map((r) => r.summary.recovered)).toEqual([1]);
  });

  test("every byte split gives the same output", async () => {
    const original = encode(namedSse(stream(["caf\u00e9 <", '<CALL read {"path":"\u65e5.ts"}>', ">!"])));
    const reference = await run([original]);
    expect(assemble(reference).calls.map((c) => c.arguments)).toEqual(['{"path":"\u65e5.ts"}']);
    for (const parts of everySplit(original)) expect(await run(parts)).toBe(reference);
  });

  test("a native function_call item after a recovered one moves up an index", async () => {
    const result = assemble(await run(namedSse(stream(['<<CALL read {"path":"r"}>>'], { native: true }))));
    expect(result.calls.map((c) => c.id)).toEqual(["stub_0", "call_native"]);
    expect(result.finalOutput).toEqual(["message", "function_call", "function_call"]);
  });

  test("native calls win: markup after a native call item is no second call", async () => {
    const upstream = stream(LEAK, { native: true });
    // Move the native item before the message, renumbering indices and sequence.
    const nativeEvents = upstream.filter((e) => e.item_id === "fc_native" || e.item?.id === "fc_native");
    const rest = upstream.filter((e) => !nativeEvents.includes(e));
    const reordered: Json[] = [...rest.slice(0, 2), ...nativeEvents.map((e) => ({ ...e, output_index: 0 })), ...rest.slice(2, -1).map((e) => ({ ...e, output_index: 1 })), rest.at(-1)!];
    reordered.at(-1)!.response = { ...reordered.at(-1)!.response, output: [upstream.at(-2)!.item, upstream.find((e) => e.type === "response.output_item.done" && e.item.id === "msg_1")!.item] };
    const numbered = reordered.map((e, seq) => ({ ...e, sequence_number: seq }));
    const text = await run(namedSse(numbered));
    const events = dataEvents(text);
    expect(events.filter((e) => e.type === "response.output_item.added").map((e) => e.item.id)).toEqual(["fc_native", "msg_1"]);
    expect(events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("")).toBe("I'll read it.  done");
  });

  test("tool_choice: none, a named function, allowed_tools", async () => {
    const original = namedSse(stream(LEAK));
    expect(assemble(await run(original, request({ tool_choice: "none" }))).calls).toEqual([]);
    expect(assemble(await run(original, request({ tool_choice: { type: "function", name: "write" } }))).calls).toEqual([]);
    const allowed = { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "write" }] };
    expect(assemble(await run(original, request({ tool_choice: allowed }))).calls).toEqual([]);
    for (const closed of [{ type: "custom", name: "read" }, { type: "file_search" }, "sometimes", { type: "allowed_tools", mode: "maybe", tools: [] }]) {
      expect(assemble(await run(original, request({ tool_choice: closed }))).calls).toEqual([]);
    }
    for (const choice of ["auto", "required", { type: "function", name: "read" }, { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "read" }] }]) {
      expect(assemble(await run(original, request({ tool_choice: choice }))).calls.map((c) => c.name)).toEqual(["read"]);
    }
  });
});

describe("Responses API JSON", () => {
  const body = (output: Json[]) => ({ id: "resp_1", object: "response", status: "completed", model: "m", output, usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } });
  const message = (text: string) => ({ id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });

  async function json(value: Json) {
    const text = JSON.stringify(value);
    const res = await fix(chunkedFetch([encode(text)], JSON_HEADERS))(URL_RESPONSES, request({ stream: false }));
    return { text: await res.text(), original: text };
  }

  test("a leaked call becomes a function_call item after its message; reasoning untouched", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "<<CALL read {}>>" }] };
    const { text } = await json(body([reasoning, message(LEAK.join(""))]));
    expect(JSON.parse(text).output).toEqual([
      reasoning,
      message("I'll read it.  done"),
      { type: "function_call", id: "fc_stub_0", call_id: "stub_0", name: "read", arguments: '{"path":"a.ts"}', status: "completed" },
    ]);
  });

  test("without candidates the body is returned byte for byte; native calls win", async () => {
    const plain = await json(body([message("a < b")]));
    expect(plain.text).toBe(plain.original);
    const native = { type: "function_call", id: "fc_n", call_id: "call_n", name: "read", arguments: "{}", status: "completed" };
    const { text } = await json(body([message('<<CALL read {"path":"x"}>>'), native]));
    expect(JSON.parse(text).output).toEqual([message(""), native]);
  });
});

// ---------------------------------------------------------------- every message item, every part

describe("Responses API: every message item and every output_text part is read", () => {
  const hermes = (path: string) => `<tool_call>{"name":"read","arguments":{"path":"${path}"}}</tool_call>`;
  /**
   * Two message items: the first with a plain part and a leaking part, the second leaking.
   * Changed by fix 55: a half-candidate (`Hello. <tool_call`) no longer ends the first part: a tag
   * cut at a part's end is pending there whatever the next part writes, so no later call would run
   * (review 55, finding 2); a plain first part still shows that every part and item is read.
   */
  const ITEMS: { id: string; parts: string[] }[] = [
    { id: "msg_1", parts: ["Hello.", `\n${hermes("a.ts")}`] },
    { id: "msg_2", parts: [`Next:\n${hermes("b.ts")}`] },
  ];
  const EXPECTED_TEXTS = { "msg_1/0": "Hello.", "msg_1/1": "\n", "msg_2/0": "Next:\n" };
  const EXPECTED_OUTPUT = ["message msg_1", 'function_call read {"path":"a.ts"}', "message msg_2", 'function_call read {"path":"b.ts"}'];

  function multiStream(deltaSize: number): Json[] {
    const events: Json[] = [];
    const response = (status: string, output: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "gpt-oss", output });
    events.push({ type: "response.created", response: response("in_progress", []) });
    const output: Json[] = [];
    ITEMS.forEach(({ id, parts }, index) => {
      events.push({ type: "response.output_item.added", output_index: index, item: { id, type: "message", status: "in_progress", role: "assistant", content: [] } });
      const done: Json[] = [];
      parts.forEach((text, content) => {
        events.push({ type: "response.content_part.added", item_id: id, output_index: index, content_index: content, part: { type: "output_text", text: "", annotations: [] } });
        for (let at = 0; at < text.length; at += deltaSize) events.push({ type: "response.output_text.delta", item_id: id, output_index: index, content_index: content, delta: text.slice(at, at + deltaSize), logprobs: [] });
        events.push({ type: "response.output_text.done", item_id: id, output_index: index, content_index: content, text, logprobs: [] });
        const part = { type: "output_text", text, annotations: [] };
        events.push({ type: "response.content_part.done", item_id: id, output_index: index, content_index: content, part });
        done.push(part);
      });
      const message = { id, type: "message", status: "completed", role: "assistant", content: done };
      events.push({ type: "response.output_item.done", output_index: index, item: message });
      output.push(message);
    });
    events.push({ type: "response.completed", response: response("completed", output) });
    return events.map((e, seq) => ({ ...e, sequence_number: seq }));
  }

  /** Per-part text and the output items, checking numbering, indices and the final listing as the AI SDK reads them. */
  function read(text: string): { texts: Record<string, string>; output: string[] } {
    const texts: Record<string, string> = {};
    const items: Json[] = [];
    const open = new Set<number>();
    dataEvents(text).forEach((event, seq) => {
      expect(event.sequence_number).toBe(seq);
      if (event.type === "response.output_item.added") {
        expect(event.output_index).toBe(items.length);
        items.push(event.item);
        open.add(event.output_index);
      } else if (typeof event.output_index === "number") {
        expect(open.has(event.output_index)).toBe(true);
        if (event.type === "response.output_item.done") {
          open.delete(event.output_index);
          items[event.output_index] = event.item;
        }
      }
      const key = `${event.item_id}/${event.content_index}`;
      if (event.type === "response.output_text.delta") texts[key] = (texts[key] ?? "") + event.delta;
      if (event.type === "response.output_text.done") expect(event.text).toBe(texts[key] ?? "");
      if (event.type === "response.content_part.done") expect(event.part.text).toBe(texts[key] ?? "");
      if (event.type === "response.output_item.done" && event.item.type === "message") {
        event.item.content.forEach((part: Json, i: number) => expect(part.text).toBe(texts[`${event.item.id}/${i}`] ?? ""));
      }
      if (event.type === "response.completed") expect(event.response.output).toEqual(items);
    });
    expect(open.size).toBe(0);
    return { texts, output: items.map(describeItem) };
  }

  const describeItem = (item: Json) => (item.type === "message" ? `message ${item.id}` : `${item.type} ${item.name} ${item.arguments}`);

  async function realRun(parts: Uint8Array[], init = request()): Promise<string> {
    return (await repairFetch({}, chunkedFetch(parts))(URL_RESPONSES, init)).text();
  }

  /** Seeded byte cuts of the whole stream. */
  function cutsOf(bytes: Uint8Array, seed: number): Uint8Array[] {
    let state = seed;
    const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const parts: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + Math.floor(next() * 64);
      parts.push(bytes.subarray(at, at + size));
      at += size;
    }
    return parts;
  }

  test("streamed: a leak in a later part and a later item becomes a call right after its item; no call spans two parts", async () => {
    for (const deltaSize of [1000, 7, 1]) {
      const bytes = encode(namedSse(multiStream(deltaSize)));
      const reference = await realRun([bytes]);
      expect(read(reference)).toEqual({ texts: EXPECTED_TEXTS, output: EXPECTED_OUTPUT });
      for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) expect(read(await realRun(cutsOf(bytes, seed)))).toEqual({ texts: EXPECTED_TEXTS, output: EXPECTED_OUTPUT });
    }
  });

  test("streamed: a native call item before the messages leaves every part's markup unexecuted", async () => {
    const events = multiStream(5);
    const native = { type: "function_call", id: "fc_n", call_id: "call_n", name: "read", arguments: '{"path":"n"}', status: "completed" };
    const shifted = events.map((e) => (typeof e.output_index === "number" ? { ...e, output_index: e.output_index + 1 } : e));
    const withNative = [shifted[0]!, { type: "response.output_item.added", output_index: 0, item: native }, { type: "response.output_item.done", output_index: 0, item: native }, ...shifted.slice(1)];
    withNative.at(-1)!.response = { ...withNative.at(-1)!.response, output: [native, ...withNative.at(-1)!.response.output] };
    const text = await realRun([encode(namedSse(withNative.map((e, seq) => ({ ...e, sequence_number: seq }))))]);
    expect(read(text).output).toEqual(['function_call read {"path":"n"}', "message msg_1", "message msg_2"]);
  });

  test("JSON: every item and part, calls right after their item, no call across parts", async () => {
    const output = ITEMS.map(({ id, parts }) => ({ id, type: "message", status: "completed", role: "assistant", content: parts.map((text) => ({ type: "output_text", text, annotations: [] })) }));
    const res = await repairFetch({}, chunkedFetch([encode(JSON.stringify({ id: "resp_1", object: "response", status: "completed", output }))], JSON_HEADERS))(URL_RESPONSES, request({ stream: false }));
    const body = (await res.json()) as Json;
    expect(body.output.map(describeItem)).toEqual(EXPECTED_OUTPUT);
    const texts = Object.fromEntries(body.output.filter((i: Json) => i.type === "message").flatMap((i: Json) => i.content.map((p: Json, c: number) => [`${i.id}/${c}`, p.text])));
    expect(texts).toEqual(EXPECTED_TEXTS);
  });
});
