// A reply that continues the request's last assistant turn (a prefill) is read after that turn's
// text: a fence the prefill opened holds in the reply (review 43). The rule is src/wires/prefill.ts;
// the reading, src/adapters/call-engines.ts. Markup is Hermes `<tool_call>` JSON: no DSML bytes.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import type { EngineOptions, RepairEngine } from "../../src/engine/types.ts";
import { chatPrefill, messagesPrefill, responsesPrefill, sdkPrefill } from "../../src/wires/prefill.ts";
import { CALL, CHAT_TOOLS, MESSAGES_TOOLS, READ_TOOL, SCHEMA, USAGE, chatDeltaSse, middlewareStream, readChatSse, splits } from "./prefill-support.ts";
import { JSON_HEADERS, type Json, anthropicTextStream, byteByByte, chunkedFetch, dataEvents, encode, postInit, seededCuts } from "./wire-support.ts";

/** The inside of the prefill's fence, and the fence's end. */
const REPLY = `${CALL}\n\`\`\``;
const ASK = "Show me, in a code block, what a read call looks like.";

describe("which turn a reply continues", () => {
  const text = (t: string) => ({ type: "text", text: t });
  const sure = (spans: string[]) => ({ spans, certain: true });
  const maybe = (spans: string[]) => ({ spans, certain: false });

  test("chat: a last assistant message with text, whatever its flags (certain with prefix or continue_final_message); not one that made calls", () => {
    const body = (last: Json, extra: Json = {}) => ({ messages: [{ role: "user", content: ASK }, last], ...extra });
    expect(chatPrefill(body({ role: "assistant", content: "```\n", prefix: true }))).toEqual(sure(["```\n"]));
    expect(chatPrefill(body({ role: "assistant", content: "```\n" }, { continue_final_message: true }))).toEqual(sure(["```\n"]));
    expect(chatPrefill(body({ role: "assistant", content: "```\n" }))).toEqual(maybe(["```\n"]));
    expect(chatPrefill(body({ role: "assistant", content: "```\n", prefix: "yes" }, { continue_final_message: 1 }))).toEqual(maybe(["```\n"]));
    expect(chatPrefill(body({ role: "assistant", content: [text("Here:\n"), text("```\n")] }))).toEqual(maybe(["Here:\n```\n"]));
    expect(chatPrefill(body({ role: "assistant", content: "x", tool_calls: [{ id: "c", type: "function", function: { name: "read", arguments: "{}" } }] }))).toBeUndefined();
    expect(chatPrefill(body({ role: "assistant", content: "" }))).toBeUndefined();
    expect(chatPrefill(body({ role: "assistant", content: null }))).toBeUndefined();
    expect(chatPrefill(body({ role: "user", content: "```\n" }))).toBeUndefined();
    expect(chatPrefill({ messages: [] })).toBeUndefined();
  });

  test("Messages: a last assistant turn whose content ends in text; its text runs are spans", () => {
    const body = (content: unknown) => ({ messages: [{ role: "user", content: ASK }, { role: "assistant", content }] });
    expect(messagesPrefill(body("Here:\n```"))).toEqual(sure(["Here:\n```"]));
    expect(messagesPrefill(body([text("a"), text("b"), { type: "tool_use", id: "t", name: "read", input: {} }, text("c")]))).toEqual(sure(["ab", "c"]));
    expect(messagesPrefill(body([text("a"), { type: "tool_use", id: "t", name: "read", input: {} }]))).toBeUndefined();
    expect(messagesPrefill({ messages: [{ role: "assistant", content: "x" }, { role: "user", content: "y" }] })).toBeUndefined();
  });

  test("Responses: a last assistant message item ending in a text part, each part a span", () => {
    const body = (last: unknown) => ({ input: [{ role: "user", content: ASK }, last] });
    expect(responsesPrefill(body({ role: "assistant", content: "```\n" }))).toEqual(maybe(["```\n"]));
    const parts = [{ type: "output_text", text: "Here:\n" }, { type: "output_text", text: "```\n" }];
    expect(responsesPrefill(body({ type: "message", role: "assistant", content: parts }))).toEqual(maybe(["Here:\n", "```\n"]));
    expect(responsesPrefill(body({ type: "message", role: "assistant", content: [...parts, { type: "refusal", refusal: "no" }] }))).toBeUndefined();
    expect(responsesPrefill(body({ type: "function_call", role: "assistant", name: "read", arguments: "{}" }))).toBeUndefined();
    expect(responsesPrefill({ input: "```\n" })).toBeUndefined();
  });

  test("AI SDK: a last assistant message whose last part is text; certain with the anthropic provider", () => {
    const prompt = (content: unknown[]) => [{ role: "user", content: [text(ASK)] }, { role: "assistant", content }] as LanguageModelV3Prompt;
    expect(sdkPrefill(prompt([text("```\n")]))).toEqual(maybe(["```\n"]));
    expect(sdkPrefill(prompt([text("```\n")]), "openai.chat")).toEqual(maybe(["```\n"]));
    expect(sdkPrefill(prompt([text("```")]), "anthropic.messages")).toEqual(sure(["```"]));
    expect(sdkPrefill(prompt([text("a"), { type: "reasoning", text: "r" }, text("b")]))).toEqual(maybe(["a", "b"]));
    expect(sdkPrefill(prompt([text("a"), { type: "tool-call", toolCallId: "c", toolName: "read", input: {} }]))).toBeUndefined();
    expect(sdkPrefill([{ role: "user", content: [text(ASK)] }] as LanguageModelV3Prompt)).toBeUndefined();
  });
});

/** The calls and text a client reads from an Anthropic stream. */
function anthropicRead(text: string): { calls: string[]; text: string } {
  const out = { calls: [] as string[], text: "" };
  for (const event of dataEvents(text)) {
    if (event.type === "content_block_start" && event.content_block.type === "tool_use") out.calls.push(event.content_block.name);
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") out.text += event.delta.text;
  }
  return out;
}

describe("Anthropic stream: a reply inside the prefill's fence, however it is cut", () => {
  const messages = (prefill: string) => [
    { role: "user", content: ASK },
    { role: "assistant", content: prefill },
  ];
  async function run(prefill: string, parts: Uint8Array[]) {
    const res = await repairFetch({}, chunkedFetch(parts))("http://m.test/v1/messages", postInit({ model: "m", max_tokens: 9, stream: true, tools: MESSAGES_TOOLS, messages: messages(prefill) }));
    return anthropicRead(await res.text());
  }
  const cuts: [string, (bytes: Uint8Array) => Uint8Array[]][] = [
    ["whole", (bytes) => [bytes]],
    ["byte by byte", byteByByte],
    ...[1, 2, 3].map((seed): [string, (bytes: Uint8Array) => Uint8Array[]] => [`random cuts ${seed}`, (bytes) => seededCuts(bytes, seed, 16)]),
  ];
  for (const [name, cut] of cuts) {
    for (const deltaSize of [1, 7, REPLY.length]) {
      test(`${name}, text deltas of ${deltaSize}`, async () => {
        const bytes = encode(anthropicTextStream(`\n${REPLY}`, deltaSize));
        // Anthropic refuses a prefill that ends in whitespace: the fence line ends in the reply.
        expect(await run("Here is the example:\n```", cut(bytes))).toEqual({ calls: [], text: `\n${REPLY}` });
        // Hard negative: the same reply after a prefill that opens nothing is a call.
        expect((await run("Sure.", cut(bytes))).calls).toEqual(["read"]);
      });
    }
  }
});

describe("chat stream: DeepSeek prefix completion, however the deltas are cut", () => {
  async function run(pieces: string[]) {
    const body = { model: "deepseek-chat", stream: true, tools: CHAT_TOOLS, messages: [{ role: "user", content: ASK }, { role: "assistant", content: "```xml\n", prefix: true }] };
    const res = await repairFetch({}, chunkedFetch([encode(chatDeltaSse(pieces, "deepseek-chat"))]))("http://m.test/beta/chat/completions", postInit(body));
    return readChatSse(await res.text());
  }
  for (const [name, pieces] of splits(REPLY, [4, 5, 6])) {
    test(name, async () => {
      expect(pieces.join("")).toBe(REPLY);
      expect(await run(pieces)).toEqual({ text: REPLY, calls: 0 });
    });
  }
});

/** The repaired JSON answer to a chat request with these messages (and extra fields) when the upstream answers these contents. */
async function chatJson(messages: Json[], contents: string[], extra: Json = {}, deps = {}): Promise<{ choices: { message: Json; finish_reason: string }[] }> {
  const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: contents.map((content, index) => ({ index, message: { role: "assistant", content }, finish_reason: "stop" })) };
  const upstream = chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS);
  const res = await repairFetch({}, upstream, deps)("http://m.test/v1/chat/completions", postInit({ model: "m", tools: CHAT_TOOLS, messages, ...extra }));
  return res.json();
}

describe("chat JSON", () => {
  const user = { role: "user", content: ASK };

  test("n > 1: every choice continues the prefill, each in a reading of its own", async () => {
    // Choice 0 closes the prefill's fence; choice 1 is still inside it. Read after choice 0, choice 1's example would run.
    const out = await chatJson([user, { role: "assistant", content: "```\n" }], ["x\n```\nDone.", REPLY], { n: 2 });
    expect(out.choices.map((c) => [c.message.content, c.message.tool_calls, c.finish_reason])).toEqual([
      ["x\n```\nDone.", undefined, "stop"],
      [REPLY, undefined, "stop"],
    ]);
  });

  test("a prefill that holds a whole call runs nothing of it and never shows up in the answer", async () => {
    const prefill = `I'll read it.\n${CALL}\n`;
    const quiet = await chatJson([user, { role: "assistant", content: prefill }], ["The file is empty."]);
    expect([quiet.choices[0]!.message.content, quiet.choices[0]!.message.tool_calls]).toEqual(["The file is empty.", undefined]);
    // The reply's own call, after the prefill's, is the one call.
    const own = await chatJson([user, { role: "assistant", content: prefill }], [CALL]);
    expect(own.choices[0]!.message.content).toBeNull();
    expect((own.choices[0]!.message.tool_calls as Json[]).map((c) => c.function.name)).toEqual(["read"]);
  });

  test("a prefill that opens a call is not completed by the reply into one", async () => {
    const out = await chatJson([user, { role: "assistant", content: '<tool_call>{"name":"read",' }], ['"arguments":{"path":"/etc/passwd"}}</tool_call>']);
    expect([out.choices[0]!.message.content, out.choices[0]!.message.tool_calls]).toEqual(['"arguments":{"path":"/etc/passwd"}}</tool_call>', undefined]);
  });

  test("a last assistant turn that made calls is no prefill: the reply is read as a fresh message", async () => {
    const calls = [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }];
    const out = await chatJson([user, { role: "assistant", content: "```\n", tool_calls: calls }], [CALL]);
    expect((out.choices[0]!.message.tool_calls as Json[]).map((c) => c.function.name)).toEqual(["read"]);
  });

  const failing = {
    "engine creation": (options: EngineOptions): RepairEngine => {
      if (options.history) throw new Error("no reading today");
      return createRepairEngine(options);
    },
    "a feed": (options: EngineOptions): RepairEngine => {
      const engine = createRepairEngine(options);
      if (options.history) engine.feed = () => { throw new Error("no reading today"); };
      return engine;
    },
  };
  test.each(Object.entries(failing))("a prefill that cannot be read (%s fails) leaves the reply unrepaired, with a debug line", async (_name, createEngine) => {
    const lines: string[] = [];
    const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: CALL }, finish_reason: "stop" }] };
    const upstream = chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS);
    const body = { model: "m", tools: CHAT_TOOLS, messages: [user, { role: "assistant", content: "Sure." }] };
    const res = await repairFetch({ debug: (line) => lines.push(line) }, upstream, { createEngine })("http://m.test/v1/chat/completions", postInit(body));
    const out = (await res.json()) as { choices: { message: Json }[] };
    expect([out.choices[0]!.message.content, out.choices[0]!.message.tool_calls]).toEqual([CALL, undefined]);
    expect(lines.some((line) => line.includes("reading the prefill"))).toBe(true);
  });
});

test("Responses JSON: a reply continuing a trailing assistant message item stays inside its fence", async () => {
  const message = (text: string) => ({ id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
  const answer = { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output: [message(REPLY)] };
  const body = {
    model: "m",
    tools: [{ type: "function", name: "read", parameters: SCHEMA }],
    input: [
      { role: "user", content: ASK },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Here:\n```\n" }] },
    ],
  };
  const res = await repairFetch({}, chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS))("http://m.test/v1/responses", postInit(body));
  expect(((await res.json()) as Json).output).toEqual([message(REPLY)]);
});

describe("AI SDK middleware: a prompt that ends in an assistant prefill", () => {
  const text = (t: string) => ({ type: "text" as const, text: t });
  const call = (prefill: unknown[]) =>
    ({ prompt: [{ role: "user", content: [text(ASK)] }, { role: "assistant", content: prefill }], tools: [READ_TOOL] }) as unknown as LanguageModelV3CallOptions;
  const streamed = (pieces: string[], params: LanguageModelV3CallOptions) => middlewareStream(pieces, params);

  for (const [name, pieces] of splits(REPLY, [7, 8])) {
    test(`stream, ${name}`, async () => {
      expect(await streamed(pieces, call([text("Here is the example:\n"), text("```\n")]))).toEqual({ calls: 0, text: REPLY });
      // Hard negative: after a turn that ended in a call, the reply is a fresh message and its call runs.
      expect((await streamed(pieces, call([text("```\n"), { type: "tool-call", toolCallId: "c", toolName: "read", input: {} }]))).calls).toBe(1);
    });
  }

  test("doGenerate: a prefill in parts (a reasoning part between) still holds the fence", async () => {
    const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content: [text(REPLY)], finishReason: { unified: "stop", raw: "stop" }, usage: USAGE, warnings: [] }) });
    const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
    expect((await model.doGenerate(call([text("Here:\n```"), { type: "reasoning", text: "an example it is" }, text("\n")]))).content).toEqual([text(REPLY)]);
  });
});

describe("the turn an Anthropic server continues: every trailing assistant message, as it is sent", () => {
  // The Messages API combines consecutive assistant turns into one and continues it whole; the AI
  // SDK's anthropic provider does the same (groupIntoBlocks) and trims the last text part, since
  // Anthropic refuses a prefill ending in whitespace. Read after the last message alone, or
  // untrimmed, a reply inside the turn's fence or code span would run.
  const inside = `\n${REPLY}`;

  test("Messages: a fence opened by an earlier one of the trailing assistant messages holds", async () => {
    const body = {
      model: "m", max_tokens: 9, stream: true, tools: MESSAGES_TOOLS,
      messages: [{ role: "user", content: ASK }, { role: "assistant", content: "Here is the example:\n```\n" }, { role: "assistant", content: [{ type: "text", text: "# read" }] }],
    };
    for (const deltaSize of [1, 7, inside.length]) {
      const res = await repairFetch({}, chunkedFetch([encode(anthropicTextStream(inside, deltaSize))]))("http://m.test/v1/messages", postInit(body));
      expect(anthropicRead(await res.text())).toEqual({ calls: [], text: inside });
    }
    expect(messagesPrefill(body)).toEqual({ spans: ["Here is the example:\n```\n# read"], certain: true });
    // A user turn between: only the last assistant turn is continued.
    expect(messagesPrefill({ messages: [{ role: "assistant", content: "```\n" }, { role: "user", content: "go" }, { role: "assistant", content: "x" }] })).toEqual({ spans: ["x"], certain: true });
    // A tool_use that ends an earlier message cuts the span; it does not end the turn.
    expect(messagesPrefill({ messages: [{ role: "assistant", content: [{ type: "text", text: "a" }, { type: "tool_use", id: "t", name: "read", input: {} }] }, { role: "assistant", content: "b" }] })).toEqual({ spans: ["a", "b"], certain: true });
  });

  describe("AI SDK, the anthropic provider", () => {
    const text = (t: string) => ({ type: "text" as const, text: t });
    async function generated(messages: unknown[], reply: string) {
      const mock = new MockLanguageModelV3({ provider: "anthropic.messages", doGenerate: async () => ({ content: [text(reply)], finishReason: { unified: "stop", raw: "stop" }, usage: USAGE, warnings: [] }) });
      const params = { prompt: [{ role: "user", content: [text(ASK)] }, ...messages], tools: [READ_TOOL] } as unknown as LanguageModelV3CallOptions;
      const { content } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doGenerate(params);
      return content.filter((p) => p.type === "tool-call").length;
    }

    test("a fence opened by an earlier one of the trailing assistant messages holds", async () => {
      expect(await generated([{ role: "assistant", content: [text("Here is the example:\n```\n")] }, { role: "assistant", content: [text("# read")] }], inside)).toBe(0);
      // Hard negative: after a user turn the fence is no longer the reply's.
      expect(await generated([{ role: "assistant", content: [text("Here is the example:\n```\n")] }, { role: "user", content: [text("go")] }, { role: "assistant", content: [text("Sure.")] }], inside)).toBe(1);
    });

    test("the last text part is read trimmed, as it is sent", async () => {
      // Sent as "Use `x": the reply's call is inside the code span. Untrimmed, a blank line would end the paragraph first.
      expect(await generated([{ role: "assistant", content: [text("Use `x\n\n")] }], `${CALL}\``)).toBe(0);
      expect(sdkPrefill([{ role: "assistant", content: [text("  a \n"), text(" b\n\n")] }] as LanguageModelV3Prompt, "anthropic.messages")).toEqual({ spans: ["  a \nb"], certain: true });
      // Another provider sends it as written, and only the last message.
      expect(sdkPrefill([{ role: "assistant", content: [text("a")] }, { role: "assistant", content: [text(" b\n\n")] }] as LanguageModelV3Prompt, "openai.chat")).toEqual({ spans: [" b\n\n"], certain: false });
    });
  });
});
