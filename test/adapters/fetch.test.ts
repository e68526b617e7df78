import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, streamText, tool } from "ai";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterOptions, AdapterResult } from "../../src/adapters/options.ts";
import { type StubFaults, stubFactory } from "./stub-engine.ts";

// ---------------------------------------------------------------- fake OpenAI-compatible server

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  chunks: (string | Uint8Array)[];
}
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let base = "";
let replies: Reply[] = [];
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const reply = replies.shift() ?? { status: 404, chunks: ["no reply queued"] };
      res.writeHead(reply.status ?? 200, reply.headers ?? {});
      for (const chunk of reply.chunks) res.write(chunk);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const SSE = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };
const JSON_HEADERS = { "content-type": "application/json" };

function queue(reply: Reply): void {
  replies.push(reply);
}

// ---------------------------------------------------------------- recorded-shape SSE

type Json = Record<string, unknown>;
const envelope = { id: "chatcmpl-7", object: "chat.completion.chunk", created: 1735689600, model: "deepseek-chat", system_fingerprint: "fp_7" };

function chunk(delta: Json, finish: string | null = null): Json {
  return { ...envelope, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
}

function recorded(contents: string[], extra: { reasoning?: string[]; before?: Json[] } = {}): Json[] {
  return [
    chunk({ role: "assistant", content: "" }),
    ...(extra.reasoning ?? []).map((r) => chunk({ reasoning_content: r })),
    ...(extra.before ?? []),
    ...contents.map((c) => chunk({ content: c })),
    chunk({}, "stop"),
    { ...envelope, choices: [], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } },
  ];
}

function sse(events: (Json | string)[], eol = "\n"): string {
  return [...events, "[DONE]"]
    .map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}${eol}${eol}`)
    .join("");
}

const TOOLS = [
  { type: "function", function: { name: "read", description: "read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } },
];

function chatInit(extra: { stream?: boolean; tools?: unknown[]; headers?: Record<string, string> } = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k", ...extra.headers },
    body: JSON.stringify({ model: "deepseek-chat", stream: extra.stream ?? true, messages: [{ role: "user", content: "hi" }], tools: extra.tools ?? TOOLS }),
  };
}

function fixFetch(options: AdapterOptions = {}, faults: StubFaults = {}, baseFetch: typeof fetch = fetch) {
  return repairFetch(options, baseFetch, { createEngine: stubFactory(faults) });
}

/** A base fetch whose SSE body arrives in exactly these byte chunks. */
function chunkedFetch(parts: Uint8Array[]): typeof fetch {
  const reply = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
      { status: 200, headers: SSE },
    );
  return (async () => reply()) as unknown as typeof fetch;
}

// ---------------------------------------------------------------- reading the output

function events(text: string): (Json | "[DONE]")[] {
  return text
    .split(/(?:\r\n|\r|\n)(?:\r\n|\r|\n)/)
    .map((block) => block.split(/\r\n|\r|\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n"))
    .filter((data) => data !== "")
    .map((data) => (data === "[DONE]" ? "[DONE]" : (JSON.parse(data) as Json)));
}

interface Assembled {
  content: string;
  reasoning: string;
  calls: { index: number; id?: string; name?: string; arguments: string }[];
  finish: string | null;
  done: boolean;
}

function assemble(text: string): Assembled {
  const out: Assembled = { content: "", reasoning: "", calls: [], finish: null, done: false };
  for (const event of events(text)) {
    if (event === "[DONE]") {
      out.done = true;
      continue;
    }
    const choice = (event.choices as Json[])[0];
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Json;
    if (typeof delta.content === "string") out.content += delta.content;
    if (typeof delta.reasoning_content === "string") out.reasoning += delta.reasoning_content;
    for (const call of (delta.tool_calls ?? []) as Json[]) {
      const fn = (call.function ?? {}) as Json;
      let slot = out.calls.find((c) => c.index === call.index);
      if (!slot) out.calls.push((slot = { index: call.index as number, arguments: "" }));
      if (call.id) slot.id = call.id as string;
      if (fn.name) slot.name = fn.name as string;
      slot.arguments += (fn.arguments as string | undefined) ?? "";
    }
    if (choice.finish_reason != null) out.finish = choice.finish_reason as string;
  }
  return out;
}

async function bytes(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer());
}

const LEAK = ["I'll read it. <", "<CA", "LL read ", '{"path":', '"a.ts"}>', "> done"];

// ---------------------------------------------------------------- tests

describe("repairFetch passthrough", () => {
  test("a non-chat request is forwarded and answered byte for byte", async () => {
    const body = '{"object":"list","data":[{"id":"deepseek-chat"}]}';
    queue({ headers: JSON_HEADERS, chunks: [body] });
    const res = await fixFetch()(`${base}/models`);
    expect(seen.at(-1)?.method).toBe("GET");
    expect(await res.text()).toBe(body);
  });

  test("a chat stream without candidates comes back byte for byte", async () => {
    const original = sse(recorded(["Plain ", "answer: a < b and ", "caf\u00e9 \u65e5\u672c."]));
    queue({ headers: SSE, chunks: [original] });
    const res = await fixFetch()(`${base}/chat/completions`, chatInit());
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(await bytes(res)).toEqual(new TextEncoder().encode(original));
  });

  test("without declared tools leaked markup stays text", async () => {
    const original = sse(recorded(LEAK));
    queue({ headers: SSE, chunks: [original] });
    const res = await fixFetch()(`${base}/chat/completions`, chatInit({ tools: [] }));
    expect(await res.text()).toBe(original);
  });

  test("responseFix.enabled false leaves the stream alone", async () => {
    const original = sse(recorded(LEAK));
    queue({ headers: SSE, chunks: [original] });
    const res = await fixFetch({ responseFix: { enabled: false } })(`${base}/chat/completions`, chatInit());
    expect(await res.text()).toBe(original);
  });

  test("error responses keep status and body", async () => {
    const body = '{"error":{"message":"rate limited <<CALL read {}>>"}}';
    queue({ status: 429, headers: JSON_HEADERS, chunks: [body] });
    const res = await fixFetch()(`${base}/chat/completions`, chatInit());
    expect(res.status).toBe(429);
    expect(await res.text()).toBe(body);
  });
});

describe("repairFetch streamed repair", () => {
  test("a leak split across many events becomes a tool call before the finish", async () => {
    const results: AdapterResult[] = [];
    queue({ headers: SSE, chunks: [sse(recorded(LEAK))] });
    const res = await fixFetch({ onResult: (r) => results.push(r) })(`${base}/chat/completions`, chatInit());
    const text = await res.text();
    expect(assemble(text)).toEqual({
      content: "I'll read it.  done",
      reasoning: "",
      calls: [{ index: 0, id: "stub_0", name: "read", arguments: '{"path":"a.ts"}' }],
      finish: "tool_calls",
      done: true,
    });
    const list = events(text);
    const callAt = list.findIndex((e) => e !== "[DONE]" && JSON.stringify(e).includes("tool_calls"));
    const finishAt = list.findIndex((e) => e !== "[DONE]" && (e.choices as Json[])[0]?.finish_reason != null);
    expect(callAt).toBeGreaterThan(-1);
    expect(callAt).toBeLessThan(finishAt);
    // Events whose content was only held back are dropped rather than sent empty.
    for (const e of list) {
      if (e === "[DONE]" || (e.choices as Json[]).length === 0) continue;
      const choice = (e.choices as Json[])[0]!;
      expect(Object.keys(choice.delta as Json).length > 0 || choice.finish_reason != null).toBe(true);
    }
    // The usage chunk and [DONE] survive unchanged after the finish.
    expect(text.endsWith(`data: ${JSON.stringify(recorded([]).at(-1))}\n\ndata: [DONE]\n\n`)).toBe(true);
    expect(res.headers.get("content-length")).toBeNull();
    expect(results.map((r) => r.summary.recovered)).toEqual([1]);
  });

  test("every byte split gives the same output, including inside UTF-8 and data: lines, for LF, CRLF and CR", async () => {
    for (const eol of ["\n", "\r\n", "\r"]) {
      const original = new TextEncoder().encode(sse(recorded(["caf\u00e9 <", '<CALL read {"path":"\u65e5.ts"}>', ">!"]), eol));
      const reference = await (await fixFetch({}, {}, chunkedFetch([original]))(`${base}/chat/completions`, chatInit())).text();
      expect(assemble(reference)).toMatchObject({
        content: "caf\u00e9 !",
        calls: [{ index: 0, name: "read", arguments: '{"path":"\u65e5.ts"}' }],
        finish: "tool_calls",
      });
      const splits = [[...original].map((b) => Uint8Array.of(b))];
      for (let at = 1; at < original.length; at++) splits.push([original.subarray(0, at), original.subarray(at)]);
      for (const parts of splits) {
        const out = await (await fixFetch({}, {}, chunkedFetch(parts))(`${base}/chat/completions`, chatInit())).text();
        expect(out).toBe(reference);
      }
    }
  });

  test("a CR-only stream is repaired event by event, before upstream closes", async () => {
    let upstream!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (upstream = c) });
    const held = (async () => new Response(body, { status: 200, headers: SSE })) as unknown as typeof fetch;
    const reader = (await fixFetch({}, {}, held)(`${base}/chat/completions`, chatInit())).body!.getReader();
    const events = recorded(LEAK);
    let seen = "";
    const dec = new TextDecoder();
    // One read always pending; each chunk it brings is appended as it arrives.
    const pump = (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) seen += dec.decode(r.value, { stream: true });
    })();
    /** Gives the pipe a bounded number of event-loop turns (no clock involved). */
    const drain = async () => {
      for (let turn = 0; turn < 50; turn++) await new Promise((r) => setImmediate(r));
    };
    upstream.enqueue(new TextEncoder().encode(sse(events.slice(0, 2), "\r").replace("data: [DONE]\r\r", "")));
    await drain();
    expect(assemble(seen).content).toBe("I'll read it. ");
    upstream.enqueue(new TextEncoder().encode(sse(events.slice(2), "\r")));
    await drain();
    upstream.close();
    await pump;
    expect(assemble(seen)).toMatchObject({ content: "I'll read it.  done", calls: [{ name: "read", arguments: '{"path":"a.ts"}' }], finish: "tool_calls" });
  });

  test("reasoning_content without markup passes through byte for byte", async () => {
    const reasoning = ["Maybe read a < b", " then answer"];
    const upstream = recorded(LEAK, { reasoning });
    queue({ headers: SSE, chunks: [sse(upstream)] });
    const text = await (await fixFetch()(`${base}/chat/completions`, chatInit())).text();
    for (const event of upstream.slice(1, 3)) expect(text).toContain(`data: ${JSON.stringify(event)}\n\n`);
    expect(assemble(text).reasoning).toBe(reasoning.join(""));
  });

  test("D06: a call drafted mid-thought in reasoning_content stays there as written; the content's own call is the one that runs", async () => {
    const reasoning = ['Maybe <<CALL read {"path":"x"}>> now', " then answer"];
    queue({ headers: SSE, chunks: [sse(recorded(LEAK, { reasoning }))] });
    const result = assemble(await (await fixFetch()(`${base}/chat/completions`, chatInit())).text());
    expect(result.reasoning).toBe(reasoning.join(""));
    expect(result.calls.map((c) => c.arguments)).toEqual(['{"path":"a.ts"}']);
  });

  test("native tool calls pass through and turn later markup into no second call", async () => {
    const native = chunk({ tool_calls: [{ index: 0, id: "call_native", type: "function", function: { name: "read", arguments: '{"path":"n.ts"}' } }] });
    const upstream = recorded(LEAK, { before: [native] });
    upstream[upstream.length - 2] = chunk({}, "tool_calls");
    queue({ headers: SSE, chunks: [sse(upstream)] });
    const text = await (await fixFetch()(`${base}/chat/completions`, chatInit())).text();
    expect(text).toContain(`data: ${JSON.stringify(native)}\n\n`);
    const result = assemble(text);
    expect(result.calls).toEqual([{ index: 0, id: "call_native", name: "read", arguments: '{"path":"n.ts"}' }]);
    expect(result.content).toBe("I'll read it.  done");
  });

  test("a native call arriving after a recovered one gets its own index", async () => {
    const native = chunk({ tool_calls: [{ index: 0, id: "call_native", type: "function", function: { name: "read", arguments: "{}" } }] });
    const upstream = recorded(['<<CALL read {"path":"r"}>>']);
    upstream.splice(2, 0, native);
    queue({ headers: SSE, chunks: [sse(upstream)] });
    const result = assemble(await (await fixFetch()(`${base}/chat/completions`, chatInit())).text());
    expect(result.calls.map((c) => [c.index, c.id])).toEqual([
      [0, "stub_0"],
      [1, "call_native"],
    ]);
  });

  test("a stream without finish_reason releases what was held, before [DONE] when there is one", async () => {
    const upstream = [chunk({ role: "assistant", content: "" }), chunk({ content: "tail <<CALL read" })];
    for (const text of [sse(upstream), sse(upstream).replace(/data: \[DONE\]\n\n$/, "")]) {
      const out = await (await fixFetch({}, {}, chunkedFetch([new TextEncoder().encode(text)]))(`${base}/chat/completions`, chatInit())).text();
      expect(assemble(out).content).toBe("tail <<CALL read");
      expect(out.endsWith("data: [DONE]\n\n")).toBe(text.endsWith("data: [DONE]\n\n"));
    }
  });
});

describe("repairFetch fast paths", () => {
  const enc = new TextEncoder();
  const url = "http://x/v1/chat/completions";

  async function reads(response: Response): Promise<Uint8Array[]> {
    const reader = response.body!.getReader();
    const out: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      out.push(value);
    }
  }

  test("a network chunk of untouched events goes out in one piece, not one per line", async () => {
    const whole = enc.encode(sse([chunk({ content: "one " }), chunk({ content: "two " }), chunk({ content: "three" })]).replace(/data: \[DONE\]\n\n$/, ""));
    const cut = enc.encode(`${sse([chunk({ content: " four" })]).replace(/data: \[DONE\]\n\n$/, "")}data: [DO`);
    const rest = enc.encode("NE]\n\n");
    const out = await reads(await fixFetch({}, {}, chunkedFetch([whole, cut, rest]))(url, chatInit()));
    expect(out.length).toBe(3);
    expect(out[0]).toEqual(whole);
    expect(Buffer.concat(out).toString()).toBe(Buffer.concat([whole, cut, rest]).toString());
  });

  test("a leak inside one network chunk is repaired; the untouched events around it keep their bytes", async () => {
    const upstream = recorded(["Plain start. ", ...LEAK, " Plain end."]);
    const text = sse(upstream);
    const out = await (await fixFetch({}, {}, chunkedFetch([enc.encode(text)]))(url, chatInit())).text();
    expect(assemble(out)).toMatchObject({
      content: "Plain start. I'll read it.  done Plain end.",
      calls: [{ index: 0, name: "read", arguments: '{"path":"a.ts"}' }],
      finish: "tool_calls",
    });
    for (const event of [upstream[0], upstream[1], upstream.at(-3), upstream.at(-1)]) expect(out).toContain(`data: ${JSON.stringify(event)}\n\n`);
  });

  test("content written with escapes passes through byte for byte and is repaired unescaped", async () => {
    // The server escapes more than JSON.stringify would: the original bytes must survive as sent.
    const escaped = (c: string) => `data: ${JSON.stringify(chunk({ content: c })).replace("\u00e9", "\\u00e9")}\n\n`;
    const plain = ["caf\u00e9 ", 'say "hi" \\ ', "tab\there\n"].map(escaped).join("");
    const original = `${plain}data: ${JSON.stringify(chunk({}, "stop"))}\n\ndata: [DONE]\n\n`;
    expect(original).toContain("caf\\u00e9");
    queue({ headers: SSE, chunks: [original] });
    expect(await (await fixFetch()(`${base}/chat/completions`, chatInit())).text()).toBe(original);

    const leak = ["caf\u00e9 <", '<CALL read {"path":', '"\\u00e9\\"q.ts"}>', ">\n"].map(escaped).join("");
    queue({ headers: SSE, chunks: [`${leak}data: ${JSON.stringify(chunk({}, "stop"))}\n\ndata: [DONE]\n\n`] });
    const result = assemble(await (await fixFetch()(`${base}/chat/completions`, chatInit())).text());
    expect(result.content).toBe("caf\u00e9 \n");
    expect(result.calls).toEqual([{ index: 0, id: "stub_0", name: "read", arguments: '{"path":"\u00e9\\"q.ts"}' }]);
  });

  test("a chunk that only starts and ends like the content chunks before it is read in full", async () => {
    // Same text before and after the content string, but a native call hides in between.
    const native = { index: 0, id: "call_native", type: "function", function: { name: "read", arguments: "{}" } };
    const disguised = JSON.stringify(chunk({ content: "MARK" })).replace('"MARK"', `"x","tool_calls":${JSON.stringify([native])},"pad":""`);
    expect(JSON.parse(disguised).choices[0].delta.tool_calls).toEqual([native]);
    const upstream = [chunk({ content: "Hi " }), chunk({ content: "there " }), disguised, ...LEAK.map((c) => chunk({ content: c })), chunk({}, "tool_calls")];
    queue({ headers: SSE, chunks: [sse(upstream)] });
    const text = await (await fixFetch()(`${base}/chat/completions`, chatInit())).text();
    expect(text).toContain(`data: ${disguised}\n\n`);
    const result = assemble(text);
    // The native call was noticed: the later markup is stripped, not turned into a second call.
    expect(result.calls).toEqual([{ index: 0, id: "call_native", name: "read", arguments: "{}" }]);
    expect(result.content).toBe("Hi there xI'll read it.  done");
  });

  test("id: and event: lines stay with their event, rewritten or not", async () => {
    const events = [chunk({ content: "a <" }), chunk({ content: '<CALL read {"path":"m"}>> b' }), chunk({}, "stop")];
    const original = events.map((e, i) => `id: ${i}\nevent: chunk\ndata: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
    queue({ headers: SSE, chunks: [original] });
    const text = await (await fixFetch()(`${base}/chat/completions`, chatInit())).text();
    expect(assemble(text)).toMatchObject({ content: "a  b", calls: [{ name: "read", arguments: '{"path":"m"}' }], finish: "tool_calls" });
    const blocks = text.split("\n\n").filter((b) => b.includes("id: "));
    expect(blocks.map((b) => b.split("\n").slice(0, 2).join(" "))).toEqual(["id: 0 event: chunk", "id: 1 event: chunk", "id: 2 event: chunk"]);
  });
});

describe("repairFetch non-streamed JSON", () => {
  function completion(message: Json): string {
    return JSON.stringify({ id: "c1", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [{ index: 0, message, finish_reason: "stop" }] });
  }

  test("a leaked call is appended to tool_calls and the content cleaned", async () => {
    const body = completion({ role: "assistant", content: 'Reading. <<CALL read {"path":"a"}>>' });
    queue({ headers: { ...JSON_HEADERS, "content-length": String(Buffer.byteLength(body)) }, chunks: [body] });
    const res = await fixFetch()(`${base}/chat/completions`, chatInit({ stream: false }));
    const json = (await res.json()) as { choices: { message: Json; finish_reason: string }[] };
    expect(json.choices[0]).toEqual({
      index: 0,
      message: { role: "assistant", content: "Reading. ", tool_calls: [{ id: "stub_0", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }] },
      finish_reason: "tool_calls",
    } as never);
    expect(res.headers.get("content-length")).toBeNull();
  });

  test("content that was only a call becomes null; native calls suppress conversion", async () => {
    queue({ headers: JSON_HEADERS, chunks: [completion({ role: "assistant", content: '<<CALL read {"path":"a"}>>' })] });
    const only = (await (await fixFetch()(`${base}/chat/completions`, chatInit({ stream: false }))).json()) as { choices: { message: Json }[] };
    expect(only.choices[0]?.message.content).toBeNull();

    const native = [{ id: "call_n", type: "function", function: { name: "read", arguments: "{}" } }];
    queue({ headers: JSON_HEADERS, chunks: [completion({ role: "assistant", content: 'x<<CALL read {"path":"a"}>>', tool_calls: native })] });
    const json = (await (await fixFetch()(`${base}/chat/completions`, chatInit({ stream: false }))).json()) as { choices: { message: Json; finish_reason: string }[] };
    expect(json.choices[0]?.message).toEqual({ role: "assistant", content: "x", tool_calls: native });
    expect(json.choices[0]?.finish_reason).toBe("stop");
  });

  test("a completion without candidates is returned as sent", async () => {
    const body = completion({ role: "assistant", content: "plain  text" });
    queue({ headers: JSON_HEADERS, chunks: [body] });
    expect(await (await fixFetch()(`${base}/chat/completions`, chatInit({ stream: false }))).text()).toBe(body);
  });
});

describe("repairFetch request tagging", () => {
  test("the tag header never reaches the server and is reported with an attempt count", async () => {
    const results: AdapterResult[] = [];
    const f = fixFetch({ onResult: (r) => results.push(r) });
    for (let i = 0; i < 2; i++) {
      queue({ headers: SSE, chunks: [sse(recorded(LEAK))] });
      await (await f(`${base}/chat/completions`, chatInit({ headers: { "X-Dsml-Fix-Tag": "ses_1/msg_2" } }))).text();
      expect(seen.at(-1)?.headers["x-dsml-fix-tag"]).toBeUndefined();
      expect(seen.at(-1)?.headers.authorization).toBe("Bearer k");
    }
    expect(results.map((r) => [r.requestTag, r.attempt, r.summary.recovered])).toEqual([
      ["ses_1/msg_2", 1, 1],
      ["ses_1/msg_2", 2, 1],
    ]);
  });
});

describe("repairFetch degrades to passthrough", () => {
  test.each([
    ["create", { throwOnCreate: true }],
    ["first feed", { throwOnFeed: 1 }],
    ["a later feed", { throwOnFeed: 2 }],
    ["flush", { throwOnFlush: true }],
  ] as [string, StubFaults][])("an engine failing at %s leaves the original bytes", async (_, faults) => {
    const lines: string[] = [];
    const original = sse(recorded(["no markup here ", "at all"]));
    queue({ headers: SSE, chunks: [original] });
    const res = await fixFetch({ debug: (l) => lines.push(l) }, faults)(`${base}/chat/completions`, chatInit());
    expect(await res.text()).toBe(original);
    expect(lines.some((l) => l.includes("stub:"))).toBe(true);
  });

  test("an engine failing while it holds a candidate hands the held text back", async () => {
    const results: AdapterResult[] = [];
    queue({ headers: SSE, chunks: [sse(recorded(LEAK))] });
    const res = await fixFetch({ onResult: (r) => results.push(r) }, { throwOnFeed: 4 })(`${base}/chat/completions`, chatInit());
    const result = assemble(await res.text());
    expect(result.content).toBe(LEAK.join(""));
    expect(result.calls).toEqual([]);
    expect(result.finish).toBe("stop");
    expect(results).toEqual([]);
  });
});

describe("repairFetch under the real AI SDK client", () => {
  test("streamText sees the leaked markup as a tool-call part", async () => {
    queue({ headers: SSE, chunks: [sse(recorded(LEAK))] });
    const provider = createOpenAICompatible({ baseURL: base, name: "deepseek", apiKey: "k", fetch: fixFetch() });
    const result = streamText({
      model: provider.chatModel("deepseek-chat"),
      prompt: "read a.ts",
      tools: { read: tool({ description: "read a file", inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }) }) },
    });
    const parts = [];
    for await (const part of result.fullStream) parts.push(part);
    const calls = parts.filter((p) => p.type === "tool-call");
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([["read", { path: "a.ts" }]]);
    expect(await result.text).toBe("I'll read it.  done");
    expect(await result.finishReason).toBe("tool-calls");
    expect(JSON.parse(seen.at(-1)?.body ?? "{}").tools[0].function.name).toBe("read");
  });
});

describe("engine injection", () => {
  test("an injected factory makes the engine (the default one is tested in real-engine.test.ts)", async () => {
    const made: string[] = [];
    const stub = stubFactory();
    const spy: typeof stub = (options) => {
      made.push("stub");
      return stub(options);
    };
    const reply = () => new Response(sse(events("plain <")), { headers: SSE });
    await bytes(await repairFetch({}, (async () => reply()) as unknown as typeof fetch, { createEngine: spy })(`${base}/chat/completions`, chatInit()));
    expect(made).toEqual(["stub"]);
  });
});
