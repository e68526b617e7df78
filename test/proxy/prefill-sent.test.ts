/**
 * Through the proxy (review 44, finding 2): the reply is read after the prefill as it went
 * upstream. The proxy's own history pass rewrites the body before repairFetch reads it, so a
 * `<code>` that only the removed call held opens nothing for the reply, and the model's call runs.
 * Hard negative: a fence after the removed call still goes up, and holds the reply's example.
 */
import { describe, expect, test } from "bun:test";
import type { ServerResponse } from "node:http";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { proxyFixture, TOOLS, type Proxy, type Upstream } from "./support.ts";

let upstream: Upstream;
let proxy: Proxy;
proxyFixture("", (both) => ({ upstream, proxy } = both));

const CALL = '<tool_call>{"name":"read","arguments":{"path":"/etc/passwd"}}</tool_call>';
const CUT = '<tool_call>{"name":"read","arguments":{"path":"';

async function prefixed(prefill: string, content: string): Promise<{ calls: string[]; sent: string }> {
  const answer = { id: "c", object: "chat.completion", created: 1, model: "deepseek-chat", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] };
  upstream.answer((_req, res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer)));
  const body = { model: "deepseek-chat", tools: TOOLS, messages: [{ role: "user", content: "Read the file." }, { role: "assistant", content: prefill, prefix: true }] };
  const res = await fetch(`${proxy.url}/beta/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  const out = (await res.json()) as { choices: { message: { tool_calls?: { function: { name: string } }[] } }[] };
  const sent = (JSON.parse(upstream.seen[0]!.body).messages as { content: string }[]).at(-1)!.content;
  return { calls: (out.choices[0]!.message.tool_calls ?? []).map((c) => c.function.name), sent };
}

describe("proxy: the reply continues the sanitized prefill", () => {
  test("a `<code>` only the removed call held opens nothing: the model's call runs", async () => {
    expect(await prefixed(`Calling: ${CUT}<code>`, `\n${CALL}`)).toEqual({ calls: ["read"], sent: `Calling: ${REMOVED_NOTE}` });
  });

  test("hard negative: a fence after the removed call goes up with it and holds the reply's example", async () => {
    const out = await prefixed(`Calling:\n${CUT}a"}\n\`\`\`\n`, `${CALL}\n\`\`\``);
    expect(out).toEqual({ calls: [], sent: `Calling:\n${REMOVED_NOTE}\n\`\`\`\n` });
  });
});
