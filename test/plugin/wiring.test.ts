import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Config } from "@opencode-ai/plugin";
import { resolveOptions } from "../../src/plugin/options.ts";
import { installRepairFetch } from "../../src/plugin/wiring.ts";

const noCredentials = { HOME: mkdtempSync(path.join(tmpdir(), "dsml-home-")), XDG_DATA_HOME: mkdtempSync(path.join(tmpdir(), "dsml-data-")) };
const providersOf = (cfg: Config) => (cfg as { provider?: Record<string, { options?: Record<string, unknown> }> }).provider ?? {};

describe("installRepairFetch", () => {
  test("defaults without credentials add no provider OpenCode would then list", () => {
    const cfg: Config = {};
    expect(installRepairFetch(cfg, resolveOptions({}).options, {}, noCredentials)).toEqual([]);
    expect(providersOf(cfg)).toEqual({});
  });

  test("a catalog provider configured only by an API key gets an entry with just the fetch", () => {
    const cfg: Config = {};
    expect(installRepairFetch(cfg, resolveOptions({}).options, {}, { ...noCredentials, DEEPSEEK_API_KEY: "sk" })).toEqual(["deepseek"]);
    expect(Object.keys(providersOf(cfg))).toEqual(["deepseek"]);
    expect(typeof providersOf(cfg).deepseek!.options!.fetch).toBe("function");
  });

  test("a stored login counts as credentials", () => {
    const data = mkdtempSync(path.join(tmpdir(), "dsml-data-"));
    mkdirSync(path.join(data, "opencode"));
    writeFileSync(path.join(data, "opencode", "auth.json"), JSON.stringify({ "opencode-go": { type: "api", key: "k" } }));
    const cfg: Config = {};
    expect(installRepairFetch(cfg, resolveOptions({}).options, {}, { ...noCredentials, XDG_DATA_HOME: data })).toEqual(["opencode-go"]);
  });

  test("a provider named explicitly is wired even before OpenCode sees credentials", () => {
    const cfg: Config = {};
    expect(installRepairFetch(cfg, resolveOptions({ providers: ["opencode"] }).options, {}, noCredentials)).toEqual(["opencode"]);
  });

  test("a user fetch is chained, and installing twice wraps once", async () => {
    const seen: string[] = [];
    const userFetch = async (input: RequestInfo | URL) => {
      seen.push(String(input));
      return new Response("ok");
    };
    const cfg = { provider: { fake: { options: { fetch: userFetch } } } } as unknown as Config;
    const options = resolveOptions({ providers: ["fake"] }).options;
    expect(installRepairFetch(cfg, options, {}, noCredentials)).toEqual(["fake"]);
    expect(installRepairFetch(cfg, options, {}, noCredentials)).toEqual([]);
    const wrapped = providersOf(cfg).fake!.options!.fetch as typeof fetch;
    expect(wrapped).not.toBe(userFetch);
    expect(await (await wrapped("http://x/v1/models")).text()).toBe("ok");
    expect(seen).toEqual(["http://x/v1/models"]);
  });

  test('"*" wires every configured provider', () => {
    const cfg = { provider: { a: {}, b: { options: {} } } } as unknown as Config;
    expect(installRepairFetch(cfg, resolveOptions({ providers: ["*"] }).options, {}, noCredentials).sort()).toEqual(["a", "b"]);
  });

  test("[] disables: nothing is wired", () => {
    const cfg = { provider: { deepseek: {} } } as unknown as Config;
    expect(installRepairFetch(cfg, resolveOptions({ providers: [] }).options, {}, noCredentials)).toEqual([]);
  });
});
