// Review 49 (hostile, tests only): the non-streaming (JSON) answers of the three wires
// (src/wires/*/wire.ts repair*Json through src/adapters/fetch.ts repairWireJson), compared with the
// same reply streamed, read by the AI SDK's own providers (@ai-sdk/anthropic, @ai-sdk/openai
// `.responses()`) where the client parses what is checked. Each test states the rule it pins (each
// was a finding of the review, fixed since). Markup is Hermes `<tool_call>` JSON or DSML built by
// test/golden/notation.ts: no DSML marker bytes are written here.
import { describe, expect, test } from "bun:test";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { block, live } from "../golden/notation.ts";
import { READ, rawReply as chatRaw } from "./review-47-chat-support.ts";
import {
  HERMES,
  RESPONSES_URL,
  SCHEMA,
  client,
  generate,
  kept,
  messageEnd,
  messageStart,
  namedSse,
  rawReply,
  responseObject,
  textBlock,
  thinkingBlock,
} from "./review-48-wires-support.ts";

const DSML = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
/** A Hermes call whose closing tag never came. */
const UNCLOSED = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}';

/** An Anthropic reply of these blocks (text or thinking), as one JSON message and as its event stream (5-character deltas). */
function anthropicReply(blocks: ["text" | "thinking", string][], stop: string) {
  const json = {
    id: "msg_1", type: "message", role: "assistant", model: "m", stop_reason: stop, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 9 },
    content: blocks.map(([kind, text]) => (kind === "text" ? { type: "text", text } : { type: "thinking", thinking: text, signature: "sig" })),
  };
  const events = [messageStart(), ...blocks.flatMap(([kind, text], i) => (kind === "text" ? textBlock(i, text.match(/[\s\S]{1,5}/g)!) : thinkingBlock(i, [text]))), ...messageEnd(stop)];
  return { json, sse: namedSse(events) };
}

describe("Anthropic: a refused reply whose last text block is followed by a thinking block", () => {
  // Rule (was a finding: the stream ran the call of a refused reply): a reply that did not end
  // normally decides nothing held at its end. stop_reason "refusal" cuts the reply; content
  // [text "Reading. <DSML block>" | "Reading. <tool_call>{...}" unclosed], [thinking]. The JSON
  // answer shows the markup as written, no call; the stream no longer decides the held markup
  // where the text block ends before the thinking block (src/wires/anthropic/waiting-blocks.ts:
  // the thinking block waits until the reply goes on or ends with its stop reason known), so
  // both agree. With end_turn both give the call (hard negative below).
  for (const [name, text] of [["a complete DSML block", `Reading. ${DSML}`], ["an unclosed Hermes call", `Reading. ${UNCLOSED}`]] as const) {
    test(`${name}, refused: the JSON answer and the stream give the same calls and text (no call)`, async () => {
      const { json, sse } = anthropicReply([["text", text], ["thinking", "hmm"]], "refusal");
      const fromJson = await generate("anthropic", json);
      const fromStream = await client("anthropic", sse);
      expect({ calls: fromStream.calls, text: fromStream.text }).toEqual({ calls: fromJson.calls, text: fromJson.text });
    });

    // Hard negative: the same reply ended normally agrees, one call.
    test(`hard negative: ${name}, end_turn: both give the call`, async () => {
      const { json, sse } = anthropicReply([["text", text], ["thinking", "hmm"]], "end_turn");
      const fromJson = kept(await generate("anthropic", json));
      const fromStream = kept(await client("anthropic", sse));
      expect([fromJson.calls, fromStream.calls]).toEqual([[{ name: "read", input: '{"path":"a.ts"}' }], [{ name: "read", input: '{"path":"a.ts"}' }]]);
    });
  }
});

describe("Responses JSON: fields that restate the output text", () => {
  const request = { model: "g", input: "read a.ts", tools: [{ type: "function", name: "read", parameters: SCHEMA }] };

  // Rule (was a finding): a Responses object's `output_text` convenience field (the text of
  // every output_text part joined, as OpenAI's SDKs compute it; some servers send it) follows the
  // repair: recomputed from the repaired parts, so a client reading it never shows the markup of a
  // call that also runs (src/wires/responses/wire.ts).
  test("a top-level output_text follows the repaired parts", async () => {
    const message = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: `Reading. ${HERMES}`, annotations: [] }] };
    const { text } = await rawReply(RESPONSES_URL, request, JSON.stringify(responseObject("completed", [message], { output_text: `Reading. ${HERMES}` })), "application/json");
    const body = JSON.parse(text);
    expect(body.output.map((item: { type: string }) => item.type)).toEqual(["message", "function_call"]);
    expect(body.output_text).toBe("Reading. ");
  });

  // Rule (was a finding): an annotation whose words the repair removed (inside a recovered call,
  // or prose stripped after it) is dropped, never re-pointed at the same words elsewhere. Text
  // "See the docs. <call>\nPer the docs, a.ts says hi." with a url_citation over the SECOND "the
  // docs": the repaired part is "See the docs. " and the citation goes (src/wires/annotations.ts).
  test("an annotation over stripped prose is dropped, not moved onto the same words earlier", async () => {
    const text = `See the docs. ${HERMES}\nPer the docs, a.ts says hi.`;
    const start = text.lastIndexOf("the docs");
    const part = { type: "output_text", text, annotations: [{ type: "url_citation", start_index: start, end_index: start + 8, url: "https://x.test", title: "x" }] };
    const message = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [part] };
    const { text: out } = await rawReply(RESPONSES_URL, request, JSON.stringify(responseObject("completed", [message])), "application/json");
    const repaired = JSON.parse(out).output[0].content[0];
    expect(repaired.text).toBe("See the docs. ");
    expect(repaired.annotations).toEqual([]);
  });
});

describe("chat JSON: message annotations after the repair", () => {
  // Rule (was a finding): a chat.completion message's `annotations` (url_citation
  // start_index/end_index into `content`, OpenAI's search models) follow the repair as on
  // Responses: moved with their words, dropped when their words are gone (src/wires/chat/wire.ts).
  test("a url_citation into removed text does not survive the repair", async () => {
    const content = `${HERMES} Per the docs.`;
    const start = content.indexOf("the docs");
    const annotations = [{ type: "url_citation", url_citation: { start_index: start, end_index: start + 8, url: "https://x.test", title: "x" } }];
    const body = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content, annotations }, finish_reason: "stop" }] };
    const { text } = await chatRaw({ model: "m", messages: [{ role: "user", content: "read a.ts" }], tools: [READ] }, JSON.stringify(body), "application/json");
    const message = JSON.parse(text).choices[0].message;
    expect(message.tool_calls?.length).toBe(1);
    const left = (message.annotations ?? []) as { url_citation: { start_index: number; end_index: number } }[];
    const visible = message.content ?? "";
    expect(left.every((a) => a.url_citation.end_index <= visible.length)).toBe(true);
  });
});

describe("middleware wrapGenerate: a text part the repair emptied", () => {
  // Rule (was a finding): a text part the repair emptied goes, its providerMetadata does not.
  // @ai-sdk/google puts Gemini's thoughtSignature on a text part and replays it from a tool-call
  // part (it skips an empty text part, signature and all), so the metadata moves onto the call
  // recovered from that part (src/adapters/middleware/generate.ts).
  test("a signed text part holding only a leaked call keeps its signature somewhere in the content", async () => {
    const signed = { google: { thoughtSignature: "c2lnbmF0dXJl" } };
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const mock = new MockLanguageModelV3({
      doGenerate: async () => ({ content: [{ type: "text" as const, text: HERMES, providerMetadata: signed }], finishReason: { unified: "stop" as const, raw: "stop" }, usage, warnings: [] }),
    });
    const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
    const result = await model.doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }], tools: [{ type: "function", name: "read", inputSchema: SCHEMA }] } as never);
    expect(result.content.filter((p) => p.type === "tool-call").length).toBe(1);
    expect(result.content.some((p) => "providerMetadata" in p && JSON.stringify(p.providerMetadata) === JSON.stringify(signed))).toBe(true);
  });
});
