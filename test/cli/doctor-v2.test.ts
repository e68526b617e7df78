/** `dsml-fix doctor` on OpenCode 2 configs: `plugins` entries and plugin folders, and which host each is for. */
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";

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
