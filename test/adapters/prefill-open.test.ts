// A prefill that ends inside markup it left open (review 44 follow-up): `<tool_call>{"name":
// "write","arguments":{"content":"`, a DSML or Claude-style parameter value. The reply goes on
// inside that value, so a call the reply writes may be the text of the file being written; it was
// read as if the reply started fresh, and the example ran. Rule (src/adapters/call-engines.ts
// prefillRead): when the prefill's reading ends with markup still held, undecided, the reply
// starts as after an overflow: no call of it runs, each reported "overflowed-markup", its text
// kept. Certain (Anthropic Messages, DeepSeek's prefix, the AI SDK anthropic provider) and
// ambiguous (chat without flags, Responses, another AI SDK provider) shapes alike, whole and split.
//
// History sanitizing is off throughout: on, the prefill's open markup goes up replaced by the
// removal note (test/adapters/prefill-sent.test.ts), and the reply continues the note instead.
// Markup is Hermes `<tool_call>` JSON, Claude-style XML and DSML built by test/golden/notation.ts.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import type { AdapterOptions, AdapterResult } from "../../src/options/adapter.ts";
import { live } from "../golden/notation.ts";
import { chatDeltaSse, splits } from "./prefill-support.ts";
import { JSON_HEADERS, type Json, anthropicTextStream, byteByByte, chunkedFetch, dataEvents, encode, postInit, seededCuts } from "./wire-support.ts";

const BASH_SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const WRITE_SCHEMA = { type: "object", properties: { filePath: { type: "string" }, content: { type: "string" } }, required: ["content"] };
const CHAT_TOOLS = [
  { type: "function", function: { name: "bash", parameters: BASH_SCHEMA } },
  { type: "function", function: { name: "write", parameters: WRITE_SCHEMA } },
];
const MESSAGES_TOOLS = [
  { name: "bash", input_schema: BASH_SCHEMA },
  { name: "write", input_schema: WRITE_SCHEMA },
];
const ASK = "Write notes.md explaining how to call bash.";
const BASH = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf build"}}</tool_call>';
const OFF: AdapterOptions = { history: { sanitize: false } };

/** Prefills that end inside a write's content, and what closes that markup in the reply. */
const OPEN: [string, string, string][] = [
  ["a Hermes <tool_call> whose content string is open", '<tool_call>{"name":"write","arguments":{"filePath":"notes.md","content":"', '\n"}}</tool_call>'],
  ["a DSML parameter value left open", live('<{D}tool_calls>\n<{D}invoke name="write">\n<{D}parameter name="filePath" string="true">notes.md</{D}parameter>\n<{D}parameter name="content" string="true">'), live("\n</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>")],
  ["a Claude-style parameter left open", '<function_calls>\n<invoke name="write">\n<parameter name="filePath">notes.md</parameter>\n<parameter name="content">', "\n</parameter>\n</invoke>\n</function_calls>"],
];
const replyFor = (closing: string) => `notes\n${BASH}${closing}`;

interface Seen {
  calls: string[];
  text: string;
}

/** The overflowed-markup reports of a run: the tool each names. */
const overflowed = (results: AdapterResult[]) => results.flatMap((r) => r.summary.broken.filter((b) => b.reason === "overflowed-markup").map((b) => b.tool));

function harness(extra: AdapterOptions = OFF) {
  const results: AdapterResult[] = [];
  return { results, options: { ...extra, onResult: (r: AdapterResult) => results.push(r) } as AdapterOptions };
}

// ---------------------------------------------------------------- Anthropic Messages (certain)

function anthropicRead(text: string): Seen {
  const out: Seen = { calls: [], text: "" };
  for (const event of dataEvents(text)) {
    if (event.type === "content_block_start" && event.content_block.type === "tool_use") out.calls.push(event.content_block.name);
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") out.text += event.delta.text;
  }
  return out;
}

async function messagesStream(assistant: unknown, parts: Uint8Array[], extra: AdapterOptions = OFF): Promise<Seen & { overflowed: (string | undefined)[] }> {
  const { results, options } = harness(extra);
  const body = { model: "m", max_tokens: 9, stream: true, tools: MESSAGES_TOOLS, messages: [{ role: "user", content: ASK }, { role: "assistant", content: assistant }] };
  const res = await repairFetch(options, chunkedFetch(parts))("http://m.test/v1/messages", postInit(body));
  return { ...anthropicRead(await res.text()), overflowed: overflowed(results) };
}

const CUTS: [string, (bytes: Uint8Array) => Uint8Array[]][] = [
  ["whole", (bytes) => [bytes]],
  ["byte by byte", byteByByte],
  ...[1, 2].map((seed): [string, (bytes: Uint8Array) => Uint8Array[]] => [`random cuts ${seed}`, (bytes) => seededCuts(bytes, seed, 16)]),
];

describe("Anthropic Messages stream: a reply continuing a prefill that left markup open", () => {
  for (const [name, prefill, closing] of OPEN) {
    const reply = replyFor(closing);
    for (const [cutName, cut] of CUTS) {
      test(`${name}, ${cutName}: the example in the write's content does not run, its text kept`, async () => {
        for (const deltaSize of [1, 7, reply.length]) {
          const out = await messagesStream(prefill, cut(encode(anthropicTextStream(reply, deltaSize))));
          expect(out).toEqual({ calls: [], text: reply, overflowed: ["bash"] });
        }
      });
    }
  }

  test("hard negative: the same reply after a prefill that leaves nothing open runs the call", async () => {
    const reply = replyFor(OPEN[0]![2]);
    for (const prefill of ["Sure.", `I'll write it.\n<tool_call>{"name":"write","arguments":{"filePath":"a","content":"b"}}</tool_call>`]) {
      const out = await messagesStream(prefill, [encode(anthropicTextStream(reply, 5))]);
      expect(out.calls).toEqual(["bash"]);
      expect(out.overflowed).toEqual([]);
    }
  });

  test("only the turn's last span counts: markup left open before a tool_use block ended there", async () => {
    const [, prefill, closing] = OPEN[0]!;
    const turn = [{ type: "text", text: prefill }, { type: "tool_use", id: "t", name: "bash", input: { command: "ls" } }, { type: "text", text: "Done." }];
    const out = await messagesStream(turn, [encode(anthropicTextStream(`\n${BASH}`, 5))]);
    expect(out.calls).toEqual(["bash"]);
    // The open markup in the last span holds the reply's call back, whatever came before.
    const last = [{ type: "text", text: "Done." }, { type: "tool_use", id: "t", name: "bash", input: { command: "ls" } }, { type: "text", text: prefill }];
    expect((await messagesStream(last, [encode(anthropicTextStream(replyFor(closing), 5))])).calls).toEqual([]);
  });

  test("with history sanitizing on, the open markup goes up as the removal note: the reply continues the note, and its call runs", async () => {
    const [, prefill, closing] = OPEN[0]!;
    const out = await messagesStream(prefill, [encode(anthropicTextStream(replyFor(closing), 5))], {});
    expect(out.calls).toEqual(["bash"]);
  });
});

// ---------------------------------------------------------------- the lone opener

describe("a prefill that is a call opener alone, the body in the reply", () => {
  test("a Hermes body: no call (as before), and a Qwen3-Coder body, a call on its own, does not run either (it did)", async () => {
    const hermes = '{"name":"bash","arguments":{"command":"rm -rf build"}}</tool_call>';
    const first = await messagesStream("<tool_call>", [encode(anthropicTextStream(hermes, 4))]);
    expect({ calls: first.calls, text: first.text }).toEqual({ calls: [], text: hermes });
    const qwen = "\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n</tool_call>";
    const second = await messagesStream("<tool_call>", [encode(anthropicTextStream(qwen, 4))]);
    expect(second).toEqual({ calls: [], text: qwen, overflowed: ["bash"] });
    // Hard negative: the same body after a prefill that opens nothing runs.
    expect((await messagesStream("Sure.", [encode(anthropicTextStream(qwen, 4))])).calls).toEqual(["bash"]);
  });

  test("an opener cut off mid-tag at the prefill's end holds the reply's calls too", async () => {
    const reply = `tool_call>{"name":"write","arguments":{"content":"x"}}</tool_call>\n${BASH}`;
    const out = await messagesStream("Writing:\n<", [encode(anthropicTextStream(reply, 3))]);
    expect(out.calls).toEqual([]);
    expect(out.text).toBe(reply);
  });
});

// ---------------------------------------------------------------- chat

async function chatStream(prefill: string, pieces: string[], flags: Json): Promise<Seen & { overflowed: (string | undefined)[] }> {
  const { results, options } = harness();
  const body = { model: "deepseek-chat", stream: true, tools: CHAT_TOOLS, messages: [{ role: "user", content: ASK }, { role: "assistant", content: prefill, ...flags }] };
  const res = await repairFetch(options, chunkedFetch([encode(chatDeltaSse(pieces, "deepseek-chat"))]))("http://m.test/beta/chat/completions", postInit(body));
  const out: Seen = { calls: [], text: "" };
  for (const event of dataEvents(await res.text())) {
    const delta = event.choices?.[0]?.delta ?? {};
    if (typeof delta.content === "string") out.text += delta.content;
    for (const call of delta.tool_calls ?? []) if (call.function?.name) out.calls.push(call.function.name);
  }
  return { ...out, overflowed: overflowed(results) };
}

async function chatJson(prefill: string, content: string, flags: Json = {}): Promise<Seen> {
  const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] };
  const body = { model: "m", tools: CHAT_TOOLS, messages: [{ role: "user", content: ASK }, { role: "assistant", content: prefill, ...flags }] };
  const res = await repairFetch(OFF, chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS))("http://m.test/v1/chat/completions", postInit(body));
  const message = ((await res.json()) as Json).choices[0].message;
  return { calls: ((message.tool_calls ?? []) as Json[]).map((c) => c.function.name), text: message.content ?? "" };
}

describe("chat: DeepSeek prefix completion (certain) and a trailing assistant message without flags (ambiguous)", () => {
  for (const [name, prefill, closing] of OPEN) {
    const reply = replyFor(closing);
    for (const [flagName, flags] of [["prefix: true", { prefix: true }], ["no flags", {}]] as const) {
      test(`${name}, ${flagName}: stream at every split, and JSON`, async () => {
        for (const [, pieces] of splits(reply, [4, 5])) expect(await chatStream(prefill, pieces, flags)).toEqual({ calls: [], text: reply, overflowed: ["bash"] });
        expect(await chatJson(prefill, reply, flags)).toEqual({ calls: [], text: reply });
      });
    }
  }

  test("hard negative: after a prefill that leaves nothing open the reply's call runs", async () => {
    const reply = replyFor(OPEN[0]![2]);
    expect((await chatStream("Sure.", [reply], { prefix: true })).calls).toEqual(["bash"]);
    expect((await chatJson("Sure.", reply)).calls).toEqual(["bash"]);
  });
});

// ---------------------------------------------------------------- Responses (ambiguous)

describe("Responses JSON: a trailing assistant message item that left markup open", () => {
  const message = (text: string) => ({ id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
  async function run(prefillParts: string[], reply: string): Promise<Seen> {
    const answer = { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output: [message(reply)] };
    const body = {
      model: "m",
      tools: CHAT_TOOLS.map((t) => ({ type: "function", name: t.function.name, parameters: t.function.parameters })),
      input: [{ role: "user", content: ASK }, { type: "message", role: "assistant", content: prefillParts.map((text) => ({ type: "output_text", text })) }],
    };
    const res = await repairFetch(OFF, chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS))("http://m.test/v1/responses", postInit(body));
    const output = ((await res.json()) as Json).output as Json[];
    return { calls: output.filter((item) => item.type === "function_call").map((item) => item.name), text: output.filter((item) => item.type === "message").flatMap((item) => item.content.map((p: Json) => p.text)).join("") };
  }

  for (const [name, prefill, closing] of OPEN) {
    test(name, async () => {
      const reply = replyFor(closing);
      expect(await run([prefill], reply)).toEqual({ calls: [], text: reply });
      // In the item's last part of two.
      expect(await run(["Writing the notes.\n", prefill], reply)).toEqual({ calls: [], text: reply });
      // Hard negative: the open markup in an earlier part ended with it.
      expect((await run([prefill, "Done."], `\n${BASH}`)).calls).toEqual(["bash"]);
    });
  }
});

// ---------------------------------------------------------------- AI SDK middleware

describe("AI SDK middleware: a prompt whose assistant prefill left markup open", () => {
  const tools: LanguageModelV3FunctionTool[] = [
    { type: "function", name: "bash", inputSchema: BASH_SCHEMA as LanguageModelV3FunctionTool["inputSchema"] },
    { type: "function", name: "write", inputSchema: WRITE_SCHEMA as LanguageModelV3FunctionTool["inputSchema"] },
  ];
  const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const params = (prefill: string) => ({ prompt: [{ role: "user", content: [{ type: "text", text: ASK }] }, { role: "assistant", content: [{ type: "text", text: prefill }] }], tools }) as unknown as LanguageModelV3CallOptions;

  async function streamed(provider: string, prefill: string, pieces: string[]): Promise<Seen & { overflowed: (string | undefined)[] }> {
    const { results, options } = harness();
    const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, ...pieces.map((delta) => ({ type: "text-delta" as const, id: "t", delta })), { type: "text-end", id: "t" }, { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } }];
    const mock = new MockLanguageModelV3({ provider, doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
    const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware(options) }).doStream(params(prefill));
    const out = await convertReadableStreamToArray(stream);
    return {
      calls: out.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : [])),
      text: out.map((p) => (p.type === "text-delta" ? p.delta : "")).join(""),
      overflowed: overflowed(results),
    };
  }

  async function generated(provider: string, prefill: string, reply: string): Promise<Seen> {
    const mock = new MockLanguageModelV3({ provider, doGenerate: async () => ({ content: [{ type: "text", text: reply }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
    const { content } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware(OFF) }).doGenerate(params(prefill));
    return { calls: content.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : [])), text: content.map((p) => (p.type === "text" ? p.text : "")).join("") };
  }

  for (const provider of ["anthropic.messages", "openai.chat"]) {
    for (const [name, prefill, closing] of OPEN) {
      const reply = replyFor(closing);
      test(`${provider}, ${name}: stream at every split, and generate`, async () => {
        for (const [, pieces] of splits(reply, [4, 5])) expect(await streamed(provider, prefill, pieces)).toEqual({ calls: [], text: reply, overflowed: ["bash"] });
        expect(await generated(provider, prefill, reply)).toEqual({ calls: [], text: reply });
      });
    }

    test(`${provider}, hard negative: after "Sure." the reply's call runs`, async () => {
      const reply = replyFor(OPEN[0]![2]);
      expect((await streamed(provider, "Sure.", [reply])).calls).toEqual(["bash"]);
      expect((await generated(provider, "Sure.", reply)).calls).toEqual(["bash"]);
    });
  }
});
