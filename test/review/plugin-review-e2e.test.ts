/**
 * Hostile review of the plugin's retry against the real `opencode serve` (1.18.33): places where
 * an idle wake must never be sent. Each test fails on the code as reviewed.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { live } from "../golden/notation.ts";
import { makeProject, setup, startFakeModel } from "../e2e/harness.ts";
import { block } from "../golden/notation.ts";
import { correctionText } from "../../src/retry/state.ts";
import { lastUserText, logLines, systemText, newSession, pluginEntry, prompt, serve, settled, sleep, waitFor } from "../e2e/plugin-helpers.ts";

const UNDECLARED =
  "Searching.\n" +
  live(`<{D}invoke name="AgenticSearch">\n<{D}parameter name="query" string="true">x</{D}parameter>\n</{D}invoke>`);
/** An idle wake follows idleness within a second. */
const QUIET_MS = 4_000;

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

async function start(script: Parameters<typeof setup>[0]) {
  const env = await setup(script, { plugin: [pluginEntry({ providers: ["fake"], debug: true })] });
  teardowns.push(env.teardown);
  const served = await serve(env.project);
  teardowns.push(() => served.server.stop());
  return { ...env, ...served };
}

describe("review: no idle wake where none is allowed (opencode serve)", () => {
  test(
    "a sub-agent (task) session whose reply ends in broken markup is not woken after the task returned",
    async () => {
      const { model, client, server } = await start([
        // Parent: delegate to the general sub-agent.
        { toolCalls: [{ name: "task", arguments: { description: "search", prompt: "search the repo", subagent_type: "general" } }] },
        // Child: an undeclared-tool leak, then the child session ends and the task returns its text.
        { content: UNDECLARED },
        // Parent again: done.
        { content: "All done." },
      ]);
      const sessionID = await newSession(client);
      await prompt(client, sessionID, "delegate a search");
      await waitFor("three main requests", () => model.mainRequests().length >= 3, 15_000);
      await waitFor("the parent to settle", () => settled(client, sessionID), 10_000);
      await sleep(QUIET_MS);
      // The task tool already handed the child's text to the parent; a wake would restart the child
      // session in the background, where no one reads its answer (and its tools run unsupervised).
      const children = ((await client.session.children({ path: { id: sessionID } })).data ?? []) as { id: string }[];
      expect(children).toHaveLength(1);
      const woken = logLines(server.output(), "[dsml] wake ").map((line) => line.match(/wake (ses_[A-Za-z0-9]+)/)?.[1]);
      const wokenChildren = woken.filter((id) => children.some((child) => child.id === id));
      expect({ woken, wokenChildren, mainRequests: model.mainRequests().length }).toEqual({ woken: [], wokenChildren: [], mainRequests: 3 });
    },
    30_000,
  );

  test(
    "fallback route: a clean final answer after a leak (leak + native call, then the answer) is not woken again",
    async () => {
      // OpenCode's native runtime serves an opencode* provider without the provider fetch: the
      // plugin's fallback (experimental.text.complete) handles its replies.
      const PROVIDER = "opencode-fallback";
      const LEAK = live(block("tool_calls", [["bash", [["command", "echo leaked > leaked.txt"]]]]));
      const model = await startFakeModel([
        { content: `Writing the file.\n\n${LEAK}`, toolCalls: [{ name: "bash", arguments: { command: "echo native > native.txt", description: "write" } }] },
        { content: "All done: native.txt is written." },
      ]);
      const project = makeProject({
        modelUrl: model.url,
        plugin: [pluginEntry({ providers: [PROVIDER], debug: true })],
        env: { OPENCODE_EXPERIMENTAL_NATIVE_LLM: "1" },
        config: {
          model: `${PROVIDER}/fake-model`,
          small_model: `${PROVIDER}/fake-model`,
          provider: {
            [PROVIDER]: {
              npm: "@ai-sdk/openai-compatible",
              name: "Fallback route",
              options: { baseURL: model.url, apiKey: "sk-fake" },
              models: { "fake-model": { name: "Fake Model", tool_call: true, limit: { context: 100000, output: 4000 } } },
            },
          },
        },
      });
      teardowns.push(async () => {
        await model.close();
        project.cleanup();
      });
      const { client, server } = await serve(project);
      teardowns.push(() => server.stop());
      const sessionID = await newSession(client);
      await prompt(client, sessionID, "write the file");
      await waitFor("two main requests", () => model.mainRequests().length >= 2, 15_000);
      await waitFor("the session to settle", () => settled(client, sessionID), 10_000);
      await sleep(QUIET_MS);
      // The leak was answered: the next request carried the correction and the model ended cleanly.
      // A wake now prods a finished turn ("Continue.") for nothing.
      expect(systemText(model.mainRequests()[1]!)).toContain(correctionText("unexecuted-call"));
      expect({ wakes: logLines(server.output(), "[dsml] wake ").length, mainRequests: model.mainRequests().length }).toEqual({ wakes: 0, mainRequests: 2 });
    },
    30_000,
  );

  test(
    "the user aborts a later message: the earlier reply's leak (already corrected on that message's request) gets no wake after the abort",
    async () => {
      const { model, client, server } = await start([
        // m1: a slow reply ending in an undeclared-tool leak; m2 is queued while it streams.
        { content: UNDECLARED, chunkSize: 8, chunkDelayMs: 60 },
        // m2: a long, slow, clean answer that the user aborts.
        { content: "Listing the files one by one. ".repeat(40), chunkSize: 4, chunkDelayMs: 100 },
      ]);
      const sessionID = await newSession(client);
      const send = (text: string) => client.session.promptAsync({ path: { id: sessionID }, body: { parts: [{ type: "text", text }] } });
      await send("search the repo");
      await waitFor("the first main request", () => model.mainRequests().length >= 1, 15_000);
      await send("never mind, list the files");
      await waitFor("the second main request", () => model.mainRequests().length >= 2, 15_000);
      await sleep(800);
      await client.session.abort({ path: { id: sessionID } });
      await waitFor("the session to settle", () => settled(client, sessionID), 10_000);
      await sleep(QUIET_MS);
      // m2's request was built after m1's reply (one loop, no idle in between) and is the one aborted.
      expect(lastUserText(model.mainRequests()[1]!)).toBe("never mind, list the files");
      // The user stopped the model: nothing may start it again behind their back.
      expect({ wakes: logLines(server.output(), "[dsml] wake ").length, mainRequests: model.mainRequests().length }).toEqual({ wakes: 0, mainRequests: 2 });
    },
    30_000,
  );
});
