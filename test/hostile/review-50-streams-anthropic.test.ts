// Review 50 (hostile, tests only): stream invariants on the Anthropic Messages wire, as property
// tests. A reply made of a golden fixture between prose is cut into one to three text blocks back
// to back (the first one's text sometimes given in its content_block_start), with a thinking block
// (signature delta) before the text and another after it (thinking after text), pings, and every
// end (end_turn, max_tokens, stop_sequence, pause_turn; a refusal and an `error` event cut it). It
// is written in every legal SSE framing, under the default and small bufferLimit values, and sent
// whole, at seeded random byte offsets and cut inside every multi-byte character, CRLF and `data:`
// field name. Invariants: the same client view every way; the text and calls are the engine's
// (text blocks back to back are one span; at a cut what is held shows as written); the thinking
// is never lost; block indices and message_stop stay well formed. Seeded, bounded.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BUFFER_LIMITS, type Framing, FRAMINGS, type Json, URLS, anthropicReference, byteCuts, cutAt, deltas, encode, piecesOf, readSse, reference, repaired, replyArb, show, trickyOffsets, writeSse } from "./review-50-streams-support.ts";
import { fixtureTools } from "../golden/tools.ts";

const TOOLS = fixtureTools.map((t) => ({ name: t.name, input_schema: t.parameters }));
const ENDS = ["end_turn", "max_tokens", "stop_sequence", "pause_turn", "refusal", "error"] as const;
type End = (typeof ENDS)[number];
const CUT: ReadonlySet<End> = new Set(["refusal", "error"]);

interface Case {
  text: string;
  cuts: number[];
  startText: boolean;
  before?: string;
  after?: string;
  pings: boolean;
  size: number;
  end: End;
  framing: Framing;
  bufferLimit?: number;
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    reply: replyArb,
    cuts: fc.array(fc.nat(400), { maxLength: 2 }),
    startText: fc.boolean(),
    before: fc.option(fc.constantFrom("Think: read the file.", "\u60f3\u4e00\u60f3 \uD83D\uDE00"), { nil: undefined }),
    after: fc.option(fc.constantFrom("Done thinking.", "\u00e9t\u00e9"), { nil: undefined }),
    pings: fc.boolean(),
    size: fc.integer({ min: 1, max: 9 }),
    end: fc.constantFrom(...ENDS),
    framing: fc.constantFrom(...FRAMINGS),
    bufferLimit: fc.constantFrom(...BUFFER_LIMITS),
  })
  .map(({ reply, ...rest }) => ({ ...rest, text: reply.text }));

function body(c: Case): string {
  const events: Json[] = [{ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }];
  let index = 0;
  const ping = () => c.pings && events.push({ type: "ping" });
  const thinking = (t: string) => {
    events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const d of deltas(t, c.size)) events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: d } });
    events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM" } });
    events.push({ type: "content_block_stop", index });
    index++;
  };
  if (c.before) thinking(c.before);
  piecesOf(c.text, c.cuts).forEach((t, i) => {
    const first = i === 0 && c.startText ? t.slice(0, c.size) : "";
    events.push({ type: "content_block_start", index, content_block: { type: "text", text: first } });
    ping();
    for (const d of deltas(t.slice(first.length), c.size)) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: d } });
    events.push({ type: "content_block_stop", index });
    index++;
  });
  if (c.after) thinking(c.after);
  ping();
  if (c.end === "error") events.push({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
  else events.push({ type: "message_delta", delta: { stop_reason: c.end, stop_sequence: c.end === "stop_sequence" ? "END" : null }, usage: { output_tokens: 9 } }, { type: "message_stop" });
  return writeSse(events, c.framing, true);
}

interface View {
  text: string;
  thinking: string;
  calls: { tool: string; input: unknown }[];
  stop: unknown;
  stopped: boolean;
}

/** A strict client: one block open at a time, indices 0, 1, 2..., event names agree, message_stop last. */
function read(raw: string): View {
  const { events, problem } = readSse(raw);
  if (problem) throw new Error(`framing: ${problem}`);
  const v: View = { text: "", thinking: "", calls: [], stop: null, stopped: false };
  let open: Json | undefined;
  let next = 0;
  let json = "";
  for (const e of events) {
    const j = JSON.parse(e.data) as Json;
    if (e.event !== j.type) throw new Error(`event name ${e.event} for ${j.type}`);
    if (v.stopped) throw new Error(`${j.type} after message_stop`);
    if (j.type === "content_block_start") {
      if (open) throw new Error(`block ${j.index} starts while ${open.index} is open`);
      if (j.index !== next) throw new Error(`block index ${j.index}, expected ${next}`);
      const started: Json = { ...j.content_block, index: j.index };
      open = started;
      json = "";
      if (started.type === "text") v.text += started.text ?? "";
    } else if (j.type === "content_block_delta") {
      if (!open || j.index !== open.index) throw new Error(`delta for ${j.index}, open ${open?.index}`);
      if (j.delta.type === "text_delta") v.text += j.delta.text;
      else if (j.delta.type === "thinking_delta") v.thinking += j.delta.thinking;
      else if (j.delta.type === "input_json_delta") json += j.delta.partial_json;
    } else if (j.type === "content_block_stop") {
      if (!open || j.index !== open.index) throw new Error(`stop for ${j.index}, open ${open?.index}`);
      if (open.type === "tool_use") v.calls.push({ tool: open.name, input: JSON.parse(json || "{}") });
      open = undefined;
      next++;
    } else if (j.type === "message_delta") {
      if (open) throw new Error("message_delta with a block open");
      v.stop = j.delta.stop_reason;
    } else if (j.type === "message_stop") v.stopped = true;
  }
  return v;
}

const request = { model: "claude-x", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }], tools: TOOLS };

describe("Anthropic Messages: whole = every split, nothing lost or invented (property, hard negatives)", () => {
  test("golden replies over text blocks, thinking before and after the text, pings, every end and framing", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.integer({ min: 1, max: 1e6 }), async (c, seed) => {
        const bytes = encode(body(c));
        const whole = read(await repaired(URLS.anthropic, request, [bytes], c.bufferLimit));
        for (const pieces of [byteCuts(bytes, seed, 1 + (seed % 23)), cutAt(bytes, trickyOffsets(bytes))]) {
          expect(show(read(await repaired(URLS.anthropic, request, pieces, c.bufferLimit)))).toBe(show(whole));
        }
        const ref = reference(c.text, { cut: CUT.has(c.end), bufferLimit: c.bufferLimit });
        // What a client is shown: whitespace alone beside a call in a text block is not sent (review 57 A1).
        const shown = anthropicReference(piecesOf(c.text, c.cuts), { cut: CUT.has(c.end), bufferLimit: c.bufferLimit });
        expect(shown.calls).toEqual(ref.calls);
        expect(show({ text: whole.text, calls: whole.calls })).toBe(show(shown));
        expect(whole.thinking).toBe((c.before ?? "") + (c.after ?? ""));
        expect(whole.stopped).toBe(c.end !== "error");
        const stop = c.end === "error" ? null : ref.calls.length > 0 && !CUT.has(c.end) ? "tool_use" : c.end;
        expect(whole.stop).toBe(stop);
      }),
      { seed: 5002, numRuns: 150 },
    );
  }, 120_000);
});
