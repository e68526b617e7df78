// A probe loaded as a second plugin on both sides of bench/opencode-turn.ts (never shipped): at
// exit it writes the OpenCode process's CPU time and, with DSML_PROBE_PROFILE=1, the share of
// Bun's main-thread profiler samples that have one of this repository's src/ files on the stack.
import { writeFileSync } from "node:fs";

let started = false;

export default {
  id: "dsml-bench-probe",
  server: async () => {
    const out = process.env.DSML_PROBE_OUT;
    if (started || !out) return {};
    started = true;
    const jsc = process.env.DSML_PROBE_PROFILE === "1" ? await import("bun:jsc") : undefined;
    jsc?.startSamplingProfiler();
    process.on("exit", () => {
      const cpu = process.cpuUsage();
      const result = { cpuMs: (cpu.user + cpu.system) / 1000 };
      if (jsc) {
        const traces = jsc.samplingProfilerStackTraces().traces;
        const ours = traces.filter((t) => t.frames.some((f) => (f.sourceURL ?? "").includes("/src/") && !(f.sourceURL ?? "").includes("node_modules")));
        Object.assign(result, { samples: traces.length, pluginSamples: ours.length });
      }
      writeFileSync(out, JSON.stringify(result));
    });
    return {};
  },
};
