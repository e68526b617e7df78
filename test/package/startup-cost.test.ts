// Start-up is paid on every OpenCode start, leak or not: the two parser libraries only a recovered
// call or an XML execute costume needs (ajv, fast-xml-parser: about 45 of the plugin's 105 ms of
// start-up in OpenCode's Bun) are loaded when first used, never by importing and starting the plugin;
// zod (about half of the rest) is never loaded at all: the options are checked from the spec
// (src/options/check.ts), the zod schema only renders the JSON schema at build time.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../e2e/harness.ts";

/**
 * Which node_modules packages a fresh process holds after `script` ran (Bun lists ES modules in
 * require.cache too), and, so a probe that sees nothing cannot pass, how many of the repository's
 * own src/ modules it holds.
 */
function loadedAfter(script: string): { packages: string[]; sources: number } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dsml-startup-"));
  try {
    const file = path.join(dir, "probe.ts");
    writeFileSync(file, `${script}\nconst names = new Set(Object.keys(require.cache).filter((k) => k.includes("/node_modules/")).map((k) => k.split("/node_modules/").at(-1)!.split("/").slice(0, k.split("/node_modules/").at(-1)!.startsWith("@") ? 2 : 1).join("/")));\nconst sources = Object.keys(require.cache).filter((k) => k.startsWith(${JSON.stringify(path.join(repoRoot, "src") + path.sep)})).length;\nconsole.log(JSON.stringify({ packages: [...names].sort(), sources }));\n`);
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", cwd: repoRoot, env: { ...process.env, BUN_BE_BUN: undefined } });
    expect(run.stderr).not.toContain("error");
    return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { packages: string[]; sources: number };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const START = `const plugin = (await import(${JSON.stringify(path.join(repoRoot, "server.js"))})).default;
const hooks = await plugin.server({ client: { app: { log: async () => {} } } }, { providers: ["*"] });
if (Object.keys(hooks).length === 0) throw new Error("no hooks");`;

test("importing and starting the plugin loads neither ajv, fast-xml-parser nor zod", () => {
  const { packages, sources } = loadedAfter(START);
  // The probe sees what was loaded: the plugin's own modules are there (its hooks came back, or START threw).
  expect(sources).toBeGreaterThan(20);
  expect(packages).not.toContain("ajv");
  expect(packages).not.toContain("fast-xml-parser");
  expect(packages).not.toContain("zod");
});

test("bad options are still read and reported without zod", () => {
  const { packages } = loadedAfter(`const plugin = (await import(${JSON.stringify(path.join(repoRoot, "server.js"))})).default;
const lines = [];
await plugin.server({ client: { app: { log: async (entry) => { lines.push(JSON.stringify(entry)); } } } }, { providers: ["*"], responseFix: { bufferLimit: 1.5, allowTools: [""] }, retry: { channel: "sms" } });
if (!lines.some((line) => line.includes("bufferLimit") && line.includes("must be an integer"))) throw new Error("no problem reported: " + lines.join("|"));`);
  expect(packages).not.toContain("zod");
});

test("a recovered call loads ajv for its schema check, and an XML execute costume fast-xml-parser", () => {
  const loaded = loadedAfter(`import { parse } from ${JSON.stringify(path.join(repoRoot, "src/engine/parse.ts"))};
const bash = { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
const costume = "<tool_call><tool_name>execute</tool_name><tool_args><language>bash</language><code>ls</code></tool_args></tool_call>";
const result = parse("Run:\\n" + costume + "\\n", [bash], { codeCostumes: true });
if (result.calls.length !== 1 || result.calls[0].input.command !== "ls") throw new Error("not recovered: " + JSON.stringify(result));`);
  expect(loaded.packages).toContain("ajv");
  expect(loaded.packages).toContain("fast-xml-parser");
});

test("a copy of the plugin without its dependencies still fails to start, naming the missing package (it does not start and then never recover a call)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dsml-nodeps-"));
  try {
    cpSync(path.join(repoRoot, "src"), path.join(dir, "src"), { recursive: true });
    cpSync(path.join(repoRoot, "server.js"), path.join(dir, "server.js"));
    cpSync(path.join(repoRoot, "package.json"), path.join(dir, "package.json"));
    const probe = path.join(dir, "probe.ts");
    writeFileSync(probe, `await import(${JSON.stringify(path.join(dir, "server.js"))});\nconsole.log("started");\n`);
    // --no-install: Bun would otherwise fetch a missing package from its cache, which OpenCode's plugin loader does not.
    const run = spawnSync(process.execPath, ["--no-install", probe], { encoding: "utf8", cwd: dir, env: { ...process.env, BUN_BE_BUN: undefined, NODE_PATH: undefined } });
    expect(run.stdout).not.toContain("started");
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/ajv|fast-xml-parser/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The repository's src/ modules a fresh Bun holds at each `mark(name)` the script calls. */
function modulesAt(script: string): Record<string, string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dsml-startup-"));
  try {
    const file = path.join(dir, "probe.ts");
    const src = path.join(repoRoot, "src") + path.sep;
    writeFileSync(file, `const marks = {};\nconst mark = (name) => { marks[name] = Object.keys(require.cache).filter((k) => k.startsWith(${JSON.stringify(src)})).map((k) => k.slice(${src.length}).split(path.sep).join("/")).sort(); };\nimport path from "node:path";\n${script}\nconsole.log(JSON.stringify(marks));\n`);
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", cwd: repoRoot, env: { ...process.env, BUN_BE_BUN: undefined } });
    expect(run.stderr).not.toContain("error");
    return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Record<string, string[]>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("OpenCode waits only for the plugin's own start-up modules: the parser, the engine and the wires load in the background, and a V1 host never loads the V2 ones", () => {
  const marks = modulesAt(`const plugin = (await import(${JSON.stringify(path.join(repoRoot, "server.js"))})).default;
mark("imported");
await plugin.server({ client: { app: { log: async () => {} } } }, { providers: ["*"] });
await (await import(${JSON.stringify(path.join(repoRoot, "src/plugin/repair-modules.ts"))})).repairModules();
mark("loaded");`);
  const imported = marks.imported!;
  // Enough to start: the options, the logger, the scope, the fetch gate.
  expect(imported).toContain("plugin/index.ts");
  expect(imported).toContain("plugin/wiring.ts");
  expect(imported).toContain("options/spec.ts");
  // Nothing of the repair itself, and nothing of the V2 entry.
  expect(imported.filter((file) => /^(engine\/(?!limits)|wires\/|sse\/|echo\/|adapters\/(?!options|request-tag)|history\/|parse\/(?!types|libraries))/.test(file))).toEqual([]);
  expect(imported.filter((file) => file.startsWith("plugin/v2/"))).toEqual([]);
  // A few small modules (fix 57 added the log-line redaction, grammar/redact.ts and the character
  // codes it reads, grammar/chars.ts: the start-up line names a provider's package, which may be
  // a URL with a token in it).
  expect(imported.length).toBeLessThan(32);
  // Once loaded, the repair is all there (the first tagged request waits for this).
  for (const file of ["engine/engine.ts", "adapters/fetch.ts", "wires/chat/rewriter.ts", "history/sanitize.ts", "parse/dialects/dsml/walk.ts"]) expect(marks.loaded).toContain(file);
});
