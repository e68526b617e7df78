// Review 47 (hostile, tests only): `dsml-fix proxy` on /chat/completions, driven by the AI SDK
// chat providers pointed at it (baseURL = the proxy), a scripted upstream behind it writing its
// answer in small pieces. The test marked fixed says what was wrong and the rule now
// (fx-47-native); the others are hard negatives.
import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";
import { HERMES, type Json, SDK_TOOLS, chatSse, chunk, completion, contentChunks } from "./review-47-chat-support.ts";

let upstream!: Upstream;
let proxy!: Proxy;
proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

/** The upstream streams `body` five bytes a write. */
function streams(body: string): void {
  upstream.answer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (let at = 0; at < body.length; at += 5) res.write(body.slice(at, at + 5));
    res.end();
  });
}

const models = {
  compatible: () => createOpenAICompatible({ name: "deepseek", baseURL: `${proxy.url}/v1`, apiKey: "k", includeUsage: true }).chatModel("deepseek-chat"),
  openai: () => createOpenAI({ baseURL: `${proxy.url}/v1`, apiKey: "k" }).chat("deepseek-chat"),
};

async function streamed(model: keyof typeof models, prompt: Json[]): Promise<Json[]> {
  const { stream } = await models[model]().doStream({ prompt, tools: SDK_TOOLS } as never);
  const parts: Json[] = [];
  const reader = (stream as ReadableStream<Json>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

const calls = (parts: Json[]) => parts.filter((p) => p.type === "tool-call").map((p) => `${p.toolName} ${p.input}`);
const PROMPT = [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }];

describe("proxy: a native repeat of a leaked call streamed without index", () => {
  // fixed: (was a call running twice: high), as in review-47-chat-native.test.ts, reaching a
  // proxy user: the native repeat without `index` was neither held nor compared. The rule now: an
  // entry without index is read as the client reads it (by id) and held and compared the same.
  test("fixed: @ai-sdk/openai-compatible through the proxy runs read a.ts once", async () => {
    streams(chatSse([chunk({ role: "assistant", content: `Reading. ${HERMES}` }), chunk({ tool_calls: [{ id: "call_n", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }] }), chunk({}, "tool_calls")]));
    expect(calls(await streamed("compatible", PROMPT))).toEqual(['read {"path":"a.ts"}']);
  });
});

describe("proxy: one round trip, both sides (hard negatives, pass today)", () => {
  const history = [
    { role: "user", content: [{ type: "text", text: "read a.ts" }] },
    { role: "assistant", content: [{ type: "text", text: `Sure. ${HERMES}` }] },
    { role: "user", content: [{ type: "text", text: "well?" }] },
  ];
  for (const model of ["compatible", "openai"] as const) {
    test(`${model}: the replayed leak goes up as the note with the correction; the new leak comes back as one call, usage kept`, async () => {
      streams(chatSse([...contentChunks(`Reading. ${HERMES}`, 3), { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }]));
      const parts = await streamed(model, history);
      expect(calls(parts)).toEqual(['read {"path":"a.ts"}']);
      expect(parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join("")).toBe("Reading. ");
      const finish = parts.find((p) => p.type === "finish")!;
      expect([finish.finishReason.raw, finish.usage.outputTokens.total]).toEqual(["tool_calls", 2]);
      const sent = JSON.parse(upstream.seen.at(-1)!.body);
      expect(sent.messages[0].role).toBe("system");
      expect(JSON.stringify(sent.messages)).not.toContain("<tool_call>");
    });
  }

  test("a quote of a tool result's markup goes up without a correction, and the same quote in the reply does not run", async () => {
    const given = [
      { role: "user", content: [{ type: "text", text: "read the readme" }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c0", toolName: "read", input: { path: "README.md" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c0", toolName: "read", output: { type: "text", value: `Example: ${HERMES}` } }] },
      { role: "assistant", content: [{ type: "text", text: `The readme shows ${HERMES}` }] },
      { role: "user", content: [{ type: "text", text: "and?" }] },
    ];
    streams(chatSse(contentChunks(`It shows ${HERMES}`, 4)));
    const parts = await streamed("compatible", given);
    expect(calls(parts)).toEqual([]);
    const sent = JSON.parse(upstream.seen.at(-1)!.body);
    expect(sent.messages.some((m: Json) => m.role === "system")).toBe(false);
  });

  test("JSON: the leak comes back as a tool call through doGenerate", async () => {
    upstream.answer((_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completion({ content: `Reading. ${HERMES}` }))));
    const result = await models.compatible().doGenerate({ prompt: PROMPT, tools: SDK_TOOLS } as never);
    expect((result.content as Json[]).map((c) => c.type)).toEqual(["text", "tool-call"]);
    expect(result.finishReason.raw).toBe("tool_calls");
  });
});
