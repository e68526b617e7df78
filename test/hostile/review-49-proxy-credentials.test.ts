// Review 49 (hostile, tests only): credentials in what a running `dsml-fix proxy --debug` writes
// (access lines, debug lines, error lines) over the request-side paths: history replaced and the
// correction added, a recovered call, an upstream error that echoes the key, a redirect that
// carries it, an unreachable upstream, a body that is not JSON or not UTF-8, and keys in the query,
// in `;` parameters and in a userinfo-shaped path segment. Through the real proxy on 127.0.0.1.
// Hard negatives (pass on main): kept because --debug is the mode users turn on to file a bug
// report, and each path here writes lines of its own. No DSML marker bytes here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chatSse, pieces, startProxy, startUpstream, type Proxy, type Upstream } from "../proxy/support.ts";

const SECRET = "sk-R49SECRETq7";
const LEAK = '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>';
const SCHEMA = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
const TOOLS = [{ type: "function", function: { name: "bash", parameters: SCHEMA } }];
const HEADERS = { "content-type": "application/json", authorization: `Bearer ${SECRET}`, "x-api-key": SECRET, "api-key": SECRET, "x-goog-api-key": SECRET, cookie: `session=${SECRET}`, "openai-organization": SECRET, "proxy-authorization": `Basic ${SECRET}` };

describe("a --debug proxy never writes a credential", () => {
  let upstream: Upstream;
  let proxy: Proxy;
  let deadPort: number;
  beforeAll(async () => {
    upstream = await startUpstream();
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
    deadPort = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    proxy = await startProxy(["--upstream", `${upstream.url}/v1`, "--route", `/dead=http://127.0.0.1:${deadPort}/v1`, "--debug"]);
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  const history = JSON.stringify({ model: "m", stream: true, tools: TOOLS, messages: [{ role: "user", content: "go" }, { role: "assistant", content: `Now ${LEAK}` }, { role: "user", content: "?" }] });
  const cases: [string, string, string | Uint8Array<ArrayBuffer>, (req: { headers: http.IncomingHttpHeaders }, res: http.ServerResponse) => void][] = [
    ["history replaced, correction added, a call recovered", "/chat/completions", history, (_q, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(chatSse(pieces(`Sure. ${LEAK}`)))],
    ["upstream 401 that echoes the key", "/chat/completions", history, (q, res) => res.writeHead(401, { "content-type": "application/json", "www-authenticate": `Bearer realm="${SECRET}"` }).end(JSON.stringify({ error: { message: `bad key ${q.headers.authorization}` } }))],
    ["upstream redirect carrying the key", "/chat/completions?key=" + SECRET, history, (_q, res) => res.writeHead(307, { location: `https://user:${SECRET}@elsewhere.invalid/v1/chat/completions?key=${SECRET}` }).end()],
    ["a body that is not JSON", "/chat/completions", `{"model":"m","api_key":"${SECRET}",`, (_q, res) => res.writeHead(400).end()],
    ["a body that is not UTF-8", "/chat/completions", new Uint8Array([...new TextEncoder().encode(history.slice(0, -1)), 0x2c, 0x22, 0x6b, 0x22, 0x3a, 0x22, 0xff, ...new TextEncoder().encode(SECRET), 0x22, 0x7d]), (_q, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}")],
    ["a key in ; parameters and a userinfo-shaped segment", `/chat/completions;key=${SECRET}`, history, (_q, res) => res.writeHead(404).end()],
    ["a key in a userinfo-shaped path segment", `/https:/u:${SECRET}@h/chat/completions`, history, (_q, res) => res.writeHead(404).end()],
    ["an unreachable upstream", `/dead/chat/completions?key=${SECRET}`, history, (_q, res) => res.writeHead(500).end()],
  ];
  for (const [name, path, body, answer] of cases) {
    test(`hard negative: ${name}`, async () => {
      upstream.answer((req, res) => answer(req, res));
      const before = upstream.seen.length;
      const res = await fetch(`${proxy.url}${path}`, { method: "POST", headers: HEADERS, body, redirect: "manual", signal: AbortSignal.timeout(5000) });
      await res.text();
      // The access line is written on close: wait for it (bounded rounds, no clock).
      for (let i = 0; i < 200 && !proxy.lines.some((l) => l.startsWith("POST ") && l.includes(" recovered=")) ; i++) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 20));
      const written = proxy.lines.join("\n");
      if (process.env.R49_SHOW) console.log(written);
      expect(written).not.toContain(SECRET);
      expect(written).not.toContain("R49SECRET");
      // A redirect is never followed: one request up.
      if (name.includes("redirect")) {
        expect(res.status).toBe(307);
        expect(upstream.seen.length - before).toBe(1);
      }
      proxy.lines.splice(0);
    });
  }
});
