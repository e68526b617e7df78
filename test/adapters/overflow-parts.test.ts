/**
 * Review 44 through the wires: once a leaked call outgrew responseFix.bufferLimit and was released
 * as text, no later call of the reply runs, in a later Responses part or message item, or in a
 * reply that continues a prefill that overflowed (test/engine/overflow.test.ts has the engine's
 * cases). Responses streams are checked valid, whole, byte by byte and at seeded cuts, and must
 * give what the JSON answer gives. Markup is Hermes `<tool_call>` JSON.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { fixtureTools } from "../golden/tools.ts";
import { type Item, NATIVE_ARGS, completedItem, readStream, responsesItemSse } from "./responses-support.ts";
import { JSON_HEADERS, type Json, byteByByte, chunkedFetch, encode, postInit, seededCuts } from "./wire-support.ts";

const LIMIT = 300;
const hermes = (tool: string, args: Json) => `<tool_call>\n${JSON.stringify({ name: tool, arguments: args })}\n</tool_call>`;
/** A leaked write longer than LIMIT: released as text. */
const OVERFLOWED = `${hermes("write", { filePath: "doc.md", content: "x".repeat(LIMIT + 50) })}\n`;
const SHORT = `${hermes("write", { filePath: "doc.md", content: "short" })}\n`;
const CALL = hermes("bash", { command: "rm -rf build" });
const URL_RESPONSES = "http://model.test/v1/responses";
const SEEDS = [1, 2, 3];

interface Seen {
  calls: string[];
  text: string;
}

describe("Responses: an overflow in one part, a call in a later one", () => {
  const shapes: Record<string, (texts: string[]) => Item[]> = {
    "two output_text parts": (texts) => [{ message: "msg_1", parts: texts }],
    "two message items": (texts) => texts.map((text, i) => ({ message: `msg_${i + 1}`, parts: [text] })),
    "two message items, a reasoning item between": (texts) => [{ message: "msg_1", parts: [texts[0]!] }, { reasoning: "rs_1", text: "thinking" }, { message: "msg_2", parts: [texts[1]!] }],
  };

  for (const [shape, build] of Object.entries(shapes)) {
    test(`${shape}: the later call does not run, every word shows (JSON and every stream)`, async () => {
      const texts = [OVERFLOWED, `Now:\n${CALL}\n`];
      const expected: Seen = { calls: [], text: texts.join("") };
      expect(await jsonOf(build(texts), LIMIT)).toEqual(expected);
      for (const output of await everyStream(build(texts), LIMIT)) expect(output).toEqual(expected);
    });

    test(`${shape}, hard negative: no overflow, both calls run`, async () => {
      const texts = [SHORT, `Now:\n${CALL}\n`];
      const expected: Seen = { calls: ["write", "bash"], text: "\nNow:\n" };
      expect(await jsonOf(build(texts), LIMIT)).toEqual(expected);
      for (const output of await everyStream(build(texts), LIMIT)) expect(output).toEqual(expected);
    });
  }
});

describe("a reply continuing a prefill that overflowed (read as replayed history), sent upstream as it is", () => {
  const CHAT_TOOLS = fixtureTools.map((t) => ({ type: "function", function: { name: t.name, parameters: t.parameters } }));
  const user = { role: "user", content: "Write the doc, then clean up." };

  async function chatCalls(prefill: string, content: string): Promise<[unknown, string[]]> {
    const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] };
    const upstream = chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS);
    // History sanitizing off: on, the prefill's leak goes up replaced by a note, and the reply continues the note.
    const res = await repairFetch({ responseFix: { bufferLimit: LIMIT }, history: { sanitize: false } }, upstream)("http://m.test/v1/chat/completions", postInit({ model: "m", tools: CHAT_TOOLS, messages: [user, { role: "assistant", content: prefill }] }));
    const message = ((await res.json()) as Json).choices[0].message;
    return [message.content, ((message.tool_calls ?? []) as Json[]).map((c) => c.function.name)];
  }

  test("the reply may still be inside the prefill's markup: its call does not run", async () => {
    // The prefill stops inside the write's content; the reply goes on writing it, example and all.
    const open = `<tool_call>\n{"name": "write", "arguments": {"filePath": "doc.md", "content": "${"x".repeat(LIMIT + 50)}`;
    expect(await chatCalls(open, `\n${CALL}\n"}}\n</tool_call>`)).toEqual([`\n${CALL}\n"}}\n</tool_call>`, []]);
    expect(await chatCalls(OVERFLOWED, `Now:\n${CALL}`)).toEqual([`Now:\n${CALL}`, []]);
  });

  test("hard negative: a prefill within the limit leaves the reply's call free to run", async () => {
    expect(await chatCalls(SHORT, `Now:\n${CALL}`)).toEqual(["Now:\n", ["bash"]]);
  });
});

function responsesRequest(stream: boolean): RequestInit {
  const tools = fixtureTools.map((t) => ({ type: "function", name: t.name, parameters: t.parameters ?? { type: "object" } }));
  return postInit({ model: "m", stream, input: "hi", tools });
}

/** What a client keeps of the output: the recovered calls' tools and every message's text. */
function seen(output: Json[]): Seen {
  const calls = output.filter((item) => item.type === "function_call" && item.arguments !== NATIVE_ARGS);
  return { calls: calls.map((item) => item.name), text: output.filter((item) => item.type === "message").flatMap((item) => item.content.map((p: Json) => p.text)).join("") };
}

async function jsonOf(items: Item[], limit: number): Promise<Seen> {
  const body = { id: "resp_1", object: "response", status: "completed", model: "m", output: items.map(completedItem) };
  const res = await repairFetch({ responseFix: { bufferLimit: limit } }, chunkedFetch([encode(JSON.stringify(body))], JSON_HEADERS))(URL_RESPONSES, responsesRequest(false));
  return seen(((await res.json()) as Json).output);
}

/** Every valid stream's output: whole, one-character deltas byte by byte, seeded random byte cuts. */
async function everyStream(items: Item[], limit: number): Promise<Seen[]> {
  const run = async (chunks: Uint8Array[]) => seen(readStream(await (await repairFetch({ responseFix: { bufferLimit: limit } }, chunkedFetch(chunks))(URL_RESPONSES, responsesRequest(true))).text()));
  const outputs = [await run([encode(responsesItemSse(items, 1000))]), await run(byteByByte(encode(responsesItemSse(items, 1))))];
  for (const seed of SEEDS) outputs.push(await run(seededCuts(encode(responsesItemSse(items, 1 + (seed % 5))), seed)));
  return outputs;
}
