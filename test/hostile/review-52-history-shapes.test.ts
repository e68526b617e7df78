/**
 * Review 52 (hostile, tests only): hard negatives (all pass on main) for the request shapes the
 * history pass rewrites (src/adapters/request-history.ts through the proxy, src/proxy/history.ts):
 * an assistant turn whose only text is the leak gets the note (never an empty text), markup after
 * a real tool_use block is replaced with the block and its result untouched, a thinking block's
 * bytes stay, content the pass does not read (null, numbers, unknown part types, a refusal) goes
 * up as sent, and one reply made of many parts costs linear work. Kept because each is a way a
 * sanitized request could be refused by the API or lose the client's data.
 */
import { describe, expect, test } from "bun:test";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { sanitizeRequestBody } from "../../src/proxy/history.ts";
import { live } from "../golden/notation.ts";
import { countWork } from "../support/work.ts";

const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const DSML = live(`<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">rm -rf x</{D}parameter>\n</{D}invoke>\n</{D}tool_calls>`);
const QWEN = "<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf x\n</parameter>\n</function>\n</tool_call>";
const HERMES = '<tool_call>{"name":"bash","arguments":{"command":"rm -rf x"}}</tool_call>';
type Json = Record<string, any>;

function pass(path: string, body: Json, correct = false): { sent: Json; raw: string; removed: number } {
  const out = sanitizeRequestBody(path, new TextEncoder().encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>, { parse: {}, sanitize: true, correct });
  const raw = new TextDecoder().decode(out.body);
  return { sent: JSON.parse(raw), raw, removed: out.removed };
}

describe("hard negatives: a sanitized request stays one the API takes", () => {
  test("Messages: [thinking, text, tool_use, text holding only the leak]: the last text is the note, every other block as sent", () => {
    const thinking = { type: "thinking", thinking: `plan: ${DSML}`, signature: "c2lnbmF0dXJl+/==" };
    const toolUse = { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } };
    const body = {
      model: "m",
      max_tokens: 9,
      tools: [{ name: "bash", input_schema: SCHEMA }],
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [thinking, { type: "text", text: "Sure." }, toolUse, { type: "text", text: DSML, cache_control: { type: "ephemeral" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: QWEN }] },
      ],
    };
    const { sent, raw, removed } = pass("/v1/messages", body, true);
    expect(removed).toBe(1);
    expect(sent.messages[1].content).toEqual([thinking, { type: "text", text: "Sure." }, toolUse, { type: "text", text: REMOVED_NOTE, cache_control: { type: "ephemeral" } }]);
    expect(sent.messages[2]).toEqual(body.messages[2]);
    expect(raw).toContain(JSON.stringify(thinking));
  });

  test("chat: content null with tool_calls, unknown part types and a numeric text go up as sent; a part holding only the leak becomes the note", () => {
    const body = {
      model: "m",
      tools: [{ type: "function", function: { name: "bash", parameters: SCHEMA } }],
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
        { role: "tool", tool_call_id: "a", content: DSML },
        { role: "assistant", content: [{ type: "weird", text: DSML }, { type: "text", text: 5 }, { type: "refusal", refusal: HERMES }, { type: "text", text: QWEN }] },
        { role: "user", content: "?" },
      ],
    };
    const { sent } = pass("/v1/chat/completions", body);
    expect(sent.messages.slice(0, 3)).toEqual(body.messages.slice(0, 3));
    expect(sent.messages[3].content).toEqual([{ type: "weird", text: DSML }, { type: "text", text: 5 }, { type: "refusal", refusal: HERMES }, { type: "text", text: REMOVED_NOTE }]);
  });

  test("Responses: an assistant turn whose string content is only the leak becomes the note; annotations and a refusal part stay", () => {
    const annotations = [{ type: "url_citation", start_index: 0, end_index: 1, url: "https://a.example", title: "a" }];
    const body = {
      model: "m",
      tools: [{ type: "function", name: "bash", parameters: SCHEMA }],
      input: [
        { role: "user", content: "go" },
        { role: "assistant", content: HERMES },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: `a ${DSML}`, annotations }, { type: "refusal", refusal: DSML }] },
        { role: "user", content: "?" },
      ],
    };
    const { sent } = pass("/v1/responses", body);
    expect(sent.input[1]).toEqual({ role: "assistant", content: REMOVED_NOTE });
    expect(sent.input[2].content).toEqual([{ type: "output_text", text: `a ${REMOVED_NOTE}`, annotations }, { type: "refusal", refusal: DSML }]);
  });
});

describe("hard negative: one reply made of many parts is read in linear work", () => {
  // Counted work (charCodeAt and slice), never a clock: four times the parts cost at most about
  // four times the work, on each wire's way of cutting one reply (Messages blocks with a server
  // tool's result between them, Responses message items with an MCP call between them).
  const messages = (n: number) => ({
    model: "m",
    max_tokens: 9,
    tools: [{ name: "bash", input_schema: SCHEMA }],
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: Array.from({ length: n }, (_, i) =>
          i % 2 ? { type: "text", text: `Sure.\n${DSML}` } : { type: "web_fetch_tool_result", tool_use_id: `s${i}`, content: { type: "web_fetch_result", url: "u", content: { type: "document", source: { type: "text", media_type: "text/plain", data: `x${i}` } } } },
        ),
      },
      { role: "user", content: "?" },
    ],
  });
  const responses = (n: number) => ({
    model: "m",
    tools: [{ type: "function", name: "bash", parameters: SCHEMA }],
    input: [
      { role: "user", content: "go" },
      ...Array.from({ length: n }, (_, i) => [
        { type: "message", role: "assistant", content: [{ type: "output_text", text: `Sure.\n${DSML}` }] },
        { type: "mcp_call", id: `m${i}`, name: "x", server_label: "s", arguments: "{}", output: `o${i}` },
      ]).flat(),
      { role: "user", content: "?" },
    ],
  });
  for (const [name, path, make] of [
    ["Messages blocks", "/v1/messages", messages],
    ["Responses items", "/v1/responses", responses],
  ] as const) {
    test(name, () => {
      const work = (n: number) => {
        const bytes = new TextEncoder().encode(JSON.stringify(make(n))) as Uint8Array<ArrayBuffer>;
        let removed = 0;
        const counted = countWork(() => void (removed = sanitizeRequestBody(path, bytes, { parse: {}, sanitize: true, correct: true }).removed));
        expect(removed).toBeGreaterThan(0);
        return counted;
      };
      const small = work(150);
      expect(work(600)).toBeLessThan(small * 5);
    });
  }
});
