/**
 * The fallback against the real opencode binary, on a route the fetch adapter never sees: OpenCode's
 * experimental native runtime (OPENCODE_EXPERIMENTAL_NATIVE_LLM=1) calls a provider whose id starts
 * with "opencode" through its own HTTP client, bypassing every provider fetch.
 *
 * One `opencode run`, two main requests. The first reply writes prose, a leaked bash call as text and
 * then a native bash call; the second (after the native call's result) quotes the same markup inside
 * a fence. The fallback schedules neither a correction nor a wake (review 48, retry finding 1: it
 * sees only the finished text, never the content the request gave the model, so it cannot tell a
 * quote of planted markup from the model's own leak): the native call keeps the turn going, and the
 * next request carries no correction. test/plugin/fallback.test.ts has the unit form.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import path from "node:path";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { correctionText } from "../../src/retry/state.ts";
import { block, live } from "../golden/notation.ts";
import { eventText, exportSession, makeProject, runOpencode, startFakeModel, toolUses, type FakeModel, type Project, type RunResult } from "./harness.ts";
import {
  assistantTexts,
  type Client,
  hasMarkerBytes,
  logLines,
  newSession,
  partsText,
  pluginEntry,
  prompt,
  serve,
  settled,
  sharedOnce,
  sleep,
  systemText,
  TIMEOUT,
  waitFor,
} from "./plugin-helpers.ts";

const PROVIDER = "opencode-fallback";
const PROSE = "Writing the file.\n\n";
const LEAK = live(block("tool_calls", [["bash", [["command", "echo leaked > leaked.txt"]]]]));
const QUOTED = `Done. A leaked call looks like this:\n\n\`\`\`\n${LEAK}\n\`\`\`\n`;

interface Shared {
  model: FakeModel;
  project: Project;
  run: RunResult;
}

/** A project whose only provider OpenCode's native runtime serves: every reply reaches the fallback. */
function fallbackProject(model: FakeModel): Project {
  return makeProject({
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
}

const sharedRun = sharedOnce<Shared>(async (onCleanup) => {
  const model = await startFakeModel([
    { content: PROSE + LEAK, toolCalls: [{ name: "bash", arguments: { command: "echo native > native.txt", description: "write" } }] },
    { content: QUOTED },
  ]);
  const project = fallbackProject(model);
  onCleanup(async () => {
    await model.close();
    if (!process.env.DSML_E2E_KEEP) project.cleanup();
  });
  const run = await runOpencode(project, "write the file", { timeoutMs: 80_000 });
  return { model, project, run };
});

describe("plugin fallback on a route the wire adapter does not rewrite (native runtime)", () => {
  test(
    "the leaked call is replaced by the removal note in what is shown and stored, never run; the fenced quote is untouched",
    async () => {
      const { run, model, project } = await sharedRun();
      expect(run.timedOut).toBe(false);
      expect(run.code).toBe(0);
      expect(logLines(run.stderr, "llm.runtime=native").length).toBeGreaterThan(0);
      expect(model.mainRequests()).toHaveLength(2);
      // Only the native call ran.
      expect(toolUses(run.events).map((u) => u.tool)).toEqual(["bash"]);
      expect(existsSync(path.join(project.dir, "native.txt"))).toBe(true);
      expect(existsSync(path.join(project.dir, "leaked.txt"))).toBe(false);
      // Shown: the prose, the note, then the quoted example exactly as written.
      expect(eventText(run.events)).toBe(PROSE + REMOVED_NOTE + QUOTED);
      // Stored: the same text.
      const session = await exportSession(project, run.sessionID!);
      const stored = session.messages.filter((m) => m.info.role === "assistant").map(partsText);
      expect(stored).toEqual([PROSE + REMOVED_NOTE, QUOTED]);
      // Replayed to the model: the note, no markup.
      for (const text of assistantTexts(model.mainRequests()[1]!)) expect(hasMarkerBytes(text)).toBe(false);
    },
    TIMEOUT,
  );

  test(
    "no correction is scheduled: the next request carries none; the debug line says mode=fallback",
    async () => {
      const { run, model } = await sharedRun();
      const [first, second] = model.mainRequests();
      const correction = correctionText("unexecuted-call");
      expect(systemText(first!)).not.toContain(correction);
      expect(systemText(second!)).not.toContain(correction);
      const fallbackLines = logLines(run.stderr, "mode=fallback").filter((l) => l.includes("[dsml] response "));
      expect(fallbackLines).toHaveLength(1);
      // The route line says up front which mode this route gets.
      expect(logLines(run.stderr, "[dsml] route ").some((l) => l.includes("mode=fallback"))).toBe(true);
      expect(fallbackLines[0]).toMatch(new RegExp(`\\[dsml\\] response ${run.sessionID}/msg_\\w+ mode=fallback removed=1 nudge=unexecuted-call`));
      expect(logLines(run.stderr, "[dsml] request ")[1]).toContain("nudge=no");
      // The wire adapter saw nothing of this route.
      expect(logLines(run.stderr, "[dsml] response ").filter((l) => !l.includes("mode=fallback"))).toEqual([]);
    },
    TIMEOUT,
  );
});

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

/** Long enough for an idle wake to show up: it follows the session going idle within a second. */
const QUIET_MS = 4_000;

/** The fallback route under `opencode serve`, where an idle wake would be answered. */
async function serveFallback(script: Parameters<typeof startFakeModel>[0]) {
  const model = await startFakeModel(script);
  const project = fallbackProject(model);
  teardowns.push(async () => {
    await model.close();
    project.cleanup();
  });
  const served = await serve(project);
  teardowns.push(() => served.server.stop());
  return { model, ...served };
}

/** Every event the server publishes from now on, as OpenCode's own clients see them. */
async function recordEvents(client: Client): Promise<any[]> {
  const events: any[] = [];
  const { stream } = await client.event.subscribe();
  void (async () => {
    try {
      for await (const event of stream) events.push(event);
    } catch {
      // The server stopped.
    }
  })();
  return events;
}

describe("the fallback's idle wake under opencode serve: none where it is not wanted (review: plugin, findings 2 and 3)", () => {
  test(
    "a clean final answer after a leak (leak + native call, then the answer) is not woken again",
    async () => {
      const { model, client, server } = await serveFallback([
        { content: `Writing the file.\n\n${LEAK}`, toolCalls: [{ name: "bash", arguments: { command: "echo native > native.txt", description: "write" } }] },
        { content: "All done: native.txt is written." },
      ]);
      const sessionID = await newSession(client);
      await prompt(client, sessionID, "write the file");
      await waitFor("two main requests", () => model.mainRequests().length >= 2, 15_000);
      await waitFor("the session to settle", () => settled(client, sessionID), 10_000);
      await sleep(QUIET_MS);
      // The fallback corrects nothing (review 48), and the model ended cleanly: a wake now would
      // prod a finished turn ("Continue.") for nothing.
      expect(systemText(model.mainRequests()[1]!)).not.toContain(correctionText("unexecuted-call"));
      expect({ wakes: logLines(server.output(), "[dsml] wake ").length, mainRequests: model.mainRequests().length }).toEqual({ wakes: 0, mainRequests: 2 });
    },
    TIMEOUT,
  );

  test(
    "the user aborts the leaky turn while its native tool runs: session.error MessageAbortedError, and no wake",
    async () => {
      const { model, client, server } = await serveFallback([
        // The text part (and its leak) is finished; the turn is not: the native call takes long.
        { content: `Waiting.\n\n${LEAK}`, toolCalls: [{ name: "bash", arguments: { command: "sleep 20", description: "wait" } }] },
        { content: "Never sent." },
      ]);
      const events = await recordEvents(client);
      const sessionID = await newSession(client);
      await client.session.promptAsync({ path: { id: sessionID }, body: { parts: [{ type: "text", text: "wait a bit" }] } });
      await waitFor("the leak to be recorded", () => logLines(server.output(), "nudge=unexecuted-call").length > 0, 15_000);
      await sleep(500);
      await client.session.abort({ path: { id: sessionID } });
      await waitFor("the session to settle", () => settled(client, sessionID), 10_000);
      await sleep(QUIET_MS);
      // The event the plugin acts on, as 1.18.33 publishes it (@opencode-ai/sdk EventSessionError).
      const errors = events.filter((event) => event.type === "session.error" && event.properties?.sessionID === sessionID);
      expect(errors.map((event) => event.properties.error?.name)).toContain("MessageAbortedError");
      // The user stopped the model: nothing may start it again behind their back.
      expect({ wakes: logLines(server.output(), "[dsml] wake ").length, mainRequests: model.mainRequests().length }).toEqual({ wakes: 0, mainRequests: 1 });
    },
    TIMEOUT,
  );
});
