// Review 49 (hostile, tests only): the proxy's stateless correction (src/adapters/request-history.ts)
// for a Responses client that replays the model's reply BY REFERENCE (`store` on, @ai-sdk/openai's
// default: `{ type: "item_reference", id }`), through the real proxy on 127.0.0.1 against a fake
// upstream. No DSML marker bytes here.
import { describe, expect, test } from "bun:test";
import { correctionText } from "../../src/retry/state.ts";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";
import { namedSse, responsesEvents } from "./review-48-wires-support.ts";

type Json = Record<string, any>;
const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const TOOLS = [{ type: "function", name: "read", parameters: SCHEMA }];
// A leak the live repair cannot run: the required `path` is missing.
const BROKEN = '<tool_call>{"name":"read","arguments":{"file":"a.ts"}}</tool_call>';
// The same call well-formed: quoted from given content, the echo guard keeps it from running.
const GOOD = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const REISSUE = "call it again through the tool-calling interface";
const message = (id: string, text: string): Json => ({ id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });

describe("through the proxy: a reply that ran nothing, replayed by item_reference", () => {
  let upstream: Upstream;
  let proxy: Proxy;
  proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

  async function post(body: Json, output: Json[]): Promise<Json> {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "resp_1", object: "response", created_at: 1, status: "completed", model: "m", output })));
    const res = await fetch(`${proxy.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
    return JSON.parse(await res.text());
  }

  // Control (passes on main): the same reply replayed INLINE gets the correction once.
  test("control: replayed inline, the reply that ran nothing gets the correction", async () => {
    const first = await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts" }] }, [message("msg_b1", `Reading. ${BROKEN}`)]);
    expect(first.output.some((i: Json) => i.type === "function_call")).toBe(false);
    const shown = first.output[0].content[0].text;
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: shown }] }, { role: "user", content: "well?" }] }, [message("msg_b2", "ok")]);
    expect(upstream.seen.at(-1)!.body.split(REISSUE).length - 1).toBe(1);
  });

  // Rule (src/adapters/repaired-items.ts shown/resolve, src/adapters/request-history.ts resolve):
  // the proxy remembers the message items of a reply whose markup ran nothing, as they went out,
  // as it remembers repaired ones; a client that replays that reply by `item_reference` (store on,
  // @ai-sdk/openai's default) gets the stateless correction once, as inline. The reference itself
  // goes up as sent. A restarted proxy has no such memory: a reference to a reply it did not see
  // reads as the model's answer (no correction), as before.
  test("replayed by item_reference, the reply that ran nothing still gets the correction", async () => {
    const first = await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts" }] }, [message("msg_b3", `Reading. ${BROKEN}`)]);
    expect(first.output.some((i: Json) => i.type === "function_call")).toBe(false);
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts" }, { type: "item_reference", id: "msg_b3" }, { role: "user", content: "well?" }] }, [message("msg_b4", "ok")]);
    const up = JSON.parse(upstream.seen.at(-1)!.body);
    expect(upstream.seen.at(-1)!.body.split(REISSUE).length - 1).toBe(1);
    expect(up.input[1]).toEqual({ type: "item_reference", id: "msg_b3" });
    // The model answered (msg_b4, clean: not remembered): the next request gets no second correction.
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts" }, { type: "item_reference", id: "msg_b3" }, { role: "user", content: "well?" }, { type: "item_reference", id: "msg_b4" }, { role: "user", content: "go on" }] }, [message("msg_b5", "ok")]);
    expect(upstream.seen.at(-1)!.body).not.toContain(REISSUE);
  });

  test("streamed: replayed by item_reference, the reply that ran nothing still gets the correction", async () => {
    upstream.answer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(namedSse(responsesEvents([message("msg_s1", `Reading. ${BROKEN}`)], 5)));
    });
    const res = await fetch(`${proxy.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, tools: TOOLS, input: [{ role: "user", content: "read a.ts" }] }), signal: AbortSignal.timeout(5000) });
    expect(await res.text()).not.toContain('"function_call"');
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts" }, { type: "item_reference", id: "msg_s1" }, { role: "user", content: "well?" }] }, [message("msg_s2", "ok")]);
    expect(upstream.seen.at(-1)!.body.split(REISSUE).length - 1).toBe(1);
  });

  test("hard negative: a reference to a clean reply, or to one the proxy never saw, gets no correction", async () => {
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "hi" }] }, [message("msg_c1", "Hello.")]);
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "hi" }, { type: "item_reference", id: "msg_c1" }, { role: "user", content: "well?" }] }, [message("msg_c2", "ok")]);
    expect(upstream.seen.at(-1)!.body).not.toContain(REISSUE);
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "hi" }, { type: "item_reference", id: "msg_unseen" }, { role: "user", content: "well?" }] }, [message("msg_c3", "ok")]);
    expect(upstream.seen.at(-1)!.body).not.toContain(REISSUE);
  });

  // The echo guard strips the quote live, so the reference resolves to the text the client saw, which holds no markup.
  test("hard negative: a reference to a reply that quoted given markup gets no correction", async () => {
    const given = `Here is the file:\n${GOOD}`;
    const first = await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: given }] }, [message("msg_q1", `It says ${GOOD}`)]);
    expect(first.output.some((i: Json) => i.type === "function_call")).toBe(false);
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: given }, { type: "item_reference", id: "msg_q1" }, { role: "user", content: "well?" }] }, [message("msg_q2", "ok")]);
    expect(upstream.seen.at(-1)!.body).not.toContain(REISSUE);
  });
});
