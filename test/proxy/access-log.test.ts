// The access log through the real `dsml-fix proxy` entry: one line per request (method, path,
// status, duration, recovered calls) and never a credential, a header name, a query or a body,
// with --debug on, wherever the process could write (its io, the console, stdout and stderr).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { runProxy } from "../../src/proxy/run.ts";
import { block, live } from "../golden/notation.ts";
import { anthropicStream, responsesStream } from "../e2e/wire-servers.ts";
import { chatSse, pieces, startUpstream, TOOLS, type Upstream } from "./support.ts";

const SECRET = "sk-Zq9SECRETxY7";
const HEADER_NAME = "x-secret-header-name-q9";
const LEAK = live(block("tool_calls", [["read", [["path", `/home/${SECRET}/a.ts`]]]]));
const ACCESS = /^(GET|POST|PUT) \/[^\s?]* \d{3} \d+ms recovered=\d+( ended=(client|upstream))?$/;

let upstream: Upstream;
const written: string[] = [];
const signals = new EventEmitter();
let running: Promise<number>;
let base = "";
const restore: (() => void)[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  // Everything the process writes while the proxy runs is captured, not only its own io.
  for (const name of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[name];
    console[name] = (...args: unknown[]) => void written.push(args.map(String).join(" "));
    restore.push(() => (console[name] = original));
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => (written.push(String(chunk)), (original as (...a: unknown[]) => boolean)(chunk, ...rest))) as typeof stream.write;
    restore.push(() => (stream.write = original));
  }
  const io = { out: (lines: string[]) => void written.push(...lines), err: (lines: string[]) => void written.push(...lines), env: {} };
  running = runProxy(["--upstream", `${upstream.url}/v1`, "--port", "0", "--debug", "--max-body", "100000"], io, signals);
  for (let i = 0; i < 400 && !written.some((l) => l.includes("->")); i++) await new Promise((r) => setTimeout(r, 5));
  base = `http://127.0.0.1:${/127\.0\.0\.1:(\d+)/.exec(written.join("\n"))![1]}`;
});
afterAll(async () => {
  signals.emit("SIGTERM");
  await running;
  for (const undo of restore) undo();
  await upstream.close();
});

const secretHeaders = { authorization: `Bearer ${SECRET}`, "x-api-key": SECRET, cookie: `session=${SECRET}`, [HEADER_NAME]: "1", "content-type": "application/json" };
const sse = (text: string) => (_req: unknown, res: import("node:http").ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" }).end(text);

describe("the access log", () => {
  test("one line per request, its fields only; no credential, header name, query or body anywhere, with --debug on", async () => {
    const before = written.length;
    const given = { role: "user", content: `my key is ${SECRET}` };
    const requests: [string, string, () => Promise<Response>][] = [];
    const add = (method: string, path: string, answer: Parameters<Upstream["answer"]>[0], send: () => Promise<Response>) =>
      requests.push([method, path, async () => (upstream.answer(answer), send())]);
    const post = (path: string, body: unknown) => fetch(`${base}${path}?key=${SECRET}`, { method: "POST", headers: secretHeaders, body: JSON.stringify(body) });

    add("POST", "/chat/completions", sse(chatSse(pieces(`Reading. ${LEAK}`))), () => post("/chat/completions", { model: "m", stream: true, messages: [given, { role: "assistant", content: `old ${LEAK}` }, given], tools: TOOLS }));
    add("POST", "/messages", sse(anthropicStream(`Reading. ${LEAK}`, "m")), () => post("/messages", { model: "m", stream: true, max_tokens: 9, system: SECRET, messages: [given], tools: [{ name: "read", input_schema: TOOLS[0]!.function.parameters }] }));
    add("POST", "/responses", sse(responsesStream(`Reading. ${LEAK}`, "m")), () => post("/responses", { model: "m", stream: true, instructions: SECRET, input: [given], tools: [{ type: "function", name: "read", parameters: TOOLS[0]!.function.parameters }] }));
    add("GET", "/models", (_req, res) => res.writeHead(200, { "set-cookie": `s=${SECRET}` }).end(`{"data":"${SECRET}"}`), () => fetch(`${base}/models?key=${SECRET}`, { headers: secretHeaders }));
    add("POST", "/chat/completions", (_req, res) => res.writeHead(401, { "content-type": "application/json" }).end(`{"error":"bad key ${SECRET}"}`), () => post("/chat/completions", { model: "m", messages: [given], tools: TOOLS }));
    add("POST", "/chat/completions", (_req, res) => res.writeHead(200).end(), () => fetch(`${base}/chat/completions`, { method: "POST", headers: secretHeaders, body: SECRET.repeat(10_000) }));

    for (const [, , send] of requests) await (await send()).arrayBuffer();
    for (let i = 0; i < 400 && written.slice(before).filter((l) => ACCESS.test(l)).length < requests.length; i++) await new Promise((r) => setTimeout(r, 5));

    const lines = written.slice(before).flatMap((l) => l.split("\n")).filter((l) => l.length > 0);
    const access = lines.filter((l) => ACCESS.test(l));
    expect(access.map((l) => l.split(" ").slice(0, 3).join(" "))).toEqual(requests.map(([method, path], i) => `${method} ${path} ${[200, 200, 200, 200, 401, 413][i]}`));
    expect(access.slice(0, 3).map((l) => l.split(" ")[4])).toEqual(["recovered=1", "recovered=1", "recovered=1"]);
    // The debug lines are there too (so --debug was on), and they hold none of it either.
    expect(lines.filter((l) => l.startsWith("[dsml] response proxy/")).length).toBe(3);
    expect(lines.some((l) => /^\[dsml\] request proxy\/\d+ sanitized=1msgs\/1parts nudge=unexecuted-call$/.test(l))).toBe(true);
    const everything = written.join("\n").toLowerCase();
    for (const never of [SECRET.toLowerCase(), HEADER_NAME, "authorization", "x-api-key", "cookie", "key="]) expect(everything).not.toContain(never);
    expect(upstream.seen.at(-2)!.headers.authorization).toBe(`Bearer ${SECRET}`);
  });
});
