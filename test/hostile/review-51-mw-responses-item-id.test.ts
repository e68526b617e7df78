// Review 51 (hostile, tests only): what the middleware's generate path puts on a recovered call
// (src/adapters/middleware/generate.ts signedOnto), read by the real @ai-sdk/openai Responses
// provider on the next request. Markup is Hermes `<tool_call>` JSON: no DSML marker bytes needed.
import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { type Json, responsesItemsStream, responsesMessages } from "../adapters/wire-support.ts";

const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] } as const;
const LEAK = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';

/** A Responses server: the first reply is one message item `first`, every later one says "Done."; request bodies recorded. */
function server(stream: boolean, first: string) {
  const bodies: Json[] = [];
  const fetch = (async (_url: unknown, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    const items = bodies.length === 1 ? [{ id: "msg_leak", parts: [first] }] : [{ id: "msg_done", parts: ["Done."] }];
    if (stream) return new Response(responsesItemsStream(items, 7), { headers: { "content-type": "text/event-stream" } });
    const body = { id: `resp_${bodies.length}`, object: "response", created_at: 1, status: "completed", model: "m", output: responsesMessages(items), usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } };
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, bodies };
}

/** Two steps through the real provider and the AI SDK (the tool runs in between): the second request's input items. */
async function secondInput(stream: boolean, providerOptions: Json, first = LEAK): Promise<Json[]> {
  const up = server(stream, first);
  const model = wrapLanguageModel({ model: createOpenAI({ apiKey: "k", baseURL: "http://model.test/v1", fetch: up.fetch }).responses("gpt-x"), middleware: repairMiddleware({}) });
  const options = { model, prompt: "read a.ts", tools: { read: tool({ inputSchema: jsonSchema(SCHEMA), execute: async () => "contents" }) }, stopWhen: stepCountIs(2), providerOptions };
  if (stream) await streamText(options).consumeStream();
  else await generateText(options);
  expect(up.bodies.length).toBe(2);
  return up.bodies[1]!.input as Json[];
}

/** Every function_call_output's call_id has a function_call item before it in the same input. */
function outputsAnswered(input: Json[]): { outputs: number; unanswered: string[] } {
  const calls = new Set<string>();
  const unanswered: string[] = [];
  let outputs = 0;
  for (const item of input) {
    if (item.type === "function_call") calls.add(item.call_id);
    if (item.type === "function_call_output") {
      outputs++;
      if (!calls.has(item.call_id)) unanswered.push(item.call_id);
    }
  }
  return { outputs, unanswered };
}

describe("a Responses message item that was only a leak, in a server-side conversation", () => {
  // FINDING (host broken: the next request fails, medium). doGenerate through @ai-sdk/openai's
  // Responses model gives a text part carrying providerMetadata.openai.itemId (the message item's
  // id, "msg_leak"). When the whole item was the leak, the repair empties that part and
  // signedOnto() moves its metadata onto the recovered call (meant for Gemini's thoughtSignature),
  // so the call claims `openai.itemId: "msg_leak"`. The AI SDK replays a tool call's metadata as
  // its providerOptions, and @ai-sdk/openai skips a tool-call with an itemId when the call uses a
  // server conversation (`providerOptions.openai.conversation`: "the server has that item"). The
  // server has no such call (it has the message item), so the next request carries the tool's
  // function_call_output with no function_call: the Responses API refuses it ("No tool call found
  // for function call output"). The stream path leaves the metadata on the emptied text part's end
  // and the same conversation works (control below).
  // Minimal input: a Responses reply whose one message item is `<tool_call>{"name":"read",...}</tool_call>`,
  // generateText with providerOptions.openai.conversation and a tool that executes.
  // Suspected: src/adapters/middleware/generate.ts (signedOnto: moves every provider's metadata;
  // an OpenAI itemId names a message item, never a call).
  // Expected: the second request holds a function_call for every function_call_output, as streamed.
  // Fixed: only provider data that belongs to a call (callMetadata in call-context.ts: a
  // thoughtSignature, under any provider's name) moves onto a call recovered from an emptied text
  // part; an itemId and every other key naming the text item stay on the part, empty, as the
  // stream leaves them on the part's end (and the stream now moves a signature onto the call too).
  test("generate: the tool's output is answered by its call in the next request", async () => {
    const input = await secondInput(false, { openai: { conversation: "conv_1" } });
    expect(outputsAnswered(input)).toEqual({ outputs: 1, unanswered: [] });
  });

  // Hard negative (passes today): the stream path, same reply and conversation.
  test("control: streamed, the next request carries the call", async () => {
    const input = await secondInput(true, { openai: { conversation: "conv_1" } });
    expect(outputsAnswered(input)).toEqual({ outputs: 1, unanswered: [] });
  });

  // Hard negatives (pass today): without a conversation the function_call is sent either way.
  test("control: generate without a conversation carries the call", async () => {
    expect(outputsAnswered(await secondInput(false, {}))).toEqual({ outputs: 1, unanswered: [] });
    expect(outputsAnswered(await secondInput(false, { openai: { store: false } }))).toEqual({ outputs: 1, unanswered: [] });
  });

  // Hard negative (passes today): an item with prose before the leak keeps its text part (and
  // its itemId), so nothing moves onto the call.
  test("control: generate, prose before the leak, in a conversation", async () => {
    expect(outputsAnswered(await secondInput(false, { openai: { conversation: "conv_1" } }, `Reading it. ${LEAK}`))).toEqual({ outputs: 1, unanswered: [] });
  });
});
