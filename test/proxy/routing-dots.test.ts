/**
 * Routing and the access log under dot segments and credentials in the path (review 46, routing
 * findings): a path whose dot segments leave the route it was sent to is refused with 400 (any
 * reading: plain, `\`, percent-encoded, `..;`), on a prefixed route and on the default one; the
 * log redacts userinfo and `;` parameters. Raw sockets, so the request line is exactly as written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { loggedPath, upstreamTarget } from "../../src/proxy/routing.ts";
import { startProxy, startUpstream, type Proxy, type Upstream } from "./support.ts";

function raw(url: string, target: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    let out = "";
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(`GET ${target} HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n`));
    const done = () => resolve(out.split("\r\n")[0] ?? "");
    socket.on("data", (data) => (out += data));
    socket.on("close", done);
    socket.on("error", done);
  });
}

let ds: Upstream;
let fallback: Upstream;
let proxy: Proxy;
beforeAll(async () => {
  ds = await startUpstream();
  fallback = await startUpstream();
  ds.answer((req, res) => res.writeHead(200).end(`DS${req.url}`));
  fallback.answer((req, res) => res.writeHead(200).end(`FB${req.url}`));
  proxy = await startProxy(["--route", `/deepseek=${ds.url}`, "--upstream", fallback.url]);
});
afterAll(async () => {
  await proxy.close();
  await ds.close();
  await fallback.close();
});

const seen = () => [...ds.seen, ...fallback.seen].map((s) => s.url);

describe("a path whose dot segments leave its route is refused", () => {
  test.each([
    "/deepseek/../x",
    "/deepseek/..\\x",
    "/deepseek/%2e%2e/x",
    "/deepseek/.%2E/x",
    "/deepseek/..%2Fx",
    "/deepseek/..;/x",
    "/deepseek/v1/../../x",
    "/deepseek/..%252Fx",
    "/x/../deepseek/y",
    "/x/%2e%2e/deepseek/y",
    "/../deepseek/y",
    "/x/..\\deepseek/y",
  ])("%s: 400, nothing sent up", async (target) => {
    const before = seen().length;
    expect(await raw(proxy.url, target)).toBe("HTTP/1.1 400 Bad Request");
    expect(seen().slice(before)).toEqual([]);
  });

  test("hard negatives: dot segments that stay inside the route go up as URL resolves them", async () => {
    const [dsBefore, fbBefore] = [ds.seen.length, fallback.seen.length];
    for (const target of ["/deepseek/v1/../v2/models", "/deepseek/v1/./models", "/deepseek/chat;v=1/x", "/v1/../v2/models", "/../v1/models"]) expect([target, await raw(proxy.url, target)]).toEqual([target, "HTTP/1.1 200 OK"]);
    expect(ds.seen.slice(dsBefore).map((s) => s.url)).toEqual(["/v2/models", "/v1/models", "/chat;v=1/x"]);
    expect(fallback.seen.slice(fbBefore).map((s) => s.url)).toEqual(["/v2/models", "/v1/models"]);
  });
});

describe("upstreamTarget reads `;` parameters off dot segments", () => {
  test("..; and .%2e; above the upstream's path are refused; .; and ..; that stay inside go up", () => {
    const up = new URL("http://127.0.0.1:9/v1");
    expect(["/..;/admin", "/.%2e;x/admin", "/a/..;/..;b/admin"].map((rest) => upstreamTarget(up, rest)?.href)).toEqual([undefined, undefined, undefined]);
    expect(["/a/..;/b", "/.;/b", "/chat;v=1/completions"].map((rest) => upstreamTarget(up, rest)?.pathname)).toEqual(["/v1/a/..;/b", "/v1/.;/b", "/v1/chat;v=1/completions"]);
  });
});

describe("the access log redacts what a path may carry a credential in", () => {
  test.each([
    ["/deepseek/https://user:KEY@api.example.com/v1/chat", "/deepseek/https://[redacted]@api.example.com/v1/chat"],
    ["/deepseek/https://user:KEY%40x@api.example.com/v1", "/deepseek/https://[redacted]@api.example.com/v1"],
    ["/deepseek/https://user:KEY%40api.example.com/v1", "/deepseek/https://[redacted]%40api.example.com/v1"],
    ["/deepseek/v1/chat;key=KEY", "/deepseek/v1/chat;[redacted]"],
    ["/deepseek/v1;k=KEY/chat;a@b?key=KEY#KEY", "/deepseek/v1;[redacted]/chat;[redacted]"],
  ])("%s", (target, logged) => {
    expect(loggedPath(target)).toBe(logged);
  });
  test("hard negative: a path without either is logged as sent", () => {
    expect(loggedPath("/v1beta/models/m:generateContent?key=KEY")).toBe("/v1beta/models/m:generateContent");
  });
});
