// Review 55 (hostile, tests only): the AI SDK middleware's generate and stream paths
// (src/adapters/middleware/generate.ts, stream.ts, text-spans.ts), driven through
// `wrapLanguageModel` and a mock model as a user would. No finding: every test here is a hard
// negative that passes on main, kept because reviews 43/46/51/53 did not cover these shapes:
// several text, reasoning, file, source and provider-executed parts mixed at seeded random delta
// sizes and finish reasons (generate and stream must agree, nothing lost), a reader that cancels
// (the upstream is cancelled, nothing thrown), a stream with no `finish`, duplicate native call ids,
// the AI SDK's multi-step loop over a recovered call. Markup is Hermes `<tool_call>` JSON or
// Qwen3-Coder: no DSML marker bytes needed.
import { describe, expect, test } from "bun:test";
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3FunctionTool, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { repairMiddleware } from "../../src/adapters/middleware.ts";

type Part = LanguageModelV3StreamPart;
type Json = Record<string, unknown>;
const usage: LanguageModelV3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const STOP = { unified: "stop", raw: "stop" } as const;
const finish: Part = { type: "finish", usage, finishReason: STOP };
const PATH = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const read: LanguageModelV3FunctionTool = { type: "function", name: "read", inputSchema: PATH as LanguageModelV3FunctionTool["inputSchema"] };
const H = (name: string, args: object) => `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;
const PROMPT = [{ role: "user", content: [{ type: "text", text: "go" }] }];
const params = (extra: Partial<LanguageModelV3CallOptions> = {}) => ({ prompt: PROMPT, tools: [read], ...extra }) as LanguageModelV3CallOptions;

async function streamed(parts: Part[], extra: Partial<LanguageModelV3CallOptions> = {}): Promise<Json[]> {
  const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream<Part>(parts) }) });
  const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
  return (await convertReadableStreamToArray((await model.doStream(params(extra))).stream)) as unknown as Json[];
}

/** Every delta inside its part's start and end, no part started twice or left open. */
function wellFormed(parts: readonly Json[]): string[] {
  const open = new Set<string>();
  const bad: string[] = [];
  for (const p of parts) {
    const type = String(p.type);
    const key = `${type.split("-")[0]}:${String(p.id)}`;
    if (type === "stream-start" || !/^(text|reasoning|tool-input)-(start|delta|end)$/.test(type)) continue;
    if (type.endsWith("-start") && open.has(key)) bad.push(`started twice ${key}`);
    if (type.endsWith("-start")) open.add(key);
    if (type.endsWith("-delta") && !open.has(key)) bad.push(`delta outside ${key}`);
    if (type.endsWith("-end") && !open.delete(key)) bad.push(`end without start ${key}`);
  }
  return [...bad, ...[...open].map((k) => `left open ${k}`)];
}

describe("mixed parts at seeded random splits: generate and stream agree, nothing lost", () => {
  // mulberry32: a small PRNG whose low bits do not cycle (an LCG's `% n` repeats after a few draws).
  function prng(seed: number) {
    let s = seed | 0;
    return (n: number) => {
      s = (s + 0x6d2b79f5) | 0;
      let t = Math.imul(s ^ (s >>> 15), 1 | s);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
  }
  const FRAGMENTS = ["Let me read. ", H("read", { path: "a" }), "\n", "```\n", "```", "`", H("read", { path: "b" }), "<tool_call>", '{"name":"read","arguments":{"path":"c"}}', "</tool_call>", "text ", "<function=read>\n<parameter=path>\nd\n</parameter>\n</function>", "> ", "    ", "- ", H("write", { path: "e" })];
  const FINISHES = [STOP, { unified: "length", raw: "length" }, { unified: "content-filter", raw: "content_filter" }, { unified: "other", raw: "abort" }] as const;
  type Item = { kind: "text" | "reasoning" | "source" | "file" | "server-tool"; text: string; item?: string };

  function reply(rnd: (n: number) => number): Item[] {
    const items: Item[] = [];
    for (let i = 0, n = 1 + rnd(4); i < n; i++) {
      const k = rnd(13);
      const kind = k < 7 ? "text" : k < 9 ? "reasoning" : k < 10 ? "source" : k < 11 ? "file" : "server-tool";
      let text = "";
      for (let j = 0, m = 1 + rnd(4); j < m; j++) text += FRAGMENTS[rnd(FRAGMENTS.length)];
      // A Responses-style part names its own output item (the stream's part id is that item's id).
      items.push({ kind, text, ...(kind === "text" && rnd(3) === 0 ? { item: `msg_${i}` } : {}) });
    }
    return items;
  }
  const meta = (it: Item) => (it.item ? { providerMetadata: { openai: { itemId: it.item } } } : {});
  function content(items: Item[]): LanguageModelV3Content[] {
    return items.map((it, i): LanguageModelV3Content => {
      if (it.kind === "text") return { type: "text", text: it.text, ...meta(it) };
      if (it.kind === "reasoning") return { type: "reasoning", text: it.text };
      if (it.kind === "source") return { type: "source", sourceType: "url", id: `s${i}`, url: "http://example.test" };
      if (it.kind === "file") return { type: "file", mediaType: "image/png", data: "aGk=" };
      return { type: "tool-call", toolCallId: `p${i}`, toolName: "web_search", input: "{}", providerExecuted: true };
    });
  }
  function parts(items: Item[], size: number, reason: (typeof FINISHES)[number]): Part[] {
    const out: Part[] = [{ type: "stream-start", warnings: [] }];
    items.forEach((it, i) => {
      if (it.kind === "source") return out.push({ type: "source", sourceType: "url", id: `s${i}`, url: "http://example.test" });
      if (it.kind === "file") return out.push({ type: "file", mediaType: "image/png", data: "aGk=" });
      if (it.kind === "server-tool") return out.push({ type: "tool-call", toolCallId: `p${i}`, toolName: "web_search", input: "{}", providerExecuted: true });
      const id = it.item ?? `${it.kind}${i}`;
      out.push({ type: `${it.kind}-start`, id, ...meta(it) } as Part);
      for (let at = 0; at < it.text.length; at += size) out.push({ type: `${it.kind}-delta`, id, delta: it.text.slice(at, at + size) } as Part);
      out.push({ type: `${it.kind}-end`, id } as Part);
    });
    out.push({ type: "finish", usage, finishReason: reason });
    return out;
  }

  for (const seed of [55, 5501, 5502]) {
    test(`seed ${seed}: 600 replies`, async () => {
      const rnd = prng(seed);
      const problems: string[] = [];
      let withCalls = 0;
      for (let round = 0; round < 600 && problems.length < 3; round++) {
        const items = reply(rnd);
        const reason = FINISHES[rnd(FINISHES.length)]!;
        const oneCall = rnd(3) === 0;
        const extra = oneCall ? { providerOptions: { openai: { parallelToolCalls: false } } } : {};
        const size = 1 + rnd(7);
        const mock = new MockLanguageModelV3({
          doGenerate: async () => ({ content: content(items), finishReason: reason, usage, warnings: [] }),
          doStream: async () => ({ stream: convertArrayToReadableStream<Part>(parts(items, size, reason)) }),
        });
        const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
        const g = (await model.doGenerate(params(extra))).content as unknown as Json[];
        const s = (await convertReadableStreamToArray((await model.doStream(params(extra))).stream)) as unknown as Json[];
        const view = (ps: Json[], text: string, thought: string, key: string) => ({
          calls: ps.filter((p) => p.type === "tool-call").map((p) => `${String(p.toolName)} ${String(p.input)}`).sort(),
          text: ps.map((p) => (p.type === text ? String(p[key]) : "")).join(""),
          reasoning: ps.map((p) => (p.type === thought ? String(p[key]) : "")).join(""),
        });
        const gv = view(g, "text", "reasoning", "text");
        const sv = { ...view(s, "text-delta", "reasoning-delta", "delta") };
        const label = JSON.stringify({ items, reason, oneCall, size });
        if (JSON.stringify(gv) !== JSON.stringify(sv)) problems.push(`generate ${JSON.stringify(gv)} != stream ${JSON.stringify(sv)} for ${label}`);
        const bad = wellFormed(s);
        if (bad.length > 0) problems.push(`${bad.join(", ")} for ${label}`);
        // Only declared tools, only arguments that were written.
        for (const call of gv.calls) if (!/^(read \{"path":"[abcd]"\}|web_search \{\})$/.test(call)) problems.push(`unexpected call ${call} for ${label}`);
        const recovered = gv.calls.filter((c) => c.startsWith("read")).length;
        if (recovered > 0) withCalls++;
        // No call recovered: every character as written.
        const allText = items.filter((x) => x.kind === "text").map((x) => x.text).join("");
        const allThought = items.filter((x) => x.kind === "reasoning").map((x) => x.text).join("");
        if (recovered === 0 && (gv.text !== allText || gv.reasoning !== allThought)) problems.push(`text changed with no call for ${label}`);
      }
      expect(problems).toEqual([]);
      // The generator does reach recovered calls (the test is not vacuous).
      expect(withCalls).toBeGreaterThan(100);
    }, 60_000);
  }
});

describe("stream edges", () => {
  test("a reader that cancels while text is held: the upstream is cancelled, nothing thrown", async () => {
    let cancelled: unknown;
    let pulls = 0;
    const upstream = new ReadableStream<Part>({
      pull(controller) {
        const next: Part[] = [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: 'hello <tool_call>{"name":' }];
        if (pulls < next.length) controller.enqueue(next[pulls++]!);
        else return new Promise<void>(() => {});
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: upstream }) });
    const model = wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) });
    const reader = (await model.doStream(params())).stream.getReader();
    const seen: Json[] = [];
    for (let i = 0; i < 3; i++) seen.push((await reader.read()).value as unknown as Json);
    expect(seen.map((p) => p.type)).toEqual(["stream-start", "text-start", "text-delta"]);
    expect(seen[2]!.delta).toBe("hello ");
    const pending = reader.read();
    await reader.cancel("user stopped");
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(cancelled).toBe("user stopped");
  });

  test("no finish part: the call at the stream's end is sent, the text before it whole", async () => {
    const out = await streamed([{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `Reading. ${H("read", { path: "a" })}` }]);
    expect(out.filter((p) => p.type === "tool-call").map((p) => p.input)).toEqual(['{"path":"a"}']);
    expect(out.filter((p) => p.type === "text-delta").map((p) => p.delta).join("")).toBe("Reading. ");
  });

  test("no finish part, a candidate held at the end: it goes out as text in its open part", async () => {
    const out = await streamed([{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Reading. <tool_call>" }, { type: "text-end", id: "t" }]);
    expect(out.some((p) => p.type === "tool-call")).toBe(false);
    expect(out.filter((p) => p.type === "text-delta").map((p) => p.delta).join("")).toBe("Reading. <tool_call>");
    expect(wellFormed(out)).toEqual([]);
  });

  test("a provider reusing one native call id for two calls: each repeat of a recovered call is dropped once", async () => {
    const native = (path: string): Part[] => [
      { type: "tool-input-start", id: "n", toolName: "read" },
      { type: "tool-input-delta", id: "n", delta: JSON.stringify({ path }) },
      { type: "tool-input-end", id: "n" },
      { type: "tool-call", toolCallId: "n", toolName: "read", input: JSON.stringify({ path }) },
    ];
    const out = await streamed([{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `A ${H("read", { path: "a" })}\n${H("read", { path: "b" })}` }, { type: "text-end", id: "t" }, ...native("a"), ...native("b"), finish]);
    expect(out.filter((p) => p.type === "tool-call").map((p) => p.input)).toEqual(['{"path":"a"}', '{"path":"b"}']);
    expect(out.some((p) => p.type === "tool-input-start" && p.id === "n")).toBe(false);
  });

  test("a native call repeated twice without tool-input parts: one repeat dropped, the model's second call kept", async () => {
    const call = (id: string): Part => ({ type: "tool-call", toolCallId: id, toolName: "read", input: '{"path":"a"}' });
    const out = await streamed([{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `A ${H("read", { path: "a" })}` }, { type: "text-end", id: "t" }, call("n1"), call("n2"), finish]);
    const calls = out.filter((p) => p.type === "tool-call");
    expect(calls.map((p) => p.input)).toEqual(['{"path":"a"}', '{"path":"a"}']);
    expect(calls.map((p) => p.toolCallId)).not.toContain("n1");
    expect(calls.map((p) => p.toolCallId)).toContain("n2");
  });

  test("a text-start's and text-end's provider metadata kept around a recovered call", async () => {
    const item = { openai: { itemId: "msg_1" } };
    const out = await streamed([{ type: "stream-start", warnings: [] }, { type: "text-start", id: "msg_1", providerMetadata: item }, { type: "text-delta", id: "msg_1", delta: `A ${H("read", { path: "a" })}` }, { type: "text-end", id: "msg_1", providerMetadata: item }, finish]);
    expect(out.find((p) => p.type === "text-start")?.providerMetadata).toEqual(item);
    expect((out.find((p) => p.type === "text-end")?.providerMetadata as Json).openai).toEqual(item.openai);
    expect((out.find((p) => p.type === "tool-call") as Json).providerMetadata).toBeUndefined();
  });
});

describe("the AI SDK's own loop over the middleware", () => {
  test("streamText, three steps allowed: the recovered call runs once, its result goes back, a fenced example in the answer does not run", async () => {
    const prompts: unknown[] = [];
    let n = 0;
    const mock = new MockLanguageModelV3({
      doStream: async (options) => {
        prompts.push(options.prompt);
        const text = n++ === 0 ? `Let me read. ${H("read", { path: "a" })}` : `Done. For example:\n\`\`\`\n${H("read", { path: "z" })}\n\`\`\`\n`;
        const ps: Part[] = [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, ...[...text].map((delta): Part => ({ type: "text-delta", id: "t", delta })), { type: "text-end", id: "t" }, finish];
        return { stream: convertArrayToReadableStream(ps) };
      },
    });
    const ran: string[] = [];
    const result = streamText({
      model: wrapLanguageModel({ model: mock, middleware: repairMiddleware({}) }),
      prompt: "go",
      stopWhen: stepCountIs(3),
      tools: { read: tool({ inputSchema: jsonSchema<{ path: string }>(PATH as never), execute: async ({ path }) => (ran.push(path), `content of ${path}`) }) },
    });
    await result.consumeStream();
    expect(ran).toEqual(["a"]);
    expect((await result.steps).map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(await result.text).toContain(H("read", { path: "z" }));
    const second = JSON.stringify(prompts[1]);
    expect(second).toContain('"type":"tool-result"');
    expect(second).toContain('"text":"Let me read. "');
  });
});
