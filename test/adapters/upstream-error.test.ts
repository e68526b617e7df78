// An upstream that fails mid-stream: the text the engine was still holding (an unfinished
// candidate) reaches the client as whole events before the error, never lost and never half an
// event; the error itself still reaches the client. Chat, Anthropic Messages and Responses alike,
// and the AI SDK middleware, whose model stream errors instead. A failure is not the reply's end:
// the held text goes back exactly as written, undecided, so a candidate that would run at the
// reply's end (a complete body whose closer is missing) never runs when the reply is cut after it.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { block, live } from "../golden/notation.ts";
import { SSE_HEADERS, type Json, dataEvents, encode, postInit } from "./wire-support.ts";

const LEAK = live(block("tool_calls", [["bash", [["command", "ls -la"]]]]));
const CUT = LEAK.slice(0, Math.floor(LEAK.length / 2));
const tools = [{ type: "function", function: { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } } } } }];

/**
 * A fetch whose body sends `events` in pieces of `size` bytes (the last event cut in two, its
 * second half never sent), then fails.
 */
function failingFetch(events: string[], size: number): typeof fetch {
  return (async () => {
    const bytes = encode(events.join(""));
    const half = bytes.length - 7;
    let at = 0;
    return new Response(
      new ReadableStream<Uint8Array>({
        // Erroring in the same call would drop the queued bytes: the failure comes on a later read.
        pull(controller) {
          if (at >= half) controller.error(new TypeError("upstream reset"));
          else controller.enqueue(bytes.slice(at, Math.min(half, at + size)));
          at += size;
        },
      }),
      { headers: SSE_HEADERS },
    );
  }) as unknown as typeof fetch;
}

/** Everything the client could read before the error, and the error. */
async function readUntilError(response: Response): Promise<{ text: string; error: unknown }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: null };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

const chatEvent = (delta: Json) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

const SIZES = [1, 7, 64, 1 << 20];

describe.each(SIZES)("an upstream that fails mid-stream (body read %p bytes at a time)", (size) => {
  test("chat: the held text goes out as whole events before the error; no call, nothing lost", async () => {
    const pieces = ["Looking.\n", ...CUT.match(/[\s\S]{1,9}/g)!];
    // The last event is cut by the failure: its half never counts.
    const events = [chatEvent({ role: "assistant", content: "" }), ...pieces.map((content) => chatEvent({ content })), chatEvent({ content: "LOST" })];
    const init = postInit({ model: "m", stream: true, messages: [{ role: "user", content: "go" }], tools });
    const { text, error } = await readUntilError(await repairFetch({}, failingFetch(events, size))("http://x/v1/chat/completions", init));
    expect(error).toBeInstanceOf(TypeError);
    expect(text.endsWith("\n\n")).toBe(true);
    const parsed = dataEvents(text);
    expect(parsed.map((e) => e.choices?.[0]?.delta?.content ?? "").join("")).toBe(`Looking.\n${CUT}`);
    expect(parsed.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? [])).toEqual([]);
  });

  test("Anthropic Messages: the same", async () => {
    const named = (type: string, body: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
    const pieces = ["Looking.\n", ...CUT.match(/[\s\S]{1,9}/g)!];
    const events = [
      named("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 1, output_tokens: 0 } } }),
      named("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      ...pieces.map((text) => named("content_block_delta", { index: 0, delta: { type: "text_delta", text } })),
      named("content_block_delta", { index: 0, delta: { type: "text_delta", text: "LOST" } }),
    ];
    const init = postInit({ model: "m", stream: true, max_tokens: 10, messages: [{ role: "user", content: "go" }], tools: [{ name: "bash", input_schema: tools[0]!.function.parameters }] });
    const { text, error } = await readUntilError(await repairFetch({}, failingFetch(events, size))("http://x/v1/messages", init));
    expect(error).toBeInstanceOf(TypeError);
    expect(text.endsWith("\n\n")).toBe(true);
    const parsed = dataEvents(text);
    const shown = parsed.map((e) => (e.type === "content_block_delta" && e.delta?.type === "text_delta" ? e.delta.text : "")).join("");
    expect(shown).toBe(`Looking.\n${CUT}`);
    expect(parsed.filter((e) => e.content_block?.type === "tool_use")).toEqual([]);
  });
});

/** A complete Hermes body without its closer: at the reply's end it runs; cut there, it was maybe an example. */
const HERMES = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf build"}}';
/** A call, then prose the engine holds after it (S03): at the reply's end it would be stripped. */
const CALLED = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
const AFTER = " Here is what I found: 42.";

/** Chat, Anthropic and Responses bodies of text deltas, in that wire's events (no end: the failure cuts them). */
const WIRES = [
  {
    name: "chat",
    url: "http://x/v1/chat/completions",
    body: { model: "m", stream: true, messages: [{ role: "user", content: "go" }], tools },
    events: (texts: string[]) => [chatEvent({ role: "assistant", content: "" }), ...texts.map((content) => chatEvent({ content }))],
    read(events: Json[]) {
      const calls = events.flatMap((e) => (e.choices?.[0]?.delta?.tool_calls ?? []).map((c: Json) => `${c.function?.name}:${c.function?.arguments}`));
      return { text: events.map((e) => e.choices?.[0]?.delta?.content ?? "").join(""), calls };
    },
  },
  {
    name: "Anthropic Messages",
    url: "http://x/v1/messages",
    body: { model: "m", stream: true, max_tokens: 10, messages: [{ role: "user", content: "go" }], tools: [{ name: "bash", input_schema: tools[0]!.function.parameters }] },
    events: (texts: string[]) => {
      const named = (type: string, body: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
      return [
        named("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 1, output_tokens: 0 } } }),
        named("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
        ...texts.map((text) => named("content_block_delta", { index: 0, delta: { type: "text_delta", text } })),
      ];
    },
    read(events: Json[]) {
      const text = events.map((e) => (e.type === "content_block_delta" && e.delta?.type === "text_delta" ? e.delta.text : "")).join("");
      const calls = events.flatMap((e) => (e.type === "content_block_start" && e.content_block?.type === "tool_use" ? [`${e.content_block.name}:${JSON.stringify(e.content_block.input)}`] : []));
      // The tool_use input comes as one input_json_delta.
      const inputs = events.flatMap((e) => (e.delta?.type === "input_json_delta" ? [e.delta.partial_json] : []));
      return { text, calls: calls.map((call, i) => call.replace("{}", inputs[i] ?? "{}")) };
    },
  },
  {
    name: "Responses",
    url: "http://x/v1/responses",
    body: { model: "m", stream: true, input: "go", tools: [{ type: "function", name: "bash", parameters: tools[0]!.function.parameters }] },
    events: (texts: string[]) => {
      const at = { item_id: "msg_1", output_index: 0, content_index: 0 };
      const events: Json[] = [
        { type: "response.created", response: { id: "r", object: "response", status: "in_progress", output: [] } },
        { type: "response.output_item.added", output_index: 0, item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] } },
        { type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } },
        ...texts.map((delta) => ({ type: "response.output_text.delta", ...at, delta })),
      ];
      return events.map((e, sequence_number) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number })}\n\n`);
    },
    read(events: Json[]) {
      const text = events.map((e) => (e.type === "response.output_text.delta" ? e.delta : "")).join("");
      const calls = events.flatMap((e) => (e.type === "response.output_item.done" && e.item?.type === "function_call" ? [`${e.item.name}:${e.item.arguments}`] : []));
      return { text, calls };
    },
  },
];

describe.each(WIRES)("$name: an upstream that fails while the engine holds undecided text", (wire) => {
  /** `texts` as the wire's deltas, then one more event the failure cuts in half. */
  async function cut(texts: string[], size: number) {
    const events = [...wire.events(texts), ...wire.events(["LOST"]).slice(-1)];
    const init = postInit(wire.body);
    const { text, error } = await readUntilError(await repairFetch({}, failingFetch(events, size))(wire.url, init));
    expect(error).toBeInstanceOf(TypeError);
    expect(text.endsWith("\n\n")).toBe(true);
    return wire.read(dataEvents(text));
  }

  test.each(SIZES)("a complete body cut before its closer goes back as text, as written; no call (read %p bytes at a time)", async (size) => {
    const { text, calls } = await cut(["It looks like this: ", ...HERMES.match(/[\s\S]{1,9}/g)!], size);
    expect(calls).toEqual([]);
    expect(text).toBe(`It looks like this: ${HERMES}`);
  });

  test.each(SIZES)("a call before the failure stands; the prose held after it goes out as written, not stripped (read %p bytes at a time)", async (size) => {
    const { text, calls } = await cut(["Listing. ", CALLED, AFTER], size);
    expect(calls).toEqual(['bash:{"command":"ls"}']);
    expect(text).toBe(`Listing. ${AFTER}`);
  });
});

describe("Responses: an upstream that fails while a part that ended waits on the prose after its call", () => {
  test.each(SIZES)("the prose goes into that part as written, the events that waited behind it follow, whole and numbered (read %p bytes at a time)", async (size) => {
    const part = (item: string, index: number) => ({ item_id: item, output_index: index, content_index: 0 });
    const text = `Listing. ${CALLED}${AFTER}`;
    const events: Json[] = [
      { type: "response.created", response: { id: "r", object: "response", status: "in_progress", output: [] } },
      { type: "response.output_item.added", output_index: 0, item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] } },
      { type: "response.content_part.added", ...part("msg_1", 0), part: { type: "output_text", text: "", annotations: [] } },
      ...["Listing. ", CALLED, AFTER].map((delta) => ({ type: "response.output_text.delta", ...part("msg_1", 0), delta })),
      { type: "response.output_text.done", ...part("msg_1", 0), text },
      { type: "response.content_part.done", ...part("msg_1", 0), part: { type: "output_text", text, annotations: [] } },
      { type: "response.output_item.done", output_index: 0, item: { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] } },
      { type: "response.output_item.added", output_index: 1, item: { id: "msg_2", type: "message", status: "in_progress", role: "assistant", content: [] } },
      { type: "response.content_part.added", ...part("msg_2", 1), part: { type: "output_text", text: "", annotations: [] } },
      { type: "response.output_text.delta", ...part("msg_2", 1), delta: "More." },
      { type: "response.output_text.delta", ...part("msg_2", 1), delta: "LOST" },
    ];
    const sse = events.map((e, sequence_number) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number })}\n\n`);
    const { text: out, error } = await readUntilError(await repairFetch({}, failingFetch(sse, size))("http://x/v1/responses", postInit({ model: "m", stream: true, input: "go", tools: [{ type: "function", name: "bash", parameters: tools[0]!.function.parameters }] })));
    expect(error).toBeInstanceOf(TypeError);
    expect(out.endsWith("\n\n")).toBe(true);
    const parsed = dataEvents(out);
    expect(parsed.map((e) => e.sequence_number)).toEqual(parsed.map((_, i) => i));
    const deltas = (item: string) => parsed.filter((e) => e.type === "response.output_text.delta" && e.item_id === item).map((e) => e.delta).join("");
    expect(deltas("msg_1")).toBe(`Listing. ${AFTER}`);
    expect(deltas("msg_2")).toBe("More.");
    // The part's `done` events say what its deltas said.
    expect(parsed.find((e) => e.type === "response.output_text.done")?.text).toBe(`Listing. ${AFTER}`);
    const call = parsed.find((e) => e.type === "response.output_item.done" && e.item?.type === "function_call");
    expect([call?.output_index, call?.item?.arguments]).toEqual([1, '{"command":"ls"}']);
    expect(parsed.find((e) => e.type === "response.output_item.added" && e.item?.id === "msg_2")?.output_index).toBe(2);
  });
});

/** A model stream that sends `parts`, then fails on the next read. */
function failingParts(parts: LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  let at = 0;
  return new ReadableStream<LanguageModelV3StreamPart>({
    pull(controller) {
      if (at >= parts.length) controller.error(new TypeError("upstream reset"));
      else controller.enqueue(parts[at++]!);
    },
  });
}

/** Every part the host could read before the error, and the error. */
async function partsUntilError(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<{ parts: LanguageModelV3StreamPart[]; error: unknown }> {
  const reader = stream.getReader();
  const parts: LanguageModelV3StreamPart[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { parts, error: null };
      parts.push(value);
    }
  } catch (error) {
    return { parts, error };
  }
}

/** The repair middleware over a model whose text part `t` streams `deltas` and then fails: what the host read, and the error. */
async function middlewareFailingAfter(deltas: string[]): Promise<{ parts: LanguageModelV3StreamPart[]; error: unknown }> {
  const parts: LanguageModelV3StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...deltas.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "t", delta })),
  ];
  const model = new MockLanguageModelV3({ doStream: async () => ({ stream: failingParts(parts) }) });
  const wrapped = wrapLanguageModel({ model, middleware: repairMiddleware() });
  const inputSchema = tools[0]!.function.parameters;
  const { stream } = await wrapped.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: [{ type: "function", name: "bash", inputSchema }] });
  return partsUntilError(stream);
}

describe.each([1, 7, 64])("the middleware over a model stream that fails mid-reply (deltas of %p characters)", (size) => {
  test("the held text goes out under its text part before the error; no call, nothing lost", async () => {
    const pieces = Array.from({ length: Math.ceil(CUT.length / size) }, (_, i) => CUT.slice(i * size, (i + 1) * size));
    const deltas = ["Looking.\n", ...pieces];
    const { parts: out, error } = await middlewareFailingAfter(deltas);
    expect(error).toBeInstanceOf(TypeError);
    const text = out.flatMap((part) => (part.type === "text-delta" ? [part] : []));
    expect(text.map((part) => part.delta).join("")).toBe(`Looking.\n${CUT}`);
    expect(text.every((part) => part.id === "t")).toBe(true);
    expect(out.filter((part) => part.type.startsWith("tool-"))).toEqual([]);
  });
});

describe.each([1, 7, 64])("the middleware over a model stream that fails right after a complete body (deltas of %p characters)", (size) => {
  test("the body goes back as text, as written, under its text part; no tool part", async () => {
    const pieces = Array.from({ length: Math.ceil(HERMES.length / size) }, (_, i) => HERMES.slice(i * size, (i + 1) * size));
    const { parts: out, error } = await middlewareFailingAfter(["It looks like this: ", ...pieces]);
    expect(error).toBeInstanceOf(TypeError);
    const text = out.flatMap((part) => (part.type === "text-delta" ? [part] : []));
    expect(text.map((part) => part.delta).join("")).toBe(`It looks like this: ${HERMES}`);
    expect(text.every((part) => part.id === "t")).toBe(true);
    expect(out.filter((part) => part.type.startsWith("tool-"))).toEqual([]);
  });
});

describe("the middleware over a model stream that fails after a recovered call", () => {
  test("the call stands; the text held after it goes out as written (not stripped as at the reply's end)", async () => {
    const CALL = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
    const { parts: out, error } = await middlewareFailingAfter(["Listing. ", CALL, " Here is what I found: 42."]);
    expect(error).toBeInstanceOf(TypeError);
    expect(out.flatMap((part) => (part.type === "tool-call" ? [`${part.toolName}:${part.input}`] : []))).toEqual(['bash:{"command":"ls"}']);
    expect(out.map((part) => (part.type === "text-delta" ? part.delta : "")).join("")).toBe("Listing.  Here is what I found: 42.");
  });
});
