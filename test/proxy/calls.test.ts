/**
 * Through the proxy, end to end: calls the request or the reply itself says must not run. A fenced
 * example split over Responses output_text parts or message items stays documentation (Anthropic's
 * text blocks are the control), and a request that switches parallel tool calls off gets one call
 * per reply on every wire. Each case has its hard negative beside it.
 */
import { describe, expect, test } from "bun:test";
import type { ServerResponse } from "node:http";
import { block, live } from "../golden/notation.ts";
import { responsesStream } from "../e2e/wire-servers.ts";
import { chatSse, pieces, proxyFixture, TOOLS, type Proxy, type Upstream } from "./support.ts";

const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const TWO = live(block("tool_calls", [["read", [["path", "a.ts"]]], ["read", [["path", "b.ts"]]]]));
const FENCE = "```";
const RESPONSES_TOOLS = [{ type: "function", name: "read", parameters: TOOLS[0]!.function.parameters }];
const MESSAGES_TOOLS = [{ name: "read", input_schema: TOOLS[0]!.function.parameters }];

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("", (both) => ({ upstream, proxy } = both));

const json = (body: unknown) => (_req: unknown, res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
const sse = (text: string) => (_req: unknown, res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" }).end(text);

async function post(path: string, body: unknown): Promise<Response> {
  const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  return res;
}

const dataOf = (text: string) => text.split("\n").filter((l) => l.startsWith("data: {")).map((l) => JSON.parse(l.slice(6)));

describe("a fenced example split over Responses output_text parts / message items", () => {
  /** The answer as the server split it: its first text and its second, as two parts of one message or two message items. */
  const reply = (first: string, second: string, split: "parts" | "items") => {
    const a = { type: "output_text", text: first, annotations: [] };
    const b = { type: "output_text", text: second, annotations: [] };
    const message = (id: string, content: unknown[]) => ({ id, type: "message", status: "completed", role: "assistant", content });
    const output = split === "parts" ? [message("m1", [a, b])] : [message("m1", [a]), message("m2", [b])];
    return { id: "r1", object: "response", status: "completed", model: "m", output };
  };
  const FENCED = [`Here is what the format looks like:\n\n${FENCE}\n`, `${LEAK}\n${FENCE}\n\nThat is all.`] as const;
  const CLOSED = [`An example:\n\n${FENCE}\nplain code\n${FENCE}\n\nNow I read it:\n`, `${LEAK}\n`] as const;
  const calls = async (body: unknown) => {
    upstream.answer(json(body));
    const out = (await (await post("/v1/responses", { model: "m", input: "show me the format", tools: RESPONSES_TOOLS })).json()) as any;
    return out.output.filter((i: any) => i.type === "function_call").map((i: any) => JSON.parse(i.arguments).path);
  };

  test("control: Anthropic, the same text over two text blocks, is documentation (no tool_use)", async () => {
    upstream.answer(json({ id: "msg_1", type: "message", role: "assistant", model: "m", content: FENCED.map((text) => ({ type: "text", text })), stop_reason: "end_turn" }));
    const body = (await (await post("/v1/messages", { model: "m", max_tokens: 10, messages: [{ role: "user", content: "show me the format" }], tools: MESSAGES_TOOLS })).json()) as any;
    expect(body.content.filter((b: any) => b.type === "tool_use")).toEqual([]);
  });

  for (const split of ["parts", "items"] as const) {
    test(`Responses JSON, two ${split}: the fenced example does not run; a fence closed in the first, the second's leak runs`, async () => {
      expect(await calls(reply(...FENCED, split))).toEqual([]);
      expect(await calls(reply(...CLOSED, split))).toEqual(["a.ts"]);
    });
  }
});

describe("parallel tool calls switched off by the request", () => {
  const chatCalls = async (extra: object) => {
    upstream.answer(sse(chatSse(pieces(TWO))));
    const text = await (await post("/v1/chat/completions", { model: "m", stream: true, messages: [{ role: "user", content: "read a.ts and b.ts" }], tools: TOOLS, ...extra })).text();
    const ids = new Set<string>();
    for (const event of dataOf(text)) for (const c of event.choices[0]?.delta?.tool_calls ?? []) if (c.id) ids.add(c.id);
    return ids.size;
  };
  const responsesCalls = async (extra: object) => {
    upstream.answer(sse(responsesStream(TWO, "m")));
    const text = await (await post("/v1/responses", { model: "m", stream: true, input: "read a.ts and b.ts", tools: RESPONSES_TOOLS, ...extra })).text();
    return dataOf(text).filter((e) => e.type === "response.output_item.added" && e.item.type === "function_call").length;
  };
  const messagesCalls = async (toolChoice: object | undefined) => {
    upstream.answer(json({ id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: TWO }], stop_reason: "end_turn" }));
    const body = (await (await post("/v1/messages", { model: "m", max_tokens: 10, messages: [{ role: "user", content: "read a.ts and b.ts" }], tools: MESSAGES_TOOLS, ...(toolChoice ? { tool_choice: toolChoice } : {}) })).json()) as any;
    return body.content.filter((b: any) => b.type === "tool_use").length;
  };

  test("chat, parallel_tool_calls: false: a leaked block of two invokes becomes one call; true or absent, two", async () => {
    expect(await chatCalls({ parallel_tool_calls: false })).toBe(1);
    expect(await chatCalls({ parallel_tool_calls: true })).toBe(2);
    expect(await chatCalls({})).toBe(2);
  });

  test("Responses, parallel_tool_calls: false: one function_call; true or absent, two", async () => {
    expect(await responsesCalls({ parallel_tool_calls: false })).toBe(1);
    expect(await responsesCalls({ parallel_tool_calls: true })).toBe(2);
    expect(await responsesCalls({})).toBe(2);
  });

  test("Anthropic, tool_choice.disable_parallel_tool_use: true: one tool_use; false or absent, two", async () => {
    expect(await messagesCalls({ type: "auto", disable_parallel_tool_use: true })).toBe(1);
    expect(await messagesCalls({ type: "auto", disable_parallel_tool_use: false })).toBe(2);
    expect(await messagesCalls(undefined)).toBe(2);
  });
});
