// Review 46 (hostile, tests only): the middleware's history sanitizing (transformParams) as a real
// provider sends it. Each failing test says what is wrong, its severity and the suspected source
// file. Markup is Hermes `<tool_call>` JSON: no DSML marker bytes needed.
import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool, wrapLanguageModel, type ModelMessage } from "ai";
import { repairMiddleware } from "../../src/adapters/middleware.ts";

const LEAK = '<tool_call>{"name":"read","arguments":{"path":"a"}}</tool_call>';

/** The Responses request body @ai-sdk/openai sends for `messages`, through the middleware. */
async function sentInput(messages: ModelMessage[], providerOptions?: Record<string, Record<string, string | boolean>>): Promise<unknown[]> {
  const bodies: { input: unknown[] }[] = [];
  const fetch = async (_url: unknown, init: { body: string }) => {
    bodies.push(JSON.parse(init.body));
    const reply = { id: "resp_2", object: "response", created_at: 1, status: "completed", model: "gpt-4.1", output: [{ type: "message", id: "msg_9", status: "completed", role: "assistant", content: [{ type: "output_text", text: "ok", annotations: [] }] }], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } };
    return new Response(JSON.stringify(reply), { headers: { "content-type": "application/json" } });
  };
  const openai = createOpenAI({ apiKey: "test", fetch: fetch as unknown as typeof globalThis.fetch });
  const model = wrapLanguageModel({ model: openai.responses("gpt-4.1"), middleware: repairMiddleware({}) });
  const read = tool({ inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }) });
  await generateText({ model, tools: { read }, messages, ...(providerOptions ? { providerOptions } : {}) });
  return bodies[0]!.input;
}

const replayed = (text: string): ModelMessage => ({ role: "assistant", content: [{ type: "text", text, providerOptions: { openai: { itemId: "msg_1" } } }] });

describe("a sanitized assistant turn replayed to the OpenAI Responses API", () => {
  // FINDING (history sanitizing lost, medium). @ai-sdk/openai hands back every assistant text part
  // with providerOptions.openai.itemId, and with `store` (its default) it replays such a part as
  // `{ type: "item_reference", id }`: the server's stored copy, the leak included. The middleware
  // rewrites the part's text and keeps its providerOptions, so the rewritten text is never sent and
  // the model sees its own leak again on every turn (what history.sanitize exists to stop).
  // Observed input[1]: { type: "item_reference", id: "msg_1" }. Expected: the sanitized text is what
  // goes upstream (e.g. a part whose text the sanitizer changed loses its itemId, so the provider
  // sends it as a message), and the leak is nowhere in the request.
  // Suspected: src/history/prompt.ts (sanitizePrompt keeps the part's providerOptions as they were).
  test("the leak is not replayed through an item reference", async () => {
    const input = await sentInput([{ role: "user", content: "hi" }, replayed(`Checking. ${LEAK}`), { role: "user", content: "and?" }]);
    expect(JSON.stringify(input)).toContain("dsml-fix: a malformed tool call was removed here");
    expect(input).not.toContainEqual({ type: "item_reference", id: "msg_1" });
  });

  // Hard negative (passes today): a turn without a leak keeps its item reference (nothing to change).
  test("control: a clean turn keeps its item reference", async () => {
    const input = await sentInput([{ role: "user", content: "hi" }, replayed("Checking the file now."), { role: "user", content: "and?" }]);
    expect(input).toContainEqual({ type: "item_reference", id: "msg_1" });
  });

  // Hard negative (passes today): with store off the provider sends the text, and it is the sanitized one.
  test("control: store off sends the sanitized text", async () => {
    const input = await sentInput([{ role: "user", content: "hi" }, replayed(`Checking. ${LEAK}`), { role: "user", content: "and?" }], { openai: { store: false } });
    const text = JSON.stringify(input);
    expect(text).toContain("dsml-fix: a malformed tool call was removed here");
    expect(text).not.toContain("<tool_call>");
  });
});
