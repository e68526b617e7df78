// The bounds of a held native call (src/wires/held-native.ts) on every wire and the middleware's
// stream: a leaked call went out, then the same call natively, its arguments streamed in many
// events. Held within HELD_NATIVE_EVENTS events and HELD_NATIVE_CHARS characters of arguments, it
// is decided at its end and dropped as the repeat it is; one event or one character past either
// bound it goes out as it came, undecided (the client then has both). The middleware's stream
// does the same: fixed (review 47, was pinned here as a known gap): past the bound its tool-input
// parts went out but its tool-call was still compared when it came (the bare tool-call path) and
// dropped, so the host got a tool input no tool-call completed. The rule now: a call released
// undecided goes out whole, its tool-call never compared (stream.ts remembers the released ids).
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { HELD_NATIVE_CHARS, HELD_NATIVE_EVENTS } from "../../src/wires/sent-calls.ts";
import { HERMES, type Json, MESSAGES_URL, RESPONSES_URL, SCHEMA, dataEvents, functionCall, message, messageEnd, messageStart, namedSse, rawReply, responsesEvents, textBlock } from "../hostile/review-46-wires-support.ts";

const CHAT_URL = "http://model.test/v1/chat/completions";
const LEAK = `Reading it.\n\n${HERMES}`;
const OPEN = '{"path":"a.ts"';

/** The arguments `{"path":"a.ts"}` in `count` pieces: the rest are spaces, `length` characters in all. */
function argPieces(count: number, length = OPEN.length + 1): string[] {
  const spaces = length - OPEN.length - 1;
  const pieces = [OPEN];
  const middle = count - 2;
  // Spaces spread over the middle pieces (each at most 1 MiB, under the stream's event bound).
  for (let at = 0; at < middle; at++) pieces.push(" ".repeat(Math.floor((spaces * (at + 1)) / middle) - Math.floor((spaces * at) / middle)));
  pieces.push("}");
  expect(pieces.join("").length).toBe(length);
  expect(JSON.parse(pieces.join(""))).toEqual({ path: "a.ts" });
  return pieces;
}

/** Pieces of a call whose events number `events`, given how many events of it are not argument pieces. */
const byEvents = (events: number, others: number) => argPieces(events - others);
/** Pieces with `length` characters of arguments in all, each under 1 MiB. */
const byChars = (length: number) => argPieces(Math.ceil(length / (1 << 20)) + 2, length);

// ---------------------------------------------------------------- chat completions

const chatRequest = { model: "m", stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ type: "function", function: { name: "read", parameters: SCHEMA } }] };
const chunk = (delta: Json, finish: string | null = null): Json => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
function chatBody(pieces: string[]): string {
  const entries = pieces.map((piece, at) => chunk({ tool_calls: [{ index: 0, ...(at === 0 ? { id: "call_native", type: "function", function: { name: "read", arguments: piece } } : { function: { arguments: piece } }) }] }));
  const chunks = [chunk({ role: "assistant", content: "" }), chunk({ content: LEAK }), ...entries, chunk({}, "tool_calls")];
  return [...chunks.map((c) => JSON.stringify(c)), "[DONE]"].map((data) => `data: ${data}\n\n`).join("");
}
async function chatIds(pieces: string[]): Promise<string[]> {
  const { text } = await rawReply(CHAT_URL, chatRequest, chatBody(pieces), "text/event-stream");
  const ids: string[] = [];
  for (const event of dataEvents(text)) for (const c of event.choices?.[0]?.delta?.tool_calls ?? []) if (c.id) ids[c.index] = c.id;
  return ids;
}

// ---------------------------------------------------------------- Anthropic Messages

const messagesRequest = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read", input_schema: SCHEMA }] };
async function anthropicIds(pieces: string[]): Promise<string[]> {
  const events = [
    messageStart(),
    ...textBlock(0, [LEAK]),
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_native", name: "read", input: {} } },
    ...pieces.map((partial_json) => ({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json } })),
    { type: "content_block_stop", index: 1 },
    ...messageEnd("tool_use"),
  ];
  const { text } = await rawReply(MESSAGES_URL, messagesRequest, namedSse(events), "text/event-stream");
  return dataEvents(text)
    .filter((e) => e.content_block?.type === "tool_use")
    .map((e) => e.content_block.id);
}

// ---------------------------------------------------------------- Responses

const responsesRequest = { model: "m", stream: true, input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }] };
async function responsesIds(pieces: string[]): Promise<string[]> {
  // The done events carry the arguments short (the deltas are what the bound counts), so no event is over the stream's bound.
  const events = responsesEvents([message("msg_1", LEAK), functionCall("fc_native", { path: "a.ts" })]);
  const at = events.findIndex((e) => e.type === "response.function_call_arguments.delta");
  const deltas = pieces.map((delta) => ({ ...events[at]!, delta }));
  const all = [...events.slice(0, at), ...deltas, ...events.slice(at + 1)].map((event, sequence_number) => ({ ...event, sequence_number }));
  const { text } = await rawReply(RESPONSES_URL, responsesRequest, namedSse(all), "text/event-stream");
  return dataEvents(text)
    .filter((e) => e.type === "response.output_item.added" && e.item.type === "function_call")
    .map((e) => e.item.id);
}

// ---------------------------------------------------------------- middleware

type Part = LanguageModelV3StreamPart;
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: SCHEMA };
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }], tools: [read] } as LanguageModelV3CallOptions;
/** The tool-call ids the host gets, then the ids of the tool inputs it saw start. */
async function middlewareParts(pieces: string[]): Promise<[string[], string[]]> {
  const id = "call_native";
  const parts: Part[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: LEAK },
    { type: "text-end", id: "t" },
    { type: "tool-input-start", id, toolName: "read" },
    ...pieces.map((delta) => ({ type: "tool-input-delta", id, delta }) as Part),
    { type: "tool-input-end", id },
    { type: "tool-call", toolCallId: id, toolName: "read", input: pieces.join("") },
    { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } },
  ];
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>(parts) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
  const { stream } = await model.doStream(params);
  const out = await convertReadableStreamToArray(stream);
  const calls = out.filter((p) => p.type === "tool-call").map((p) => (p as { toolCallId: string }).toolCallId);
  const inputs = out.filter((p) => p.type === "tool-input-start").map((p) => (p as { id: string }).id);
  return [calls, inputs];
}
const middlewareIds = async (pieces: string[]) => (await middlewareParts(pieces))[0];

// Events of the held call that carry no argument piece: chat none (its first entry carries one),
// Anthropic the block's start, Responses the item's added and arguments' done, the middleware the
// tool-input-start and -end. The event that completes the call (a block's stop, an item's done, a
// tool-call) is not counted.
const WIRES: [string, (pieces: string[]) => Promise<string[]>, string, number][] = [
  ["chat", chatIds, "call_native", 0],
  ["Anthropic", anthropicIds, "toolu_native", 1],
  ["Responses", responsesIds, "fc_native", 2],
];

/**
 * A timeout, not a speed assertion: two streams of HELD_NATIVE_EVENTS events each took 1 s in a quiet
 * CI run and passed bun's default 5 s with other test runs on this 2-core machine.
 */
const BIG_STREAM = 30_000;

describe("a held native call's bounds, on every wire", () => {
  for (const [name, ids, native, others] of WIRES) {
    test(`${name}: HELD_NATIVE_EVENTS events held, the repeat dropped; one more event, it goes out`, async () => {
      const within = await ids(byEvents(HELD_NATIVE_EVENTS, others));
      expect(within).toHaveLength(1);
      expect(within).not.toContain(native);
      const past = await ids(byEvents(HELD_NATIVE_EVENTS + 1, others));
      expect(past).toHaveLength(2);
      expect(past[1]).toBe(native);
    }, BIG_STREAM);

    test(`${name}: HELD_NATIVE_CHARS characters of arguments held, the repeat dropped; one more, it goes out`, async () => {
      const within = await ids(byChars(HELD_NATIVE_CHARS));
      expect(within).toHaveLength(1);
      expect(within).not.toContain(native);
      const past = await ids(byChars(HELD_NATIVE_CHARS + 1));
      expect(past).toHaveLength(2);
      expect(past[1]).toBe(native);
    });
  }
});

describe("the middleware's stream: the bounds hold, and past them the call goes out whole", () => {
  // tool-input-start and tool-input-end carry no argument piece; the tool-call completes the call.
  for (const [bound, within, past] of [
    ["HELD_NATIVE_EVENTS events", () => byEvents(HELD_NATIVE_EVENTS, 2), () => byEvents(HELD_NATIVE_EVENTS + 1, 2)],
    ["HELD_NATIVE_CHARS characters", () => byChars(HELD_NATIVE_CHARS), () => byChars(HELD_NATIVE_CHARS + 1)],
  ] as const) {
    // fixed: past the bound the tool-call was dropped after its tool-input parts went out; now it goes out with them.
    test(`fixed: ${bound} held: the repeat dropped with its tool-input parts; one more: its parts and its tool-call go out`, async () => {
      const [calls, inputs] = await middlewareParts(within());
      expect(calls).toHaveLength(1);
      expect(calls).not.toContain("call_native");
      expect(inputs).not.toContain("call_native");
      const [pastCalls, pastInputs] = await middlewareParts(past());
      expect(pastInputs).toContain("call_native");
      expect(pastCalls).toHaveLength(2);
      expect(pastCalls[1]).toBe("call_native");
    });
  }
});
