// Review 49 (hostile, tests only): the repaired item the proxy remembers from a STREAMED Responses
// reply (src/wires/responses/stream.ts -> src/adapters/repaired-items.ts) is the same for every split
// of the upstream's bytes, and equals the text the client was shown and the one remembered from the
// same reply as JSON. Through the real proxy on 127.0.0.1; seeded, bounded fast-check. Hard negative
// (passes on main): kept because the stream path notes the item at output_item.done and again at
// response.completed, and a split that changed either would put text the client never saw into the
// model's context. No DSML marker bytes here.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { proxyFixture, type Proxy, type Upstream } from "../proxy/support.ts";
import { namedSse, responsesEvents, type Json } from "./review-48-wires-support.ts";
import { seededCuts } from "../adapters/wire-support.ts";

const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const TOOLS = [{ type: "function", name: "read", parameters: SCHEMA }];
const HERMES = '<tool_call>{"name":"read","arguments":{"path":"a.ts"}}</tool_call>';
const TEXTS = [`Let me look. ${HERMES}`, `Plan:\n1. read\n${HERMES}\n`, `\u00e9t\u00e9 \u{1F600} ${HERMES}`];
const message = (id: string, text: string): Json => ({ id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });

describe("through the proxy: the remembered repaired item does not depend on stream splits", () => {
  let upstream: Upstream;
  let proxy: Proxy;
  proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

  async function roundTrip(id: string, answer: (res: import("node:http").ServerResponse) => void, stream: boolean): Promise<{ shown: string; inlined: unknown }> {
    upstream.answer((_req, res) => answer(res));
    const first = await fetch(`${proxy.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream, input: [{ role: "user", content: "read a.ts" }], tools: TOOLS }), signal: AbortSignal.timeout(5000) });
    const text = await first.text();
    let shown: string;
    if (stream) {
      const events = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
      const completed = events.find((e) => e.type === "response.completed");
      shown = completed.response.output.find((i: Json) => i.id === id).content[0].text;
      // What a client that reads deltas (@ai-sdk/openai) shows: the same text.
      expect(events.filter((e) => e.type === "response.output_text.delta" && e.item_id === id).map((e) => e.delta).join("")).toBe(shown);
    } else shown = JSON.parse(text).output.find((i: Json) => i.id === id).content[0].text;
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    await (await fetch(`${proxy.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", input: [{ role: "user", content: "read a.ts" }, { type: "item_reference", id }], tools: TOOLS }), signal: AbortSignal.timeout(5000) })).text();
    return { shown, inlined: JSON.parse(upstream.seen.at(-1)!.body).input[1] };
  }

  test("every split, delta size and text: the inlined item is the text the client saw, as from the JSON reply", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: TEXTS.length - 1 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 1e9 }), async (which, size, seed) => {
        const id = `msg_split_${++n}`;
        const item = message(id, TEXTS[which]!);
        const bytes = new TextEncoder().encode(namedSse(responsesEvents([item], size)));
        const streamed = await roundTrip(id, (res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          for (const part of seededCuts(bytes, seed, 48)) res.write(part);
          res.end();
        }, true);
        const jid = `${id}_json`;
        const json = await roundTrip(jid, (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "resp_j", object: "response", created_at: 1, status: "completed", model: "m", output: [message(jid, TEXTS[which]!)] })), false);
        expect(streamed.shown).not.toContain("<tool_call>");
        expect(streamed.inlined).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: streamed.shown }] });
        expect(json.inlined).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: json.shown }] });
        expect(streamed.shown).toBe(json.shown);
      }),
      { numRuns: 40, seed: 4901 },
    );
  }, 60_000);
});
