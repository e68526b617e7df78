// Benchmark report: `bun bench/run.ts` (or `npm run bench`; `--quick` for a fast, noisier pass).
// Prints one Markdown table plus a summary line; always exits 0 (it is a report, a missed target
// prints FAIL). Marker characters are never written literally here: see test/golden/notation.ts.
import { hermesToolMiddleware } from "@ai-sdk-tool/parser";
import { repairFetch } from "../src/adapters/fetch.ts";
import { repairMiddleware } from "../src/adapters/middleware.ts";
import { D, block, live } from "../test/golden/notation.ts";
import {
  MB,
  QUICK,
  REPS,
  WARMUP,
  URL_,
  chunks,
  code,
  count,
  drainBytes,
  identityMiddleware,
  measure,
  median,
  pairedDiff,
  pairedRatio,
  partsFor,
  prose,
  rechunk,
  requestInit,
  runEngine,
  sourceStream,
  sseContent,
  sseEvents,
  throughMiddleware,
} from "./lib.ts";

const started = Bun.nanoseconds();

// ------------------------------------------------------------------ report

interface Row {
  row: string;
  workload: string;
  ours: string;
  reference: string;
  result: string;
  target: string;
  verdict: "PASS" | "FAIL" | "info";
}
const rows: Row[] = [];
const ms = (s: number) => `${(s * 1000).toFixed(1)} ms`;
const x = (r: number) => `${r.toFixed(2)}x`;
const verdict = (ok: boolean): "PASS" | "FAIL" => (ok ? "PASS" : "FAIL");
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const PROSE = prose(MB);
const CODE = code(MB);
for (const ch of ["<", "|", String.fromCodePoint(0xff5c), String.fromCodePoint(0x2016), "`"]) {
  if (PROSE.includes(ch)) throw new Error(`prose workload contains U+${ch.codePointAt(0)!.toString(16)}`);
}
const ltEvery = CODE.length / count(CODE, "<");

// 1 + 2 ------------------------------------------------------------------
const ours = repairMiddleware();
for (const [suffix, label, text] of [
  ["a", "1 MB prose", PROSE],
  ["b", `1 MB code (< every ${ltEvery.toFixed(0)} chars)`, CODE],
] as const) {
  progress(`middleware: ${label}`);
  const parts = partsFor(text);
  // Correctness first, outside the timed runs.
  for (const [name, mw] of [["dsml-fix", ours], ["hermes", hermesToolMiddleware], ["identity", identityMiddleware]] as const) {
    const got = await throughMiddleware(mw, parts, true);
    if (got.text !== text || got.calls !== 0) throw new Error(`${name} changed the ${label} stream (calls=${got.calls})`);
  }
  const t = await measure(
    {
      identity: () => throughMiddleware(identityMiddleware, parts),
      ours: () => throughMiddleware(ours, parts),
      hermes: () => throughMiddleware(hermesToolMiddleware, parts),
    },
    REPS,
  );
  const ratio = pairedRatio(t.ours!, t.identity!);
  const perDelta = (s: number[]) => `${((pairedDiff(s, t.identity!) * 1e9) / (parts.length - 4)).toFixed(0)} ns/delta`;
  rows.push({
    row: `1${suffix}`,
    workload: `dsml-fix middleware, ${label}, ${parts.length - 4} text-deltas`,
    ours: ms(median(t.ours!)),
    reference: `identity ${ms(median(t.identity!))}; +${perDelta(t.ours!)}`,
    result: x(ratio),
    target: "<= 1.3x",
    verdict: verdict(ratio <= 1.3),
  });
  rows.push({
    row: `2${suffix}`,
    workload: `Hermes middleware (@ai-sdk-tool/parser), ${label}`,
    ours: ms(median(t.hermes!)),
    reference: `identity ${ms(median(t.identity!))}; +${perDelta(t.hermes!)}`,
    result: x(pairedRatio(t.hermes!, t.identity!)),
    target: "reference",
    verdict: "info",
  });
}

// 3 ----------------------------------------------------------------------
{
  progress("fetch adapter: 1 MB prose as SSE");
  const events = sseEvents(PROSE);
  const sseBytes = events.reduce((n, e) => n + e.byteLength, 0);
  const network = rechunk(events, 16 * 1024);
  const fetchOf = (body: Uint8Array[]) =>
    (async () => new Response(sourceStream(body), { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch;
  for (const [suffix, body, shape] of [
    ["", events, "one chunk per event"],
    ["b", network, `${network.length} chunks of 16 KB`],
  ] as const) {
    const baseFetch = fetchOf(body);
    const repaired = repairFetch({}, baseFetch);
    const check = sseContent((await drainBytes(await repaired(URL_, requestInit), true)).body);
    if (check.content !== PROSE || check.toolCalls !== 0) throw new Error("fetch adapter changed the prose stream");
    const stage = () => new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => ctl.enqueue(c) });
    // With 16 KB chunks transform() runs only ~1500 times per pass, so the JIT needs more passes to settle.
    const t = await measure(
      {
        untouched: async () => drainBytes(await baseFetch(URL_, requestInit), false),
        stage: async () => drainBytes(new Response((await baseFetch(URL_, requestInit)).body!.pipeThrough(stage())), false),
        ours: async () => drainBytes(await repaired(URL_, requestInit), false),
      },
      QUICK ? 3 : 5,
      suffix === "b" && !QUICK ? 3 : 1,
    );
    const ratio = pairedRatio(t.ours!, t.untouched!);
    const perEvent = (s: number[]) => `${((median(s) * 1e6) / events.length).toFixed(2)} us/event`;
    rows.push({
      row: `3${suffix}`,
      workload: `fetch adapter, 1 MB prose as ${events.length} SSE events (${(sseBytes / MB).toFixed(1)} MB), ${shape}`,
      ours: `${ms(median(t.ours!))} (${perEvent(t.ours!)})`,
      reference: `untouched ${ms(median(t.untouched!))}; an identity byte TransformStream alone: ${ms(median(t.stage!))} = ${x(pairedRatio(t.stage!, t.untouched!))}`,
      result: suffix === "" ? x(ratio) : `${x(ratio)} (cost per event, not ratio, is the point here)`,
      target: suffix === "" ? "<= 1.5x" : "info",
      verdict: suffix === "" ? verdict(ratio <= 1.5) : "info",
    });
    // Any stream-rewriting fetch wrapper pays for one TransformStream: this is the cost above that floor.
    if (suffix === "") {
      rows.push({
        row: "3c",
        workload: `fetch adapter vs an identity byte TransformStream on the same body, ${shape}`,
        ours: `${ms(median(t.ours!))} (${perEvent(t.ours!)})`,
        reference: `identity stage ${ms(median(t.stage!))} (${perEvent(t.stage!)}); +${((pairedDiff(t.ours!, t.stage!) * 1e6) / events.length).toFixed(2)} us/event`,
        result: x(pairedRatio(t.ours!, t.stage!)),
        target: "info",
        verdict: "info",
      });
    }
  }
}

// 4 ----------------------------------------------------------------------
{
  progress("held characters");
  const p = runEngine(chunks(PROSE));
  if (p.text !== PROSE || p.calls.length > 0) throw new Error("engine changed prose");
  rows.push({
    row: "4",
    workload: "engine.held on 1 MB prose (no `<`, no bars), 10-char feeds",
    ours: `max ${p.maxHeld} chars`,
    reference: "",
    result: `${p.maxHeld}`,
    target: "0",
    verdict: verdict(p.maxHeld === 0),
  });
  const c = runEngine(chunks(CODE));
  if (c.text !== CODE || c.calls.length > 0) throw new Error("engine changed code");
  rows.push({
    row: "4b",
    workload: "engine.held on 1 MB code, 10-char feeds",
    ours: `max ${c.maxHeld} chars`,
    reference: "",
    result: `${c.maxHeld}`,
    target: "one undecided tag",
    verdict: "info",
  });
}

// 5 ----------------------------------------------------------------------
{
  progress("1 MB leaked argument");
  const content = code(MB, 5).trimEnd();
  // block() writes parameter values verbatim: the value here is live code with `<`, `||`, quotes.
  const leak = live(block("tool_calls", [["write", [["filePath", "/tmp/big.ts"], ["content", content]]]]));
  const pieces = chunks(leak);
  const big = runEngine(pieces, { bufferLimit: 2_000_000 });
  const arg = big.calls[0]?.input.content;
  const oneCall = big.calls.length === 1 && big.calls[0]!.tool === "write" && arg === content && big.text.trim() === "";
  const small = runEngine(pieces);
  const released = small.calls.length === 0 && small.text === leak;
  const m = await measure(
    {
      big: () => runEngine(pieces, { bufferLimit: 2_000_000 }),
      small: () => runEngine(pieces),
    },
    QUICK ? 3 : 5,
    1,
  );
  const t = { big: median(m.big!), small: median(m.small!) };
  rows.push({
    row: "5",
    workload: `one leaked write call, content ${(content.length / MB).toFixed(2)} MB, bufferLimit 2_000_000`,
    ours: ms(t.big),
    reference: `calls=${big.calls.length}, content length ${typeof arg === "string" ? arg.length : "-"} of ${content.length}`,
    result: `${oneCall ? "1 call, full argument" : "WRONG"}, ${t.big.toFixed(3)} s`,
    target: "< 0.3 s, 1 call",
    verdict: verdict(oneCall && t.big < 0.3),
  });
  rows.push({
    row: "5b",
    workload: "same leak, default bufferLimit 65536",
    ours: ms(t.small),
    reference: `calls=${small.calls.length}, heldCandidateNoCall=${small.summary.heldCandidateNoCall}, max held ${small.maxHeld}`,
    result: released ? "released verbatim as text" : "NOT verbatim",
    target: "verbatim, no call",
    verdict: verdict(released && small.summary.heldCandidateNoCall >= 1),
  });
}

// 6 ----------------------------------------------------------------------
{
  progress("marker mentions in code");
  // How a user explaining the format would write it: a complete opener, in plain text (no backticks).
  const mention = `// <${D}invoke name="bash"> is the opener\n`;
  const withMentions = (size: number) => {
    const body = code(size, 6);
    let out = "";
    for (let i = 0; i < body.length; i += 10 * 1024) out += body.slice(i, i + 10 * 1024 - mention.length) + mention;
    return out;
  };
  const small = withMentions(100 * 1024);
  const large = withMentions(400 * 1024);
  const huge = withMentions(1600 * 1024);
  const smallPieces = chunks(small);
  const largePieces = chunks(large);
  const hugePieces = chunks(huge);
  const r = runEngine(smallPieces);
  const rl = runEngine(largePieces);
  const rh = runEngine(hugePieces);
  const intact = r.text === small && rl.text === large && rh.text === huge;
  const noCall = r.calls.length === 0 && rl.calls.length === 0 && rh.calls.length === 0;
  // 100 KB runs in a few milliseconds, too short to time steadily: linearity is judged from 400 KB to 1.6 MB.
  const m = await measure({ s: () => runEngine(smallPieces), l: () => runEngine(largePieces), h: () => runEngine(hugePieces) }, QUICK ? 5 : 11, 3);
  const t = { s: median(m.s!), l: median(m.l!), h: median(m.h!) };
  const ratio = pairedRatio(m.h!, m.l!);
  const maxHeld = Math.max(r.maxHeld, rl.maxHeld, rh.maxHeld);
  rows.push({
    row: "6",
    workload: `100 KB code, one line \`// <{D}invoke name="bash"> is the opener\` per 10 KB (${count(small, D)} mentions), 10-char feeds; the same density at 400 KB and 1.6 MB`,
    ours: `${ms(t.s)} (400 KB: ${ms(t.l)}, 1.6 MB: ${ms(t.h)})`,
    reference: `heldCandidateNoCall=${r.summary.heldCandidateNoCall + rl.summary.heldCandidateNoCall + rh.summary.heldCandidateNoCall}, max held ${maxHeld}`,
    result: `${intact ? "text intact" : "TEXT LOST"}, ${noCall ? "no call" : "CALL"}, max held ${maxHeld}, 1.6 MB/400 KB ${x(ratio)}`,
    target: "intact, no call, ~4x (quadratic: 16x)",
    verdict: verdict(intact && noCall && ratio >= 2.5 && ratio <= 6),
  });
}

// ------------------------------------------------------------------ print

const header = ["#", "workload", "measured", "baseline / detail", "result", "target", "verdict"];
const lines = [
  `| ${header.join(" | ")} |`,
  `|${header.map(() => "---").join("|")}|`,
  ...rows.map((r) => `| ${[r.row, r.workload, r.ours, r.reference, r.result, r.target, r.verdict].join(" | ")} |`),
];
console.log(
  `Bun ${Bun.version}, ${process.platform}/${process.arch}, ${navigator.hardwareConcurrency} CPUs. Times: medians; ratios: medians of per-round ratios ` +
    `(rows 1-2: ${REPS} rounds, row 3: ${QUICK ? 3 : 5}, row 5: ${QUICK ? 3 : 5}, row 6: ${QUICK ? 5 : 11}; after warm-up).`,
);
console.log("");
console.log(lines.join("\n"));
console.log("");
const judged = rows.filter((r) => r.verdict !== "info");
const failed = judged.filter((r) => r.verdict === "FAIL");
const total = ((Bun.nanoseconds() - started) / 1e9).toFixed(1);
console.log(
  failed.length === 0
    ? `SUMMARY: all ${judged.length} targets PASS (rows ${judged.map((r) => r.row).join(", ")}); ${total} s`
    : `SUMMARY: FAIL ${failed.map((r) => `row ${r.row} (${r.result})`).join("; ")} | PASS rows ${judged.filter((r) => r.verdict === "PASS").map((r) => r.row).join(", ")}; ${total} s`,
);
