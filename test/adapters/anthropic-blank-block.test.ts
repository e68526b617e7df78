// Anthropic Messages (review 57 A1): the API refuses a text block of whitespace alone when the
// turn is replayed, so a text block whose shown text would be only whitespace because markup was
// taken out of it is not sent. Whitespace at a block's start or after a call waits for words; a
// call drops it, and at the span's end it is shown only when no call was taken out of its block.
// A block the model wrote as whitespace alone, with no markup, passes as it came. (Whitespace after
// the reply's last call is the engine's: S03 strips it, as any text there.) The stream (whole,
// byte by byte, at seeded cuts) and the JSON answer agree block for block; indexes stay contiguous;
// citations go with the block's next words, or with a block that never opens. Real engine.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { block, live } from "../golden/notation.ts";
import { anthropicShown } from "../support/anthropic-blank.ts";
import { JSON_HEADERS, type Json, byteByByte, chunkedFetch, dataEvents, encode, namedSse, postInit, seededCuts } from "./wire-support.ts";

const URL_MESSAGES = "http://model.test/v1/messages";
const schema = (key: string) => ({ type: "object", properties: { [key]: { type: "string" } }, required: [key] });
const TOOLS = [
  { name: "read", input_schema: schema("path") },
  { name: "bash", input_schema: schema("command") },
];
const READ = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const BASH = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
const DSML = live(block("tool_calls", [["bash", [["command", "pwd"]]]]));
const CITATION = { type: "web_search_result_location", cited_text: "the page says", url: "http://x.test", title: "t", encrypted_index: "e" };

/** An upstream block: text (a citation before its text when `cited`), or thinking. */
type Upstream = { text: string; cited?: boolean } | { thinking: string };
const T = (text: string, cited = false): Upstream => ({ text, cited });
const THINK: Upstream = { thinking: "hmm" };

interface Options {
  /** The request allows one call (disable_parallel_tool_use). */
  oneCall?: boolean;
  stop?: string;
}

const request = (stream: boolean, o: Options) =>
  postInit({ model: "m", max_tokens: 10, stream, messages: [{ role: "user", content: "hi" }], tools: TOOLS, ...(o.oneCall ? { tool_choice: { type: "auto", disable_parallel_tool_use: true } } : {}) });
const real = (base: typeof fetch) => repairFetch({}, base, { createEngine: (o) => createRepairEngine({ ...o, idPrefix: "t_" }) });

function upstreamEvents(blocks: readonly Upstream[], size: number, stop: string): Json[] {
  const out: Json[] = [{ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }];
  blocks.forEach((b, index) => {
    if ("thinking" in b) {
      out.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } });
      out.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: b.thinking } });
      out.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "sig" } });
    } else {
      out.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      if (b.cited) out.push({ type: "content_block_delta", index, delta: { type: "citations_delta", citation: CITATION } });
      for (let at = 0; at < b.text.length; at += size) out.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: b.text.slice(at, at + size) } });
    }
    out.push({ type: "content_block_stop", index });
  });
  out.push({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" });
  return out;
}

/** A downstream block as a client keeps it (a call's id left out: it is the engine's). */
type Kept = { type: "text"; text: string; citations: number } | { type: "tool_use"; name: string; input: unknown } | { type: "thinking" };

/** A strict client of the repaired stream: indexes 0, 1, 2..., one block open at a time, deltas into it. */
function streamKept(raw: string): Kept[] {
  const out: Kept[] = [];
  let open: Json | undefined;
  for (const e of dataEvents(raw)) {
    if (e.type === "content_block_start") {
      if (open) throw new Error(`block ${e.index} starts while ${open.index} is open`);
      if (e.index !== out.length) throw new Error(`block index ${e.index}, expected ${out.length}`);
      open = { ...e.content_block, index: e.index, json: "", citations: 0 };
    } else if (e.type === "content_block_delta") {
      if (!open || e.index !== open.index) throw new Error(`delta for ${e.index}, open ${open?.index}`);
      if (e.delta.type === "text_delta") open.text += e.delta.text;
      if (e.delta.type === "citations_delta") open.citations++;
      if (e.delta.type === "input_json_delta") open.json += e.delta.partial_json;
    } else if (e.type === "content_block_stop") {
      if (!open || e.index !== open.index) throw new Error(`stop for ${e.index}, open ${open?.index}`);
      out.push(kept(open.type === "tool_use" ? { ...open, input: JSON.parse(open.json || "{}") } : open));
      open = undefined;
    }
  }
  if (open) throw new Error(`block ${open.index} never stopped`);
  return out;
}

function kept(b: Json): Kept {
  if (b.type === "text") return { type: "text", text: b.text, citations: typeof b.citations === "number" ? b.citations : (b.citations?.length ?? 0) };
  if (b.type === "tool_use") return { type: "tool_use", name: b.name, input: b.input };
  return { type: "thinking" };
}

/** Every stream run (whole, byte by byte, seeded cuts; deltas of `size`), and the JSON answer. */
async function everyReading(blocks: readonly Upstream[], o: Options = {}, size = 3, cuts = [1, 2, 3]): Promise<{ streams: Kept[][]; json: Kept[]; stop: unknown }> {
  const sse = namedSse(upstreamEvents(blocks, size, o.stop ?? "end_turn"));
  const bytes = encode(sse);
  const streams: Kept[][] = [];
  for (const parts of [[bytes], ...(cuts.length > 0 ? [byteByByte(bytes)] : []), ...cuts.map((seed) => seededCuts(bytes, seed, 40))]) {
    streams.push(streamKept(await (await real(chunkedFetch(parts))(URL_MESSAGES, request(true, o))).text()));
  }
  const content = blocks.map((b) => ("thinking" in b ? { type: "thinking", thinking: b.thinking, signature: "sig" } : { type: "text", text: b.text, ...(b.cited ? { citations: [CITATION] } : {}) }));
  const reply = { id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: o.stop ?? "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  const body = JSON.parse(await (await real(chunkedFetch([encode(JSON.stringify(reply))], JSON_HEADERS))(URL_MESSAGES, request(false, o))).text());
  return { streams, json: (body.content as Json[]).map(kept), stop: body.stop_reason };
}

/** Every reading gives `want`. */
async function expectBlocks(blocks: readonly Upstream[], want: Kept[], o: Options = {}): Promise<void> {
  const { streams, json } = await everyReading(blocks, o);
  expect(json).toEqual(want);
  for (const s of streams) expect(s).toEqual(want);
}

const text = (t: string, citations = 0): Kept => ({ type: "text", text: t, citations });
const readCall: Kept = { type: "tool_use", name: "read", input: { path: "a.ts" } };
const bashCall = (command: string): Kept => ({ type: "tool_use", name: "bash", input: { command } });
const thinking: Kept = { type: "thinking" };

describe("whitespace alone beside a recovered call is not sent as a text block", () => {
  test("before the call", async () => {
    await expectBlocks([T("\n\n" + READ)], [readCall]);
  });

  test("after the call, and between two calls", async () => {
    await expectBlocks([T(READ + "\n\n")], [readCall]);
    await expectBlocks([T("\n \n" + READ + "\n\n" + BASH + "\n")], [readCall, bashCall("ls")]);
  });

  test("DSML with a leading line break and spaces", async () => {
    await expectBlocks([T(" \n\n" + DSML + "\n")], [bashCall("pwd")]);
  });

  test("one call allowed: the calls held back to the end leave no blank block either", async () => {
    await expectBlocks([T("\n\n" + READ + "\n")], [readCall], { oneCall: true });
  });

  test("a text block split inside the markup: the whitespace waits across the blocks and goes with the call", async () => {
    const cut = READ.indexOf('"name"');
    await expectBlocks([T("\n\n" + READ.slice(0, cut)), T(READ.slice(cut))], [readCall]);
  });

  test("thinking between: each text block's whitespace is decided in its own span", async () => {
    await expectBlocks([T("\n" + READ + "\n"), THINK, T("\n\n" + BASH)], [readCall, thinking, bashCall("ls")]);
  });
});

describe("hard negatives: whitespace that goes out", () => {
  test("whitespace before or after words, in the block the words open", async () => {
    await expectBlocks([T("Let me read.\n\n" + READ + "\n\nThen:\n" + BASH)], [text("Let me read.\n\n"), readCall, text("\n\nThen:\n"), bashCall("ls")]);
    await expectBlocks([T("\n\nLet me read." + READ)], [text("\n\nLet me read."), readCall]);
  });

  test("a block the model wrote as whitespace alone, no markup in it, beside a block with a call: kept as written", async () => {
    await expectBlocks([T(" \t\n"), THINK, T(READ)], [text(" \t\n"), thinking, readCall]);
    await expectBlocks([T("\n\n"), T(READ)], [text("\n\n"), readCall]);
  });

  test("a text block split inside a tag that is no call: the whitespace waits and goes out with it", async () => {
    const { streams, json } = await everyReading([T("\n\n<tool_"), T("call> is the tag I meant.")]);
    expect(json.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("")).toBe("\n\n<tool_call> is the tag I meant.");
    for (const s of streams) expect(s).toEqual(json);
  });

  test("citations (round 56): they go with the block's next words, or with a block that never opens", async () => {
    await expectBlocks([T("\n\n" + READ + "\n\nSee the page:\n" + BASH, true)], [readCall, text("\n\nSee the page:\n", 1), bashCall("ls")]);
    await expectBlocks([T("\n\n" + READ + "\n" + BASH, true)], [readCall, bashCall("ls")]);
    await expectBlocks([T("\n\nSee the page.", true), THINK, T("\n" + READ)], [text("\n\nSee the page.", 1), thinking, readCall]);
  });

  test("a refusal cuts the reply: no blank block, the stop reason stays", async () => {
    const { streams, json, stop } = await everyReading([T("\n\n" + READ + "\n\n")], { stop: "refusal" });
    expect(stop).toBe("refusal");
    expect(json).toEqual([readCall]);
    for (const s of streams) expect(s).toEqual(json);
  });

  test("the stream holds whitespace up to 4 MiB (BLANK_LIMIT): past it, it is shown (a JSON answer that long is never read)", async () => {
    const readStream = async (blank: string) => (await everyReading([T(blank + READ)], {}, 64 * 1024, [])).streams;
    const at = 4 * 1024 * 1024;
    for (const s of await readStream("\n".repeat(at))) expect(s).toEqual([readCall]);
    for (const s of await readStream("\n".repeat(at + 1))) expect(s).toEqual([text("\n".repeat(at + 1)), readCall]);
  }, 30_000);
});

// ------------------------------------------------------------------------------------- property

const FRAGMENTS = ["\n", "\n\n", " ", "\t", "Sure.", "Done.\n", "`x` ", READ, BASH, DSML, "<tool_", "call>", "<b>y</b>"];
const isBlank = (t: string) => t.trim() === "";

/** The engine's events per upstream text block, read as the wire reads them: one span unless thinking stands between. */
function oracle(blocks: readonly Upstream[]): string {
  const tools = TOOLS.map((t) => ({ name: t.name, parameters: t.input_schema }));
  const engine = createRepairEngine({ tools, idPrefix: "t_" });
  const texts = blocks.flatMap((b, i) => ("text" in b ? [{ text: b.text, next: blocks[i + 1] }] : []));
  const read = texts.map(({ text, next }, i) => {
    const last = i === texts.length - 1;
    const events = [...engine.feed(text), ...(last ? engine.flush() : next && "thinking" in next ? engine.endSpan!() : [])];
    return { events, goesOn: !last && next !== undefined && "text" in next && engine.held > 0 };
  });
  return anthropicShown(read);
}

describe("property: stream and JSON agree, the text is the oracle's, no blank block the model did not write", () => {
  test("seeded replies of whitespace, prose and markup in one to three text blocks, thinking between or not", async () => {
    const reply = fc.record({
      fragments: fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 7 }),
      cuts: fc.array(fc.nat(300), { maxLength: 2 }),
      thinking: fc.boolean(),
      size: fc.integer({ min: 1, max: 9 }),
    });
    await fc.assert(
      fc.asyncProperty(reply, fc.nat(), async ({ fragments, cuts, thinking: between, size }, seed) => {
        const whole = fragments.join("");
        const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
        const pieces = [...at, whole.length].map((end, i) => whole.slice(i === 0 ? 0 : at[i - 1], end)).filter((p) => p !== "");
        const blocks = pieces.flatMap((p, i) => (i > 0 && between ? [THINK, T(p)] : [T(p)]));
        const { streams, json } = await everyReading(blocks, {}, size, [seed % 1000]);
        for (const s of streams) expect(s).toEqual(json);
        const shown = json.flatMap((b) => (b.type === "text" ? [b.text] : []));
        expect(shown.join("")).toBe(oracle(blocks));
        // A text block of whitespace alone only where the model wrote one.
        if (!pieces.some(isBlank)) expect(shown.filter(isBlank)).toEqual([]);
      }),
      { seed: 5757, numRuns: 150 },
    );
  }, 120_000);
});
