/**
 * Review 54 (rules): one SSE reply in two text parts read by the AI SDK providers both ways (the
 * fetch route, repairFetch; and the middleware over the same provider), as
 * review-53-parts-middleware.test.ts does, with a `bash` tool declared beside `read`.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { wrapLanguageModel } from "ai";
import { convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { type Json, SDK_TOOLS, client, message, messageEnd, messageStart, namedSse, responsesEvents, textBlock, thinkingBlock } from "./review-48-wires-support.ts";

export const TOOLS = [...SDK_TOOLS, { type: "function", name: "bash", inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } }];
const PROMPT = [{ role: "user", content: [{ type: "text", text: "go" }] }];

export interface RouteView {
  calls: Json[];
  text: string;
}

async function viaMiddleware(api: "anthropic" | "responses", body: string): Promise<RouteView> {
  const fetch = (async () => new Response(body, { headers: { "content-type": "text/event-stream" } })) as unknown as typeof globalThis.fetch;
  const base = api === "anthropic" ? createAnthropic({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).messages("claude-x") : createOpenAI({ baseURL: "http://model.test/v1", apiKey: "k", fetch }).responses("gpt-x");
  const model = wrapLanguageModel({ model: base, middleware: repairMiddleware({}) });
  const { stream } = await model.doStream({ prompt: PROMPT, tools: TOOLS } as never);
  const parts = await convertReadableStreamToArray(stream as ReadableStream<Json>);
  return { calls: parts.filter((p) => p.type === "tool-call").map((p) => JSON.parse(p.input as string)), text: parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join("") };
}

async function viaFetch(api: "anthropic" | "responses", body: string): Promise<RouteView> {
  const v = await client(api, body, { tools: TOOLS });
  return { calls: v.calls.map((c: Json) => JSON.parse(c.input as string)), text: v.text };
}

/** Two text parts the wire does not continue: a thinking block between (Anthropic), two message items (Responses). */
export function splitBodies(first: string, second: string): [string, "anthropic" | "responses", string][] {
  return [
    ["anthropic: text | thinking | text", "anthropic", namedSse([messageStart(), ...textBlock(0, [first]), ...thinkingBlock(1, ["hmm"]), ...textBlock(2, [second]), ...messageEnd()])],
    ["responses: two message items", "responses", namedSse(responsesEvents([message("m1", first), message("m2", second)], 5))],
  ];
}

export const ROUTES = [
  ["fetch route", viaFetch],
  ["middleware", viaMiddleware],
] as const;
