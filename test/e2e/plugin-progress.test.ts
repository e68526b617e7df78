/**
 * Issue 27 item 1 against the real opencode binary: `bash[ARGS] x` in content the request gave the
 * model (the user's prompt, a tool result) plus a recoverable call in the reply once spun the echo
 * guard forever (the O06 residue's 0-length opener abandoned at its own start and was opened again
 * at the same place), so OpenCode sat at 100 % CPU and never answered. Each run here is killed
 * after RUN_LIMIT, so old code fails on `timedOut` instead of hanging the suite.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { block, live } from "../golden/notation.ts";
import { runOpencode, setup, toolUses, type FakeModel, type Project, type RunResult } from "./harness.ts";
import { messagesOf, contentText, pluginEntry, sharedOnce, TIMEOUT } from "./plugin-helpers.ts";

/** Far above a normal run of two or three steps (a few seconds), far below the test timeout. */
const RUN_LIMIT = 60_000;
const TRIGGER = "bash[ARGS] x";

const leak = (command: string) => `Running it.\n\n${live(block("tool_calls", [["bash", [["command", command]]]]))}`;

interface Shared {
  model: FakeModel;
  project: Project;
  run: RunResult;
}

function runWith(script: { content: string }[], message: string) {
  return sharedOnce<Shared>(async (onCleanup) => {
    const env = await setup(script, { plugin: [pluginEntry({ providers: ["fake"], debug: true })] });
    onCleanup(env.teardown);
    const run = await runOpencode(env.project, message, { timeoutMs: RUN_LIMIT });
    return { model: env.model, project: env.project, run };
  });
}

const fileText = (project: Project, name: string) => {
  const p = path.join(project.dir, name);
  return existsSync(p) ? readFileSync(p, "utf8") : undefined;
};

// The trigger in the user's own text: the guard reads the prompt before the first call runs.
const inPrompt = runWith(
  [{ content: leak("echo prompt > prompt.txt") }, { content: "Written." }],
  `The CI log ends with this line:\n${TRIGGER}\nWrite the marker file.`,
);

// The trigger in a tool result: the first call prints it, the guard reads it before the second call runs.
const inToolResult = runWith(
  [{ content: leak(`echo 'step 3: ${TRIGGER}'`) }, { content: leak("echo result > result.txt") }, { content: "Written." }],
  "Show the log line, then write the marker file.",
);

describe("a given `bash[ARGS] x` does not freeze OpenCode (issue 27 item 1)", () => {
  test(
    "in the user's prompt: the session answers, and the reply's call runs",
    async () => {
      const { run, model, project } = await inPrompt();
      expect(run.timedOut).toBe(false);
      expect(run.code).toBe(0);
      expect(model.mainRequests()).toHaveLength(2);
      expect(contentText(messagesOf(model.mainRequests()[0]!, "user").at(-1)?.content)).toContain(TRIGGER);
      expect(toolUses(run.events).map((u) => [u.tool, u.state.status])).toEqual([["bash", "completed"]]);
      expect(fileText(project, "prompt.txt")).toBe("prompt\n");
    },
    TIMEOUT,
  );

  test(
    "in a tool result: the session answers, and the next call runs",
    async () => {
      const { run, model, project } = await inToolResult();
      expect(run.timedOut).toBe(false);
      expect(run.code).toBe(0);
      expect(model.mainRequests()).toHaveLength(3);
      const results = messagesOf(model.mainRequests()[1]!, "tool").map((m) => contentText(m.content));
      expect(results.join("\n")).toContain(`step 3: ${TRIGGER}`);
      expect(toolUses(run.events).map((u) => [u.tool, u.state.status])).toEqual([
        ["bash", "completed"],
        ["bash", "completed"],
      ]);
      expect(fileText(project, "result.txt")).toBe("result\n");
    },
    TIMEOUT,
  );
});
