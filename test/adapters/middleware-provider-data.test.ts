// Review 46: what the middleware keeps of the provider's own data. A reasoning part a provider
// signed (Anthropic's thinking signature, a redacted block, Google's thought signature, OpenAI's
// encrypted reasoning) is replayed with that signature, so its text goes on as written and no call
// written in it runs (D06 stays off for it, as the Anthropic wire leaves thinking alone); text
// deltas keep their providerMetadata when the engine holds or cuts them.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage, SharedV3ProviderMetadata } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";

type Part = LanguageModelV3StreamPart;

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finish: Part = { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: [read] } as LanguageModelV3CallOptions;
const CALL = '<tool_call>{"name":"read","arguments":{"path":"notes.md"}}</tool_call>';

function model(parts: Part[], content: LanguageModelV3Content[] = []) {
  const mock = new MockLanguageModelV3({
    doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, ...parts, finish]) }),
    doGenerate: async () => ({ content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
  });
  return wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
}

const streamed = async (parts: Part[]) => convertReadableStreamToArray((await model(parts).doStream(params)).stream);
const thoughtOf = (out: Part[]) => out.flatMap((p) => (p.type === "reasoning-delta" ? [p.delta] : [])).join("");
const callsOf = (out: Part[]) => out.filter((p) => p.type === "tool-call");
const finishOf = (out: Part[]) => out.find((p) => p.type === "finish");

const SIGNATURES: Record<string, SharedV3ProviderMetadata> = {
  anthropic: { anthropic: { signature: "c2ln" } },
  bedrock: { bedrock: { signature: "c2ln" } },
  google: { google: { thoughtSignature: "c2ln" } },
  openai: { openai: { itemId: "rs_1", reasoningEncryptedContent: "ZW5j" } },
};

describe("a signed reasoning part (D06 off for it)", () => {
  test.each(Object.keys(SIGNATURES))("stream, %s signature after the text: the thinking goes on as written, before the signature, and nothing runs", async (name) => {
    const thought = `Let me look.\n${CALL}\n\n`;
    const out = await streamed([
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: thought.slice(0, 20) },
      { type: "reasoning-delta", id: "r", delta: thought.slice(20) },
      { type: "reasoning-delta", id: "r", delta: "", providerMetadata: SIGNATURES[name] },
      { type: "reasoning-end", id: "r" },
    ]);
    expect(thoughtOf(out)).toBe(thought);
    const types = out.map((p) => p.type);
    const signedAt = out.findIndex((p) => p.type === "reasoning-delta" && p.providerMetadata !== undefined);
    expect(out.slice(signedAt + 1).some((p) => p.type === "reasoning-delta")).toBe(false);
    expect(types.indexOf("reasoning-end")).toBeGreaterThan(signedAt);
    expect(callsOf(out)).toEqual([]);
    expect(finishOf(out)).toMatchObject({ finishReason: { unified: "stop" } });
  });

  test("stream, signed from its start (a redacted or encrypted block): its deltas pass unread", async () => {
    const out = await streamed([
      { type: "reasoning-start", id: "r", providerMetadata: { anthropic: { redactedData: "cmVk" } } },
      { type: "reasoning-delta", id: "r", delta: `Plan:\n${CALL}` },
      { type: "reasoning-end", id: "r" },
    ]);
    expect(thoughtOf(out)).toBe(`Plan:\n${CALL}`);
    expect(callsOf(out)).toEqual([]);
  });

  test("stream, the signature delta comes after the part's stretch closed (content came between): the held block goes back into the part", async () => {
    const out = await streamed([
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: `Plan:\n${CALL}` },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: " " },
      { type: "reasoning-delta", id: "r", delta: "", providerMetadata: SIGNATURES.anthropic },
      { type: "reasoning-end", id: "r" },
      { type: "text-end", id: "t" },
    ]);
    expect(thoughtOf(out)).toBe(`Plan:\n${CALL}`);
    expect(callsOf(out)).toEqual([]);
  });

  test("control: the same block unsigned is the answer and runs (D06)", async () => {
    const out = await streamed([{ type: "reasoning-start", id: "r" }, { type: "reasoning-delta", id: "r", delta: `Let me look.\n${CALL}` }, { type: "reasoning-end", id: "r" }]);
    expect(callsOf(out)).toHaveLength(1);
    expect(thoughtOf(out)).toBe("Let me look.\n");
  });

  test("generate: a signed part is kept as it came and nothing runs; an unsigned one still does", async () => {
    const signed: LanguageModelV3Content = { type: "reasoning", text: `Let me look.\n${CALL}`, providerMetadata: SIGNATURES.anthropic };
    const kept = await model([], [signed]).doGenerate(params);
    expect(kept.content).toEqual([signed]);
    expect(kept.finishReason.unified).toBe("stop");
    const ran = await model([], [{ type: "reasoning", text: `Let me look.\n${CALL}` }]).doGenerate(params);
    expect(ran.content.filter((p) => p.type === "tool-call")).toHaveLength(1);
  });
});

describe("text-delta providerMetadata", () => {
  const A = { google: { thoughtSignature: "QQ==" } };
  const B = { google: { thoughtSignature: "Qg==" } };
  const metaOf = (out: Part[]) => out.flatMap((p) => ((p.type === "text-delta" || p.type === "text-end") && p.providerMetadata ? [[p.type, p.providerMetadata]] : []));

  // Review 51: a thought signature belongs to the call made from the text (generate.ts moves it
  // there too, @ai-sdk/google replays it from the tool-call); anything else stays with the text.
  test("a delta that became a call: its thought signature rides on the call, nothing left on the part's end", async () => {
    const out = await streamed([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: CALL, providerMetadata: A }, { type: "text-end", id: "t" }]);
    expect(callsOf(out).map((p) => p.providerMetadata)).toEqual([A]);
    expect(metaOf(out)).toEqual([]);
  });

  test("char by char, the signature on the first delta: it still rides on the call, the itemId on the end", async () => {
    const meta = { google: { thoughtSignature: "QQ==" }, openai: { itemId: "msg_1" } };
    const deltas: Part[] = [...CALL].map((ch, i) => ({ type: "text-delta", id: "t", delta: ch, ...(i === 0 ? { providerMetadata: meta } : {}) }));
    const out = await streamed([{ type: "text-start", id: "t" }, ...deltas, { type: "text-end", id: "t" }]);
    expect(callsOf(out).map((p) => p.providerMetadata)).toEqual([A]);
    expect(metaOf(out)).toEqual([["text-end", { openai: { itemId: "msg_1" } }]]);
  });

  test("a delta that became a call: an OpenAI itemId stays on the part's end, never on the call", async () => {
    const item = { openai: { itemId: "msg_1" } };
    const out = await streamed([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: CALL, providerMetadata: item }, { type: "text-end", id: "t" }]);
    expect(callsOf(out).map((p) => p.providerMetadata)).toEqual([undefined]);
    expect(metaOf(out)).toEqual([["text-end", item]]);
  });

  test("a delta with prose before the call: its metadata rides on the prose, the call carries nothing", async () => {
    const out = await streamed([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `Reading. ${CALL}`, providerMetadata: A }, { type: "text-end", id: "t" }]);
    expect(callsOf(out).map((p) => p.providerMetadata)).toEqual([undefined]);
    expect(metaOf(out)).toEqual([["text-delta", A]]);
  });

  test("the latest metadata wins: an earlier held delta's does not come after a later delta's", async () => {
    const out = await streamed([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "a <b", providerMetadata: A },
      { type: "text-delta", id: "t", delta: "> c", providerMetadata: B },
      { type: "text-end", id: "t" },
    ]);
    expect(out.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")).toBe("a <b> c");
    expect(metaOf(out).at(-1)).toEqual(["text-delta", B]);
  });

  test("an empty delta with metadata while text is held rides on that text", async () => {
    const out = await streamed([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "x <" },
      { type: "text-delta", id: "t", delta: "", providerMetadata: A },
      { type: "text-delta", id: "t", delta: "y" },
      { type: "text-end", id: "t" },
    ]);
    expect(out.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")).toBe("x <y");
    expect(metaOf(out)).toEqual([["text-delta", A]]);
  });

  test("control: an empty delta without metadata is dropped as before", async () => {
    const out = await streamed([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "ok" }, { type: "text-delta", id: "t", delta: "" }, { type: "text-end", id: "t" }]);
    expect(out.filter((p) => p.type === "text-delta")).toEqual([{ type: "text-delta", id: "t", delta: "ok" }]);
  });
});
