// Review 48b (hostile, tests only): the Responses item_reference store (src/adapters/repaired-items.ts).
// One repairFetch serves every client and every route of the proxy (src/proxy/server.ts builds one
// over all routes), and the store is keyed by the bare item id: an item_reference that reaches a
// different upstream (another route / another provider) with an id the repair once noted for the
// first upstream is replaced by the first upstream's repaired text. No DSML marker bytes here.
import { describe, expect, test } from "bun:test";
import { repairFetch } from "../../src/adapters/fetch.ts";
import { type Json, HERMES, SCHEMA, message, responseObject } from "./review-48-wires-support.ts";

/** One repairFetch over a base that answers each request with the JSON reply for its origin, recording what went up. */
function shared(replies: Record<string, Json[]>) {
  const seen: { url: string; body: Json }[] = [];
  const base = (async (url: unknown, init?: RequestInit) => {
    const href = String(url);
    seen.push({ url: href, body: JSON.parse(String(init?.body)) });
    const output = replies[new URL(href).origin] ?? [message("msg_other", "ok")];
    return new Response(JSON.stringify(responseObject("completed", output)), { headers: { "content-type": "application/json" } });
  }) as unknown as typeof fetch;
  return { fix: repairFetch({}, base), seen };
}

const tools = [{ type: "function", name: "read", parameters: SCHEMA }];
const post = (fix: typeof fetch, url: string, body: Json) => fix(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.text());

describe("item_reference store: scope of a remembered item", () => {
  // FINDING (low-medium: cross-client/cross-upstream text injection and disclosure; src/adapters/repaired-items.ts,
  // src/adapters/fetch.ts planRequest): the store is keyed by the item id alone, shared by every
  // route of the proxy. Upstream A (ids like msg_1 from an OpenAI-compatible local server that numbers
  // its items) gets a leak repaired under msg_1; a request to upstream B that refers to ITS OWN msg_1
  // goes up with A's assistant text inline in place of B's own stored item: A's conversation text is
  // disclosed to B and B's model sees a turn it never wrote. Expected: a remembered item is used
  // only for a request to the same upstream origin (and path prefix) it came from; else the
  // reference goes up as it came.
  test("fixed: an id noted from upstream A is not resolved in a request to upstream B", async () => {
    const { fix, seen } = shared({ "http://a.test": [message("msg_1", `Secret plan for A. ${HERMES}`)] });
    await post(fix, "http://a.test/v1/responses", { model: "m", input: [{ role: "user", content: "read a.ts" }], tools });
    await post(fix, "http://b.test/v1/responses", { model: "m", input: [{ role: "user", content: "hi" }, { type: "item_reference", id: "msg_1" }, { role: "user", content: "go on" }], tools });
    const up = seen[1]!.body.input as Json[];
    expect(JSON.stringify(up)).not.toContain("Secret plan for A.");
    expect(up[1]).toEqual({ type: "item_reference", id: "msg_1" });
  });

  // Hard negative: the same upstream, a later turn, still inlines (the fix must keep this).
  test("the same upstream: the reference to the repaired item goes up inline without the leak", async () => {
    const { fix, seen } = shared({ "http://a.test": [message("msg_1", `Reading. ${HERMES}`)] });
    await post(fix, "http://a.test/v1/responses", { model: "m", input: [{ role: "user", content: "read a.ts" }], tools });
    await post(fix, "http://a.test/v1/responses", { model: "m", input: [{ role: "user", content: "read a.ts" }, { type: "item_reference", id: "msg_1" }], tools });
    const up = seen[1]!.body.input as Json[];
    expect(up[1]).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading. " }] });
    expect(JSON.stringify(up)).not.toContain("<tool_call>");
  });
});
