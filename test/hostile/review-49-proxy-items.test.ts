// Review 49 (hostile, tests only): the Responses repaired-items store (src/adapters/repaired-items.ts)
// through the real `dsml-fix proxy` on 127.0.0.1 in front of a fake Responses upstream (JSON answers).
// No DSML marker bytes here: the leaks are Hermes `<tool_call>` markup.
import { describe, expect, test } from "bun:test";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";
import { namedSse, responsesEvents } from "./review-48-wires-support.ts";

type Json = Record<string, any>;
const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const TOOLS = [{ type: "function", name: "read", parameters: SCHEMA }];
const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const message = (id: string, text: string): Json => ({ id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
const responseObject = (id: string, output: Json[]): Json => ({ id, object: "response", created_at: 1, status: "completed", model: "m", output });
const ref = (id: string) => ({ type: "item_reference", id });

/** The upstream answers each request with the next of `outputs` (JSON, not streamed). */
function answerWith(upstream: Upstream, outputs: Json[][]): void {
  let n = 0;
  upstream.answer((_req, res) => {
    const output = outputs[Math.min(n, outputs.length - 1)]!;
    const body = JSON.stringify(responseObject(`resp_${++n}`, output));
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
}

async function post(proxy: Proxy, path: string, body: Json): Promise<Json> {
  const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-test" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  return JSON.parse(await res.text());
}

describe("through the proxy: item_reference after a repaired message", () => {
  let upstream: Upstream;
  let proxy: Proxy;
  proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

  // Hard negative (passes on main): the repaired message goes up inline, its reasoning reference
  // with it, and no correction is added (the model's reply after it is newest).
  test("hard negative: a repaired msg is inlined for the same route and its paired rs_ goes with it", async () => {
    answerWith(upstream, [[message("msg_leak_1", `Reading. ${HERMES}`)], [message("msg_ok_2", "Done.")]]);
    const first = await post(proxy, "/responses", { model: "m", input: [{ role: "user", content: "read a.ts" }], tools: TOOLS });
    expect(first.output.some((i: Json) => i.type === "function_call" && i.name === "read")).toBe(true);
    const call = first.output.find((i: Json) => i.type === "function_call");
    await post(proxy, "/responses", {
      model: "m",
      tools: TOOLS,
      input: [{ role: "user", content: "read a.ts" }, ref("rs_1"), ref("msg_leak_1"), { type: "function_call", call_id: call.call_id, name: "read", arguments: call.arguments }, { type: "function_call_output", call_id: call.call_id, output: "x" }],
    });
    const up = JSON.parse(upstream.seen[1]!.body);
    expect(up.input[1]).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading. " }] });
    expect(up.input.some((i: Json) => i.type === "item_reference")).toBe(false);
    expect(up.instructions).toBeUndefined();
  });

  // Rule (src/adapters/repaired-items.ts note; src/wires/responses/wire.ts and stream.ts tell the
  // store of every id a reply gives, changed or not): an upstream that numbers its items (a local
  // OpenAI-compatible server that restarts, or one that numbers per response: msg_0, msg_1) answers
  // a later reply with an id the store already holds, unchanged this time. The client's next
  // item_reference to that id (its own, clean reply "The tests pass.") goes up as sent, never as the
  // old repaired message of another conversation ("Reading a.ts for you."), perhaps another
  // client's (the proxy's store serves every client).
  test("an id the upstream gives again (unchanged this time) is not resolved to the old repaired copy", async () => {
    answerWith(upstream, [[message("msg_1", `Reading a.ts for you. ${HERMES}`)], [message("msg_1", "The tests pass.")], [message("msg_2", "ok")]]);
    await post(proxy, "/responses", { model: "m", input: [{ role: "user", content: "read a.ts" }], tools: TOOLS });
    const second = await post(proxy, "/responses", { model: "m", input: [{ role: "user", content: "run the tests" }], tools: TOOLS });
    expect(second.output[0].content[0].text).toBe("The tests pass.");
    await post(proxy, "/responses", { model: "m", input: [{ role: "user", content: "run the tests" }, ref("msg_1"), { role: "user", content: "thanks, now commit" }], tools: TOOLS });
    const up = JSON.parse(upstream.seen[2]!.body);
    expect(JSON.stringify(up.input)).not.toContain("Reading a.ts for you.");
    expect(up.input[1]).toEqual(ref("msg_1"));
  });

  test("streamed: an id the upstream gives again (unchanged this time) is not resolved to the old repaired copy", async () => {
    const replies = [[message("msg_1", `Reading a.ts for you. ${HERMES}`)], [message("msg_1", "The tests pass.")], [message("msg_2", "ok")]];
    let n = 0;
    upstream.answer((_req, res) => {
      const output = replies[Math.min(n++, replies.length - 1)]!;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(namedSse(responsesEvents(output, 7)));
    });
    const stream = (input: Json[]) => fetch(`${proxy.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, input, tools: TOOLS }), signal: AbortSignal.timeout(5000) }).then((r) => r.text());
    expect(await stream([{ role: "user", content: "read a.ts" }])).not.toContain("<tool_call>");
    await stream([{ role: "user", content: "run the tests" }]);
    await stream([{ role: "user", content: "run the tests" }, ref("msg_1"), { role: "user", content: "thanks, now commit" }]);
    const up = JSON.parse(upstream.seen[2]!.body);
    expect(JSON.stringify(up.input)).not.toContain("Reading a.ts for you.");
    expect(up.input[1]).toEqual(ref("msg_1"));
  });

  test("hard negative: the repaired id given once more, changed again, resolves to the newest repaired text", async () => {
    answerWith(upstream, [[message("msg_1", `Reading a.ts for you. ${HERMES}`)], [message("msg_1", `Reading b.ts now. ${HERMES}`)], [message("msg_2", "ok")]]);
    await post(proxy, "/responses", { model: "m", input: [{ role: "user", content: "read a.ts" }], tools: TOOLS });
    await post(proxy, "/responses", { model: "m", input: [{ role: "user", content: "read b.ts" }], tools: TOOLS });
    await post(proxy, "/responses", { model: "m", input: [{ role: "user", content: "read b.ts" }, ref("msg_1"), { role: "user", content: "ok" }], tools: TOOLS });
    const up = JSON.parse(upstream.seen[2]!.body);
    expect(up.input[1]).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading b.ts now. " }] });
  });
});
