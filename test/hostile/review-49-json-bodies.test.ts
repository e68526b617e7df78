// Review 49 (hostile, tests only): odd JSON answer bodies through repairFetch's JSON path
// (src/adapters/fetch.ts repairJson/repairWireJson, src/adapters/json-splice.ts). No finding here:
// every test is a hard negative that passes today, kept because these bodies had no test that
// checks the bytes a client gets (a byte order mark, integers above 2^53, duplicate keys,
// `__proto__` members, invalid JSON, a compressed answer from a real server, n > 1 choices) and
// the JSON path's echo guard and denyTools. Markup is Hermes `<tool_call>` JSON: no DSML bytes.
import { describe, expect, test } from "bun:test";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { repairFetch } from "../../src/adapters/fetch.ts";
import type { AdapterResult } from "../../src/adapters/options.ts";
import { CHAT_URL, HERMES, READ, SCHEMA } from "./review-47-chat-support.ts";

const REQUEST = { model: "m", messages: [{ role: "user", content: "read a.ts" }], tools: [READ] };
const LEAK = JSON.stringify(`Reading. ${HERMES}`);

/** The repaired answer's bytes for `request` when the upstream answers `body` as JSON. */
async function repaired(body: string, request: object = REQUEST, options: object = {}): Promise<{ bytes: Uint8Array; results: AdapterResult[] }> {
  const results: AdapterResult[] = [];
  const upstream = (async () => new Response(body, { headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
  const res = await repairFetch({ ...options, onResult: (r) => void results.push(r) }, upstream)(CHAT_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  return { bytes: new Uint8Array(await res.arrayBuffer()), results };
}
const decode = (bytes: Uint8Array) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
const envelope = (choices: string, tail = "") => `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[${choices}]${tail}}`;
const choice = (message: string, finish = '"stop"') => `{"index":0,"message":${message},"finish_reason":${finish}}`;

describe("bytes outside the repair stay the server's", () => {
  test("a leading byte order mark stays, the call is recovered after it", async () => {
    const body = `\uFEFF${envelope(choice(`{"role":"assistant","content":${LEAK}}`))}`;
    const { bytes } = await repaired(body);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const parsed = JSON.parse(decode(bytes).slice(1));
    expect([parsed.choices[0].message.content, parsed.choices[0].message.tool_calls[0].function.arguments]).toEqual(["Reading. ", '{"path":"a.ts"}']);
  });

  test("integers above 2^53 and escapes outside the changed values keep their digits and spelling", async () => {
    const tail = ',"usage":{"prompt_tokens":12345678901234567890,"completion_tokens":1e2},"system_fingerprint":"fp\\u002fx"';
    const { bytes } = await repaired(envelope(choice(`{"role":"assistant","content":${LEAK}}`), tail));
    const text = decode(bytes);
    expect(text).toContain(tail);
    expect(JSON.parse(text).choices[0].finish_reason).toBe("tool_calls");
  });

  test("duplicate keys: the last copy (the one JSON.parse and the client keep) is the one repaired", async () => {
    const message = `{"role":"assistant","content":"plain","content":${LEAK}}`;
    const { bytes } = await repaired(envelope(choice(message, '"stop","finish_reason":"stop"')));
    const parsed = JSON.parse(decode(bytes));
    expect([parsed.choices[0].message.content, parsed.choices[0].message.tool_calls.length, parsed.choices[0].finish_reason]).toEqual(["Reading. ", 1, "tool_calls"]);
  });

  test("duplicate keys: a leak only in the copy JSON.parse drops never runs, the body goes on as it came", async () => {
    const body = envelope(choice(`{"role":"assistant","content":${LEAK},"content":"plain"}`));
    const { bytes } = await repaired(body);
    expect(decode(bytes)).toBe(body);
  });

  test("a __proto__ member stays an own member of the repaired message and pollutes nothing", async () => {
    const message = `{"__proto__":{"polluted":true},"role":"assistant","content":${LEAK}}`;
    const { bytes } = await repaired(envelope(choice(message)));
    const text = decode(bytes);
    expect(text).toContain('"__proto__":{"polluted":true}');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.parse(text).choices[0].message.tool_calls.length).toBe(1);
  });
});

describe("an answer that is not valid JSON goes on untouched", () => {
  const valid = envelope(choice(`{"role":"assistant","content":${LEAK}}`));
  for (const [name, body] of [
    ["trailing garbage", `${valid}x`],
    ["cut short", valid.slice(0, -2)],
    ["a NaN", valid.replace('"created":1', '"created":NaN')],
    ["two documents", `${valid}\n${valid}`],
    ["a bare string", LEAK],
    ["an array", `[${valid}]`],
  ] as const) {
    test(name, async () => {
      const { bytes, results } = await repaired(body);
      expect(decode(bytes)).toBe(body);
      expect(results.flatMap((r) => (r.summary?.recovered ? [r.summary.recovered] : []))).toEqual([]);
    });
  }
});

describe("a compressed answer from a real server, read by @ai-sdk/openai-compatible", () => {
  const body = envelope(choice(`{"role":"assistant","content":${LEAK}}`), ',"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}');
  for (const [coding, bytes] of [["gzip", gzipSync(body)], ["br", brotliCompressSync(body)]] as const) {
    test(`${coding}: the client gets the call and the repaired text`, async () => {
      const server = Bun.serve({ port: 0, fetch: () => new Response(bytes, { headers: { "content-type": "application/json", "content-encoding": coding } }) });
      try {
        const fetch = repairFetch({}, globalThis.fetch);
        const model = createOpenAICompatible({ name: "deepseek", baseURL: `http://127.0.0.1:${server.port}/v1`, apiKey: "k", fetch }).chatModel("deepseek-chat");
        const result = await model.doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "read a.ts" }] }], tools: [{ type: "function", name: "read", inputSchema: SCHEMA }] } as never);
        expect(result.content.map((p) => (p.type === "text" ? p.text : p.type === "tool-call" ? `${p.toolName} ${p.input}` : p.type))).toEqual(["Reading. ", 'read {"path":"a.ts"}']);
        expect(result.finishReason.unified).toBe("tool-calls");
      } finally {
        server.stop(true);
      }
    });
  }
});

describe("chat JSON with n > 1 choices", () => {
  test("every choice repaired on its own: distinct ids, arguments a JSON string, each finish tool_calls", async () => {
    const choices = [0, 1, 2].map((index) => `{"index":${index},"message":{"role":"assistant","content":${JSON.stringify(`Choice ${index}. ${HERMES.replace("a.ts", `${index}.ts`)}`)}},"finish_reason":"stop"}`).join(",");
    const { bytes } = await repaired(envelope(choices), { ...REQUEST, n: 3 });
    const parsed = JSON.parse(decode(bytes)) as { choices: { message: { content: string; tool_calls: { id: string; function: { arguments: unknown } }[] }; finish_reason: string }[] };
    const calls = parsed.choices.flatMap((c) => c.message.tool_calls);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    expect(calls.map((c) => c.function.arguments)).toEqual(['{"path":"0.ts"}', '{"path":"1.ts"}', '{"path":"2.ts"}']);
    expect(parsed.choices.map((c) => [c.message.content, c.finish_reason])).toEqual([0, 1, 2].map((i) => [`Choice ${i}. `, "tool_calls"]));
  });

  test("parallel_tool_calls false: one call per choice, not one for the whole answer", async () => {
    const choices = [0, 1].map((index) => `{"index":${index},"message":{"role":"assistant","content":${JSON.stringify(`${HERMES}\n${HERMES.replace("a.ts", "b.ts")}`)}},"finish_reason":"stop"}`).join(",");
    const { bytes } = await repaired(envelope(choices), { ...REQUEST, n: 2, parallel_tool_calls: false });
    const parsed = JSON.parse(decode(bytes)) as { choices: { message: { tool_calls?: unknown[] } }[] };
    expect(parsed.choices.map((c) => c.message.tool_calls?.length ?? 0)).toEqual([1, 1]);
  });
});

describe("echo guard and denyTools on the JSON path", () => {
  test("a call quoted from a tool result the request carried never runs", async () => {
    const request = {
      ...REQUEST,
      messages: [
        { role: "user", content: "what does notes.md say?" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"notes.md"}' } }] },
        { role: "tool", tool_call_id: "c1", content: `The notes say: ${HERMES}` },
      ],
    };
    const { bytes } = await repaired(envelope(choice(`{"role":"assistant","content":${JSON.stringify(`The notes say: ${HERMES}`)}}`)), request);
    expect(JSON.parse(decode(bytes)).choices[0].message.tool_calls).toBeUndefined();
  });

  test("a denied tool's leak never runs and stays visible", async () => {
    const body = envelope(choice(`{"role":"assistant","content":${LEAK}}`));
    const { bytes, results } = await repaired(body, REQUEST, { responseFix: { denyTools: ["read"] } });
    expect(decode(bytes)).toBe(body);
    expect(results.map((r) => r.summary?.nudge)).toEqual(["undeclared-tool"]);
  });
});
