/**
 * The plugin's retry against the real `opencode serve`, driven by @opencode-ai/sdk: a reply whose
 * markup cannot be repaired gets one correction on the session's next request and at most one
 * idle wake; a wake answered by broken markup again is not woken a second time.
 *
 * Hook order (verified in opencode 1.18.33): for each step the session loop triggers
 * `experimental.chat.messages.transform` first, then LLMRequestPrep.prepare triggers
 * `experimental.chat.system.transform` (then chat.params, chat.headers) for the same request, so a
 * system-channel correction stashed in the first hook goes out in that very request.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { correctionText, wakeText } from "../../src/retry/state.ts";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { live } from "../golden/notation.ts";
import { setup } from "./harness.ts";
import {
  countOf,
  lastUserText,
  logLines,
  newSession,
  partsText,
  pluginEntry,
  prompt,
  requestText,
  serve,
  sessionMessages,
  settleAfter,
  settled,
  sleep,
  systemText,
  TIMEOUT,
  userTexts,
  waitFor,
} from "./plugin-helpers.ts";

const UNDECLARED =
  "Searching.\n" +
  live(`<{D}invoke name="AgenticSearch">\n<{D}parameter name="query" string="true">x</{D}parameter>\n</{D}invoke>`);
const TRUNCATED = "Checking.\n" + live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">git st`);
/** Long enough for an idle wake to show up: it follows the session going idle within a second. */
const QUIET_MS = 5_000;

const ALL_CORRECTIONS = (["broken-markup", "undeclared-tool", "truncated-call", "echoed-markup"] as const).map((reason) => correctionText(reason));

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

async function start(retry: Record<string, unknown>) {
  const env = await setup(
    [{ content: UNDECLARED }, { content: TRUNCATED }, { content: "Third reply." }, { content: "Fourth reply." }],
    { plugin: [pluginEntry({ providers: ["fake"], debug: true, retry })] },
  );
  teardowns.push(env.teardown);
  const served = await serve(env.project);
  teardowns.push(() => served.server.stop());
  return { ...env, ...served };
}

describe("plugin retry through opencode serve", () => {
  test(
    'system channel: one "Continue." wake carrying the correction in the system prompt; a broken answer to it is not woken again',
    async () => {
      const { model, client, server } = await start({});
      const sessionID = await newSession(client);

      const first = await prompt(client, sessionID, "search the repo");
      expect(partsText(first)).toBe(UNDECLARED);

      // The wake: exactly one extra user turn, "Continue.", answered by the second scripted reply.
      await settleAfter({ server, client }, model, sessionID, 2, QUIET_MS);
      const messages = await sessionMessages(client, sessionID);
      expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect(partsText(messages[2]!)).toBe(wakeText());
      expect(partsText(messages[3]!)).toBe(TRUNCATED);
      // That answer was broken again (truncated-call), yet no second wake came.
      expect(model.mainRequests()).toHaveLength(2);
      expect(logLines(server.output(), "[dsml] wake ")).toHaveLength(1);

      const [req1, req2] = model.mainRequests();
      for (const text of ALL_CORRECTIONS) expect(requestText(req1!)).not.toContain(text);
      // The request answering the wake carries the correction exactly once, in a system message.
      const correction = correctionText("undeclared-tool");
      expect(countOf(requestText(req2!), correction)).toBe(1);
      expect(countOf(systemText(req2!), correction)).toBe(1);
      expect(userTexts(req2!)).toEqual(["search the repo", wakeText()]);
      // ...and replays the broken reply sanitized.
      expect(req2!.body.messages.find((m: any) => m.role === "assistant").content).toBe(`Searching.\n${REMOVED_NOTE}`);
      expect(logLines(server.output(), "[dsml] request ")[1]).toContain("nudge=undeclared-tool");

      // The user's next turn carries the correction of the latest broken reply (the truncated one),
      // not the one already delivered.
      await prompt(client, sessionID, "what now?");
      const req3 = model.mainRequests()[2]!;
      expect(countOf(systemText(req3), correctionText("truncated-call"))).toBe(1);
      expect(countOf(requestText(req3), correctionText("truncated-call"))).toBe(1);
      expect(requestText(req3)).not.toContain(correction);

      // A clean reply clears it: the request after that carries no correction at all, and no wake.
      await prompt(client, sessionID, "thanks");
      await settleAfter({ server, client }, model, sessionID, 4, QUIET_MS);
      const req4 = model.mainRequests()[3]!;
      for (const text of ALL_CORRECTIONS) expect(requestText(req4)).not.toContain(text);
      expect(model.mainRequests()).toHaveLength(4);
      expect(logLines(server.output(), "[dsml] wake ")).toHaveLength(1);
    },
    TIMEOUT,
  );

  test(
    'user channel: the one wake is the full correction as a user turn; a broken answer to it is not woken again',
    async () => {
      const { model, client, server } = await start({ channel: "user" });
      const sessionID = await newSession(client);

      const first = await prompt(client, sessionID, "search the repo");
      expect(partsText(first)).toBe(UNDECLARED);

      await settleAfter({ server, client }, model, sessionID, 2, QUIET_MS);
      const messages = await sessionMessages(client, sessionID);
      expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"]);
      const correction = correctionText("undeclared-tool");
      expect(partsText(messages[2]!)).toBe(correction);
      expect(partsText(messages[3]!)).toBe(TRUNCATED);
      expect(model.mainRequests()).toHaveLength(2);
      expect(logLines(server.output(), "[dsml] wake ")).toHaveLength(1);

      const req2 = model.mainRequests()[1]!;
      // The correction is the wake itself: once, as the last user turn, not in the system prompt.
      expect(countOf(requestText(req2), correction)).toBe(1);
      expect(userTexts(req2)).toEqual(["search the repo", correction]);
      for (const text of ALL_CORRECTIONS) expect(systemText(req2)).not.toContain(text);
      expect(requestText(req2)).not.toContain(wakeText());

      // On a user's own turn the user channel appends the pending correction as a synthetic user turn.
      await prompt(client, sessionID, "what now?");
      const req3 = model.mainRequests()[2]!;
      expect(userTexts(req3).slice(-2)).toEqual(["what now?", correctionText("truncated-call")]);
      expect(countOf(requestText(req3), correctionText("truncated-call"))).toBe(1);
      for (const text of ALL_CORRECTIONS) expect(systemText(req3)).not.toContain(text);

      // The next request: the wake stays in the stored history (it is a real user message), the
      // synthetic correction turn does not, and nothing new is added.
      await prompt(client, sessionID, "thanks");
      const req4 = model.mainRequests()[3]!;
      expect(userTexts(req4)).toEqual(["search the repo", correction, "what now?", "thanks"]);
      expect(countOf(requestText(req4), correction)).toBe(1);
      expect(requestText(req4)).not.toContain(correctionText("truncated-call"));
      for (const text of ALL_CORRECTIONS) expect(systemText(req4)).not.toContain(text);
      const stored = await sessionMessages(client, sessionID);
      expect(stored.filter((m) => m.info.role === "user").map(partsText)).toEqual([
        "search the repo",
        correction,
        "what now?",
        "thanks",
      ]);
    },
    TIMEOUT,
  );
});

/** The plugin with debug on (its "[dsml] wake" lines) under `opencode serve`, for a scripted model. */
async function startScripted(script: Parameters<typeof setup>[0]) {
  const env = await setup(script, { plugin: [pluginEntry({ providers: ["fake"], debug: true })] });
  teardowns.push(env.teardown);
  const served = await serve(env.project);
  teardowns.push(() => served.server.stop());
  return { ...env, ...served };
}

describe("no idle wake where none is wanted (review: plugin, findings 1 and 3)", () => {
  test(
    "a sub-agent (task) session whose reply ends in broken markup is not woken after the task returned",
    async () => {
      const { model, client, server } = await startScripted([
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
      const children = ((await client.session.children({ path: { id: sessionID } })).data ?? []) as { id: string; parentID?: string }[];
      expect(children.map((child) => child.parentID)).toEqual([sessionID]);
      // The child's reply did need a correction: the plugin saw it and held its wake back.
      expect(logLines(server.output(), "[dsml] response ").some((line) => line.includes(children[0]!.id) && line.includes("nudge=undeclared-tool"))).toBe(true);
      expect({ wakes: logLines(server.output(), "[dsml] wake "), mainRequests: model.mainRequests().length }).toEqual({ wakes: [], mainRequests: 3 });
    },
    TIMEOUT,
  );

  test(
    "the user aborts a later message: the earlier reply's leak (already corrected on that message's request) gets no wake after the abort",
    async () => {
      const { model, client, server } = await startScripted([
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
      // m2's request was built after m1's reply (one loop, no idle in between) and carried the correction.
      expect(lastUserText(model.mainRequests()[1]!)).toBe("never mind, list the files");
      expect(countOf(systemText(model.mainRequests()[1]!), correctionText("undeclared-tool"))).toBe(1);
      // The user stopped the model: nothing may start it again behind their back.
      expect({ wakes: logLines(server.output(), "[dsml] wake ").length, mainRequests: model.mainRequests().length }).toEqual({ wakes: 0, mainRequests: 2 });
    },
    TIMEOUT,
  );
});
