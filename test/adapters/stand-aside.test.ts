// After an SSE event past HELD_EVENT_LIMIT the rewrite stands aside (src/sse/rewrite.ts): it reads
// no text any more, but the client's view must stay valid. Every event that fits the bound is
// still given to the wire for its bookkeeping, and one that does not streams on with the few values
// the wire renumbers set as they pass (src/sse/passing.ts). Checked here at many splits, the long
// event arriving whole, cut in network-sized pieces, or cut byte by byte where it begins and ends
// (so it is also read while unfinished): the client sees one consistent stream, the same at
// every split. test/hostile/review-44-limits.test.ts has the findings these come from.
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { type EventRewriter, HELD_EVENT_LIMIT, rewriteEventStream } from "../../src/sse/rewrite.ts";
import { type Json, chunkedFetch, dataEvents, encode, namedConsistently, namedSse, postInit } from "./wire-support.ts";
import { readStream, responsesItemSse } from "./responses-support.ts";
import { sameCallIds } from "../support/call-ids.ts";

const CALL = '<tool_call>{"name":"read","arguments":{"path":"/etc/hosts"}}</tool_call>';
const BETWEEN = " Here is what I found: 42.";
const BIG = "y".repeat(HELD_EVENT_LIMIT + 10);
const READ_SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const CHUNK = 64 * 1024;

/**
 * `bytes` cut several ways: whole; in network-sized pieces (two sizes); in those pieces but byte by
 * byte around each offset in `marks` (where the long event begins and ends).
 */
function splits(bytes: Uint8Array, marks: number[]): Uint8Array[][] {
  const sized = (size: number, fine: (at: number) => boolean) => {
    const out: Uint8Array[] = [];
    let at = 0;
    while (at < bytes.length) {
      const step = fine(at) ? 1 : Math.min(size, ...marks.filter((m) => m - 40 > at).map((m) => m - 40 - at));
      out.push(bytes.subarray(at, at + step));
      at += step;
    }
    return out;
  };
  const near = (at: number) => marks.some((m) => at >= m - 40 && at < m + 40);
  return [[bytes], sized(CHUNK, () => false), sized(CHUNK + 7, () => false), sized(CHUNK, near)];
}

/** Where `needle` begins and where the event holding it ends (its blank line), as byte offsets. */
function marksOf(text: string, needle: string): number[] {
  const start = text.lastIndexOf("\n\n", text.indexOf(needle)) + 2;
  const end = text.indexOf("\n\n", text.indexOf(needle)) + 2;
  return [encode(text.slice(0, start)).length, encode(text.slice(0, end)).length];
}

/** The body through repairFetch at every split: the outputs (recovered call ids made equal) and the debug lines. */
async function everySplit(url: string, answer: string, request: Json, needle = BIG.slice(0, 64)): Promise<string[]> {
  const bytes = encode(answer);
  const outs: string[] = [];
  for (const chunks of splits(bytes, marksOf(answer, needle))) {
    const lines: string[] = [];
    const res = await repairFetch({ debug: (line) => lines.push(line) }, chunkedFetch(chunks))(url, postInit(request));
    const out = sameCallIds(await res.text());
    expect(lines.filter((line) => line.includes("stands aside"))).toHaveLength(1);
    outs.push(out);
  }
  // A boolean: a failure must not print megabytes.
  expect(outs.every((out) => out === outs[0])).toBe(true);
  return outs;
}

// ---- chat completions ----

const envelope = { id: "chatcmpl-44", object: "chat.completion.chunk", created: 1, model: "m" };
const chatSse = (chunks: Json[]) => `${chunks.map((c) => `data: ${JSON.stringify({ ...envelope, ...c })}\n\n`).join("")}data: [DONE]\n\n`;
const delta = (content: string, finish: string | null = null) => ({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] });
const native = (fn: Json) => ({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...fn }] }, finish_reason: null }] });
const CHAT_TOOLS = [
  { type: "function", function: { name: "read", parameters: READ_SCHEMA } },
  { type: "function", function: { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } } } } },
];

function readChat(out: string) {
  let text = "";
  const calls = new Map<number, { id: string[]; name: string; args: string }>();
  const finish: string[] = [];
  for (const line of out.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    const choice = JSON.parse(line.slice(6)).choices[0];
    if (typeof choice.delta?.content === "string") text += choice.delta.content;
    for (const call of choice.delta?.tool_calls ?? []) {
      // As an OpenAI client merges them: by index.
      const at = calls.get(call.index) ?? { id: [], name: "", args: "" };
      if (call.id) at.id.push(call.id);
      at.name += call.function?.name ?? "";
      at.args += call.function?.arguments ?? "";
      calls.set(call.index, at);
    }
    if (choice.finish_reason) finish.push(choice.finish_reason);
  }
  return { text, calls: [...calls].map(([index, c]) => `${index} ${c.id.length} ${c.name}:${c.args}`), finish };
}

describe("chat: after the stand-aside", () => {
  test("the prose after the call is shown, a native call takes the next index, the finish says tool_calls, at every split", async () => {
    const answer = chatSse([
      delta("Reading. "),
      delta(CALL),
      delta(BETWEEN),
      delta(BIG),
      delta(" the end"),
      native({ id: "call_native", type: "function", function: { name: "bash", arguments: "" } }),
      native({ function: { arguments: '{"command":"ls"}' } }),
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ]);
    const [out] = await everySplit("http://127.0.0.1:1/v1/chat/completions", answer, { model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: CHAT_TOOLS });
    const { text, calls, finish } = readChat(out!);
    expect(text === `Reading. ${BETWEEN}${BIG} the end`).toBe(true);
    expect(calls).toEqual(['0 1 read:{"path":"/etc/hosts"}', '1 1 bash:{"command":"ls"}']);
    expect(finish).toEqual(["tool_calls"]);
  }, 60_000);

  test("a long last chunk carrying the finish_reason: set to tool_calls as it streams past", async () => {
    const answer = chatSse([delta("Reading. "), delta(CALL), delta(BIG, "stop")]);
    const [out] = await everySplit("http://127.0.0.1:1/v1/chat/completions", answer, { model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: CHAT_TOOLS });
    const { text, calls, finish } = readChat(out!);
    expect(text === `Reading. ${BIG}`).toBe(true);
    expect(calls).toEqual(['0 1 read:{"path":"/etc/hosts"}']);
    expect(finish).toEqual(["tool_calls"]);
  }, 60_000);

  test("a long chunk carrying a native call: it still takes the next index", async () => {
    const answer = chatSse([
      delta(CALL),
      native({ id: "call_native", type: "function", function: { name: "bash", arguments: `{"command":"echo ${BIG}"}` } }),
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    ]);
    const [out] = await everySplit("http://127.0.0.1:1/v1/chat/completions", answer, { model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: CHAT_TOOLS });
    const { calls, finish } = readChat(out!);
    expect(calls.map((call) => call.slice(0, 40))).toEqual(['0 1 read:{"path":"/etc/hosts"}', '1 1 bash:{"command":"echo yyyyyyyyyyyyyy']);
    expect(calls[1]!.endsWith('y"}')).toBe(true);
    expect(finish).toEqual(["tool_calls"]);
  }, 60_000);
});

// ---- Anthropic Messages ----

const messageStart = { type: "message_start", message: { id: "msg_44", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
const textDelta = (index: number, text: string) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } });

/** Blocks as a client keyed by index sees them: faults where an event names a block that is not open. */
function readAnthropic(out: string) {
  expect(namedConsistently(out)).toBe(true);
  const events = dataEvents(out);
  const open = new Set<number>();
  const seen = new Set<number>();
  const faults: string[] = [];
  const blocks: string[] = [];
  let text = "";
  for (const event of events) {
    if (event.type === "content_block_start") {
      if (seen.has(event.index)) faults.push(`start ${event.index} twice`);
      if (event.index !== seen.size) faults.push(`start ${event.index} out of order`);
      seen.add(event.index);
      open.add(event.index);
      blocks.push(event.content_block.type === "tool_use" ? `tool_use ${event.content_block.name}` : event.content_block.type);
    } else if (event.type === "content_block_delta" || event.type === "content_block_stop") {
      if (!open.has(event.index)) faults.push(`${event.type} ${event.index} for a block not open`);
      if (event.type === "content_block_stop") open.delete(event.index);
      if (event.delta?.type === "text_delta") text += event.delta.text;
    }
  }
  if (open.size > 0) faults.push(`left open: ${[...open]}`);
  const stop = events.find((e) => e.type === "message_delta")?.delta?.stop_reason;
  return { faults, blocks, text, stop };
}

describe("Anthropic: after the stand-aside", () => {
  const request = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }], tools: [{ name: "read", input_schema: READ_SCHEMA }, { name: "bash", input_schema: { type: "object" } }] };

  test("the text block goes on in a block that is open, a later block takes the next index, at every split", async () => {
    const answer = namedSse([
      messageStart,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      ...["Reading. ", CALL, BETWEEN, BIG, " the end"].map((text) => textDelta(0, text)),
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "bash", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "{}" } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 5 } },
      { type: "message_stop" },
    ]);
    const [out] = await everySplit("http://127.0.0.1:1/v1/messages", answer, request);
    const { faults, blocks, text, stop } = readAnthropic(out!);
    expect(faults).toEqual([]);
    expect(blocks).toEqual(["text", "tool_use read", "text", "tool_use bash"]);
    expect(text === `Reading. ${BETWEEN}${BIG} the end`).toBe(true);
    expect(stop).toBe("tool_use");
  }, 60_000);

  test("a call that ended the text block: the long delta gets a block opened for it; the stop_reason says tool_use", async () => {
    const answer = namedSse([
      messageStart,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      ...["Reading. ", CALL, BIG].map((text) => textDelta(0, text)),
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } },
      { type: "message_stop" },
    ]);
    const [out] = await everySplit("http://127.0.0.1:1/v1/messages", answer, request);
    const { faults, blocks, text, stop } = readAnthropic(out!);
    expect(faults).toEqual([]);
    expect(blocks).toEqual(["text", "tool_use read", "text"]);
    expect(text === `Reading. ${BIG}`).toBe(true);
    expect(stop).toBe("tool_use");
  }, 60_000);
});

// ---- Responses ----

describe("Responses: after the stand-aside", () => {
  const request = { model: "m", stream: true, input: "hi", tools: [{ type: "function", name: "read", parameters: READ_SCHEMA }] };

  test("a long second message: items keep their output_index, sequence numbers run on, at every split", async () => {
    const answer = responsesItemSse([{ message: "msg_0", parts: [`Reading. ${CALL}`] }, { message: "msg_1", parts: [BIG] }], BIG.length);
    const [out] = await everySplit("http://127.0.0.1:1/v1/responses", answer, request);
    const events = dataEvents(out!);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const added = events.filter((e) => e.type === "response.output_item.added").map((e) => `${e.output_index} ${e.item.type}`);
    expect(added).toEqual(["0 message", "1 function_call", "2 message"]);
    const indexes = new Set(events.filter((e) => e.item_id === "msg_1" || e.item?.id === "msg_1").map((e) => e.output_index));
    expect([...indexes]).toEqual([2]);
  }, 60_000);

  test("a call waiting for its message to end when the long text comes: it goes out right after the message's (long) done event", async () => {
    // The call in the message's first part, a long text in its second; the message's done event repeats it.
    const answer = responsesItemSse([{ message: "msg_0", parts: [`Reading. ${CALL}`, BIG] }, { message: "msg_1", parts: ["Done."] }], HELD_EVENT_LIMIT);
    const [out] = await everySplit("http://127.0.0.1:1/v1/responses", answer, request);
    const events = dataEvents(out!);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const order = events.filter((e) => e.type.startsWith("response.output_item.")).map((e) => `${e.type.slice(21)} ${e.output_index} ${e.item.type}`);
    expect(order).toEqual(["added 0 message", "done 0 message", "added 1 function_call", "done 1 function_call", "added 2 message", "done 2 message"]);
    expect(events.find((e) => e.type === "response.output_item.done" && e.item.type === "function_call")?.item.arguments).toBe('{"path":"/etc/hosts"}');
  }, 60_000);

  test("no call before the long event: the stream stays what a client reads whole (readStream)", async () => {
    const answer = responsesItemSse([{ message: "msg_0", parts: ["Reading."] }, { message: "msg_1", parts: [BIG] }], 1024 * 1024);
    const [out] = await everySplit("http://127.0.0.1:1/v1/responses", answer, request, '"response.output_text.done","item_id":"msg_1"');
    expect(readStream(out!).map((item) => item.type)).toEqual(["message", "message"]);
  }, 60_000);
});

// ---- the stage itself ----

describe("rewriteEventStream after the stand-aside", () => {
  /** A rewriter that changes nothing, says where it was asked, and whose edits throw. */
  function probe() {
    const asked: string[] = [];
    const rewriter: EventRewriter = {
      event(event) {
        asked.push(`event ${event.data?.slice(0, 12)}`);
        return null;
      },
      end() {
        asked.push("end");
        return [{ type: "end" }];
      },
      stop(goesOn) {
        asked.push(`stop ${goesOn}`);
        return [{ type: "held" }];
      },
      passing: {
        keys: new Set(["index"]),
        scalar() {
          throw new Error("edit failed");
        },
      },
    };
    return { rewriter, asked };
  }

  async function run(text: string, chunks: (bytes: Uint8Array) => Uint8Array[]) {
    const { rewriter, asked } = probe();
    const errors: string[] = [];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks(encode(text))) controller.enqueue(chunk);
        controller.close();
      },
    });
    const out = await new Response(rewriteEventStream(body, rewriter, (error) => errors.push(String(error).slice(0, 40)))).text();
    return { out, asked, errors };
  }

  const long = `data: {"index":1,"t":"${BIG}"}\n\n`;
  const cuts = [(bytes: Uint8Array) => [bytes], (bytes: Uint8Array) => Array.from({ length: Math.ceil(bytes.length / CHUNK) }, (_, i) => bytes.subarray(i * CHUNK, (i + 1) * CHUNK))];

  test("an edit that throws leaves its value as it came; events that fit still go to the rewriter, and the end", async () => {
    for (const cut of cuts) {
      const { out, asked, errors } = await run(`data: {"index":0}\n\n${long}data: {"index":2}\n\n`, cut);
      expect(out === `data: {"index":0}\n\nevent: held\ndata: {"type":"held"}\n\n${long}data: {"index":2}\n\nevent: end\ndata: {"type":"end"}\n\n`).toBe(true);
      expect(asked).toEqual(['event {"index":0}', "stop true", 'event {"index":2}', "end"]);
      expect(errors).toEqual(["RangeError: an SSE event over 4194304 by", "Error: edit failed"]);
    }
  });

  test("a long event the body ends in: its bytes as they came, nothing after them", async () => {
    for (const cut of cuts) {
      const { out, asked } = await run(`data: {"index":0}\n\n${long.slice(0, -2)}`, cut);
      expect(out === `data: {"index":0}\n\nevent: held\ndata: {"type":"held"}\n\n${long.slice(0, -2)}`).toBe(true);
      expect(asked).toEqual(['event {"index":0}', "stop true"]);
    }
  });
});
