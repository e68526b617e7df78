// Review 46 (hostile, tests only): the Responses wire (src/wires/responses/*) through repairFetch,
// read by @ai-sdk/openai `.responses()` where the client's view is the point. Each failing test
// says what is wrong, its severity and the suspected source file; the others are hard negatives.
import { describe, expect, test } from "bun:test";
import { block, live } from "../golden/notation.ts";
import {
  HERMES,
  type Json,
  RESPONSES_URL,
  SCHEMA,
  UNCLOSED,
  dataEvents,
  functionCall,
  message,
  namedSse,
  rawReply,
  responsesClient,
  responsesEvents,
} from "./review-46-wires-support.ts";

const TOOLS = [{ type: "function", name: "read", parameters: SCHEMA }];
const request = (extra: Json = {}) => ({ model: "m", stream: true, input: "read a.ts", tools: TOOLS, ...extra });
const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));

/** A message item whose only part got `text` in one delta, then an `error` event: nothing after it. */
function cutByError(text: string): Json[] {
  const events = responsesEvents([message("msg_1", text)]);
  const deltaAt = events.findIndex((e) => e.type === "response.output_text.delta");
  const kept = events.slice(0, deltaAt + 1);
  return [...kept, { type: "error", code: "server_error", message: "The server had an error", param: null, sequence_number: kept.length }];
}

describe("an `error` event mid-stream cuts the reply: nothing held is decided after it", () => {
  // Fixed (review 46 finding 1, wrong execution, high; fx46-wire-end: an `error` event is a cut), as on Anthropic. The Responses API reports a failure
  // mid-stream with an `error` event (then nothing more, or response.failed). The rewriter treats
  // it as any event; at the body's end ResponsesStreamRewriter.end() ends the reply
  // (TextParts.endReply: a flush) and the markup held, whose closer never came, is decided: a
  // function_call item goes out AFTER the error, and @ai-sdk/openai reports a tool-call after its
  // error part (streamText runs it). Docs (HOW-IT-WORKS, "A reply that is cut"): held text goes
  // out as written before the error, nothing in it decided. Expected: no call; the held text
  // before the error. Suspected: src/wires/responses/stream.ts (#decide: no case for "error"; end()).
  test("an unclosed Hermes call, then an error event: no tool-call reaches the client", async () => {
    const client = await responsesClient(cutByError(`Reading it. ${UNCLOSED}`));
    expect(client.errorAt).toBeGreaterThanOrEqual(0);
    expect(client.calls).toEqual([]);
  });

  test("a DSML block cut in its last closer, then an error event: no function_call item after the error", async () => {
    const { text } = await rawReply(RESPONSES_URL, request(), namedSse(cutByError(`Reading it.\n\n${LEAK.slice(0, -10)}`)), "text/event-stream");
    expect(dataEvents(text).some((e) => e.item?.type === "function_call")).toBe(false);
  });

  // Fixed (review 46 finding 2, text lost to the client, medium; fx46-wire-end), same root: the held text goes out after the
  // error event. Expected: every text delta before it. Suspected: src/wires/responses/stream.ts.
  test("the held text of a cut reply goes out before the error event", async () => {
    const said = `Reading it.\n\n${LEAK.slice(0, 20)}`;
    const { text } = await rawReply(RESPONSES_URL, request(), namedSse(cutByError(said)), "text/event-stream");
    const events = dataEvents(text);
    const errorAt = events.findIndex((e) => e.type === "error");
    expect(events.slice(0, errorAt).filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("")).toBe(said);
  });

  // Fixed (review 46 finding 1, fx46-wire-end), the API's own failure event: response.failed is handled as response.completed
  // (#decide: the same case), so the held unclosed call is decided, goes out as a function_call
  // item before the failed event, and is listed in the failed response's output.
  test("an unclosed Hermes call, then response.failed: no tool-call reaches the client", async () => {
    const events = responsesEvents([message("msg_1", `Reading it. ${UNCLOSED}`)]);
    const kept = events.slice(0, events.findIndex((e) => e.type === "response.output_text.delta") + 1);
    const failed = { type: "response.failed", sequence_number: kept.length, response: { id: "resp_1", object: "response", created_at: 1, status: "failed", model: "m", output: [], error: { code: "server_error", message: "The server had an error" } } };
    const client = await responsesClient([...kept, failed]);
    expect(client.errorAt).toBeGreaterThanOrEqual(0);
    expect(client.calls).toEqual([]);
  });

  // Fixed (review 46 finding 8 on Responses; fx46-wire-end: the part's end now waits for the next event, a content filter is a cut): response.incomplete with incomplete_details.reason "content_filter"
  // (the reply was stopped by the filter) is an end like completed: the unclosed call runs.
  // Suspected: src/wires/responses/stream.ts (#decide), as on Anthropic's refusal.
  test("an unclosed call cut by the content filter (response.incomplete) does not run", async () => {
    const events = responsesEvents([message("msg_1", `Reading it. ${UNCLOSED}`)]);
    const last = events.at(-1)!;
    last.type = "response.incomplete";
    last.response = { ...last.response, status: "incomplete", incomplete_details: { reason: "content_filter" } };
    const client = await responsesClient(events);
    expect(client.calls).toEqual([]);
  });

  test("hard negative: the same unclosed call in a reply that completes runs at the end", async () => {
    const client = await responsesClient(responsesEvents([message("msg_1", `Reading it. ${UNCLOSED}`)]));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });
});

describe("a leaked call and the very same native call in one streamed reply", () => {
  // Fixed, review 46 #3 (a call ran twice before the fix, high by the brief's scale; the stream's known trade-off).
  // (docs/TEST-MATRIX.md: "parallel on keeps today's timing", so a native call after a recovered
  // one is accepted when they differ; with the same tool and input it is the same call run twice.)
  // Parallel calls on (the default): the leak's function_call item goes out when its message item
  // ends; the native function_call item for the same tool and arguments follows, and the client
  // runs `read a.ts` twice. The same reply as JSON gives the native call only (D08). Expected:
  // one call. Suspected: src/wires/responses/stream.ts (#added: a native item after recovered
  // calls that already went out passes as it came).
  const output = () => [message("msg_1", `Reading it.\n\n${LEAK}`), functionCall("fc_native", { path: "a.ts" })];

  test("streamed: read a.ts runs once", async () => {
    const client = await responsesClient(responsesEvents(output()));
    expect(client.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
  });

  test("hard negative: the same reply as JSON gives the native call only", async () => {
    const body = { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output: output() };
    const { text } = await rawReply(RESPONSES_URL, request({ stream: false }), JSON.stringify(body), "application/json");
    expect((JSON.parse(text).output as Json[]).filter((i) => i.type === "function_call").map((i) => i.id)).toEqual(["fc_native"]);
  });

  test("hard negative: parallel_tool_calls false holds the leak, so the native call is the only one", async () => {
    const { text } = await rawReply(RESPONSES_URL, request({ parallel_tool_calls: false }), namedSse(responsesEvents(output())), "text/event-stream");
    const added = dataEvents(text).filter((e) => e.type === "response.output_item.added" && e.item.type === "function_call");
    expect(added.map((e) => e.item.id)).toEqual(["fc_native"]);
  });
});

describe("parallel calls off, and an event too long to hold after a held call", () => {
  // Fixed, review 46 #9 on Responses (two calls where the request allows one, medium; needs an event over
  // 4 MiB). parallel_tool_calls false holds the recovered call until the reply ends; a delta too
  // long to hold makes the rewriter stand aside (stop(true) sets #hold false), the held call goes
  // out after its message item, and the native function_call item after it goes out too. Expected:
  // the native call only, as with a short text. Suspected: src/wires/responses/stream.ts (stop).
  const output = (later: string) => [message("msg_1", `A ${HERMES}`, later), functionCall("fc_native", { path: "n.ts" })];
  const calls = async (later: string) => {
    const events = responsesEvents(output(later));
    const { text } = await rawReply(RESPONSES_URL, request({ parallel_tool_calls: false }), namedSse(events), "text/event-stream");
    return dataEvents(text).filter((e) => e.type === "response.output_item.added" && e.item.type === "function_call").map((e) => e.item.id as string);
  };

  test("a text delta over 4 MiB after the held call: still only the native call", async () => {
    expect(await calls("x".repeat(4 * 1024 * 1024 + 16))).toEqual(["fc_native"]);
  }, 30_000); // a timeout, not a speed assertion: 1 s quiet, over 6 s with other runs on the machine

  test("hard negative: the same reply with a short text gives the native call only", async () => {
    expect(await calls("x")).toEqual(["fc_native"]);
  });
});

describe("the JSON reply, repaired", () => {
  // Fixed (review 46 finding 5, fx46-wire-json) (bytes outside the repair changed, low), as on Anthropic: the repaired body is
  // re-serialized whole, so an integer above 2^53 loses digits. Suspected: src/adapters/fetch.ts
  // (repairWireJson).
  test("an integer above 2^53 keeps its digits", async () => {
    const output = JSON.stringify([message("msg_1", `Reading it. ${HERMES}`)]);
    const body = `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":${output},"usage":{"input_tokens":12345678901234567890,"output_tokens":2,"total_tokens":3}}`;
    const { text } = await rawReply(RESPONSES_URL, request({ stream: false }), body, "application/json");
    expect((JSON.parse(text).output as Json[]).map((i) => i.type)).toEqual(["message", "function_call"]);
    expect(text).toContain('"input_tokens":12345678901234567890');
  });

  // Fixed (review 46 finding 7, fx46-wire-json) (annotation offsets stale, low). url_citation annotations carry start_index and
  // end_index into their part's text; when the repair takes markup out of the text (and strips
  // the prose after the call, S03), they are left as they were and point past the text's end or at
  // other words. The AI SDK ignores the offsets, a client that renders them does not. Expected:
  // offsets moved with the text, or annotations past what is left dropped. Suspected:
  // src/wires/responses/wire.ts (repairResponseJson sets part.text only); the stream's
  // annotation.added events likewise.
  test("a url_citation after a removed call still points inside its part's text", async () => {
    const text = `See ${HERMES} the docs.`;
    const at = text.indexOf("docs");
    const part = { type: "output_text", text, annotations: [{ type: "url_citation", start_index: at, end_index: at + 4, url: "https://example.test/docs", title: "docs" }] };
    const body = { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output: [{ id: "msg_1", type: "message", status: "completed", role: "assistant", content: [part] }] };
    const { text: out } = await rawReply(RESPONSES_URL, request({ stream: false }), JSON.stringify(body), "application/json");
    const repaired = (JSON.parse(out).output as Json[])[0]!.content[0] as Json;
    expect(repaired.text).not.toBe(text);
    for (const a of repaired.annotations as Json[]) expect(a.end_index).toBeLessThanOrEqual((repaired.text as string).length);
  });
});

describe("hard negatives: numbering the client accepts", () => {
  test("a web search item, a reasoning item and two messages with leaks: output_index, sequence_number and response.completed agree with the streamed items", async () => {
    const output = [
      { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "q" } },
      { id: "rs_1", type: "reasoning", summary: [] },
      message("msg_1", `A ${HERMES}`, " and "),
      message("msg_2", `B ${HERMES.replace("a.ts", "b.ts")}`),
    ];
    const { text } = await rawReply(RESPONSES_URL, request(), namedSse(responsesEvents(output)), "text/event-stream");
    const events = dataEvents(text);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const done: Json[] = [];
    for (const e of events) {
      if (e.type === "response.output_item.added") expect(e.output_index).toBe(done.length);
      if (e.type === "response.output_item.done") {
        expect(e.output_index).toBe(done.length);
        done.push(e.item);
      }
    }
    expect(done.map((i) => i.type)).toEqual(["web_search_call", "reasoning", "message", "function_call", "message", "function_call"]);
    expect(events.at(-1)!.response.output).toEqual(done);
  });
});
