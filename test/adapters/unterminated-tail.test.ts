// An SSE event is dispatched only at its blank line: a body that ends without one leaves a last
// event the client drops (the AI SDK's eventsource-parser, a browser's EventSource). What the client
// would not read, the repair does not read either: the unterminated tail never reaches a wire's
// rewriter (no call comes from it, held text is decided as at an end without it) and its bytes go
// out last, as they came, still unterminated (src/sse/rewrite.ts end()). Checked on all three
// wires, whole, byte by byte and at seeded cuts: repaired(body + tail) is repaired(body) + tail.
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { type Json, anthropicTextEvents, byteByByte, chunkedFetch, encode, namedSse, postInit, seededCuts } from "./wire-support.ts";

const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const ENVELOPE = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };

interface Wire {
  name: string;
  url: string;
  request: RequestInit;
  /** A whole stream whose text is written in these deltas, as the wire's server sends it (LF). */
  stream(deltas: string[]): string;
}

const WIRES: Wire[] = [
  {
    name: "chat",
    url: "http://model.test/v1/chat/completions",
    request: postInit({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "read", parameters: SCHEMA } }] }),
    stream: (deltas) =>
      [{ role: "assistant", content: "" }, ...deltas.map((content) => ({ content }))]
        .map((delta) => `data: ${JSON.stringify({ ...ENVELOPE, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`)
        .join("") + `data: ${JSON.stringify({ ...ENVELOPE, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
  },
  {
    name: "anthropic",
    url: "http://model.test/v1/messages",
    request: postInit({ model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }], tools: [{ name: "read", input_schema: SCHEMA }] }),
    stream: (deltas) => namedSse(anthropicTextEvents(deltas)),
  },
  {
    name: "responses",
    url: "http://model.test/v1/responses",
    request: postInit({ model: "m", stream: true, input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }], tools: [{ type: "function", name: "read", parameters: SCHEMA, strict: false }] }),
    stream: (deltas) => namedSse(responsesEvents(deltas)),
  },
];

/** A Responses reply of one message item whose text comes in these deltas. */
function responsesEvents(deltas: string[]): Json[] {
  const text = deltas.join("");
  const at = { item_id: "msg_1", output_index: 0, content_index: 0 };
  const item = (status: string, content: Json[]) => ({ id: "msg_1", type: "message", status, role: "assistant", content });
  const response = (status: string, output: Json[]) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "m", output });
  const done = item("completed", [{ type: "output_text", text, annotations: [] }]);
  return [
    { type: "response.created", response: response("in_progress", []) },
    { type: "response.output_item.added", output_index: 0, item: item("in_progress", []) },
    { type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } },
    ...deltas.map((delta) => ({ type: "response.output_text.delta", ...at, delta, logprobs: [] })),
    { type: "response.output_text.done", ...at, text, logprobs: [] },
    { type: "response.content_part.done", ...at, part: { type: "output_text", text, annotations: [] } },
    { type: "response.output_item.done", output_index: 0, item: done },
    { type: "response.completed", response: response("completed", [done]) },
  ].map((e, sequence_number) => ({ ...e, sequence_number }));
}

/**
 * The data of every event a client dispatches, as the SSE spec reads a body: lines end at CRLF, LF
 * or CR, a blank line dispatches the event, and whatever the body ends without one is dropped.
 */
function dispatched(text: string): Json[] {
  const out: Json[] = [];
  let data: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the unterminated last line (or "" after the last terminator)
  for (const line of lines) {
    if (line === "") {
      if (data.length > 0 && data.join("\n") !== "[DONE]") out.push(JSON.parse(data.join("\n")) as Json);
      data = [];
    } else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  }
  return out;
}

/** The text deltas a client reads. */
function shown(text: string): string {
  return dispatched(text).map((e) => e.choices?.[0]?.delta?.content ?? e.delta?.text ?? (e.type === "response.output_text.delta" ? e.delta : "") ?? "").join("");
}

/** The events of a whole LF stream, each with its blank line. */
function events(stream: string): string[] {
  return stream.split(/(?<=\n\n)/);
}

/** Index of the first event carrying `text` in a delta (JSON-escaped as the stream writes it). */
function eventWith(all: string[], text: string): number {
  const at = all.findIndex((e) => e.includes(JSON.stringify(text).slice(1, -1)) && /delta/.test(e));
  if (at < 0) throw new Error(`no event with ${text}`);
  return at;
}

/** The repaired body, sent in these chunks. */
async function repaired(wire: Wire, parts: Uint8Array[]): Promise<string> {
  return (await repairFetch({}, chunkedFetch(parts))(wire.url, wire.request)).text();
}

/** The repaired body whole, byte by byte and at seeded cuts: all must be one. */
async function everySplit(wire: Wire, body: string): Promise<string> {
  const bytes = encode(body);
  const whole = await repaired(wire, [bytes]);
  expect(await repaired(wire, byteByByte(bytes))).toBe(whole);
  for (const seed of [1, 2, 3, 4]) expect(await repaired(wire, seededCuts(bytes, seed, 24))).toBe(whole);
  return whole;
}

/** How a last event may be left without its blank line. */
const UNTERMINATED: [string, (event: string) => string][] = [
  ["no line end at all", (e) => e.replace(/\n\n$/, "")],
  ["a single LF", (e) => e.replace(/\n\n$/, "\n")],
  ["a single CRLF", (e) => e.replace(/\n\n$/, "").replaceAll("\n", "\r\n") + "\r\n"],
  ["a single CR", (e) => e.replace(/\n\n$/, "").replaceAll("\n", "\r") + "\r"],
  ["a comment line after it, unterminated", (e) => e.replace(/\n\n$/, "\n: ping")],
  ["a comment line after it, with its LF", (e) => e.replace(/\n\n$/, "\n: ping\n")],
];

/** Recovered calls in what the client reads. */
function calls(text: string): number {
  return dispatched(text).filter((e) => e.choices?.[0]?.delta?.tool_calls || e.content_block?.type === "tool_use" || (e.type === "response.output_item.added" && e.item?.type === "function_call")).length;
}

describe("an unterminated last event is passed on as it came, never read", () => {
  for (const wire of WIRES) {
    describe(wire.name, () => {
      // The call's JSON is cut at `"a`: its rest is only in the event the body ends without closing.
      const callCut = events(wire.stream(['A <tool_call>{"name":"read","arguments":{"path":"a', '.ts"}}</tool_call>']));
      const callAt = eventWith(callCut, '.ts"}}');
      // A `<` held when the body ends mid-event.
      const held = events(wire.stream(["Hi <", "there"]));
      const heldAt = eventWith(held, "there");

      for (const [how, unterminated] of UNTERMINATED) {
        test(`a call completed only in the last event (${how}) does not run; the tail goes last, as it came`, async () => {
          const body = callCut.slice(0, callAt).join("");
          const tail = unterminated(callCut[callAt]!);
          const without = await everySplit(wire, body);
          const out = await everySplit(wire, body + tail);
          expect(out).toBe(without + tail);
          expect(calls(out)).toBe(0);
          // The half call is shown as written: decided as at an end without the tail.
          expect(shown(out)).toBe('A <tool_call>{"name":"read","arguments":{"path":"a');
        });

        test(`held text before the last event (${how}) is decided without it`, async () => {
          const body = held.slice(0, heldAt).join("");
          const tail = unterminated(held[heldAt]!);
          const without = await everySplit(wire, body);
          const out = await everySplit(wire, body + tail);
          expect(out).toBe(without + tail);
          expect(shown(out)).toBe("Hi <");
        });
      }

      test("control: the same call with its event closed runs", async () => {
        // Whole only: a recovered call's id is fresh on every run.
        expect(calls(await repaired(wire, [encode(callCut.slice(0, callAt + 1).join(""))]))).toBe(1);
      });

      test("a whole stream followed by an unterminated comment: the comment goes last, the reply as without it", async () => {
        const whole = events(wire.stream(["Reading. ", '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>']));
        const body = whole.join("");
        const out = await repaired(wire, [encode(body + ": bye")]);
        expect(out.endsWith("\n\n: bye")).toBe(true);
        expect(calls(out)).toBe(1);
      });
    });
  }
});

describe("the chat client's view (hard edges)", () => {
  const chunk = (delta: Json) => `data: ${JSON.stringify({ ...ENVELOPE, choices: [{ index: 0, delta, finish_reason: null }] })}`;
  test("a complete event whose blank line is CRLF CRLF is read; one CRLF short is not", async () => {
    const head = `${chunk({ role: "assistant", content: "Hi <" })}\r\n\r\n`;
    const closed = await repaired(WIRES[0]!, [encode(head + chunk({ content: "there" }) + "\r\n\r\n")]);
    const open = await repaired(WIRES[0]!, [encode(head + chunk({ content: "there" }) + "\r\n")]);
    expect(shown(closed)).toBe("Hi <there");
    expect(shown(open)).toBe("Hi <");
    expect(open.endsWith(`${chunk({ content: "there" })}\r\n`)).toBe(true);
  });
});
