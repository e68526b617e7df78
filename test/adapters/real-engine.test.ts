import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, streamText, tool, wrapLanguageModel } from "ai";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { block, live } from "../golden/notation.ts";

/** A DeepSeek-style reply: prose, then a V4 block, streamed in 7-character deltas like the real API. */
const reply = live(`Let me check the tests.\n\n${block("tool_calls", [["bash", [["command", "npm test -- --grep parser"]]]])}`);

function sseBody(content: string): string {
  const id = "chatcmpl-1";
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model: "deepseek-chat", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: "assistant", content: "" });
  for (let i = 0; i < content.length; i += 7) out += chunk({ content: content.slice(i, i + 7) });
  out += chunk({}, "stop");
  out += `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model: "deepseek-chat", choices: [], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } })}\n\n`;
  return `${out}data: [DONE]\n\n`;
}

let server: http.Server;
let baseURL = "";
const bodies: unknown[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      bodies.push(JSON.parse(raw));
      res.writeHead(200, { "content-type": "text/event-stream" });
      // Write in uneven byte slices so SSE lines and UTF-8 sequences are cut too.
      const bytes = Buffer.from(sseBody(reply));
      for (let i = 0; i < bytes.length; i += 13) res.write(bytes.subarray(i, i + 13));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => server.close());

const tools = {
  bash: tool({
    description: "run a command",
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
  }),
};

async function collect(model: Parameters<typeof streamText>[0]["model"]) {
  const result = streamText({ model, prompt: "run the parser tests", tools });
  const parts = [];
  for await (const part of result.fullStream) parts.push(part);
  return { parts, text: await result.text, finishReason: await result.finishReason };
}

describe("the real engine behind both adapters, through the real AI SDK client", () => {
  test("repairFetch: a DSML leak comes out of streamText as a real tool call", async () => {
    const provider = createOpenAICompatible({ name: "deepseek", baseURL, apiKey: "k", fetch: repairFetch() });
    const { parts, text, finishReason } = await collect(provider.chatModel("deepseek-chat"));
    const calls = parts.filter((p) => p.type === "tool-call");
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([["bash", { command: "npm test -- --grep parser" }]]);
    expect(text).toBe("Let me check the tests.\n\n");
    expect(finishReason).toBe("tool-calls");
  });

  test("without the repair the same stream is only text (the test above can fail)", async () => {
    const provider = createOpenAICompatible({ name: "deepseek", baseURL, apiKey: "k" });
    const { parts, text } = await collect(provider.chatModel("deepseek-chat"));
    expect(parts.filter((p) => p.type === "tool-call")).toHaveLength(0);
    expect(text).toBe(reply);
  });

  test("repairMiddleware via wrapLanguageModel: the same leak becomes a tool call with dsmlFix metadata", async () => {
    const provider = createOpenAICompatible({ name: "deepseek", baseURL, apiKey: "k" });
    const model = wrapLanguageModel({ model: provider.chatModel("deepseek-chat"), middleware: repairMiddleware() });
    const { parts, text, finishReason } = await collect(model);
    expect(parts.filter((p) => p.type === "tool-call").map((c) => [c.toolName, c.input])).toEqual([["bash", { command: "npm test -- --grep parser" }]]);
    expect(text).toBe("Let me check the tests.\n\n");
    expect(finishReason).toBe("tool-calls");
    const finish = parts.find((p) => p.type === "finish-step") as { providerMetadata?: Record<string, unknown> } | undefined;
    expect(finish?.providerMetadata?.dsmlFix).toEqual({ recovered: 1, nudge: null });
  });
});
