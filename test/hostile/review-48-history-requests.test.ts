/**
 * Review 48 (hostile, tests only): history sanitizing on every request shape: the request bodies
 * of the fetch adapter and the proxy (src/adapters/request-history.ts over json-splice.ts), the AI
 * SDK prompt (src/history/prompt.ts) and OpenCode 2's context (src/plugin/v2/context-hook.ts).
 * Each finding test (now fixed) says what is wrong, its severity and the suspected source file; the rest are
 * hard negatives that pass today and say so. DSML is built from escaped notation.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { sanitizeRequestText } from "../../src/adapters/request-history.ts";
import { sanitizePrompt } from "../../src/history/prompt.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { sanitizeHistory } from "../../src/plugin/history-hook.ts";
import { sanitizeContext } from "../../src/plugin/v2/context-hook.ts";
import type { V2Message } from "../../src/plugin/v2/host-types.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { escaped, live } from "../golden/notation.ts";
import { fixtureTools } from "../golden/tools.ts";

const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const CHAT_TOOLS = [{ type: "function", function: { name: "bash", parameters: SCHEMA } }];
const MESSAGES_TOOLS = [{ name: "bash", input_schema: SCHEMA }];
const RESPONSES_TOOLS = [{ type: "function", name: "bash", parameters: SCHEMA }];
const DSML = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const HERMES = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>';
const OPTIONS = { parse: {}, sanitize: true, correct: false };
const enc = new TextEncoder();
const dec = new TextDecoder();

const request = (path: string, body: unknown, options = OPTIONS) => {
  const text = JSON.stringify(body);
  return sanitizeRequestText(path, text, body, options);
};

// ---------------------------------------------------------------------------------------------
// Findings
// ---------------------------------------------------------------------------------------------

describe("consecutive assistant messages are one reply on every route", () => {
  const example = "Here is the format:\n```xml\n";
  const rest = `${DSML}\n\`\`\`\nThat is how it looks.`;

  test("hard negative (passes today): the request path (fetch adapter, proxy) keeps the fenced example split over two assistant messages", () => {
    const body = { model: "m", max_tokens: 9, tools: MESSAGES_TOOLS, messages: [{ role: "user", content: "show me" }, { role: "assistant", content: example }, { role: "assistant", content: rest }, { role: "user", content: "ok" }] };
    expect(request("/v1/messages", body).removed).toBe(0);
  });

  // fixed (finding 7): (low-medium: documentation redacted, and the routes disagree). A reply stored as two
  // consecutive assistant messages (a continuation after max_tokens, a resumed stream) whose first
  // message opens a fence and whose second holds the example and closes it. The request path reads
  // the two as one reply (request-history.ts repliesOf) and keeps the example; the AI SDK
  // middleware reads each message on its own, so the second message's example reads as a bare DSML
  // block and becomes the note: the model's answer about the format is rewritten. Observed: second
  // message "[dsml-fix: ...]\n```\nThat is how it looks."; expected: unchanged, as on the request
  // path. Suspected: src/history/prompt.ts sanitizePrompt (one message = one reply).
  test("fixed: AI SDK middleware prompt: the fenced example split over two assistant messages stays", () => {
    const prompt: LanguageModelV3Prompt = [
      { role: "user", content: [{ type: "text", text: "show me" }] },
      { role: "assistant", content: [{ type: "text", text: example }] },
      { role: "assistant", content: [{ type: "text", text: rest }] },
    ];
    expect(sanitizePrompt(prompt, {}, fixtureTools)).toBe(prompt);
  });

  // fixed (finding 7b): (same cause, OpenCode 2 route). Suspected: src/plugin/v2/context-hook.ts
  // sanitizeContext (each assistant message read alone).
  test("fixed: OpenCode 2 context: the fenced example split over two assistant messages stays", () => {
    const messages: V2Message[] = [
      { role: "user", content: [{ type: "text", text: "show me" }] },
      { role: "assistant", content: [{ type: "text", text: example }] },
      { role: "assistant", content: [{ type: "text", text: rest }] },
    ];
    expect(sanitizeContext(messages, {}, fixtureTools)).toEqual({ messages: 0, parts: 0 });
  });

  // fixed (finding 7c): (same cause, the other direction: markup left). A leak cut between two consecutive
  // assistant messages: the request path replaces it across both; the middleware notes the first
  // half and replays the second message's `"arguments":{"command":"rm -rf x"}}</tool_call>` as
  // written. Suspected: src/history/prompt.ts.
  test("fixed: AI SDK middleware prompt: a leak cut between two assistant messages leaves no markup", () => {
    const at = HERMES.indexOf('"arguments"');
    const prompt: LanguageModelV3Prompt = [
      { role: "user", content: [{ type: "text", text: "run it" }] },
      { role: "assistant", content: [{ type: "text", text: `Running it. ${HERMES.slice(0, at)}` }] },
      { role: "assistant", content: [{ type: "text", text: `${HERMES.slice(at)} Done.` }] },
    ];
    const out = sanitizePrompt(prompt, {}, fixtureTools);
    const texts = out.flatMap((m) => (m.role === "assistant" ? m.content.map((p) => (p.type === "text" ? p.text : "")) : []));
    expect(texts.join("")).not.toContain("rm -rf x");
    const body = { model: "m", max_tokens: 9, tools: MESSAGES_TOOLS, messages: [{ role: "user", content: "run it" }, { role: "assistant", content: `Running it. ${HERMES.slice(0, at)}` }, { role: "assistant", content: `${HERMES.slice(at)} Done.` }] };
    expect(escaped(request("/v1/messages", body).text)).not.toContain("rm -rf x");
  });
});

// fixed (finding 8): (low: the leak's tail replayed). A Responses assistant message whose leak runs from
// one output_text part into the next: each part is read apart (textPartsOf: `apart` for every
// Responses part), so the first part's half becomes the note and the second part goes back as
// `"arguments":{"command":"rm -rf x"}}</tool_call> done`: arguments and a closer the model will
// imitate. Expected: no markup residue (the tail cut, or noted). Suspected:
// src/adapters/request-history.ts textPartsOf (apart) with src/history/sanitize.ts.
test("fixed: Responses: a leak cut between two output_text parts leaves no residue in the second", () => {
  const at = HERMES.indexOf('"arguments"');
  const body = {
    model: "m",
    tools: RESPONSES_TOOLS,
    input: [
      { role: "user", content: "run it" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: `Sure. ${HERMES.slice(0, at)}` }, { type: "output_text", text: `${HERMES.slice(at)} done` }] },
      { role: "user", content: "go" },
    ],
  };
  const out = JSON.parse(request("/v1/responses", body).text);
  expect(JSON.stringify(out.input[1])).not.toContain("rm -rf x");
});

// ---------------------------------------------------------------------------------------------
// Hard negatives: only the replaced strings change
// ---------------------------------------------------------------------------------------------

describe("hard negatives (pass today): every other byte of the body stays", () => {
  test("chat: 1e400, a long decimal, -0, key order, \\u escapes, duplicate keys and a user/tool/system turn holding a leak", () => {
    const leak = JSON.stringify(`Doing.\n${DSML}\nDone.`);
    const quoted = JSON.stringify(HERMES);
    const raw =
      `{"z":1e400,"model":"m","a":0.1000000000000000055511151231257827,"n":-0,"s":"caf\\u00e9 \\ud83d\\ude00 \\u2028",` +
      `"tools":${JSON.stringify(CHAT_TOOLS)},"messages":[` +
      `{"role":"system","content":${quoted}},{"role":"user","content":${quoted},"role":"user"},` +
      `{"role":"assistant","content":${leak},"x":[1.0,2E+3]},` +
      `{"role":"tool","tool_call_id":"c","content":${quoted}},{"role":"user","content":"go"}],"model":"m2"}`;
    const body = JSON.parse(raw);
    const out = sanitizeRequestText("/v1/chat/completions", raw, body, OPTIONS);
    expect(out.removed).toBe(1);
    expect(out.text).toBe(raw.replace(leak, JSON.stringify(`Doing.\n${REMOVED_NOTE}\nDone.`)));
  });

  test("Messages: cache_control stays on the block whose text changed, images and a thinking block holding a leak untouched", () => {
    const body = {
      model: "m",
      max_tokens: 9,
      tools: MESSAGES_TOOLS,
      messages: [
        { role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }, { type: "text", text: HERMES }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: `I could write ${HERMES}`, signature: "sig" },
            { type: "text", text: "Intro.", cache_control: { type: "ephemeral" } },
            { type: "text", text: `Now: ${HERMES}`, cache_control: { type: "ephemeral", ttl: "1h" } },
          ],
        },
        { role: "user", content: "go" },
      ],
    };
    const out = JSON.parse(request("/v1/messages", body).text);
    const expected = JSON.parse(JSON.stringify(body));
    expected.messages[1].content[2] = { type: "text", text: `Now: ${REMOVED_NOTE}`, cache_control: { type: "ephemeral", ttl: "1h" } };
    expect(out).toEqual(expected);
  });

  test("chat reasoning_content and a Responses reasoning item holding a leak are left as written (only text the model showed is replayed as text)", () => {
    const chat = { model: "m", tools: CHAT_TOOLS, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "ok", reasoning_content: HERMES }, { role: "user", content: "go" }] };
    expect(request("/v1/chat/completions", chat).removed).toBe(0);
    const responses = { model: "m", tools: RESPONSES_TOOLS, input: [{ role: "user", content: "hi" }, { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: HERMES }] }, { role: "assistant", content: "ok" }, { role: "user", content: "go" }] };
    expect(request("/v1/responses", responses).removed).toBe(0);
  });

  test("the proxy: a body that is not JSON, and history.sanitize with retry.nudge both off, go up as the very same bytes", () => {
    const notJson = enc.encode(`{"model":"m","messages":[{"role":"assistant","content":${JSON.stringify(HERMES)}},]}`) as Uint8Array<ArrayBuffer>;
    expect(sanitizeRequestBody("/v1/chat/completions", notJson, { ...OPTIONS, correct: true }).body).toBe(notJson);
    const body = enc.encode(JSON.stringify({ model: "m", tools: CHAT_TOOLS, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: HERMES }] })) as Uint8Array<ArrayBuffer>;
    expect(sanitizeRequestBody("/v1/chat/completions", body, { parse: {}, sanitize: false, correct: false }).body).toBe(body);
  });

  test("the proxy with history.sanitize off but the correction on: the leak itself goes up as written", () => {
    const raw = JSON.stringify({ model: "m", tools: CHAT_TOOLS, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: `Doing. ${HERMES}` }, { role: "user", content: "go" }] });
    const out = sanitizeRequestBody("/v1/chat/completions", enc.encode(raw) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: false, correct: true });
    expect(out.removed).toBe(0);
    expect(JSON.parse(dec.decode(out.body)).messages.at(-2).content).toBe(`Doing. ${HERMES}`);
  });

  test("repairFetch with history.sanitize false sends the body byte for byte", async () => {
    const raw = JSON.stringify({ model: "m", tools: CHAT_TOOLS, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: `Doing.\n${DSML}` }, { role: "user", content: "go" }] });
    const sent: string[] = [];
    const base = (async (input: string | URL | Request, init?: RequestInit) => {
      sent.push(await new Request(input, init).text());
      return new Response(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] }), { headers: { "content-type": "application/json" } });
    }) as typeof fetch;
    await repairFetch({ history: { sanitize: false } }, base)("http://model.test/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: raw });
    await repairFetch({}, base)("http://model.test/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: raw });
    expect(sent[0]).toBe(raw);
    expect(sent[1]).toContain("dsml-fix: a malformed tool call was removed here");
  });

  test("AI SDK prompt: user and tool messages holding a leak, and a clean prompt, come back as the very same objects", () => {
    const prompt: LanguageModelV3Prompt = [
      { role: "system", content: HERMES },
      { role: "user", content: [{ type: "text", text: HERMES }] },
      { role: "assistant", content: [{ type: "reasoning", text: HERMES }, { type: "tool-call", toolCallId: "c", toolName: "bash", input: { command: "ls" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c", toolName: "bash", output: { type: "text", value: HERMES } }] },
    ];
    expect(sanitizePrompt(prompt, {}, fixtureTools)).toBe(prompt);
  });
});

test("hard negative (passes today): OpenCode 1.18 hook: a leak split over two text parts of one step is replaced; user text, reasoning and a tool's output holding a leak are untouched", async () => {
  const at = HERMES.indexOf('"arguments"');
  const messages = [
    { info: { role: "user", id: "u1" }, parts: [{ type: "text", text: HERMES }] },
    {
      info: { role: "assistant", id: "a1" },
      parts: [
        { type: "step-start" },
        { type: "reasoning", text: HERMES },
        { type: "tool", tool: "bash", state: { status: "completed", output: HERMES } },
        { type: "text", text: `Sure. ${HERMES.slice(0, at)}` },
        { type: "text", text: `${HERMES.slice(at)} done` },
      ],
    },
  ];
  const before = JSON.parse(JSON.stringify(messages));
  expect(await sanitizeHistory(messages as never, {})).toEqual({ messages: 1, parts: 2 });
  before[1].parts[3].text = `Sure. ${REMOVED_NOTE}`;
  before[1].parts[4].text = " done";
  expect(messages).toEqual(before);
});

test("hard negative (passes today): the request pass twice == once on the three shapes (no second note, no second correction)", () => {
  const leak = `Doing. ${HERMES}`;
  const bodies: [string, Record<string, unknown>][] = [
    ["/v1/chat/completions", { model: "m", tools: CHAT_TOOLS, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: leak }, { role: "user", content: "go" }] }],
    ["/v1/messages", { model: "m", max_tokens: 9, system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }], tools: MESSAGES_TOOLS, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "text", text: leak }] }, { role: "user", content: "go" }] }],
    ["/v1/responses", { model: "m", tools: RESPONSES_TOOLS, input: [{ role: "user", content: "hi" }, { role: "assistant", content: leak }, { role: "user", content: "go" }] }],
  ];
  for (const [path, body] of bodies) {
    const once = request(path, body, { ...OPTIONS, correct: true });
    expect({ path, removed: once.removed, correction: once.correction }).toEqual({ path, removed: 1, correction: "unexecuted-call" });
    const twice = sanitizeRequestText(path, once.text, JSON.parse(once.text), { ...OPTIONS, correct: true });
    expect({ path, removed: twice.removed, correction: twice.correction, same: twice.text === once.text }).toEqual({ path, removed: 0, correction: null, same: true });
  }
});

describe("hard negative (passes today): a large body is read in linear work", () => {
  // Bounded, no clock: 4000 assistant turns (about 8 MB) each with a DSML leak are all replaced
  // and nothing else changes; a quadratic pass would trip the 60 s test timeout.
  test("8 MB chat body, 4000 leaks", () => {
    const messages: unknown[] = [];
    for (let i = 0; i < 4000; i++) messages.push({ role: "user", content: `q${i} ${"x".repeat(1000)}` }, { role: "assistant", content: `Sure.\n${DSML}\n${"y".repeat(800)}` });
    const body = { model: "m", tools: CHAT_TOOLS, messages };
    const raw = JSON.stringify(body);
    expect(raw.length).toBeGreaterThan(7_000_000);
    const out = sanitizeRequestText("/v1/chat/completions", raw, body, OPTIONS);
    expect(out.removed).toBe(4000);
    expect(out.text).toBe(raw.replaceAll(JSON.stringify(`Sure.\n${DSML}\n`).slice(0, -1), JSON.stringify(`Sure.\n${REMOVED_NOTE}\n`).slice(0, -1)));
  }, 60_000);
});
