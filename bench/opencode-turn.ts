// The row a user actually pays: one whole turn in the real OpenCode (the pinned opencode binary,
// headless `opencode run`), a streamed reply with no leak from a fake OpenAI-compatible server,
// with the plugin and without, in pairs whose order alternates. Wall time of the whole process,
// start-up included; the 1 KB reply shows what start-up alone costs. Slow (seconds per run), so
// never part of `npm test`:
//   bun bench/opencode-turn.ts [pairs=15] [KB=300]
import { makeProject, runOpencode, startFakeModel, repoRoot, type Project } from "../test/e2e/harness.ts";
import { median, prose } from "./lib.ts";

const pairs = Number(process.argv[2] ?? 15);
const size = Number(process.argv[3] ?? 300) * 1024;
const text = prose(size, 7);

const model = await startFakeModel();
const projects: Record<"plugin" | "bare", Project> = {
  plugin: makeProject({ modelUrl: model.url, plugin: [[repoRoot, { providers: ["fake"] }]] }),
  bare: makeProject({ modelUrl: model.url }),
};

async function turn(side: "plugin" | "bare", reply: string): Promise<number> {
  model.push({ content: reply, chunkSize: 10 });
  const run = await runOpencode(projects[side], "Write it out.", { timeoutMs: 300_000, printLogs: false });
  const shown = run.events.filter((e) => e.type === "text").map((e) => e.part?.text ?? "").join("");
  if (run.code !== 0 || !shown.includes(reply.slice(-200).trim())) throw new Error(`${side} turn failed (code ${run.code}): ${run.stderr.slice(-500)}`);
  return run.durationMs;
}

try {
  // Warm-up: the first run of each project fills OpenCode's caches.
  await turn("plugin", "warm up");
  await turn("bare", "warm up");
  for (const [label, reply, count] of [
    ["1 KB", prose(1024, 8), Math.min(pairs, 3)],
    [`${size / 1024} KB`, text, pairs],
  ] as const) {
    const ratios: number[] = [];
    const walls = { plugin: [] as number[], bare: [] as number[] };
    for (let k = 0; k < count; k++) {
      const order = k % 2 === 0 ? (["plugin", "bare"] as const) : (["bare", "plugin"] as const);
      const got: Record<string, number> = {};
      for (const side of order) got[side] = await turn(side, reply);
      walls.plugin.push(got.plugin!);
      walls.bare.push(got.bare!);
      ratios.push(got.plugin! / got.bare!);
      process.stderr.write(`[turn] ${label} pair ${k + 1}/${count}: plugin ${got.plugin} ms, bare ${got.bare} ms, ${(got.plugin! / got.bare!).toFixed(3)}x\n`);
    }
    console.log(
      `${label} reply (${count} pairs): wall median plugin ${median(walls.plugin).toFixed(0)} ms, without ${median(walls.bare).toFixed(0)} ms; median of paired ratios ${median(ratios).toFixed(3)}x`,
    );
  }
} finally {
  projects.plugin.cleanup();
  projects.bare.cleanup();
  await model.close();
}
