// Per-chunk cost breakdown for the middleware and fetch paths: `bun bench/profile.ts`.
import { createRepairEngine } from "../src/stream/engine.ts";
import { GuardedEngine } from "../src/adapters/options.ts";
import { fixtureTools } from "../test/golden/tools.ts";

const MB = 1 << 20;
const WORDS = "the model reads a file and then explains what changed in the function before it runs the tests again because".split(" ");
let s = "";
let k = 0;
while (s.length < MB) s += WORDS[k++ % WORDS.length] + (k % 17 === 0 ? ". " : " ");
const PROSE = s.slice(0, MB);
const pieces: string[] = [];
for (let i = 0; i < PROSE.length; i += 10) pieces.push(PROSE.slice(i, i + 10));

function time(label: string, fn: () => void, reps = 7) {
  for (let i = 0; i < 2; i++) fn();
  const ts: number[] = [];
  for (let i = 0; i < reps; i++) {
    Bun.gc(true);
    const t0 = Bun.nanoseconds();
    fn();
    ts.push((Bun.nanoseconds() - t0) / 1e6);
  }
  ts.sort((a, b) => a - b);
  const m = ts[ts.length >> 1]!;
  console.log(`${label.padEnd(58)} ${m.toFixed(1).padStart(7)} ms  ${((m * 1e6) / pieces.length).toFixed(0).padStart(5)} ns/chunk`);
}

time("loop only (baseline)", () => {
  let n = 0;
  for (const p of pieces) n += p.length;
});
time("engine.feed + held", () => {
  const e = createRepairEngine({ tools: fixtureTools });
  for (const p of pieces) {
    e.feed(p);
    void e.held;
  }
  e.flush();
});
time("GuardedEngine.step({delta}) + held", () => {
  const g = new GuardedEngine(createRepairEngine({ tools: fixtureTools }), () => {});
  for (const p of pieces) {
    g.step({ delta: p });
    void g.held;
  }
  g.step({ flush: true });
});
time("step + new text-delta part per event", () => {
  const g = new GuardedEngine(createRepairEngine({ tools: fixtureTools }), () => {});
  const sink: unknown[] = [];
  for (const p of pieces) {
    const st = g.step({ delta: p });
    if (st.ok) for (const e of st.events) if (e.type === "text") sink.push({ type: "text-delta", id: "t0", delta: e.text });
    if (sink.length > 1000) sink.length = 0;
  }
});
