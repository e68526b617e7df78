/**
 * Scope that follows the model, against the real `opencode serve` with the default options
 * (issue 12 item 3): DeepSeek on a provider nobody listed (a custom `fireworks` id) and Kimi on
 * GitHub Copilot (its loader's own fetch adds the auth) both get their leaked call run; the request
 * tag never reaches the server; a fetch another plugin set for fireworks in the config is chained;
 * the start-up line is logged at info level without `debug`. A route out of scope is never repaired,
 * not even when its provider's fetch is set in the config (issue 27 item 3).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { REQUEST_TAG_HEADER } from "../../src/adapters/options.ts";
import { block, live } from "../golden/notation.ts";
import { eventText, runOpencode, setup, toolUses } from "./harness.ts";
import { logLines, newSession, pluginEntry, prompt, serve, sessionMessages, settleAfter, TIMEOUT } from "./plugin-helpers.ts";

const USER_FETCH_PLUGIN = path.join(import.meta.dir, "fixtures", "user-fetch-plugin");
const FIREWORKS_MODEL = "accounts/fireworks/models/deepseek-v3p2";
const leak = (command: string) => `Writing it.\n\n${live(block("tool_calls", [["bash", [["command", command]]]]))}`;
const toolParts = (message: { parts: any[] }) => message.parts.filter((p) => p.type === "tool");

let teardowns: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
});

describe("default scope: leak-prone models on any provider", () => {
  test(
    "DeepSeek on a custom fireworks provider and Kimi on GitHub Copilot run their leaked calls; the tag never goes upstream",
    async () => {
      const env = await setup(
        [{ content: leak("echo fireworks > fireworks.txt") }, { content: "Done." }, { content: leak("echo copilot > copilot.txt") }, { content: "Done." }],
        // OpenCode's built-in GitHub Copilot plugin (its auth loader) is one of the default plugins.
        // The user's own fetch for fireworks comes from a plugin listed before this one: chained.
        { plugin: [USER_FETCH_PLUGIN, pluginEntry({})], env: { OPENCODE_DISABLE_DEFAULT_PLUGINS: undefined } },
      );
      teardowns.push(env.teardown);
      const { project, model } = env;
      const config = project.config as any;
      config.provider.fireworks = {
        npm: "@ai-sdk/openai-compatible",
        name: "Fireworks",
        options: { baseURL: model.url, apiKey: "fw-key" },
        models: { [FIREWORKS_MODEL]: { name: "DeepSeek V3.2", tool_call: true, limit: { context: 100000, output: 4000 } } },
      };
      config.provider["github-copilot"] = { options: { baseURL: model.url } };
      writeFileSync(path.join(project.dir, "opencode.json"), JSON.stringify(config, null, 2));
      const data = path.join(project.env.XDG_DATA_HOME!, "opencode");
      mkdirSync(data, { recursive: true });
      writeFileSync(path.join(data, "auth.json"), JSON.stringify({ "github-copilot": { type: "oauth", refresh: "gho_fake", access: "gho_fake", expires: 0 } }));

      const served = await serve(project);
      teardowns.push(() => served.server.stop());
      const { client, server } = served;

      const fireworks = await newSession(client);
      await prompt(client, fireworks, "write it", { model: { providerID: "fireworks", modelID: FIREWORKS_MODEL } });
      await settleAfter(served, model, fireworks, 2);
      const copilot = await newSession(client);
      await prompt(client, copilot, "write it", { model: { providerID: "github-copilot", modelID: "kimi-k3" } });
      await settleAfter(served, model, copilot, 4);

      expect(readFileSync(path.join(project.dir, "fireworks.txt"), "utf8")).toBe("fireworks\n");
      expect(readFileSync(path.join(project.dir, "copilot.txt"), "utf8")).toBe("copilot\n");
      for (const sessionID of [fireworks, copilot]) {
        const tools = (await sessionMessages(client, sessionID)).flatMap(toolParts);
        expect(tools.map((p) => [p.tool, p.state.status])).toEqual([["bash", "completed"]]);
      }

      const main = model.mainRequests();
      expect(main.map((r) => r.body.model)).toEqual([FIREWORKS_MODEL, FIREWORKS_MODEL, "kimi-k3", "kimi-k3"]);
      // Copilot's loader fetch still ran (its token and headers), chained behind the repair.
      expect(main[0]!.headers.authorization).toBe("Bearer fw-key");
      // The user's fetch set in the config still ran, chained behind the repair.
      expect(main.slice(0, 2).map((r) => r.headers["x-user-fetch"])).toEqual(["ran", "ran"]);
      expect(main[2]!.headers.authorization).toBe("Bearer gho_fake");
      expect(main[2]!.headers["openai-intent"]).toBe("conversation-edits");
      for (const request of model.requests) expect(request.headers[REQUEST_TAG_HEADER]).toBeUndefined();

      const startup = logLines(server.output(), "[dsml] loaded v");
      expect(startup.length).toBeGreaterThanOrEqual(1);
      expect(startup[0]).toContain("level=INFO");
      expect(startup[0]).toContain("[dsml] loaded v0.1.0: wired every provider (leak-prone models); not wired: none");
    },
    TIMEOUT,
  );
});

describe("OpenCode's experimental native runtime", () => {
  test(
    "a route it serves (opencode-go) never carries the tag; a route it leaves to the AI SDK (fake) still gets its leaked call run",
    async () => {
      const env = await setup([{ content: leak("echo native > native.txt") }, { content: "Done." }, { content: "Plain answer from Go." }], {
        plugin: [pluginEntry({ providers: ["*"], debug: true })],
        env: { OPENCODE_EXPERIMENTAL_NATIVE_LLM: "1" },
      });
      teardowns.push(env.teardown);
      const config = env.project.config as any;
      config.provider["opencode-go"] = { options: { baseURL: env.model.url, apiKey: "go-key" } };
      writeFileSync(path.join(env.project.dir, "opencode.json"), JSON.stringify(config, null, 2));

      const fake = await runOpencode(env.project, "write it", { timeoutMs: 60_000 });
      expect(fake.code).toBe(0);
      expect(readFileSync(path.join(env.project.dir, "native.txt"), "utf8")).toBe("native\n");
      const go = await runOpencode(env.project, "hello", { timeoutMs: 60_000, args: ["-m", "opencode-go/deepseek-v4.1-flash"] });
      expect(go.code).toBe(0);
      expect(logLines(go.stderr, "llm.runtime=native").length).toBeGreaterThan(0);
      // OpenCode 1.18.33's native runtime happens to send through globalThis.fetch too (the
      // dispatcher would remove a tag), but the plugin does not rely on it: it never tags the route.
      expect(logLines(go.stderr, "[dsml] route opencode-go/")[0]).toContain("[dsml] route opencode-go/deepseek-v4.1-flash package=@ai-sdk/openai-compatible mode=fallback");
      expect(logLines(fake.stderr, "[dsml] route fake/")[0]).toContain("[dsml] route fake/fake-model package=@ai-sdk/openai-compatible mode=wire");
      const main = env.model.mainRequests();
      expect(main.map((r) => r.body.model)).toEqual(["fake-model", "fake-model", "deepseek-v4.1-flash"]);
      for (const request of env.model.requests) expect(request.headers[REQUEST_TAG_HEADER]).toBeUndefined();
      expect(logLines(fake.stderr, "[dsml] loaded v")[0]).toContain(
        "wired every provider (every model); not wired: openai, anthropic, opencode* (fallback: OPENCODE_EXPERIMENTAL_NATIVE_LLM serves them natively)",
      );
    },
    TIMEOUT,
  );
});

describe("a route out of scope, through a provider fetch set in the config (issue 27 item 3)", () => {
  test(
    "with providers [\"deepseek\"], gpt/gpt-4o's leaked markup stays text through the chained fetch: nothing runs, nothing is rewritten",
    async () => {
      const PROSE = "Writing it.\n\n";
      const LEAK = live(block("tool_calls", [["bash", [["command", "echo leaked > leaked.txt"]]]]));
      const env = await setup([{ content: PROSE + LEAK }], {
        // Another plugin (listed first) sets the gpt provider's fetch in the config: the plugin chains it.
        plugin: [USER_FETCH_PLUGIN, pluginEntry({ providers: ["deepseek"], debug: true })],
      });
      teardowns.push(env.teardown);
      const config = env.project.config as any;
      config.model = "gpt/gpt-4o";
      config.small_model = "gpt/gpt-4o";
      config.provider.gpt = {
        npm: "@ai-sdk/openai-compatible",
        name: "GPT",
        options: { baseURL: env.model.url, apiKey: "sk-gpt" },
        models: { "gpt-4o": { name: "GPT-4o", tool_call: true, limit: { context: 100000, output: 4000 } } },
      };
      writeFileSync(path.join(env.project.dir, "opencode.json"), JSON.stringify(config, null, 2));

      const run = await runOpencode(env.project, "write it", { timeoutMs: 60_000 });
      expect(run.timedOut).toBe(false);
      expect(run.code).toBe(0);
      expect(toolUses(run.events)).toEqual([]);
      expect(existsSync(path.join(env.project.dir, "leaked.txt"))).toBe(false);
      // Shown exactly as the model wrote it: neither the wire nor the text hook touched it.
      expect(eventText(run.events)).toBe(PROSE + LEAK);
      expect(logLines(run.stderr, "[dsml] route gpt/")[0]).toContain("[dsml] route gpt/gpt-4o package=@ai-sdk/openai-compatible mode=off");
      expect(logLines(run.stderr, "[dsml] response ")).toEqual([]);
      const main = env.model.mainRequests();
      expect(main).toHaveLength(1);
      // The config fetch was on the path (chained), and no tag ever left the process.
      expect(main[0]!.headers["x-user-fetch"]).toBe("ran");
      for (const request of env.model.requests) expect(request.headers[REQUEST_TAG_HEADER]).toBeUndefined();
    },
    TIMEOUT,
  );
});
