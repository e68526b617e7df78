import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { type AdapterOptions, type AdapterResult, REQUEST_TAG_HEADER } from "../../src/adapters/options.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { BAR, block, live } from "../golden/notation.ts";
import { stubFactory } from "./stub-engine.ts";
import { JSON_HEADERS, type Json, byteByByte, chunkedFetch, dataEvents, encode, everySplit, namedConsistently, namedSse, postInit, seededCuts } from "./wire-support.ts";

const URL_MESSAGES = "http://model.test/v1/messages";
const TOOLS = [
  { name: "read", description: "read a file", input_schema: { type: "object", properties: { path: { type: "string" } } } },
  { type: "web_search_20250305", name: "web_search" },
];

function request(extra: Json = {}): RequestInit {
  return postInit({ model: "qwen3.6-plus", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }], tools: TOOLS, ...extra });
}

function messageStart(): Json {
  return { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "qwen3.6-plus", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } };
}

/** A recorded-shape stream: optional thinking block, one text block in these deltas, then the message end. */
function stream(texts: string[], extra: { thinking?: string[]; after?: Json[][]; stop?: string } = {}): Json[] {
  const out: Json[] = [messageStart(), { type: "ping" }];
  let index = 0;
  if (extra.thinking) {
    out.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } });
    for (const t of extra.thinking) out.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: t } });
    out.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "sig" } });
    out.push({ type: "content_block_stop", index });
    index++;
  }
  out.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
  for (const t of texts) out.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: t } });
  out.push({ type: "content_block_stop", index });
  for (const blockEvents of extra.after ?? []) {
    index++;
    out.push(...blockEvents.map((e) => ({ ...e, index })));
  }
  out.push({ type: "message_delta", delta: { stop_reason: extra.stop ?? "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" });
  return out;
}

interface Assembled {
  content: Json[];
  stop_reason: string | null;
}

/** Reads the stream as @ai-sdk/anthropic does, and fails on any block out of order. */
function assemble(text: string): Assembled {
  const out: Assembled = { content: [], stop_reason: null };
  let open: Json | undefined;
  let json = "";
  for (const event of dataEvents(text)) {
    if (event.type === "content_block_start") {
      expect(open).toBeUndefined();
      expect(event.index).toBe(out.content.length);
      open = { ...event.content_block };
      json = "";
    } else if (event.type === "content_block_delta") {
      expect(open).toBeDefined();
      expect(event.index).toBe(out.content.length);
      const d = event.delta;
      if (d.type === "text_delta") open!.text += d.text;
      else if (d.type === "thinking_delta") open!.thinking += d.thinking;
      else if (d.type === "input_json_delta") json += d.partial_json;
    } else if (event.type === "content_block_stop") {
      expect(open).toBeDefined();
      expect(event.index).toBe(out.content.length);
      if (open!.type === "tool_use") open!.input = JSON.parse(json || "{}");
      out.content.push(open!);
      open = undefined;
    } else if (event.type === "message_delta") out.stop_reason = event.delta.stop_reason;
  }
  expect(open).toBeUndefined();
  return out;
}

function fix(base: typeof fetch, options: AdapterOptions = {}) {
  return repairFetch(options, base, { createEngine: stubFactory() });
}

async function run(upstream: string | Uint8Array[], init = request(), options: AdapterOptions = {}) {
  const base = chunkedFetch(typeof upstream === "string" ? [encode(upstream)] : upstream);
  const res = await fix(base, options)(URL_MESSAGES, init);
  return { text: await res.text(), base };
}

const LEAK = ["I'll read it. <", "<CA", "LL read ", '{"path":', '"a.ts"}>', "> done"];

describe("Anthropic Messages stream", () => {
  test("a stream without candidates, thinking and pings included, comes back byte for byte", async () => {
    const original = namedSse(stream(["Plain answer: a < b, caf\u00e9."], { thinking: ["Maybe <<CALL read {}>>"] }));
    expect((await run(original)).text).toBe(original);
  });

  test("a leak becomes a tool_use block with input_json_delta, the stop_reason tool_use", async () => {
    const results: AdapterResult[] = [];
    const upstream = stream(LEAK, { thinking: ["think <<CALL read {\"path\":\"t\"}>>"] });
    const { text } = await run(namedSse(upstream), request(), { onResult: (r) => results.push(r) });
    expect(assemble(text)).toEqual({
      content: [
        { type: "thinking", thinking: 'think <<CALL read {"path":"t"}>>' },
        { type: "text", text: "I'll read it. " },
        { type: "tool_use", id: "stub_0", name: "read", input: { path: "a.ts" } },
        { type: "text", text: " done" },
      ],
      stop_reason: "tool_use",
    });
    // The thinking block's events are the upstream bytes.
    for (const event of upstream.slice(1, 6)) expect(text).toContain(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    expect(namedConsistently(text)).toBe(true);
    expect(results.map((r) => r.summary.recovered)).toEqual([1]);
  });

  test("every byte split gives the same output", async () => {
    for (const eol of ["\n", "\r\n"]) {
      const original = encode(namedSse(stream(["caf\u00e9 <", '<CALL read {"path":"\u65e5.ts"}>', ">!"]), eol));
      const reference = (await run([original])).text;
      expect(assemble(reference).content.map((b) => b.type)).toEqual(["text", "tool_use", "text"]);
      for (const parts of everySplit(original)) expect((await run(parts)).text).toBe(reference);
    }
  });

  test("blocks after a recovered call move up by the blocks put in", async () => {
    const native = [
      { type: "content_block_start", content_block: { type: "tool_use", id: "toolu_native", name: "read", input: {} } },
      { type: "content_block_delta", delta: { type: "input_json_delta", partial_json: '{"path":"n.ts"}' } },
      { type: "content_block_stop" },
    ];
    const { text } = await run(namedSse(stream(['<<CALL read {"path":"r"}>>'], { after: [native], stop: "tool_use" })));
    expect(assemble(text)).toEqual({
      content: [
        { type: "tool_use", id: "stub_0", name: "read", input: { path: "r" } },
        { type: "tool_use", id: "toolu_native", name: "read", input: { path: "n.ts" } },
      ],
      stop_reason: "tool_use",
    });
  });

  test("native calls win: markup after a native tool_use block is no second call", async () => {
    const upstream: Json[] = [
      messageStart(),
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_native", name: "read", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"path":"n.ts"}' } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      ...LEAK.map((t) => ({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: t } })),
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ];
    const result = assemble((await run(namedSse(upstream))).text);
    expect(result.content.filter((b) => b.type === "tool_use").map((b) => b.id)).toEqual(["toolu_native"]);
    expect(result.content.filter((b) => b.type === "text").map((b) => b.text).join("")).toBe("I'll read it.  done");
  });

  test("held text at the end of the body without message_delta is released in a block of its own", async () => {
    const upstream = stream(["tail <<CALL read"]).slice(0, -2);
    const result = assemble((await run(namedSse(upstream))).text);
    expect(result.content.map((b) => b.text).join("")).toBe("tail <<CALL read");
  });
});

describe("Anthropic Messages request side", () => {
  test("tools come from input_schema; server tools and a tool_choice naming another tool recover nothing", async () => {
    const original = namedSse(stream(LEAK));
    const forced = await run(original, request({ tool_choice: { type: "tool", name: "write" } }));
    expect(assemble(forced.text).content.some((b) => b.type === "tool_use")).toBe(false);
    const none = await run(original, request({ tool_choice: { type: "none" } }));
    expect(assemble(none.text).content.some((b) => b.type === "tool_use")).toBe(false);
    for (const choice of [{ type: "auto" }, { type: "any" }, { type: "tool", name: "read" }]) {
      const allowed = await run(original, request({ tool_choice: choice }));
      expect(assemble(allowed.text).content.filter((b) => b.type === "tool_use").map((b) => b.name)).toEqual(["read"]);
    }
    for (const unknown of [{ type: "some_future_mode" }, "any", { type: "tool" }]) {
      const closed = await run(original, request({ tool_choice: unknown }));
      expect(assemble(closed.text).content.some((b) => b.type === "tool_use")).toBe(false);
    }
    const serverOnly = await run(original, request({ tools: [TOOLS[1]] }));
    expect(serverOnly.text).toBe(original);
  });

  test("the tag header never reaches the server", async () => {
    const { base } = await run(namedSse(stream(["hi"])), request({}), {});
    const tagged = chunkedFetch([encode(namedSse(stream(["hi"])))]);
    const init = postInit({ model: "m", max_tokens: 1, messages: [], tools: TOOLS }, { [REQUEST_TAG_HEADER]: "ses_1/msg_1" });
    await (await fix(tagged)(URL_MESSAGES, init)).text();
    expect(new Headers(tagged.seen[0]!.init?.headers).has(REQUEST_TAG_HEADER)).toBe(false);
    expect(base.seen.length).toBe(1);
  });

  test("markup quoted from a tool_result is not executed (real engine, echo guard)", async () => {
    const markup = live(block("tool_calls", [["read", [["path", "/etc/passwd"]]]]));
    const body = {
      model: "m",
      max_tokens: 100,
      stream: true,
      system: [{ type: "text", text: "You are helpful." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "read the notes" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read", input: { path: "notes" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: `notes:\n${markup}` }] }] },
      ],
      tools: TOOLS,
    };
    const upstream = namedSse(stream([`Quoting: ${markup}`]));
    const real = (init: RequestInit) => repairFetch({}, chunkedFetch([encode(upstream)]), { createEngine: createRepairEngine })(URL_MESSAGES, init);
    const echoed = assemble(await (await real(postInit(body))).text());
    expect(echoed.content.some((b) => b.type === "tool_use")).toBe(false);
    const fresh = { ...body, messages: [body.messages[0]] };
    const recovered = assemble(await (await real(postInit(fresh))).text());
    expect(recovered.content.filter((b) => b.type === "tool_use").map((b) => b.input)).toEqual([{ path: "/etc/passwd" }]);
  });
});

describe("Anthropic Messages JSON", () => {
  const message = (content: Json[], stop = "end_turn"): Json => ({ id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } });

  async function json(body: Json, init = request({ stream: false })) {
    const text = JSON.stringify(body);
    const res = await fix(chunkedFetch([encode(text)], JSON_HEADERS))(URL_MESSAGES, init);
    return { text: await res.text(), original: text };
  }

  test("a leaked call becomes a tool_use block in place; thinking untouched; stop_reason tool_use", async () => {
    const thinking = { type: "thinking", thinking: "<<CALL read {}>>", signature: "s" };
    const { text } = await json(message([thinking, { type: "text", text: LEAK.join("") }]));
    expect(JSON.parse(text)).toMatchObject({
      content: [thinking, { type: "text", text: "I'll read it. " }, { type: "tool_use", id: "stub_0", name: "read", input: { path: "a.ts" } }, { type: "text", text: " done" }],
      stop_reason: "tool_use",
    });
  });

  test("without candidates the body is returned byte for byte; native tool_use wins", async () => {
    const plain = await json(message([{ type: "text", text: "a < b" }]));
    expect(plain.text).toBe(plain.original);
    const native = { type: "tool_use", id: "toolu_n", name: "read", input: { path: "n" } };
    const { text } = await json(message([{ type: "text", text: '<<CALL read {"path":"x"}>>' }, native], "tool_use"));
    expect(JSON.parse(text).content).toEqual([native]);
  });
});

/**
 * Markup never spans a text block and a block of another kind after it, in the stream as in JSON:
 * what the engine still holds when such a text block ends (a trailing bar here) is decided there
 * and stays in that block, before the next block. A text block right after another may continue
 * its markup (hard negative, both paths). Real engine; streams whole, one character per delta read
 * byte by byte, and at seeded random byte cuts, each compared with the JSON answer.
 */
describe("Anthropic Messages: text held at a text block's end stays in its block", () => {
  type Block = { type: "text"; text: string } | { type: "thinking"; thinking: string };
  const TOOLS_READ = [{ name: "read", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
  const init = (stream: boolean) => postInit({ model: "m", max_tokens: 10, stream, messages: [{ role: "user", content: "hi" }], tools: TOOLS_READ });
  const real = (base: typeof fetch) => repairFetch({}, base, { createEngine: (o) => createRepairEngine({ ...o, idPrefix: "t_" }) });

  /** `pings`: a ping right after each block's stop (between a text block's end and what follows). */
  function sse(blocks: Block[], size: number, pings = false): string {
    const events: Json[] = [messageStart()];
    blocks.forEach((b, index) => {
      const text = b.type === "text" ? b.text : b.thinking;
      events.push({ type: "content_block_start", index, content_block: b.type === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" } });
      for (let at = 0; at < text.length; at += size) {
        const piece = text.slice(at, at + size);
        events.push({ type: "content_block_delta", index, delta: b.type === "text" ? { type: "text_delta", text: piece } : { type: "thinking_delta", thinking: piece } });
      }
      events.push({ type: "content_block_stop", index });
      if (pings) events.push({ type: "ping" });
    });
    events.push({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }, { type: "message_stop" });
    return namedSse(events);
  }

  /** Blocks as a client holds them, tool_use ids left out. */
  const plain = (content: Json[]) => content.map(({ id: _id, signature: _s, ...rest }) => rest);

  async function both(blocks: Block[]): Promise<{ json: Json[]; streams: Json[][] }> {
    const body = { id: "msg_1", type: "message", role: "assistant", model: "m", content: blocks, stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } };
    const res = await real(chunkedFetch([encode(JSON.stringify(body))], JSON_HEADERS))(URL_MESSAGES, init(false));
    const json = plain((JSON.parse(await res.text()) as Json).content);
    const run = async (chunks: Uint8Array[]) => plain(assemble(await (await real(chunkedFetch(chunks))(URL_MESSAGES, init(true))).text()).content);
    const streams = [await run([encode(sse(blocks, 1000))]), await run(byteByByte(encode(sse(blocks, 1)))), await run([encode(sse(blocks, 3, true))])];
    for (const seed of [1, 2, 3, 4, 5, 6]) streams.push(await run(seededCuts(encode(sse(blocks, 1 + (seed % 4), seed % 2 === 0)), seed)));
    return { json, streams };
  }

  const leak = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
  const cut = leak.indexOf("read") + 2;

  test("a trailing bar before a thinking block stays in its text block, there and before a later text block", async () => {
    const cases: [Block[], Json[]][] = [
      [
        [{ type: "text", text: `Done ${BAR}` }, { type: "thinking", thinking: "hmm" }],
        [{ type: "text", text: `Done ${BAR}` }, { type: "thinking", thinking: "hmm" }],
      ],
      [
        [{ type: "text", text: `Done ${BAR}` }, { type: "thinking", thinking: "hmm" }, { type: "text", text: "more" }],
        [{ type: "text", text: `Done ${BAR}` }, { type: "thinking", thinking: "hmm" }, { type: "text", text: "more" }],
      ],
    ];
    for (const [blocks, expected] of cases) {
      const { json, streams } = await both(blocks);
      expect(json).toEqual(expected);
      for (const stream of streams) expect(stream).toEqual(expected);
    }
  });

  test("markup cut by a thinking block is no call, in either path; cut between two adjacent text blocks it still is one (hard negative)", async () => {
    const split = await both([{ type: "text", text: `Go:\n${leak.slice(0, cut)}` }, { type: "thinking", thinking: "hmm" }, { type: "text", text: leak.slice(cut) }]);
    expect(split.json).toEqual([{ type: "text", text: `Go:\n${leak.slice(0, cut)}` }, { type: "thinking", thinking: "hmm" }, { type: "text", text: leak.slice(cut) }]);
    for (const stream of split.streams) expect(stream).toEqual(split.json);
    const adjacent = await both([{ type: "text", text: `Go:\n${leak.slice(0, cut)}` }, { type: "text", text: leak.slice(cut) }]);
    expect(adjacent.json.map((b) => b.type)).toEqual(["text", "tool_use"]);
    expect(adjacent.json[1]).toMatchObject({ name: "read", input: { path: "a.ts" } });
    for (const stream of adjacent.streams) expect(stream).toEqual(adjacent.json);
  });

  test("markup that starts its text block (the block's start still held) is cut by a thinking block too: no call", async () => {
    // Review F3: no text of the first block went out, so it had never opened downstream; its end
    // must still end the span, and the held start opens there to carry the text.
    const blocks: Block[] = [{ type: "text", text: leak.slice(0, cut) }, { type: "thinking", thinking: "hmm" }, { type: "text", text: leak.slice(cut) }];
    const split = await both(blocks);
    expect(split.json).toEqual(blocks);
    for (const stream of split.streams) expect(stream).toEqual(split.json);
    // Before the message's end as well: the block's text goes out in its own block, before the thinking.
    const last = await both([{ type: "text", text: leak.slice(0, cut) }, { type: "thinking", thinking: "hmm" }]);
    expect(last.json).toEqual([{ type: "text", text: leak.slice(0, cut) }, { type: "thinking", thinking: "hmm" }]);
    for (const stream of last.streams) expect(stream).toEqual(last.json);
  });

  // Changed by fix 55: a DSML block closed right at a text block's end (before a thinking block) is
  // pending there (the run after its call reads on past its closer for a write's stray closer,
  // A46.6), so the block that is all one call is a Hermes one, decided at its own closer.
  test("a text block that is all one call, held to its end, before a thinking block: the call, and no empty text block", async () => {
    const hermes = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
    const blocks: Block[] = [{ type: "text", text: hermes + "\n\n" }, { type: "thinking", thinking: "hmm" }, { type: "text", text: "Reading it." }];
    const { json, streams } = await both(blocks);
    expect(json.map((b) => b.type)).toEqual(["tool_use", "thinking"]);
    expect(json[0]).toMatchObject({ name: "read", input: { path: "a.ts" } });
    for (const stream of streams) expect(stream).toEqual(json);
  });
});
