// The proxy's settings (flags, environment, JSONC file) and the CLI entry with its graceful stop.
import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { parseJsonc } from "../../src/options/jsonc.ts";
import { ProxyUsageError, proxyConfig } from "../../src/proxy/config.ts";
import { runProxy } from "../../src/proxy/run.ts";
import { routeFor, upstreamTarget } from "../../src/proxy/routing.ts";

describe("proxy settings", () => {
  test("defaults: loopback, one default route, the plugin's option defaults", () => {
    const config = proxyConfig(["--upstream", "https://api.deepseek.com"]);
    expect([config.host, config.port, config.options.responseFix.enabled]).toEqual(["127.0.0.1", 8787, true]);
    expect(config.routes.map((r) => [r.prefix, r.upstream.href])).toEqual([["", "https://api.deepseek.com/"]]);
  });

  test("environment, then a JSONC file; flags win; repair options go through the plugin's resolver", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-proxy-"));
    const file = path.join(dir, "proxy.jsonc");
    writeFileSync(file, `{\n  // comment "with quotes"\n  "routes": { "/ds": "https://api.deepseek.com/anthropic", }, /* block */\n  "port": 9000,\n  "options": { "responseFix": { "denyTools": ["bash"] }, "typo": 1 },\n}`);
    try {
      const config = proxyConfig(["--port", "9001"], { DSML_FIX_UPSTREAM: "http://127.0.0.1:1/v1", DSML_FIX_CONFIG: file });
      expect(config.port).toBe(9001);
      expect(config.routes.map((r) => [r.prefix, r.upstream.href])).toEqual([["/ds", "https://api.deepseek.com/anthropic"], ["", "http://127.0.0.1:1/v1"]]);
      expect(config.options.responseFix.denyTools).toEqual(["bash"]);
      expect(config.problems.some((p) => p.includes("typo"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a --route replaces the file's route for the same prefix; --upstream beats DSML_FIX_UPSTREAM, which beats the file's upstream", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dsml-proxy-"));
    const file = path.join(dir, "proxy.json");
    writeFileSync(file, JSON.stringify({ upstream: "http://127.0.0.1:1/file", routes: { "/ds": "http://127.0.0.1:1/file-ds", "/other": "http://127.0.0.1:1/file-other" } }));
    try {
      const table = (argv: string[], env: NodeJS.ProcessEnv = {}) => proxyConfig(["--config", file, ...argv], env).routes.map((r) => [r.prefix, r.upstream.href]);
      // One route per prefix (routeFor takes the first match, so a second one could never be used).
      expect(table(["--route", "/ds=http://127.0.0.1:2/flag-ds"])).toEqual([["/other", "http://127.0.0.1:1/file-other"], ["/ds", "http://127.0.0.1:2/flag-ds"], ["", "http://127.0.0.1:1/file"]]);
      expect(table([], { DSML_FIX_UPSTREAM: "http://127.0.0.1:3/env" }).at(-1)).toEqual(["", "http://127.0.0.1:3/env"]);
      expect(table(["--upstream", "http://127.0.0.1:2/flag"], { DSML_FIX_UPSTREAM: "http://127.0.0.1:3/env" }).at(-1)).toEqual(["", "http://127.0.0.1:2/flag"]);
      // A request for the prefix goes where the flag says.
      const routes = proxyConfig(["--config", file, "--route", "/ds=http://127.0.0.1:2/flag-ds"]).routes;
      expect(routeFor(routes, "/ds/chat/completions")!.route.upstream.href).toBe("http://127.0.0.1:2/flag-ds");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the same prefix given twice as a flag is refused (which one was meant is the operator's call)", () => {
    expect(() => proxyConfig(["--route", "/ds=http://127.0.0.1:1/a", "--route", "/ds=http://127.0.0.1:1/b"])).toThrow(ProxyUsageError);
    expect(() => proxyConfig(["--route", "/ds=http://127.0.0.1:1/a", "--route", "/ds=http://127.0.0.1:1/b"])).toThrow("given twice");
  });

  test("a setting flag given twice is refused, not the last kept; --route is a list and may repeat", () => {
    expect(() => proxyConfig(["--upstream", "http://127.0.0.1:1", "--port", "1", "--port", "2"])).toThrow("--port is given twice; give it once");
    expect(() => proxyConfig(["--upstream", "http://127.0.0.1:1", "--upstream=http://127.0.0.1:2"])).toThrow("--upstream is given twice");
    expect(proxyConfig(["--route", "/a=http://127.0.0.1:1", "--route", "/b=http://127.0.0.1:2"]).routes.length).toBe(2);
  });

  test.each([
    [[], "no upstream"],
    [["--upstream", "ftp://x"], "http or https"],
    [["--upstream", "https://user:pw@x"], "credentials"],
    [["--route", "ds=https://x"], "must start with /"],
    [["--route", "/ds"], "/prefix=URL"],
    [["--upstream", "https://x", "--port", "70000"], "--port"],
    [["--upstream", "https://x", "--bogus"], "bogus"],
  ])("%j is refused: %s", (argv, why) => {
    expect(() => proxyConfig(argv as string[])).toThrow(ProxyUsageError);
    expect(() => proxyConfig(argv as string[])).toThrow(why);
  });

  test("JSONC comments go, string contents stay (the config file is read with the package's JSONC reader)", () => {
    expect(parseJsonc('{"a": "// not a comment /* nor this */ ,}", // gone\n "b": [1,2,], }', { uniqueKeys: true })).toEqual({ a: "// not a comment /* nor this */ ,}", b: [1, 2] });
  });

  test("a route matches whole path segments and keeps the upstream's own path", () => {
    const routes = proxyConfig(["--route", "/ds=https://h/base/"]).routes;
    expect(routeFor(routes, "/dsx/models")).toBeUndefined();
    const hit = routeFor(routes, "/ds/v1/models?x=1")!;
    expect(upstreamTarget(hit.route.upstream, hit.rest)!.href).toBe("https://h/base/v1/models?x=1");
    expect(upstreamTarget(new URL("https://h"), "//evil.example/x")!.origin).toBe("https://h");
  });

  test("a client path never climbs above the upstream's own path: dot segments, plain or percent-encoded, are refused", () => {
    const base = new URL("https://h/beta");
    for (const rest of ["/../admin", "/%2e%2e/admin", "/%2E%2E/%2e%2e/admin", "/.%2e/admin", "/v1/../../admin", "/.."]) expect([rest, upstreamTarget(base, rest)?.href]).toEqual([rest, undefined]);
    // Joined by an encoded slash or backslash (one segment to URL, a climb to an upstream that
    // decodes %2F before it resolves dot segments).
    for (const rest of ["/..%2F..%2Fadmin", "/..%2fadmin", "/..%5Cadmin", "/..%5cadmin", "/v1%2F..%2F..%2Fadmin", "/%2e%2e%2Fadmin", "/v1/.%2E%2F%2e.%2Fadmin", "/a%2F%2F..%2F..%2Fadmin"]) expect([rest, upstreamTarget(base, rest)?.href]).toEqual([rest, undefined]);
    // An encoded slash that stays inside goes up as sent (a model id with a slash in it).
    expect(upstreamTarget(base, "/v1/models/deepseek-ai%2FDeepSeek-V3")!.href).toBe("https://h/beta/v1/models/deepseek-ai%2FDeepSeek-V3");
    expect(upstreamTarget(base, "/v1/a%2F..%2Fmodels")!.href).toBe("https://h/beta/v1/a%2F..%2Fmodels");
    // A dot, slash or backslash encoded more than once (`%25` before `2E`, `2F`, `5C`, any case):
    // whether it climbs depends on how often the upstream decodes, so any `..` segment with every
    // encoding read is refused, even one that would stay inside.
    for (const rest of ["/..%252F..%252Fadmin", "/%252e%252e%252fadmin", "/%252E%252E%252Fadmin", "/..%255Cadmin", "/%25252e%25252e%25252fadmin", "/%252e%252e/admin", "/a%252Fb/..%2F..%2Fadmin", "/v1/a%252F..%252Fmodels", "/..%25252Fadmin"]) expect([rest, upstreamTarget(base, rest)?.href]).toEqual([rest, undefined]);
    // No dot segment under any decoding, or a `%25` before anything else: as sent.
    expect(upstreamTarget(base, "/v1/models/deepseek-ai%252FDeepSeek-V3")!.href).toBe("https://h/beta/v1/models/deepseek-ai%252FDeepSeek-V3");
    expect(upstreamTarget(base, "/v1/models/a%252e%252eb")!.href).toBe("https://h/beta/v1/models/a%252e%252eb");
    expect(upstreamTarget(base, "/v1/files/100%25/..%25off")!.href).toBe("https://h/beta/v1/files/100%25/..%25off");
    expect(upstreamTarget(base, "/v1/files/%2525%252x")!.href).toBe("https://h/beta/v1/files/%2525%252x");
    // Dot segments that stay inside are the upstream's business, as a direct request would be.
    expect(upstreamTarget(base, "/v1/../v2/models")!.href).toBe("https://h/beta/v2/models");
    expect(upstreamTarget(base, "/")!.href).toBe("https://h/beta/");
    // An upstream at the root has nothing above it.
    expect(upstreamTarget(new URL("https://h/"), "/../v1/models")!.href).toBe("https://h/v1/models");
  });

  test("the upstream's own query (Azure's api-version) is kept; a name the client sends is the client's", () => {
    const azure = new URL("https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21");
    expect(upstreamTarget(azure, "/chat/completions")!.href).toBe("https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21");
    expect(upstreamTarget(azure, "/chat/completions?stream=1")!.href).toBe("https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21&stream=1");
    expect(upstreamTarget(azure, "/chat/completions?api-version=2025-01-01")!.href).toBe("https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2025-01-01");
    expect(upstreamTarget(new URL("https://h/v1"), "/models?a=%2F&b")!.href).toBe("https://h/v1/models?a=%2F&b");
  });
});

describe("dsml-fix proxy", () => {
  test("listens on loopback, answers /healthz, stops on SIGTERM with exit 0", async () => {
    const out: string[] = [];
    const signals = new EventEmitter();
    const running = runProxy(["--upstream", "http://127.0.0.1:9/v1", "--port", "0"], { out: (l) => out.push(...l), err: (l) => out.push(...l), env: {} }, signals);
    for (let i = 0; i < 200 && !out.some((l) => l.includes("->")); i++) await new Promise((r) => setTimeout(r, 5));
    const port = /127\.0\.0\.1:(\d+)/.exec(out.join("\n"))![1];
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    signals.emit("SIGTERM");
    expect(await running).toBe(0);
    expect(out.some((l) => l.includes("reachable from other machines"))).toBe(false);
  });

  test("--host ::1: the address it prints is a URL that works ([::1]), and loopback gets no warning", async () => {
    const out: string[] = [];
    const signals = new EventEmitter();
    const running = runProxy(["--upstream", "http://127.0.0.1:9/v1", "--port", "0", "--host", "::1"], { out: (l) => out.push(...l), err: (l) => out.push(...l), env: {} }, signals);
    for (let i = 0; i < 200 && !out.some((l) => l.includes("->")); i++) await new Promise((r) => setTimeout(r, 5));
    const origin = /(http:\/\/\S+?)\/ ->/.exec(out.join("\n"))![1]!;
    expect(origin).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    signals.emit("SIGTERM");
    signals.emit("SIGINT");
    expect(await running).toBe(0);
    expect(out.filter((l) => l.includes("shutting down")).length).toBe(1);
    expect(out.some((l) => l.includes("reachable from other machines"))).toBe(false);
  });

  test("the CLI dispatches `proxy`; a usage error exits 2 with the proxy's usage", async () => {
    const err: string[] = [];
    const code = await main(["proxy", "--route", "nope"], { readStdin: async () => new Uint8Array(), out: () => {}, err: (t) => err.push(t), env: {} });
    expect(code).toBe(2);
    expect(err.join("")).toContain("usage: dsml-fix proxy");
  });
});
