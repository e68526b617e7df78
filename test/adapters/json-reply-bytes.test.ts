/**
 * A repaired JSON reply keeps every byte the repair did not change (review 46 wires, finding 5):
 * only the values the repair rewrote are written anew (json-splice.ts valueEdits), on the
 * chat-completions, Anthropic Messages and Responses wires. Before, the whole body was
 * re-serialized: an integer above 2^53 lost digits, a leading byte order mark was dropped, escapes
 * and spacing changed.
 */
import { describe, expect, test } from "bun:test";
import { valueEdits, spliceJson } from "../../src/adapters/json-splice.ts";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { answering, HERMES, MESSAGES_URL, RESPONSES_URL } from "../hostile/review-46-wires-support.ts";

/** The repaired reply's bytes as UTF-8 text with a byte order mark kept (Response.text() drops it). */
async function replyBytes(url: string, request: object, body: string): Promise<string> {
  const res = await repairFetch({}, answering(body, "application/json"))(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer());
}

const CHAT_URL = "http://model.test/v1/chat/completions";
const TOOL = { name: "read", description: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const BIG = "12345678901234567890";
const BOM = "\uFEFF";

const chat = (usage: string) => `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(`Reading it. ${HERMES}`)}},"finish_reason":"stop"}], "usage" : {"prompt_tokens":${usage},"completion_tokens":2}}`;
const messages = (usage: string) => `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":${JSON.stringify(`Reading it. ${HERMES}`)}}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":${usage},"output_tokens":2}}`;
const responses = (usage: string) => `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":${JSON.stringify(`Reading it. ${HERMES}`)},"annotations":[]}]}],"usage":{"input_tokens":${usage},"output_tokens":2,"total_tokens":3}}`;

const WIRES = [
  ["chat", CHAT_URL, { model: "m", stream: false, messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: TOOL }] }, chat, (b: any) => b.choices[0].message.tool_calls?.length],
  ["anthropic", MESSAGES_URL, { model: "m", stream: false, max_tokens: 10, messages: [{ role: "user", content: "go" }], tools: [{ name: "read", input_schema: TOOL.parameters }] }, messages, (b: any) => b.content.filter((c: any) => c.type === "tool_use").length],
  ["responses", RESPONSES_URL, { model: "m", stream: false, input: "go", tools: [{ type: "function", ...TOOL }] }, responses, (b: any) => b.output.filter((i: any) => i.type === "function_call").length],
] as const;

describe("a repaired JSON reply keeps the bytes it did not change", () => {
  for (const [wire, url, request, body, calls] of WIRES) {
    test(`${wire}: an integer above 2^53, the usage object's spacing and a leading byte order mark stay as the server wrote them`, async () => {
      const text = await replyBytes(url, request, BOM + body(BIG));
      expect(calls(JSON.parse(text.replace(BOM, "")))).toBe(1);
      expect(text.startsWith(BOM)).toBe(true);
      expect(text).toContain(BIG);
      if (wire === "chat") expect(text).toContain(` "usage" : {"prompt_tokens":${BIG},`);
    });
  }
});

describe("valueEdits replaces only what differs", () => {
  test("a changed string deep inside is one edit at its path; equal siblings are none", () => {
    const text = '{"a":[1,{"b":"x","c":1e400}],"d":12345678901234567890}';
    const after = JSON.parse(text);
    after.a[1].b = "y";
    const edits = valueEdits(JSON.parse(text), after);
    expect(edits).toEqual([{ kind: "replace", path: ["a", 1, "b"], json: '"y"' }]);
    expect(spliceJson(text, edits)).toBe('{"a":[1,{"b":"y","c":1e400}],"d":12345678901234567890}');
  });

  test("an array that changed length, or an object whose keys changed, is replaced whole", () => {
    expect(valueEdits({ a: [1] }, { a: [1, 2] })).toEqual([{ kind: "replace", path: ["a"], json: "[1,2]" }]);
    expect(valueEdits({ a: { b: 1 } }, { a: { c: 1 } })).toEqual([{ kind: "replace", path: ["a"], json: '{"c":1}' }]);
    expect(valueEdits({ a: 1 }, { a: 1 })).toEqual([]);
  });
});
