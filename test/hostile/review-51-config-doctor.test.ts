/**
 * Hostile review 51 (options), `dsml-fix doctor` (src/cli/doctor.ts, opencode-config.ts): options
 * the user wrote that OpenCode 1.18.33 drops before the plugin ever sees them. The plugin cannot
 * tell (it gets what OpenCode hands it), so doctor is the only place that can say so; today it
 * says "options: valid". Every run is sandboxed: HOME and the XDG dirs are temporary folders.
 * Both OpenCode behaviours were checked with `opencode debug config` (1.18.33): the later entry
 * of one package replaces the earlier one whole, and a key given twice keeps its last copy.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.ts";
import { seedConfigDir } from "../e2e/harness.ts";

const NAME = "opencode-plugin-dsml-fix";
const ENTRY = `./node_modules/${NAME}`;

function sandbox() {
  const root = mkdtempSync(path.join(tmpdir(), "r51-config-doctor-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "project"]) mkdirSync(path.join(root, d), { recursive: true });
  seedConfigDir(path.join(root, "config/opencode"));
  // An installed copy, so a path entry is loadable and doctor's only problems are the options'.
  const folder = path.join(project, "node_modules", NAME);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } }, dependencies: { zod: "^4.0.0" } }));
  writeFileSync(path.join(folder, "server.js"), "export default {};\n");
  mkdirSync(path.join(project, "node_modules", "zod"), { recursive: true });
  writeFileSync(path.join(project, "node_modules", "zod", "package.json"), JSON.stringify({ name: "zod", version: "4.0.0" }));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") };
  const write = (rel: string, text: string) => {
    const file = path.join(root, rel);
    writeFileSync(file, text);
    return file;
  };
  return { root, project, env, write };
}

async function doctor(box: ReturnType<typeof sandbox>, extraEnv: NodeJS.ProcessEnv = {}) {
  let out = "";
  let err = "";
  const code = await main(["doctor", "--json"], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: { ...box.env, ...extraEnv }, cwd: box.project });
  const report = out ? (JSON.parse(out) as { problems: string[]; plugin: { entries: { optionProblems: string[] }[] } }) : undefined;
  return { code, err, problems: report?.problems ?? [], optionProblems: report?.plugin.entries.flatMap((e) => e.optionProblems) ?? [] };
}

describe("a key given twice in the plugin's options", () => {
  // FINDING (severity: a security option silently ignored). In opencode.jsonc
  //   ["opencode-plugin-dsml-fix", { "responseFix": { "denyTools": ["bash"] },
  //                                  "responseFix": { "bufferLimit": 65536 } }]
  // OpenCode (jsonc-parser) keeps the last `responseFix` only: the deny list never reaches the
  // plugin, bash calls are recovered, and doctor prints "options: valid", exit 0. The package
  // already refuses a key given twice in the proxy's config file for exactly this reason
  // (src/options/jsonc.ts uniqueKeys: "a deny list in the first would be dropped in silence"), but
  // doctor reads opencode.json(c) without it. Suspected: src/cli/opencode-config.ts loadConfig
  // (parseJsonc without uniqueKeys) / doctor.ts. Expected: a problem naming the key given twice
  // inside the plugin's entry (OpenCode's own settings may stay as OpenCode reads them), exit 1.
  // Fixed: doctor reads the plugin entry's options for keys written twice (options/jsonc.ts
  // keysGivenTwice, the reader the proxy's uniqueKeys uses, following the copy JSON keeps) and
  // names each, with its line and column, as an option problem of that entry; exit 1.
  test("doctor names the key given twice in the plugin's options; exit 1", async () => {
    const box = sandbox();
    box.write(
      "project/opencode.jsonc",
      `{\n  "model": "deepseek/deepseek-chat",\n  "plugin": [["${ENTRY}", {\n    "responseFix": { "denyTools": ["bash"] },\n    "responseFix": { "bufferLimit": 65536 }\n  }]]\n}\n`,
    );
    const r = await doctor(box);
    expect(r.code).toBe(1);
    expect(r.problems.some((p) => p.includes("responseFix") && /twice|more than once|duplicate/i.test(p))).toBe(true);
  });

  test("hard negative: the same options written once each (comments, trailing commas, CRLF, BOM) are valid; exit 0", async () => {
    const box = sandbox();
    box.write("project/opencode.jsonc", `\uFEFF{\r\n  // the plugin\r\n  "model": "deepseek/deepseek-chat",\r\n  "plugin": [["${ENTRY}", {\r\n    "responseFix": { "denyTools": ["bash",], "bufferLimit": 65536, },\r\n  }],],\r\n}\r\n`);
    const r = await doctor(box);
    expect({ code: r.code, problems: r.problems, err: r.err }).toEqual({ code: 0, problems: [], err: "" });
  });

  test("hard negatives: one name in two namespaces, and OpenCode's own key given twice, are no problem of the plugin's", async () => {
    const box = sandbox();
    box.write(
      "project/opencode.jsonc",
      `{
  "model": "deepseek/deepseek-chat",
  "model": "deepseek/deepseek-chat",
  "plugin": [["${ENTRY}", { "responseFix": { "enabled": true }, "retry": { "enabled": true } }]]
}
`,
    );
    const r = await doctor(box);
    expect({ code: r.code, problems: r.problems }).toEqual({ code: 0, problems: [] });
  });

  test("the key is named with its path inside the options, also deeper down and twice over", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{"model": "deepseek/deepseek-chat", "plugin": [["${ENTRY}", {"responseFix": {"denyTools": ["bash"], "denyTools": []}, "debug": true, "debug": false}]]}`);
    const r = await doctor(box);
    expect(r.code).toBe(1);
    expect(r.optionProblems).toEqual([expect.stringContaining('gives "responseFix.denyTools" twice'), expect.stringContaining('gives "debug" twice')]);
  });
});

describe("a later entry of the same package replaces an earlier entry's options", () => {
  // FINDING (severity: a security option silently ignored). The global config lists
  //   ["opencode-plugin-dsml-fix", { "responseFix": { "denyTools": ["bash"] } }]
  // and a project lists the package again, with no options (as `opencode plugin` or README's
  // Install writes it). OpenCode keeps only the last entry of a package (opencode-config.ts dedupe,
  // pinned to `opencode debug config` in test/cli/doctor.test.ts), so the global deny list is gone
  // and bash calls are recovered in that project. doctor reports the project entry's options as
  // valid and says nothing of the dropped one (exit 0). CONFIGURATION.md tells the user that a
  // plugin listed in a global and a project config has its later entry's denyTools *added*; that
  // is the two-instances case (different specs), so the user has every reason to believe the
  // global list still holds. Suspected: src/cli/opencode-config.ts dedupe (drops in silence),
  // src/cli/doctor.ts. Expected: a problem naming the dropped entry's file and that its options
  // (its security options at least) are not used, exit 1.
  // Fixed: doctor names every entry of the plugin that a later entry replaced while it held options
  // that no longer apply (opencode-config.ts keeps the replaced entries aside; cli/dropped-options.ts),
  // with its file, the entry kept, and the options changed, security options first; exit 1.
  test("doctor says the global entry's denyTools are dropped by the project's entry; exit 1", async () => {
    const box = sandbox();
    const global = box.write("config/opencode/opencode.json", JSON.stringify({ plugin: [[NAME, { responseFix: { denyTools: ["bash"] } }]] }));
    box.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [NAME] }));
    const r = await doctor(box);
    expect(r.code).toBe(1);
    expect(r.problems.some((p) => p.includes(global))).toBe(true);
  });

  test("hard negative: the global entry alone is read with its options (the deny list is what doctor judges)", async () => {
    const box = sandbox();
    box.write("config/opencode/opencode.json", JSON.stringify({ plugin: [[NAME, { responseFix: { denyTools: ["bash"] } }]] }));
    box.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat" }));
    const r = await doctor(box);
    expect(r.optionProblems).toEqual([]);
    expect(r.problems.some((p) => p.includes("not listed"))).toBe(false);
  });

  test("the problem names the dropped security option and the file that replaced it", async () => {
    const box = sandbox();
    const global = box.write("config/opencode/opencode.json", JSON.stringify({ plugin: [[NAME, { responseFix: { denyTools: ["bash"] } }]] }));
    const project = box.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [[NAME, { debug: true }]] }));
    const r = await doctor(box);
    const dropped = r.problems.filter((p) => p.startsWith(`${global}:`));
    expect(dropped).toEqual([expect.stringContaining("responseFix.denyTools")]);
    expect(dropped[0]).toContain(project);
  });

  test("hard negatives: the same options written again, or a replaced entry without options, drop nothing", async () => {
    const same = sandbox();
    same.write("config/opencode/opencode.json", JSON.stringify({ plugin: [[NAME, { responseFix: { denyTools: ["bash"] } }]] }));
    same.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [[NAME, { responseFix: { denyTools: ["bash"], enabled: true } }]] }));
    const a = await doctor(same);
    expect(a.problems.filter((p) => p.includes("are not used"))).toEqual([]);
    const bare = sandbox();
    bare.write("config/opencode/opencode.json", JSON.stringify({ plugin: [NAME] }));
    bare.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [[NAME, { responseFix: { denyTools: ["bash"] } }]] }));
    const b = await doctor(bare);
    expect(b.problems.filter((p) => p.includes("are not used"))).toEqual([]);
    const empty = sandbox();
    empty.write("config/opencode/opencode.json", JSON.stringify({ plugin: [[NAME, {}]] }));
    empty.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [NAME] }));
    const c = await doctor(empty);
    expect(c.problems.filter((p) => p.includes("are not used"))).toEqual([]);
  });
});

describe("a deny list filled from the environment", () => {
  // FINDING (same root cause as review-51-config-lists, comma-joined entry; severity: a security
  // option silently ignored). `"denyTools": ["{env:DSML_DENY}"]` with DSML_DENY=bash,read is
  // substituted by OpenCode (and by doctor, config-vars.ts withEnv) to ["bash,read"]: one entry
  // naming no tool, so nothing is denied, and doctor says "options: valid", exit 0.
  // Suspected: src/options/check.ts isNameEntry. Expected: a problem naming
  // responseFix.denyTools, exit 1.
  // Fixed: the substituted entry is split into ["bash", "read"] (finding 1's rule), and doctor
  // shows the plugin's line saying so: a problem naming responseFix.denyTools, exit 1.
  test("doctor flags denyTools [\"{env:DSML_DENY}\"] with DSML_DENY=bash,read", async () => {
    const box = sandbox();
    box.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [[ENTRY, { responseFix: { denyTools: ["{env:DSML_DENY}"] } }]] }));
    const r = await doctor(box, { DSML_DENY: "bash,read" });
    expect(r.code).toBe(1);
    expect(r.optionProblems.some((p) => p.includes("responseFix.denyTools"))).toBe(true);
  });

  test("hard negatives: DSML_DENY=bash is a valid list of one; DSML_DENY unset is an empty entry, refused (fails closed)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", JSON.stringify({ model: "deepseek/deepseek-chat", plugin: [[ENTRY, { responseFix: { denyTools: ["{env:DSML_DENY}"] } }]] }));
    const set = await doctor(box, { DSML_DENY: "bash" });
    expect({ code: set.code, problems: set.problems }).toEqual({ code: 0, problems: [] });
    const unset = await doctor(box);
    expect(unset.code).toBe(1);
    expect(unset.optionProblems).toEqual([expect.stringContaining('option "responseFix.denyTools" must be an array of non-empty tool name strings')]);
    expect(unset.optionProblems[0]).toContain('using ["*"]');
  });
});
