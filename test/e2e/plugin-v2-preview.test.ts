/**
 * OpenCode 1.18.33 with an OpenCode 2 style `plugins` entry. 1.18.33's embedded preview loader reads
 * `plugins` from a config document without 1.18 keys and imports the package's ROOT export, which
 * carries no `setup`, so it loads nothing live; the classic `plugin` entry (which imports
 * `./server`, now `{ id, server, setup }`) keeps repairing exactly once. The root is given as a
 * stand-in package whose "." re-exports src/plugin/index.ts (a checkout has no dist/).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { block, live } from "../golden/notation.ts";
import { repoRoot, runOpencode, setup, toolUses } from "./harness.ts";
import { pluginEntry, TIMEOUT } from "./plugin-helpers.ts";

const COMMAND = "echo v2 > v2.txt";
const LEAK = `Writing it.\n\n${live(block("tool_calls", [["bash", [["command", COMMAND]]]]))}`;

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

/** `.opencode/opencode.jsonc` holding only `plugins` (a document with a 1.18 key would be migrated and lose it). */
function writeV2Document(projectDir: string, root: string): void {
  const pkg = path.join(path.dirname(projectDir), "v2-root", "opencode-plugin-dsml-fix");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "opencode-plugin-dsml-fix", type: "module", exports: { ".": "./index.js" } }));
  writeFileSync(path.join(pkg, "index.js"), `export { default } from ${JSON.stringify(path.join(root, "src", "plugin", "index.ts"))};\n`);
  writeFileSync(path.join(projectDir, ".opencode", "opencode.jsonc"), JSON.stringify({ plugins: [{ package: pkg, options: { providers: ["*"], debug: true } }] }, null, 2));
}

describe("OpenCode 1.18.33 with a V2 `plugins` entry", () => {
  test(
    "plugins alone: nothing live (the leak stays text, no [dsml] line), and the run still answers",
    async () => {
      const env = await setup([{ content: LEAK }, { content: "Done." }], { plugin: [] });
      teardowns.push(env.teardown);
      writeV2Document(env.project.dir, repoRoot);
      const result = await runOpencode(env.project, "write the file", { timeoutMs: 90_000 });
      expect(result.timedOut).toBe(false);
      expect(result.code).toBe(0);
      expect(toolUses(result.events)).toEqual([]);
      expect(existsSync(path.join(env.project.dir, "v2.txt"))).toBe(false);
      // OpenCode did read the entry: its V1 config layer reports the `plugins` key it cannot represent.
      expect(result.stderr).toContain('path="[\\"plugins\\"]"');
      expect(result.stderr).not.toContain("[dsml]");
    },
    TIMEOUT,
  );

  test(
    "plugin and plugins both listed: the classic entry repairs the leak exactly once",
    async () => {
      const env = await setup([{ content: LEAK }, { content: "Done." }], { plugin: [pluginEntry({ providers: ["fake"], debug: true })] });
      teardowns.push(env.teardown);
      writeV2Document(env.project.dir, repoRoot);
      const result = await runOpencode(env.project, "write the file", { timeoutMs: 90_000 });
      expect(result.timedOut).toBe(false);
      expect(result.code).toBe(0);
      expect(toolUses(result.events).map((u) => [u.tool, u.state?.status, u.state?.input])).toEqual([["bash", "completed", { command: COMMAND }]]);
      expect(result.stderr.match(/\[dsml\] response \S+ recovered=1/g)).toHaveLength(1);
      expect(result.stderr.match(/\[dsml\] loaded v/g)).toHaveLength(1);
    },
    TIMEOUT,
  );
});
