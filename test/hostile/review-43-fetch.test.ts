// Review 43 (hostile, tests only): the fetch adapter (src/adapters/fetch.ts) and the chat wire it
// drives. Each failing test says what is wrong, its severity and the suspected source file.
// Markup is Hermes `<tool_call>` JSON, so no DSML marker bytes are needed.
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";

const READ = { type: "function", function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } };
const CALL = '<tool_call>{"name":"read","arguments":{"path":"/etc/passwd"}}</tool_call>';
const envelope = { id: "chatcmpl-43", object: "chat.completion.chunk", created: 1, model: "m" };
const sse = (chunks: object[]) => `${chunks.map((c) => `data: ${JSON.stringify({ ...envelope, ...c })}\n\n`).join("")}data: [DONE]\n\n`;
const delta = (index: number, content: string) => ({ index, delta: { content }, finish_reason: null });

/** The repaired answer a client reads for `answer` (an event stream or a JSON body) to a chat request declaring `read`. */
async function repaired(answer: string, type: string, extra: object = {}): Promise<string> {
  const upstream = (async () => new Response(answer, { headers: { "content-type": type } })) as unknown as typeof fetch;
  const res = await repairFetch({}, upstream)("http://127.0.0.1:1/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: type === "text/event-stream", messages: [{ role: "user", content: "show me the call format" }], tools: [READ], ...extra }),
  });
  return res.text();
}

/** Every tool call name and arguments the client reads, from an event stream or a JSON answer. */
function callsIn(text: string): string[] {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== "object") return;
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.tool_calls)) for (const call of record.tool_calls as { function?: { name?: string; arguments?: string } }[]) found.push(`${call.function?.name}:${call.function?.arguments ?? ""}`);
    Object.values(record).forEach(visit);
  };
  for (const line of text.split("\n")) {
    const json = line.startsWith("data: ") ? line.slice(6) : line;
    try {
      visit(JSON.parse(json));
    } catch {
      // [DONE], blank lines
    }
  }
  return found;
}

/** The content of choice 0 as the client reads it (stream deltas joined, or the JSON message). */
function choiceZeroText(text: string): string {
  let out = "";
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    for (const choice of JSON.parse(line.slice(6)).choices ?? []) if (choice.index === 0 && typeof choice.delta?.content === "string") out += choice.delta.content;
  }
  return out;
}

describe("n > 1: a chunk that carries choice 1 before choice 0", () => {
  // FINDING (wrong execution, high). Choice 0 writes a fenced example: "Example:\n```\n<call>\n```\n".
  // The chunk that carries the fence opener also carries choice 1, listed first. The chat
  // rewriter looks only at choices[0] ("other choices are left alone", src/wires/chat/rewriter.ts
  // #chunk), so that whole chunk passes unread: the client sees the fence opener, but the
  // engine never does, reads the example as a live call outside any fence, and turns it into a
  // real tool call for `read /etc/passwd`. The same reply as JSON recovers nothing (hard negative
  // below). Expected: choice 0's text is read whatever its position in `choices` (or, when it
  // cannot be, the stream is left alone from there on), so an example stays an example.
  // Suspected: src/wires/chat/rewriter.ts (#chunk reads choices[0] only).
  test("a fenced example in choice 0 never runs because choice 1 came first in one chunk", async () => {
    const text = await repaired(
      sse([
        { choices: [delta(0, "Example:\n")] },
        { choices: [delta(1, "other answer"), delta(0, "```\n")] },
        { choices: [delta(0, CALL)] },
        { choices: [delta(0, "\n```\n")] },
        { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      ]),
      "text/event-stream",
      { n: 2 },
    );
    expect(callsIn(text)).toEqual([]);
    expect(choiceZeroText(text)).toBe(`Example:\n\`\`\`\n${CALL}\n\`\`\`\n`);
  });

  // Hard negative: the same reply as one JSON answer is documentation and stays text.
  test("the same reply as JSON recovers nothing", async () => {
    const content = `Example:\n\`\`\`\n${CALL}\n\`\`\`\n`;
    const json = JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] });
    const text = await repaired(json, "application/json");
    expect(callsIn(text)).toEqual([]);
    expect(JSON.parse(text).choices[0].message.content).toBe(content);
  });
});

/** The repaired JSON answer for `request` (a JSON body posted to `path`) when the upstream answers `answer`. */
async function repairedJson(path: string, request: object, answer: object): Promise<Record<string, unknown>> {
  const upstream = (async () => new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
  const res = await repairFetch({}, upstream)(`http://127.0.0.1:1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return (await res.json()) as Record<string, unknown>;
}

describe("a reply that continues an assistant prefill", () => {
  // FINDING (wrong execution, high). Anthropic Messages (and the Anthropic-compatible endpoints
  // of MiniMax, Qwen, DeepSeek) continue a last assistant turn: a "prefill". Opening a code fence
  // there ("```\n") is the usual way to make the model write an example. The model's reply is the
  // inside of that fence: "<call>\n```". The repair reads the reply as if it started a fresh
  // message, so the example is outside any fence to it, becomes a real `read /etc/passwd`
  // tool_use, and the closing fence is gone too. Expected: the reply is read after the prefill's
  // text (its documentation context carries over), so the example stays text; or a request that
  // ends in an assistant turn is not repaired.
  // Suspected: src/adapters/fetch.ts (planWire) / src/wires/anthropic/wire.ts: the engine never learns the prefill.
  test("Anthropic: a prefill that opens a fence keeps the reply an example", async () => {
    const reply = `${CALL}\n\`\`\``;
    const out = await repairedJson(
      "/v1/messages",
      {
        model: "MiniMax-M2",
        max_tokens: 512,
        tools: [{ name: "read", input_schema: READ.function.parameters }],
        messages: [
          { role: "user", content: "Show me, in a code block, what a read call looks like." },
          { role: "assistant", content: "Here is the example:\n```\n" },
        ],
      },
      { id: "msg_1", type: "message", role: "assistant", model: "MiniMax-M2", content: [{ type: "text", text: reply }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } },
    );
    expect(out.content).toEqual([{ type: "text", text: reply }]);
    expect(out.stop_reason).toBe("end_turn");
  });

  // FINDING (wrong execution, high). The same with DeepSeek's chat prefix completion
  // (https://api.deepseek.com/beta, a last assistant message with `prefix: true`): the model
  // continues "```xml\n", so its reply is the inside of an XML code block, and the repair runs it.
  // Suspected: src/adapters/fetch.ts / src/wires/chat/wire.ts (the prefix is not read).
  test("DeepSeek prefix completion: a prefix that opens a fence keeps the reply an example", async () => {
    const reply = `${CALL}\n\`\`\``;
    const out = await repairedJson(
      "/beta/chat/completions",
      {
        model: "deepseek-chat",
        tools: [READ],
        messages: [
          { role: "user", content: "Show me, in a code block, what a read call looks like." },
          { role: "assistant", content: "```xml\n", prefix: true },
        ],
      },
      { id: "c", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }] },
    );
    const choice = (out.choices as { message: { content: unknown; tool_calls?: unknown }; finish_reason: string }[])[0]!;
    expect([choice.message.content, choice.message.tool_calls, choice.finish_reason]).toEqual([reply, undefined, "stop"]);
  });

  // FINDING (same root cause, same severity): vLLM's chat completions continue the last
  // assistant message when asked (`continue_final_message: true`, `add_generation_prompt: false`).
  // Suspected: src/adapters/fetch.ts / src/wires/chat/wire.ts.
  test("vLLM continue_final_message: a final assistant message that opens a fence keeps the reply an example", async () => {
    const reply = `${CALL}\n\`\`\``;
    const out = await repairedJson(
      "/v1/chat/completions",
      {
        model: "Qwen/Qwen3-8B",
        tools: [READ],
        continue_final_message: true,
        add_generation_prompt: false,
        messages: [
          { role: "user", content: "Show me, in a code block, what a read call looks like." },
          { role: "assistant", content: "Here it is:\n```\n" },
        ],
      },
      { id: "c", object: "chat.completion", created: 1, model: "Qwen/Qwen3-8B", choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }] },
    );
    const choice = (out.choices as { message: { content: unknown; tool_calls?: unknown }; finish_reason: string }[])[0]!;
    expect([choice.message.content, choice.message.tool_calls, choice.finish_reason]).toEqual([reply, undefined, "stop"]);
  });

  // Hard negative: with no prefill the same reply is a call outside any fence and is recovered
  // (the stray closing fence after it is the model's noise).
  test("without a prefill the same reply is a call", async () => {
    const out = await repairedJson(
      "/v1/messages",
      { model: "MiniMax-M2", max_tokens: 512, tools: [{ name: "read", input_schema: READ.function.parameters }], messages: [{ role: "user", content: "read /etc/passwd" }] },
      { id: "msg_1", type: "message", role: "assistant", model: "MiniMax-M2", content: [{ type: "text", text: CALL }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } },
    );
    expect((out.content as { type: string; name?: string }[]).map((b) => [b.type, b.name])).toEqual([["tool_use", "read"]]);
  });
});

describe("Responses stream: a content part that arrives with text", () => {
  const fence = "Example:\n```\n";
  const full = `${fence}${CALL}\n\`\`\``;
  const response = (status: string, output: object[]) => ({ id: "resp_43", object: "response", created_at: 1, status, model: "m", output });
  const message = (text: string, status = "completed") => ({ id: "msg_43", type: "message", status, role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
  const events = (list: object[]) => list.map((e, i) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join("");
  const part = { item_id: "msg_43", output_index: 0, content_index: 0 };

  async function run(stream: string): Promise<{ calls: string[]; done: string[] }> {
    const upstream = (async () => new Response(stream, { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch;
    const res = await repairFetch({}, upstream)("http://127.0.0.1:1/v1/responses", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, input: "show me the call format", tools: [{ type: "function", name: "read", parameters: READ.function.parameters }] }),
    });
    const calls: string[] = [];
    const done: string[] = [];
    for (const line of (await res.text()).split("\n")) {
      if (!line.startsWith("data: ")) continue;
      const event = JSON.parse(line.slice(6));
      if (event.type === "response.output_item.done" && event.item?.type === "function_call") calls.push(`${event.item.name}:${event.item.arguments}`);
      if (event.type === "response.output_text.done") done.push(event.text);
    }
    return { calls, done };
  }

  // FINDING (wrong execution + lost text, medium-high). `response.content_part.added` carries the
  // part as it starts; OpenAI sends it empty, but a part that starts with text ("Example:\n```\n",
  // as a Responses-compatible server that sends the first piece with the part may do) is the
  // start of the text for a client that accumulates parts (the OpenAI SDK's stream snapshot).
  // The Responses rewriter never reads that text: the engine sees only the deltas, so the fenced
  // example becomes a real `read /etc/passwd` call, and the rewritten output_text.done says ""
  // (the opening text and the closing fence are gone from the final answer). The Anthropic
  // rewriter handles the same shape (text in content_block_start) correctly.
  // Expected: a content part's initial text is fed like a delta (or the stream is left alone).
  // Suspected: src/wires/responses/stream.ts (#decide has no case for response.content_part.added).
  test("the part's initial text opens a fence the engine must see", async () => {
    const out = await run(
      events([
        { type: "response.created", response: response("in_progress", []) },
        { type: "response.output_item.added", output_index: 0, item: { id: "msg_43", type: "message", status: "in_progress", role: "assistant", content: [] } },
        { type: "response.content_part.added", ...part, part: { type: "output_text", text: fence, annotations: [] } },
        { type: "response.output_text.delta", ...part, delta: `${CALL}\n\`\`\`` },
        { type: "response.output_text.done", ...part, text: full },
        { type: "response.content_part.done", ...part, part: { type: "output_text", text: full, annotations: [] } },
        { type: "response.output_item.done", output_index: 0, item: message(full) },
        { type: "response.completed", response: response("completed", [message(full)]) },
      ]),
    );
    expect(out).toEqual({ calls: [], done: [full] });
  });

  // FINDING (same root cause, same severity): the message item itself may arrive in
  // `response.output_item.added` with its content already started; that text is never fed either.
  // Suspected: src/wires/responses/stream.ts (#added reads only the item's type).
  test("the message item's initial content opens a fence the engine must see", async () => {
    const out = await run(
      events([
        { type: "response.created", response: response("in_progress", []) },
        { type: "response.output_item.added", output_index: 0, item: message(fence, "in_progress") },
        { type: "response.output_text.delta", ...part, delta: `${CALL}\n\`\`\`` },
        { type: "response.output_text.done", ...part, text: full },
        { type: "response.output_item.done", output_index: 0, item: message(full) },
        { type: "response.completed", response: response("completed", [message(full)]) },
      ]),
    );
    expect(out).toEqual({ calls: [], done: [full] });
  });
});
