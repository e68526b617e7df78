/**
 * Review 56 (hostile, tests only): the proxy's security edges on 127.0.0.1, since review 54.
 * Credentials never in a log line (--debug, error paths, the start-up lines, an upstream echoing
 * the key in a header, a request the parser refuses), redirects never followed to another host,
 * request targets that would reach another host (absolute-form, `//host`, `\\host`, CONNECT) and a
 * spoofed Host header never change where a request goes. Raw sockets where the request line
 * must be exactly as written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import net from "node:net";
import { runProxy } from "../../src/proxy/run.ts";
import { startProxy, startUpstream, TOOLS, type Proxy, type Upstream } from "../proxy/support.ts";

const SECRET = "sk-r56-SECRETKEY0123456789";

/** One raw request; resolves with the status line once the proxy closes the connection. */
function raw(url: string, request: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    let out = "";
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(request));
    const done = () => resolve(out.split("\r\n")[0] ?? "");
    socket.on("data", (data) => (out += data));
    socket.on("close", done);
    socket.on("error", done);
  });
}

let main: Upstream;
let other: Upstream;
let proxy: Proxy;
beforeAll(async () => {
  main = await startUpstream();
  other = await startUpstream();
  other.answer((_req, res) => res.writeHead(200).end("OTHER"));
  proxy = await startProxy(["--upstream", `${main.url}/v1`, "--debug"]);
});
afterAll(async () => {
  await proxy.close();
  await main.close();
  await other.close();
});

const otherHost = () => new URL(other.url).host;

describe("a request never reaches a host other than its route's upstream", () => {
  test("a redirect to another host goes back to the client as it came, never followed (credentials stay home)", async () => {
    main.answer((_req, res) => res.writeHead(307, { location: `${other.url}/steal` }).end());
    const res = await fetch(`${proxy.url}/chat/completions`, { method: "POST", redirect: "manual", headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" }, body: "{}" });
    expect([res.status, res.headers.get("location")]).toEqual([307, `${other.url}/steal`]);
    expect(other.seen).toHaveLength(0);
  });

  test.each([
    ["absolute-form", (h: string) => `GET http://${h}/x HTTP/1.1\r\nHost: ${h}\r\nConnection: close\r\n\r\n`],
    ["absolute-form with userinfo", (h: string) => `GET http://u:${SECRET}@${h}/x HTTP/1.1\r\nHost: ${h}\r\nConnection: close\r\n\r\n`],
    ["authority-form CONNECT", (h: string) => `CONNECT ${h} HTTP/1.1\r\nHost: ${h}\r\nConnection: close\r\n\r\n`],
    ["asterisk-form OPTIONS", (h: string) => `OPTIONS * HTTP/1.1\r\nHost: ${h}\r\nConnection: close\r\n\r\n`],
  ])("%s: refused, the other host never contacted, no log line holds the key", async (_name, request) => {
    const before = proxy.lines.length;
    const status = await raw(proxy.url, request(otherHost()));
    expect(status === "" || /^HTTP\/1\.1 4\d\d/.test(status)).toBe(true);
    expect(other.seen).toHaveLength(0);
    expect(proxy.lines.slice(before).filter((l) => l.includes(SECRET))).toEqual([]);
  });

  test.each([`//${"HOST"}/x`, `/\\${"HOST"}/x`, `/%2F%2F${"HOST"}/x`, `/..//${"HOST"}/x`, `/%2e%2e/%2e%2e/${"HOST"}/x`])("origin-form %s: only the configured upstream is asked, if anyone", async (target) => {
    main.answer((req, res) => res.writeHead(200).end(`MAIN${req.url}`));
    const status = await raw(proxy.url, `GET ${target.replace("HOST", otherHost())} HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n`);
    expect(status).toMatch(/^HTTP\/1\.1 (200|400)/);
    expect(other.seen).toHaveLength(0);
    for (const seen of main.seen.splice(0)) expect(seen.url.startsWith("/v1/")).toBe(true);
  });

  test("a spoofed Host, X-Forwarded-Host and Forwarded: the upstream is the configured one, and its Host is its own", async () => {
    main.answer((req, res) => res.writeHead(200).end(String(req.headers.host)));
    const text = await raw(proxy.url, `GET /models HTTP/1.1\r\nHost: ${otherHost()}\r\nX-Forwarded-Host: ${otherHost()}\r\nForwarded: host=${otherHost()}\r\nConnection: close\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(other.seen).toHaveLength(0);
    expect(main.seen.splice(0).map((s) => s.headers.host)).toEqual([new URL(main.url).host]);
  });
});

describe("credentials never in a log line", () => {
  test("--debug, an upstream that echoes the key in a response header and a Set-Cookie: no line holds it", async () => {
    const before = proxy.lines.length;
    main.answer((req, res) => res.writeHead(200, { "content-type": "text/event-stream", "x-echo-key": String(req.headers["x-api-key"]), "set-cookie": `s=${SECRET}` }).end("data: [DONE]\n\n"));
    const res = await fetch(`${proxy.url}/chat/completions?api_key=${SECRET}`, { method: "POST", headers: { "x-api-key": SECRET, "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, tools: TOOLS, messages: [{ role: "user", content: SECRET }] }) });
    expect(res.headers.get("x-echo-key")).toBe(SECRET);
    await res.text();
    expect(proxy.lines.slice(before).length).toBeGreaterThan(0);
    expect(proxy.lines.slice(before).filter((l) => l.includes(SECRET))).toEqual([]);
  });

  test("a request the parser refuses (a bad header line) with the key in its query, its path parameter and its userinfo-like segment: no line holds it", async () => {
    const before = proxy.lines.length;
    const status = await raw(proxy.url, `POST /v1/chat/completions;key=${SECRET}/https:%2F%2Fu:${SECRET}@h/x?key=${SECRET} HTTP/1.1\r\nHost: p\r\nBad Header: ${SECRET}\r\n\r\n`);
    expect(status).toMatch(/^HTTP\/1\.1 400/);
    const lines = proxy.lines.slice(before);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
  });

  test("an unreachable upstream under --debug: a 502, and no line holds the key", async () => {
    const down = await startProxy(["--upstream", "http://127.0.0.1:9/v1", "--debug"]);
    try {
      const res = await fetch(`${down.url}/chat/completions?key=${SECRET}`, { method: "POST", headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [] }) });
      expect(res.status).toBe(502);
      expect(await res.text()).not.toContain(SECRET);
      expect(down.lines.length).toBeGreaterThan(0);
      expect(down.lines.filter((l) => l.includes(SECRET))).toEqual([]);
    } finally {
      await down.close();
    }
  });

  async function startLines(argv: string[]): Promise<string[]> {
    const lines: string[] = [];
    const signals = new EventEmitter();
    const io = { out: (l: string[]) => lines.push(...l), err: (l: string[]) => lines.push(...l) };
    const running = runProxy([...argv, "--port", "0", "--host", "127.0.0.1"], io, signals);
    // The start-up lines are written once the server listens; the shutdown line after the signal.
    for (let i = 0; i < 200 && !lines.some((l) => l.includes(" -> ")); i++) await new Promise((r) => setTimeout(r, 5));
    signals.emit("SIGTERM");
    expect(await running).toBe(0);
    return lines;
  }

  /*
   * FINDING (credential in a log line; severity: credential leak). The start-up lines name each
   * route's upstream as `origin + pathname` (src/proxy/run.ts), so a `;key=...` path parameter of
   * the configured upstream URL (the matrix-parameter form some gateways read a key from) and an
   * encoded `@` (`%40`, userinfo written into a path) are printed as given, to stdout and on every
   * start. The access log redacts exactly these parts of a request path (src/proxy/routing.ts
   * loggedPath: "the parts of a path that are made to carry a credential"); the start-up line does
   * not. Minimal input: `dsml-fix proxy --upstream 'http://127.0.0.1:9/v1;key=SECRET'` prints
   * `... -> http://127.0.0.1:9/v1;key=SECRET`. Expected: the start-up line redacts them as the
   * access log does (loggedPath, or redactedUrl extended to `;` parameters).
   *
   * Fixed: one rule for every path a proxy line shows (src/proxy/routing.ts redactedPath): the
   * access log (loggedPath), the start-up lines and the usage errors (config.ts redactedUrl and
   * shownUpstream) redact a segment's `;` parameters and what stands before an `@` or `%40`; the
   * other segments are printed as given.
   */
  test("FINDING: the start-up line prints an upstream's `;key=` path parameter and `%40` userinfo", async () => {
    const lines = await startLines(["--upstream", `http://127.0.0.1:9/v1;key=${SECRET}`, "--route", `/ds=http://127.0.0.1:9/u%3A${SECRET}%40gw/api`]);
    expect(lines.filter((l) => l.includes(" -> "))).toHaveLength(2);
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
    // What is left is the path the access log would show: every other segment, as given.
    expect(lines.filter((l) => l.includes(" -> ")).map((l) => l.slice(l.indexOf(" -> ") + 4)).sort()).toEqual(["http://127.0.0.1:9/[redacted]%40gw/api", "http://127.0.0.1:9/v1;[redacted]"]);
  });

  test("fixed: a route prefix with a `;` parameter is shown as the access log shows it, in the start-up line", async () => {
    const lines = await startLines(["--upstream", "http://127.0.0.1:9/v1", "--route", `/ds;k${SECRET}=http://127.0.0.1:9/v2`]);
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
    expect(lines.some((l) => l.endsWith("/ds;[redacted] -> http://127.0.0.1:9/v2"))).toBe(true);
  });

  test("hard negative: a plain upstream path (dots, colons, an encoded slash) is printed whole, so the user can check it", async () => {
    const lines = await startLines(["--upstream", "http://127.0.0.1:9/v1beta/models/m:generateContent", "--route", "/az=http://127.0.0.1:9/openai/deployments/org%2Fgpt-4.1/x"]);
    expect(lines.filter((l) => l.includes(" -> ")).map((l) => l.slice(l.indexOf(" -> ") + 4)).sort()).toEqual(["http://127.0.0.1:9/openai/deployments/org%2Fgpt-4.1/x", "http://127.0.0.1:9/v1beta/models/m:generateContent"]);
  });

  test("hard negative: an upstream's query (`?key=`) never reaches the start-up lines, and its path does", async () => {
    const lines = await startLines(["--upstream", `http://127.0.0.1:9/v1/openai?key=${SECRET}`]);
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
    expect(lines.some((l) => l.endsWith("-> http://127.0.0.1:9/v1/openai"))).toBe(true);
  });
});

describe("fixed: every other line that names a configured upstream or route redacts its path as the access log does", () => {
  async function usage(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    const io = { out: (l: string[]) => lines.push(...l), err: (l: string[]) => lines.push(...l), env };
    const code = await runProxy(argv, io, new EventEmitter());
    return { code, lines: lines.filter((l) => l.startsWith("dsml-fix:")) };
  }

  test("the loop error (an upstream that is the proxy itself) names the upstream and the route redacted", async () => {
    const upstream = await usage(["--upstream", `http://127.0.0.1:8787/v1;key=${SECRET}/u%3A${SECRET}%40gw`, "--port", "8787"]);
    expect(upstream).toEqual({ code: 2, lines: ["dsml-fix: the upstream http://127.0.0.1:8787/v1;[redacted]/[redacted]%40gw is this proxy itself (127.0.0.1 port 8787); give the upstream's own URL"] });
    const route = await usage(["--upstream", "http://127.0.0.1:9/v1", "--route", `/ds;k${SECRET}=http://127.0.0.1:8787/v1`, "--port", "8787"]);
    expect(route.lines).toEqual(["dsml-fix: the route /ds;[redacted] http://127.0.0.1:8787/v1 is this proxy itself (127.0.0.1 port 8787); give the upstream's own URL"]);
  });

  test("a route given twice and an upstream that is no URL (a flag, DSML_FIX_UPSTREAM): no line holds the key", async () => {
    const twice = await usage(["--route", `/ds;k${SECRET}=http://127.0.0.1:9/a`, "--route", `/ds;k${SECRET}=http://127.0.0.1:9/b`]);
    expect(twice.lines).toEqual(['dsml-fix: --route "/ds;[redacted]" is given twice; give each prefix once']);
    const given = [[["--upstream", `http://h:99999/v1;key=${SECRET}`], {}], [[], { DSML_FIX_UPSTREAM: `http://h:99999/u%3A${SECRET}%40gw/v1` }], [["--upstream", `api.example;key=${SECRET}/v1`], {}]] as const;
    for (const [argv, env] of given) {
      const r = await usage([...argv], env);
      expect(r.code).toBe(2);
      expect(r.lines.filter((l) => l.includes(SECRET))).toEqual([]);
      expect(r.lines.join("\n")).toContain("upstream is not a URL");
    }
  });

  test("the config file: an upstream or routes value of the wrong type is named by its shape, never its URL strings", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const file = `${mkdtempSync(`${tmpdir()}/r56-proxy-file-`)}/proxy.json`;
    const cases: [unknown, string][] = [
      [{ upstream: [`http://127.0.0.1:9/v1;key=${SECRET}`] }, '"upstream" must be a URL string (got a list of 1 item(s))'],
      [{ routes: { "/ds": `http://127.0.0.1:9/u%3A${SECRET}%40gw`, "/x": 5 } }, '"routes" must be an object of "/prefix": "URL" strings (got an object with key(s) "/ds", "/x"; not a URL string at "/x")'],
      [{ routes: [`http://127.0.0.1:9/v1?key=${SECRET}`] }, '"routes" must be an object of "/prefix": "URL" strings (got a list of 1 item(s))'],
      [{ upstream: `http://h:99999/v1;key=${SECRET}` }, "upstream is not a URL"],
    ];
    for (const [config, said] of cases) {
      writeFileSync(file, JSON.stringify(config));
      const r = await usage(["--config", file]);
      expect({ config, code: r.code, secret: r.lines.some((l) => l.includes(SECRET)) }).toEqual({ config, code: 2, secret: false });
      expect(r.lines.join("\n")).toContain(said);
    }
  });

  test("hard negative: a wrong non-URL setting in the file is still quoted (port, host)", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const file = `${mkdtempSync(`${tmpdir()}/r56-proxy-file-`)}/proxy.json`;
    writeFileSync(file, JSON.stringify({ upstream: "http://127.0.0.1:9/v1", port: "8787" }));
    expect((await usage(["--config", file])).lines.join("\n")).toContain('"port" must be a number (got "8787")');
  });

  test("held already: --debug, an unreachable upstream with a key in its path, a refused route, a path that climbs: no line holds the key", async () => {
    const down = await startProxy(["--upstream", `http://127.0.0.1:9/v1;key=${SECRET}/u%3A${SECRET}%40gw`, "--route", `/ds=http://127.0.0.1:9/x;k=${SECRET}`, "--debug"]);
    try {
      const statuses: number[] = [];
      for (const target of ["/chat/completions", "/ds/chat/completions"]) {
        // Two content codings: the request is passed through with a debug line of its own.
        const res = await fetch(`${down.url}${target}`, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "br, gzip" }, body: JSON.stringify({ model: "m", stream: true, messages: [] }) });
        expect(await res.text()).not.toContain(SECRET);
        statuses.push(res.status);
      }
      // Refused before the upstream is asked (raw: fetch would resolve the dot segments itself).
      const refused = await Promise.all(["/ds/..%2F..%2Fadmin", "/x/../ds/y"].map((target) => raw(down.url, `GET ${target} HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n`)));
      expect([statuses, refused]).toEqual([[502, 502], ["HTTP/1.1 400 Bad Request", "HTTP/1.1 400 Bad Request"]]);
      expect(down.lines.length).toBeGreaterThan(4);
      expect(down.lines.filter((l) => l.includes(SECRET))).toEqual([]);
    } finally {
      await down.close();
    }
  });
});
