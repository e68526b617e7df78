/**
 * Review 57 (hostile, tests only): Anthropic Messages text blocks after round 56's "a text block
 * opens only with shown text" (src/wires/anthropic/held-text-start.ts, stream.ts, wire.ts). The
 * real repairFetch; every stream read whole, byte by byte and at seeded byte cuts. Markup is a
 * Hermes `<tool_call>` or DSML written through the notation (live()), so no DSML marker bytes are
 * written here.
 *
 * A seeded fuzz of this round (text blocks of prose, markup, markup split across blocks,
 * citations_delta and empty text_delta; thinking blocks with signature_delta; server_tool_use +
 * web_search_tool_result; native tool_use) found no framing problem: indexes contiguous, no
 * delta or stop for a block never started, no empty text block, whole = seeded cuts. Its only
 * stream/JSON differences were documented policy (a citation after a call dropped with a block
 * that never opens, review 56; markup in a reply that also carries a native call, PATTERNS D08).
 * The one problem is below.
 */
import { describe, expect, test } from "bun:test";
import { byteByByte, dataEvents, encode, seededCuts } from "../adapters/wire-support.ts";
import { block, live } from "../golden/notation.ts";
import { type Json, hermes, keptSse, messageJson, namedSse, repairedRaw, requestFor } from "./review-51-wires-support.ts";

const READ = hermes("read", { path: "a.ts" });
const DSML_BASH = live(block("tool_calls", [["bash", [["command", "ls"]]]]));
const START = { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
const blockStart = (index: number) => ({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
const text = (index: number, t: string) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text: t } });
const stop = (index: number) => ({ type: "content_block_stop", index });
const END = [{ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" }];

/** Every run's raw repaired stream: whole, byte by byte, at seeded cuts. */
async function everySplit(events: Json[]): Promise<string[]> {
  const sse = namedSse(events);
  const bytes = encode(sse);
  const request = requestFor("anthropic", true);
  const out: string[] = [];
  for (const body of [sse, byteByByte(bytes), ...[1, 2, 3, 4].map((seed) => seededCuts(bytes, seed, 40))]) out.push(await repairedRaw("anthropic", request, body, "text/event-stream"));
  return out;
}

/** The text of each text block a client assembles from a raw repaired stream. */
function textBlocks(raw: string): string[] {
  const blocks = new Map<number, Json>();
  for (const e of dataEvents(raw)) {
    if (e.type === "content_block_start") blocks.set(e.index, { type: e.content_block.type, text: e.content_block.text ?? "" });
    else if (e.type === "content_block_delta" && e.delta.type === "text_delta") blocks.get(e.index)!.text += e.delta.text;
  }
  return [...blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b).filter((b) => b.type === "text").map((b) => b.text);
}

const jsonTextBlocks = async (content: Json[]) =>
  ((JSON.parse(await repairedRaw("anthropic", requestFor("anthropic", false), JSON.stringify(messageJson(content)), "application/json")).content as Json[]).filter((b) => b.type === "text").map((b) => b.text as string));

// ---------------------------------------------------------------------------------------------
// FINDING A1 (a request the API refuses on the next turn): a text block whose only shown text is
// whitespace before (or between) recovered calls goes out as a whitespace-only text block, on
// the stream and in the JSON answer. The Anthropic Messages API refuses such a block when the
// turn is replayed ("messages: text content blocks must contain non-whitespace text", the
// sibling of review 56's "must be non-empty"), and neither replays filter it: @ai-sdk/anthropic
// sends an assistant text part as it is (only the last part of a prefill is trimmed), and
// OpenCode 1.18.33's message normalizer for @ai-sdk/anthropic drops only text === "" (read from
// node_modules/opencode-linux-x64's bundle). Upstream the block held the markup too (not
// whitespace-only): the repair made the blank block. Models often put a newline or two before the
// markup (`\n\n` + a DSML block), so the next turn of such a session fails.
// Minimal input: one text block `\n\n<tool_call>{"name":"read",...}</tool_call>`, end_turn. The
// client gets [text "\n\n", tool_use read].
// Suspected source: src/wires/anthropic/held-text-start.ts / stream.ts (the held start opens
// with any text, whitespace too) and src/wires/anthropic/wire.ts blocksOf (JSON).
// Expected: no text block holding only whitespace: whitespace before a call waits as the held
// start does, and goes out only with non-whitespace text of the block (or is dropped with a block
// that never opens, as the empty block is); stream and JSON alike. (A policy call for the fixer:
// the whitespace is then not shown; the model's words are all kept.)
// Fixed: whitespace shown while no text block is open downstream (a block's start, or after a
// call) waits for words (src/wires/anthropic/held-text-start.ts); a call drops it, and at the
// span's end it is shown only when no call was taken out of its block, so a block the model wrote
// as whitespace alone passes as it came. The JSON answer reads its blocks by the same rule
// (wire.ts blocksOf). Cost: that whitespace is not shown (docs/HOW-IT-WORKS.md).
// ---------------------------------------------------------------------------------------------
describe("A1: a whitespace-only text block before a recovered call", () => {
  test("fixed: `\\n\\n` then a Hermes call: no whitespace-only text block reaches the client (every split)", async () => {
    for (const raw of await everySplit([START, blockStart(0), text(0, "\n\n"), text(0, READ), stop(0), ...END])) {
      expect(keptSse("anthropic", raw).calls.map((c) => c.name)).toEqual(["read"]);
      for (const t of textBlocks(raw)) expect(t.trim()).not.toBe("");
    }
  });

  test("fixed: `\\n\\n` then a DSML block: no whitespace-only text block reaches the client (every split)", async () => {
    for (const raw of await everySplit([START, blockStart(0), text(0, "\n\n" + DSML_BASH.slice(0, 9)), text(0, DSML_BASH.slice(9)), stop(0), ...END])) {
      expect(keptSse("anthropic", raw).calls.map((c) => c.name)).toEqual(["bash"]);
      for (const t of textBlocks(raw)) expect(t.trim()).not.toBe("");
    }
  });

  test("fixed: the JSON answer of the same reply has no whitespace-only text block either", async () => {
    for (const t of await jsonTextBlocks([{ type: "text", text: "\n\n" + READ }])) expect(t.trim()).not.toBe("");
  });

  // ------------------------------------------------------------------ hard negatives (pass today)

  test("hard negative: prose before the call keeps its own block, whitespace and all (every split)", async () => {
    for (const raw of await everySplit([START, blockStart(0), text(0, "\n\nLet me read it.\n"), text(0, READ), stop(0), ...END])) {
      expect(textBlocks(raw)).toEqual(["\n\nLet me read it.\n"]);
      expect(keptSse("anthropic", raw).calls.map((c) => c.name)).toEqual(["read"]);
    }
  });

  test("hard negative: a block that is all one call (no whitespace) never opens a text block (round 56, every split)", async () => {
    for (const raw of await everySplit([START, blockStart(0), text(0, READ), stop(0), ...END])) expect(textBlocks(raw)).toEqual([]);
  });

  test("hard negative: no markup: a whitespace-only block the model wrote itself passes as it came (not the repair's to change)", async () => {
    const events = [START, blockStart(0), text(0, "\n\n"), stop(0), ...END];
    for (const raw of await everySplit(events)) expect(raw).toBe(namedSse(events));
  });
});
