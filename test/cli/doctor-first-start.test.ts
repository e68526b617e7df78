/**
 * doctor and OpenCode's first start: before loading any plugin, OpenCode 1.18.33 installs
 * @opencode-ai/plugin into each config dir it reads and waits for it (offline: a stall of
 * minutes). doctor names each dir that would run that install, with commands that seed it; the
 * seeded state is the one OpenCode skips (test/e2e/first-start.test.ts runs the real binary).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";

const PLUGIN = "./node_modules/opencode-plugin-dsml-fix";

function sandbox() {
  const root = mkdtempSync(path.join(tmpdir(), "dsml-first-start-"));
  const project = path.join(root, "project");
  const globalDir = path.join(root, "config", "opencode");
  for (const d of ["home", "config/opencode", "cache/opencode", "project/.opencode"]) mkdirSync(path.join(root, d), { recursive: true });
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") };
  const folder = path.join(project, "node_modules", "opencode-plugin-dsml-fix");
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: "opencode-plugin-dsml-fix", version: "0.1.0", exports: { "./server": { import: "./server.js" } } }));
  writeFileSync(path.join(folder, "server.js"), "export default {};\n");
  writeFileSync(path.join(project, "opencode.json"), JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [PLUGIN] }));
  const doctor = async (argv: string[] = []) => {
    let out = "";
    const code = await main(["doctor", ...argv], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: () => {}, env, cwd: project });
    return { code, out };
  };
  return { root, project, globalDir, dotDir: path.join(project, ".opencode"), env, doctor };
}

/** The indented shell lines under "offline fix", as a user would paste them. */
function fixCommands(out: string): string {
  const lines = out.split("\n");
  const from = lines.findIndex((line) => line.startsWith("  offline fix"));
  expect(from).toBeGreaterThan(-1);
  const commands: string[] = [];
  for (const line of lines.slice(from + 1)) {
    if (!line.startsWith("    ")) break;
    commands.push(line.slice(4));
  }
  return commands.join("\n");
}

describe("dsml-fix doctor: OpenCode's install on first start", () => {
  test("unseeded config dirs are named with the reason and the fix; the printed commands seed them, and doctor then sees no wait", async () => {
    const box = sandbox();
    const before = await box.doctor();
    expect(before.out).toContain("first start: OpenCode installs @opencode-ai/plugin into these config dirs and waits for it before loading plugins; online that runs once, offline it stalls the start for minutes with nothing on screen:\n");
    expect(before.out).toContain(`  ${box.globalDir}: no node_modules/\n`);
    expect(before.out).toContain(`  ${box.dotDir}: no node_modules/\n`);
    // A note, not a problem: online the install simply runs once.
    expect(before.code).toBe(0);
    const json = JSON.parse((await box.doctor(["--json"])).out);
    expect(json.firstStart.waits).toBe(true);
    expect(json.firstStart.unseeded.map((d: { dir: string }) => d.dir)).toEqual([box.globalDir, box.dotDir]);

    const shell = spawnSync("sh", ["-e", "-c", fixCommands(before.out)], { encoding: "utf8" });
    expect(shell.status).toBe(0);
    const after = await box.doctor();
    expect(after.out).toContain("first start: no wait (every config dir OpenCode reads already holds its @opencode-ai/plugin install)\n");
    expect(after.out).not.toContain("offline fix");
    expect(JSON.parse(readFileSync(path.join(box.dotDir, "package-lock.json"), "utf8"))).toEqual({ lockfileVersion: 3, packages: { "": { dependencies: { "@opencode-ai/plugin": "1.18.33" } } } });
  });

  test("a dir with its own package.json: the lock must list its dependencies too, and the fix keeps that package.json", async () => {
    const box = sandbox();
    spawnSync("sh", ["-e", "-c", fixCommands((await box.doctor()).out)]);
    const own = JSON.stringify({ dependencies: { "@opencode-ai/plugin": "1.18.33", "left-pad": "^1.3.0" } });
    writeFileSync(path.join(box.dotDir, "package.json"), own);
    const r = await box.doctor();
    expect(r.out).toContain(`  ${box.dotDir}: package-lock.json does not list left-pad\n`);
    expect(r.out).not.toContain(`${box.globalDir}:`);
    spawnSync("sh", ["-e", "-c", fixCommands(r.out)]);
    expect(readFileSync(path.join(box.dotDir, "package.json"), "utf8")).toBe(own);
    expect((await box.doctor()).out).toContain("first start: no wait");
  });

  test("no plugin listed: OpenCode does not wait, and doctor prints no first-start note", async () => {
    const box = sandbox();
    writeFileSync(path.join(box.project, "opencode.json"), JSON.stringify({ model: "deepseek/deepseek-chat" }));
    const r = await box.doctor();
    expect(r.out).not.toContain("first start:");
    expect(JSON.parse((await box.doctor(["--json"])).out).firstStart).toEqual({ waits: false, unseeded: [] });
  });
});
