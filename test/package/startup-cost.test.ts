// Start-up is paid on every OpenCode start, leak or not: the two parser libraries only a recovered
// call or an XML execute costume needs (ajv, fast-xml-parser: about 45 of the plugin's 105 ms of
// start-up in OpenCode's Bun) are loaded when first used, never by importing and starting the plugin.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../e2e/harness.ts";

/** Which node_modules packages a fresh process holds after `script` ran (Bun lists ES modules in require.cache too). */
function packagesAfter(script: string): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dsml-startup-"));
  try {
    const file = path.join(dir, "probe.ts");
    writeFileSync(file, `${script}\nconst names = new Set(Object.keys(require.cache).filter((k) => k.includes("/node_modules/")).map((k) => k.split("/node_modules/").at(-1)!.split("/").slice(0, k.split("/node_modules/").at(-1)!.startsWith("@") ? 2 : 1).join("/")));\nconsole.log(JSON.stringify([...names].sort()));\n`);
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", cwd: repoRoot, env: { ...process.env, BUN_BE_BUN: undefined } });
    expect(run.stderr).not.toContain("error");
    return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const START = `const plugin = (await import(${JSON.stringify(path.join(repoRoot, "server.js"))})).default;
const hooks = await plugin.server({ client: { app: { log: async () => {} } } }, { providers: ["*"] });
if (Object.keys(hooks).length === 0) throw new Error("no hooks");`;

test("importing and starting the plugin loads neither ajv nor fast-xml-parser", () => {
  const loaded = packagesAfter(START);
  expect(loaded).toContain("zod");
  expect(loaded).not.toContain("ajv");
  expect(loaded).not.toContain("fast-xml-parser");
});

test("a recovered call loads ajv for its schema check, and an XML execute costume fast-xml-parser", () => {
  const loaded = packagesAfter(`import { parse } from ${JSON.stringify(path.join(repoRoot, "src/engine/parse.ts"))};
const bash = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
const costume = "<tool_call><tool_name>execute</tool_name><tool_args><language>bash</language><code>ls</code></tool_args></tool_call>";
const result = parse("Run:\\n" + costume + "\\n", [bash], { codeCostumes: true });
if (result.calls.length !== 1 || result.calls[0].input.command !== "ls") throw new Error("not recovered: " + JSON.stringify(result));`);
  expect(loaded).toContain("ajv");
  expect(loaded).toContain("fast-xml-parser");
});
