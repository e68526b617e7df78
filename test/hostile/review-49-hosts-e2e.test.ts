/**
 * Hostile review 49: the plugin listed twice in the real OpenCode 1.18.33 (`opencode run`,
 * node_modules/opencode-linux-x64, the fake model of test/e2e/harness.ts). The test that was a FINDING is
 * named by the rule now kept (src/plugin/wiring.ts narrowScope).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, symlinkSync } from "node:fs";
import path from "node:path";
import { block, live } from "../golden/notation.ts";
import { repoRoot, runOpencode, setup, toolUses } from "../e2e/harness.ts";
import { TIMEOUT } from "../e2e/plugin-helpers.ts";

const COMMAND = "echo scoped-out > pwned.txt";
const LEAK = `Writing it.\n\n${live(block("tool_calls", [["bash", [["command", COMMAND]]]]))}`;

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

describe("OpenCode 1.18.33: the plugin listed twice (the package path and a second spelling of it)", () => {
  // Was a FINDING (severity: wrong execution; src/plugin/wiring.ts mergeRestrictions and
  // src/plugin/index.ts hand a later entry's responseFix and parse to the serving entry, never its
  // `providers`, a security option in src/options/spec.ts). The real 1.18.33 loads both entries
  // (the "listed more than once" warning is logged), the first serves with its own scope ["*"],
  // and the second entry's scope (a provider that is not this one) is dropped: the leak from the
  // `fake` provider is run as a real bash call and writes pwned.txt. Expected: the scope both
  // entries allow (here: none), so the leak stays text; at least the warning should name providers.
  /** Runs one leak with the two entries in this order; what ran. */
  async function twoEntries(first: string[], second: string[]) {
    const env = await setup([{ content: LEAK }, { content: "Done." }], { plugin: [] });
    teardowns.push(env.teardown);
    const link = path.join(env.project.root, "plugin-link");
    symlinkSync(repoRoot, link);
    const { project } = env;
    const config = { ...project.config, plugin: [[repoRoot, { providers: first, debug: true }], [link, { providers: second, debug: true }]] };
    await Bun.write(path.join(project.dir, "opencode.json"), JSON.stringify(config, null, 2));
    const result = await runOpencode(project, "write the file", { timeoutMs: 90_000 });
    expect(result.timedOut).toBe(false);
    expect(result.stderr).toContain("listed more than once");
    return { calls: toolUses(result.events).map((u) => u.tool), written: existsSync(path.join(project.dir, "pwned.txt")) };
  }

  test(
    "providers is the overlap of the entries: [\"*\"] then [\"elsewhere\"] leaves the fake provider's leak as text",
    async () => {
      expect(await twoEntries(["*"], ["elsewhere"])).toEqual({ calls: [], written: false });
    },
    TIMEOUT,
  );

  test(
    "hard negative: the same two entries the other way round leave the leak as text (order does not matter)",
    async () => {
      expect(await twoEntries(["elsewhere"], ["*"])).toEqual({ calls: [], written: false });
    },
    TIMEOUT,
  );
});
