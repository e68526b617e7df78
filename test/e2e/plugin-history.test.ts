/**
 * The plugin against the real opencode binary: what must NOT become a call, and what the next
 * request of a session replays.
 *
 * One session, two `opencode run` processes (the second resumes with `--session`):
 * 1. the model leaks an invoke for an undeclared tool: nothing runs, the markup stays visible;
 * 2. the next request replays that reply with the markup replaced by REMOVED_NOTE, and the model
 *    answers with a DSML block quoted inside a Markdown fence: nothing runs, the text is intact.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import path from "node:path";
import { REMOVED_NOTE } from "../../src/history/sanitize.ts";
import { block, live } from "../golden/notation.ts";
import {
  eventText,
  runOpencode,
  setup,
  toolUses,
  type FakeModel,
  type Project,
  type RecordedRequest,
  type RunResult,
  type ScriptEntry,
} from "./harness.ts";
import { hasMarkerBytes, lastUserText, logLines, messagesOf, pluginEntry, sharedOnce, TIMEOUT, userTexts } from "./plugin-helpers.ts";

const LEAK_PROSE = "I will search the code base first.\n";
const UNDECLARED_LEAK =
  LEAK_PROSE +
  live(`<{D}invoke name="AgenticSearch">\n<{D}parameter name="query" string="true">where is main</{D}parameter>\n</{D}invoke>`);
const FENCED_DOC =
  "The format looks like this:\n\n```\n" +
  live(block("tool_calls", [["bash", [["command", "echo quoted > quoted.txt"]]]])) +
  "\n```\n\nNothing in it is a call.";

const FIRST = "find the entry point";
const SECOND = "show me the markup format";

/**
 * Answers by the last user message, so the outcome does not depend on how many requests reach the
 * model (after the undeclared leak the plugin's idle wake may add a "Continue." turn).
 */
const respond = (request: RecordedRequest) => {
  const last = lastUserText(request);
  if (last === FIRST) return { content: UNDECLARED_LEAK };
  if (last === SECOND) return { content: FENCED_DOC };
  return { content: "Acknowledged." };
};

interface Shared {
  model: FakeModel;
  project: Project;
  first: RunResult;
  second: RunResult;
  /** Main requests the first run made. */
  firstCount: number;
}

const sharedRuns = sharedOnce<Shared>(async (onCleanup) => {
  const script: ScriptEntry[] = Array.from({ length: 8 }, () => respond);
  const env = await setup(script, { plugin: [pluginEntry({ providers: ["fake"], debug: true })] });
  onCleanup(env.teardown);
  const first = await runOpencode(env.project, FIRST, { timeoutMs: 80_000 });
  const firstCount = env.model.mainRequests().length;
  if (!first.sessionID) throw new Error(`first run printed no session id:\n${first.stderr.slice(-3000)}`);
  const second = await runOpencode(env.project, SECOND, { timeoutMs: 80_000, args: ["--session", first.sessionID] });
  return { model: env.model, project: env.project, first, second, firstCount };
});

/** The request that carried SECOND (the one the second run built). */
function secondRequest(model: FakeModel): RecordedRequest {
  const found = model.mainRequests().find((r) => lastUserText(r) === SECOND);
  if (!found) throw new Error("no request carried the second message");
  return found;
}

describe("plugin: no false calls, and sanitized history", () => {
  test(
    "an invoke for an undeclared tool is not run and stays visible, with an undeclared-tool nudge",
    async () => {
      const { first, model } = await sharedRuns();
      expect(first.code).toBe(0);
      expect(toolUses(first.events)).toHaveLength(0);
      expect(eventText(first.events)).toBe(UNDECLARED_LEAK);
      expect(model.mainRequests()[0]!.body.tools.map((t: any) => t.function.name)).not.toContain("AgenticSearch");
      const response = logLines(first.stderr, "[dsml] response ");
      expect(response[0]).toContain("#1 passthrough nudge=undeclared-tool shapes=B06");
    },
    TIMEOUT,
  );

  test(
    "the next request of the session replays the leaked reply with REMOVED_NOTE instead of the markup",
    async () => {
      const { second, model } = await sharedRuns();
      expect(second.code).toBe(0);
      expect(second.sessionID).toBeDefined();
      const request = secondRequest(model);
      const assistants = messagesOf(request, "assistant");
      expect(assistants.length).toBeGreaterThanOrEqual(1);
      // The leaked reply, as the model sees it again: prose kept, markup replaced by the note.
      expect(assistants[0].content).toBe(LEAK_PROSE + REMOVED_NOTE);
      for (const message of assistants) {
        const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
        expect(hasMarkerBytes(text)).toBe(false);
        expect(text).not.toContain("AgenticSearch");
      }
      // The user's own words are never touched.
      expect(userTexts(request)[0]).toBe(FIRST);
      // Under `opencode run` no idle wake is sent (it could never be answered), so no stray turn.
      expect(userTexts(request)).toEqual([FIRST, SECOND]);
      expect(logLines(second.stderr, "[dsml] request ")[0]).toContain("sanitized=1msgs/1parts");
    },
    TIMEOUT,
  );

  test(
    "a DSML block quoted inside a Markdown fence is not run and arrives byte for byte",
    async () => {
      const { second, model, project, firstCount } = await sharedRuns();
      expect(toolUses(second.events)).toHaveLength(0);
      expect(second.events.some((e) => e.type === "tool_use")).toBe(false);
      expect(eventText(second.events)).toBe(FENCED_DOC);
      expect(existsSync(path.join(project.dir, "quoted.txt"))).toBe(false);
      // Documentation is not a broken call: no nudge, and no wake follows it.
      const response = logLines(second.stderr, "[dsml] response ");
      expect(response).toHaveLength(1);
      expect(response[0]).toMatch(/#1 passthrough"?$/);
      expect(model.mainRequests().length).toBe(firstCount + 1);
    },
    TIMEOUT,
  );
});
