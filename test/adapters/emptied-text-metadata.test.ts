// wrapGenerate: a text part the repair emptied (its whole text was a leaked call) goes, but the
// provider's data on it never does. @ai-sdk/google replays a thoughtSignature from a tool-call
// part and skips an empty text part, signature and all: so the data moves onto the call recovered
// from that part; a part that gave no call keeps its data on an empty text part.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3FunctionTool, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: [read] } as LanguageModelV3CallOptions;
const call = (path: string) => `<tool_call>{"name":"read","arguments":{"path":"${path}"}}</tool_call>`;
const signed = (sig: string) => ({ google: { thoughtSignature: sig } });

async function generated(content: LanguageModelV3Content[], finish: "stop" | "content-filter" = "stop") {
  const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content, finishReason: { unified: finish, raw: finish }, usage, warnings: [] }) });
  return (await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doGenerate(params)).content;
}

describe("a signed text part the repair emptied", () => {
  test("the signature moves onto the call recovered from that part, no empty text part left", async () => {
    const content = await generated([{ type: "text", text: call("a.ts"), providerMetadata: signed("s1") }]);
    expect(content.map((p) => p.type)).toEqual(["tool-call"]);
    expect(content[0]).toMatchObject({ type: "tool-call", toolName: "read", providerMetadata: signed("s1") });
  });

  test("two signed parts, each a call: each signature on its own call, in order", async () => {
    const content = await generated([
      { type: "text", text: call("a.ts"), providerMetadata: signed("s1") },
      { type: "text", text: call("b.ts"), providerMetadata: signed("s2") },
    ]);
    const calls = content.filter((p) => p.type === "tool-call");
    expect(calls.map((p) => [p.input, p.providerMetadata])).toEqual([
      ['{"path":"a.ts"}', signed("s1")],
      ['{"path":"b.ts"}', signed("s2")],
    ]);
  });

  test("an unsigned emptied part still goes, its call carrying nothing", async () => {
    const content = await generated([{ type: "text", text: call("a.ts") }]);
    expect(content.map((p) => p.type)).toEqual(["tool-call"]);
    expect("providerMetadata" in content[0]!).toBe(false);
  });

  test("a signed part whose markup went on into the next part: no call of its own, so it stays empty with its signature", async () => {
    const whole = call("a.ts");
    const content = await generated([
      { type: "text", text: whole.slice(0, 20), providerMetadata: signed("s1") },
      { type: "text", text: whole.slice(20) },
    ]);
    expect(content.map((p) => p.type)).toEqual(["text", "tool-call"]);
    expect(content[0]).toEqual({ type: "text", text: "", providerMetadata: signed("s1") });
  });

  test("a signed part whose markup was cut (content filter) keeps its text and signature, no call", async () => {
    const text = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}';
    const content = await generated([{ type: "text", text, providerMetadata: signed("s1") }], "content-filter");
    expect(content).toEqual([{ type: "text", text, providerMetadata: signed("s1") }]);
  });
});

// Review 51: only what belongs to a call moves (a thought signature, under any provider's name);
// what names the text item (an OpenAI Responses itemId, phase, annotations) stays with the text:
// on a call, an itemId makes @ai-sdk/openai send no function_call in a server-side conversation.
describe("an emptied part's metadata that names the text item", () => {
  const item = { openai: { itemId: "msg_leak" } };

  test("an OpenAI itemId never goes onto the call: the part stays, empty, with it", async () => {
    const content = await generated([{ type: "text", text: call("a.ts"), providerMetadata: item }]);
    expect(content.map((p) => p.type)).toEqual(["text", "tool-call"]);
    expect(content[0]).toEqual({ type: "text", text: "", providerMetadata: item });
    expect("providerMetadata" in content[1]!).toBe(false);
  });

  test("a signature beside an item's data: the signature moves, the rest stays on the empty part", async () => {
    const both = { vertex: { thoughtSignature: "s1", phase: "final" }, openai: { itemId: "msg_leak", annotations: [] } };
    const content = await generated([{ type: "text", text: call("a.ts"), providerMetadata: both }]);
    expect(content).toEqual([
      { type: "text", text: "", providerMetadata: { vertex: { phase: "final" }, openai: { itemId: "msg_leak", annotations: [] } } },
      expect.objectContaining({ type: "tool-call", providerMetadata: { vertex: { thoughtSignature: "s1" } } }),
    ]);
  });

  test("a part not emptied (prose before the leak) keeps all its metadata; the call carries none", async () => {
    for (const meta of [item, signed("s1")]) {
      const content = await generated([{ type: "text", text: `Reading it. ${call("a.ts")}`, providerMetadata: meta }]);
      expect(content[0]).toEqual({ type: "text", text: "Reading it. ", providerMetadata: meta });
      expect(content[1]).toMatchObject({ type: "tool-call", toolName: "read" });
      expect("providerMetadata" in content[1]!).toBe(false);
    }
  });

  test("the provider's own metadata object is not changed", async () => {
    const meta = { google: { thoughtSignature: "s1" }, openai: { itemId: "msg_leak" } };
    await generated([{ type: "text", text: call("a.ts"), providerMetadata: meta }]);
    expect(meta).toEqual({ google: { thoughtSignature: "s1" }, openai: { itemId: "msg_leak" } });
  });
});
