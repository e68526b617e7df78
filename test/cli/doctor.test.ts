import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { main } from "../../src/cli/main.ts";
import { loadConfig } from "../../src/cli/opencode-config.ts";
import { npmVersionOrTag } from "../../src/cli/plugin-check.ts";
import { schemaReference } from "../../src/cli/schema-ref.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import { OPENCODE_DISABLE_FLAGS, opencodeBin, seedConfigDir } from "../e2e/harness.ts";

const NAME = "opencode-plugin-dsml-fix";

interface Sandbox {
  root: string;
  project: string;
  env: NodeJS.ProcessEnv;
  write(rel: string, value: unknown): string;
  /** An installed copy of the plugin (package.json, server entry, zod) under `dir`/node_modules. */
  install(dir: string, options?: { withZod?: boolean }): string;
}

function sandbox(): Sandbox {
  const root = mkdtempSync(path.join(tmpdir(), "dsml-doctor-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "project"]) mkdirSync(path.join(root, d), { recursive: true });
  // As after OpenCode's first start: its own install done in the global config dir (doctor-first-start.test.ts covers the other state).
  seedConfigDir(path.join(root, "config/opencode"));
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") };
  const write = (rel: string, value: unknown) => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
    return file;
  };
  const install = (dir: string, { withZod = true } = {}) => {
    const folder = path.join(dir, "node_modules", NAME);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } }, dependencies: { zod: "^4.0.0" } }));
    writeFileSync(path.join(folder, "server.js"), "export default {};\n");
    if (withZod) {
      mkdirSync(path.join(dir, "node_modules", "zod"), { recursive: true });
      writeFileSync(path.join(dir, "node_modules", "zod", "package.json"), JSON.stringify({ name: "zod", version: "4.0.0" }));
    }
    return folder;
  };
  return { root, project, env, write, install };
}

async function doctor(box: Sandbox, argv: string[] = [], cwd = box.project) {
  let out = "";
  let err = "";
  const code = await main(["doctor", ...argv], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: box.env, cwd });
  return { code, out, err, json: () => JSON.parse(out) };
}

describe("dsml-fix doctor", () => {
  test("the plugin not listed: says so and how to add it; exit 1", async () => {
    const box = sandbox();
    box.write("project/opencode.json", { model: "deepseek/deepseek-chat" });
    const r = await doctor(box);
    expect(r.code).toBe(1);
    expect(r.out).toContain("plugin: not listed");
    expect(r.out).toContain(`the plugin is not listed in any config file OpenCode reads for ${box.project}: add "opencode-plugin-dsml-fix"`);
    expect(r.out).toContain(`project  ${path.join(box.project, "opencode.json")}`);
    const report = (await doctor(box, ["--json"])).json();
    expect(report.plugin).toEqual({ listed: false, entries: [] });
    // What it would do once listed, with the shipped defaults.
    expect(report.providers).toEqual(["auto"]);
    expect(report.routes).toEqual([expect.objectContaining({ provider: "deepseek", model: "deepseek-chat", mode: "wire" })]);
    expect(r.out).toContain('providers: ["auto"] (the default, once the plugin is listed)');
    expect(r.out).toContain("start-up line the plugin would log once listed:");
    expect(report.problems).toHaveLength(1);
  });

  test("listed and loadable with the default options, the model in scope: no problems, exit 0", async () => {
    const box = sandbox();
    box.install(box.project);
    box.write("project/opencode.json", { model: "deepseek/deepseek-chat", plugin: ["./node_modules/opencode-plugin-dsml-fix"] });
    const r = await doctor(box);
    expect(r.out).toContain("no problems found");
    expect(r.code).toBe(0);
    const report = (await doctor(box, ["--json"])).json();
    expect(report.plugin.entries).toEqual([
      { spec: "./node_modules/opencode-plugin-dsml-fix", source: path.join(box.project, "opencode.json"), folder: path.join(box.project, "node_modules", NAME), loadable: true, problems: [], optionProblems: [] },
    ]);
    expect(report.providers).toEqual(["auto"]);
    expect(report.routes).toEqual([
      expect.objectContaining({ provider: "deepseek", model: "deepseek-chat", usedAs: ["model"], mode: "wire" }),
    ]);
    expect(report.startup.line).toMatch(/^\[dsml\] loaded v[^:]+: wired every provider \(leak-prone models\); not wired: none$/);
  });

  test("the .opencode/ trap: a relative path in .opencode/opencode.json is resolved from .opencode/; doctor names the fix", async () => {
    const box = sandbox();
    box.install(box.project);
    const source = box.write("project/.opencode/opencode.json", { plugin: ["./node_modules/opencode-plugin-dsml-fix"] });
    const r = await doctor(box);
    expect(r.code).toBe(1);
    const missing = path.join(box.project, ".opencode", "node_modules", NAME);
    expect(r.out).toContain(`plugin: "./node_modules/opencode-plugin-dsml-fix" in ${source}`);
    expect(r.out).toContain(`${missing} does not exist; a relative path in .opencode/opencode.json is resolved from .opencode/, not from the project: write "../node_modules/opencode-plugin-dsml-fix" or an absolute path`);
    expect(r.out).toContain("NOT loadable");
    box.write("project/.opencode/opencode.json", { plugin: ["../node_modules/opencode-plugin-dsml-fix"] });
    expect((await doctor(box)).code).toBe(0);
  });

  test("bad option values: the plugin's own messages, word for word; exit 1", async () => {
    const box = sandbox();
    box.install(box.project);
    const options = { providers: "deepseek", responseFix: { bufferLimit: 5, denyTool: ["bash"] } };
    box.write("project/opencode.json", { model: "deepseek/deepseek-chat", plugin: [["./node_modules/opencode-plugin-dsml-fix", options]] });
    const r = await doctor(box);
    expect(r.code).toBe(1);
    const expected = resolveOptions(options).problems;
    expect(expected).toContain('[dsml] option "responseFix.bufferLimit" must be an integer from 1024 to 16777216 (got 5); using 65536');
    expect(expected).toContain('[dsml] unknown option "responseFix.denyTool" (did you mean "responseFix.denyTools"?); ignored, and no tool call is recovered until it is fixed (it is close to a security option)');
    expect(expected).toHaveLength(3);
    for (const message of expected) expect(r.out).toContain(`    ${message}\n`);
    expect((await doctor(box, ["--json"])).json().plugin.entries[0].optionProblems).toEqual(expected);
  });

  test("a mis-scoped provider: DeepSeek on a custom fireworks provider with providers [\"deepseek\"] is off, with the reason and the fix", async () => {
    const box = sandbox();
    box.install(box.project);
    box.write(
      "project/opencode.jsonc",
      `{
  // DeepSeek through Fireworks
  "model": "fireworks/accounts/fireworks/models/deepseek-v3p2",
  "provider": {
    "fireworks": {
      "npm": "@ai-sdk/openai-compatible",
      "options": { "baseURL": "https://api.fireworks.ai/inference/v1" },
      "models": { "accounts/fireworks/models/deepseek-v3p2": { "name": "DeepSeek V3.2" } },
    },
  },
  "plugin": [["./node_modules/opencode-plugin-dsml-fix", { "providers": ["deepseek"] }]],
}
`,
    );
    const r = await doctor(box);
    expect(r.code).toBe(1);
    expect(r.out).toContain("  fireworks/accounts/fireworks/models/deepseek-v3p2 (model, provider; package @ai-sdk/openai-compatible): off\n");
    expect(r.out).toContain('    why: provider "fireworks" is not in providers ["deepseek"], and the model is of a leak-prone family\n');
    expect(r.out).toContain('    fix: add "fireworks" to providers (provider ids are the part before "/" in the model name, not model families), or include "auto" (the default: leak-prone models on every provider)\n');
    expect(r.out).toContain("wired nothing; not wired: deepseek (not configured), fireworks (off)");
    // docs/VERIFY.md shows this very output (`dsml-fix doctor`), for a project at /home/me/app.
    const verify = readFileSync(path.join(import.meta.dir, "..", "..", "docs", "VERIFY.md"), "utf8");
    const shown = verify.match(/```text\n(dsml-fix doctor [^\n]*\n[\s\S]*?)```/)![1]!;
    expect(r.out.replaceAll(box.project, "/home/me/app").replace(/loaded v[^:]+:/, "loaded v0.1.0:")).toBe(shown);
    // The fix works: with "fireworks" listed the same model is repaired on the wire.
    box.write("project/opencode.jsonc", `{ "model": "fireworks/deepseek-v3p2", "provider": { "fireworks": { "npm": "@ai-sdk/openai-compatible" } }, "plugin": [["./node_modules/opencode-plugin-dsml-fix", { "providers": ["fireworks"] }]] }`);
    const fixed = await doctor(box, ["--json"]);
    expect(fixed.code).toBe(0);
    expect(fixed.json().routes).toEqual([expect.objectContaining({ provider: "fireworks", mode: "wire" })]);
  });

  test("a package that cannot serve the wire is fallback; a model outside the leak-prone families is off without being a problem", async () => {
    const box = sandbox();
    box.install(box.project);
    box.write("project/opencode.json", {
      model: "vertex/deepseek-v3",
      small_model: "anthropic/claude-haiku-4-5",
      provider: { vertex: { npm: "@ai-sdk/google-vertex", models: { "deepseek-v3": {} } } },
      plugin: ["./node_modules/opencode-plugin-dsml-fix"],
    });
    const r = await doctor(box, ["--json"]);
    const routes = r.json().routes;
    expect(routes.map((x: { provider: string; mode: string }) => [x.provider, x.mode])).toEqual([["vertex", "fallback"], ["anthropic", "off"]]);
    expect(routes[0].why).toContain("its package @ai-sdk/google-vertex is not one the fetch can rewrite");
    expect(routes[1].fix).toBeUndefined();
    expect(r.code).toBe(0);
  });

  test("loadable means its dependencies resolve: a folder copied without zod is reported", async () => {
    const box = sandbox();
    const folder = box.install(path.join(box.root, "copied"), { withZod: false });
    box.write("project/opencode.json", { model: "deepseek/deepseek-chat", plugin: [folder] });
    const r = await doctor(box);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`zod does not resolve from ${folder}`);
  });

  test("by package name: loadable once OpenCode's cache holds it, reported when it does not (not on npm yet)", async () => {
    const box = sandbox();
    box.write("config/opencode/opencode.jsonc", `{ "model": "deepseek/deepseek-chat", "plugin": ["opencode-plugin-dsml-fix"] }`);
    const missing = await doctor(box);
    expect(missing.code).toBe(1);
    expect(missing.out).toContain("not in OpenCode's package cache");
    const consumer = path.join(box.root, "consumer");
    box.install(consumer);
    mkdirSync(path.join(box.root, "cache", "opencode", "packages"), { recursive: true });
    symlinkSync(consumer, path.join(box.root, "cache", "opencode", "packages", `${NAME}@latest`), "dir");
    expect((await doctor(box)).code).toBe(0);
  });

  test("a spec's version is joined into the cache path only when it is an npm version or dist-tag: NAME@../../../../../x looks nowhere", async () => {
    const box = sandbox();
    // Where the traversal would land (the segment NAME@.., then four levels up, out of the cache): a loadable copy.
    box.install(path.join(box.root, "consumer"));
    const traversal = `${NAME}@../../../../../consumer`;
    box.write("config/opencode/opencode.jsonc", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [traversal] }));
    const outside = await doctor(box, ["--json"]);
    expect(outside.code).toBe(1);
    const entry = outside.json().plugin.entries[0];
    expect({ folder: entry.folder, loadable: entry.loadable, problems: entry.problems }).toEqual({
      folder: null,
      loadable: false,
      problems: [
        `not installed: "../../../../../consumer" in ${JSON.stringify(traversal)} is neither an npm version nor a dist-tag, so OpenCode's package cache was not looked at; write the package name alone, or NAME@1.2.3 or NAME@latest`,
      ],
    });
    // A version and a dist-tag still find the cache's copy.
    mkdirSync(path.join(box.root, "cache", "opencode", "packages"), { recursive: true });
    for (const version of ["0.1.0", "next"]) {
      symlinkSync(path.join(box.root, "consumer"), path.join(box.root, "cache", "opencode", "packages", `${NAME}@${version}`), "dir");
      box.write("config/opencode/opencode.jsonc", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [`${NAME}@${version}`] }));
      expect((await doctor(box)).code).toBe(0);
    }
  });

  test("npmVersionOrTag: versions, ranges and dist-tags; never a path", () => {
    for (const version of ["latest", "next", "canary-2", "0.1.0", "v1.2.3", "1.2.3-beta.1+build.5", "^1.2", "~1.2.3", ">=1 <2", "1.x || 2", "1.0.0 - 2.0.0", "*"]) {
      expect({ version, ok: npmVersionOrTag(version) }).toEqual({ version, ok: true });
    }
    for (const version of ["../../../../etc", "..", "a..b", "1.2.3/..", "latest/x", "a\\b", "/etc", "c:", ".hidden", "foo%2f", "-x", " ", "x".repeat(129), "latest\u0000", "1.0.0\n"]) {
      expect({ version, ok: npmVersionOrTag(version) }).toEqual({ version, ok: false });
    }
  });

  test("every spec form is recognised, and the last entry of the plugin wins as in OpenCode (global, then project, then .opencode/)", async () => {
    const box = sandbox();
    const folder = box.install(box.project);
    box.write("config/opencode/opencode.json", { plugin: [["opencode-plugin-dsml-fix", { debug: true }]] });
    box.write("project/opencode.json", { model: "deepseek/deepseek-chat", plugin: [pathToFileURL(folder).href] });
    box.write("project/.opencode/opencode.jsonc", `{ /* last */ "plugin": [["opencode-plugin-dsml-fix@latest", { "retry": { "channel": "sideways" } }],], }`);
    const report = (await doctor(box, ["--json"])).json();
    // The package entries collapse into the last one; the file: URL is another plugin to OpenCode, so it loads twice.
    expect(report.plugin.entries.map((e: { spec: string }) => e.spec)).toEqual([pathToFileURL(folder).href, "opencode-plugin-dsml-fix@latest"]);
    expect(report.problems[0]).toStartWith("the plugin is listed 2 times");
    expect(report.plugin.entries[1].optionProblems).toEqual(['[dsml] option "retry.channel" must be "system" or "user" (got "sideways"); using "system"']);
    // The global entry's `debug: true` is dropped with it: doctor says so (review 51).
    const global = path.join(box.root, "config/opencode/opencode.json");
    expect(report.problems.filter((p: string) => p.startsWith(`${global}:`))).toEqual([expect.stringContaining("so debug takes that entry's value")]);
  });

  test("exit 2: a missing DIR, a config that is not JSON(C), bad usage", async () => {
    const box = sandbox();
    const gone = await doctor(box, [path.join(box.root, "nope")]);
    expect(gone.code).toBe(2);
    expect(gone.err).toStartWith(`dsml-fix: cannot read ${path.join(box.root, "nope")}`);
    const file = box.write("project/opencode.json", "{ \"plugin\": [ }");
    const broken = await doctor(box);
    expect([broken.code, broken.out]).toEqual([2, ""]);
    expect(broken.err).toStartWith(`dsml-fix: ${file} is not valid JSON(C): `);
    for (const argv of [["--wat"], ["a", "b"]]) {
      const r = await doctor(box, argv);
      expect([r.code, r.out]).toEqual([2, ""]);
    }
    // DIR is relative to the working directory.
    box.write("project/opencode.json", {});
    expect((await doctor(box, ["project"], box.root)).out).toStartWith(`dsml-fix doctor ${box.project}\n`);
  });

  test("exit 2, never an exception: a plugin entry whose file: URL names no local file", async () => {
    const box = sandbox();
    for (const spec of ["file://host/x", "file:///a%2Fb", "file://[", "./a\u0000b", "file:///a%00b"]) {
      const file = box.write("project/opencode.json", { plugin: ["opencode-plugin-dsml-fix", spec] });
      const r = await doctor(box);
      expect([spec, r.code, r.out]).toEqual([spec, 2, ""]);
      expect(r.err).toStartWith(`dsml-fix: ${file}: the plugin entry ${JSON.stringify(spec).replaceAll("\\u0000", "\\u0000")} names no local file: `);
    }
  });
});

describe("dsml-fix doctor agrees with OpenCode 1.18.33", () => {
  test("the plugin list, in order, with relative paths resolved per file, is what `opencode debug config` loads", () => {
    const box = sandbox();
    const outer = path.join(box.root, "outer");
    const inner = path.join(outer, "inner");
    for (const dir of [path.join(box.root, "config", "opencode"), path.join(outer, ".opencode"), path.join(inner, ".opencode")]) {
      mkdirSync(dir, { recursive: true });
      seedConfigDir(dir);
    }
    box.install(outer);
    box.write("config/opencode/opencode.json", { plugin: ["pkg-a", ["opencode-plugin-dsml-fix", { debug: true }]] });
    box.write("outer/opencode.json", { plugin: ["./node_modules/opencode-plugin-dsml-fix"] });
    box.write("outer/opencode.jsonc", `// comment\n{ "plugin": ["./rel-from-project",], }`);
    box.write("outer/.opencode/opencode.json", { plugin: ["./rel-from-dot-opencode", ["pkg-a", { x: 1 }]] });
    box.write("outer/inner/.opencode/opencode.json", { plugin: ["opencode-plugin-dsml-fix@latest"] });
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: box.env.HOME!, XDG_CONFIG_HOME: box.env.XDG_CONFIG_HOME!, XDG_CACHE_HOME: box.env.XDG_CACHE_HOME!, XDG_DATA_HOME: path.join(box.root, "data"), PWD: inner };
    for (const flag of OPENCODE_DISABLE_FLAGS) env[flag] = "1";
    const shown = spawnSync(opencodeBin, ["debug", "config"], { cwd: inner, env, encoding: "utf8", timeout: 90_000 });
    expect(shown.status).toBe(0);
    const real = JSON.parse(shown.stdout.slice(shown.stdout.indexOf("{"))) as { plugin: unknown[] };
    const ours: unknown[] = loadConfig(inner, box.env).plugins.map((p) => (p.options === undefined ? p.resolved : [p.resolved, p.options]));
    expect(ours).toEqual(real.plugin);
    expect(real.plugin).toContainEqual(pathToFileURL(path.join(outer, ".opencode", "rel-from-dot-opencode")).href);
  }, 120_000);

  test("$schema per location: the README paths reach the schema from opencode.json and from .opencode/opencode.json; a wrong one is named with the fix", async () => {
    const box = sandbox();
    const folder = box.install(box.project);
    mkdirSync(path.join(folder, "schema"), { recursive: true });
    writeFileSync(path.join(folder, "schema", "opencode.schema.json"), "{}");
    const readme = readFileSync(path.join(import.meta.dir, "..", "..", "README.md"), "utf8").replace(/\s+/g, " ");
    const given = (where: string) => new RegExp("`(\\.\\.?/node_modules/opencode-plugin-dsml-fix/schema/opencode\\.schema\\.json)` in `" + where.replace(".", "\\.") + "`").exec(readme)?.[1];
    const rootRef = given("opencode.json");
    const dotRef = given(".opencode/opencode.json");
    expect([rootRef, dotRef]).toEqual(["./node_modules/opencode-plugin-dsml-fix/schema/opencode.schema.json", "../node_modules/opencode-plugin-dsml-fix/schema/opencode.schema.json"]);
    expect(schemaReference(path.join(box.project, "opencode.json"), folder)).toBe(rootRef!);
    expect(schemaReference(path.join(box.project, ".opencode", "opencode.json"), folder)).toBe(dotRef!);
    box.write("project/opencode.json", { $schema: rootRef, model: "deepseek/deepseek-chat", plugin: [["./node_modules/opencode-plugin-dsml-fix", {}]] });
    box.write("project/.opencode/opencode.json", { $schema: dotRef });
    expect((await doctor(box)).code).toBe(0);
    // The root file's path copied into .opencode/opencode.json points at .opencode/node_modules.
    const dotFile = box.write("project/.opencode/opencode.json", { $schema: rootRef });
    const r = await doctor(box);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`${dotFile}: "$schema" "${rootRef}" names a missing file (it is resolved from the file's own folder: ${path.join(box.project, ".opencode", rootRef!)}); write "${dotRef}"`);
  });
});
