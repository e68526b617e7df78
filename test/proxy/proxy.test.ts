// The proxy end to end: a real client -> the real proxy server -> a fake upstream on loopback.
import { describe, expect, test } from "bun:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, streamText, tool } from "ai";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { correctionText } from "../../src/retry/state.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { block, live } from "../golden/notation.ts";
import { anthropicStream, responsesStream } from "../e2e/wire-servers.ts";
import { chatSse, pieces, proxyFixture, startProxy, startUpstream, TOOLS, type Proxy, type Upstream } from "./support.ts";

const LEAK = live(block("tool_calls", [["read", [["path", "a.ts"]]]]));
const SAID = "I'll read it.\n\n";
let upstream: Upstream;
let proxy: Proxy;
proxyFixture("/v1", (both) => ({ upstream, proxy } = both));

const sseReply = (text: string) => (_req: unknown, res: import("node:http").ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" }).end(text);
const post = (path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });

describe("a leaked call becomes a real call on each wire", () => {
  test("chat-completions, with the AI SDK's OpenAI-compatible client as the caller", async () => {
    upstream.answer(sseReply(chatSse(pieces(SAID + LEAK))));
    const provider = createOpenAICompatible({ baseURL: `${proxy.url}/chat-base`, name: "deepseek", apiKey: "sk-secret" });
    const result = streamText({
      model: provider.chatModel("deepseek-chat"),
      prompt: "read a.ts",
      tools: { read: tool({ description: "read a file", inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }) }) },
    });
    const calls = [];
    for await (const part of result.fullStream) if (part.type === "tool-call") calls.push([part.toolName, part.input]);
    expect(calls).toEqual([["read", { path: "a.ts" }]]);
    expect(await result.text).not.toContain("invoke");
    expect(upstream.seen[0]!.url).toBe("/v1/chat-base/chat/completions");
    expect(upstream.seen[0]!.headers.authorization).toBe("Bearer sk-secret");
    expect(proxy.lines.some((l) => /^POST \/chat-base\/chat\/completions 200 \d+ms recovered=1$/.test(l))).toBe(true);
    expect(proxy.lines.join("\n")).not.toContain("sk-secret");
  });

  test("Anthropic Messages: a tool_use block, x-api-key forwarded", async () => {
    upstream.answer(sseReply(anthropicStream(SAID + LEAK, "deepseek-chat")));
    const tools = [{ name: "read", input_schema: TOOLS[0]!.function.parameters }];
    const res = await post("/messages", { model: "deepseek-chat", stream: true, max_tokens: 10, messages: [{ role: "user", content: "read a.ts" }], tools }, { "x-api-key": "ak-secret" });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('"type":"tool_use"');
    expect(text).not.toContain("invoke");
    expect(upstream.seen[0]!.headers["x-api-key"]).toBe("ak-secret");
  });

  test("Responses: a function_call item", async () => {
    upstream.answer(sseReply(responsesStream(SAID + LEAK, "deepseek-chat")));
    const tools = [{ type: "function", name: "read", parameters: TOOLS[0]!.function.parameters }];
    const res = await post("/responses", { model: "deepseek-chat", stream: true, input: "read a.ts", tools });
    const text = await res.text();
    expect(text).toContain('"type":"function_call"');
    expect(text).not.toContain("invoke");
  });
});

describe("everything else passes through byte for byte", () => {
  test("a clean streamed reply keeps its exact bytes", async () => {
    const clean = chatSse(pieces("caf\u00e9, no call here <b>bold</b>"));
    upstream.answer(sseReply(clean));
    const res = await post("/chat/completions", { model: "m", stream: true, messages: [], tools: TOOLS });
    expect(await res.text()).toBe(clean);
  });

  test("an unknown path: method, query, headers and body go up unchanged; the answer comes back unchanged", async () => {
    const body = `{"data":[{"id":"m"}],"note":"${LEAK.replaceAll("\n", "\\n").replaceAll('"', '\\"')}"}`;
    upstream.answer((_req, res) => res.writeHead(203, { "content-type": "application/json", "x-upstream": "yes" }).end(body));
    const res = await fetch(`${proxy.url}/models?limit=2&key=k`, { method: "PUT", headers: { authorization: "Bearer t", "x-custom": "1", "x-dsml-fix-tag": "forged" }, body: "raw body" });
    expect(res.status).toBe(203);
    expect(res.headers.get("x-upstream")).toBe("yes");
    expect(await res.text()).toBe(body);
    const seen = upstream.seen[0]!;
    expect([seen.method, seen.url, seen.body, seen.headers.authorization, seen.headers["x-custom"]]).toEqual(["PUT", "/v1/models?limit=2&key=k", "raw body", "Bearer t", "1"]);
    expect(Object.keys(seen.headers).some((h) => h.includes("dsml"))).toBe(false);
    expect(proxy.lines.join("\n")).not.toContain("key=k");
  });

  test("a non-2xx answer keeps its status and bytes, leak or not", async () => {
    const error = `{"error":{"message":"rate limited ${LEAK.replaceAll("\n", " ").replaceAll('"', "'")}"}}`;
    upstream.answer((_req, res) => res.writeHead(429, { "content-type": "application/json", "retry-after": "3" }).end(error));
    const res = await post("/chat/completions", { model: "m", messages: [], tools: TOOLS });
    expect([res.status, res.headers.get("retry-after"), await res.text()]).toEqual([429, "3", error]);
  });

  test("a redirect goes back to the client; the proxy never follows it", async () => {
    upstream.answer((req, res) => (req.url.endsWith("/moved") ? res.writeHead(200).end("followed") : res.writeHead(302, { location: `${upstream.url}/moved` }).end()));
    const res = await fetch(`${proxy.url}/old`, { headers: { authorization: "Bearer t" }, redirect: "manual" });
    expect(res.status).toBe(302);
    expect(upstream.seen.map((s) => s.url)).toEqual(["/v1/old"]);
  });

  test("/healthz answers without touching the upstream", async () => {
    const res = await fetch(`${proxy.url}/healthz`);
    expect([res.status, res.headers.get("content-type"), await res.json(), upstream.seen.length]).toEqual([200, "application/json", { status: "ok" }, 0]);
    const head = await fetch(`${proxy.url}/healthz`, { method: "HEAD" });
    expect([head.status, await head.text(), upstream.seen.length]).toEqual([200, "", 0]);
  });
});

describe("history on the way up", () => {
  const ok = (_req: unknown, res: import("node:http").ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end("{}");
  const FENCED = "```xml\n" + LEAK + "\n```";
  test.each([
    ["/chat/completions", (old: unknown) => ({ model: "m", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: old }, { role: "user", content: "go on" }], tools: TOOLS })],
    ["/messages", (old: unknown) => ({ model: "m", max_tokens: 9, messages: [{ role: "assistant", content: [{ type: "text", text: old }] }, { role: "user", content: "go on" }] })],
    ["/responses", (old: unknown) => ({ model: "m", input: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: old }] }, { role: "user", content: "go on" }] })],
  ])("%s: a replayed leak becomes the plugin's note; a fenced example and the user's turns stay", async (path, shape) => {
    upstream.answer(ok);
    await (await post(path, shape(`Before. ${LEAK} After. ${FENCED}`))).text();
    const sent = upstream.seen[0]!.body;
    expect(sent).toContain(JSON.stringify(`Before. ${REMOVED_NOTE} After. ${FENCED}`));
    expect(sent).toContain('"go on"');
  });

  const CORRECTION = correctionText("unexecuted-call");
  const systemOf = (path: string, body: any) => (path === "/responses" ? body.instructions : path === "/messages" ? body.system : body.messages[0].content);
  const bodies: Record<string, (turns: any[]) => unknown> = {
    "/chat/completions": (turns) => ({ model: "m", messages: [{ role: "system", content: "Be brief." }, ...turns], tools: TOOLS }),
    "/messages": (turns) => ({ model: "m", max_tokens: 9, system: "Be brief.", messages: turns, tools: [{ name: "read", input_schema: TOOLS[0]!.function.parameters }] }),
    "/responses": (turns) => ({ model: "m", instructions: "Be brief.", input: turns, tools: [{ type: "function", name: "read", parameters: TOOLS[0]!.function.parameters }] }),
  };
  const said = (path: string, text: string) => (path === "/responses" ? { type: "message", role: "assistant", content: [{ type: "output_text", text }] } : { role: "assistant", content: text });

  test.each(Object.keys(bodies))("%s: the newest model turn leaked, so the plugin's correction joins the system prompt; once answered, never again", async (path) => {
    upstream.answer(ok);
    const leaked = [{ role: "user", content: "read a.ts" }, said(path, `Reading. ${LEAK}`), { role: "user", content: "well?" }];
    await (await post(path, bodies[path]!(leaked))).text();
    await (await post(path, bodies[path]!([...leaked, said(path, "Sorry, here it is."), { role: "user", content: "thanks" }]))).text();
    const [first, second] = upstream.seen.map((s) => JSON.parse(s.body));
    expect(systemOf(path, first)).toBe(`Be brief.\n\n${CORRECTION}`);
    expect(systemOf(path, second)).toBe("Be brief.");
    expect(JSON.stringify(second)).toContain(REMOVED_NOTE);
  });

  // The model answered the leaking turn with a native call of any kind: no correction rides along
  // (one that did would be sent again on every later request of the agent loop).
  test.each([
    ["function_call", { type: "function_call", call_id: "c1", name: "read", arguments: '{"path":"a.ts"}' }, { type: "function_call_output", call_id: "c1", output: "x" }],
    ["local_shell_call", { type: "local_shell_call", id: "ls_1", call_id: "s1", status: "completed", action: { type: "exec", command: ["ls"], env: {} } }, { type: "local_shell_call_output", id: "s1", call_id: "s1", output: "a.ts" }],
    ["shell_call", { type: "shell_call", id: "sh_1", call_id: "s1", status: "completed", action: { commands: ["ls"] } }, { type: "shell_call_output", call_id: "s1", output: [{ stdout: "a.ts", stderr: "", outcome: { type: "exit", exit_code: 0 } }] }],
    ["computer_call", { type: "computer_call", id: "cu_1", call_id: "s1", status: "completed", action: { type: "screenshot" }, pending_safety_checks: [] }, { type: "computer_call_output", call_id: "s1", output: { type: "computer_screenshot", image_url: "data:image/png;base64,AA==" } }],
    ["mcp_call", { type: "mcp_call", id: "mcp_1", server_label: "gh", name: "get_issue", arguments: "{}", output: "ok" }, undefined],
    ["reasoning", { type: "reasoning", id: "rs_1", summary: [] }, undefined],
  ])("/responses: after a %s item the leaking turn is answered, so no correction; with only its output after it, one", async (_type, item, output) => {
    upstream.answer(ok);
    const leaked = [{ role: "user", content: "read a.ts" }, said("/responses", `Reading. ${LEAK}`)];
    await (await post("/responses", bodies["/responses"]!([...leaked, item, ...(output ? [output] : [])]))).text();
    await (await post("/responses", bodies["/responses"]!([...leaked, ...(output ? [output] : [{ role: "user", content: "well?" }])]))).text();
    const [answered, unanswered] = upstream.seen.map((s) => JSON.parse(s.body));
    expect([answered.instructions, unanswered.instructions]).toEqual(["Be brief.", `Be brief.\n\n${CORRECTION}`]);
  });

  test("retry.nudge false in the config file: sanitized, no correction", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsml-proxy-"));
    const file = join(dir, "proxy.json");
    writeFileSync(file, JSON.stringify({ options: { retry: { nudge: false } } }));
    const quiet = await startProxy(["--upstream", upstream.url, "--config", file]);
    upstream.answer(ok);
    await (await fetch(`${quiet.url}/v1/responses`, { method: "POST", body: JSON.stringify(bodies["/responses"]!([said("/responses", LEAK), { role: "user", content: "?" }])) })).text();
    await quiet.close();
    rmSync(dir, { recursive: true, force: true });
    const sent = JSON.parse(upstream.seen[0]!.body);
    expect([sent.instructions, sent.input[0].content[0].text]).toEqual(["Be brief.", REMOVED_NOTE]);
  });

  test("a body with nothing to replace goes up as the very same bytes", async () => {
    upstream.answer(ok);
    const raw = `{ "model" : "m", "seed": 12345678901234567890, "messages": [{"role":"assistant","content":"plain < text"}] }`;
    await (await fetch(`${proxy.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: raw })).text();
    expect(upstream.seen[0]!.body).toBe(raw);
  });
});

describe("faults", () => {
  test.each([["a repaired wire", "/chat/completions"], ["a passthrough path", "/events"]])("the upstream drops mid-stream on %s: the client sees a clean end, not a hang", async (_name, path) => {
    const whole = chatSse(pieces("partial answer that never ends"));
    const sent = whole.slice(0, whole.indexOf("\n\n", 200) + 2);
    upstream.answer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sent, () => setTimeout(() => res.destroy(), 20));
    });
    const res = await post(path, { model: "m", stream: true, messages: [], tools: TOOLS });
    const text = await res.text().catch(() => "rejected");
    expect(text).toBe(sent);
  });

  test("a client that stops reading stops the upstream too: the proxy never takes the whole body", async () => {
    const TOTAL = 256 * 1024 * 1024;
    const piece = Buffer.alloc(64 * 1024, 97);
    const state = { written: 0, waiting: false, done: false };
    upstream.answer(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      while (state.written < TOTAL && !res.destroyed) {
        state.written += piece.length;
        if (!res.write(piece)) {
          state.waiting = true;
          await new Promise<void>((resolve) => {
            const go = () => (res.off("drain", go), res.off("close", go), resolve());
            res.on("drain", go).on("close", go);
          });
          state.waiting = false;
        }
      }
      state.done = state.written >= TOTAL;
      res.end();
    });
    const { request } = await import("node:http");
    const client = request(`${proxy.url}/big`);
    const paused = new Promise<import("node:http").IncomingMessage>((resolve) => client.on("response", (res) => (res.pause(), resolve(res))));
    client.end();
    const res = await paused;
    // Settled: the upstream has been waiting for "drain" across 20 checks in a row, or it sent everything.
    for (let still = 0, i = 0; still < 20 && !state.done && i < 2000; i++) {
      await new Promise((r) => setTimeout(r, 5));
      still = state.waiting ? still + 1 : 0;
    }
    expect(state.done).toBe(false);
    expect(state.written).toBeLessThan(TOTAL / 4);
    res.destroy();
    client.destroy();
  });

  test("an upstream that never answers gets 504 after --upstream-timeout, and its request is aborted", async () => {
    const impatient = await startProxy(["--upstream", upstream.url, "--upstream-timeout", "50"]);
    upstream.answer(() => {});
    const res = await fetch(`${impatient.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    const closedEarly = await upstream.seen[0]!.closedEarly;
    await impatient.close();
    expect([res.status, closedEarly]).toEqual([504, true]);
  });

  test("the upstream is unreachable: 502", async () => {
    const dead = await startUpstream();
    await dead.close();
    const alone = await startProxy(["--upstream", dead.url]);
    const res = await fetch(`${alone.url}/v1/models`);
    await alone.close();
    expect(res.status).toBe(502);
  });

  test("the client goes away mid-stream: the upstream request is aborted", async () => {
    upstream.answer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chatSse(["first"]).split("\n\n")[0] + "\n\n");
    });
    const abort = new AbortController();
    const res = await post("/chat/completions", { model: "m", stream: true, messages: [], tools: TOOLS }, {}, abort.signal);
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    expect(await upstream.seen[0]!.closedEarly).toBe(true);
  });

  test("a request body above --max-body is refused with 413 and never sent", async () => {
    const small = await startProxy(["--upstream", upstream.url, "--max-body", "1024"]);
    const res = await fetch(`${small.url}/v1/chat/completions`, { method: "POST", body: "x".repeat(4096) });
    await small.close();
    expect([res.status, upstream.seen.length]).toEqual([413, 0]);
  });

  test("a streamed request body (no content-length) is counted as it arrives and refused above --max-body", async () => {
    const small = await startProxy(["--upstream", upstream.url, "--max-body", "1024"]);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(512).fill(120));
        controller.close();
      },
    });
    const res = await fetch(`${small.url}/v1/chat/completions`, { method: "POST", body, duplex: "half" } as RequestInit);
    await small.close();
    expect([res.status, upstream.seen.length]).toEqual([413, 0]);
  });
});

describe("hops and paths", () => {
  /** One raw HTTP/1.1 exchange, for what fetch would not send (absolute-form targets, dot segments, Connection lists). */
  function raw(request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      // Written, not ended: a half-closed client reads as one that went away. Each request says
      // `Connection: close`, so the proxy closes the socket once it has answered.
      const socket = connect(Number(new URL(proxy.url).port), "127.0.0.1", () => socket.write(request));
      let got = "";
      socket.on("data", (d) => (got += d));
      socket.on("error", reject);
      socket.on("close", () => resolve(got));
    });
  }

  test("a request header the client names in Connection stays on its hop; the rest go up", async () => {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    await raw("GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close, X-Hop-Secret\r\nX-Hop-Secret: for-the-proxy\r\nX-Kept: yes\r\n\r\n");
    expect([upstream.seen.length, upstream.seen[0]!.headers["x-hop-secret"], upstream.seen[0]!.headers["x-kept"]]).toEqual([1, undefined, "yes"]);
  });

  test("a response header the upstream names in Connection, and Proxy-Connection, are not relayed; the rest are", async () => {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json", connection: "keep-alive, x-upstream-hop", "x-upstream-hop": "1", "proxy-connection": "keep-alive", "x-kept": "yes" }).end("{}"));
    const res = await fetch(`${proxy.url}/v1/models`);
    await res.arrayBuffer();
    expect([res.headers.get("x-upstream-hop"), res.headers.get("proxy-connection"), res.headers.get("x-kept")]).toEqual([null, null, "yes"]);
  });

  test.each(["/v1/../../admin", "/%2e%2e/admin", "/v1/.%2e/%2E%2E/admin", "/..%2F..%2Fadmin", "/v1%2f..%5C..%5Cadmin", "/..%252F..%252Fadmin", "/%252e%252e%252fadmin"])("%s climbs above the upstream's path (/v1): 400, nothing sent up", async (path) => {
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    const reply = await raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect([reply.split(" ")[1], upstream.seen.length]).toEqual(["400", 0]);
  });

  test.each([
    ["/models#key=sk-FRAG-1", "/v1/models", "GET /models 200 "],
    ["/models#key=sk-FRAG-1?limit=2", "/v1/models", "GET /models 200 "],
    ["/models?limit=2#key=sk-FRAG-1", "/v1/models?limit=2", "GET /models 200 "],
  ])("a fragment (%s) is cut: never sent up, never logged", async (target, sent, logged) => {
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    const before = proxy.lines.length;
    const reply = await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    for (let i = 0; i < 200 && proxy.lines.length === before; i++) await new Promise((r) => setTimeout(r, 5));
    expect([reply.split(" ")[1], upstream.seen.map((s) => s.url)]).toEqual(["200", [sent]]);
    expect(proxy.lines.slice(before)).toHaveLength(1);
    expect(proxy.lines[before]!.startsWith(logged)).toBe(true);
    expect(proxy.lines.join("\n")).not.toContain("FRAG");
  });

  test("an encoded slash that stays inside the upstream's path goes up as sent", async () => {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    const res = await fetch(`${proxy.url}/models/deepseek-ai%2FDeepSeek-V3`);
    await res.arrayBuffer();
    expect([res.status, upstream.seen.map((s) => s.url)]).toEqual([200, ["/v1/models/deepseek-ai%2FDeepSeek-V3"]]);
  });

  test("an absolute-form target with a key in it is refused, and the log line names no part of it", async () => {
    const reply = await raw("GET http://user:sk-live-Q9secret@api.example/v1/models HTTP/1.1\r\nHost: api.example\r\nConnection: close\r\n\r\n");
    expect(reply.split(" ")[1]).toBe("400");
    for (let i = 0; i < 200 && !proxy.lines.some((l) => l.startsWith("GET - 400 ")); i++) await new Promise((r) => setTimeout(r, 5));
    expect(proxy.lines.filter((l) => l.startsWith("GET - 400 "))).toHaveLength(1);
    expect(proxy.lines.join("\n")).not.toContain("Q9secret");
    expect(proxy.lines.join("\n")).not.toContain("api.example");
  });
});

describe("routes", () => {
  test("a prefix routes to its upstream with the prefix removed; an unconfigured path is refused", async () => {
    const routed = await startProxy(["--route", `/deepseek=${upstream.url}/api`]);
    upstream.answer((_req, res) => res.writeHead(200).end("ok"));
    const hit = await fetch(`${routed.url}/deepseek/models?x=1`);
    const miss = await fetch(`${routed.url}/other/models`);
    const lookalike = await fetch(`${routed.url}/deepseekx/models`);
    await routed.close();
    expect([hit.status, await hit.text(), miss.status, lookalike.status]).toEqual([200, "ok", 404, 404]);
    expect(upstream.seen.map((s) => s.url)).toEqual(["/api/models?x=1"]);
  });
});
