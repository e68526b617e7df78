/** `dsml-fix doctor` on OpenCode 2 configs: `plugins` entries and plugin folders, and which host each is for. */
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { importedSpecifiers } from "../../src/cli/v2-config.ts";

const NAME = "opencode-plugin-dsml-fix";

function sandbox() {
  const root = mkdtempSync(path.join(tmpdir(), "dsml-doctor-v2-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "project/.git"]) mkdirSync(path.join(root, d), { recursive: true });
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") };
  const write = (rel: string, value: unknown) => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
    return file;
  };
  const doctor = async () => {
    let out = "";
    const code = await main(["doctor", "--json"], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: () => undefined, env, cwd: project });
    let text = "";
    await main(["doctor"], { readStdin: async () => new Uint8Array(), out: (t) => (text += t), err: () => undefined, env, cwd: project });
    return { code, report: JSON.parse(out), text };
  };
  return { write, doctor };
}

test("a plugins entry (object form) is recognised as OpenCode 2's, its options checked, and 1.18's missing entry named", async () => {
  const box = sandbox();
  const file = box.write("project/opencode.jsonc", { model: "deepseek/deepseek-chat", plugins: [{ package: NAME, options: { providers: ["auto"], retry: { channel: "both" } } }] });
  const { code, report, text } = await box.doctor();
  expect(code).toBe(1);
  expect(report.v2.entries).toEqual([{ spec: NAME, source: file, optionProblems: [expect.stringContaining("retry.channel") as never], host: "OpenCode 2" }]);
  expect(report.problems.some((p: string) => p.includes("listed for OpenCode 2 only"))).toBe(true);
  expect(report.problems.some((p: string) => p.includes("not listed in any config file"))).toBe(false);
  expect(text).toContain(`plugin (OpenCode 2): "${NAME}" in ${file}`);
});

test("the string form, and a file in .opencode/plugins/ (loaded by both hosts)", async () => {
  const box = sandbox();
  box.write("project/opencode.json", { plugins: [`${NAME}@0.1.0`] });
  const pluginFile = box.write("project/.opencode/plugins/dsml.ts", `export { default } from "${NAME}/server";\n`);
  const { report } = await box.doctor();
  expect(report.v2.entries.map((e: { spec: string; host: string }) => [e.spec, e.host])).toEqual([[`${NAME}@0.1.0`, "OpenCode 2"], [pluginFile, "OpenCode 1.18 and 2"]]);
});

test("listed under both plugin and plugins in one file: one problem naming the file", async () => {
  const box = sandbox();
  const file = box.write("project/opencode.json", { plugin: [NAME], plugins: [NAME] });
  const { report } = await box.doctor();
  expect(report.problems.filter((p: string) => p.includes('both "plugin"'))).toEqual([expect.stringContaining(file) as never]);
});

test("a classic config alone has no OpenCode 2 entries, and another package under plugins is not ours", async () => {
  const box = sandbox();
  box.write("project/opencode.json", { plugins: ["some-other-plugin", { package: "opencode-plugin-dsml-fixer" }] });
  const { report } = await box.doctor();
  expect(report.v2).toEqual({ entries: [], both: [] });
  expect(report.problems.some((p: string) => p.includes("not listed in any config file"))).toBe(true);
});

test("a plugin file counts when a real statement loads the package: comments, strings, templates and type-only imports load nothing", () => {
  const cases: [string, string[]][] = [
    [`export { default } from "${NAME}/server";`, [`${NAME}/server`]],
    [`// works next to ${NAME}\nexport default async () => ({});`, []],
    [`/* import x from "${NAME}" */ const s = 'import x from "${NAME}"'; const t = \`import x from "${NAME}" \${"}"}\`;`, []],
    [`import type { Plugin } from "${NAME}";\nexport type A = string\nexport { default } from "${NAME}/server"`, [`${NAME}/server`]],
    [`import type from "${NAME}";`, [NAME]],
    [`import "${NAME}";`, [NAME]],
    [`export default async (c) => (await import("${NAME}/server")).default(c)`, [`${NAME}/server`]],
    [`const x = obj.import("${NAME}"); const from = "${NAME}"; const o = { from: "${NAME}" };`, []],
    [`import a, { b } from '${NAME}'`, [NAME]],
  ];
  for (const [source, specs] of cases) expect([source, importedSpecifiers(source)]).toEqual([source, specs]);
});

test("a plugin file next to a plugins entry is the plugin loaded twice by OpenCode 2; one that only names the package in a string is no entry", async () => {
  const box = sandbox();
  box.write(`project/node_modules/${NAME}/package.json`, { name: NAME, exports: { "./server": { import: "./server.js" } } });
  box.write(`project/node_modules/${NAME}/server.js`, "export default {};\n");
  box.write("project/opencode.json", { plugins: [NAME] });
  const pluginFile = box.write("project/.opencode/plugins/dsml.ts", `export { default } from "${NAME}/server";\n`);
  box.write("project/.opencode/plugins/notes.ts", `export const NOTE = "see ${NAME}";\nexport default async () => ({});\n`);
  const { report } = await box.doctor();
  expect(report.v2.entries.map((e: { spec: string }) => e.spec)).toEqual([NAME, pluginFile]);
  expect(report.problems.filter((p: string) => p.includes("loaded more than once"))).toEqual([expect.stringContaining(`OpenCode 2 loads it 2 times`) as never]);
});

test("a plugin file whose import names a subpath the package does not export is reported, not counted as loading", async () => {
  const box = sandbox();
  box.write(`project/node_modules/${NAME}/package.json`, { name: NAME, exports: { "./server": { import: "./server.js" } } });
  const pluginFile = box.write("project/.opencode/plugins/dsml.ts", `export { default } from "${NAME}/plugin";\n`);
  box.write("project/opencode.json", { plugin: [`./node_modules/${NAME}`] });
  const { report } = await box.doctor();
  expect(report.problems.filter((p: string) => p.includes(pluginFile))).toEqual([expect.stringContaining("does not resolve") as never]);
  expect(report.problems.some((p: string) => p.includes("loaded more than once"))).toBe(false);
});
