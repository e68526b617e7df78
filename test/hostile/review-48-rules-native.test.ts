// Review 48 (hostile, tests only): a leaked DSML call now waits for its block's closer (the block
// hold, src/engine/output.ts blockHold), so it may go out AFTER a native call for the same tool
// and input has streamed past: held-native.ts / sent-calls.ts only hold a native call that may
// repeat a call already SENT. Chat-completions through repairFetch and the AI SDK chat providers,
// and the AI SDK middleware. DSML is built from test/golden/notation.ts (no marker bytes here).
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { live } from "../golden/notation.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { responsesItemSse } from "../adapters/responses-support.ts";
import { chunkedFetch, dataEvents, encode, namedSse } from "../adapters/wire-support.ts";
import { sdkTools, throughMiddleware } from "../security/support.ts";
import { PROVIDERS, chatClient, chatSse, chunk } from "./review-47-chat-support.ts";

const tc = (entry: Record<string, unknown>) => chunk({ tool_calls: [entry] });
const READ_DSML = `<{D}invoke name="read">\n<{D}parameter name="path" string="true">a.ts</{D}parameter>\n</{D}invoke>`;
const NATIVE = tc({ index: 0, id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } });
const OPEN_WITH_PROSE = `Reading.\n<{D}tool_calls>\n${READ_DSML}\nMore prose.`;

describe("chat: a leaked call held for its block's closer, then the same call natively", () => {
  // fixed (was FINDING, high: a call runs twice). The leaked block's invoke is complete, then prose, and the
  // block's closer never comes (or comes after the native call): the engine holds the recovered
  // `read a.ts` for the closer (prose does not end the block), so it is not yet "sent" when the
  // native `read a.ts` streams; the native call goes out, and at the reply's end the held call
  // goes out too: the client runs read a.ts twice. Without the prose (control) it runs once. A
  // `read` is harmless; the same shape runs a `bash` (git commit, a migration, rm) or a `write`
  // twice. The text "More prose." is also gone from what the client shows. Expected: one call
  // (the leak is the native call's duplicate, D08, as the JSON path and the no-prose stream say).
  // Suspected: src/engine/output.ts (blockHold: held calls are not offered to the wire's
  // SentCalls / native-duplicate check until the closer or the end), src/wires/chat
  // (native-repeats.ts) and src/wires/held-native.ts (a native call is held only for calls SENT,
  // not for calls the engine still holds).
  for (const provider of PROVIDERS) {
    test(`${provider}: invoke complete, prose, no block closer, then the native repeat: read a.ts once`, async () => {
      const client = await chatClient(provider, chatSse([chunk({ role: "assistant", content: live(OPEN_WITH_PROSE) }), NATIVE, chunk({}, "tool_calls")]));
      expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    });
    test(`${provider}: the block's closer after the native repeat: read a.ts once`, async () => {
      const client = await chatClient(provider, chatSse([chunk({ role: "assistant", content: live(OPEN_WITH_PROSE) }), NATIVE, chunk({ content: live(`\n</{D}tool_calls>`) }), chunk({}, "tool_calls")]));
      expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    });
    // Hard negatives (pass on main): no prose after the invoke, or the block closed before the native call.
    test(`${provider}: hard negative: no prose, no closer: read a.ts once`, async () => {
      const client = await chatClient(provider, chatSse([chunk({ role: "assistant", content: live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\n`) }), NATIVE, chunk({}, "tool_calls")]));
      expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    });
    test(`${provider}: hard negative: the block closed, then the native repeat: read a.ts once`, async () => {
      const client = await chatClient(provider, chatSse([chunk({ role: "assistant", content: live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\n</{D}tool_calls>`) }), NATIVE, chunk({}, "tool_calls")]));
      expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    });
  }
});

describe("middleware: the same, as @ai-sdk/openai-compatible streams it (text-end only at the stream's end)", () => {
  type Part = LanguageModelV3StreamPart;
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const tools = sdkTools([{ name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }]);
  const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "read a.ts" }] }];
  const parts = (text: string, after: Part[] = []): Part[] => [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...[...text].map((delta): Part => ({ type: "text-delta", id: "t", delta })),
    { type: "tool-input-start", id: "call_n", toolName: "read" },
    { type: "tool-input-delta", id: "call_n", delta: '{"path":"a.ts"}' },
    { type: "tool-input-end", id: "call_n" },
    { type: "tool-call", toolCallId: "call_n", toolName: "read", input: '{"path":"a.ts"}' },
    ...after,
    { type: "text-end", id: "t" },
    { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } },
  ];
  // fixed (was FINDING, high, the same as on the chat wire): suspected src/adapters/middleware.ts with
  // src/wires/held-native.ts and src/engine/output.ts blockHold.
  test("invoke complete, prose, no block closer, then the native repeat: read a.ts once", async () => {
    const run = await throughMiddleware(prompt, parts(live(OPEN_WITH_PROSE)), {}, { tools });
    expect(run.calls).toEqual([{ toolName: "read", input: '{"path":"a.ts"}' }]);
  });
  test("hard negative: the block closed before the native repeat: read a.ts once", async () => {
    const run = await throughMiddleware(prompt, parts(live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\n</{D}tool_calls>`)), {}, { tools });
    expect(run.calls).toEqual([{ toolName: "read", input: '{"path":"a.ts"}' }]);
  });
});

describe("chat hard negatives (pass on main): the repeat check itself", () => {
  const CLOSED = `Reading.\n<{D}tool_calls>\n${READ_DSML}\n</{D}tool_calls>`;
  test("the repeat's arguments with other whitespace: read a.ts once", async () => {
    const client = await chatClient("compatible", chatSse([chunk({ role: "assistant", content: live(CLOSED) }), tc({ index: 0, id: "call_n", type: "function", function: { name: "read", arguments: '{ "path" :\n "a.ts" }' } }), chunk({}, "tool_calls")]));
    expect(client.calls.length).toBe(1);
  });
  test("the repeat and another native call interleaved by index: each runs once", async () => {
    const client = await chatClient("compatible", chatSse([
      chunk({ role: "assistant", content: live(CLOSED) }),
      tc({ index: 0, id: "call_n", type: "function", function: { name: "read", arguments: '{"path":' } }),
      tc({ index: 1, id: "call_m", type: "function", function: { name: "read", arguments: '{"path":"b.ts"}' } }),
      tc({ index: 0, function: { arguments: '"a.ts"}' } }),
      chunk({}, "tool_calls"),
    ]));
    expect(client.calls.map((c) => c.input).sort()).toEqual(['{"path":"a.ts"}', '{"path":"b.ts"}']);
  });
  test("the leaked call refused by a stray parameter after the native call: the native call runs once", async () => {
    const client = await chatClient("compatible", chatSse([
      chunk({ role: "assistant", content: live(`Reading.\n<{D}tool_calls>\n${READ_DSML}\n`) }),
      NATIVE,
      chunk({ content: live(`<{D}parameter name="path" string="true">b.ts</{D}parameter>\n</{D}tool_calls>`) }),
      chunk({}, "tool_calls"),
    ]));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});

describe("Anthropic and Responses hard negatives (pass on main): the text part ends before the native call, so the held call is sent first", () => {
  // The block hold lets held calls go at a text part's end (endSpan, a known gap for the stray
  // rule); here that is what keeps the native repeat from running twice. The native call reads
  // n.ts, as responses-support.ts's native item does.
  const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
  const text = live(`Reading.\n<{D}tool_calls>\n${READ_DSML.replace("a.ts", "n.ts")}\nMore prose.`);
  test("Responses: read n.ts once", async () => {
    const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }], tools: [{ type: "function", name: "read", parameters: SCHEMA }] }) };
    for (const size of [1, 7, 1000]) {
      const out = await (await repairFetch({}, chunkedFetch([encode(responsesItemSse([{ message: "m1", parts: [text] }, { native: "fc1" }], size))]))("http://model.test/v1/responses", init)).text();
      const calls = dataEvents(out).filter((e) => e.type === "response.output_item.done" && e.item?.type === "function_call");
      expect(calls.map((e) => e.item.arguments)).toEqual(['{"path":"n.ts"}']);
    }
  });
  test("Anthropic: read n.ts once", async () => {
    for (const size of [1, 7, 1000]) {
      const events: Record<string, unknown>[] = [
        { type: "message_start", message: { id: "msg", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } },
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      ];
      for (let i = 0; i < text.length; i += size) events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: text.slice(i, i + size) } });
      events.push(
        { type: "content_block_stop", index: 0 },
        { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "read", input: {} } },
        { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path":"n.ts"}' } },
        { type: "content_block_stop", index: 1 },
        { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 5 } },
        { type: "message_stop" },
      );
      const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }], tools: [{ name: "read", input_schema: SCHEMA }] }) };
      const out = await (await repairFetch({}, chunkedFetch([encode(namedSse(events))]))("http://127.0.0.1:1/v1/messages", init)).text();
      expect(dataEvents(out).filter((e) => e.type === "content_block_start" && e.content_block?.type === "tool_use").length).toBe(1);
    }
  });
});
