// A `;parameter` on a wire path's segment (RFC 3986 path parameters: `/v1/chat/completions;x`) is
// no way around the repair and the history pass: a server that strips path parameters (servlet
// containers do) routes it as the same endpoint, so the proxy reads it as that wire too. Through
// the real proxy on 127.0.0.1 against a fake upstream. No DSML marker bytes here.
import { describe, expect, test } from "bun:test";
import { correctionText } from "../../src/retry/state.ts";
import { proxyFixture, type Proxy, type Upstream } from "./support.ts";

type Json = Record<string, any>;
const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const TOOLS = [{ type: "function", function: { name: "bash", parameters: SCHEMA } }];
const LEAK = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
const BROKEN = '<tool_call>{"name":"bash","arguments":{"cmd":"ls"}}</tool_call>';
const REISSUE = "call it again through the tool-calling interface";

describe("through the proxy: a path parameter on a wire path", () => {
  let upstream: Upstream;
  let proxy: Proxy;
  proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

  async function post(path: string, body: Json, content: string): Promise<Json> {
    const answer = { id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }] };
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer)));
    const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
    return JSON.parse(await res.text());
  }

  for (const path of ["/chat/completions;x", "/chat;a=1/completions;b"]) {
    test(`${path}: the leak in the reply becomes a call, and the path goes up as sent`, async () => {
      const reply = await post(path, { model: "m", tools: TOOLS, messages: [{ role: "user", content: "ls" }] }, `Listing. ${LEAK}`);
      expect(reply.choices[0].message.tool_calls?.[0]?.function?.name).toBe("bash");
      expect(upstream.seen.at(-1)!.url).toBe(`/v1${path}`);
    });

    test(`${path}: history is sanitized and the correction added`, async () => {
      await post(path, { model: "m", tools: TOOLS, messages: [{ role: "user", content: "ls" }, { role: "assistant", content: `Listing. ${BROKEN}` }, { role: "user", content: "?" }] }, "ok");
      const up = upstream.seen.at(-1)!.body;
      expect(up).not.toContain("<tool_call>");
      expect(up.split(REISSUE).length - 1).toBe(1);
      expect(up).toContain(JSON.stringify(correctionText("broken-markup")).slice(1, 40));
    });
  }

  test("control: an escaped semicolon (%3B) is part of the segment: no wire, the body goes up as sent", async () => {
    const body = { model: "m", tools: TOOLS, messages: [{ role: "user", content: "ls" }, { role: "assistant", content: `Listing. ${BROKEN}` }, { role: "user", content: "?" }] };
    const reply = await post("/chat/completions%3Bx", body, `Listing. ${LEAK}`);
    expect(reply.choices[0].message.tool_calls).toBeUndefined();
    expect(upstream.seen.at(-1)!.body).toBe(JSON.stringify(body));
  });
});
