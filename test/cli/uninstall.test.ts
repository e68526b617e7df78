/**
 * README's Uninstall, step by step, on a project in the state README's install leaves it: the
 * package installed with `npm i -D` into a project that had no package.json, the entry
 * `opencode plugin` wrote to .opencode/opencode.json, a `$schema` pointing into the package, and
 * OpenCode's own first-start install in .opencode/. After the steps the project is as it was
 * before the install, doctor finds nothing of the plugin left, and the real OpenCode 1.18.33 loads
 * the config with no plugin entry.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { OPENCODE_DISABLE_FLAGS, opencodeBin, seedConfigDir } from "../e2e/harness.ts";

const NAME = "opencode-plugin-dsml-fix";
const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const UNINSTALL = README.slice(README.indexOf("## Uninstall"), README.indexOf("\n## ", README.indexOf("## Uninstall") + 1));

/** Every file under dir with its contents (folders end in "/"), to compare a tree before and after. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name);
      const rel = path.relative(dir, full);
      if (statSync(full).isDirectory()) {
        out[`${rel}/`] = "";
        walk(full);
      } else out[rel] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

function installed() {
  const root = mkdtempSync(path.join(tmpdir(), "dsml-uninstall-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "project"]) mkdirSync(path.join(root, d), { recursive: true });
  seedConfigDir(path.join(root, "config", "opencode"));
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache"), XDG_DATA_HOME: path.join(root, "data"), XDG_STATE_HOME: path.join(root, "state"), PWD: project };
  for (const flag of OPENCODE_DISABLE_FLAGS) env[flag] = "1";
  const write = (rel: string, value: unknown) => {
    const file = path.join(project, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  };
  // The user's project before the install.
  write("opencode.json", { $schema: "https://opencode.ai/config.json", model: "deepseek/deepseek-chat" });
  write("src/app.ts", "export {};\n");
  const before = snapshot(project);
  // `npm i -D <tarball>` (no package.json before it), `opencode plugin <absolute path>`, the README's $schema, OpenCode's first start.
  const folder = path.join(project, "node_modules", NAME);
  write("package.json", { devDependencies: { [NAME]: "file:../opencode-plugin-dsml-fix-0.1.0.tgz" } });
  write("package-lock.json", { lockfileVersion: 3, packages: { "": { devDependencies: { [NAME]: "file:../opencode-plugin-dsml-fix-0.1.0.tgz" } } } });
  write(`node_modules/${NAME}/package.json`, { name: NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } } });
  write(`node_modules/${NAME}/server.js`, "export default {};\n");
  write(`node_modules/${NAME}/schema/opencode.schema.json`, "{}");
  write("node_modules/zod/package.json", { name: "zod", version: "4.0.0" });
  write(".opencode/opencode.json", { plugin: [[folder, { providers: ["auto"] }]] });
  write("opencode.json", { $schema: `./node_modules/${NAME}/schema/opencode.schema.json`, model: "deepseek/deepseek-chat" });
  seedConfigDir(path.join(project, ".opencode"));
  write(".opencode/.gitignore", "node_modules\npackage.json\nbun.lock\n.gitignore\n");
  const doctor = async () => {
    let out = "";
    let json = "";
    const io = (sink: (t: string) => void) => ({ readStdin: async () => new Uint8Array(), out: sink, err: () => {}, env, cwd: project });
    const code = await main(["doctor"], io((t) => (out += t)));
    await main(["doctor", "--json"], io((t) => (json += t)));
    return { code, out, json: JSON.parse(json) };
  };
  return { root, project, env, before, folder, doctor };
}

/** README's steps for this install, in its order. */
function uninstall(box: ReturnType<typeof installed>, { skipSchema = false } = {}) {
  const { project } = box;
  // 1. The entry: removed from .opencode/opencode.json, which then holds nothing else: deleted.
  const dotConfig = path.join(project, ".opencode", "opencode.json");
  const left = JSON.parse(readFileSync(dotConfig, "utf8"));
  left.plugin = left.plugin.filter((entry: unknown) => !JSON.stringify(entry).includes(NAME));
  if (left.plugin.length === 0) delete left.plugin;
  if (Object.keys(left).filter((key) => key !== "$schema").length === 0) rmSync(dotConfig);
  // 2. The $schema back to OpenCode's own.
  if (!skipSchema) {
    const rootConfig = path.join(project, "opencode.json");
    writeFileSync(rootConfig, JSON.stringify({ ...JSON.parse(readFileSync(rootConfig, "utf8")), $schema: "https://opencode.ai/config.json" }, null, 2));
  }
  // 3. `npm rm -D`; the install created package.json and nothing else depends on anything: all three go.
  rmSync(path.join(project, "node_modules", NAME), { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8"));
  delete manifest.devDependencies[NAME];
  if (Object.keys(manifest.devDependencies).length === 0) for (const f of ["package.json", "package-lock.json", "node_modules"]) rmSync(path.join(project, f), { recursive: true, force: true });
  // 4. .opencode/ holds only OpenCode's own install: deleted.
  const dot = path.join(project, ".opencode");
  if (readdirSync(dot).every((name) => ["package.json", "package-lock.json", "node_modules", ".gitignore"].includes(name))) rmSync(dot, { recursive: true });
}

describe("uninstall as README says", () => {
  test("README's Uninstall names every artifact the install creates", () => {
    for (const artifact of ["`.opencode/opencode.json`", "`$schema`", "https://opencode.ai/config.json", "`npm rm -D opencode-plugin-dsml-fix`", "`package.json`", "`package-lock.json`", "`node_modules/`", "`packages/opencode-plugin-dsml-fix@latest`", "`~/.config/opencode/opencode.jsonc`", "`.gitignore`", "`opencode debug config`"]) {
      expect({ artifact, named: UNINSTALL.includes(artifact) }).toEqual({ artifact, named: true });
    }
  });

  test("the steps leave the project as it was before the install, and doctor finds nothing of the plugin", async () => {
    const box = installed();
    expect((await box.doctor()).json.plugin.listed).toBe(true);
    uninstall(box);
    // Only the $schema line of opencode.json differs from before: restored to what it was.
    expect(snapshot(box.project)).toEqual(box.before);
    const after = await box.doctor();
    expect(after.json.plugin).toEqual({ listed: false, entries: [] });
    expect(after.json.problems).toEqual([expect.stringContaining("the plugin is not listed")]);
    expect(after.out).not.toContain("$schema");
  });

  test("a step left out is caught: the $schema into the removed package is named, with OpenCode's own schema as the fix", async () => {
    const box = installed();
    uninstall(box, { skipSchema: true });
    const r = await box.doctor();
    expect(r.out).toContain(`"$schema" "./node_modules/${NAME}/schema/opencode.schema.json" names a missing file`);
    expect(r.out).toContain('write "https://opencode.ai/config.json"');
  });

  test("OpenCode 1.18.33 loads the config the steps leave: no plugin entry, no error", () => {
    const box = installed();
    uninstall(box);
    const shown = spawnSync(opencodeBin, ["debug", "config"], { cwd: box.project, env: box.env, encoding: "utf8", timeout: 90_000 });
    expect(shown.status).toBe(0);
    const config = JSON.parse(shown.stdout.slice(shown.stdout.indexOf("{"))) as { plugin?: unknown[]; model?: string };
    expect(config.model).toBe("deepseek/deepseek-chat");
    expect(config.plugin ?? []).toEqual([]);
    expect(shown.stderr).not.toMatch(/error/i);
  }, 120_000);
});
