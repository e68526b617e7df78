/**
 * The plugin on the two other wires, through the real opencode binary: a custom provider declared
 * with `@ai-sdk/anthropic` (Anthropic Messages) and one declared with `@ai-sdk/openai` (Responses
 * API) leak a DSML call as streamed text; the plugin turns it into a tool call that OpenCode runs.
 * OpenCode always streams, so the JSON response paths are covered by the adapter tests only.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { block, live } from "../golden/notation.ts";
import { eventText, projectConfig, runOpencode, setup, toolUses } from "./harness.ts";
import { hasMarkerBytes, logLines, pluginEntry, TIMEOUT } from "./plugin-helpers.ts";
import { startWireServer, type WireKind } from "./wire-servers.ts";

const PACKAGE: Record<WireKind, string> = { anthropic: "@ai-sdk/anthropic", responses: "@ai-sdk/openai" };
const FINAL = "The file is written.";

function leak(file: string): string {
  return `Writing it now.\n\n${live(block("tool_calls", [["bash", [["command", `echo wired > ${file}`]]]]))}`;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function runOnWire(kind: WireKind) {
  const file = `${kind}.txt`;
  const wire = await startWireServer(kind, leak(file), FINAL);
  const base = projectConfig({ modelUrl: "http://unused.invalid" }).provider as Record<string, unknown>;
  const env = await setup([], {
    plugin: [pluginEntry({ providers: ["wire"], debug: true })],
    config: {
      model: "wire/leaky",
      provider: {
        ...base,
        wire: {
          npm: PACKAGE[kind],
          name: "Wire",
          options: { baseURL: wire.baseURL, apiKey: "sk-fake" },
          models: { leaky: { name: "Leaky", tool_call: true, limit: { context: 100000, output: 4000 } } },
        },
      },
    },
  });
  // The title model (fake/fake-model) needs the chat-completions fake's address.
  (env.project.config.provider as any).fake.options.baseURL = env.model.url;
  writeFileSync(path.join(env.project.dir, "opencode.json"), JSON.stringify(env.project.config, null, 2));
  cleanups.push(async () => {
    await wire.close();
    await env.teardown();
  });
  const run = await runOpencode(env.project, "write the file", { timeoutMs: 80_000 });
  const written = path.join(env.project.dir, file);
  return { run, wire, written: existsSync(written) ? readFileSync(written, "utf8") : undefined };
}

describe.each(["anthropic", "responses"] as WireKind[])("a leaked call on the %s wire", (kind) => {
  test(
    "runs as a tool call; the markup is never shown; the tag never reaches the server",
    async () => {
      const { run, wire, written } = await runOnWire(kind);
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
