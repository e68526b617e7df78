// Review 43 (hostile, tests only): the AI SDK middleware (src/adapters/middleware.ts) with the real
// engine. Each failing test says what is wrong, its severity and the suspected source file.
// Markup is Hermes `<tool_call>` JSON, so no DSML marker bytes are needed.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";

type Part = LanguageModelV3StreamPart;

const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finish: Part = { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const CALL = '<tool_call>{"name":"read","arguments":{"path":"/etc/passwd"}}</tool_call>';
const params = { prompt: [{ role: "user", content: [{ type: "text", text: "show me the call format" }] }], tools: [read] } as LanguageModelV3CallOptions;

function model(parts: Part[], content: LanguageModelV3Content[] = []) {
  const mock = new MockLanguageModelV3({
    doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, ...parts, finish]) }),
    doGenerate: async () => ({ content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
  });
  return wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
}

async function streamed(parts: Part[]): Promise<Part[]> {
  const { stream } = await model(parts).doStream(params);
  return convertReadableStreamToArray(stream);
}

const text = (id: string, delta: string): Part => ({ type: "text-delta", id, delta });
/** The text of each text part id, in order of arrival. */
function textById(parts: Part[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of parts) if (part.type === "text-delta") out[part.id] = (out[part.id] ?? "") + part.delta;
  return out;
}

describe("two text parts interleaved", () => {
  // FINDING (wrong execution, high; an unusual stream, but the brief's "two text ids interleaved").
  // Text part "a" is a fenced example: "```\n<call>\n```\n". Text part "b" runs at the same time
  // and its deltas arrive between a's. The middleware feeds every text delta, whatever its id,
  // into one engine, so b's "x\n```\n" closes a's fence in the engine's reading and a's example
  // becomes a live call: `read /etc/passwd` runs, although no part holds a call outside a fence.
  // a's closing fence is also lost (stripped after the call). Expected: a part's text is read
  // with its own part (or the repair stands aside once parts interleave), so the example stays
  // text and every character is visible.
  // Suspected: src/adapters/middleware.ts (repairParts: one guard for all ids; delta() sets owner per id).
  test("a fenced example in one part is not turned into a call by the other part's fence", async () => {
    const out = await streamed([
      { type: "text-start", id: "a" },
      { type: "text-start", id: "b" },
      text("a", "```\n"),
      text("b", "x\n```\n"),
      text("a", `${CALL}\n\`\`\`\n`),
      { type: "text-end", id: "a" },
      { type: "text-end", id: "b" },
    ]);
    expect(out.filter((p) => p.type === "tool-call")).toEqual([]);
    expect(textById(out)).toEqual({ a: `\`\`\`\n${CALL}\n\`\`\`\n`, b: "x\n```\n" });
  });

  // Hard negative: the same part alone (no interleaving) is documentation, in a stream and in doGenerate.
  test("the same part alone stays text", async () => {
    const out = await streamed([{ type: "text-start", id: "a" }, text("a", "```\n"), text("a", `${CALL}\n\`\`\`\n`), { type: "text-end", id: "a" }]);
    expect(out.filter((p) => p.type === "tool-call")).toEqual([]);
    const generated = await model([], [{ type: "text", text: "```\n" }, { type: "text", text: `${CALL}\n\`\`\`\n` }]).doGenerate(params);
    expect(generated.content.filter((p) => p.type === "tool-call")).toEqual([]);
  });
});

describe("a prompt that ends in an assistant prefill", () => {
  // FINDING (wrong execution, high). @ai-sdk/anthropic (and other providers) send a prompt whose
  // last message is the assistant's as a prefill the model continues. The prefill opens a code
  // fence, so the model's reply is the inside of it: "<call>\n```". The middleware reads the
  // reply as a fresh message: the example becomes a real `read /etc/passwd` call, in the stream
  // and in doGenerate alike. Expected: the reply is read after the prefill's text (its
  // documentation context carries over), or a prompt ending in an assistant turn is not repaired.
  // Suspected: src/adapters/middleware.ts (prepare: the prompt's trailing assistant text never reaches the engine).
  const prefilled = {
    ...params,
    prompt: [
      { role: "user", content: [{ type: "text", text: "Show me, in a code block, what a read call looks like." }] },
      { role: "assistant", content: [{ type: "text", text: "Here is the example:\n```\n" }] },
    ],
  } as LanguageModelV3CallOptions;
  const reply = `${CALL}\n\`\`\``;

  test("stream: the reply inside the prefill's fence stays text", async () => {
    const { stream } = await model([{ type: "text-start", id: "t" }, text("t", reply), { type: "text-end", id: "t" }]).doStream(prefilled);
    const out = await convertReadableStreamToArray(stream);
    expect(out.filter((p) => p.type === "tool-call")).toEqual([]);
    expect(textById(out)).toEqual({ t: reply });
  });

  test("doGenerate: the reply inside the prefill's fence stays text", async () => {
    const generated = await model([], [{ type: "text", text: reply }]).doGenerate(prefilled);
    expect(generated.content).toEqual([{ type: "text", text: reply }]);
  });
});

describe("history: an example split across text parts", () => {
  // FINDING (lost text, medium). The replayed assistant message shows a fenced example over two
  // text parts ("Example:\n```\n" | "<call>\n```\n"). The live repair reads one reply's text parts
  // as one text (doGenerate above: no call), but the built-in history sanitizer reads each part
  // alone, takes the second part's example for a live leak and replaces it with the removal
  // note: the model's own example is gone from the prompt it is sent. Expected: the parts of one
  // message are read as one text, so the prompt goes to the model unchanged.
  // Suspected: src/history/prompt.ts (sanitizePrompt: sanitizeAssistantText per part).
  test("the prompt's assistant parts are read as one text", async () => {
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>([{ type: "stream-start", warnings: [] }, finish]) }) });
    const wrapped = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
    const assistant = { role: "assistant", content: [{ type: "text", text: "Example:\n```\n" }, { type: "text", text: `${CALL}\n\`\`\`\n` }] };
    const prompt = [{ role: "user", content: [{ type: "text", text: "Show me, in a code block, what a read call looks like." }] }, assistant, { role: "user", content: [{ type: "text", text: "thanks" }] }];
    const { stream } = await wrapped.doStream({ ...params, prompt } as LanguageModelV3CallOptions);
    await convertReadableStreamToArray(stream);
    expect(mock.doStreamCalls[0]!.prompt[1]).toEqual(assistant as never);
  });
});
