// Review 44, rule 1: a reply that continues the request's last assistant turn (a prefill) is read
// after that turn's text (src/wires/prefill.ts, src/adapters/call-engines.ts prefillRead). Markup
// is Hermes `<tool_call>` JSON: no DSML bytes.
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { JSON_HEADERS, type Json, chunkedFetch, encode, postInit } from "../adapters/wire-support.ts";

const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const CHAT_TOOLS = [{ type: "function", function: { name: "read", parameters: SCHEMA } }];
const CALL = '<tool_call>{"name":"read","arguments":{"path":"/etc/passwd"}}</tool_call>';
const ASK = "Show me, in a code block, what a read call looks like.";
const user = { role: "user", content: ASK };

/** The repaired JSON answer of a DeepSeek prefix completion continuing `prefill` with `content`. */
async function prefixJson(prefill: string, content: string): Promise<{ content: unknown; calls: string[] }> {
  const answer = { id: "c", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] };
  const upstream = chunkedFetch([encode(JSON.stringify(answer))], JSON_HEADERS);
  const body = { model: "deepseek-chat", tools: CHAT_TOOLS, messages: [user, { role: "assistant", content: prefill, prefix: true }] };
  const res = await repairFetch({}, upstream)("http://m.test/beta/chat/completions", postInit(body));
  const out = (await res.json()) as { choices: { message: Json }[] };
  const message = out.choices[0]!.message;
  return { content: message.content, calls: ((message.tool_calls as Json[] | undefined) ?? []).map((c) => c.function.name) };
}

/** The last assistant content the upstream was sent for a chat request with these messages (the answer is plain text). */
async function upstreamSaw(messages: Json[]): Promise<Json[]> {
  let sent: Json = {};
  const upstream = (async (_input: unknown, init?: RequestInit) => {
    sent = JSON.parse(String(init?.body));
    const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] };
    return new Response(JSON.stringify(answer), { headers: JSON_HEADERS });
  }) as unknown as typeof fetch;
  await repairFetch({}, upstream)("http://m.test/v1/chat/completions", postInit({ model: "m", tools: CHAT_TOOLS, messages }));
  return sent.messages as Json[];
}

const NOTE_PREFIX = "[dsml-fix: a malformed tool call was removed here";
const BROKEN = '<tool_call>{"name":"read","arguments":{"path":"a"}';

describe("history sanitizing eats the line break and layout after a malformed call it removes", () => {
  // Severity: lost text (medium-low: the replayed turn, and a prefill the model continues, lose
  // their line structure: a fence line, a blank line and an indented code block after the broken
  // call are glued to the note, so the model continues text that is no longer what it wrote).
  // With a prefill this also splits the two readings: the reply is read after the ORIGINAL
  // prefill (src/adapters/fetch.ts planRequest reads `body` before sanitizeHistory rewrites what
  // goes up), where the fence is open, while the model continues the sanitized one, where it is
  // not; a real call it then writes stays text (missed repair; the other direction, a fence only
  // the model sees, was not found: sanitizing only removes characters).
  // Suspected: the unclosed call's span as the history reader replaces it (src/adapters/request-
  // history.ts redactTurn / src/history/sanitize.ts): the candidate's span runs to the next
  // non-blank line, so the whitespace after the markup is replaced with it. Expected: only the
  // markup is replaced; the line break (and blank lines, indentation) after it stay.
  test("a fence line after the broken call stays a fence line", async () => {
    const turn = `Calling:\n${BROKEN}\n\`\`\`\nx\n\`\`\`\n`;
    const sent = await upstreamSaw([user, { role: "assistant", content: turn }, { role: "user", content: "go on" }]);
    const content = String(sent[1]!.content);
    expect(content.startsWith(`Calling:\n${NOTE_PREFIX}`)).toBe(true);
    expect(content.endsWith("]\n```\nx\n```\n")).toBe(true);
  });

  test("a blank line and an indented code block after the broken call are kept", async () => {
    const turn = `Calling:\n${BROKEN}\n\n    code\n`;
    const sent = await upstreamSaw([user, { role: "assistant", content: turn }, { role: "user", content: "go on" }]);
    expect(String(sent[1]!.content).endsWith("]\n\n    code\n")).toBe(true);
  });

  test("a prefill ending in a broken call then a fence goes up with its fence line", async () => {
    const prefill = `Calling:\n${BROKEN}\n\`\`\`\n`;
    const sent = await upstreamSaw([user, { role: "assistant", content: prefill, prefix: true }]);
    expect(String(sent[1]!.content).endsWith("]\n```\n")).toBe(true);
  });
});

describe("hard negatives (pass today): a prefill that ends mid-marker, in a container or in an open block holds", () => {
  // The prefill is read with flush, yet a fence, comment, blockquote marker, table row or HTML
  // opener split between the prefill and the reply still keeps the reply's example from running.
  const cases: [string, string][] = [
    ["Example:\n``", `\`\n${CALL}\n\`\`\``],
    ["Example:\n`", `\`\`\n${CALL}\n\`\`\``],
    ["Example:\n~~", `~\n${CALL}\n~~~`],
    ["Here:\r\n```", `\r\n${CALL}\r\n\`\`\``],
    ["Example:\n\n    ", `${CALL}\n`],
    ["Example:\n\n  ", `  ${CALL}\n`],
    ["Example:\n<!-", `-\n${CALL}\n-->`],
    ["Quote:\n>", ` ${CALL}`],
    ["Example: `", `${CALL}\` done`],
    ["Example: <code>", `${CALL}</code> done`],
    ["Example:\n<pr", `e>\n${CALL}\n</pre>`],
    ["Here:\n<script>", `\n${CALL}\n</script>`],
    ["| a | b |\n| - | - |\n| ", `${CALL} | x |`],
    ["<details>\n\n```\n", `${CALL}\n\`\`\`\n</details>`],
    [`Here:\n\`\`\`\n${"line\n".repeat(5000)}`, `${CALL}\n\`\`\``],
  ];
  for (const [prefill, reply] of cases) {
    test(JSON.stringify(prefill).slice(0, 50), async () => {
      expect(await prefixJson(prefill, reply)).toEqual({ content: reply, calls: [] });
    });
  }
  test("control: after a prefill that opens nothing the call runs", async () => {
    expect((await prefixJson("Sure.", CALL)).calls).toEqual(["read"]);
  });
});
