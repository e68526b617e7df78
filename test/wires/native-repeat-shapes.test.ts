// A leaked call sent, then the same call natively in the shapes review 47 found on the chat wire
// (src/wires/chat/native-repeats.ts over src/wires/held-native.ts), around its fixes: the client
// (the AI SDK's chat providers, or the host of the middleware) runs each call once and reads a
// well-formed stream, whatever the split. The same shapes where they can occur on the middleware's
// stream, and a cut after a complete call on the Anthropic and Responses wires, whose clients
// finish a call only at its own end event.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { HERMES, READ, SCHEMA, chatClient, chatSse, chunk, dataEvents, everySplitView, rawReply } from "../hostile/review-47-chat-support.ts";
import { OVERLOADED, anthropicClient, messageStart, responsesClient, responsesEvents, message, textBlock } from "../hostile/review-46-wires-support.ts";

type Entry = Record<string, unknown>;
const LEAD = chunk({ role: "assistant", content: `Reading. ${HERMES}` });
const tc = (...entries: Entry[]) => chunk({ tool_calls: entries });
const inputs = (calls: { input: string }[]) => calls.map((c) => c.input).sort();

describe("chat: native calls told apart as the client tells them", () => {
  test("the repeat second of two interleaved calls: dropped, the other whole", async () => {
    const body = chatSse([
      LEAD,
      tc({ index: 0, id: "call_z", type: "function", function: { name: "read", arguments: '{"path":' } }),
      tc({ index: 1, id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }),
      tc({ index: 0, function: { arguments: '"z.ts"}' } }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(inputs(client.calls)).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
  });

  test("index 0 reused: a call with other input first, then the repeat under a new id: each once", async () => {
    const body = chatSse([
      LEAD,
      tc({ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"c.ts"}' } }),
      tc({ index: 0, id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(inputs(client.calls)).toEqual(['{"path":"a.ts"}', '{"path":"c.ts"}']);
  });

  test("two whole calls without index or id, the repeat first: the other runs", async () => {
    const body = chatSse([
      LEAD,
      tc({ type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }, { type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(inputs(client.calls)).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
  });

  test("a call without index, its arguments in a later entry with the same id: held until complete, dropped", async () => {
    const body = chatSse([
      LEAD,
      tc({ id: "call_n", type: "function", function: { name: "read", arguments: '{"path":' } }),
      tc({ id: "call_n", function: { arguments: '"a.ts"}' } }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  test("the name comes later and is another tool: the held call goes out whole, named", async () => {
    const body = chatSse([
      LEAD,
      tc({ index: 0, id: "call_g", type: "function", function: { arguments: '{"path":"b.ts"}' } }),
      tc({ index: 0, function: { name: "grep" } }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }, { name: "grep", input: '{"path":"b.ts"}' }]);
    const { text } = await rawReply({ model: "m", stream: true, messages: [{ role: "user", content: "x" }], tools: [READ] }, body);
    const entries = dataEvents(text).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    // The recovered call under 0, the native call once, under 1, named in its one entry.
    expect(entries.map((e: Entry) => [e.index, (e.function as Entry).name])).toEqual([[0, "read"], [1, "grep"]]);
  });

  test("the name comes later, same tool, other input: both run", async () => {
    const body = chatSse([LEAD, tc({ index: 0, id: "call_c", type: "function", function: { arguments: '{"path":"c.ts"}' } }), tc({ index: 0, function: { name: "read" } }), chunk({}, "tool_calls")]);
    const client = await chatClient("compatible", body);
    expect(inputs(client.calls)).toEqual(['{"path":"a.ts"}', '{"path":"c.ts"}']);
  });

  test("entries after a dropped repeat's arguments closed (blank) are dropped with it, not read into another call", async () => {
    const body = chatSse([
      LEAD,
      tc({ index: 0, id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }),
      tc({ index: 0, function: { arguments: " " } }),
      chunk({}, "tool_calls"),
    ]);
    const { text } = await rawReply({ model: "m", stream: true, messages: [{ role: "user", content: "x" }], tools: [READ] }, body);
    const entries = dataEvents(text).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    expect(entries).toHaveLength(1);
    expect(entries[0].function.arguments).toBe('{"path":"a.ts"}');
  });

  test("hard negative: no leak, interleaved native calls and a name-later one: all run as sent", async () => {
    const body = chatSse([
      chunk({ role: "assistant", content: "Reading. " }),
      tc({ index: 0, id: "call_0", type: "function", function: { name: "read", arguments: '{"path":' } }),
      tc({ index: 1, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }),
      tc({ index: 0, function: { arguments: '"a.ts"}' } }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(inputs(client.calls)).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
  });
});

describe("chat: the hold ends before the call's arguments close (cut, stand-aside, end)", () => {
  const NOW = { type: "function", name: "now", inputSchema: { type: "object", properties: {} } };
  const LEAK_NOW = chunk({ role: "assistant", content: 'Time. <tool_call>{"name":"now","arguments":{}}</tool_call>' });
  const native = tc({ index: 0, id: "call_now", type: "function", function: { name: "now", arguments: "" } });
  const extra = { tools: [NOW] };
  // A tool without arguments: "" is its whole input to the client, so only the hold's end decides it.
  for (const [name, last] of [
    ["an error chunk", { error: { message: "boom", code: 500 } }],
    ["finish_reason content_filter", chunk({}, "content_filter")],
    ["the finish", chunk({}, "tool_calls")],
  ] as const) {
    test(`a repeat with empty arguments, then ${name}: it runs once`, async () => {
      const client = await chatClient("compatible", chatSse([LEAK_NOW, native, last]), extra);
      expect(client.calls.map((c) => c.name)).toEqual(["now"]);
    });
  }

  test("an incomplete repeat at a cut goes out as it came (the client reads what the server sent)", async () => {
    const body = chatSse([LEAD, tc({ index: 0, id: "call_n", type: "function", function: { name: "read", arguments: '{"path":' } }), { error: { message: "boom" } }]);
    const { text } = await rawReply({ model: "m", stream: true, messages: [{ role: "user", content: "x" }], tools: [READ] }, body);
    const entries = dataEvents(text).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    expect(entries.map((e: Entry) => (e.function as Entry).arguments)).toEqual(['{"path":"a.ts"}', '{"path":']);
  });

  test("hard negative: no leak, the empty-argument native call runs", async () => {
    const client = await chatClient("compatible", chatSse([chunk({ role: "assistant", content: "Time. " }), native, chunk({}, "tool_calls")]), extra);
    expect(client.calls.map((c) => c.name)).toEqual(["now"]);
  });
});

describe("chat: one client view whatever the split", () => {
  const bodies: [string, string][] = [
    ["name later", chatSse([LEAD, tc({ index: 0, id: "call_n", type: "function", function: { arguments: "" } }), tc({ index: 0, function: { name: "read" } }), tc({ index: 0, function: { arguments: '{"path":"a.ts"}' } }), chunk({}, "tool_calls")])],
    ["interleaved", chatSse([LEAD, tc({ index: 0, id: "c0", type: "function", function: { name: "read", arguments: '{"path":' } }, { index: 1, id: "c1", type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }), tc({ index: 0, function: { arguments: '"a.ts"}' } }), chunk({}, "tool_calls")])],
    ["index 0 reused", chatSse([LEAD, tc({ index: 0, id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }), tc({ index: 0, id: "c2", type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }), chunk({}, "tool_calls")])],
  ];
  for (const [name, body] of bodies) {
    test(name, async () => {
      const runs = await everySplitView("compatible", body, {}, [1, 2, 3]);
      for (const run of runs.slice(1)) expect(run).toEqual(runs[0]!);
      expect((runs[0]!.calls as { input: string }[]).some((c) => c.input === '{"path":"a.ts"}')).toBe(true);
      expect((runs[0]!.calls as { input: string }[]).filter((c) => c.input === '{"path":"a.ts"}')).toHaveLength(1);
    });
  }
});

// ---------------------------------------------------------------- the middleware's stream

type Part = LanguageModelV3StreamPart;
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: SCHEMA };
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }], tools: [read] } as LanguageModelV3CallOptions;
const LEAK_PARTS: Part[] = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: `Reading. ${HERMES}` },
  { type: "text-end", id: "t" },
];
const FINISH: Part = { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } };

async function host(parts: Part[]): Promise<{ calls: string[]; starts: string[]; parts: Part[] }> {
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>([...LEAK_PARTS, ...parts]) }) });
  const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doStream(params);
  const out = await convertReadableStreamToArray(stream);
  return {
    calls: out.filter((p) => p.type === "tool-call").map((p) => (p as { input: string }).input).sort(),
    starts: out.filter((p) => p.type === "tool-input-start").map((p) => (p as { id: string }).id),
    parts: out,
  };
}

describe("middleware: interleaved native calls and a cut after a complete repeat", () => {
  test("interleaved tool inputs (as a chat provider gives them): the repeat dropped whole, the other whole", async () => {
    const { calls, starts } = await host([
      { type: "tool-input-start", id: "n0", toolName: "read" },
      { type: "tool-input-delta", id: "n0", delta: '{"path":' },
      { type: "tool-input-start", id: "n1", toolName: "read" },
      { type: "tool-input-delta", id: "n1", delta: '{"path":"z.ts"}' },
      { type: "tool-input-delta", id: "n0", delta: '"a.ts"}' },
      { type: "tool-input-end", id: "n0" },
      { type: "tool-call", toolCallId: "n0", toolName: "read", input: '{"path":"a.ts"}' },
      { type: "tool-input-end", id: "n1" },
      { type: "tool-call", toolCallId: "n1", toolName: "read", input: '{"path":"z.ts"}' },
      FINISH,
    ]);
    expect(calls).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
    expect(starts).not.toContain("n0");
    expect(starts).toContain("n1");
  });

  test("an error part after the complete repeat's input, its tool-call after (a chat provider's flush): dropped, parts and call", async () => {
    const { calls, starts, parts } = await host([
      { type: "tool-input-start", id: "n0", toolName: "read" },
      { type: "tool-input-delta", id: "n0", delta: '{"path":"a.ts"}' },
      { type: "error", error: new Error("boom") },
      { type: "tool-input-end", id: "n0" },
      { type: "tool-call", toolCallId: "n0", toolName: "read", input: '{"path":"a.ts"}' },
      { ...FINISH, finishReason: { unified: "error", raw: "error" } },
    ]);
    expect(calls).toEqual(['{"path":"a.ts"}']);
    expect(starts).not.toContain("n0");
    expect(parts.some((p) => p.type === "tool-input-end" && p.id === "n0")).toBe(false);
  });

  test("an error part while the repeat's input is incomplete: the call goes out whole, its tool-call too", async () => {
    const { calls, starts, parts } = await host([
      { type: "tool-input-start", id: "n0", toolName: "read" },
      { type: "tool-input-delta", id: "n0", delta: '{"path":' },
      { type: "error", error: new Error("boom") },
      { type: "tool-input-end", id: "n0" },
      { type: "tool-call", toolCallId: "n0", toolName: "read", input: '{"path":' },
      { ...FINISH, finishReason: { unified: "error", raw: "error" } },
    ]);
    expect(calls).toEqual(['{"path":', '{"path":"a.ts"}']);
    expect(starts).toContain("n0");
    const n0 = parts.filter((p) => "id" in p && p.id === "n0").map((p) => p.type);
    expect(n0).toEqual(["tool-input-start", "tool-input-delta", "tool-input-end"]);
  });
});

// ---------------------------------------------------------------- Anthropic and Responses: a cut after a complete call

describe("Anthropic and Responses: a cut after the repeat's complete input, before its end event", () => {
  test("Anthropic: an error before content_block_stop: the client never finishes the native block, read a.ts once", async () => {
    const client = await anthropicClient([
      messageStart(),
      ...textBlock(0, [`Reading. ${HERMES}`]),
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_n", name: "read", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path":"a.ts"}' } },
      OVERLOADED,
    ]);
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  test("Responses: response.failed before the item's done: read a.ts once", async () => {
    const all = responsesEvents([message("msg_1", `Reading. ${HERMES}`), { id: "fc_n", type: "function_call", status: "completed", call_id: "call_fc_n", name: "read", arguments: '{"path":"a.ts"}' }]);
    const at = all.findIndex((e) => e.type === "response.function_call_arguments.done");
    const failed = { type: "response.failed", response: { id: "resp_1", object: "response", created_at: 1, status: "failed", model: "m", output: [], error: { code: "server_error", message: "boom" } } };
    const events = [...all.slice(0, at), failed].map((event, sequence_number) => ({ ...event, sequence_number }));
    const client = await responsesClient(events);
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});

describe("chat: a call after a dropped repeat under the same index, without an id", () => {
  // The client reads a named entry opening a JSON value after the call under its index closed as
  // another call: it is not read into the dropped repeat.
  test("the repeat dropped, the next call under index 0 (no id) runs", async () => {
    const body = chatSse([
      LEAD,
      tc({ index: 0, type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }),
      tc({ index: 0, type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(inputs(client.calls)).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
  });

  test("hard negative: no leak, the same two entries: both run", async () => {
    const body = chatSse([
      chunk({ role: "assistant", content: "Reading. " }),
      tc({ index: 0, type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }),
      tc({ index: 0, type: "function", function: { name: "read", arguments: '{"path":"z.ts"}' } }),
      chunk({}, "tool_calls"),
    ]);
    const client = await chatClient("compatible", body);
    expect(inputs(client.calls)).toEqual(['{"path":"a.ts"}', '{"path":"z.ts"}']);
  });
});
