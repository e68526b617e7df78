/**
 * Hostile review 49: `dsml-fix doctor` (src/cli/doctor.ts, opencode-config.ts, v2-config.ts)
 * against what OpenCode 1.18.33 does with the same files (checked with the binary in node_modules,
 * `opencode debug config --pure`, in scratch HOME/XDG dirs). Tests named FINDING fail on main when
 * written; the others are hard negatives. Each test runs in its own scratch HOME / XDG dirs.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { seedConfigDir } from "../e2e/harness.ts";

const NAME = "opencode-plugin-dsml-fix";

interface Box {
  project: string;
  env: NodeJS.ProcessEnv;
  write(rel: string, text: string): void;
}

/** A project (a git worktree) with the plugin installed in its node_modules, the global config dir seeded. */
function box(): Box {
  const root = mkdtempSync(path.join(tmpdir(), "r49-doctor-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "data", "project/.git"]) mkdirSync(path.join(root, d), { recursive: true });
  seedConfigDir(path.join(root, "config/opencode"));
  const folder = path.join(project, "node_modules", NAME);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } } }));
  writeFileSync(path.join(folder, "server.js"), "export default {};\n");
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache"), XDG_DATA_HOME: path.join(root, "data") };
  const write = (rel: string, text: string) => {
    const file = path.join(project, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  return { project, env, write };
}

async function doctor(b: Box, argv: string[] = []) {
  let out = "";
  let err = "";
  const code = await main(["doctor", ...argv], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: b.env, cwd: b.project });
  return { code, out, err };
}

describe("a `plugin` value OpenCode 1.18 refuses to start with", () => {
  // Fixed (was FINDING 1; wrong advice: host broken, the user is sent the wrong way). OpenCode 1.18.33 refuses
  // the whole config when `plugin` is not a list, or holds an object entry (the OpenCode 2
  // `{ package, options }` form written under 1.18's key): `opencode debug config` prints
  // "Configuration is invalid ... Expected array | undefined, got "opencode-plugin-dsml-fix" plugin"
  // and "Expected string | array, got {"package":...} plugin.0", and OpenCode does not start at all.
  // doctor silently drops such entries (opencode-config.ts pluginEntry returns [] for a non-string
  // spec; a non-array `plugin` is skipped) and says only "the plugin is not listed ...: add
  // "opencode-plugin-dsml-fix" ... to "plugin"", which is what the user believes they did.
  // Expected: a problem naming the file and the entry as one OpenCode refuses (a list of strings
  // or [name, options] pairs; `{ package, options }` is OpenCode 2's `plugins` form).
  // Suspected source: src/cli/opencode-config.ts loadConfig/pluginEntry.
  test("\"plugin\": \"opencode-plugin-dsml-fix\" (a string, not a list) is reported as a config OpenCode refuses, not as 'not listed'", async () => {
    const b = box();
    b.write("opencode.json", JSON.stringify({ plugin: NAME }));
    const r = await doctor(b);
    expect(r.out).not.toContain("the plugin is not listed in any config file");
    expect(r.out + r.err).toMatch(/"plugin" .*(list|array)/);
  });

  test("a { package, options } object under \"plugin\" is reported as a config OpenCode 1.18 refuses (that form is OpenCode 2's \"plugins\")", async () => {
    const b = box();
    b.write("opencode.json", JSON.stringify({ plugin: [{ package: NAME, options: { debug: true } }] }));
    const r = await doctor(b);
    expect(r.out).not.toContain("the plugin is not listed in any config file");
    expect(r.out + r.err).toContain('"plugins"');
  });

  // Hard negative (passes on main): the tuple form OpenCode 1.18 accepts, written with a BOM,
  // comments and trailing commas, is listed with its options read.
  test("hard negative: [name, options] with a BOM, comments and trailing commas: listed, options checked", async () => {
    const b = box();
    b.write("opencode.jsonc", `\uFEFF{\n  // ours\n  "plugin": [["./node_modules/${NAME}", { "providers": ["deepseek",], /* x */ },],],\n  "model": "deepseek/deepseek-chat",\n  "provider": { "deepseek": {} },\n}\n`);
    const r = await doctor(b, ["--json"]);
    const report = JSON.parse(r.out);
    expect(report.plugin.listed).toBe(true);
    expect(report.providers).toEqual(["deepseek"]);
    expect(r.code).toBe(0);
  });
});

describe("{file:...} substitution as OpenCode does it", () => {
  // Fixed (was FINDING 2; wrong answer, low). OpenCode 1.18.33 substitutes `{file:PATH}` in a config (relative
  // to the file) as it does `{env:NAME}`: with model.txt holding "deepseek/deepseek-chat",
  // `"model": "{file:./model.txt}"` is read by `opencode debug config` as "deepseek/deepseek-chat".
  // doctor substitutes only {env:}, so it reports a route "{file:./model.txt}" (provider "{file:.")
  // as off, and never judges the DeepSeek model the user runs. Expected: the DeepSeek model judged
  // (wire, with the default providers).
  // Suspected source: src/cli/opencode-config.ts withEnv (no {file:} substitution).
  // Review 56: a value substitution changed is printed as the file writes it (src/cli/as-written.ts),
  // so the route is named "{file:./model.txt}"; that it is judged as the DeepSeek model shows in
  // its mode and its reason ("auto" covers a leak-prone family).
  test("{file:} is substituted as OpenCode does: \"model\": \"{file:./model.txt}\" is judged as the model the file names", async () => {
    const b = box();
    b.write("model.txt", "deepseek/deepseek-chat");
    b.write("opencode.json", JSON.stringify({ plugin: [`./node_modules/${NAME}`], model: "{file:./model.txt}" }));
    const report = JSON.parse((await doctor(b, ["--json"])).out);
    expect(report.routes.map((r: { label: string; mode: string; why: string }) => `${r.label}: ${r.mode}: ${r.why.split(";")[0]}`)).toEqual(['{file:./model.txt}: wire: "auto" covers it: a leak-prone model family']);
  });
});

describe("the proxy hint is for people who do not use OpenCode", () => {
  // Fixed (was FINDING 3; wrong advice, low). The hint "not using OpenCode? `dsml-fix proxy ...`" is shown
  // whenever OpenCode 1.18's `plugin` does not list the plugin (doctor.ts: `checks.length === 0`),
  // also when the config lists it for OpenCode 2 under `plugins`: the user plainly uses OpenCode
  // and already has the plugin listed. Expected: no proxy hint when any OpenCode entry (1.18 or 2)
  // lists the plugin.
  // Suspected source: src/cli/doctor.ts (proxyHint condition).
  test("the proxy hint is only for someone not using OpenCode: a `plugins` (OpenCode 2) entry alone gets no 'not using OpenCode?' line, no proxyHint", async () => {
    const b = box();
    b.write("opencode.json", JSON.stringify({ plugins: [{ package: NAME, options: {} }] }));
    const text = await doctor(b);
    expect(text.out).toContain("plugin (OpenCode 2)");
    expect(text.out).not.toContain("not using OpenCode?");
    expect(JSON.parse((await doctor(b, ["--json"])).out).proxyHint).toBeUndefined();
  });
});
