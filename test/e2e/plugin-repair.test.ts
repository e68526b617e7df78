/**
 * The plugin against the real opencode binary: leaked tool-call markup becomes real tool calls.
 *
 * One `opencode run` (one session, five main requests) carries four leaks in a row, each answered by
 * the tool result OpenCode sends back: a canonical V4 block, an orphan invoke, a mis-closed
 * parameter (P01) and a `<shell>` costume. The tests below share that run (it is started by
 * whichever test comes first) and each checks one shape.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { block, live } from "../golden/notation.ts";
import { eventText, runOpencode, setup, toolUses, type FakeModel, type Project, type RunResult } from "./harness.ts";
import { assistantTexts, hasMarkerBytes, logLines, messagesOf, pluginEntry, sharedOnce, TIMEOUT } from "./plugin-helpers.ts";

const CANONICAL_PROSE = "Let me write the marker file.\n\n";
const CANONICAL = CANONICAL_PROSE + live(block("tool_calls", [["bash", [["command", "echo fixed > marker.txt"]]]]));
const ORPHAN_PROSE = "Now the second file.\n";
const ORPHAN =
  ORPHAN_PROSE +
  live(`<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo orphan > orphan.txt</{D}parameter>\n</{D}invoke>`);
// P01: the parameter closer is missing; the invoke closer ends the value.
const MISCLOSED = live(
  `<{D}tool_calls>\n<{D}invoke name="bash">\n<{D}parameter name="command" string="true">echo misclosed > p01.txt\n</{D}invoke>\n</{D}tool_calls>`,
);
const COSTUME_PROSE = "Running it:\n";
const COSTUME = `${COSTUME_PROSE}<shell>\necho costume > c.txt\n</shell>`;
const FINAL = "All four files are written.";

interface Shared {
  model: FakeModel;
  project: Project;
  run: RunResult;
}

const sharedRun = sharedOnce<Shared>(async (onCleanup) => {
  const env = await setup(
    [{ content: CANONICAL }, { content: ORPHAN }, { content: MISCLOSED }, { content: COSTUME }, { content: FINAL }],
    { plugin: [pluginEntry({ providers: ["fake"], debug: true })] },
  );
  onCleanup(env.teardown);
  const run = await runOpencode(env.project, "write the four files", { timeoutMs: 80_000 });
  return { model: env.model, project: env.project, run };
});

function file(project: Project, name: string): string | undefined {
  const p = path.join(project.dir, name);
  return existsSync(p) ? readFileSync(p, "utf8") : undefined;
}

/** The assistant message replaying call `n` (0-based) and the tool message answering it, from request n+1. */
function replayOf(model: FakeModel, n: number) {
  const request = model.mainRequests()[n + 1]!;
  const withCalls = messagesOf(request, "assistant").filter((m) => Array.isArray(m.tool_calls));
  const assistant = withCalls[n]!;
  const call = assistant.tool_calls[0];
  const toolMessage = messagesOf(request, "tool").find((m) => m.tool_call_id === call.id);
  return { request, assistant, call, toolMessage };
}

describe("plugin repair through the real opencode run", () => {
  test(
    "the run completes: four recovered bash calls, five main requests, debug lines in the log",
    async () => {
      const { run, model } = await sharedRun();
      expect(run.timedOut).toBe(false);
      expect(run.code).toBe(0);
      expect(model.mainRequests()).toHaveLength(5);
      expect(model.remaining()).toBe(0);
      const uses = toolUses(run.events);
      expect(uses.map((u) => [u.tool, u.state.status])).toEqual([
        ["bash", "completed"],
        ["bash", "completed"],
        ["bash", "completed"],
        ["bash", "completed"],
      ]);
      // Every replayed step carries calls, never markup.
      for (const request of model.mainRequests()) for (const text of assistantTexts(request)) expect(hasMarkerBytes(text)).toBe(false);
      // Visible text: the prose around the leaks and the final answer, no markup.
      expect(eventText(run.events)).toBe(CANONICAL_PROSE + ORPHAN_PROSE + COSTUME_PROSE + FINAL);
      // --print-logs carries the plugin's debug lines: a request line per step and a response line
      // per reply, four of them recovering one call each (the tag's attempt counts the steps).
      expect(logLines(run.stderr, "[dsml] request ")).toHaveLength(5);
      const recovered = logLines(run.stderr, "[dsml] response ").filter((l) => / recovered=1\b/.test(l));
      expect(recovered).toHaveLength(4);
      expect(recovered[0]).toMatch(new RegExp(`\\[dsml\\] response ${run.sessionID}/msg_\\w+#1 recovered=1`));
      expect(logLines(run.stderr, "[dsml] response ").at(-1)).toContain("passthrough");
    },
    TIMEOUT,
  );

  test(
    "a canonical V4 block after prose runs bash; the result and the call (not markup) go back to the model",
    async () => {
      const { run, model, project } = await sharedRun();
      expect(file(project, "marker.txt")).toBe("fixed\n");
      const use = toolUses(run.events)[0];
      expect(use.tool).toBe("bash");
      expect(use.state.status).toBe("completed");
      expect(use.state.input).toEqual({ command: "echo fixed > marker.txt" });

      const { assistant, call, toolMessage } = replayOf(model, 0);
      expect(assistant.content).toBe(CANONICAL_PROSE);
      expect(call.type).toBe("function");
      expect(call.function.name).toBe("bash");
      expect(JSON.parse(call.function.arguments)).toEqual({ command: "echo fixed > marker.txt" });
      expect(call.id).toBe(use.callID);
      expect(toolMessage).toBeDefined();
      expect(typeof toolMessage.content).toBe("string");
      // The request tag is OpenCode-internal: it never reaches the provider.
      for (const request of model.requests) expect(request.headers["x-dsml-fix-tag"]).toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    "an orphan invoke (no block opener) runs",
    async () => {
      const { run, model, project } = await sharedRun();
      expect(file(project, "orphan.txt")).toBe("orphan\n");
      const use = toolUses(run.events)[1];
      expect(use.state.input).toEqual({ command: "echo orphan > orphan.txt" });
      const { assistant, call, toolMessage } = replayOf(model, 1);
      expect(assistant.content).toBe(ORPHAN_PROSE);
      expect(JSON.parse(call.function.arguments)).toEqual({ command: "echo orphan > orphan.txt" });
      expect(toolMessage?.tool_call_id).toBe(use.callID);
    },
    TIMEOUT,
  );

  test(
    "a parameter closed by the invoke closer (P01) runs, without the newline before the boundary",
    async () => {
      const { run, model, project } = await sharedRun();
      expect(file(project, "p01.txt")).toBe("misclosed\n");
      const use = toolUses(run.events)[2];
      expect(use.state.input).toEqual({ command: "echo misclosed > p01.txt" });
      const { call, toolMessage } = replayOf(model, 2);
      expect(JSON.parse(call.function.arguments)).toEqual({ command: "echo misclosed > p01.txt" });
      expect(toolMessage?.tool_call_id).toBe(use.callID);
    },
    TIMEOUT,
  );

  test(
    "a <shell> costume at the start of a line runs as bash",
    async () => {
      const { run, model, project } = await sharedRun();
      expect(file(project, "c.txt")).toBe("costume\n");
      const use = toolUses(run.events)[3];
      expect(use.tool).toBe("bash");
      expect(use.state.input).toEqual({ command: "echo costume > c.txt" });
      const { assistant, toolMessage } = replayOf(model, 3);
      expect(assistant.content).toBe(COSTUME_PROSE);
      expect(assistant.content).not.toContain("<shell>");
      expect(toolMessage?.tool_call_id).toBe(use.callID);
    },
    TIMEOUT,
  );
});
