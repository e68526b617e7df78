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

describe.each([1, 7, 64])("the middleware over a model stream that fails mid-reply (deltas of %p characters)", (size) => {
  test("the held text goes out under its text part before the error; no call, nothing lost", async () => {
    const pieces = Array.from({ length: Math.ceil(CUT.length / size) }, (_, i) => CUT.slice(i * size, (i + 1) * size));
    const deltas = ["Looking.\n", ...pieces];
    const parts: LanguageModelV3StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      ...deltas.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "t", delta })),
    ];
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: failingParts(parts) }) });
    const wrapped = wrapLanguageModel({ model, middleware: repairMiddleware() });
    const inputSchema = tools[0]!.function.parameters;
    const { stream } = await wrapped.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: [{ type: "function", name: "bash", inputSchema }] });
    const { parts: out, error } = await partsUntilError(stream);
    expect(error).toBeInstanceOf(TypeError);
    const text = out.flatMap((part) => (part.type === "text-delta" ? [part] : []));
    expect(text.map((part) => part.delta).join("")).toBe(`Looking.\n${CUT}`);
    expect(text.every((part) => part.id === "t")).toBe(true);
    expect(out.filter((part) => part.type.startsWith("tool-"))).toEqual([]);
  });
});

/** A complete Hermes body without its closer: at the reply's end it runs; cut there, it was maybe an example. */
const HERMES = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf build"}}';

describe.each([1, 7, 64])("the middleware over a model stream that fails right after a complete body (deltas of %p characters)", (size) => {
  test("the body goes back as text, as written, under its text part; no tool part", async () => {
    const pieces = Array.from({ length: Math.ceil(HERMES.length / size) }, (_, i) => HERMES.slice(i * size, (i + 1) * size));
    const parts: LanguageModelV3StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      ...["It looks like this: ", ...pieces].map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "t", delta })),
    ];
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: failingParts(parts) }) });
    const wrapped = wrapLanguageModel({ model, middleware: repairMiddleware() });
    const inputSchema = tools[0]!.function.parameters;
    const { stream } = await wrapped.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: [{ type: "function", name: "bash", inputSchema }] });
    const { parts: out, error } = await partsUntilError(stream);
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
    const parts: LanguageModelV3StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      ...["Listing. ", CALL, " Here is what I found: 42."].map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "t", delta })),
    ];
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: failingParts(parts) }) });
    const wrapped = wrapLanguageModel({ model, middleware: repairMiddleware() });
    const inputSchema = tools[0]!.function.parameters;
    const { stream } = await wrapped.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: [{ type: "function", name: "bash", inputSchema }] });
    const { parts: out, error } = await partsUntilError(stream);
    expect(error).toBeInstanceOf(TypeError);
    expect(out.flatMap((part) => (part.type === "tool-call" ? [`${part.toolName}:${part.input}`] : []))).toEqual(['bash:{"command":"ls"}']);
    expect(out.map((part) => (part.type === "text-delta" ? part.delta : "")).join("")).toBe("Listing.  Here is what I found: 42.");
  });
});
