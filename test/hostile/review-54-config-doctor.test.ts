/**
 * Hostile review 54 (options), `dsml-fix doctor` (src/cli/doctor.ts, v2-config.ts,
 * opencode-config.ts): options doctor passes as valid that the plugin will not apply as written.
 * Every run is sandboxed: HOME and the XDG dirs are temporary folders, the project has its own .git.
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
  const root = mkdtempSync(path.join(tmpdir(), "r54-config-doctor-"));
  const project = path.join(root, "project");
  for (const d of ["home", "config/opencode", "cache/opencode", "project/.git"]) mkdirSync(path.join(root, d), { recursive: true });
  seedConfigDir(path.join(root, "config/opencode"));
  // An installed copy, so a path entry is loadable and doctor's only problems are the options'.
  const folder = path.join(project, "node_modules", NAME);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: NAME, version: "0.1.0", exports: { "./server": { import: "./server.js" } } }));
  writeFileSync(path.join(folder, "server.js"), "export default {};\n");
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "config"), XDG_CACHE_HOME: path.join(root, "cache") };
  const write = (rel: string, text: string) => writeFileSync(path.join(root, rel), text);
  return { root, project, env, write };
}

async function doctor(box: ReturnType<typeof sandbox>, extraEnv: NodeJS.ProcessEnv = {}) {
  let out = "";
  let err = "";
  const code = await main(["doctor", "--json"], { readStdin: async () => new Uint8Array(), out: (t) => (out += t), err: (t) => (err += t), env: { ...box.env, ...extraEnv }, cwd: box.project });
  const report = out ? (JSON.parse(out) as { problems: string[] }) : undefined;
  return { code, err, problems: report?.problems ?? [] };
}

describe("a deny list from the environment, written the shell way", () => {
  // FINDING (severity: a security option silently ignored; doctor's side of
  // review-54-config-names "a denyTools entry that can name no tool"). With
  //   ["./node_modules/opencode-plugin-dsml-fix", { "responseFix": { "denyTools": ["{env:DSML_DENY}"] } }]
  // and DSML_DENY="bash read", OpenCode substitutes the text and the plugin gets ["bash read"]:
  // one entry that names no tool, so bash calls are recovered. doctor, the one place a user checks
  // this, prints "no problems found", exit 0. Suspected: src/options/check.ts (doctor judges with
  // the plugin's reading). Expected: a problem naming responseFix.denyTools, exit 1.
  // Fixed: doctor judges with the plugin's reading, which now refuses such an entry (check.ts
  // noToolName): the problem names responseFix.denyTools and its fail-closed ["*"], exit 1. An
  // OpenCode 2 `plugins` entry's options are substituted ({env:}, {file:}) as the 1.18 entry's are.
  test('DSML_DENY="bash read": doctor names responseFix.denyTools; exit 1', async () => {
    const box = sandbox();
    box.write("project/opencode.json", JSON.stringify({ plugin: [[ENTRY, { responseFix: { denyTools: ["{env:DSML_DENY}"] } }]] }));
    const r = await doctor(box, { DSML_DENY: "bash read" });
    expect({ code: r.code, named: r.problems.some((p) => p.includes("responseFix.denyTools")) }).toEqual({ code: 1, named: true });
  });

  test("hard negatives: DSML_DENY=bash is valid (exit 0); DSML_DENY=bash,read is split with its line (exit 1)", async () => {
    const box = sandbox();
    box.write("project/opencode.json", JSON.stringify({ plugin: [[ENTRY, { responseFix: { denyTools: ["{env:DSML_DENY}"] } }]] }));
    expect((await doctor(box, { DSML_DENY: "bash" })).code).toBe(0);
    const split = await doctor(box, { DSML_DENY: "bash,read" });
    expect({ code: split.code, named: split.problems.some((p) => p.includes("responseFix.denyTools") && p.includes("split")) }).toEqual({ code: 1, named: true });
  });
});

describe("a key given twice in an OpenCode 2 `plugins` entry's options", () => {
  // FINDING (severity: a security option silently ignored). Review 51 made doctor name a key
  // written twice in a 1.18 `plugin` tuple's options (the JSON(C) reader keeps the last copy, so
  //   "responseFix": { "denyTools": ["bash"] }, "responseFix": { "bufferLimit": 65536 }
  // loses the deny list before the plugin sees it). The same options in OpenCode 2's form,
  //   "plugins": [{ "package": "opencode-plugin-dsml-fix", "options": { <the same> } }]
  // are read by v2-config.ts with parseJsonc and resolveOptions only: the first responseFix is
  // gone, no problem is listed for the entry, and the deny list is dropped in silence. Suspected:
  // src/cli/v2-config.ts ourV2Entry (no keysGivenTwice, which opencode-config.ts uses for
  // `plugin`). Expected: the same problem as for the 1.18 entry, naming responseFix.
  // Fixed: v2-config.ts ourV2Entry reads the keys given twice in `plugins[i].options` from the
  // file's text (jsonc.ts keysGivenTwice) and names them with the 1.18 entry's wording.
  const TWICE = `{ "responseFix": { "denyTools": ["bash"] }, "responseFix": { "bufferLimit": 65536 } }`;

  test("doctor names the key given twice in the `plugins` entry's options", async () => {
    const box = sandbox();
    // 1.18's entry in the global file, OpenCode 2's in the project: each file lists it for one host.
    box.write("config/opencode/opencode.json", JSON.stringify({ plugin: [path.join(box.project, "node_modules", NAME)] }));
    box.write("project/opencode.json", `{ "plugins": [{ "package": "${NAME}", "options": ${TWICE} }] }`);
    const r = await doctor(box);
    expect(r.problems.some((p) => p.includes("responseFix") && /twice|more than once|duplicate/i.test(p))).toBe(true);
  });

  test("hard negatives: the 1.18 tuple with the same text is named; the V2 entry written once each is silent", async () => {
    const box = sandbox();
    box.write("project/opencode.json", `{ "plugin": [["${ENTRY}", ${TWICE}]] }`);
    const classic = await doctor(box);
    expect({ code: classic.code, named: classic.problems.some((p) => p.includes("responseFix") && /twice|more than once|duplicate/i.test(p)) }).toEqual({ code: 1, named: true });
    const once = sandbox();
    once.write("config/opencode/opencode.json", JSON.stringify({ plugin: [path.join(once.project, "node_modules", NAME)] }));
    once.write("project/opencode.json", `{ "plugins": [{ "package": "${NAME}", "options": { "responseFix": { "denyTools": ["bash"], "bufferLimit": 65536 } } }] }`);
    const r = await doctor(once);
    expect(r.problems.filter((p) => p.includes("responseFix"))).toEqual([]);
  });

  test("review 54 fix: an OpenCode 2 entry's {env:} is substituted before its options are judged", async () => {
    const box = sandbox();
    box.write("config/opencode/opencode.json", JSON.stringify({ plugin: [path.join(box.project, "node_modules", NAME)] }));
    box.write("project/opencode.json", JSON.stringify({ plugins: [{ package: NAME, options: { responseFix: { denyTools: ["{env:DSML_DENY}"] } } }] }));
    expect((await doctor(box, { DSML_DENY: "bash" })).problems.filter((p) => p.includes("responseFix"))).toEqual([]);
    const bad = await doctor(box, { DSML_DENY: "bash read" });
    expect({ code: bad.code, named: bad.problems.some((p) => p.includes("responseFix.denyTools")) }).toEqual({ code: 1, named: true });
  });
});
