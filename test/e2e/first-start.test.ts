/**
 * OpenCode's first start against the real binary (1.18.33), offline: before it loads any plugin it
 * installs @opencode-ai/plugin into each config dir and waits for it. With the registry refused that
 * install fails after npm's retries (74.6 s measured with npm's default retries, every start, since
 * a failed install leaves the dir unseeded; black-holed, it waits longer). Here npm is told not to
 * retry, so the failure is quick; what is asserted is which dirs OpenCode tries to install into, and
 * that doctor names exactly those and that its printed fix makes OpenCode skip the install.
 */
import { afterEach, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { freePort, repoRoot, runOpencode, setup } from "./harness.ts";

let teardowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const t of teardowns.reverse()) await t().catch(() => {});
  teardowns = [];
});

const INSTALL_FAILED = 'message="background dependency install failed" dir=';

async function doctor(env: Record<string, string>, cwd: string): Promise<{ code: number; out: string; json: any }> {
  let out = "";
  const code = await main(["doctor"], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: () => {}, env, cwd });
  let json = "";
  await main(["doctor", "--json"], { readStdin: async () => new Uint8Array(), out: (t) => (json += t), err: () => {}, env, cwd });
  return { code, out, json: JSON.parse(json) };
}

/** The dirs named in OpenCode's log lines for a failed install. */
function failedInstalls(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => line.includes(INSTALL_FAILED))
    .map((line) => line.slice(line.indexOf(INSTALL_FAILED) + INSTALL_FAILED.length).split(" ")[0]!)
    .sort();
}

test("offline first start: OpenCode tries to install into exactly the config dirs doctor names; after doctor's fix it skips the install and loads the plugin", async () => {
  const closed = await freePort(); // nothing listens there: the registry refuses, as on a machine without network
  const env = await setup([{ content: "Hello." }, { content: "Hello again." }], { plugin: [[repoRoot, { providers: ["fake"] }]], env: { npm_config_registry: `http://127.0.0.1:${closed}/`, npm_config_fetch_retries: "0" } });
  teardowns.push(env.teardown);
  const { dir, env: vars } = env.project;
  const dirs = [path.join(vars.XDG_CONFIG_HOME!, "opencode"), path.join(dir, ".opencode")];
  for (const d of dirs) for (const f of ["package.json", "package-lock.json", "node_modules"]) rmSync(path.join(d, f), { recursive: true, force: true });

  const before = await doctor(vars, dir);
  expect(before.json.firstStart.unseeded.map((d: { dir: string }) => d.dir).sort()).toEqual([...dirs].sort());

  const unseeded = await runOpencode(env.project, "hi", { timeoutMs: 110_000 });
  expect(unseeded.timedOut).toBe(false);
  expect(failedInstalls(unseeded.stderr)).toEqual([...dirs].sort());
  // A failed install leaves the dir as it was: the next start would try (and wait) again.
  expect((await doctor(vars, dir)).json.firstStart.unseeded).toHaveLength(2);

  const lines = before.out.split("\n");
  const from = lines.findIndex((line) => line.startsWith("  offline fix"));
  const commands = lines.slice(from + 1).filter((line) => line.startsWith("    ")).map((line) => line.slice(4)).join("\n");
  expect(spawnSync("sh", ["-e", "-c", commands]).status).toBe(0);
  expect((await doctor(vars, dir)).out).toContain("first start: no wait");

  const seeded = await runOpencode(env.project, "hi", { timeoutMs: 110_000 });
  expect(seeded.timedOut).toBe(false);
  expect(seeded.code).toBe(0);
  expect(failedInstalls(seeded.stderr)).toEqual([]);
  expect(seeded.stderr).toContain("[dsml] loaded v");
  for (const d of dirs) expect(existsSync(path.join(d, "node_modules", "@opencode-ai", "plugin"))).toBe(false);
}, 240_000);
