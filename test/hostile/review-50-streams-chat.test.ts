// Review 50 (hostile, tests only): stream invariants on the chat-completions wire, as property
// tests. A reply made of a golden fixture between prose (multi-byte characters, CR) streams as
// content deltas, with DeepSeek reasoning deltas first, usage-only chunks (`choices: []`) anywhere,
// an `n > 1` second choice interleaved (in the same chunk as choice 0 or its own, listed first or
// second), a native tool call before the text, and every kind of end (stop, length,
// content_filter, an `error` finish, an error chunk, no [DONE]). It is written in every legal SSE
// framing, read under the default and small bufferLimit values, and sent whole and cut at seeded random byte offsets and inside every multi-byte
// character, CRLF and `data:` field name. Invariants: the client reads the same calls and text every
// way; choice 0 reads as the engine (whole, and at a cut end what it holds shown as written);
// choice 1 and the reasoning are never lost; the output framing stays valid. Seeded, bounded.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BUFFER_LIMITS, type Framing, FRAMINGS, type Json, URLS, byteCuts, cutAt, deltas, encode, readSse, reference, repaired, replyArb, show, trickyOffsets, writeSse } from "./review-50-streams-support.ts";
import { fixtureTools } from "../golden/tools.ts";

const TOOLS = fixtureTools.map((t) => ({ type: "function", function: { name: t.name, parameters: t.parameters } }));
const ENVELOPE = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "deepseek-chat" };
const END_KINDS = ["stop", "length", "content_filter", "error", "error-chunk", "no-done"] as const;
type End = (typeof END_KINDS)[number];
const CUT: ReadonlySet<End> = new Set(["content_filter", "error", "error-chunk"]);
const NATIVE = { index: 0, id: "call_native", type: "function", function: { name: "glob", arguments: '{"pattern":"NATIVE"}' } };

interface ChatCase {
  text: string;
  id: string;
  second?: string;
  reasoning?: string;
  usageAt: number[];
  native: boolean;
  size: number;
  end: End;
  framing: Framing;
  /** How the two choices share chunks: 0 their own chunks, 1 one chunk choice 0 first, 2 one chunk choice 1 first. */
  mix: number;
  bufferLimit?: number;
}

const chatCase: fc.Arbitrary<ChatCase> = fc
  .record({
    reply: replyArb,
    second: fc.option(replyArb, { nil: undefined }),
    reasoning: fc.option(fc.constantFrom("Let me think about it.", "\u6211\u5728\u60f3\u3002 ok", "Use read; \uD83D\uDE00 fine."), { nil: undefined }),
    usageAt: fc.array(fc.nat(40), { maxLength: 3 }),
    native: fc.boolean(),
    size: fc.integer({ min: 1, max: 9 }),
    end: fc.constantFrom(...END_KINDS),
    framing: fc.constantFrom(...FRAMINGS),
    mix: fc.integer({ min: 0, max: 2 }),
    bufferLimit: fc.constantFrom(...BUFFER_LIMITS),
  })
  .map(({ reply, second, ...rest }) => ({ ...rest, text: reply.text, id: reply.id, ...(second ? { second: second.text } : {}) }));

function chunk(choices: Json[], extra: Json = {}): Json {
  return { ...ENVELOPE, choices, ...extra };
}

function chatBody(c: ChatCase): string {
  const out: Json[] = [chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])];
  if (c.reasoning) for (const r of deltas(c.reasoning, c.size)) out.push(chunk([{ index: 0, delta: { reasoning_content: r }, finish_reason: null }]));
  if (c.native) out.push(chunk([{ index: 0, delta: { tool_calls: [NATIVE] }, finish_reason: null }]));
  const zero = deltas(c.text, c.size);
  const one = c.second === undefined ? [] : deltas(c.second, c.size + 1);
  for (let i = 0; i < Math.max(zero.length, one.length); i++) {
    const a = zero[i] !== undefined ? { index: 0, delta: { content: zero[i] }, finish_reason: null } : undefined;
    const b = one[i] !== undefined ? { index: 1, delta: { content: one[i] }, finish_reason: null } : undefined;
    if (c.mix === 0 || !a || !b) {
      if (a) out.push(chunk([a]));
      if (b) out.push(chunk([b]));
    } else out.push(chunk(c.mix === 1 ? [a, b] : [b, a]));
    if (c.usageAt.includes(i)) out.push(chunk([], { usage: null }));
  }
  const finish = c.end === "error-chunk" || c.end === "no-done" ? (c.end === "no-done" ? "stop" : null) : c.end;
  if (c.end === "error-chunk") out.push({ error: { message: "upstream failed", code: 502 } });
  if (finish !== null) {
    const choices = [{ index: 0, delta: {}, finish_reason: finish }];
    if (c.second !== undefined) choices.push({ index: 1, delta: {}, finish_reason: "stop" });
    out.push(chunk(choices));
  }
  out.push(chunk([], { usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } }));
  return writeSse(c.end === "no-done" ? out : [...out, "[DONE]"], c.framing, false);
}

interface ChoiceView {
  text: string;
  reasoning: string;
  calls: { tool: string; input: unknown }[];
  finish: unknown;
}

/** What an OpenAI client rebuilds per choice; a framing problem or unreadable chunk is thrown. */
function readChat(raw: string): { choices: Record<number, ChoiceView>; done: boolean; usage: unknown } {
  const { events, problem } = readSse(raw);
  if (problem) throw new Error(`framing: ${problem}`);
  const choices: Record<number, ChoiceView> = {};
  const slots = new Map<string, { name: string; args: string }>();
  let done = false;
  let usage: unknown;
  for (const e of events) {
    if (e.data === "[DONE]") {
      done = true;
      continue;
    }
    if (done) throw new Error("an event after [DONE]");
    const j = JSON.parse(e.data) as Json;
    if (j.usage) usage = j.usage;
    for (const ch of (j.choices ?? []) as Json[]) {
      const v = (choices[ch.index] ??= { text: "", reasoning: "", calls: [], finish: null });
      const d = ch.delta ?? {};
      if (typeof d.content === "string") v.text += d.content;
      if (typeof d.reasoning_content === "string") v.reasoning += d.reasoning_content;
      for (const t of d.tool_calls ?? []) {
        const key = `${ch.index}/${t.index}`;
        const slot = slots.get(key) ?? { name: "", args: "" };
        slot.name += t.function?.name ?? "";
        slot.args += t.function?.arguments ?? "";
        slots.set(key, slot);
      }
      if (ch.finish_reason != null) v.finish = ch.finish_reason;
    }
  }
  for (const [key, slot] of slots) {
    const index = Number(key.split("/")[0]);
    (choices[index] ??= { text: "", reasoning: "", calls: [], finish: null }).calls.push({ tool: slot.name, input: JSON.parse(slot.args) });
  }
  return { choices, done, usage };
}

const request = (c: ChatCase) => ({ model: "deepseek-chat", stream: true, stream_options: { include_usage: true }, ...(c.second !== undefined ? { n: 2 } : {}), messages: [{ role: "user", content: "hi" }], tools: TOOLS });
const RUNS = { seed: 5001, numRuns: 150 };

describe("chat-completions: whole = every split, nothing lost or invented (property, hard negatives)", () => {
  test("golden replies with reasoning, usage-only chunks, n = 2, a native call, every end and framing", async () => {
    await fc.assert(
      fc.asyncProperty(chatCase, fc.integer({ min: 1, max: 1e6 }), async (c, seed) => {
        const bytes = encode(chatBody(c));
        const whole = readChat(await repaired(URLS.chat, request(c), [bytes], c.bufferLimit));
        const ways = [byteCuts(bytes, seed, 1 + (seed % 23)), cutAt(bytes, trickyOffsets(bytes))];
        for (const pieces of ways) expect(show(readChat(await repaired(URLS.chat, request(c), pieces, c.bufferLimit)))).toBe(show(whole));

        const zero = whole.choices[0]!;
        const ref = reference(c.text, { cut: CUT.has(c.end), native: c.native, bufferLimit: c.bufferLimit });
        const calls = zero.calls.filter((k) => k.tool !== "glob");
        expect(show({ text: zero.text, calls })).toBe(show(ref));
        expect(zero.reasoning).toBe(c.reasoning ?? "");
        if (c.second !== undefined) expect(show(whole.choices[1])).toBe(show({ text: c.second, reasoning: "", calls: [], finish: c.end === "error-chunk" ? null : "stop" }));
        expect(whole.done).toBe(c.end !== "no-done");
        expect(whole.usage).toEqual({ prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 });
      }),
      RUNS,
    );
  }, 120_000);
});
