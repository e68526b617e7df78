/**
 * Review 41, rule 6 (repairFetch's request-body history pass: src/adapters/request-history.ts,
 * json-splice.ts, request-body.ts): only the rewritten strings may differ from what the client
 * sent; every other byte goes up as it was.
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { block, live } from "../golden/notation.ts";

const URL_CHAT = "http://model.test/v1/chat/completions";
const BASH_TOOL = { type: "function", function: { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } } };
const LEAK = live(block("tool_calls", [["bash", [["command", "ls"]]]]));

function recorder(): { base: typeof fetch; sent: Uint8Array[] } {
  const sent: Uint8Array[] = [];
  const base = async (input: string | URL | Request, init?: RequestInit) => {
    sent.push(new Uint8Array(await new Request(input, init).arrayBuffer()));
    return new Response(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] }), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { base: base as typeof fetch, sent };
}

const body = (user: string) => `{"model":"m","tools":${JSON.stringify([BASH_TOOL])},"messages":[{"role":"user","content":${JSON.stringify(user)}},{"role":"assistant","content":${JSON.stringify(`Doing.\n${LEAK}`)}}]}`;

describe("bytes outside the rewritten string", () => {
  // Severity: text-loss (low: request side). Likely: src/adapters/request-body.ts (the bytes are
  // decoded with a replacing TextDecoder and withBody re-encodes the whole spliced text), so bytes
  // the client sent that are not valid UTF-8 (here in the user's message, far from the rewritten
  // assistant string) go up as U+FFFD (EF BF BD) instead of as sent. Expected: the bytes before
  // the rewritten string are the client's own.
  test("invalid UTF-8 in another message is sent as the client wrote it", async () => {
    const text = body("AB");
    const bytes = new TextEncoder().encode(text);
    const at = text.indexOf("AB");
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    const { base, sent } = recorder();
    await repairFetch({}, base)(URL_CHAT, { method: "POST", headers: { "content-type": "application/json" }, body: bytes });
    expect(sent).toHaveLength(1);
    const out = sent[0]!;
    // The history pass did run (the assistant's leak was replaced)...
    expect(new TextDecoder().decode(out)).not.toContain(live("{D}"));
    // ...and the prefix up to the assistant's content is byte for byte what was sent.
    const prefix = new TextEncoder().encode(text.slice(0, text.indexOf('"Doing.')));
    expect([...out.subarray(0, prefix.length)]).toEqual([...bytes.subarray(0, prefix.length)]);
  });
});

describe("hard negatives (pass today)", () => {
  test("escaped surrogates around the leak: the spliced body is valid JSON with the note, the rest as sent", async () => {
    const leak = JSON.stringify(LEAK).slice(1, -1);
    const text = `{"model":"m","tools":${JSON.stringify([BASH_TOOL])},"messages":[{"role":"user","content":"\\ud800 x"},{"role":"assistant","content":"\\ud83d\\ude00 Doing.\\n${leak}\\udc00"}]}`;
    const { base, sent } = recorder();
    await repairFetch({}, base)(URL_CHAT, { method: "POST", headers: { "content-type": "application/json" }, body: text });
    const out = new TextDecoder().decode(sent[0]!);
    const parsed = JSON.parse(out);
    expect(parsed.messages[0].content).toBe("\ud800 x");
    expect(parsed.messages[1].content.startsWith("\ud83d\ude00 Doing.\n")).toBe(true);
    expect(parsed.messages[1].content.endsWith("\udc00")).toBe(true);
    expect(out.slice(0, out.indexOf('"assistant"'))).toBe(text.slice(0, text.indexOf('"assistant"')));
  });

  test("duplicate messages keys: the last (the one JSON.parse keeps) is rewritten, the first left as sent", async () => {
    const assistant = JSON.stringify({ role: "assistant", content: `Doing.\n${LEAK}` });
    const text = `{"model":"m","tools":${JSON.stringify([BASH_TOOL])},"messages":[${assistant}],"messages":[{"role":"user","content":"x"},${assistant}]}`;
    const { base, sent } = recorder();
    await repairFetch({}, base)(URL_CHAT, { method: "POST", headers: { "content-type": "application/json" }, body: text });
    const out = new TextDecoder().decode(sent[0]!);
    expect(JSON.parse(out).messages[1].content).not.toContain(live("{D}"));
    expect(out.slice(0, out.indexOf('"messages"') + 12 + assistant.length)).toBe(text.slice(0, text.indexOf('"messages"') + 12 + assistant.length));
  });
});
