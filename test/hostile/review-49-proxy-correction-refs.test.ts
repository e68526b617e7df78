// Review 49 (hostile, tests only): the proxy's stateless correction (src/adapters/request-history.ts)
// for a Responses client that replays the model's reply BY REFERENCE (`store` on, @ai-sdk/openai's
// default: `{ type: "item_reference", id }`), through the real proxy on 127.0.0.1 against a fake
// upstream. No DSML marker bytes here.
import { describe, expect, test } from "bun:test";
import { correctionText } from "../../src/retry/state.ts";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";

type Json = Record<string, any>;
const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const TOOLS = [{ type: "function", name: "read", parameters: SCHEMA }];
// A leak the live repair cannot run: the required `path` is missing.
const BROKEN = '<tool_call>{"name":"read","arguments":{"file":"a.ts"}}</tool_call>';
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

  // FINDING (missed correction, the lowest tier: the model is never told its call did not run;
  // src/adapters/request-history.ts isModelItem counts every item_reference as a model ANSWER, and
  // the proxy keeps no note of which reply ran nothing): the client replays the very reply that
  // ran nothing as `item_reference msg_b3`, the newest model item. The proxy reads that reference as
  // "the model answered after the leak" and adds no correction; the leak itself is in the server's
  // stored copy, out of sight. The proxy schedules no live correction either (README: the fallback
  // route schedules none), so for a store-on Responses client the correction is never sent.
  // Expected: as inline, one correction (e.g. the repairFetch notes the ids of message items whose
  // markup ran nothing, as it notes repaired ones, and a reference to one that is the newest model
  // item counts as that reply).
  test("replayed by item_reference, the reply that ran nothing still gets the correction", async () => {
    const first = await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts" }] }, [message("msg_b3", `Reading. ${BROKEN}`)]);
    expect(first.output.some((i: Json) => i.type === "function_call")).toBe(false);
    await post({ model: "m", tools: TOOLS, input: [{ role: "user", content: "read a.ts" }, { type: "item_reference", id: "msg_b3" }, { role: "user", content: "well?" }] }, [message("msg_b4", "ok")]);
    expect(upstream.seen.at(-1)!.body.split(REISSUE).length - 1).toBe(1);
  });
});
