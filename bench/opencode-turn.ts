// The row a user actually pays: one whole turn in the real OpenCode (the pinned opencode binary,
// headless `opencode run`), a streamed reply with no leak from a fake OpenAI-compatible server,
// with the plugin and without, in pairs whose order alternates. Wall time of the whole process,
// start-up included; the 1 KB reply shows what start-up alone costs. A probe plugin loaded on both
// sides (bench/opencode-probe) also reports the process's CPU time, and with `--profile` the share
// of Bun's main-thread profiler samples spent in the plugin's own code. Slow (seconds per run), so
// never part of `npm test`:
//   bun bench/opencode-turn.ts [pairs=15] [KB=300] [--profile]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeProject, runOpencode, startFakeModel, repoRoot, type Project } from "../test/e2e/harness.ts";
import { median, prose } from "./lib.ts";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const profile = process.argv.includes("--profile");
const pairs = Number(args[0] ?? 15);
const size = Number(args[1] ?? 300) * 1024;
const text = prose(size, 7);
const probe = path.join(repoRoot, "bench", "opencode-probe");
const probeDir = mkdtempSync(path.join(os.tmpdir(), "dsml-probe-"));

// OpenCode 1.18.33 imports the package root (".", dist/) on every start besides `exports["./server"]`
// (a checkout's server.js loads src/), so a stale dist/ would be measured too: build it first.
const build = spawnSync(process.execPath, [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(repoRoot, "tsconfig.build.json")], { stdio: "inherit" });
if (build.status !== 0) throw new Error("building dist/ failed");

const model = await startFakeModel();
const projects: Record<"plugin" | "bare", Project> = {
  plugin: makeProject({ modelUrl: model.url, plugin: [probe, [repoRoot, { providers: ["fake"] }]] }),
  bare: makeProject({ modelUrl: model.url, plugin: [probe] }),
};

interface Turn {
  wall: number;
  cpuMs: number;
  samples?: number;
  pluginSamples?: number;
}

let runs = 0;
async function turn(side: "plugin" | "bare", reply: string): Promise<Turn> {
  model.push({ content: reply, chunkSize: 10 });
  const out = path.join(probeDir, `${++runs}.json`);
  const env = projects[side].env;
  env.DSML_PROBE_OUT = out;
  if (profile) env.DSML_PROBE_PROFILE = "1";
  const run = await runOpencode(projects[side], "Write it out.", { timeoutMs: 300_000, printLogs: false });
  const shown = run.events.filter((e) => e.type === "text").map((e) => e.part?.text ?? "").join("");
  if (run.code !== 0 || !shown.includes(reply.slice(-200).trim())) throw new Error(`${side} turn failed (code ${run.code}): ${run.stderr.slice(-500)}`);
  return { wall: run.durationMs, ...(JSON.parse(readFileSync(out, "utf8")) as Omit<Turn, "wall">) };
}

try {
  // Warm-up: the first run of each project fills OpenCode's caches.
  await turn("plugin", "warm up");
  await turn("bare", "warm up");
  // Start-up is a few percent at most, so it gets as many pairs as the long turn (KB=1: start-up only).
  const rows: (readonly [string, string, number])[] = [["1 KB", prose(1024, 8), pairs]];
  if (size > 1024) rows.push([`${size / 1024} KB`, text, pairs]);
  for (const [label, reply, count] of rows) {
    const ratios = { wall: [] as number[], cpu: [] as number[] };
    const got = { plugin: [] as Turn[], bare: [] as Turn[] };
    for (let k = 0; k < count; k++) {
      const order = k % 2 === 0 ? (["plugin", "bare"] as const) : (["bare", "plugin"] as const);
      const pair: Partial<Record<"plugin" | "bare", Turn>> = {};
      for (const side of order) pair[side] = await turn(side, reply);
      got.plugin.push(pair.plugin!);
      got.bare.push(pair.bare!);
      ratios.wall.push(pair.plugin!.wall / pair.bare!.wall);
      ratios.cpu.push(pair.plugin!.cpuMs / pair.bare!.cpuMs);
      process.stderr.write(`[turn] ${label} pair ${k + 1}/${count}: plugin ${pair.plugin!.wall} ms, bare ${pair.bare!.wall} ms, ${ratios.wall.at(-1)!.toFixed(3)}x wall, ${ratios.cpu.at(-1)!.toFixed(3)}x CPU\n`);
    }
    const wall = (side: "plugin" | "bare") => median(got[side].map((t) => t.wall)).toFixed(0);
    const cpu = (side: "plugin" | "bare") => median(got[side].map((t) => t.cpuMs)).toFixed(0);
    let line = `${label} reply (${count} pairs): wall median plugin ${wall("plugin")} ms, without ${wall("bare")} ms; median of paired ratios ${median(ratios.wall).toFixed(3)}x wall, ${median(ratios.cpu).toFixed(3)}x CPU (CPU medians ${cpu("plugin")} / ${cpu("bare")} ms)`;
    if (profile) {
      const share = got.plugin.map((t) => (t.pluginSamples ?? 0) / Math.max(1, t.samples ?? 0));
      line += `; the plugin's own code on ${(100 * median(share)).toFixed(1)} % of the main thread's profiler samples`;
    }
    console.log(line);
  }
} finally {
  projects.plugin.cleanup();
  projects.bare.cleanup();
  rmSync(probeDir, { recursive: true, force: true });
  await model.close();
}
