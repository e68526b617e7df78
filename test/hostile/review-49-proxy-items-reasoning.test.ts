// Review 49 (hostile, tests only): the reasoning item dropped with a repaired message inlined
// (src/adapters/repaired-items.ts edits), through the real proxy on 127.0.0.1 against a fake
// Responses upstream (JSON answers). No DSML marker bytes here.
import { describe, expect, test } from "bun:test";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";

type Json = Record<string, any>;
const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const TOOLS = [{ type: "function", name: "read", parameters: SCHEMA }];
const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const ref = (id: string) => ({ type: "item_reference", id });

describe("through the proxy: a repaired message between its reasoning and a native call of the same reply", () => {
  let upstream: Upstream;
  let proxy: Proxy;
  proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

  // Rule (src/adapters/repaired-items.ts edits): a reasoning item goes with an inlined repaired
  // message only when nothing else of that reply still goes up by its server id. A reasoning
  // model's reply [rs_1, msg_1 (leak, repaired), fc_1 (its own native call)] replayed by reference
  // keeps all three references: OpenAI refuses fc_1 without rs_1 (400 "provided without its
  // required 'reasoning' item", cline/cline#12242) and rs_1 followed by an inline message without
  // id (400 "without its required following item"), and the client replays the same history on
  // every later turn. Affects a client that replays every output item by reference (or a
  // function_call inline WITH its server id, as openai-agents' to_input_list does); @ai-sdk/openai
  // sends a function_call inline without an id and keeps the inlining (review-49-proxy-items).
  test("a native fc_ of the same reply never goes up without its reasoning item: the reply's references go up as sent", async () => {
    const output = [
      { id: "rs_1", type: "reasoning", summary: [] },
      { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: `Reading both. ${HERMES}`, annotations: [] }] },
      { id: "fc_1", type: "function_call", status: "completed", call_id: "call_1", name: "read", arguments: '{"path":"b.ts"}' },
    ];
    let n = 0;
    upstream.answer((_req, res) => {
      const body = JSON.stringify({ id: `resp_${++n}`, object: "response", created_at: 1, status: "completed", model: "m", output: n === 1 ? output : [] });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    const post = (body: Json) => fetch(`${proxy.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
    const first = await post({ model: "m", input: [{ role: "user", content: "read a.ts and b.ts" }], tools: TOOLS });
    expect(first.output.map((i: Json) => i.id)).toEqual(["rs_1", "msg_1", "fc_1"]);
    const calls = first.output.filter((i: Json) => i.type === "function_call");
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts and b.ts" }, ref("rs_1"), ref("msg_1"), ref("fc_1"), ...calls.map((c: Json) => ({ type: "function_call_output", call_id: c.call_id, output: "x" }))] });
    const input: Json[] = JSON.parse(upstream.seen[1]!.body).input;
    const ids = input.map((i) => i.id ?? null);
    // The leak is gone from what goes up (the store's purpose; kept by any fix).
    expect(JSON.stringify(input)).not.toContain("<tool_call>");
    const fc = ids.indexOf("fc_1");
    if (fc >= 0) expect(ids.slice(0, fc)).toContain("rs_1");
    expect(input.slice(1, 4)).toEqual([ref("rs_1"), ref("msg_1"), ref("fc_1")]);
  });

  test("a function_call inline WITH its server id after the repaired message keeps the references too", async () => {
    const output = [
      { id: "rs_1", type: "reasoning", summary: [] },
      { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: `Reading both. ${HERMES}`, annotations: [] }] },
      { id: "fc_1", type: "function_call", status: "completed", call_id: "call_1", name: "read", arguments: '{"path":"b.ts"}' },
    ];
    let n = 0;
    upstream.answer((_req, res) => {
      const body = JSON.stringify({ id: `resp_${++n}`, object: "response", created_at: 1, status: "completed", model: "m", output: n === 1 ? output : [] });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    const post = (body: Json) => fetch(`${proxy.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
    await post({ model: "m", input: [{ role: "user", content: "read a.ts and b.ts" }], tools: TOOLS });
    const fc = { type: "function_call", id: "fc_1", call_id: "call_1", name: "read", arguments: '{"path":"b.ts"}' };
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts and b.ts" }, ref("rs_1"), ref("msg_1"), fc, { type: "function_call_output", call_id: "call_1", output: "x" }] });
    const input: Json[] = JSON.parse(upstream.seen[1]!.body).input;
    expect(input.slice(1, 4)).toEqual([ref("rs_1"), ref("msg_1"), fc]);
  });
});
