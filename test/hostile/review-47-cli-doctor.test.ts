/**
 * Hostile review 47: `dsml-fix doctor` (src/cli/doctor.ts, opencode-config.ts, v2-config.ts)
 * against what OpenCode 1.18.33 does with the same files and what the docs promise. Every test
 * named fixed was a FINDING that failed on main when written (fixed on fx-47-cli); the others are hard negatives. Each test
 * runs in its own scratch HOME / XDG dirs: the real ones are never read or written.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { seedConfigDir } from "../e2e/harness.ts";

const NAME = "opencode-plugin-dsml-fix";
const REEXPORT = `export { default } from "${NAME}/server";\n`;

interface Box {
  root: string;
  project: string;
  env: NodeJS.ProcessEnv;
  write(rel: string, text: string): void;
}

/** A project (a git worktree) with the plugin installed in its node_modules, every config dir seeded. */
function box(extraEnv: Record<string, string> = {}, { install = true } = {}): Box {
  const root = mkdtempSync(path.join(tmpdir(), "r47-doctor-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "data", "project/.git"]) mkdirSync(path.join(root, d), { recursive: true });
  seedConfigDir(path.join(root, "config/opencode"));
  if (install) {
    const folder = path.join(project, "node_modules", NAME);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } } }));
    writeFileSync(path.join(folder, "server.js"), "export default {};\n");
  }
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache"), XDG_DATA_HOME: path.join(root, "data"), ...extraEnv };
  const write = (rel: string, text: string) => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    if (path.basename(path.dirname(file)).startsWith("plugin") && path.basename(path.dirname(path.dirname(file))) === ".opencode") seedConfigDir(path.dirname(path.dirname(file)));
  };
  return { root, project, env, write };
}

async function doctor(b: Box, argv: string[] = []) {
  let out = "";
  let err = "";
  const code = await main(["doctor", ...argv], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: b.env, cwd: b.project });
  return { code, out, err };
}

describe("{env:VAR} substitution as OpenCode does it", () => {
  // Fixed (was: wrong answer, low; src/cli/opencode-config.ts withEnv). Rule now: as OpenCode's
  // /\{env:([^}]+)\}/g, an empty `{env:}` stays text and substitution goes on past it. It was: an empty
  // `{env:}` anywhere in a config (OpenCode leaves it as text: its pattern needs a name) makes
  // withEnv `break` out of its loop, so every `{env:NAME}` after it is left unsubstituted. Checked
  // with OpenCode 1.18.33 (`opencode debug config` on {"username":"{env:}","model":"{env:M}"}
  // prints "model": "deepseek/deepseek-chat"). Here the plugin's providers come from
  // `{env:P}` = "deepseek": doctor reads the literal "{env:P}", reports the DeepSeek model as off
  // and "nothing in scope can be repaired live" (exit 1), while the plugin would get
  // ["deepseek"] and repair it. Expected: substitution goes on past an empty `{env:}`.
  // Review 56: doctor prints a value substitution changed as the file writes it
  // (src/cli/as-written.ts), so `providers` reads ["{env:P}"]; the substitution shows in the
  // judgement: the DeepSeek route is wired because provider "deepseek" is in providers.
  test("fixed: an empty {env:} earlier in the file does not stop later {env:NAME} substitutions", async () => {
    const b = box({ P: "deepseek" });
    b.write("project/opencode.json", `{"username":"{env:}","plugin":[["./node_modules/${NAME}",{"providers":["{env:P}"]}]],"model":"deepseek/deepseek-chat","provider":{"deepseek":{}}}`);
    const r = await doctor(b, ["--json"]);
    const report = JSON.parse(r.out);
    expect(report.providers).toEqual(["{env:P}"]);
    expect(report.routes.map((route: { label: string; mode: string; why: string }) => [route.label, route.mode, route.why.split(";")[0]])).toEqual([["deepseek/deepseek-chat", "wire", 'provider "deepseek" is in providers']]);
    expect(report.problems).toEqual([]);
    expect(r.code).toBe(0);
  });

  test("hard negative: without the empty {env:}, the same file is read as OpenCode reads it (exit 0)", async () => {
    const b = box({ P: "deepseek" });
    b.write("project/opencode.json", `{"plugin":[["./node_modules/${NAME}",{"providers":["{env:P}"]}]],"model":"deepseek/deepseek-chat","provider":{"deepseek":{}}}`);
    const r = await doctor(b, ["--json"]);
    expect(JSON.parse(r.out).providers).toEqual(["{env:P}"]);
    expect(JSON.parse(r.out).routes.map((route: { mode: string }) => route.mode)).toEqual(["wire"]);
    expect(r.code).toBe(0);
  });
});

describe("plugin files in .opencode/plugins/", () => {
  // Fixed (was: wrong answer, doctor says a setup works when the plugin is not loaded, medium;
  // src/cli/v2-config.ts pluginFiles). Rule now: a file counts only when a real statement
  // (import/export ... from, import "x", import(), require()) loads the package, comments,
  // strings and type-only imports excluded (importedSpecifiers); an import that does not resolve
  // from the file's folder is reported as a problem of that file. It was: any .ts/.js/.mjs file in
  // .opencode/plugins/ (or plugin/) whose text merely *contains* "opencode-plugin-dsml-fix" (a
  // comment, a string, an import of a package that is not installed) counts as the plugin
  // installed "for OpenCode 1.18 and 2". With no `plugin` entry, doctor then prints
  // "no problems found" and exits 0: the "not listed" problem is suppressed
  // (`v2.entries.length === 0` is false), yet no host loads the plugin from that file. Expected:
  // a file counts only when it imports or re-exports the package (and the import resolves from
  // the file); otherwise the "not listed" problem stands (exit 1).
  test("fixed: a plugin file that only mentions the package in a comment is not an install (exit 1, not listed)", async () => {
    const b = box();
    b.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat" }));
    b.write("project/.opencode/plugins/notify.ts", `// Works next to ${NAME}; this one only beeps.\nexport default async () => ({});\n`);
    const r = await doctor(b, ["--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).problems).toEqual([expect.stringContaining("the plugin is not listed")]);
  });

  test("fixed: a re-export whose package does not resolve from the file is reported, not 'no problems found'", async () => {
    const b = box({}, { install: false });
    b.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat" }));
    b.write("project/.opencode/plugins/dsml.ts", REEXPORT);
    const r = await doctor(b);
    expect(r.out).not.toContain("no problems found");
    expect(r.code).toBe(1);
  });

  // Fixed (was: wrong answer, low; src/cli/doctor.ts, the "listed N times" check counted `plugin`
  // entries only). Rule now: a loadable plugin file counts as a load for both hosts, so a file
  // next to a `plugin` entry (1.18), a `plugins` entry (2) or another such file is one problem
  // naming each load (doctor.ts loadedTwice). It was: docs/INSTALL.md says a re-export file in .opencode/plugins/ is
  // loaded by 1.18 "as well, as a classic plugin" and to list the package once. With both a
  // `plugin` entry and such a file, OpenCode 1.18 loads two copies of the plugin; doctor, which
  // reports two `plugin` entries as a problem ("OpenCode loads each one; keep one"), says
  // "no problems found" here and exits 0. Expected: one problem naming both.
  test("fixed: a plugin entry and a re-export file in .opencode/plugins/ are the plugin loaded twice", async () => {
    const b = box();
    b.write("project/opencode.json", JSON.stringify({ plugin: [`./node_modules/${NAME}`], model: "deepseek/deepseek-chat" }));
    b.write("project/.opencode/plugins/dsml.ts", REEXPORT);
    const r = await doctor(b, ["--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).problems.join("\n")).toContain("dsml.ts");
  });

  test("hard negative: the re-export file alone, with the package installed, is a working install (exit 0)", async () => {
    const b = box();
    b.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat" }));
    b.write("project/.opencode/plugins/dsml.ts", REEXPORT);
    const r = await doctor(b);
    expect(r.out).toContain("no problems found");
    expect(r.code).toBe(0);
  });
});

describe("doctor reads only", () => {
  /** Every file and folder under root, with its size and modification time. */
  function snapshot(root: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = path.join(dir, name);
        const s = statSync(p);
        out[path.relative(root, p)] = `${s.isDirectory() ? "d" : s.size}:${s.mtimeMs}`;
        if (s.isDirectory()) walk(p);
      }
    };
    walk(root);
    return out;
  }

  test("hard negative: text and --json, with unseeded config dirs, a plugin file and env-resolved secrets: nothing written, no secret printed", async () => {
    const secret = "sk-R47-SECRET-do-not-print";
    const b = box({ KEY: secret });
    b.write(
      "project/opencode.json",
      JSON.stringify({
        plugin: [[`./node_modules/${NAME}`, { providers: ["deepseek"], debug: true }]],
        model: "deepseek/deepseek-chat",
        provider: { deepseek: { options: { apiKey: "{env:KEY}", headers: { Authorization: "Bearer {env:KEY}" }, baseURL: `https://user:${secret}@api.deepseek.com/v1` }, models: { "deepseek-chat": {} } } },
      }),
    );
    // .opencode/ without its install: doctor prints the seeding commands, and must not run them.
    mkdirSync(path.join(b.project, ".opencode"), { recursive: true });
    writeFileSync(path.join(b.project, ".opencode", "opencode.json"), "{}");
    const before = snapshot(b.root);
    for (const argv of [[], ["--json"]]) {
      const r = await doctor(b, argv);
      expect(r.out + r.err).not.toContain(secret);
      expect(argv.length > 0 || r.out.includes("mkdir -p")).toBe(true);
    }
    expect(snapshot(b.root)).toEqual(before);
  });
});

describe("relative OPENCODE_CONFIG_DIR", () => {
  // Fixed (was: wrong answer, low; src/cli/opencode-config.ts configFiles). Rule now: a relative
  // OPENCODE_CONFIG_DIR is resolved from DIR. It was: a
  // relative OPENCODE_CONFIG_DIR is joined as it is (path.join), so it is read from the doctor
  // process's working directory, not from DIR, while OPENCODE_CONFIG and the first-start check
  // (first-start.ts installDirs: path.resolve(dir, ...)) resolve from DIR. `dsml-fix doctor DIR`
  // (or main with io.cwd = DIR) with OPENCODE_CONFIG_DIR=cfg and DIR/cfg/opencode.json listing the
  // plugin says "the plugin is not listed" (exit 1), while OpenCode started in DIR reads that file.
  // Expected: resolved from DIR like OPENCODE_CONFIG.
  test("fixed: OPENCODE_CONFIG_DIR=cfg is read from DIR, as OPENCODE_CONFIG is", async () => {
    const b = box({ OPENCODE_CONFIG_DIR: "cfg" });
    b.write("project/cfg/opencode.json", JSON.stringify({ plugin: [path.join(b.project, "node_modules", NAME)], model: "deepseek/deepseek-chat" }));
    seedConfigDir(path.join(b.project, "cfg"));
    const r = await doctor(b, ["--json"]);
    const report = JSON.parse(r.out);
    expect(report.files.map((f: { kind: string }) => f.kind)).toEqual(["OPENCODE_CONFIG_DIR"]);
    expect(report.plugin.listed).toBe(true);
    expect(r.code).toBe(0);
  });

  test("hard negative: OPENCODE_CONFIG=cfg/opencode.json (relative) is read from DIR", async () => {
    const b = box({ OPENCODE_CONFIG: "cfg/opencode.json" });
    b.write("project/cfg/opencode.json", JSON.stringify({ plugin: [path.join(b.project, "node_modules", NAME)], model: "deepseek/deepseek-chat" }));
    const r = await doctor(b, ["--json"]);
    expect(JSON.parse(r.out).plugin.listed).toBe(true);
    expect(r.code).toBe(0);
  });
});
