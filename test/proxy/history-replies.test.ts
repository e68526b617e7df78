/**
 * The request side's history (src/adapters/request-history.ts, used by the proxy and the fetch
 * adapter) reads the text parts of one replayed reply as one text, as the live repair read that
 * reply (review 43): a fence opened in one part keeps the next part's example as written, on every
 * wire, and a reply's correction comes from all its parts. A Responses reply is every assistant
 * message item between two given items.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { sanitizeRequestText } from "../../src/adapters/request-history.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";

const CALL = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
const FENCE = "Example:\n```\n";
const EXAMPLE = `${CALL}\n\`\`\`\n`;
const OPTIONS = { parse: {}, sanitize: true, correct: true };
const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const user = (text: string) => ({ role: "user", content: text });

function sanitized(path: string, body: Record<string, unknown>) {
  const text = JSON.stringify(body);
  const out = sanitizeRequestText(path, text, body, OPTIONS);
  return { ...out, same: out.text === text, json: JSON.parse(out.text) as Record<string, unknown[]> };
}

const chat = (content: unknown) => ({ model: "m", tools: [{ type: "function", function: { name: "bash", parameters: SCHEMA } }], messages: [user("show me"), { role: "assistant", content }, user("thanks")] });
const messages = (content: unknown) => ({ model: "m", max_tokens: 9, tools: [{ name: "bash", input_schema: SCHEMA }], messages: [user("show me"), { role: "assistant", content }, user("thanks")] });
const responses = (...input: unknown[]) => ({ model: "m", tools: [{ type: "function", name: "bash", parameters: SCHEMA }], input: [user("show me"), ...input, user("thanks")] });
const outputText = (text: string) => ({ type: "output_text", text, annotations: [] });
const message = (...texts: string[]) => ({ type: "message", role: "assistant", content: texts.map(outputText) });

describe("a fenced example split across the parts of one reply goes up as the client sent it", () => {
  test("chat: assistant content parts", () => {
    const out = sanitized("/v1/chat/completions", chat([{ type: "text", text: FENCE }, { type: "text", text: EXAMPLE }]));
    expect([out.same, out.removed, out.correction]).toEqual([true, 0, null]);
  });

  test("Messages: text blocks, also with a block of another kind between them", () => {
    for (const content of [
      [{ type: "text", text: FENCE }, { type: "text", text: EXAMPLE }],
      [{ type: "text", text: FENCE }, { type: "tool_use", id: "t1", name: "bash", input: { command: "pwd" } }, { type: "text", text: EXAMPLE }],
    ]) {
      const out = sanitized("/v1/messages", messages(content));
      expect([out.same, out.removed, out.correction]).toEqual([true, 0, null]);
    }
  });

  test("Responses: output_text parts of one message item, and message items of one reply", () => {
    for (const items of [[message(FENCE, EXAMPLE)], [message(FENCE), message(EXAMPLE)], [message(FENCE), { type: "reasoning", id: "rs", summary: [] }, message(EXAMPLE)]]) {
      const out = sanitized("/v1/responses", responses(...items));
      expect([out.same, out.removed, out.correction]).toEqual([true, 0, null]);
    }
  });

  // Hard negative: a given item between two message items ends the reply, so the second item is
  // a reply of its own whose example is outside any fence: a leak, replaced and corrected.
  test("Responses: a message item after something given is another reply", () => {
    const out = sanitized("/v1/responses", responses(message(FENCE), user("go on"), message(EXAMPLE)));
    expect([out.removed, out.correction]).toEqual([1, "unexecuted-call"]);
    expect(out.json.input!.at(-2)).toEqual(message(`${REMOVED_NOTE}\n\`\`\`\n`));
  });
});

describe("each leak is replaced in the part where it stands", () => {
  test("Messages: the other blocks go up as sent", () => {
    const out = sanitized("/v1/messages", messages([{ type: "text", text: "Running.\n" }, { type: "text", text: `${CALL}\nDone.` }]));
    expect([out.removed, out.turns, out.correction]).toEqual([1, 1, "unexecuted-call"]);
    expect((out.json.messages![1] as { content: unknown }).content).toEqual([{ type: "text", text: "Running.\n" }, { type: "text", text: `${REMOVED_NOTE}\nDone.` }]);
  });

  test("Messages: markup that runs from one text block into the next is one leak", () => {
    const out = sanitized("/v1/messages", messages([{ type: "text", text: 'Running: <tool_call>{"name":"bash",' }, { type: "text", text: '"arguments":{"command":"ls"}}</tool_call> done' }]));
    expect([out.removed, out.correction]).toEqual([1, "unexecuted-call"]);
    expect((out.json.messages![1] as { content: unknown }).content).toEqual([{ type: "text", text: `Running: ${REMOVED_NOTE}` }, { type: "text", text: " done" }]);
  });

  test("Responses: a leak in the first message item of the newest reply is corrected though a later item is clean", () => {
    const out = sanitized("/v1/responses", responses(message(`Running.\n${CALL}`), message("Done.")));
    expect([out.removed, out.turns, out.correction]).toEqual([1, 1, "unexecuted-call"]);
    expect(out.json.input!.slice(1, 3)).toEqual([message(`Running.\n${REMOVED_NOTE}`), message("Done.")]);
  });

  test("Responses: a call item after the reply's messages still means the model answered: no correction", () => {
    const call = { type: "function_call", call_id: "c1", name: "bash", arguments: '{"command":"ls"}' };
    const body = responses(message(`Running.\n${CALL}`), call);
    body.input.pop(); // the reply is the newest thing in the request
    const out = sanitized("/v1/responses", body);
    expect([out.removed, out.correction]).toEqual([1, null]);
  });
});

describe("the fetch adapter's request side reads them the same way", () => {
  test("Messages: the split example goes up byte for byte; a leak in a later block is replaced", async () => {
    const seen: string[] = [];
    const upstream = (async (_url: string, init: RequestInit) => {
      seen.push(String(init.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : init.body));
      return new Response("{}", { headers: { "content-type": "application/json" } });
    }) as unknown as typeof fetch;
    const post = (body: object) => repairFetch({}, upstream)("http://127.0.0.1:1/v1/messages", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const split = messages([{ type: "text", text: FENCE }, { type: "text", text: EXAMPLE }]);
    await post(split);
    expect(seen[0]).toBe(JSON.stringify(split));
    await post(messages([{ type: "text", text: "Running.\n" }, { type: "text", text: `${CALL}\nDone.` }]));
    expect(JSON.parse(seen[1]!).messages[1].content).toEqual([{ type: "text", text: "Running.\n" }, { type: "text", text: `${REMOVED_NOTE}\nDone.` }]);
  });
});
