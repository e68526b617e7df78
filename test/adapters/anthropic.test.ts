import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { type AdapterOptions, type AdapterResult, REQUEST_TAG_HEADER } from "../../src/adapters/options.ts";
import { createRepairEngine } from "../../src/engine/engine.ts";
import { block, live } from "../golden/notation.ts";
import { stubFactory } from "./stub-engine.ts";
import { JSON_HEADERS, type Json, chunkedFetch, dataEvents, encode, everySplit, namedConsistently, namedSse, postInit } from "./wire-support.ts";

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
