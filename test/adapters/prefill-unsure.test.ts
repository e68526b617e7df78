// A prefill the server may not continue (review 43, second round): a request that ends in an
// assistant text turn on a shape where the server may as well start a fresh message (chat without
// DeepSeek's `prefix` or vLLM's `continue_final_message`, Responses, an AI SDK provider other than
// anthropic). A call runs only where it runs under both readings, continued and fresh
// (src/engine/two-readings.ts); where the server surely continues, the reply is read as continued.
// Markup is Hermes `<tool_call>` JSON: no DSML bytes.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { CALL, CHAT_TOOLS, READ_TOOL, SCHEMA, USAGE, chatDeltaSse, middlewareStream, readChatSse, splits } from "./prefill-support.ts";
import { JSON_HEADERS, type Json, anthropicTextStream, byteByByte, chunkedFetch, dataEvents, encode, postInit, responsesItemsStream, seededCuts } from "./wire-support.ts";

const ASK = "Show me, in a code block, what a read call looks like.";

/** A trailing turn that ends inside a fence it opened. */
const OPEN_FENCE = "Here is the example:\n```\n";
/** Read fresh, a fenced example; read after OPEN_FENCE, its first fence closes the prefill's and the call runs. */
const FENCED = `\`\`\`\n${CALL}\n\`\`\`\n`;
/** Read after OPEN_FENCE, the inside of the prefill's fence; read fresh, a bare call. */
const INSIDE = `${CALL}\n\`\`\``;
/** Read fresh, indented code; read after "Sure.", the same paragraph's text. */
const INDENTED = `    ${CALL}`;

interface Case {
  prefill: string;
  reply: string;
  /** Calls under the ambiguous shapes: only where both readings run one. */
  calls: number;
}
const CASES: Record<string, Case> = {
  "a fenced example after a prefill that opened a fence": { prefill: OPEN_FENCE, reply: FENCED, calls: 0 },
  "a call inside the prefill's fence": { prefill: OPEN_FENCE, reply: INSIDE, calls: 0 },
  "indented code after a prefill mid-line": { prefill: "Sure.", reply: INDENTED, calls: 0 },
  "a leak after a prefill both readings agree on": { prefill: "Sure.", reply: CALL, calls: 1 },
  "a leak after a prefill ending on a blank line": { prefill: "Sure.\n\n", reply: CALL, calls: 1 },
};

// ---------------------------------------------------------------- chat completions

/** What a client reads from a streamed chat reply (these content deltas) to a request ending in `last`. */
async function chatStream(last: Json, pieces: string[], extra: Json = {}): Promise<{ text: string; calls: number }> {
  const body = { model: "m", stream: true, tools: CHAT_TOOLS, messages: [{ role: "user", content: ASK }, last], ...extra };
  const res = await repairFetch({}, chunkedFetch([encode(chatDeltaSse(pieces))]))("http://m.test/v1/chat/completions", postInit(body));
  return readChatSse(await res.text());
}

describe("chat without prefix or continue_final_message: a call only where both readings run it", () => {
  for (const [name, { prefill, reply, calls }] of Object.entries(CASES)) {
    for (const [split, pieces] of splits(reply, [1, 2])) {
      test(`${name}, ${split}`, async () => {
        const out = await chatStream({ role: "assistant", content: prefill }, pieces);
        expect(out.calls).toBe(calls);
        if (calls === 0) expect(out.text).toBe(reply);
      });
    }
  }

  test("JSON: the same, one choice each", async () => {
    const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: FENCED }, finish_reason: "stop" }] };
    const body = { model: "m", tools: CHAT_TOOLS, messages: [{ role: "user", content: ASK }, { role: "assistant", content: OPEN_FENCE }] };
    const res = await repairFetch({}, chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS))("http://m.test/v1/chat/completions", postInit(body));
    const out = (await res.json()) as { choices: { message: Json }[] };
    expect([out.choices[0]!.message.content, out.choices[0]!.message.tool_calls]).toEqual([FENCED, undefined]);
  });
});

describe("chat that surely continues: the reply is read after the prefill", () => {
  const flags: [string, Json, Json][] = [
    ["DeepSeek prefix: true", { prefix: true }, {}],
    ["vLLM continue_final_message: true", {}, { continue_final_message: true }],
  ];
  for (const [name, onLast, extra] of flags) {
    for (const [split, pieces] of splits(FENCED, [3])) {
      test(`${name}: the reply's first fence closes the prefill's, ${split}`, async () => {
        expect((await chatStream({ role: "assistant", content: OPEN_FENCE, ...onLast }, pieces, extra)).calls).toBe(1);
      });
    }
    test(`${name}: the same paragraph's text is no indented code`, async () => {
      expect((await chatStream({ role: "assistant", content: "Sure.", ...onLast }, [INDENTED], extra)).calls).toBe(1);
    });
    test(`${name}: inside the prefill's fence, no call`, async () => {
      expect(await chatStream({ role: "assistant", content: OPEN_FENCE, ...onLast }, [INSIDE], extra)).toEqual({ text: INSIDE, calls: 0 });
    });
  }
});

// ---------------------------------------------------------------- Responses

describe("Responses: a call only where both readings run it", () => {
  const tools = [{ type: "function", name: "read", parameters: SCHEMA }];
  async function run(prefill: string, parts: Uint8Array[]): Promise<{ text: string; calls: number }> {
    const body = { model: "m", stream: true, tools, input: [{ role: "user", content: ASK }, { type: "message", role: "assistant", content: [{ type: "output_text", text: prefill }] }] };
    const res = await repairFetch({}, chunkedFetch(parts))("http://m.test/v1/responses", postInit(body));
    let text = "";
    let calls = 0;
    for (const event of dataEvents(await res.text())) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.output_item.added" && event.item.type === "function_call") calls++;
    }
    return { text, calls };
  }
  const cuts: [string, (bytes: Uint8Array) => Uint8Array[]][] = [
    ["whole", (bytes) => [bytes]],
    ["byte by byte", byteByByte],
    ["random cuts", (bytes) => seededCuts(bytes, 4, 16)],
  ];
  for (const [name, { prefill, reply, calls }] of Object.entries(CASES)) {
    for (const [cutName, cut] of cuts) {
      for (const deltaSize of [1, 5, reply.length]) {
        test(`${name}, ${cutName}, text deltas of ${deltaSize}`, async () => {
          const out = await run(prefill, cut(encode(responsesItemsStream([{ id: "msg_1", parts: [reply] }], deltaSize))));
          expect(out.calls).toBe(calls);
          if (calls === 0) expect(out.text).toBe(reply);
        });
      }
    }
  }
});

// ---------------------------------------------------------------- Anthropic Messages (certain)

test("Anthropic Messages surely continues: the reply's first fence closes the prefill's", async () => {
  // Anthropic refuses a prefill that ends in whitespace: the fence line ends in the reply.
  const body = { model: "m", max_tokens: 9, stream: true, tools: [{ name: "read", input_schema: SCHEMA }], messages: [{ role: "user", content: ASK }, { role: "assistant", content: "Here is the example:\n```" }] };
  const res = await repairFetch({}, chunkedFetch([encode(anthropicTextStream(`\n${FENCED}`, 3))]))("http://m.test/v1/messages", postInit(body));
  const uses = dataEvents(await res.text()).filter((e) => e.type === "content_block_start" && e.content_block.type === "tool_use");
  expect(uses.length).toBe(1);
});

// ---------------------------------------------------------------- AI SDK middleware

const sdkText = (t: string) => ({ type: "text" as const, text: t });
const prompted = (prefill: string) => ({ prompt: [{ role: "user", content: [sdkText(ASK)] }, { role: "assistant", content: [sdkText(prefill)] }], tools: [READ_TOOL] }) as unknown as LanguageModelV3CallOptions;

const mockStream = (provider: string | undefined, prefill: string, pieces: string[]) => middlewareStream(pieces, prompted(prefill), provider);

async function mockGenerate(provider: string | undefined, prefill: string, reply: string) {
  const mock = new MockLanguageModelV3({ ...(provider ? { provider } : {}), doGenerate: async () => ({ content: [sdkText(reply)], finishReason: { unified: "stop", raw: "stop" }, usage: USAGE, warnings: [] }) });
  const { content } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doGenerate(prompted(prefill));
  return { calls: content.filter((p) => p.type === "tool-call").length, text: content.map((p) => (p.type === "text" ? p.text : "")).join("") };
}

describe("AI SDK middleware, a provider other than anthropic: a call only where both readings run it", () => {
  for (const provider of [undefined, "openai.chat", "deepseek.chat"]) {
    for (const [name, { prefill, reply, calls }] of Object.entries(CASES)) {
      for (const [split, pieces] of splits(reply, [5])) {
        test(`${provider ?? "mock-provider"}: ${name}, stream ${split}`, async () => {
          const out = await mockStream(provider, prefill, pieces);
          expect(out.calls).toBe(calls);
          if (calls === 0) expect(out.text).toBe(reply);
        });
      }
      test(`${provider ?? "mock-provider"}: ${name}, doGenerate`, async () => {
        const out = await mockGenerate(provider, prefill, reply);
        expect(out.calls).toBe(calls);
        if (calls === 0) expect(out.text).toBe(reply);
      });
    }
  }
});

describe("AI SDK middleware, the anthropic provider surely continues", () => {
  // The provider trims the prefill's end (Anthropic refuses trailing whitespace): the fence line ends in the reply.
  const openFence = OPEN_FENCE.trimEnd();
  for (const [split, pieces] of splits(`\n${FENCED}`, [6])) {
    test(`the reply's first fence closes the prefill's, stream ${split}`, async () => {
      expect((await mockStream("anthropic.messages", openFence, pieces)).calls).toBe(1);
    });
  }
  test("doGenerate: inside the prefill's fence, no call; the same paragraph's text is no indented code", async () => {
    expect(await mockGenerate("anthropic.messages", openFence, `\n${INSIDE}`)).toEqual({ calls: 0, text: `\n${INSIDE}` });
    expect((await mockGenerate("anthropic.messages", "Sure.", INDENTED)).calls).toBe(1);
  });
});

describe("the providers' own names, as @ai-sdk/anthropic and @ai-sdk/openai give them", () => {
  /** A model of the real provider package whose requests are answered by `answer`. */
  async function generated(model: LanguageModelV3, prefill: string) {
    const { content } = await wrapLanguageModel({ model, middleware: repairMiddleware({}) }).doGenerate(prompted(prefill));
    return content.filter((p) => p.type === "tool-call").length;
  }
  const answering = (json: Json) => (async () => new Response(JSON.stringify(json), { status: 200, headers: JSON_HEADERS })) as unknown as typeof fetch;

  test("anthropic: continued (the reply's first fence closes the prefill's)", async () => {
    const message = { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: `\n${FENCED}` }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
    const model = createAnthropic({ apiKey: "k", fetch: answering(message) })("claude-test");
    expect(model.provider).toBe("anthropic.messages");
    expect(await generated(model, "Here is the example:\n```")).toBe(1);
  });

  test("openai chat: both readings (a fenced example stays one)", async () => {
    const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: FENCED }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    const model = createOpenAI({ apiKey: "k", fetch: answering(answer) }).chat("gpt-test");
    expect(await generated(model, OPEN_FENCE)).toBe(0);
  });
});

// ---------------------------------------------------------------- the rule, over a grid

describe("over a grid of prefills and replies, an unsure prefill runs a call exactly where both readings do", () => {
  // Each prefill leaves the documentation context somewhere else (a paragraph mid-line or at a
  // line start, a fence, a code span, a blockquote, a list item, HTML blocks of type 6 and 7,
  // indented code, a table row, a link reference definition, an HTML comment, an escape); each
  // reply is read differently from one of them than from a fresh start.
  const prefills = ["Sure.", "Sure.\n", "Sure.\n\n", "Here:\n```\n", "Use `x", "> quote\n", "- item\n", "<div>\n", "<custom>\n", "    code\n", "a | b\n", "[x]: ", "Sure. <!-- ", "\\"];
  const replies = [CALL, FENCED, INSIDE, INDENTED, `  ${CALL}`, `<custom>\n${CALL}`, `\` ${CALL}`, `\n${CALL}`, `\n\n${CALL}`, `> ${CALL}`, `-->\n\n${CALL}`, `|-|-|\n${CALL}`, `x\`\n\n${CALL}`];
  const user = { role: "user", content: ASK };
  /** Calls in a chat JSON answer `reply` to these messages. */
  async function calls(messages: Json[], reply: string): Promise<number> {
    const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }] };
    const res = await repairFetch({}, chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS))("http://m.test/v1/chat/completions", postInit({ model: "m", tools: CHAT_TOOLS, messages }));
    const out = (await res.json()) as { choices: { message: Json }[] };
    return (out.choices[0]!.message.tool_calls ?? []).length;
  }
  for (const prefill of prefills) {
    test(JSON.stringify(prefill), async () => {
      const rows: string[] = [];
      const expected: string[] = [];
      for (const reply of replies) {
        const continued = await calls([user, { role: "assistant", content: prefill, prefix: true }], reply);
        const fresh = await calls([user], reply);
        const unsure = await calls([user, { role: "assistant", content: prefill }], reply);
        // Streamed char by char, the same: and every character of a reply without a call comes back.
        const streamed = await chatStream({ role: "assistant", content: prefill }, [...reply]);
        rows.push(`${JSON.stringify(reply)}: ${unsure} ${streamed.calls}${streamed.calls === 0 && streamed.text !== reply ? " text lost" : ""}`);
        expected.push(`${JSON.stringify(reply)}: ${Math.min(continued, fresh)} ${Math.min(continued, fresh)}`);
      }
      expect(rows).toEqual(expected);
    });
  }
});
