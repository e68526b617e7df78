import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Config } from "@opencode-ai/plugin";
import { resolveOptions } from "../../src/plugin/options.ts";
import { packageVersion, startupReport } from "../../src/plugin/startup.ts";

const noCredentials = { HOME: mkdtempSync(path.join(tmpdir(), "dsml-home-")), XDG_DATA_HOME: mkdtempSync(path.join(tmpdir(), "dsml-data-")) };
const version = (JSON.parse(readFileSync(path.join(import.meta.dir, "..", "..", "package.json"), "utf8")) as { version: string }).version;

function report(raw: Record<string, unknown>, cfg: Record<string, unknown> = {}, extra: { native?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  return startupReport({ options: resolveOptions(raw).options, cfg: cfg as Config, native: extra.native ?? false, env: extra.env ?? noCredentials });
}

describe("start-up line", () => {
  test("names the package version", () => {
    expect(packageVersion()).toBe(version);
    expect(report({}).line).toStartWith(`[dsml] loaded v${version}: `);
  });

  test("default: every provider for leak-prone models; configured providers on a package it cannot rewrite are named as fallback", () => {
    const cfg = { provider: { fireworks: { npm: "@ai-sdk/openai-compatible" }, bedrock: { npm: "@ai-sdk/amazon-bedrock" }, deepseek: {} } };
    const { line, warning } = report({}, cfg);
    expect(line).toEndWith(": wired every provider (leak-prone models); not wired: bedrock (fallback: @ai-sdk/amazon-bedrock)");
    expect(warning).toBeUndefined();
  });

  test("an explicit list: the named providers, the others off, a named one nowhere to be found called out", () => {
    const cfg = { provider: { fake: { npm: "@ai-sdk/openai-compatible" }, other: {} } };
    const { line, warning } = report({ providers: ["fake", "nowhere"] }, cfg);
    expect(line).toEndWith(": wired fake; not wired: nowhere (not configured), other (off)");
    expect(warning).toBeUndefined();
  });

  test("a provider with a key in the environment or a stored login counts as there", () => {
    expect(report({ providers: ["fireworks-ai"] }, {}, { env: { ...noCredentials, FIREWORKS_API_KEY: "k" } }).line).toEndWith(": wired fireworks-ai; not wired: none");
    const data = mkdtempSync(path.join(tmpdir(), "dsml-data-"));
    mkdirSync(path.join(data, "opencode"));
    writeFileSync(path.join(data, "opencode", "auth.json"), JSON.stringify({ "opencode-go": { type: "api", key: "k" } }));
    expect(report({ providers: ["opencode-go"] }, {}, { env: { ...noCredentials, XDG_DATA_HOME: data } }).line).toEndWith(": wired opencode-go; not wired: none");
  });

  test('"auto" with ids; "*"', () => {
    expect(report({ providers: ["auto", "my-vllm"] }, { provider: { "my-vllm": {} } }).line).toEndWith(": wired every provider (leak-prone models), my-vllm (every model); not wired: none");
    expect(report({ providers: ["*"] }, { provider: { gw: { npm: "@ai-sdk/gateway" } } }).line).toEndWith(": wired every provider (every model); not wired: gw (fallback: @ai-sdk/gateway)");
  });

  test("a warning when nothing in scope is wired", () => {
    const none = report({ providers: ["nowhere"] });
    expect(none.line).toEndWith(": wired nothing; not wired: nowhere (not configured)");
    expect(none.warning).toBe("[dsml] nothing in scope can be repaired live: nowhere (not configured)");
    const fallbackOnly = report({ providers: ["bedrock"] }, { provider: { bedrock: { npm: "@ai-sdk/amazon-bedrock" } } });
    expect(fallbackOnly.line).toEndWith(": wired nothing; not wired: bedrock (fallback: @ai-sdk/amazon-bedrock)");
    expect(fallbackOnly.warning).toBe("[dsml] nothing in scope can be repaired live: bedrock (fallback: @ai-sdk/amazon-bedrock)");
    const nativeOnly = report({ providers: ["opencode-go"] }, { provider: { "opencode-go": {} } }, { native: true });
    expect(nativeOnly.line).toEndWith(": wired nothing; not wired: opencode-go (fallback: the native runtime serves it)");
    expect(nativeOnly.warning).toBeDefined();
  });

  test("the native runtime takes only openai, anthropic and opencode* routes away from the wire", () => {
    const native = report({}, { provider: { fireworks: { npm: "@ai-sdk/openai-compatible" } } }, { native: true });
    expect(native.line).toEndWith(": wired every provider (leak-prone models); not wired: openai, anthropic, opencode* (fallback: OPENCODE_EXPERIMENTAL_NATIVE_LLM serves them natively)");
    expect(native.warning).toBeUndefined();
    expect(report({ providers: ["fireworks"] }, { provider: { fireworks: {} } }, { native: true }).line).toEndWith(": wired fireworks; not wired: none");
  });

  test("disabled and repair-off settings say so", () => {
    expect(report({ providers: [] }).line).toEndWith(": disabled (providers is [])");
    // Review (plugin, finding 6): nothing reads a reply with the repair off, so no correction is ever sent; the line must not promise one.
    expect(report({ responseFix: { enabled: false } }).line).toEndWith(": wired nothing (responseFix.enabled is false); history still cleaned; no correction or wake (replies are not read)");
  });
});
