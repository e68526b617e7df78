/**
 * A leak whose markup runs over three or more consecutive text parts of one reply (Review 52,
 * suspected): a middle part that held only white space inside the markup was left as "", an empty
 * text part. The Anthropic Messages API refuses an empty text block ("text content blocks must be
 * non-empty"), and some chat APIs refuse an empty assistant content part. Checked through the real
 * request path (src/adapters/request-history.ts, which the proxy and repairFetch share) on each
 * wire's shape, and through the AI SDK middleware's prompt sanitizing.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";

const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
/** A Hermes call cut over three text parts: the middle one only the line break inside its JSON. */
const HEAD = 'Running: <tool_call>{"name":"bash",';
const MIDDLE = "\n";
const TAIL = '"arguments":{"command":"ls"}}</tool_call> done';
type Json = Record<string, any>;

function pass(path: string, body: Json): Json {
  const out = sanitizeRequestBody(path, new TextEncoder().encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: true, correct: false });
  expect(out.removed).toBe(1);
  return JSON.parse(new TextDecoder().decode(out.body));
}

const chatTools = [{ type: "function", function: { name: "bash", parameters: SCHEMA } }];
const part = (type: string) => (text: string) => ({ type, text });

describe("a part the markup would leave empty", () => {
  // FINDING (severity: host broken: the API refuses the sanitized request). Minimal input: an
  // assistant turn's text parts [HEAD, "\n", TAIL].
  test.failing("chat content parts: the emptied middle part is dropped", () => {
    const text = part("text");
    const body = { model: "m", tools: chatTools, messages: [{ role: "user", content: "go" }, { role: "assistant", content: [text(HEAD), text(MIDDLE), text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/chat/completions", body).messages[1].content).toEqual([text(`Running: ${REMOVED_NOTE}`), text(" done")]);
  });

  test.failing("Anthropic text blocks: the emptied middle block is dropped", () => {
    const text = part("text");
    const body = { model: "m", max_tokens: 9, tools: [{ name: "bash", input_schema: SCHEMA }], messages: [{ role: "user", content: "go" }, { role: "assistant", content: [text(HEAD), text(MIDDLE), text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/messages", body).messages[1].content).toEqual([text(`Running: ${REMOVED_NOTE}`), text(" done")]);
  });

  test.failing("Responses output_text parts: the emptied middle part is dropped", () => {
    const text = part("output_text");
    const body = { model: "m", tools: [{ type: "function", name: "bash", parameters: SCHEMA }], input: [{ role: "user", content: "go" }, { type: "message", role: "assistant", content: [text(HEAD), text(MIDDLE), text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/responses", body).input[1].content).toEqual([text(`Running: ${REMOVED_NOTE}`), text(" done")]);
  });

  test.failing("the AI SDK prompt in the middleware: the emptied middle part is dropped", async () => {
    const mock = new MockLanguageModelV3({ doGenerate: async () => ({ content: [], finishReason: { unified: "stop", raw: "stop" }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }, warnings: [] }) });
    const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
    const text = part("text");
    const prompt: LanguageModelV3Prompt = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [text(HEAD), text(MIDDLE), text(TAIL)] as never },
      { role: "user", content: [{ type: "text", text: "?" }] },
    ];
    const tools: LanguageModelV3CallOptions["tools"] = [{ type: "function", name: "bash", inputSchema: SCHEMA as never }];
    await model.doGenerate({ prompt, tools });
    expect(mock.doGenerateCalls[0]!.prompt[1]!.content).toEqual([text(`Running: ${REMOVED_NOTE}`), text(" done")] as never);
  });
});
