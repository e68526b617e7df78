/**
 * The packed artifact, as a user gets it from npm: `npm pack` (which builds dist/ through the
 * `prepack` script) in a scratch copy of the repository, an offline install of the tarball into a
 * throwaway project, and then the installed copy, never the checkout, under Node, under Bun, as a
 * TypeScript dependency, as the `dsml-fix` command and as the plugin of the real OpenCode.
 *
 * Offline: the throwaway project's package-lock.json pins the versions this repository's lockfile
 * pins (test/package/lockfile.ts), so `npm ci --offline` takes every tarball out of the npm cache
 * that `npm ci` filled. The two README install tests run `npm i -D <tarball>` as a user does, with
 * --prefer-offline: `npm i` resolves ranges from registry metadata, which `npm ci` never caches,
 * so a clean machine fetches that (the registry is reachable wherever `npm ci` is). The scratch
 * copy keeps the build out of the working tree (no dist/ race with another test run, no stale
 * files). Set DSML_PACK_KEEP=1 to keep the scratch directory.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readLock, runtimePackages } from "../../scripts/runtime-deps.ts";
import { opencodeBin, runOpencode, setup, toolUses } from "../e2e/harness.ts";
import { anthropicStream, responsesStream } from "../e2e/wire-servers.ts";
import { chatSse, pieces, startUpstream } from "../proxy/support.ts";
import { block, live } from "../golden/notation.ts";
import { consumerLock } from "./lockfile.ts";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const NAME = "opencode-plugin-dsml-fix";
const bun = path.join(repo, "node_modules", ".bin", "bun");
const tsc = path.join(repo, "node_modules", "typescript", "bin", "tsc");

const COMMAND = "echo packed > packed.txt";
const PROSE = "Let me write the file.\n\n";
const LEAK = PROSE + live(block("tool_calls", [["bash", [["command", COMMAND]]]]));

/**
 * What may ship: the build, the launcher, OpenCode's entry, the schema, the user's docs. Not
 * docs/TEST-MATRIX.md: which test proves what is for the repository's developers, and it grows by
 * a section every review round (78 KB at stop 43).
 */
const ALLOWED = [/^dist\/.+\.(js|d\.ts)$/, /^bin\/dsml-fix\.js$/, /^server\.js$/, /^schema\/.+\.json$/, /^docs\/(?!TEST-MATRIX\.md$).+\.md$/, /^(README|CHANGELOG)\.md$/, /^LICENSE$/, /^package\.json$/];
/** A consumer's TypeScript: every subpath resolves to its .d.ts, and the option types are checked. */
const TYPES_CHECK = `import plugin from "opencode-plugin-dsml-fix";
import { parse, type ParseResult } from "opencode-plugin-dsml-fix/parse";
import { repairMiddleware } from "opencode-plugin-dsml-fix/middleware";
import { repairFetch } from "opencode-plugin-dsml-fix/fetch";
import type { LanguageModelV3Middleware } from "@ai-sdk/provider";
export const middleware: LanguageModelV3Middleware = repairMiddleware({ responseFix: { bufferLimit: 4096 } });
export const repaired: typeof fetch = repairFetch({ parse: { codeCostumes: false } });
export const result: ParseResult = parse("text", [{ name: "bash", parameters: { type: "object" } }]);
export const id: string = plugin.id;
// @ts-expect-error bufferLimit is a number
repairMiddleware({ responseFix: { bufferLimit: "big" } });
`;
// Round 2 added three wires, the fallback, scope and the CLI's doctor: a budget, not a target; a jump
// past it means something unintended got packed. Issue 29 (schema gate, unread-parameter rule, and
// about 50 more golden rows in docs/PATTERNS.md, 15 KB of text) took the tarball from 204.7 to 214.7 KB;
// issue 27 (the CommonMark tracker, the echo search, the request body reader, SECURITY.md's guard
// sections) to 252.3 KB packed, 867 KB unpacked; the OpenCode 2 entry, `dsml-fix proxy` (dist/proxy,
// 27 KB) and the newcomer's CLI to 281 KB packed, 950 KB unpacked; issue 29's degraded forms (dist/parse
// 121 -> 175 KB) and their 70 golden rows in docs/PATTERNS.md (76 -> 124 KB) to 334 KB, 1,132 KB;
// two hostile reviews of the proxy and the wires (the echo guard's whole-body walk, the one-call
// policy, bounded buffers, the proxy's JSON splice, and their SECURITY/TEST-MATRIX/CHANGELOG text)
// to 374 KB, 1,254 KB; stop 40's reviews (arguments read as written in every dialect, closers inside
// values, span ends, the Responses part holding: dist/parse 175 -> 232 KB, dist/engine and the wires
// about 20 KB more, 35 golden rows in docs/PATTERNS.md, 124 -> 140 KB) to 418 KB, 1,406 KB; stop 41's
// reviews (examples of any dialect in values, the echo guard's string reading and Unicode folding,
// aliases against policy, the engine and doc-context splits into smaller modules: dist/parse 232 ->
// 267 KB, dist/engine 225 KB, dist/echo 81 KB, PATTERNS 151 KB) to 466 KB, 1,564 KB; stop 42's
// reviews 43 and 44 (the inline tag attempts and autolinks, the prefill readers and their two
// readings, the costume line scanner, number spellings, the overflow rule, the content-coding
// probe, the DSML walk and the middleware split into small files: dist/parse 333 KB, dist/engine
// 253 KB, PATTERNS 164 KB, as npm pack counts them) to 528 KB, 1,769 KB; stop 43's review 45 (the
// DSML value rules, the echo guard's tag reader, PATTERNS 184 KB, TEST-MATRIX 78 KB) to 588 KB,
// 1,983 KB. Stop 44 took docs/TEST-MATRIX.md, a developer's document, out of the package (packed
// 588 -> 564 KB as npm pack counts it with dist built) instead of raising the budget. Its review 46
// (cut replies and native repeats on every wire, given content inside a reply, the inline costume,
// the loose value, the stray value closer, the proxy's strict config: dist/parse 415 KB, dist/engine
// 341 KB, dist/wires 188 KB, PATTERNS 188 KB) took it to 620 KB, 2,099 KB: all of it source and its
// documentation, none of it unintended, so the budget moved to 680 / 2,300 KB, still a jump's alarm.
// Reviews 47 and 48 (runaway and stray rules, held native calls, the echo guard's new forms, refused
// bodies, the host registry: dist/parse 477 KB, dist/engine 399 KB, dist/wires 218 KB, PATTERNS
// 206 KB) took it to 686 KB, 2,318 KB: again source and its documentation, so 760 / 2,600 KB.
// Reviews 49 and 50 (the lazy line tracker, refused bodies and quoted dialects in documentation,
// schema places and garbled closers, the echo guard's readings, their PATTERNS and CHANGELOG rows)
// took it to 772 KB packed: source and its documentation once more, so 840 / 2,900 KB. Review 52
// took it to 828 KB, 2,800 KB. Stop 51 stopped shipping the ~209 declaration files no "types" entry
// reaches (scripts/prune-declarations.mjs: 537 -> 78 KB of .d.ts) instead of raising the budget; the
// budget stays, so the headroom it gained is an alarm again, not room already spent.
const PACKED_BUDGET = 840 * 1024;
const UNPACKED_BUDGET = 2900 * 1024;

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  integrity: string;
  entryCount: number;
  files: { path: string; size: number }[];
}

interface Prepared {
  work: string;
  pack: PackResult;
  consumer: string;
  installed: string;
}

/** npm without the variables `npm test` exports: npm_config_local_prefix would point a child npm at this checkout. */
function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  const keep = new Set(["npm_config_cache", "npm_config_userconfig", "npm_config_globalconfig", "npm_config_registry"]);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k === "INIT_CWD" || k === "BUN_BE_BUN") continue;
    if (k.toLowerCase().startsWith("npm_") && !keep.has(k.toLowerCase())) continue;
    env[k] = v;
  }
  return { ...env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", ...extra };
}

function run(command: string, args: string[], cwd: string, env = npmEnv()): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  if (r.error) throw new Error(`${command} ${args.join(" ")}: ${r.error.message}`);
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  return r.stdout;
}

/** Everything but installs, build output and VCS data: what `npm pack` in a fresh clone would see. */
function copyRepo(to: string): void {
  const skip = new Set(["node_modules", ".git", "dist", ".tmp", "coverage"]);
  cpSync(repo, to, {
    recursive: true,
    filter: (src) => {
      const rel = path.relative(repo, src);
      if (!rel) return true;
      const top = rel.split(path.sep)[0]!;
      return !skip.has(top) && !rel.endsWith(".tgz");
    },
  });
  symlinkSync(path.join(repo, "node_modules"), path.join(to, "node_modules"), "dir");
}

let prepared: Promise<Prepared> | undefined;

function prepare(): Promise<Prepared> {
  prepared ??= (async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), "dsml-pack-"));
    try {
      return build(work);
    } catch (error) {
      if (!process.env.DSML_PACK_KEEP) rmSync(work, { recursive: true, force: true });
      throw error;
    }
  })();
  return prepared;
}

/** Pack a scratch copy, install the tarball offline into a throwaway project, lay out the fixtures. */
function build(work: string): Prepared {
  const stage = path.join(work, "stage");
  copyRepo(stage);

  const out = ok(run("npm", ["pack", "--json", "--pack-destination", work], stage), "npm pack");
  const pack = (JSON.parse(out.slice(out.indexOf("["))) as PackResult[])[0]!;

  const registry = ok(run("npm", ["config", "get", "registry"], work), "npm config get registry").trim();
  const consumer = path.join(work, "consumer");
  mkdirSync(consumer);
  const lock = readLock();
  const pinned = (name: string) => lock.packages[`node_modules/${name}`]!.version!;
  const spec = `file:../${pack.filename}`;
  const project = {
    name: "dsml-fix-consumer",
    version: "0.0.0",
    private: true,
    type: "module",
    dependencies: { [NAME]: spec, ai: pinned("ai"), "@ai-sdk/openai-compatible": pinned("@ai-sdk/openai-compatible") },
  };
  const manifest = JSON.parse(readFileSync(path.join(stage, "package.json"), "utf8"));
  writeFileSync(path.join(consumer, "package.json"), JSON.stringify(project, null, 2));
  writeFileSync(
    path.join(consumer, "package-lock.json"),
    JSON.stringify(consumerLock(lock, project, { [NAME]: { spec, integrity: pack.integrity, manifest } }, registry), null, 2),
  );
  ok(run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], consumer), "npm ci --offline (consumer)");

  writeFileSync(path.join(consumer, "leak.json"), JSON.stringify({ reply: LEAK }));
  writeFileSync(path.join(consumer, "sample.txt"), LEAK);
  cpSync(path.join(repo, "test", "package", "fixtures", "consumer.mjs"), path.join(consumer, "consumer.mjs"));
  writeFileSync(path.join(consumer, "types-check.ts"), TYPES_CHECK);
  console.log(
    `[pack] ${pack.filename}: ${pack.size} B packed, ${pack.unpackedSize} B unpacked, ${pack.entryCount} files; ` +
      `runtime dependencies: ${runtimePackages().length}`,
  );
  return { work, pack, consumer, installed: path.join(consumer, "node_modules", NAME) };
}

// Removing the throwaway installs (several node_modules trees) outlasts bun's 10 s hook default on a
// busy two-core machine.
afterAll(async () => {
  const p = await prepared?.catch(() => undefined);
  if (p && !process.env.DSML_PACK_KEEP) rmSync(p.work, { recursive: true, force: true });
}, 120_000);

const FIRST = 240_000;
const LATER = 120_000;

interface ConsumerReport {
  runtime: string;
  resolved: Record<string, string>;
  plugin: { id: string; server: string; serverExport: string };
  parse: [string, unknown][];
  unrepaired: { calls: [string, unknown][]; text: string; finishReason: string };
  middleware: { calls: [string, unknown][]; text: string; finishReason: string };
  fetch: { calls: [string, unknown][]; text: string; finishReason: string };
}

/** One OpenCode 1.18.33 run in which the leaked call must become a real bash call. */
async function expectRepair(env: Awaited<ReturnType<typeof setup>>): Promise<void> {
  const result = await runOpencode(env.project, "write the file", { timeoutMs: 90_000 });
  expect(result.timedOut).toBe(false);
  expect(result.code).toBe(0);
  expect(toolUses(result.events).map((u) => [u.tool, u.state?.status, u.state?.input])).toEqual([["bash", "completed", { command: COMMAND }]]);
  expect(readFileSync(path.join(env.project.dir, "packed.txt"), "utf8").trim()).toBe("packed");
  expect(result.stderr).toContain("recovered=1");
}

/** The `command` of every tool call an event stream carries, on any of the three wires. */
function recoveredCommands(stream: string): string[] {
  const data = stream.split("\n").filter((line) => line.startsWith("data: ") && line !== "data: [DONE]");
  const args: string[] = [];
  for (const event of data.map((line) => JSON.parse(line.slice(6)))) {
    for (const call of event.choices?.[0]?.delta?.tool_calls ?? []) args[call.index] = (args[call.index] ?? "") + (call.function?.arguments ?? "");
    if (event.type === "content_block_start" && event.content_block?.type === "tool_use") args[event.index] = "";
    if (event.type === "content_block_delta" && event.delta?.type === "input_json_delta") args[event.index] += event.delta.partial_json;
    if (event.type === "response.output_item.done" && event.item?.type === "function_call") args[event.output_index] = event.item.arguments;
  }
  return args.filter((one) => one !== undefined).map((one) => JSON.parse(one).command);
}

function expectConsumer(report: ConsumerReport, installed: string) {
  const dist = path.join(installed, "dist");
  for (const [sub, url] of Object.entries(report.resolved)) {
    const file = fileURLToPath(url);
    if (sub === "./server") expect(file).toBe(path.join(installed, "server.js"));
    else expect(file.startsWith(dist + path.sep)).toBe(true);
  }
  expect(report.plugin).toEqual({ id: NAME, server: "function", serverExport: NAME });
  expect(report.parse).toEqual([["bash", { command: COMMAND }]]);
  // The control: without the repair the AI SDK sees only text.
  expect(report.unrepaired.calls).toEqual([]);
  for (const way of [report.middleware, report.fetch]) {
    expect(way.calls).toEqual([["bash", { command: COMMAND }]]);
    expect(way.text).toBe(PROSE);
    expect(way.finishReason).toBe("tool-calls");
  }
}

describe("the packed artifact", () => {
  test(
    "npm pack builds dist/ and ships only dist, the bin, server.js, schema, docs, README, LICENSE and CHANGELOG",
    async () => {
      const { pack, installed } = await prepare();
      const paths = pack.files.map((f) => f.path);
      expect(paths.filter((p) => !ALLOWED.some((re) => re.test(p)))).toEqual([]);
      for (const need of [
        "dist/plugin/index.js",
        "dist/plugin/index.d.ts",
        "dist/adapters/middleware.js",
        "dist/adapters/fetch.d.ts",
        "dist/cli/main.js",
        "bin/dsml-fix.js",
        "server.js",
        "schema/options.schema.json",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
      ])
        expect(paths).toContain(need);
      // Every declaration a shipped declaration imports is shipped too: the build prunes the ones
      // no entry reaches, and a pruned one still imported would turn a consumer's type into `any`
      // without an error (skipLibCheck hides it). Read here with its own walk, not the build's.
      const shipped = new Set(paths.filter((p) => p.endsWith(".d.ts")));
      const unresolved: string[] = [];
      for (const file of shipped) {
        const text = readFileSync(path.join(installed, file), "utf8");
        for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
          const target = path.posix.join(path.posix.dirname(file), m[1]!).replace(/\.(ts|js)$/, "") + ".d.ts";
          if (!shipped.has(target)) unresolved.push(`${file} -> ${m[1]}`);
        }
      }
      expect(unresolved).toEqual([]);
      expect(shipped.size).toBeGreaterThan(4);
      expect(shipped.size).toBeLessThan(paths.filter((p) => p.endsWith(".js") && p.startsWith("dist/")).length);
      expect(pack.size).toBeLessThan(PACKED_BUDGET);
      expect(pack.unpackedSize).toBeLessThan(UNPACKED_BUDGET);
    },
    FIRST,
  );

  test(
    "every entry point of the packed package.json (main, types, exports, bin) is in the tarball; none points at src/",
    async () => {
      const { pack, installed } = await prepare();
      const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8"));
      const targets: string[] = [manifest.main, manifest.types, ...Object.values<string>(manifest.bin)];
      // `config` under exports["./server"] is not a file: it is the options `opencode plugin` writes.
      const collect = (value: unknown) => {
        if (typeof value === "string") targets.push(value);
        else if (value && typeof value === "object") for (const [key, v] of Object.entries(value)) if (key !== "config") collect(v);
      };
      collect(manifest.exports);
      expect(Object.keys(manifest.exports).sort()).toEqual([".", "./fetch", "./middleware", "./package.json", "./parse", "./schema.json", "./server"]);
      const shipped = new Set(pack.files.map((f) => f.path));
      const missing = targets.map((t) => t.replace(/^\.\//, "")).filter((t) => !shipped.has(t));
      expect(missing).toEqual([]);
      expect(targets.filter((t) => t.includes("src/"))).toEqual([]);
      expect(existsSync(path.join(installed, "src"))).toBe(false);
    },
    LATER,
  );

  test(
    "an offline install brings in exactly the runtime tree docs/INSTALL.md lists (zod, fast-xml-parser, ajv, jsonc-parser and their own), no build or test tooling",
    async () => {
      const { consumer, installed } = await prepare();
      const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8"));
      expect(Object.keys(manifest.dependencies).sort()).toEqual(["ajv", "fast-xml-parser", "jsonc-parser", "zod"]);
      expect(Object.keys(manifest.peerDependencies ?? {})).toEqual(["@opencode-ai/plugin"]);
      expect(manifest.peerDependenciesMeta["@opencode-ai/plugin"].optional).toBe(true);

      const ls = JSON.parse(ok(run("npm", ["ls", "--omit=dev", "--all", "--json"], consumer), "npm ls"));
      const found = new Set<string>();
      const walk = (deps: Record<string, any> | undefined) => {
        for (const [name, node] of Object.entries(deps ?? {})) {
          if (!node.version) continue; // an unmet optional peer
          found.add(`${name}@${node.version}`);
          walk(node.dependencies);
        }
      };
      walk(ls.dependencies[NAME].dependencies);
      expect([...found].sort()).toEqual(runtimePackages());
      const tooling = [...found].filter((p) => /^(typescript|bun|@types\/|fast-check|opencode-ai|@opencode-ai\/|ai@|@ai-sdk\/)/.test(p));
      expect(tooling).toEqual([]);
    },
    LATER,
  );

  test(
    "one module, two hosts: the packed ./server default-exports { id, server, setup } (OpenCode 2 and 1.18), the root export no setup",
    async () => {
      const { consumer } = await prepare();
      const script = `const server = (await import("${NAME}/server")).default;
const root = (await import("${NAME}")).default;
const kinds = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, typeof o[k]]));
console.log(JSON.stringify({ server: kinds(server), root: kinds(root) }));`;
      const report = JSON.parse(ok(run("node", ["--input-type=module", "-e", script], consumer), "node two-hosts"));
      expect(report).toEqual({ server: { id: "string", server: "function", setup: "function" }, root: { id: "string", server: "function" } });
    },
    LATER,
  );

  test(
    "Node 20: /middleware repairs a leak through the AI SDK's wrapLanguageModel, /fetch through repairFetch",
    async () => {
      const { consumer, installed } = await prepare();
      const r = ok(run("node", ["consumer.mjs"], consumer), "node consumer.mjs");
      const report = JSON.parse(r) as ConsumerReport;
      expect(report.runtime).toMatch(/^node \d+/);
      expect(Number(report.runtime.slice("node ".length).split(".")[0])).toBeGreaterThanOrEqual(20);
      expectConsumer(report, installed);
    },
    LATER,
  );

  test(
    "Bun: the same imports, the same repairs",
    async () => {
      const { consumer, installed } = await prepare();
      const report = JSON.parse(ok(run(bun, ["consumer.mjs"], consumer), "bun consumer.mjs")) as ConsumerReport;
      expect(report.runtime).toMatch(/^bun /);
      expectConsumer(report, installed);
    },
    LATER,
  );

  test(
    "the shipped .d.ts files type-check a consumer (moduleResolution nodenext and bundler)",
    async () => {
      const { consumer } = await prepare();
      for (const [module, resolution] of [["nodenext", "nodenext"], ["esnext", "bundler"]] as const) {
        const config = {
          compilerOptions: { noEmit: true, strict: true, module, moduleResolution: resolution, target: "es2022", lib: ["es2022", "dom"], types: [], skipLibCheck: true },
          files: ["types-check.ts"],
        };
        writeFileSync(path.join(consumer, "tsconfig.json"), JSON.stringify(config));
        ok(run("node", [tsc, "-p", "tsconfig.json"], consumer), `tsc (${resolution})`);
      }
    },
    LATER,
  );

  test(
    "npx dsml-fix scan --json runs the compiled CLI with plain node",
    async () => {
      const { consumer } = await prepare();
      const r = run("npx", ["dsml-fix", "scan", "--json", "sample.txt"], consumer, npmEnv({ npm_config_offline: "true" }));
      const report = JSON.parse(ok(r, "npx dsml-fix scan --json"));
      expect(report.calls).toEqual([{ tool: "bash", input: { command: COMMAND }, shape: "D02" }]);
      expect(report.text).toBe(PROSE);
      expect(report.broken).toEqual([]);
      const usage = run("npx", ["dsml-fix", "bogus"], consumer, npmEnv({ npm_config_offline: "true" }));
      expect(usage.status).toBe(2);
    },
    LATER,
  );

  test(
    "npx -p opencode-plugin-dsml-fix dsml-fix (the documented form): --version, --help, exit 1 on broken markup, exit 2 on Latin-1",
    async () => {
      const { consumer, installed } = await prepare();
      const npx = (args: string[], input?: string | Buffer) =>
        spawnSync("npx", ["-p", NAME, "dsml-fix", ...args], { cwd: consumer, env: npmEnv({ npm_config_offline: "true" }), input, encoding: "utf8", timeout: 60_000 });
      const version = npx(["--version"]);
      expect([version.status, version.stdout]).toEqual([0, `${JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")).version}\n`]);
      const help = npx(["--help"]);
      expect([help.status, help.stdout.startsWith("usage: dsml-fix")]).toEqual([0, true]);
      expect(npx(["scan", "--tools", "read", "sample.txt"]).status).toBe(1);
      expect(npx(["scan", "sample.txt"]).status).toBe(0);
      const latin1 = npx(["scan"], Buffer.concat([Buffer.from(LEAK.slice(0, -30)), Buffer.from([0xe9]), Buffer.from(LEAK.slice(-30))]));
      expect(latin1.status).toBe(2);
      expect(latin1.stderr).toContain("not valid UTF-8");
    },
    LATER,
  );

  test(
    "npx -p opencode-plugin-dsml-fix dsml-fix proxy runs under Node: a leaked call becomes a real call on each wire; Ctrl-C stops it, and nothing of it is left",
    async () => {
      const { consumer, installed } = await prepare();
      expect(existsSync(path.join(installed, "src"))).toBe(false); // so the launcher runs dist/ with node
      const upstream = await startUpstream();
      const proxy = spawn("npx", ["-p", NAME, "dsml-fix", "proxy", "--upstream", `${upstream.url}/v1`, "--port", "0"], {
        cwd: consumer,
        env: npmEnv({ npm_config_offline: "true" }),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true, // its own process group, so whatever is left of it can go in `finally`
      });
      let out = "";
      for (const stream of [proxy.stdout!, proxy.stderr!]) stream.on("data", (b: Buffer) => (out += b.toString("utf8")));
      const exited = new Promise<void>((resolve) => proxy.on("exit", () => resolve()));
      try {
        for (let i = 0; i < 1500 && !/127\.0\.0\.1:\d+\//.test(out); i++) await new Promise((r) => setTimeout(r, 20));
        const base = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1];
        if (!base) throw new Error(`the proxy did not start:\n${out}`);
        const parameters = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };
        const wires = [
          { path: "/chat/completions", reply: chatSse(pieces(LEAK)), body: { messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "bash", parameters } }] } },
          { path: "/messages", reply: anthropicStream(LEAK, "m"), body: { max_tokens: 9, messages: [{ role: "user", content: "go" }], tools: [{ name: "bash", input_schema: parameters }] } },
          { path: "/responses", reply: responsesStream(LEAK, "m"), body: { input: "go", tools: [{ type: "function", name: "bash", parameters }] } },
        ];
        const calls: unknown[] = [];
        for (const wire of wires) {
          upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(wire.reply));
          const res = await fetch(`${base}${wire.path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, ...wire.body }) });
          calls.push(recoveredCommands(await res.text()));
        }
        expect(calls).toEqual([[COMMAND], [COMMAND], [COMMAND]]);
        expect(upstream.seen.map((s) => s.url)).toEqual(["/v1/chat/completions", "/v1/messages", "/v1/responses"]);
        // Ctrl-C: the terminal signals the whole foreground group (npm, its shell, the proxy). npm
        // itself does not pass a SIGTERM on to the command (npm/cli#6684); docs/PROXY.md says so.
        process.kill(-proxy.pid!, "SIGINT");
        await exited;
        const alive = () => {
          try {
            return process.kill(-proxy.pid!, 0);
          } catch {
            return false;
          }
        };
        for (let i = 0; i < 1500 && alive(); i++) await new Promise((r) => setTimeout(r, 20));
        expect(alive()).toBe(false);
        expect(out.split("\n").filter((l) => l.startsWith("dsml-fix proxy: shutting down"))).toHaveLength(1);
        // Access lines are written when each answer closes; once the proxy is gone all three are out.
        expect(out.split("\n").filter((l) => / 200 \d+ms recovered=1$/.test(l))).toHaveLength(3);
        expect(await fetch(`${base}/healthz`).then(() => "answered", () => "refused")).toBe("refused");
      } finally {
        try {
          process.kill(-proxy.pid!, "SIGKILL");
        } catch {
          // already gone
        }
        await upstream.close();
      }
    },
    LATER,
  );

  test(
    "npx -p <tarball> dsml-fix (README's form before publishing) runs the packed CLI from a directory with no install",
    async () => {
      const { work, pack, installed } = await prepare();
      const elsewhere = mkdtempSync(path.join(os.tmpdir(), "dsml-npx-"));
      try {
        // The user's own OpenCode config stays out of it; HOME stays, for npm's cache.
        const env = npmEnv({ XDG_CONFIG_HOME: path.join(elsewhere, "config"), XDG_CACHE_HOME: path.join(elsewhere, "cache") });
        const npx = (args: string[]) => run("npx", ["--yes", "--prefer-offline", "-p", path.join(work, pack.filename), "dsml-fix", ...args], elsewhere, env);
        const version = npx(["--version"]);
        expect([version.status, version.stdout]).toEqual([0, `${JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")).version}\n`]);
        // doctor there: nothing lists the plugin (exit 1), said in JSON.
        const doctor = npx(["doctor", "--json"]);
        expect(doctor.status).toBe(1);
        expect(JSON.parse(doctor.stdout).plugin.listed).toBe(false);
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    },
    LATER,
  );

  test(
    "install today (README): npm i -D the tarball, `opencode plugin <absolute path>` writes [path, shipped options] to .opencode/opencode.json (-g: the global opencode.jsonc), and OpenCode repairs through it",
    async () => {
      const { work, pack } = await prepare();
      const env = await setup([{ content: LEAK }, { content: "Done." }], { plugin: [] });
      try {
        const dir = env.project.dir;
        writeFileSync(path.join(dir, "package.json"), JSON.stringify({ private: true }));
        ok(run("npm", ["i", "-D", "--prefer-offline", "--no-audit", "--no-fund", path.join(work, pack.filename)], dir), "npm i -D <tarball>");
        const spec = path.join(dir, "node_modules", NAME);
        // docs/INSTALL.md: `npm ls --all` shows the runtime tree after this `npm i -D`; `--omit=dev` would hide it.
        const tree = (flags: string[]) => {
          const deps: Record<string, { version?: string }> = JSON.parse(run("npm", ["ls", ...flags, "--json"], dir).stdout).dependencies?.[NAME]?.dependencies ?? {};
          return Object.keys(deps).filter((name) => deps[name]!.version).sort(); // an unmet optional peer has no version
        };
        expect(tree(["--all"])).toEqual(["ajv", "fast-xml-parser", "jsonc-parser", "zod"]);
        expect(tree(["--all", "--omit=dev"])).toEqual([]);
        const shipped = JSON.parse(readFileSync(path.join(spec, "package.json"), "utf8")).exports["./server"].config;
        expect(shipped).toEqual({ providers: ["auto"] });

        const projectFile = path.join(dir, ".opencode", "opencode.json");
        const globalFile = path.join(env.project.env.XDG_CONFIG_HOME!, "opencode", "opencode.jsonc");
        ok(run(opencodeBin, ["plugin", "-g", spec], dir, env.project.env), "opencode plugin -g");
        expect(JSON.parse(readFileSync(globalFile, "utf8")).plugin).toEqual([[spec, shipped]]);
        writeFileSync(globalFile, "{}"); // one copy of the plugin is enough for the run below
        ok(run(opencodeBin, ["plugin", spec], dir, env.project.env), "opencode plugin");
        expect(JSON.parse(readFileSync(projectFile, "utf8"))).toEqual({ plugin: [[spec, shipped]] });

        // The fake provider is not among the shipped providers: edit the options as a user would.
        writeFileSync(projectFile, JSON.stringify({ plugin: [[spec, { ...shipped, providers: ["fake"], debug: true }]] }));
        await expectRepair(env);
      } finally {
        await env.teardown();
      }
    },
    LATER,
  );

  test(
    'install today (README), by hand: "./node_modules/opencode-plugin-dsml-fix" in the project\'s opencode.json loads the project\'s install',
    async () => {
      const { work, pack } = await prepare();
      const env = await setup([{ content: LEAK }, { content: "Done." }], {
        plugin: [["./node_modules/" + NAME, { providers: ["fake"], debug: true }]],
      });
      try {
        const dir = env.project.dir;
        writeFileSync(path.join(dir, "package.json"), JSON.stringify({ private: true }));
        ok(run("npm", ["i", "-D", "--prefer-offline", "--no-audit", "--no-fund", path.join(work, pack.filename)], dir), "npm i -D <tarball>");
        await expectRepair(env);
      } finally {
        await env.teardown();
      }
    },
    LATER,
  );

  test(
    'the published path, simulated: ["opencode-plugin-dsml-fix", options] loads the package from OpenCode\'s cache, and a leaked call runs the tool',
    async () => {
      const { consumer, installed } = await prepare();
      const env = await setup([{ content: LEAK }, { content: "Done." }], {
        plugin: [[NAME, { providers: ["fake"], debug: true }]],
      });
      try {
        // What `opencode plugin opencode-plugin-dsml-fix` leaves behind: OpenCode's npm cache entry
        // for `<name>@latest`, here the throwaway install, so no registry is needed.
        const cache = path.join(env.project.env.XDG_CACHE_HOME!, "opencode", "packages");
        mkdirSync(cache, { recursive: true });
        symlinkSync(consumer, path.join(cache, `${NAME}@latest`), "dir");
        expect(existsSync(path.join(installed, "src"))).toBe(false);

        const result = await runOpencode(env.project, "write the file", { timeoutMs: 90_000 });
        expect(result.timedOut).toBe(false);
        expect(result.code).toBe(0);
        const uses = toolUses(result.events);
        expect(uses.map((u) => [u.tool, u.state?.status, u.state?.input])).toEqual([["bash", "completed", { command: COMMAND }]]);
        expect(readFileSync(path.join(env.project.dir, "packed.txt"), "utf8").trim()).toBe("packed");
        expect(result.stderr).toContain("recovered=1");
        expect(env.model.mainRequests()).toHaveLength(2);
      } finally {
        await env.teardown();
      }
    },
    LATER,
  );
});
