/**
 * The stateless correction of the proxy's history pass (src/adapters/request-history.ts), beyond
 * review 46's findings (test/hostile/review-46-proxy-history.test.ts): one reply over consecutive
 * assistant messages on every wire, the correction never twice, never where no call may follow,
 * into a system prompt that is null or absent, and an item_reference as the model's answer.
 */
import { describe, expect, test } from "bun:test";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { correctionText } from "../../src/retry/state.ts";

const LEAK = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const CHAT_TOOLS = [{ type: "function", function: { name: "bash", parameters: SCHEMA } }];
const MESSAGES_TOOLS = [{ name: "bash", input_schema: SCHEMA }];
const RESPONSES_TOOLS = [{ type: "function", name: "bash", parameters: SCHEMA }];
const CORRECTION = correctionText("unexecuted-call");
const OPTIONS = { parse: {}, sanitize: true, correct: true };
const FENCE = "Example:\n```\n";
const EXAMPLE = `${LEAK}\n\`\`\`\n`;

function pass(path: string, body: unknown) {
  const raw = JSON.stringify(body);
  const out = sanitizeRequestBody(path, new TextEncoder().encode(raw) as Uint8Array<ArrayBuffer>, OPTIONS);
  const text = new TextDecoder().decode(out.body);
  return { removed: out.removed, correction: out.correction, text, raw, json: JSON.parse(text), count: text.split(JSON.stringify(CORRECTION).slice(1, -1)).length - 1 };
}
const chat = (messages: unknown[], extra: object = {}) => ({ model: "m", tools: CHAT_TOOLS, messages, ...extra });
const anthropic = (messages: unknown[], extra: object = {}) => ({ model: "m", max_tokens: 9, tools: MESSAGES_TOOLS, messages, ...extra });
const responses = (input: unknown[], extra: object = {}) => ({ model: "m", tools: RESPONSES_TOOLS, input, ...extra });
const said = (text: string) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });

describe("consecutive assistant messages are one reply", () => {
  test("chat: a fenced example split across two assistant messages goes up as sent, no correction", () => {
    const out = pass("/v1/chat/completions", chat([{ role: "user", content: "format?" }, { role: "assistant", content: FENCE }, { role: "assistant", content: EXAMPLE }, { role: "user", content: "thanks" }]));
    expect([out.removed, out.correction, out.text]).toEqual([0, null, out.raw]);
  });
  test("Responses: a fenced example split across two assistant message items goes up as sent, no correction", () => {
    const out = pass("/v1/responses", responses([{ role: "user", content: "format?" }, said(FENCE), said(EXAMPLE), { role: "user", content: "thanks" }]));
    expect([out.removed, out.correction, out.text]).toEqual([0, null, out.raw]);
  });
  // Hard negatives: a leak outside any fence in the second message is still the reply's own.
  test.each([
    ["/v1/chat/completions", chat([{ role: "user", content: "go" }, { role: "assistant", content: "Reading." }, { role: "assistant", content: `Now: ${LEAK}` }, { role: "user", content: "?" }])],
    ["/v1/messages", anthropic([{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "text", text: "Reading." }] }, { role: "assistant", content: [{ type: "text", text: `Now: ${LEAK}` }] }, { role: "user", content: "?" }])],
    ["/v1/responses", responses([{ role: "user", content: "go" }, said("Reading."), said(`Now: ${LEAK}`), { role: "user", content: "?" }])],
  ])("hard negative %s: an unfenced leak in the second message is replaced and corrected once", (path, body) => {
    const out = pass(path, body);
    expect([out.removed, out.correction, out.count]).toEqual([1, "unexecuted-call", 1]);
    expect(out.text).toContain(JSON.stringify(`Now: ${REMOVED_NOTE}`));
  });
  test("hard negative: a user turn between two assistant messages ends the reply: the fence of the first holds nothing in the second", () => {
    const out = pass("/v1/messages", anthropic([{ role: "user", content: "go" }, { role: "assistant", content: FENCE }, { role: "user", content: "and?" }, { role: "assistant", content: EXAMPLE }, { role: "user", content: "?" }]));
    expect([out.removed, out.correction]).toEqual([1, "unexecuted-call"]);
  });
  test("Messages: a leak split across two assistant messages is replaced as one span", () => {
    const cut = LEAK.indexOf('"arguments"');
    const out = pass("/v1/messages", anthropic([{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "text", text: `Now: ${LEAK.slice(0, cut)}` }] }, { role: "assistant", content: [{ type: "text", text: `${LEAK.slice(cut)} done.` }] }, { role: "user", content: "?" }]));
    expect([out.removed, out.correction]).toEqual([1, "unexecuted-call"]);
    expect(out.json.messages.slice(1, 3).map((m: { content: { text: string }[] }) => m.content[0]!.text)).toEqual([`Now: ${REMOVED_NOTE}`, " done."]);
  });
  test("Messages: a server tool's result in the first message is given to the text of the next: a quote of it gets no correction", () => {
    const page = { type: "web_fetch_tool_result", tool_use_id: "srvtoolu_1", content: { type: "web_fetch_result", url: "https://example.com", content: { type: "document", source: { type: "text", media_type: "text/plain", data: `Setup:\n${LEAK}\n` } } } };
    const body = (result: unknown[]) =>
      anthropic([
        { role: "user", content: "what does the page say?" },
        { role: "assistant", content: [{ type: "server_tool_use", id: "srvtoolu_1", name: "web_fetch", input: { url: "https://example.com" } }, ...result] },
        { role: "assistant", content: [{ type: "text", text: `The page says:\n${LEAK}` }] },
        { role: "user", content: "ok" },
      ]);
    expect([pass("/v1/messages", body([page])).removed, pass("/v1/messages", body([page])).correction]).toEqual([1, null]);
    // Hard negative: without the result, the text is the model's own unexecuted call.
    expect(pass("/v1/messages", body([])).correction).toBe("unexecuted-call");
  });
});

describe("the correction is never added twice", () => {
  const leaked = [{ role: "user", content: "hi" }, { role: "assistant", content: `Reading. ${LEAK}` }, { role: "user", content: "?" }];
  const responsesLeaked = [leaked[0], said(`Reading. ${LEAK}`), leaked[2]];
  test.each([
    ["chat, a second system message (a split system prompt)", "/v1/chat/completions", chat([{ role: "system", content: "Be brief." }, { role: "system", content: CORRECTION }, ...leaked])],
    ["chat, a text part of the system message", "/v1/chat/completions", chat([{ role: "system", content: [{ type: "text", text: "Be brief." }, { type: "text", text: CORRECTION }] }, ...leaked])],
    ["Messages, a system string", "/v1/messages", anthropic(leaked, { system: `Be brief.\n\n${CORRECTION}` })],
    ["Messages, a system text block", "/v1/messages", anthropic(leaked, { system: [{ type: "text", text: "Be brief." }, { type: "text", text: CORRECTION }] })],
    ["Responses, instructions", "/v1/responses", responses(responsesLeaked, { instructions: `Be brief.\n\n${CORRECTION}` })],
    ["Responses, a developer input item", "/v1/responses", responses([{ role: "developer", content: CORRECTION }, ...responsesLeaked])],
  ])("%s already holds it: the leak replaced, the correction stays one", (_name, path, body) => {
    const out = pass(path, body);
    expect([out.removed, out.correction, out.count]).toEqual([1, "unexecuted-call", 1]);
  });
  // Hard negatives: only the system channel counts, and only the very text due.
  test.each([
    ["a user message", chat([{ role: "system", content: "Be brief." }, { role: "user", content: CORRECTION }, ...leaked.slice(1)])],
    ["an assistant message", chat([{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }, { role: "assistant", content: `${CORRECTION} Reading. ${LEAK}` }, { role: "user", content: "?" }])],
    ["a tool result", chat([{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }, { role: "tool", tool_call_id: "c0", content: CORRECTION }, ...leaked.slice(1)])],
    ["another correction's text in the system prompt", chat([{ role: "system", content: correctionText("broken-markup") }, ...leaked])],
  ])("hard negative: the text in %s does not stand for the correction: it is added", (_name, body) => {
    const out = pass("/v1/chat/completions", body);
    expect(out.correction).toBe("unexecuted-call");
    expect(out.json.messages[0].content).toEqual(expect.stringContaining(`\n\n${CORRECTION}`));
  });
});

describe("a system prompt that is null or absent takes the correction", () => {
  const leaked = [{ role: "user", content: "hi" }, { role: "assistant", content: `Reading. ${LEAK}` }, { role: "user", content: "?" }];
  test("chat: a system message without content gets the correction as its content", () => {
    const out = pass("/v1/chat/completions", chat([{ role: "system" }, ...leaked]));
    expect(out.json.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(out.json.messages[0]).toEqual({ role: "system", content: CORRECTION });
  });
  test("Messages: system null; Responses: instructions null", () => {
    expect(pass("/v1/messages", anthropic(leaked, { system: null })).json.system).toBe(CORRECTION);
    expect(pass("/v1/responses", responses([leaked[0], said(`Reading. ${LEAK}`), leaked[2]], { instructions: null })).json.instructions).toBe(CORRECTION);
  });
});

describe("Responses: an item_reference", () => {
  test("hard negative: one before the leaking message is no answer to it: corrected", () => {
    const out = pass("/v1/responses", responses([{ role: "user", content: "go" }, { type: "item_reference", id: "msg_0" }, said(`Listing. ${LEAK}`), { role: "user", content: "?" }]));
    expect([out.removed, out.correction]).toEqual([1, "unexecuted-call"]);
  });
});

describe("no correction where the request allows no call", () => {
  const leaked = [{ role: "user", content: "hi" }, { role: "assistant", content: `Reading. ${LEAK}` }, { role: "user", content: "Summarize." }];
  const responsesLeaked = [leaked[0], said(`Reading. ${LEAK}`), leaked[2]];
  test.each([
    ["/v1/chat/completions", { model: "m", messages: leaked }],
    ["/v1/messages", { model: "m", max_tokens: 9, messages: leaked }],
    ["/v1/responses", { model: "m", input: responsesLeaked }],
    ["/v1/chat/completions", { model: "m", tools: [], messages: leaked }],
  ])("%s declaring no tools: the leak replaced, no correction", (path, body) => {
    const out = pass(path, body);
    expect([out.removed, out.correction, out.count]).toEqual([1, null, 0]);
  });
  // Hard negatives: every choice that allows a call keeps the correction.
  test.each([
    ["/v1/chat/completions", chat(leaked, { tool_choice: "auto" })],
    ["/v1/chat/completions", chat(leaked, { tool_choice: "required" })],
    ["/v1/chat/completions", chat(leaked, { tool_choice: { type: "function", function: { name: "bash" } } })],
    ["/v1/messages", anthropic(leaked, { tool_choice: { type: "any" } })],
    ["/v1/messages", anthropic(leaked, { tool_choice: { type: "tool", name: "bash" } })],
    ["/v1/responses", responses(responsesLeaked, { tool_choice: "required" })],
    ["/v1/responses", responses(responsesLeaked, { tool_choice: { type: "function", name: "bash" } })],
  ])("hard negative %s with a choice that allows a call: corrected", (path, body) => {
    expect(pass(path, body).correction).toBe("unexecuted-call");
  });
});
