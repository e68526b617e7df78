// Review 50 (hostile, tests only): what the stream properties (review-50-streams-*.test.ts) found.
// Markup is a Hermes `<tool_call>`, so no DSML marker bytes are written here.
import { describe, expect, test } from "bun:test";
import { dataEvents, namedSse } from "../adapters/wire-support.ts";
import { type Json, RESPONSES_URL, SCHEMA, SDK_TWO_TOOLS, WRITE_SCHEMA, client, message, rawReply, responseObject, responsesRequest } from "./review-48-wires-support.ts";

const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const TWO_TOOLS = { tools: [{ type: "function", name: "read", parameters: SCHEMA }, { type: "function", name: "write", parameters: WRITE_SCHEMA }] };
const NATIVE = { id: "fc_b", type: "function_call", status: "completed", call_id: "call_b", name: "write", arguments: JSON.stringify({ path: "b.sh", text: "echo hi" }) };

const text = (item: Json) => (item.content as Json[])[0]!.text as string;
const at = (item: Json, index: number) => ({ item_id: item.id, output_index: index, content_index: 0 });
const added = (item: Json, index: number): Json[] =>
  item.type === "message"
    ? [
        { type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } },
        { type: "response.content_part.added", ...at(item, index), part: { type: "output_text", text: "", annotations: [] } },
      ]
    : [{ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", arguments: "" } }];
const delta = (item: Json, index: number): Json =>
  item.type === "message"
    ? { type: "response.output_text.delta", ...at(item, index), delta: text(item), logprobs: [] }
    : { type: "response.function_call_arguments.delta", item_id: item.id, output_index: index, delta: item.arguments };
const done = (item: Json, index: number): Json[] =>
  item.type === "message"
    ? [
        { type: "response.output_text.done", ...at(item, index), text: text(item), logprobs: [] },
        { type: "response.content_part.done", ...at(item, index), part: (item.content as Json[])[0] },
        { type: "response.output_item.done", output_index: index, item },
      ]
    : [
        { type: "response.function_call_arguments.done", item_id: item.id, output_index: index, arguments: item.arguments },
        { type: "response.output_item.done", output_index: index, item },
      ];
const sse = (events: Json[], output: Json[]) => namedSse([{ type: "response.created", response: responseObject("in_progress", []) }, ...events, { type: "response.completed", response: responseObject("completed", output) }].map((e, sequence_number) => ({ ...e, sequence_number })));

/** Two items streamed in parallel: both added, the first one's text, the second's delta, then each done. */
function parallel(first: Json, second: Json): string {
  return sse([...added(first, 0), ...added(second, 1), delta(first, 0), delta(second, 1), ...done(first, 0), ...done(second, 1)], [first, second]);
}

/** The same two items one after the other. */
function sequential(first: Json, second: Json): string {
  return sse([...added(first, 0), delta(first, 0), ...done(first, 0), ...added(second, 1), delta(second, 1), ...done(second, 1)], [first, second]);
}

/**
 * Items as the client numbers them: each output_index added once; every event of an item carries
 * the output_index its `added` gave it; response.completed lists the items in output_index order.
 */
function numberingProblems(raw: string): string[] {
  const problems: string[] = [];
  const indexOf = new Map<string, number>();
  const byIndex = new Map<number, string>();
  let completed: Json[] = [];
  for (const e of dataEvents(raw)) {
    if (e.type === "response.output_item.added") {
      if (byIndex.has(e.output_index)) problems.push(`output_index ${e.output_index} added for ${e.item.id} while ${byIndex.get(e.output_index)} has it`);
      byIndex.set(e.output_index, e.item.id);
      indexOf.set(e.item.id, e.output_index);
    } else if (typeof e.output_index === "number") {
      const id = e.item?.id ?? e.item_id;
      if (indexOf.has(id) && indexOf.get(id) !== e.output_index) problems.push(`${e.type} of ${id} at ${e.output_index}, added at ${indexOf.get(id)}`);
    } else if (e.type === "response.completed") completed = e.response.output;
  }
  completed.forEach((item, i) => {
    if (indexOf.has(item.id) && indexOf.get(item.id) !== i) problems.push(`response.completed lists ${item.id} at ${i}, streamed at ${indexOf.get(item.id)}`);
  });
  return problems;
}

// FINDING 1 (host broken: broken stream numbering; src/wires/responses/stream.ts and outbox.ts,
// where a recovered call's function_call item is given the next downstream output_index).
// Responses items streamed in parallel (the brief's "response.output_item.added for items in
// parallel": a second item is added before the first is done). A call recovered from the first
// message goes out as a function_call item after the first item's done, under output_index 1,
// while the second item, added upstream at 1, is still open and keeps 1 for the rest of its events
// (its done included). Two items then share output_index 1 in the stream, while response.completed
// lists the second item at 2. A client that keys items by output_index (the AI SDK keys ongoing
// function calls by it) mixes the two: through @ai-sdk/openai `.responses()` the native write's
// arguments delta is dropped (its tool-input-start and tool-input-end come with no delta between;
// its tool-call still carries the input, read from the item's done event). Text is not lost here:
// the second message's text is stripped as text after the last recovered call (S03, reported).
// Minimal input: msg_a "Run <tool_call>{read a.ts}</tool_call>" and msg_b (or a native
// function_call fc_b) added before msg_a is done; fc_b's arguments delta after msg_a's done.
// Expected: the recovered item takes an output_index no open item holds, and the items after it
// are renumbered (as they are when the items come one after the other), so the stream's numbering
// agrees with response.completed.
// Fixed: a recovered call's function_call item takes an output_index after every item already
// added (src/wires/responses/stream.ts, #callItems), so an item still open keeps the index its
// `added` gave it for all its events; response.completed lists the call after that item, and every
// later item moves by one, as when items come one after the other.
describe("finding 1: a call recovered while another Responses item is open reuses that item's output_index", () => {
  const first = message("msg_a", `Run ${HERMES}`);

  test("two message items in parallel: no output_index is given to two items, numbering agrees with response.completed", async () => {
    const { text: raw } = await rawReply(RESPONSES_URL, responsesRequest(), parallel(first, message("msg_b", "Other words.")));
    expect(numberingProblems(raw)).toEqual([]);
  });

  test("a native function_call added before the message is done: the recovered call does not take its output_index", async () => {
    const events = [...added(first, 0), delta(first, 0), ...added(NATIVE, 1), ...done(first, 0), delta(NATIVE, 1), ...done(NATIVE, 1)];
    const { text: raw } = await rawReply(RESPONSES_URL, responsesRequest(TWO_TOOLS), sse(events, [first, NATIVE]));
    expect(numberingProblems(raw)).toEqual([]);
  });

  test("through @ai-sdk/openai: the native write's input streams to the client (a tool-input-delta for call_b)", async () => {
    const events = [...added(first, 0), delta(first, 0), ...added(NATIVE, 1), ...done(first, 0), delta(NATIVE, 1), ...done(NATIVE, 1)];
    const view = await client("responses", sse(events, [first, NATIVE]), { tools: SDK_TWO_TOOLS });
    expect(view.parts.filter((p) => p.type === "tool-input-delta" && p.id === "call_b").map((p) => p.delta)).toEqual([NATIVE.arguments]);
  });

  test("hard negative: both calls reach the client with their inputs (passes today)", async () => {
    const events = [...added(first, 0), delta(first, 0), ...added(NATIVE, 1), ...done(first, 0), delta(NATIVE, 1), ...done(NATIVE, 1)];
    const view = await client("responses", sse(events, [first, NATIVE]), { tools: SDK_TWO_TOOLS });
    expect(view.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }, { name: "write", input: NATIVE.arguments }]);
    expect(view.text).toBe("Run ");
  });

  test("hard negative: the same two messages one after the other: numbered 0, 1 (the call), 2 (passes today)", async () => {
    const { text: raw } = await rawReply(RESPONSES_URL, responsesRequest(), sequential(first, message("msg_b", "Other words.")));
    expect(numberingProblems(raw)).toEqual([]);
    expect(dataEvents(raw).filter((e) => e.type === "response.output_item.added").map((e) => [e.output_index, e.item.type])).toEqual([[0, "message"], [1, "function_call"], [2, "message"]]);
  });

  test("hard negative: the same write after the message is done, not in parallel: numbering agrees (passes today)", async () => {
    const { text: raw } = await rawReply(RESPONSES_URL, responsesRequest(TWO_TOOLS), sequential(first, NATIVE));
    expect(numberingProblems(raw)).toEqual([]);
  });

  test("hard negative: in parallel, the open item keeps 1 and the recovered call is 2, in the stream and in response.completed", async () => {
    const { text: raw } = await rawReply(RESPONSES_URL, responsesRequest(), parallel(first, message("msg_b", "Other words.")));
    const events = dataEvents(raw);
    expect(events.filter((e) => e.type === "response.output_item.added").map((e) => [e.output_index, e.item.type])).toEqual([[0, "message"], [1, "message"], [2, "function_call"]]);
    // Its text delta is dropped (text after the last recovered call, S03); every other event of it keeps 1.
    expect(events.filter((e) => e.item_id === "msg_b" || e.item?.id === "msg_b").map((e) => [e.type, e.output_index])).toEqual(
      ["response.output_item.added", "response.content_part.added", "response.output_text.done", "response.content_part.done", "response.output_item.done"].map((type) => [type, 1]),
    );
    const completed = events.find((e) => e.type === "response.completed")!.response.output as Json[];
    expect(completed.map((item) => [item.type, item.type === "function_call" ? item.name : item.id])).toEqual([["message", "msg_a"], ["message", "msg_b"], ["function_call", "read"]]);
  });

  test("hard negative: both messages in parallel leak a call: each call after every item added, numbering agrees with response.completed", async () => {
    const second = message("msg_b", `Then ${HERMES.replace("a.ts", "b.ts")}`);
    const { text: raw } = await rawReply(RESPONSES_URL, responsesRequest(), parallel(first, second));
    expect(numberingProblems(raw)).toEqual([]);
    const events = dataEvents(raw);
    expect(events.filter((e) => e.type === "response.output_item.added").map((e) => [e.output_index, e.item.type])).toEqual([[0, "message"], [1, "message"], [2, "function_call"], [3, "function_call"]]);
    expect(events.filter((e) => e.type === "response.output_item.done" && e.item.type === "function_call").map((e) => e.item.arguments)).toEqual(['{"path":"a.ts"}', '{"path":"b.ts"}']);
  });

  test("hard negative: a native write added in parallel keeps 1 for all its events, the recovered read is 2", async () => {
    const events = [...added(first, 0), delta(first, 0), ...added(NATIVE, 1), ...done(first, 0), delta(NATIVE, 1), ...done(NATIVE, 1)];
    const { text: raw } = await rawReply(RESPONSES_URL, responsesRequest(TWO_TOOLS), sse(events, [first, NATIVE]));
    const out = dataEvents(raw);
    expect(out.filter((e) => e.item_id === "fc_b" || e.item?.id === "fc_b").map((e) => [e.type, e.output_index])).toEqual([
      ["response.output_item.added", 1],
      ["response.function_call_arguments.delta", 1],
      ["response.function_call_arguments.done", 1],
      ["response.output_item.done", 1],
    ]);
    const completed = out.find((e) => e.type === "response.completed")!.response.output as Json[];
    expect(completed.map((item) => item.name ?? item.id)).toEqual(["msg_a", "write", "read"]);
  });

  test("hard negative: two messages in parallel with no leak pass through, numbering and text as they came (passes today)", async () => {
    const body = parallel(message("msg_a", "Plain words."), message("msg_b", "Other words."));
    const { text: raw } = await rawReply(RESPONSES_URL, responsesRequest(), body);
    expect(numberingProblems(raw)).toEqual([]);
    const texts = dataEvents(raw).filter((e) => e.type === "response.output_text.delta").map((e) => [e.item_id, e.delta]);
    expect(texts).toEqual([["msg_a", "Plain words."], ["msg_b", "Other words."]]);
  });
});
