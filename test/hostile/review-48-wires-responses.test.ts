// Review 48 (hostile, tests only): the OpenAI Responses wire (src/wires/responses/*) behind the
// real repairFetch, read by @ai-sdk/openai `.responses()`: what the client parsed is what counts,
// and the raw sequence's numbering (sequence_number, output_index, item ids, response.completed's
// output) is checked too. Findings first (failing on main), then hard negatives passing on main.
import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import fc from "fast-check";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { block, live } from "../golden/notation.ts";
import { byteByByte } from "../adapters/wire-support.ts";
import {
  type Json, HERMES, HERMES_WRITE, RESPONSES_URL, SCHEMA, SDK_TWO_TOOLS, WRITE_SCHEMA, client, dataEvents, encode, everySplitView, functionCall, generate, kept, message,
  namedSse, rawReply, responseObject, responsesEvents, responsesProblems, responsesRequest,
} from "./review-48-wires-support.ts";

const B_TS = HERMES.replace("a.ts", "b.ts");
const DS = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const TWO = { tools: [{ type: "function", name: "read", parameters: SCHEMA }, { type: "function", name: "write", parameters: WRITE_SCHEMA }] };

/** The repaired stream's finished items, as type (and tool name). */
function items(text: string): string[] {
  return dataEvents(text).filter((e) => e.type === "response.output_item.done").map((e) => (e.item.type === "function_call" ? `function_call:${e.item.name}` : e.item.type));
}

// ---------------------------------------------------------------- findings

describe("fixed: text between a recovered call and a later native function_call is lost on the stream", () => {
  // Severity: medium (text lost; the JSON path keeps it). Suspected source: src/wires/responses/stream.ts
  // #added → TextParts.nativeCall (src/wires/responses/text-parts.ts) notes the native call but never
  // releases the tail the engine holds after the recovered call (RepairEngine.releaseTail exists and
  // is used when a later part recovers a call), so it is stripped at the reply's end (S03) although
  // a call follows it. Observed: text "a "; expected "a  and b.ts next, as planned.".
  const PROSE = " and b.ts next, as planned.";
  const output = [message("msg_1", `a ${HERMES}${PROSE}`), functionCall("fc_1", { path: "b.ts" })];

  test("stream: the prose before the native call stays visible", async () => {
    const v = await client("responses", namedSse(responsesEvents(output, 6)));
    expect(v.text).toBe(`a ${PROSE}`);
  });

  test("stream: the same with the prose in a second output_text part", async () => {
    const v = await client("responses", namedSse(responsesEvents([message("msg_1", `a ${HERMES}`, PROSE), functionCall("fc_1", { path: "b.ts" })], 6)));
    expect(v.text).toBe(`a ${PROSE}`);
  });

  test("hard negative: the JSON reply keeps the prose (the leak is stripped there, the native call wins)", async () => {
    const v = await generate("responses", responseObject("completed", JSON.parse(JSON.stringify(output))));
    expect(v.text).toBe(`a ${PROSE}`);
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"b.ts"}' }]);
  });

  test("hard negative: the stream's numbering stays consistent in this case", async () => {
    const { text } = await rawReply(RESPONSES_URL, responsesRequest(), namedSse(responsesEvents(output, 6)));
    expect(responsesProblems(text)).toEqual([]);
    expect(items(text)).toEqual(["message", "function_call:read", "function_call:read"]);
  });
});

/**
 * Two turns through @ai-sdk/openai `.responses()` (store left at its default, on) behind one
 * repairFetch: the first answers `first`, the second "done". The second request's body, as sent.
 */
async function secondRequest(first: Json[]): Promise<Json> {
  const bodies: Json[] = [];
  const base = (async (_url: unknown, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    const output = bodies.length === 1 ? first : [message("msg_2", "done")];
    return new Response(namedSse(responsesEvents(output)), { headers: { "content-type": "text/event-stream" } });
  }) as unknown as typeof fetch;
  const model = createOpenAI({ baseURL: "http://model.test/v1", apiKey: "k", fetch: repairFetch({}, base) }).responses("gpt-x");
  const prompt: Json[] = [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }];
  const tools = [{ type: "function", name: "read", inputSchema: SCHEMA }];
  const parts: Json[] = [];
  const { stream } = await model.doStream({ prompt, tools } as never);
  for await (const part of stream as unknown as AsyncIterable<Json>) parts.push(part);
  const text = parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join("");
  const meta = parts.find((p) => p.type === "text-start")?.providerMetadata;
  const calls = parts.filter((p) => p.type === "tool-call");
  prompt.push({ role: "assistant", content: [{ type: "text", text, providerOptions: meta }, ...calls.map((c) => ({ type: "tool-call", toolCallId: c.toolCallId, toolName: c.toolName, input: JSON.parse(c.input), providerOptions: c.providerMetadata }))] });
  if (calls.length > 0) prompt.push({ role: "tool", content: calls.map((c) => ({ type: "tool-result", toolCallId: c.toolCallId, toolName: c.toolName, output: { type: "text", value: "contents" } })) });
  else prompt.push({ role: "user", content: [{ type: "text", text: "go on" }] });
  const next = await model.doStream({ prompt, tools } as never);
  for await (const _ of next.stream as unknown as AsyncIterable<Json>);
  return bodies[1]!;
}

describe("fixed: a message item the repair changed keeps the server's id, so the next turn replays the stored leak", () => {
  // Severity: medium (history: the markup the repair took out goes back to the model, from the
  // server's stored copy, where neither the client nor history sanitizing can see it; the model
  // then sees the call both as markup and as a function_call, and is taught to leak again).
  // @ai-sdk/openai `.responses()` has `store` on by default and replays an assistant text part that
  // carries an item id as `{ type: "item_reference", id }`. The repaired stream keeps the upstream
  // id (msg_1) on the message whose text it changed, and the client's clean text "I will read it. "
  // never goes out: the request holds item_reference msg_1, i.e. "I will read it. <tool_call>…".
  // (The middleware's history.sanitize drops item ids only when it changes the text, which it does
  // not here: the text it sees is already clean.) Suspected source: src/wires/responses/stream.ts
  // (a changed message item's id) with src/adapters/request-history.ts (an item_reference to an
  // item the repair changed is not resolved into its repaired text). Observed: input holds
  // item_reference msg_1; expected: the repaired message goes inline (or under an id the server
  // does not hold the leak for).
  test("the second request does not refer to the stored copy of the repaired message", async () => {
    const body = await secondRequest([message("msg_1", `I will read it. ${HERMES}`)]);
    expect((body.input as Json[]).filter((i) => i.type === "item_reference").map((i) => i.id)).not.toContain("msg_1");
  });

  test("hard negative: the function_call recovered goes back inline, with the call_id the tool result answers", async () => {
    const body = await secondRequest([message("msg_1", `I will read it. ${HERMES}`)]);
    const input = body.input as Json[];
    const call = input.find((i) => i.type === "function_call")!;
    expect(call.name).toBe("read");
    expect(input.find((i) => i.type === "function_call_output")!.call_id).toBe(call.call_id);
  });

  test("hard negative: a clean reply's message is referred to by its id, as without the repair", async () => {
    const body = await secondRequest([message("msg_1", "nothing to do")]);
    expect((body.input as Json[]).filter((i) => i.type === "item_reference").map((i) => i.id)).toEqual(["msg_1"]);
  });
});

// ---------------------------------------------------------------- hard negatives

describe("hard negatives: markup that must not run", () => {
  test("markup in a refusal part never runs; the client reads content-filter", async () => {
    const item = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "refusal", refusal: `no ${HERMES}` }] };
    const v = await client("responses", namedSse(responsesEvents([item])));
    expect(v.calls).toEqual([]);
    expect(v.text).toBe(`no ${HERMES}`);
    expect(v.finish).toBe("content-filter");
  });

  test("markup in a reasoning summary never runs", async () => {
    const out = [{ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: `plan ${HERMES}` }] }, message("msg_1", "ok")];
    const v = await client("responses", namedSse(responsesEvents(out)));
    expect(v.calls).toEqual([]);
    expect(v.reasoning).toBe(`plan ${HERMES}`);
    expect(v.text).toBe("ok");
    expect(v.finish).toBe("stop");
  });

  test("JSON: markup in reasoning and in a refusal never runs; the output_text leak does", async () => {
    const body = responseObject("completed", [{ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: HERMES }] }, { id: "msg_0", type: "message", status: "completed", role: "assistant", content: [{ type: "refusal", refusal: HERMES }] }, message("msg_1", `x ${HERMES}`)]);
    const v = await generate("responses", body);
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    expect(v.content.map((c) => c.type)).toEqual(["reasoning", "text", "text", "tool-call"]);
  });

  const choices: [string, unknown, string[]][] = [
    ["allowed_tools naming read", { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "read" }] }, ["message"]],
    ["a function naming read", { type: "function", name: "read" }, ["message"]],
    ["none", "none", ["message"]],
    ["required", "required", ["message", "function_call:write"]],
  ];
  for (const [name, choice, expected] of choices) {
    test(`tool_choice ${name}: a leaked write`, async () => {
      const { text } = await rawReply(RESPONSES_URL, responsesRequest({ ...TWO, tool_choice: choice }), namedSse(responsesEvents([message("msg_1", `x ${HERMES_WRITE}`)])));
      expect(items(text)).toEqual(expected);
      expect(responsesProblems(text)).toEqual([]);
    });
  }

  test("through the client: toolChoice naming read, a leaked write stays text", async () => {
    const v = await client("responses", namedSse(responsesEvents([message("msg_1", `x ${HERMES_WRITE}`)])), { tools: SDK_TWO_TOOLS, toolChoice: { type: "tool", toolName: "read" } });
    expect(v.calls).toEqual([]);
    expect(v.text).toBe(`x ${HERMES_WRITE}`);
  });

  test("previous_response_id and no tools in the request: nothing is declared, nothing runs, bytes pass", async () => {
    const body = namedSse(responsesEvents([message("msg_1", `x ${HERMES}`)]));
    const { text } = await rawReply(RESPONSES_URL, { model: "gpt-x", stream: true, previous_response_id: "resp_0", input: [{ role: "user", content: "go" }] }, body);
    expect(text).toBe(body);
  });

  const QUOTE = `The file says:\n${HERMES}\nthat's all.`;
  const given: [string, Json][] = [
    ["a function_call_output string", { input: [{ role: "user", content: "read" }, { type: "function_call", call_id: "c1", name: "read", arguments: '{"path":"doc.md"}' }, { type: "function_call_output", call_id: "c1", output: `doc: ${HERMES}` }] }],
    ["a function_call_output of input_text parts", { input: [{ role: "user", content: "read" }, { type: "function_call", call_id: "c1", name: "read", arguments: '{"path":"doc.md"}' }, { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: `doc: ${HERMES}` }] }] }],
    ["an input_file's base64 text", { input: [{ role: "user", content: [{ type: "input_file", filename: "a.txt", file_data: `data:text/plain;base64,${Buffer.from(`doc: ${HERMES}`).toString("base64")}` }, { type: "input_text", text: "summarize" }] }] }],
  ];
  for (const [name, extra] of given) {
    test(`echo: a call quoted from ${name} never runs`, async () => {
      const { text, results } = await rawReply(RESPONSES_URL, responsesRequest(extra), namedSse(responsesEvents([message("msg_1", QUOTE)], 9)));
      expect(items(text)).toEqual(["message"]);
      expect(results.flatMap((r) => r.summary?.broken ?? []).map((b) => b.reason)).toEqual(["echoed-markup"]);
    });
  }

  test("echo: a call quoted from an mcp_call's output earlier in the reply never runs", async () => {
    const out = [{ id: "mcp_1", type: "mcp_call", server_label: "s", name: "fetch", arguments: "{}", output: `page: ${HERMES}` }, message("msg_1", QUOTE)];
    const { text } = await rawReply(RESPONSES_URL, responsesRequest(), namedSse(responsesEvents(out, 9)));
    expect(items(text)).toEqual(["mcp_call", "message"]);
  });
});

describe("hard negatives: numbering and ends the client reads", () => {
  test("reasoning, two messages with leaks (two parts in the first), a native call between: numbers, ids and response.completed agree", async () => {
    const out = [{ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "plan" }] }, message("msg_1", `a ${HERMES}`, "second part"), functionCall("fc_1", { path: "z.ts" }), message("msg_2", `b ${B_TS}`)];
    const { text } = await rawReply(RESPONSES_URL, responsesRequest(), namedSse(responsesEvents(out, 7)));
    expect(responsesProblems(text)).toEqual([]);
    const v = await client("responses", namedSse(responsesEvents(out, 7)));
    // The late leak is stripped (a native call came before it); the text after the call is S03's.
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }, { name: "read", input: '{"path":"z.ts"}' }]);
  });

  test("a refusal part before an output_text leak in one message: numbering agrees, the call runs", async () => {
    const item = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "refusal", refusal: "no" }, { type: "output_text", text: `x ${HERMES}`, annotations: [] }] };
    const { text } = await rawReply(RESPONSES_URL, responsesRequest(), namedSse(responsesEvents([item])));
    expect(responsesProblems(text)).toEqual([]);
    expect(items(text)).toEqual(["message", "function_call:read"]);
  });

  test("a server without content_part events: the call still goes out after the item, numbers agree", async () => {
    const events = responsesEvents([message("msg_1", `see ${HERMES} done`)], 9).filter((e) => e.type !== "response.content_part.added" && e.type !== "response.content_part.done");
    events.forEach((e, i) => (e.sequence_number = i));
    const { text } = await rawReply(RESPONSES_URL, responsesRequest(), namedSse(events));
    expect(responsesProblems(text)).toEqual([]);
    expect(items(text)).toEqual(["message", "function_call:read"]);
  });

  test("an annotation.added between the text and its done: the call after the item, numbers agree", async () => {
    const events = responsesEvents([message("msg_1", `see ${HERMES} ref`)]);
    const at = events.findIndex((e) => e.type === "response.output_text.done");
    events.splice(at, 0, { type: "response.output_text.annotation.added", item_id: "msg_1", output_index: 0, content_index: 0, annotation_index: 0, annotation: { type: "url_citation", url: "http://x", title: "x", start_index: 0, end_index: 3 } });
    events.forEach((e, i) => (e.sequence_number = i));
    const { text } = await rawReply(RESPONSES_URL, responsesRequest(), namedSse(events));
    expect(responsesProblems(text)).toEqual([]);
  });

  test("response.incomplete for max_output_tokens: the call runs, the client reads length, numbers agree", async () => {
    const out = [message("msg_1", `x ${HERMES}`)];
    const events = responsesEvents(out, 1000, { type: "response.incomplete", response: responseObject("incomplete", out, { incomplete_details: { reason: "max_output_tokens" } }) });
    const { text } = await rawReply(RESPONSES_URL, responsesRequest(), namedSse(events));
    expect(responsesProblems(text)).toEqual([]);
    const v = await client("responses", namedSse(events));
    expect(v.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
    expect(v.finish).toBe("length");
  });

  const framings: [string, (events: Json[]) => string][] = [
    ["CRLF", (events) => namedSse(events, "\r\n")],
    ["comments and id lines", (events) => events.map((e, i) => `: keepalive\nid: ${i}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("")],
    ["data lines only", (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")],
    ["multi-line data", (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e).replace(/,"/g, ',\ndata: "')}\n\n`).join("")],
    ["no sequence_number", (events) => events.map(({ sequence_number: _, ...e }) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("")],
  ];
  for (const [name, frame] of framings) {
    test(`${name}: one view whole, byte by byte and at seeded cuts; the call runs`, async () => {
      const runs = await everySplitView("responses", frame(responsesEvents([message("msg_1", `see ${HERMES} done`)], 9)), {}, [1, 2, 3]);
      for (const run of runs) expect(run).toEqual(runs[0]!);
      expect(runs[0]!.calls).toEqual([{ name: "read", input: '{"path":"a.ts"}' }]);
      expect(runs[0]!.finish).toBe("tool-calls");
    });
  }

  const scenarios: [string, Json[], Json][] = [
    ["DSML in a reasoning summary and a message, two parts, the native repeat, another message", responsesEvents([{ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: DS }] }, message("msg_1", `I will: ${DS} ok`, "p2"), functionCall("fc_1", { path: "a.ts" }), message("msg_2", "more")], 11), {}],
    ["parallel calls off, two leaks", responsesEvents([message("msg_1", `a ${HERMES} b ${B_TS}`)], 5), { providerOptions: { openai: { parallelToolCalls: false } } }],
    ["a web search call, then a DSML leak", responsesEvents([{ id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "x" } }, message("msg_1", `so ${DS}`)], 6), {}],
  ];
  for (const [name, events, extra] of scenarios) {
    test(`seeded random byte splits (multi-byte marker characters cut too): ${name}`, async () => {
      const body = namedSse(events);
      const bytes = encode(body);
      const whole = kept(await client("responses", body, extra));
      expect(kept(await client("responses", byteByByte(bytes), extra))).toEqual(whole);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (cuts) => {
          const at = [...new Set(cuts.map((c) => c % bytes.length))].filter((c) => c > 0).sort((a, b) => a - b);
          const ends = [0, ...at, bytes.length];
          expect(kept(await client("responses", ends.slice(1).map((end, i) => bytes.subarray(ends[i]!, end)), extra))).toEqual(whole);
        }),
        { seed: 48, numRuns: 40 },
      );
      expect(whole.calls.length).toBeGreaterThan(0);
    });
  }
});
