/**
 * The plugin on the two other wires, through the real opencode binary, with default options: catalog
 * routes that speak Anthropic Messages (Zen, Go, MiniMax) and custom providers declared with
 * `@ai-sdk/anthropic` or `@ai-sdk/openai` (Responses API) leak a DSML call as streamed text; the
 * plugin turns it into a tool call that OpenCode runs.
 * OpenCode always streams, so the JSON response paths are covered by the adapter tests only.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { block, live } from "../golden/notation.ts";
import { eventText, runOpencode, setup, toolUses } from "./harness.ts";
import { hasMarkerBytes, logLines, pluginEntry, TIMEOUT } from "./plugin-helpers.ts";
import { startWireServer, type WireKind } from "./wire-servers.ts";

const FINAL = "The file is written.";

function leak(file: string): string {
  return `Writing it now.\n\n${live(block("tool_calls", [["bash", [["command", `echo wired > ${file}`]]]]))}`;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

interface Route {
  name: string;
  kind: WireKind;
  /** `provider/model` as the user picks it. */
  model: string;
  /** The provider's config entry, given the fake server's base URL. */
  provider: (baseURL: string) => Record<string, unknown>;
}

const keyed = (baseURL: string) => ({ options: { baseURL, apiKey: "sk-fake" } });
const custom = (npm: string, modelID: string) => (baseURL: string) => ({
  npm,
  name: "Custom",
  options: { baseURL, apiKey: "sk-fake" },
  models: { [modelID]: { name: modelID, tool_call: true, limit: { context: 100000, output: 4000 } } },
});

/**
 * Catalog routes as OpenCode 1.18.33 ships them (only the base URL and key are configured), and
 * custom providers, all with the plugin's default options: the scope follows the model family.
 */
const ROUTES: Route[] = [
  { name: "Zen qwen3.6-plus (Anthropic Messages)", kind: "anthropic", model: "opencode/qwen3.6-plus", provider: keyed },
  { name: "Go minimax-m2.7 (Anthropic Messages)", kind: "anthropic", model: "opencode-go/minimax-m2.7", provider: keyed },
  { name: "MiniMax's own provider (Anthropic Messages)", kind: "anthropic", model: "minimax/MiniMax-M2.7", provider: keyed },
  { name: "a custom @ai-sdk/anthropic provider", kind: "anthropic", model: "mine/glm-5", provider: custom("@ai-sdk/anthropic", "glm-5") },
  { name: "a custom @ai-sdk/openai provider (Responses)", kind: "responses", model: "mine/deepseek-v4", provider: custom("@ai-sdk/openai", "deepseek-v4") },
];

async function runOn(route: Route) {
  const file = "wired.txt";
  const wire = await startWireServer(route.kind, leak(file), FINAL);
  const providerID = route.model.slice(0, route.model.indexOf("/"));
  const env = await setup([], { plugin: [pluginEntry({ debug: true })], config: { model: route.model } });
  // The title model (fake/fake-model) keeps the chat-completions fake that setup() started.
  const config = env.project.config as { provider: Record<string, unknown> };
  config.provider = { ...config.provider, [providerID]: route.provider(wire.baseURL) };
  writeFileSync(path.join(env.project.dir, "opencode.json"), JSON.stringify(config, null, 2));
  cleanups.push(async () => {
    await wire.close();
    await env.teardown();
  });
  const run = await runOpencode(env.project, "write the file", { timeoutMs: 80_000 });
  const written = path.join(env.project.dir, file);
  return { run, wire, written: existsSync(written) ? readFileSync(written, "utf8") : undefined };
}

describe.each(ROUTES.map((route) => [route.name, route] as const))("a leaked call on %s, default options", (_name, route) => {
  test(
    "runs as a tool call; the markup is never shown; the tag never reaches the server",
    async () => {
      const kind = route.kind;
      const { run, wire, written } = await runOn(route);
      const detail = `exit ${run.code}\n${run.stderr.slice(-3000)}`;
      expect(wire.requests.length, detail).toBeGreaterThanOrEqual(2);
      expect(wire.requests[0]!.path.endsWith(kind === "anthropic" ? "/messages" : "/responses")).toBe(true);
      expect(toolUses(run.events).map((part) => part.tool), detail).toEqual(["bash"]);
      expect(written?.trim()).toBe("wired");
      const shown = eventText(run.events);
      expect(shown).toContain("Writing it now.");
      expect(shown).toContain(FINAL);
      expect(hasMarkerBytes(shown)).toBe(false);
      for (const request of wire.requests) expect(Object.keys(request.headers).some((h) => h.includes("dsml"))).toBe(false);
      expect(logLines(run.stderr, "[dsml] response").some((line) => line.includes("recovered")), detail).toBe(true);
    },
    TIMEOUT,
  );
});
