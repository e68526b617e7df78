// The prefill a reply is read after is the one the model continues: the last assistant turn as it
// goes upstream, after history sanitizing rewrote it (review 44, finding 2). The fetch adapter read
// it from the client's body, before sanitizing: markup the sanitizer replaced by its note could
// open documentation there (a `<code>` or a backtick inside the removed call) that the model never
// saw, and a real call it then wrote stayed text. Markup is Hermes `<tool_call>` JSON: no DSML bytes.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { repairMiddleware } from "../../src/adapters/middleware.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { CALL, CHAT_TOOLS, MESSAGES_TOOLS, READ_TOOL, textStreamParts } from "./prefill-support.ts";
import { JSON_HEADERS, type Json, anthropicTextStream, chunkedFetch, dataEvents, encode } from "./wire-support.ts";

const ASK = "Read the file.";
/** A call the model left unfinished, its value holding what would open documentation in the client's text. */
const CUT = '<tool_call>{"name":"read","arguments":{"path":"';
const OPENERS: [string, string][] = [
  ["an HTML code element", `Calling: ${CUT}<code>`],
  ["a backtick", `Calling: ${CUT}a\``],
  ["an HTML comment", `Calling: ${CUT}<!--`],
];
const REPLY = `\n${CALL}`;

type Body = "string" | "bytes";

/** What a chat JSON answer continuing `prefill` with `content` comes back as, and the prefill the upstream got. */
async function chat(prefill: string, content: string, form: Body = "string", sanitize = true): Promise<{ calls: string[]; sent: string }> {
  const answer = { id: "c", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] };
  const upstream = chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS);
  const json = JSON.stringify({ model: "deepseek-chat", tools: CHAT_TOOLS, messages: [{ role: "user", content: ASK }, { role: "assistant", content: prefill, prefix: true }] });
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: form === "string" ? json : encode(json) };
  const res = await repairFetch({ history: { sanitize } }, upstream)("http://m.test/beta/chat/completions", init);
  const out = (await res.json()) as { choices: { message: Json }[] };
  const sentBody = upstream.seen[0]!.init!.body;
  const sentText = typeof sentBody === "string" ? sentBody : new TextDecoder().decode(sentBody as Uint8Array);
  return { calls: ((out.choices[0]!.message.tool_calls as Json[] | undefined) ?? []).map((c) => c.function.name), sent: String(JSON.parse(sentText).messages[1].content) };
}

describe("fetch: the reply is read after the prefill that went upstream", () => {
  for (const [name, prefill] of OPENERS) {
    for (const form of ["string", "bytes"] as const) {
      test(`chat, ${form} body: ${name} only the removed call held opens nothing for the reply`, async () => {
        const out = await chat(prefill, REPLY, form);
        expect(out.sent).toBe(`Calling: ${REMOVED_NOTE}`);
        expect(out.calls).toEqual(["read"]);
      });
    }
    test(`chat: with history sanitizing off the prefill goes up as written, and ${name} in it holds the reply's call`, async () => {
      const out = await chat(prefill, REPLY, "string", false);
      expect(out.sent).toBe(prefill);
      expect(out.calls).toEqual([]);
    });
  }

  test("Anthropic stream: the same, read after the sanitized turn", async () => {
    const upstream = chunkedFetch([encode(anthropicTextStream(REPLY, 5))]);
    const body = { model: "m", max_tokens: 9, stream: true, tools: MESSAGES_TOOLS, messages: [{ role: "user", content: ASK }, { role: "assistant", content: `Calling: ${CUT}<code>` }] };
    const res = await repairFetch({}, upstream)("http://m.test/v1/messages", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const events = dataEvents(await res.text());
    expect(events.filter((e) => e.type === "content_block_start" && e.content_block.type === "tool_use").map((e) => e.content_block.name)).toEqual(["read"]);
  });

  // Hard negatives: what the sanitized prefill still opens holds the reply's example.
  const held: [string, string, string][] = [
    ["a fence after the removed call", `Calling:\n${CUT}a"}\n\`\`\`\n`, `${CALL}\n\`\`\``],
    ["a fence after a removed call cut off mid-value", `Calling:\n${CUT}\n\n\`\`\`sh\n`, `${CALL}\n\`\`\``],
    ["an indented code block after the removed call", `Calling:\n${CUT}a"}\n\n    `, `${CALL}\n`],
  ];
  for (const [name, prefill, reply] of held) {
    test(`chat: ${name} still holds the reply's example`, async () => {
      const out = await chat(prefill, reply);
      expect(out.sent.includes(REMOVED_NOTE)).toBe(true);
      expect(out.calls).toEqual([]);
    });
  }
});

describe("AI SDK middleware: the prefill is read from the sanitized prompt", () => {
  const params = (prefill: string) =>
    ({ prompt: [{ role: "user", content: [{ type: "text", text: ASK }] }, { role: "assistant", content: [{ type: "text", text: prefill }] }], tools: [READ_TOOL] }) as unknown as LanguageModelV3CallOptions;

  for (const [name, prefill] of OPENERS) {
    test(`stream: ${name} only the removed call held opens nothing for the reply`, async () => {
      let seen: LanguageModelV3CallOptions | undefined;
      const parts = textStreamParts([REPLY]);
      const mock = new MockLanguageModelV3({
        doStream: async (options) => {
          seen = options;
          return { stream: convertArrayToReadableStream(parts) };
        },
      });
      const { stream } = await wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }).doStream(params(prefill));
      const out = await convertReadableStreamToArray(stream);
      const last = seen!.prompt.at(-1)!.content as { text: string }[];
      expect(last.map((p) => p.text).join("")).toBe(`Calling: ${REMOVED_NOTE}`);
      expect(out.filter((p) => p.type === "tool-call").length).toBe(1);
    });
  }
});
