/**
 * A leak whose markup runs over three or more consecutive text parts of one reply (Review 52,
 * suspected): a middle part that held only white space inside the markup was left as "", an empty
 * text part. The Anthropic Messages API refuses an empty text block ("text content blocks must be
 * non-empty"), and some chat APIs refuse an empty assistant content part. Checked through the real
 * request path (src/adapters/request-history.ts, which the proxy and repairFetch share) on each
 * wire's shape, and through the AI SDK middleware's prompt sanitizing.
 * Fixed: a part the redaction leaves empty leaves its message's content when the message keeps
 * another part; when it would leave nothing, or the part carries more than its text (a cache
 * breakpoint), it holds the note (src/history/emptied-parts.ts). A part the client sent empty,
 * and every part of another kind, stays as sent.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { sanitizePrompt } from "../../src/history/prompt.ts";
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

const TOOLS = [{ name: "bash", parameters: SCHEMA }];
const chatTools = [{ type: "function", function: { name: "bash", parameters: SCHEMA } }];
const part = (type: string) => (text: string) => ({ type, text });

describe("a part the markup would leave empty", () => {
  // FINDING (severity: host broken: the API refuses the sanitized request). Minimal input: an
  // assistant turn's text parts [HEAD, "\n", TAIL].
  // Fixed: the emptied part is dropped on every shape (the note stays where the markup started).
  test("chat content parts: the emptied middle part is dropped", () => {
    const text = part("text");
    const body = { model: "m", tools: chatTools, messages: [{ role: "user", content: "go" }, { role: "assistant", content: [text(HEAD), text(MIDDLE), text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/chat/completions", body).messages[1].content).toEqual([text(`Running: ${REMOVED_NOTE}`), text(" done")]);
  });

  test("Anthropic text blocks: the emptied middle block is dropped", () => {
    const text = part("text");
    const body = { model: "m", max_tokens: 9, tools: [{ name: "bash", input_schema: SCHEMA }], messages: [{ role: "user", content: "go" }, { role: "assistant", content: [text(HEAD), text(MIDDLE), text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/messages", body).messages[1].content).toEqual([text(`Running: ${REMOVED_NOTE}`), text(" done")]);
  });

  test("Responses output_text parts: the emptied middle part is dropped", () => {
    const text = part("output_text");
    const body = { model: "m", tools: [{ type: "function", name: "bash", parameters: SCHEMA }], input: [{ role: "user", content: "go" }, { type: "message", role: "assistant", content: [text(HEAD), text(MIDDLE), text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/responses", body).input[1].content).toEqual([text(`Running: ${REMOVED_NOTE}`), text(" done")]);
  });

  test("the AI SDK prompt in the middleware: the emptied middle part is dropped", async () => {
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

describe("a message the markup would leave with nothing holds the note", () => {
  // Consecutive assistant messages are one reply (the live repair read them as one text): a middle
  // message whose whole content is the white space inside the markup keeps the note, never an empty content.
  test("chat: a middle message's string content", () => {
    const body = { model: "m", tools: chatTools, messages: [{ role: "user", content: "go" }, { role: "assistant", content: HEAD }, { role: "assistant", content: MIDDLE }, { role: "assistant", content: TAIL }, { role: "user", content: "?" }] };
    expect(pass("/v1/chat/completions", body).messages.slice(1, 4).map((m: Json) => m.content)).toEqual([`Running: ${REMOVED_NOTE}`, REMOVED_NOTE, " done"]);
  });

  test("Anthropic: a middle message whose only block is emptied, and one whose two blocks are", () => {
    const text = part("text");
    const messages = (middle: Json[]) => [{ role: "user", content: "go" }, { role: "assistant", content: [text(HEAD)] }, { role: "assistant", content: middle }, { role: "assistant", content: [text(TAIL)] }, { role: "user", content: "?" }];
    const body = (middle: Json[]) => ({ model: "m", max_tokens: 9, tools: [{ name: "bash", input_schema: SCHEMA }], messages: messages(middle) });
    expect(pass("/v1/messages", body([text(MIDDLE)])).messages[2].content).toEqual([text(REMOVED_NOTE)]);
    expect(pass("/v1/messages", body([text(MIDDLE), text("  ")])).messages[2].content).toEqual([text(REMOVED_NOTE)]);
  });

  test("the AI SDK prompt: a middle message whose only part is emptied", () => {
    const text = part("text");
    const prompt = [{ role: "assistant", content: [text(HEAD)] }, { role: "assistant", content: [text(MIDDLE)] }, { role: "assistant", content: [text(TAIL)] }] as LanguageModelV3Prompt;
    expect(sanitizePrompt(prompt, {}, TOOLS).map((m) => m.content)).toEqual([[text(`Running: ${REMOVED_NOTE}`)], [text(REMOVED_NOTE)], [text(" done")]] as never);
  });
});

describe("hard negatives: what is never dropped", () => {
  test("Anthropic: thinking, tool_use and tool_result blocks stay as sent; emptied blocks at the end of a message go with valid JSON", () => {
    const text = part("text");
    const thinking = { type: "thinking", thinking: HEAD, signature: "c2ln+/==" };
    const toolUse = { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } };
    const body = {
      model: "m",
      max_tokens: 9,
      tools: [{ name: "bash", input_schema: SCHEMA }],
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [thinking, text(HEAD), text(MIDDLE), text(" ")] },
        { role: "assistant", content: [text(TAIL), toolUse] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
      ],
    };
    const sent = pass("/v1/messages", body);
    expect(sent.messages[1].content).toEqual([thinking, text(`Running: ${REMOVED_NOTE}`)]);
    expect(sent.messages[2].content).toEqual([text(" done"), toolUse]);
    expect(sent.messages[3]).toEqual(body.messages[3]);
  });

  test("Anthropic: an emptied block that carries a cache breakpoint holds the note, its cache_control kept", () => {
    const text = part("text");
    const marked = { ...text(MIDDLE), cache_control: { type: "ephemeral" } };
    const body = { model: "m", max_tokens: 9, tools: [{ name: "bash", input_schema: SCHEMA }], messages: [{ role: "user", content: "go" }, { role: "assistant", content: [text(HEAD), marked, text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/messages", body).messages[1].content).toEqual([text(`Running: ${REMOVED_NOTE}`), { ...marked, text: REMOVED_NOTE }, text(" done")]);
  });

  test("Responses: empty annotations do not keep a part; the parts around it keep theirs", () => {
    const text = (t: string) => ({ type: "output_text", text: t, annotations: [] });
    const body = { model: "m", tools: [{ type: "function", name: "bash", parameters: SCHEMA }], input: [{ role: "user", content: "go" }, { type: "message", role: "assistant", content: [text(HEAD), text(MIDDLE), text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/responses", body).input[1].content).toEqual([text(`Running: ${REMOVED_NOTE}`), text(" done")]);
  });

  test("chat: a part the client sent empty, and white space outside the markup, stay as sent", () => {
    const text = part("text");
    const body = { model: "m", tools: chatTools, messages: [{ role: "user", content: "go" }, { role: "assistant", content: [text(""), text("\n"), text(HEAD), text(MIDDLE), text(TAIL), text("\n")] }, { role: "user", content: "?" }] };
    expect(pass("/v1/chat/completions", body).messages[1].content).toEqual([text(""), text("\n"), text(`Running: ${REMOVED_NOTE}`), text(" done"), text("\n")]);
  });

  test("a leak over two parts drops nothing: the part it would leave blank takes the note", () => {
    const text = part("text");
    const two = { model: "m", tools: chatTools, messages: [{ role: "user", content: "go" }, { role: "assistant", content: [text('<tool_call>{"name":"bash",'), text(TAIL)] }, { role: "user", content: "?" }] };
    expect(pass("/v1/chat/completions", two).messages[1].content).toEqual([text(REMOVED_NOTE), text(" done")]);
  });
});
