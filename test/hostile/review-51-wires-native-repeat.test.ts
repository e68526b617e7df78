/**
 * Review 51 (hostile, tests only): a streamed reply whose leak is recovered (and sent at once,
 * parallel calls on) and then repeated as a native call. src/wires/sent-calls.ts drops the native
 * call when it has "the same input (compared as parsed JSON, key order aside)" (docs/HOW-IT-WORKS.md)
 * as the call sent; the JSON path sees both at once and strips the leak as the native call's
 * duplicate. No DSML marker bytes here.
 */
import { describe, expect, test } from "bun:test";
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
  for (const wire of WIRES) {
    test.failing(`${wire}: timeout written "60000" in the leak and in the native call: one bash call on the stream`, async () => {
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

  test("chat: the native call with other input after the recovered one still goes out (two calls on the stream)", async () => {
    const leak = `Running. <tool_call>{"name":"bash","arguments":{"command":"npm test"}}</tool_call>`;
    const choices = [{ message: { content: leak, tool_calls: [{ id: "n1", type: "function", function: { name: "bash", arguments: '{"command":"npm run lint"}' } }] }, finish: "tool_calls" }];
    const sse = await keptEverySplit("chat", requestFor("chat", true, { tools: TOOLS.chat }), chatSse(choices));
    for (const run of sse) expect(run.calls.map((c) => (c.input as Json).command)).toEqual(["npm test", "npm run lint"]);
  });
});
