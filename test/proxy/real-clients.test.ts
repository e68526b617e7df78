// Real client libraries as the proxy's callers: the AI SDK's OpenAI provider on chat-completions
// and Responses, and its Anthropic provider on Messages, streamed and not. What the client parsed is
// what is checked: a leaked call must come back to it as a real tool call, and the guards (deny
// list, echo guard) must hold through the proxy exactly as in the plugin.
import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, streamText, tool, type LanguageModel } from "ai";
import type { ServerResponse } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { block, live } from "../golden/notation.ts";
import { anthropicStream, responsesStream } from "../e2e/wire-servers.ts";
import { chatSse, pieces, proxyFixture, startProxy, type Proxy, type Upstream } from "./support.ts";

const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const SAID = "I'll read it.\n\n";
const KEY = "sk-client-key";

// @ai-sdk/anthropic is loaded by name so this file still runs where it is not installed; its tests
// are skipped there (and only there).
const ANTHROPIC = "@ai-sdk/anthropic";
const anthropicModule = (await import(ANTHROPIC).catch(() => undefined)) as { createAnthropic(o: { baseURL: string; apiKey: string }): { messages(id: string): LanguageModel } } | undefined;

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("", (both) => ({ upstream, proxy } = both));

type Wire = "chat" | "responses" | "messages";
const readTool = () => ({ read: tool({ description: "read a file", inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }) }) });

function model(wire: Wire, base: string): LanguageModel {
  if (wire === "messages") return anthropicModule!.createAnthropic({ baseURL: `${base}/v1`, apiKey: KEY }).messages("deepseek-chat");
  const openai = createOpenAI({ baseURL: `${base}/v1`, apiKey: KEY });
  return wire === "chat" ? openai.chat("deepseek-chat") : openai.responses("deepseek-chat");
}

const STREAMS: Record<Wire, (text: string) => string> = {
  chat: (text) => chatSse(pieces(text)),
  responses: (text) => responsesStream(text, "deepseek-chat"),
  messages: (text) => anthropicStream(text, "deepseek-chat"),
};

const JSON_BODIES: Record<Wire, (text: string) => unknown> = {
  chat: (text) => ({ id: "c1", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } }),
  responses: (text) => ({
    id: "resp_1", object: "response", created_at: 1, status: "completed", model: "deepseek-chat",
    output: [{ id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }],
    usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 14 },
  }),
  messages: (text) => ({ id: "msg_1", type: "message", role: "assistant", model: "deepseek-chat", content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 5, output_tokens: 9 } }),
};

const PATHS: Record<Wire, string> = { chat: "/v1/chat/completions", responses: "/v1/responses", messages: "/v1/messages" };

/** The upstream answers a streamed request with SSE and any other with JSON, the same text either way. */
function answerWith(wire: Wire, text: string): void {
  upstream.answer((req, res: ServerResponse) => {
    const streamed = JSON.parse(req.body).stream === true;
    res.writeHead(200, { "content-type": streamed ? "text/event-stream" : "application/json" });
    res.end(streamed ? STREAMS[wire](text) : JSON.stringify(JSON_BODIES[wire](text)));
  });
}

interface Seen {
  calls: [string, unknown][];
  text: string;
}

async function ask(wire: Wire, how: "stream" | "generate", prompt = "read a.ts", base = proxy.url): Promise<Seen> {
  const options = { model: model(wire, base), prompt, tools: readTool(), maxOutputTokens: 100 };
  if (how === "generate") {
    const result = await generateText(options);
    return { calls: result.toolCalls.map((c) => [c.toolName, c.input]), text: result.text };
  }
  const result = streamText(options);
  const calls: [string, unknown][] = [];
  let text = "";
  for await (const part of result.fullStream) {
    if (part.type === "tool-call") calls.push([part.toolName, part.input]);
    if (part.type === "text-delta") text += part.text;
    if (part.type === "error") throw part.error;
  }
  return { calls, text };
}

const WIRES = (["chat", "responses", "messages"] as const).flatMap((wire) => (["stream", "generate"] as const).map((how) => [wire, how] as const));

describe.each(WIRES)("%s, %s: the AI SDK provider as the client", (wire, how) => {
  const run = wire === "messages" && !anthropicModule ? test.skip : test;

  run("a leaked call comes back as a real tool call; the prose stays, the markup goes", async () => {
    answerWith(wire, SAID + LEAK);
    const seen = await ask(wire, how);
    expect(seen.calls).toEqual([["read", { path: "a.ts" }]]);
    expect(seen.text.trim()).toBe(SAID.trim());
    expect(upstream.seen.map((s) => s.url)).toEqual([PATHS[wire]]);
    expect(upstream.seen[0]!.headers[wire === "messages" ? "x-api-key" : "authorization"]).toBe(wire === "messages" ? KEY : `Bearer ${KEY}`);
  });

  run("the echo guard: markup the user gave the model and the model repeats is never executed", async () => {
    answerWith(wire, `You wrote:\n${LEAK}`);
    const seen = await ask(wire, how, `What does this do?\n${LEAK}`);
    expect(seen.calls).toEqual([]);
  });
});

describe.each(["chat", "responses", "messages"] as const)("%s: the plugin's option namespaces hold through the proxy's config file", (wire) => {
  const run = wire === "messages" && !anthropicModule ? test.skip : test;
  run("responseFix.denyTools: the denied tool is never called, the stream still ends normally", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsml-proxy-"));
    const file = join(dir, "proxy.jsonc");
    writeFileSync(file, `{ "options": { "responseFix": { "denyTools": ["read"] } } }`);
    const strict = await startProxy(["--upstream", upstream.url, "--config", file]);
    try {
      answerWith(wire, SAID + LEAK);
      expect((await ask(wire, "stream", "read a.ts", strict.url)).calls).toEqual([]);
    } finally {
      await strict.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
