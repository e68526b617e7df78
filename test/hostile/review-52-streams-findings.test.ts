/**
 * Review 52 (hostile, tests only): SSE framing and the streamed chat wire, read through the real
 * repairFetch and, where it decides what a client sees, the real @ai-sdk/openai-compatible
 * provider. Every stream is checked whole, byte by byte and at seeded byte cuts. Markup is a
 * Hermes `<tool_call>`, so no DSML marker bytes are written here.
 */
import { describe, expect, test } from "bun:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { byteByByte, chunkedFetch, encode, seededCuts } from "../adapters/wire-support.ts";
import { type Json, chatJson, chatSse, keptEverySplit, keptOfJson, requestFor } from "./review-51-wires-support.ts";

const CHUNK = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };
const event = (chunk: Json) => `data: ${JSON.stringify(chunk)}\n\n`;
const chunk = (delta: Json, finish: string | null = null) => event({ ...CHUNK, choices: [{ index: 0, delta, finish_reason: finish }] });
const END = chunk({}, "stop") + "data: [DONE]\n\n";
const READ = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const SDK_TOOLS = [{ type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];

interface Seen {
  reasoning: string;
  text: string;
  calls: string[];
  finish: unknown;
}

/** What @ai-sdk/openai-compatible's chat model makes of `body` (byte chunks), through repairFetch unless `raw`. */
async function sdk(chunks: Uint8Array[], raw = false): Promise<Seen> {
  const base = chunkedFetch(chunks);
  const fetch = raw ? base : repairFetch({}, base);
  const model = createOpenAICompatible({ name: "p", baseURL: "http://model.test/v1", apiKey: "k", fetch }).chatModel("m");
  const { stream } = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: SDK_TOOLS } as never);
  const parts: Json[] = [];
  const reader = (stream as ReadableStream<Json>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return {
    reasoning: parts.filter((p) => p.type === "reasoning-delta").map((p) => p.delta).join(""),
    text: parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join(""),
    calls: parts.filter((p) => p.type === "tool-call").map((p) => `${p.toolName} ${p.input}`),
    finish: parts.find((p) => p.type === "finish")?.finishReason?.raw,
  };
}

/** The client's view of `body` whole, byte by byte and at seeded cuts. */
async function sdkEverySplit(body: string, raw = false): Promise<Seen[]> {
  const bytes = encode(body);
  const runs = [await sdk([bytes], raw), await sdk(byteByByte(bytes), raw)];
  for (const seed of [1, 2, 3, 4]) runs.push(await sdk(seededCuts(bytes, seed, 40), raw));
  return runs;
}

// ---------------------------------------------------------------------------------------------
// Finding A (wrong execution): a chat reply SGLang aborted (`finish_reason: "abort"`) is decided
// as if it ended.
//
// What is wrong: docs/HOW-IT-WORKS.md ("A reply that is cut, or too long to hold"): a reply that
// is cut did not end; the text still held goes out exactly as written, nothing in it decided (an
// example whose explaining prose never arrived does not run), and the finish reason stays as the
// server sent it. SGLang streams (and answers in JSON) `finish_reason: "abort"` for a request it
// aborted without a status code (the /abort_request endpoint, a session's clean-up: "a graceful
// abort ... falls through to the normal chunk path" in sglang's serving_chat.py), a reply cut
// mid-generation like `error`. The chat wire knows only `content_filter` and `error` as cuts
// (CUT_FINISH_REASONS), so an abort is read as `stop`: the unclosed call the model was still
// writing runs, and the finish reason becomes `tool_calls`, hiding the abort from the client.
// Severity: wrong execution (a cut call runs).
// Minimal input: content `Let me run it.\n<tool_call>{"name":"bash","arguments":{"command":"make deploy"}}`,
// then `finish_reason: "abort"`.
// Suspected source: src/wires/chat/call-numbering.ts (CUT_FINISH_REASONS), used by
// src/wires/chat/rewriter.ts (cutsReply) and the JSON path in src/wires/chat/wire.ts.
// Expected: as for `error`: no call, the text as written, finish_reason `abort`.
// ---------------------------------------------------------------------------------------------
describe("finding A: finish_reason abort is a cut, not an end", () => {
  const BASH = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
  const extra = { tools: [{ type: "function", function: { name: "bash", parameters: BASH } }] };
  const leak = 'Let me run it.\n<tool_call>{"name":"bash","arguments":{"command":"make deploy"}}';
  const cut = { calls: [], text: leak, finish: "abort" };

  test.failing("stream: an unclosed call before finish_reason abort never runs, the finish stays abort (every split)", async () => {
    const runs = await keptEverySplit("chat", requestFor("chat", true, extra), chatSse([{ message: { content: leak }, finish: "abort" }]));
    for (const run of runs) expect(run).toEqual(cut);
  });

  test.failing("JSON: the same reply answered whole: no call, the text as written", async () => {
    expect(await keptOfJson("chat", requestFor("chat", false, extra), chatJson([{ message: { content: leak }, finish: "abort" }]))).toEqual(cut);
  });

  test("hard negative: finish_reason error keeps the text as written (passes today)", async () => {
    const runs = await keptEverySplit("chat", requestFor("chat", true, extra), chatSse([{ message: { content: leak }, finish: "error" }]));
    for (const run of runs) expect(run).toEqual({ ...cut, finish: "error" });
  });

  test("hard negative: length and stop ended the reply: the call runs, the finish becomes tool_calls (passes today)", async () => {
    for (const finish of ["length", "stop"]) {
      const runs = await keptEverySplit("chat", requestFor("chat", true, extra), chatSse([{ message: { content: leak }, finish }]));
      for (const run of runs) expect(run).toEqual({ calls: [{ name: "bash", input: { command: "make deploy" } }], text: "Let me run it.\n", finish: "tool_calls" });
    }
  });

  test("hard negative: a call closed before the abort (or an error) was recovered then and stands (passes today)", async () => {
    const closed = `Let me run it.\n<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>`;
    for (const finish of ["abort", "error"]) {
      const runs = await keptEverySplit("chat", requestFor("chat", true, extra), chatSse([{ message: { content: closed }, finish }]));
      for (const run of runs) expect(run.calls).toEqual([{ name: "bash", input: { command: "ls" } }]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Finding B (invented text): a chat stream that carries its thinking under both `reasoning_content`
// and `reasoning` (vLLM from PR #27752, Nov 2025, until `reasoning_content` was removed in
// PR #33402: "reasoning_content is kept for backwards compatibility") shows the markup the
// repair held back, and shows it twice.
//
// What is wrong: the reasoning channel (D06) holds a trailing call block back by rewriting or
// deleting `reasoning_content` only; the `reasoning` mirror in the same delta goes on as it came.
// @ai-sdk/openai-compatible reads `delta.reasoning_content ?? delta.reasoning`, so every chunk
// whose `reasoning_content` the repair deleted (all of it held) is read from the untouched
// `reasoning` instead: the held markup shows in the reasoning, and when the block does not run
// (content followed) the repair gives it back as well, so the client shows it twice. When it
// runs, a torn half of its markup is shown beside the call.
// Severity: invented text (the reasoning the client shows and keeps is not what the model wrote).
// Minimal input: reasoning deltas "Let me read the file." / "\n<tool_call>{\"name\":" / rest of
// the Hermes block, each under both keys, then content "Done." (or nothing).
// Suspected source: src/wires/chat/reasoning-deltas.ts (thought(): only reasoningKeyOf's key is
// rewritten; a delta carrying both keys keeps the other).
// Expected: the client's reasoning is the same as when the provider sends one key only.
// ---------------------------------------------------------------------------------------------
describe("finding B: a delta with both reasoning_content and reasoning", () => {
  const pieces = ["Let me read the file.", `\n${READ}`.slice(0, 20), `\n${READ}`.slice(20)];
  const stream = (keys: ("reasoning_content" | "reasoning")[], content?: string) =>
    pieces.map((p) => chunk(Object.fromEntries(keys.map((k) => [k, p])))).join("") + (content ? chunk({ content }) : "") + END;

  test.failing("content follows (the block does not run): the reasoning is shown once, as written (every split)", async () => {
    for (const run of await sdkEverySplit(stream(["reasoning_content", "reasoning"], "Done."))) {
      expect(run).toEqual({ reasoning: `Let me read the file.\n${READ}`, text: "Done.", calls: [], finish: "stop" });
    }
  });

  test.failing("the reasoning is the answer (the block runs): no torn markup in the reasoning (every split)", async () => {
    for (const run of await sdkEverySplit(stream(["reasoning_content", "reasoning"]))) {
      expect(run).toEqual({ reasoning: "Let me read the file.\n", text: "", calls: ['read {"path":"a.ts"}'], finish: "tool_calls" });
    }
  });

  test("hard negative: reasoning_content alone, content after: the reasoning as written, no call (passes today)", async () => {
    for (const run of await sdkEverySplit(stream(["reasoning_content"], "Done."))) {
      expect(run).toEqual({ reasoning: `Let me read the file.\n${READ}`, text: "Done.", calls: [], finish: "stop" });
    }
  });

  test("hard negative: reasoning alone (newer vLLM, OpenRouter), the reasoning the answer: the block runs (passes today)", async () => {
    for (const run of await sdkEverySplit(stream(["reasoning"]))) {
      expect(run).toEqual({ reasoning: "Let me read the file.\n", text: "", calls: ['read {"path":"a.ts"}'], finish: "tool_calls" });
    }
  });

  test("hard negative: both keys, no markup: passes through, the reasoning once (passes today)", async () => {
    const plain = ["Thinking", " about it."].map((p) => chunk({ reasoning_content: p, reasoning: p })).join("") + chunk({ content: "Done." }) + END;
    for (const run of await sdkEverySplit(plain)) expect(run).toEqual({ reasoning: "Thinking about it.", text: "Done.", calls: [], finish: "stop" });
  });
});

// ---------------------------------------------------------------------------------------------
// Finding C (wrong execution, unlikely upstream): an event the client ignores is read by the repair.
//
// What is wrong: a client strips a byte order mark only at the start of the stream (TextDecoderStream,
// eventsource-parser); a U+FEFF at the start of a later event makes its first line the field
// "\uFEFFdata", which the SSE spec ignores, so the client never sees that event. The repair decodes
// each event on its own with a default TextDecoder, which strips a leading BOM from every decode,
// so it reads that line as `data:`: markup in the ignored event becomes a call the client runs,
// and the text before it (the client's view) gains a tool call and a `tool_calls` finish it never
// had. HOW-IT-WORKS: "A stream is read as its client reads it".
// Severity: wrong execution (a call out of bytes the client would not read); only an upstream that
// writes a BOM mid-stream triggers it.
// Minimal input: `data: {content:"Hi "}` then U+FEFF + `data: {content:"<tool_call>...</tool_call>"}`.
// Suspected source: src/sse/rewrite.ts (EventView's TextDecoder: ignoreBOM is false), and the
// shape path in src/wires/chat/chunk-shape.ts agrees only because it fails on the BOM's bytes.
// Expected: the repaired stream reads as the unrepaired one: text "Hi ", no call, finish stop.
// ---------------------------------------------------------------------------------------------
describe("finding C: a byte order mark inside the stream", () => {
  const midBom = chunk({ role: "assistant", content: "Hi " }) + "\uFEFF" + chunk({ content: READ }) + END;

  test("the unrepaired stream, as the client reads it: the event after the BOM is ignored (passes today)", async () => {
    for (const run of await sdkEverySplit(midBom, true)) expect(run).toEqual({ reasoning: "", text: "Hi ", calls: [], finish: "stop" });
  });

  test.failing("repaired: the ignored event stays ignored, no call is made from it (every split)", async () => {
    for (const run of await sdkEverySplit(midBom)) expect(run).toEqual({ reasoning: "", text: "Hi ", calls: [], finish: "stop" });
  });

  test("hard negative: a BOM at the very start of the stream is the client's to strip: the leak there runs (passes today)", async () => {
    const first = "\uFEFF" + chunk({ role: "assistant", content: READ }) + END;
    for (const run of await sdkEverySplit(first)) expect(run).toEqual({ reasoning: "", text: "", calls: ['read {"path":"a.ts"}'], finish: "tool_calls" });
  });

  test("hard negative: without the BOM the same leak runs (passes today)", async () => {
    const plain = chunk({ role: "assistant", content: "Hi " }) + chunk({ content: READ }) + END;
    for (const run of await sdkEverySplit(plain)) expect(run).toEqual({ reasoning: "", text: "Hi ", calls: ['read {"path":"a.ts"}'], finish: "tool_calls" });
  });
});
