/**
 * Review 54 (hostile, tests only): the same upstream bytes through a real `dsml-fix proxy` on
 * 127.0.0.1 and through `repairFetch` in process must give the client the same answer (calls,
 * text, framing; recovered call ids aside). The upstream writes its body at seeded cuts and at
 * every byte. Multi-part Anthropic replies, Responses with several message items, reasoning that
 * holds markup, JSON replies, n>1 chat choices, a tool_choice naming a tool, odd schemas.
 * No DSML marker bytes here (markup via live()).
 */
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { block, live } from "../golden/notation.ts";
import { sameCallIds } from "../support/call-ids.ts";
import { anthropicBody, anthropicSse, chatBody, chatSse, readAnthropic, readResponses, responsesBody, responsesSse, type Json, type Scenario } from "../property/diff-harness.ts";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";

const LEAK = live(`Reading it.\n\n${block("tool_calls", [["read", [["filePath", "a.ts"]]]])}`);
const HERMES = '<tool_call>{"name":"read","arguments":{"filePath":"b.ts"}}</tool_call>';
const REASONING_MARKUP = live(`Maybe I should call ${block("tool_calls", [["bash", [["command", "rm -rf /"]]]])} first.`);

/** Cuts `text`'s bytes at seeded places (0: every byte). */
function cutsOf(bytes: Uint8Array, seed: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let s = seed || 1;
  for (let at = 0; at < bytes.length; ) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const n = seed === 0 ? 1 : 1 + (s % 23);
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

/** The upstream answers `body` in `parts`, each its own write (and tick). */
function serve(body: string, type: string, seed: number): void {
  upstream.answer(async (_req, res) => {
    res.writeHead(200, { "content-type": type });
    for (const part of cutsOf(new TextEncoder().encode(body), seed)) {
      res.write(part);
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
}

async function both(path: string, request: Json, body: string, type: string, seed = 7): Promise<{ viaProxy: string; direct: string }> {
  serve(body, type, seed);
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) };
  const viaProxy = await (await fetch(`${proxy.url}${path}`, init)).text();
  const base = (async () => new Response(body, { status: 200, headers: { "content-type": type } })) as unknown as typeof fetch;
  const direct = await (await repairFetch({}, base)(`http://model.test/v1${path}`, init)).text();
  return { viaProxy: sameCallIds(viaProxy), direct: sameCallIds(direct) };
}

const S = (text: string, more: Partial<Scenario> = {}): Scenario => ({ text, ...more });

describe("hard negatives: the proxy answers as repairFetch does on the same bytes", () => {
  for (const seed of [0, 3, 11]) {
    test(`chat SSE with a DSML leak and reasoning holding markup (seed ${seed})`, async () => {
      const s = S(LEAK, { reasoning: REASONING_MARKUP });
      const { viaProxy, direct } = await both("/chat/completions", chatBody(s, true), chatSse(s, 5), "text/event-stream", seed);
      expect(viaProxy).toBe(direct);
      expect(viaProxy).toContain('"name":"read"');
      expect(viaProxy).not.toContain('"name":"bash"');
    });

    test(`Anthropic SSE, two text blocks, thinking between and before holding markup (seed ${seed})`, async () => {
      const s = S("", { reasoning: REASONING_MARKUP });
      const body = anthropicSse(s, [`First. ${HERMES}`, LEAK], 4, true);
      const { viaProxy, direct } = await both("/messages", anthropicBody(s, true), body, "text/event-stream", seed);
      expect(viaProxy).toBe(direct);
      const read = readAnthropic(viaProxy);
      expect(read.calls.map((c) => c.tool)).not.toContain("bash");
      expect(read.blocks[0]).toBe("thinking");
    });

    test(`Responses SSE, two message items of two parts each, reasoning holding markup (seed ${seed})`, async () => {
      const s = S("", { reasoning: REASONING_MARKUP });
      const body = responsesSse(s, [["Part one. ", HERMES], ["Then ", LEAK]], 6);
      const { viaProxy, direct } = await both("/responses", responsesBody(s, true), body, "text/event-stream", seed);
      expect(viaProxy).toBe(direct);
      const read = readResponses(viaProxy);
      expect(read.calls.map((c) => c.tool)).not.toContain("bash");
      expect(read.calls.length).toBeGreaterThan(0);
    });
  }

  test("chat JSON with n=2 choices, each with a leak", async () => {
    const s = S(LEAK);
    const reply = { id: "c1", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [0, 1].map((index) => ({ index, message: { role: "assistant", content: index === 0 ? LEAK : `Other. ${HERMES}` }, finish_reason: "stop" })) };
    const { viaProxy, direct } = await both("/chat/completions", { ...chatBody(s, false), n: 2 }, JSON.stringify(reply), "application/json");
    expect(viaProxy).toBe(direct);
    expect(JSON.parse(viaProxy).choices.map((c: Json) => c.message.tool_calls?.length ?? 0)).toEqual([1, 1]);
  });

  test("chat SSE with n=2 choices interleaved", async () => {
    const s = S(LEAK);
    const chunk = (index: number, delta: Json, finish: string | null = null) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "deepseek-chat", choices: [{ index, delta, finish_reason: finish }] })}\n\n`;
    let body = chunk(0, { role: "assistant", content: "" }) + chunk(1, { role: "assistant", content: "" });
    const a = LEAK.match(/[\s\S]{1,5}/g)!;
    const b = `Other. ${HERMES}`.match(/[\s\S]{1,5}/g)!;
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i]) body += chunk(0, { content: a[i] });
      if (b[i]) body += chunk(1, { content: b[i] });
    }
    body += chunk(0, {}, "stop") + chunk(1, {}, "stop") + "data: [DONE]\n\n";
    const { viaProxy, direct } = await both("/chat/completions", { ...chatBody(s, true), n: 2 }, body, "text/event-stream", 5);
    expect(viaProxy).toBe(direct);
    // Policy (src/wires/chat/rewriter.ts, fx50): a stream's choice 1 passes through unrepaired; choice 0 is repaired.
    expect((viaProxy.match(/"name":"read"/g) ?? []).length).toBe(1);
    const one = viaProxy.split("\n\n").filter((e) => e.startsWith("data: {")).map((e) => JSON.parse(e.slice(6)).choices[0]).filter((c) => c.index === 1).map((c) => c.delta.content ?? "").join("");
    expect(one).toBe(`Other. ${HERMES}`);
  });

  test("Anthropic JSON with two text blocks and thinking holding markup", async () => {
    const s = S("");
    const reply = { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "thinking", thinking: REASONING_MARKUP, signature: "sig" }, { type: "text", text: "One. " }, { type: "text", text: LEAK }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
    const { viaProxy, direct } = await both("/messages", anthropicBody(s, false), JSON.stringify(reply), "application/json");
    expect(viaProxy).toBe(direct);
    const out = JSON.parse(viaProxy);
    expect(out.content[0]).toEqual({ type: "thinking", thinking: REASONING_MARKUP, signature: "sig" });
    expect(out.content.filter((b: Json) => b.type === "tool_use").map((b: Json) => b.name)).toEqual(["read"]);
  });

  test("Responses JSON with reasoning holding markup and two message items", async () => {
    const s = S("");
    const output = [
      { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: REASONING_MARKUP }] },
      { id: "msg_0", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "One. ", annotations: [] }] },
      { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: LEAK, annotations: [] }] },
    ];
    const reply = { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output };
    const { viaProxy, direct } = await both("/responses", responsesBody(s, false), JSON.stringify(reply), "application/json");
    expect(viaProxy).toBe(direct);
    const out = JSON.parse(viaProxy).output as Json[];
    expect(out[0]).toEqual(output[0]);
    expect(out.filter((i) => i.type === "function_call").map((i) => i.name)).toEqual(["read"]);
  });

  test("a tool_choice naming glob: a leaked read is never a call, on any wire", async () => {
    const s = S(LEAK, { choice: { name: "glob" } });
    for (const [path, request, body] of [
      ["/chat/completions", chatBody(s, true), chatSse(s, 5)],
      ["/messages", anthropicBody(s, true), anthropicSse(s, [LEAK], 5)],
      ["/responses", responsesBody(s, true), responsesSse(s, [[LEAK]], 5)],
    ] as [string, Json, string][]) {
      const { viaProxy, direct } = await both(path, request, body, "text/event-stream", 3);
      expect(viaProxy).toBe(direct);
      expect(viaProxy).not.toMatch(/"name":"read"/);
    }
  });

  test("odd schemas: a tool without parameters, one with an anyOf, one with additionalProperties false", async () => {
    const tools = [
      { name: "ping" },
      { name: "read", parameters: { anyOf: [{ type: "object", properties: { filePath: { type: "string" } }, required: ["filePath"] }, { type: "object", properties: { url: { type: "string" } }, required: ["url"] }] } },
      { name: "glob", parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"], additionalProperties: false } },
    ] as unknown as Scenario["tools"];
    const text = live(`${block("tool_calls", [["read", [["filePath", "a.ts"]]], ["glob", [["pattern", "*"], ["evil", "x"]]], ["ping", []]])}`);
    const s = S(text, { tools });
    for (const [path, request, body] of [
      ["/chat/completions", chatBody(s, true), chatSse(s, 5)],
      ["/messages", anthropicBody(s, true), anthropicSse(s, [text], 5)],
      ["/responses", responsesBody(s, true), responsesSse(s, [[text]], 5)],
    ] as [string, Json, string][]) {
      const { viaProxy, direct } = await both(path, request, body, "text/event-stream", 3);
      expect(viaProxy).toBe(direct);
      // The glob invoke with an undeclared-by-schema argument never runs (it stays text).
      expect(viaProxy).not.toMatch(/"name":"glob"/);
    }
  });
});

