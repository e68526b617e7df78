// Review 46 (hostile, tests only): what the middleware's doStream keeps of the parts it touches
// (src/adapters/middleware/stream.ts). Each failing test says what is wrong, its severity and the
// suspected source file. Markup is Hermes `<tool_call>` JSON: no DSML marker bytes needed.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";

type Part = LanguageModelV3StreamPart;

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finish: Part = { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }], tools: [read] } as LanguageModelV3CallOptions;
/** What @ai-sdk/google puts on a text delta: the thought signature the next request must replay. */
const SIGNED = { google: { thoughtSignature: "c2lnbmF0dXJl" } };

async function streamed(parts: Part[]): Promise<Part[]> {
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, ...parts, finish]) }) });
  const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doStream(params);
  return convertReadableStreamToArray(stream);
}

const metadataOf = (parts: Part[]) => parts.flatMap((p) => (p.type === "text-delta" && p.providerMetadata ? [p.providerMetadata] : []));

describe("provider metadata on text deltas", () => {
  // FINDING (lost provider data, low-medium). A text delta with an empty `delta` and
  // providerMetadata (Gemini sends its thought signature this way; the AI SDK's streamText keeps
  // such a delta on purpose: `chunk.delta.length > 0 || chunk.providerMetadata != null`) is fed
  // to the engine, which releases nothing, so the part is dropped and the signature with it: the
  // next request replays the text without it. Expected: the delta goes on as it came (nothing
  // was held or changed). Observed: no text delta carries the metadata.
  // Suspected: src/adapters/middleware/stream.ts (delta(): a step with no events emits nothing).
  test("an empty delta that carries only metadata goes on", async () => {
    const out = await streamed([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Done." }, { type: "text-delta", id: "t", delta: "", providerMetadata: SIGNED }, { type: "text-end", id: "t" }]);
    expect(metadataOf(out)).toEqual([SIGNED]);
  });

  // FINDING (lost provider data, low-medium). A delta the engine holds back (`<b` might open
  // markup) is released later as a new part without the metadata it came with. Prose only, no
  // call: nothing was repaired, yet the signature is gone. Expected: the metadata rides on a
  // released delta of the same part (or on its text-end).
  // Suspected: src/adapters/middleware/stream.ts (text(): released text gets a bare text-delta).
  test("a held delta's metadata survives its release", async () => {
    const out = await streamed([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "use a <b", providerMetadata: SIGNED }, { type: "text-delta", id: "t", delta: "> tag" }, { type: "text-end", id: "t" }]);
    const ended = out.find((p) => p.type === "text-end");
    expect([...metadataOf(out), ...(ended?.type === "text-end" && ended.providerMetadata ? [ended.providerMetadata] : [])]).toEqual([SIGNED]);
  });

  // Hard negative (passes today): the text itself is whole in both cases.
  test("control: the text is whole", async () => {
    const out = await streamed([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "use a <b", providerMetadata: SIGNED }, { type: "text-delta", id: "t", delta: "> tag" }, { type: "text-delta", id: "t", delta: "", providerMetadata: SIGNED }, { type: "text-end", id: "t" }]);
    expect(out.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")).toBe("use a <b> tag");
  });
});

describe("a signed thinking block (Anthropic extended thinking)", () => {
  // FINDING (breaks the host's next request, medium). @ai-sdk/anthropic returns a thinking block
  // as reasoning with providerMetadata.anthropic.signature (streamed as an empty reasoning-delta
  // carrying it) and replays it with that signature, which the API checks against the thinking
  // text; the block of a turn that called a tool must come back unmodified. When the reasoning is
  // the whole answer and ends in a call block, the middleware runs the call (D06) and takes the
  // block out of the reasoning text, so the tool-result request carries a thinking text that no
  // longer matches its signature. docs/PATTERNS.md (D06): "The Anthropic and Responses wires leave
  // thinking and reasoning items untouched"; the middleware does not, for the same provider.
  // Anthropic-format endpoints are how MiniMax, Kimi, GLM and DeepSeek are often reached.
  // Expected: a signed reasoning part's text is passed on exactly as written (streamed and generated).
  // Suspected: src/adapters/middleware/stream.ts (thought()/endThought()) and generate.ts (reasoning parts),
  // src/engine/reasoning-channel.ts.
  const CALL = '<tool_call>{"name":"read","arguments":{"path":"notes.md"}}</tool_call>';
  const THOUGHT = `I will read the notes first.\n${CALL}`;
  const signature = { anthropic: { signature: "RXZpZGVuY2U=" } };

  function anthropicModel() {
    const parts: Part[] = [
      { type: "stream-start", warnings: [] },
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: THOUGHT },
      { type: "reasoning-delta", id: "r", delta: "", providerMetadata: signature },
      { type: "reasoning-end", id: "r" },
      { type: "finish", usage, finishReason: { unified: "stop", raw: "end_turn" } },
    ];
    const mock = new MockLanguageModelV3({
      provider: "anthropic.messages",
      doStream: async () => ({ stream: convertArrayToReadableStream<Part>(parts) }),
      doGenerate: async () => ({ content: [{ type: "reasoning", text: THOUGHT, providerMetadata: signature }], finishReason: { unified: "stop", raw: "end_turn" }, usage, warnings: [] }),
    });
    return wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
  }

  test("stream: the signed thinking text is passed on as written", async () => {
    const out = await convertReadableStreamToArray((await anthropicModel().doStream(params)).stream);
    expect(out.flatMap((p) => (p.type === "reasoning-delta" ? [p.delta] : [])).join("")).toBe(THOUGHT);
  });

  test("generate: the signed thinking text is passed on as written", async () => {
    const result = await anthropicModel().doGenerate(params);
    expect(result.content.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])).join("")).toBe(THOUGHT);
  });
});

describe("recovered tool-call ids under Mistral's id rule", () => {
  /**
   * OpenCode's ProviderTransform, for provider "mistral" and devstral models (Mistral's API takes
   * only `[a-zA-Z0-9]{9}` ids): `toolCallId.replace(/[^a-zA-Z0-9]/g, "").substring(0, 9).padEnd(9, "0")`.
   */
  const mistralId = (id: string) => id.replace(/[^a-zA-Z0-9]/g, "").substring(0, 9).padEnd(9, "0");

  // FINDING (breaks the host's next request, medium-high for Mistral/Devstral, a family the plugin
  // targets). Recovered ids are `dsmlfix_<8 random chars>_<n>` (src/engine/output.ts). Mistral
  // refuses any id that is not 9 letters or digits ("Tool call id was ... but must be a-z, A-Z,
  // 0-9, with a length of 9"), and the scrub OpenCode applies for Mistral keeps the first 9
  // letters and digits: "dsmlfix" plus 2 random characters. Two calls recovered from one reply
  // share that prefix, so both get the same id: the next request carries two tool calls and two
  // tool results under one id (refused, or results paired with the wrong call). Across replies
  // only 36^2 = 1296 ids remain, so a long session repeats them too. Expected: the ids of one
  // reply stay distinct under the scrub (e.g. ids that are already 9 letters and digits, the
  // random part first, or the sequence number inside the first 9 characters).
  // Suspected: src/engine/output.ts (idPrefix `dsmlfix_${random}_`).
  test("two calls of one reply keep distinct ids after the scrub", async () => {
    const two = '<tool_call>{"name":"read","arguments":{"path":"a.md"}}</tool_call>\n<tool_call>{"name":"read","arguments":{"path":"b.md"}}</tool_call>';
    const out = await streamed([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: two }, { type: "text-end", id: "t" }]);
    const ids = out.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []));
    expect(ids).toHaveLength(2);
    expect(new Set(ids.map(mistralId)).size).toBe(2);
  });
});
