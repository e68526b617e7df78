/**
 * Review 51 (hostile, tests only): a streamed reply whose leak is recovered (and sent at once,
 * parallel calls on) and then repeated as a native call. src/wires/sent-calls.ts drops the native
 * call when it has "the same input (compared as parsed JSON, key order aside)" (docs/HOW-IT-WORKS.md)
 * as the call sent; the JSON path sees both at once and strips the leak as the native call's
 * duplicate. No DSML marker bytes here.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { type Json, type WireName, chatJson, chatSse, keptEverySplit, keptOfJson, messageItem, messageJson, messageSse, requestFor, responseJson, responseSse } from "./review-51-wires-support.ts";

/** OpenCode's bash: `timeout` is a number. */
const BASH = { type: "object", properties: { command: { type: "string" }, timeout: { type: "integer" }, description: { type: "string" } }, required: ["command"] };
const TOOLS: Record<WireName, Json[]> = {
  chat: [{ type: "function", function: { name: "bash", parameters: BASH } }],
  anthropic: [{ name: "bash", input_schema: BASH }],
  responses: [{ type: "function", name: "bash", parameters: BASH }],
};
const WIRES: WireName[] = ["chat", "anthropic", "responses"];

/** The reply: prose and a Hermes leak of bash with `args`, then the same call natively. */
function bodies(wire: WireName, args: Json): { json: Json; sse: string } {
  const leak = `Running the tests. <tool_call>{"name":"bash","arguments":${JSON.stringify(args)}}</tool_call>`;
  const native = JSON.stringify(args);
  if (wire === "chat") {
    const choices = [{ message: { content: leak, tool_calls: [{ id: "n1", type: "function", function: { name: "bash", arguments: native } }] }, finish: "tool_calls" }];
    return { json: chatJson(choices), sse: chatSse(choices) };
  }
  if (wire === "anthropic") {
    const blocks = [{ type: "text", text: leak }, { type: "tool_use", id: "t1", name: "bash", input: args }];
    return { json: messageJson(blocks, "tool_use"), sse: messageSse(blocks, "tool_use") };
  }
  const output = [messageItem("m1", leak), { id: "fc1", type: "function_call", status: "completed", call_id: "c1", name: "bash", arguments: native }];
  return { json: responseJson(output), sse: responseSse(output) };
}

async function runs(wire: WireName, args: Json) {
  const { json, sse } = bodies(wire, args);
  const extra = { tools: TOOLS[wire] };
  return { json: await keptOfJson(wire, requestFor(wire, false, extra), json), sse: await keptEverySplit(wire, requestFor(wire, true, extra), sse) };
}

describe("a native call that repeats a recovered one runs once", () => {
  // FINDING (wrong execution: the same command runs twice; src/wires/sent-calls.ts SentCalls.add /
  // take, src/wires/held-native.ts). Minimal input, streamed with parallel calls on (any wire):
  //   Running the tests. <tool_call>{"name":"bash","arguments":{"command":"npm test","timeout":"60000"}}</tool_call>
  // then a native bash call with arguments {"command":"npm test","timeout":"60000"} (the model
  // wrote the same call twice, word for word). The leak is recovered with its input coerced to the
  // schema (timeout 60000, a number) and sent at once; SentCalls keeps that coerced input, while
  // the native call's input is compared as the model wrote it ("60000", a string): the keys
  // differ, the native call is "other input" and goes out too. The client gets two bash calls of
  // `npm test` (a client that coerces, as pydantic's lax mode or a zod `coerce` schema does, runs
  // both). The JSON answer of the same reply strips the leak and gives the one native call.
  // Expected: the native input is compared the way the sent one was read (coerced by the same
  // schema), or the sent call keeps the input as written too; one call on every path.
  // Fixed: a native call's input is coerced under the tool's schema (coerceDeep, as the schema gate
  // reads a leak) before SentCalls compares it with the calls sent; the same call written twice is
  // one call on the stream as on the JSON path (the wires and the middleware pass the offered tools).
  for (const wire of WIRES) {
    test(`${wire}: timeout written "60000" in the leak and in the native call: one bash call on the stream`, async () => {
      const { json, sse } = await runs(wire, { command: "npm test", timeout: "60000" });
      expect(json.calls).toHaveLength(1);
      for (const run of sse) expect(run.calls).toHaveLength(1);
    });
  }

  // Hard negatives: the same call written the same way (a number) is one call on both paths; a
  // native call with other input still goes out (two calls on the stream, as documented).
  for (const wire of WIRES) {
    test(`${wire}: timeout 60000 (a number) in both: one call, JSON and stream`, async () => {
      const { json, sse } = await runs(wire, { command: "npm test", timeout: 60000 });
      expect(json.calls).toEqual([{ name: "bash", input: { command: "npm test", timeout: 60000 } }]);
      for (const run of sse) expect(run.calls).toEqual([{ name: "bash", input: { command: "npm test", timeout: 60000 } }]);
    });

    test(`${wire}: a value with spaces and a line break kept as written: one call`, async () => {
      const args = { command: " npm test\n" };
      const { json, sse } = await runs(wire, args);
      expect(json.calls).toEqual([{ name: "bash", input: args }]);
      for (const run of sse) expect(run.calls).toEqual([{ name: "bash", input: args }]);
    });
  }

  // Hard negative for the fix: coercion makes no two different calls one. A native call whose
  // timeout reads as another number after coercion still goes out beside the recovered one.
  test("chat: leak timeout \"60000\", native timeout \"30000\": two calls on the stream", async () => {
    const leak = `Running. <tool_call>{"name":"bash","arguments":{"command":"npm test","timeout":"60000"}}</tool_call>`;
    const choices = [{ message: { content: leak, tool_calls: [{ id: "n1", type: "function", function: { name: "bash", arguments: '{"command":"npm test","timeout":"30000"}' } }] }, finish: "tool_calls" }];
    const sse = await keptEverySplit("chat", requestFor("chat", true, { tools: TOOLS.chat }), chatSse(choices));
    for (const run of sse) expect(run.calls.map((c) => (c.input as Json).timeout)).toEqual([60000, "30000"]);
  });

  test("chat: the native call with other input after the recovered one still goes out (two calls on the stream)", async () => {
    const leak = `Running. <tool_call>{"name":"bash","arguments":{"command":"npm test"}}</tool_call>`;
    const choices = [{ message: { content: leak, tool_calls: [{ id: "n1", type: "function", function: { name: "bash", arguments: '{"command":"npm run lint"}' } }] }, finish: "tool_calls" }];
    const sse = await keptEverySplit("chat", requestFor("chat", true, { tools: TOOLS.chat }), chatSse(choices));
    for (const run of sse) expect(run.calls.map((c) => (c.input as Json).command)).toEqual(["npm test", "npm run lint"]);
  });

  // The AI SDK middleware's stream shares the decision (held-native.ts): the same there.
  const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const bash: LanguageModelV3FunctionTool = { type: "function", name: "bash", inputSchema: BASH };
  async function middlewareCalls(native: string): Promise<unknown[]> {
    const leak = `Running the tests. <tool_call>{"name":"bash","arguments":{"command":"npm test","timeout":"60000"}}</tool_call>`;
    const parts: LanguageModelV3StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: leak },
      { type: "text-end", id: "t" },
      { type: "tool-input-start", id: "n1", toolName: "bash" },
      { type: "tool-input-delta", id: "n1", delta: native },
      { type: "tool-input-end", id: "n1" },
      { type: "tool-call", toolCallId: "n1", toolName: "bash", input: native },
      { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } },
    ];
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
    const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
    const params = { prompt: [{ role: "user", content: [{ type: "text", text: "run the tests" }] }], tools: [bash] } as LanguageModelV3CallOptions;
    const out = await convertReadableStreamToArray((await model.doStream(params)).stream);
    return out.filter((part) => part.type === "tool-call").map((part) => JSON.parse(part.input));
  }
  test("middleware: timeout \"60000\" in the leak and in the native call: one bash call", async () => {
    expect(await middlewareCalls('{"command":"npm test","timeout":"60000"}')).toEqual([{ command: "npm test", timeout: 60000 }]);
  });
  test("middleware: native timeout \"30000\": two calls", async () => {
    expect(await middlewareCalls('{"command":"npm test","timeout":"30000"}')).toEqual([{ command: "npm test", timeout: 60000 }, { command: "npm test", timeout: "30000" }]);
  });
});
