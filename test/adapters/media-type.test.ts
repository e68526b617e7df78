// Review 47 finding 8: an answer's media type is read as RFC 9110 says: type and subtype compare
// case-insensitively, parameters say nothing about the framing (src/sse/media-type.ts, used by the
// fetch adapter and the proxy's relay).
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { isEventStream, isJson, mediaType } from "../../src/sse/media-type.ts";
import { chunkedFetch, dataEvents, encode, postInit } from "./wire-support.ts";

const URL_CHAT = "http://model.test/v1/chat/completions";
const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const request = (stream: boolean) => postInit({ model: "m", stream, messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "read", parameters: SCHEMA } }] });
const ENVELOPE = { id: "c", object: "chat.completion.chunk", created: 1, model: "m" };
const SSE = [`Reading. `, HERMES].map((content) => `data: ${JSON.stringify({ ...ENVELOPE, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`).join("") + "data: [DONE]\n\n";
const JSON_REPLY = JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: `Reading. ${HERMES}` }, finish_reason: "stop" }] });

describe("mediaType", () => {
  test("lower case, parameters and spaces dropped", () => {
    expect(mediaType("Text/Event-Stream; charset=UTF-8")).toBe("text/event-stream");
    expect(mediaType("  APPLICATION/JSON ;charset=utf-8")).toBe("application/json");
    expect(mediaType(null)).toBe("");
    expect(mediaType("")).toBe("");
  });

  test("an event stream is its type, never a parameter naming it", () => {
    for (const yes of ["text/event-stream", "TEXT/EVENT-STREAM", "Text/Event-Stream; charset=utf-8", "text/event-stream;charset=UTF-8"]) expect(isEventStream(yes)).toBe(true);
    for (const no of ["text/plain; note=text/event-stream", "text/event-streams", "application/json", "", null]) expect(isEventStream(no)).toBe(false);
  });

  test("JSON: any type naming it, in any case, never a parameter", () => {
    for (const yes of ["application/json", "Application/JSON; charset=UTF-8", "application/problem+json", "TEXT/JSON"]) expect(isJson(yes)).toBe(true);
    for (const no of ["text/plain; format=json", "text/event-stream", "", undefined]) expect(isJson(no)).toBe(false);
  });
});

describe("the fetch adapter picks the repair by the media type in any case", () => {
  const calls = (text: string) => dataEvents(text).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []).length;
  for (const type of ["text/event-stream", "Text/Event-Stream", "TEXT/EVENT-STREAM; charset=UTF-8"]) {
    test(`a stream as ${type}: the leak becomes a call`, async () => {
      const text = await (await repairFetch({}, chunkedFetch([encode(SSE)], { "content-type": type }))(URL_CHAT, request(true))).text();
      expect(calls(text)).toBe(1);
    });
  }

  for (const type of ["application/json", "Application/JSON", "APPLICATION/JSON; Charset=UTF-8"]) {
    test(`a JSON reply as ${type}: the leak becomes a call`, async () => {
      const res = await repairFetch({}, chunkedFetch([encode(JSON_REPLY)], { "content-type": type }))(URL_CHAT, request(false));
      const message = (await res.json()).choices[0].message;
      expect(message.tool_calls?.length).toBe(1);
      expect(message.content ?? "").not.toContain("<tool_call>");
    });
  }

  test("hard negative: a parameter naming the type is not the type (the body goes on as it came)", async () => {
    const text = await (await repairFetch({}, chunkedFetch([encode(SSE)], { "content-type": "text/plain; note=text/event-stream" }))(URL_CHAT, request(true))).text();
    expect(text).toBe(SSE);
  });
});
