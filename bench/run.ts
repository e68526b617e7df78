// Benchmark report: `npm run bench` (Bun) or `npm run bench:node` (Node, the same file bundled by
// Bun); `--quick` for a fast, noisier pass. Prints one Markdown table plus a summary line; always
// exits 0 (it is a report, a missed target prints FAIL). Marker characters are never written
// literally here: see test/golden/notation.ts.
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { hermesToolMiddleware } from "@ai-sdk-tool/parser";
import { repairFetch } from "../src/adapters/fetch.ts";
import { repairMiddleware } from "../src/adapters/middleware.ts";
import { D, block, live } from "../test/golden/notation.ts";
import {
  MB,
  QUICK,
  REPS,
  RUNTIME,
  URL_,
  chunks,
  code,
  count,
  drainBytes,
  fetchOf,
  identityMiddleware,
  measure,
  median,
  now,
  pairedDiff,
  pairedQuartiles,
  pairedRatio,
  partsFor,
  prose,
  providerModel,
  requestInit,
  runEngine,
  sseContent,
  sseEvents,
  stagedFetch,
  hoppedFetch,
  throughMiddleware,
  throughProvider,
} from "./lib.ts";

const started = now();

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
const WORKLOADS = [
  ["a", "1 MB prose", PROSE],
  ["b", `1 MB code (< every ${ltEvery.toFixed(0)} chars)`, CODE],
] as const;

// 1 + 2 ------------------------------------------------------------------
const ours = repairMiddleware();
for (const [suffix, label, text] of WORKLOADS) {
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
    workload: `dsml-fix middleware vs an identity TransformStream, ${label}, ${parts.length - 4} text-deltas`,
    ours: ms(median(t.ours!)),
    reference: `identity ${ms(median(t.identity!))}; ${perDelta(t.ours!)}`,
    result: x(ratio),
    target: "<= 1.0x",
    verdict: verdict(ratio <= 1.0),
  });
  rows.push({
    row: `2${suffix}`,
    workload: `Hermes middleware (@ai-sdk-tool/parser), ${label}`,
    ours: ms(median(t.hermes!)),
    reference: `identity ${ms(median(t.identity!))}; ${perDelta(t.hermes!)}`,
    result: x(pairedRatio(t.hermes!, t.identity!)),
    target: "reference",
    verdict: "info",
  });
}

// 3 ----------------------------------------------------------------------
// Ratios only: absolute times per event are not stable on a shared machine.
const FETCH_TARGETS = { a: 1.15, b: 1.25 } as const;
for (const [suffix, label, text] of WORKLOADS) {
  progress(`fetch adapter under the AI SDK provider: ${label}`);
  const events = sseEvents(text);
  const base = fetchOf(events);
  const repaired = repairFetch({}, base);
  const staged = stagedFetch(base);
  const hopped = hoppedFetch(base);
  const check = sseContent((await drainBytes(await repaired(URL_, requestInit), true)).body);
  if (check.content !== text || check.toolCalls !== 0) throw new Error(`fetch adapter changed the ${label} stream`);
  const plainModel = providerModel(base);
  const repairedModel = providerModel(repaired);
  const stagedModel = providerModel(staged);
  const hoppedModel = providerModel(hopped);
  const viaProvider = await throughProvider(repairedModel, true);
  if (viaProvider.text !== text || viaProvider.calls !== 0) throw new Error(`the provider over repairFetch changed the ${label} stream`);
  if ((await throughProvider(hoppedModel, true)).text !== text) throw new Error(`the provider over the bare hop changed the ${label} stream`);
  const t = await measure(
    {
      untouched: () => throughProvider(plainModel),
      ours: () => throughProvider(repairedModel),
      // What any wrapper that rewrites the body pays for one stage before doing any work.
      stage: () => throughProvider(stagedModel),
      // repairFetch's own hop with no work in it: how much of what it adds is the hop, how much the work.
      hop: () => throughProvider(hoppedModel),
    },
    QUICK ? 5 : 7,
    2,
  );
  const ratio = pairedRatio(t.ours!, t.untouched!);
  const [low, high] = pairedQuartiles(t.ours!, t.untouched!);
  const target = FETCH_TARGETS[suffix];
  rows.push({
    row: `3${suffix}`,
    workload: `AI SDK openai-compatible doStream over repairFetch vs over the untouched body, ${label} as ${events.length} SSE events`,
    ours: ms(median(t.ours!)),
    reference: `untouched ${ms(median(t.untouched!))}; an identity byte TransformStream ${x(pairedRatio(t.stage!, t.untouched!))}, repairFetch's own stream hop doing no work ${x(pairedRatio(t.hop!, t.untouched!))}`,
    result: `${x(ratio)} (rounds' quartiles ${low}x to ${high}x)`,
    target: `<= ${target.toFixed(2)}x`,
    verdict: verdict(ratio <= target),
  });
}

// 4 ----------------------------------------------------------------------
for (const [suffix, label, text] of WORKLOADS) {
  progress(`re-serialized events on ${label}`);
  const events = sseEvents(text);
  const body = (await drainBytes(await repairFetch({}, fetchOf(events))(URL_, requestInit), true)).body;
  const passed = new Set(body.split("\n\n"));
  const decoder = new TextDecoder();
  let rewritten = 0;
  for (const event of events) if (!passed.has(decoder.decode(event).slice(0, -2))) rewritten++;
  // An event with no leak may go out re-serialized, as long as it means the same: the same content, no call.
  const same = sseContent(body);
  const identical = same.content === text && same.toolCalls === 0;
  rows.push({
    row: `4${suffix}`,
    workload: `repairFetch on ${label} (no leak), ${events.length} SSE events: events not passed on as their original bytes`,
    ours: `${rewritten} events`,
    reference: `${((100 * rewritten) / events.length).toFixed(2)} % of the events`,
    result: `${rewritten} re-serialized, content ${identical ? "intact, no call" : "CHANGED"}`,
    target: "semantically identical; count reported",
    verdict: verdict(identical),
  });
}

// 5 ----------------------------------------------------------------------
/** A difference with its sign: "+0.59", "-0.14"; `format` writes its size. */
const signed = (n: number, format = (size: number) => size.toFixed(2)) => `${n < 0 ? "-" : "+"}${format(Math.abs(n))}`;
{
  progress("memory per held character, fresh processes");
  const here = fileURLToPath(import.meta.url);
  const script = here.replace(/run\.(ts|js)$/, "memory.$1");
  const gcFlag = process.versions.bun ? [] : ["--expose-gc"];
  const sample = (mode: string, streams: number, held: number, limit: number) => {
    const out = spawnSync(process.execPath, [...gcFlag, script, mode, String(streams), String(held), String(limit)], { encoding: "utf8" });
    const line = out.stdout.trim().split("\n").at(-1) ?? "";
    if (out.status !== 0 || !line.startsWith("{")) throw new Error(`memory probe ${mode} failed: ${out.stderr}`);
    return JSON.parse(line) as { rss: number; rssEarly: number; heap: number; released: number };
  };
  /** Median over fresh processes, ours and identity alternating, of ours minus identity. */
  const over = (mode: string, identity: string, streams: number, held: number, limit: number) => {
    const rss: number[] = [];
    const rssEarly: number[] = [];
    const heap: number[] = [];
    let released = 0;
    for (let k = 0; k < (QUICK ? 1 : 3); k++) {
      const base = sample(identity, streams, held, limit);
      const got = sample(mode, streams, held, limit);
      rss.push(got.rss - base.rss);
      rssEarly.push(got.rssEarly - base.rssEarly);
      heap.push(got.heap - base.heap);
      released = got.released;
    }
    return { rss: median(rss), rssEarly: median(rssEarly), heap: median(heap), released };
  };
  const mb = (b: number) => `${(b / MB).toFixed(1)} MB`;
  const signedMb = (b: number) => signed(b, mb);
  const one = over("middleware", "identity", 1, 1_000_000, 2_000_000);
  rows.push({
    row: "5a",
    workload: "bytes per held character: one middleware stream holding a 1,000,000-character candidate (bufferLimit 2,000,000) vs identity",
    ours: `heap +${mb(one.heap)}, RSS ${signedMb(one.rss)} (${signedMb(one.rssEarly)} before the allocator settled)`,
    reference: `released while held: ${one.released} chars`,
    result: `${(one.heap / 1e6).toFixed(2)} B/char heap, ${(one.rss / 1e6).toFixed(2)} B/char RSS`,
    target: "<= 4 B/char (heap; RSS of one process moves by MBs)",
    verdict: verdict(one.heap / 1_000_000 <= 4 && one.released === 0),
  });
  for (const [suffix, mode, identity, what] of [
    ["b", "middleware", "identity", "middleware, vs an identity TransformStream of parts"],
    ["c", "fetch", "identity-bytes", "repairFetch, vs an identity byte TransformStream"],
  ] as const) {
    const many = over(mode, identity, 100, 64_000, 65_536);
    const worst = Math.max(many.heap, many.rss);
    rows.push({
      row: `5${suffix}`,
      workload: `100 concurrent streams each holding a 64,000-character candidate (default bufferLimit): ${what}`,
      ours: `heap +${mb(many.heap)}, RSS ${signedMb(many.rss)} (${signedMb(many.rssEarly)} before the allocator settled)`,
      reference: `${(many.heap / 6.4e6).toFixed(2)} B/char heap, ${(many.rss / 6.4e6).toFixed(2)} B/char RSS`,
      result: `+${mb(worst)} (larger of heap, RSS)`,
      target: "<= 30 MB",
      verdict: verdict(worst <= 30 * MB),
    });
  }
}

// 6 ----------------------------------------------------------------------
{
  progress("held characters");
  const p = runEngine(chunks(PROSE));
  if (p.text !== PROSE || p.calls.length > 0) throw new Error("engine changed prose");
  rows.push({
    row: "6a",
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
    row: "6b",
    workload: "engine.held on 1 MB code, 10-char feeds",
    ours: `max ${c.maxHeld} chars`,
    reference: "",
    result: `${c.maxHeld}`,
    target: "one undecided tag",
    verdict: "info",
  });
}

// 7 ----------------------------------------------------------------------
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
    row: "7a",
    workload: `one leaked write call, content ${(content.length / MB).toFixed(2)} MB, bufferLimit 2_000_000`,
    ours: ms(t.big),
    reference: `calls=${big.calls.length}, content length ${typeof arg === "string" ? arg.length : "-"} of ${content.length}`,
    result: `${oneCall ? "1 call, full argument" : "WRONG"}, ${t.big.toFixed(3)} s`,
    target: "< 0.3 s, 1 call",
    verdict: verdict(oneCall && t.big < 0.3),
  });
  rows.push({
    row: "7b",
    workload: "same leak, default bufferLimit 65536",
    ours: ms(t.small),
    reference: `calls=${small.calls.length}, heldCandidateNoCall=${small.summary.heldCandidateNoCall}, max held ${small.maxHeld}`,
    result: released ? "released verbatim as text" : "NOT verbatim",
    target: "verbatim, no call",
    verdict: verdict(released && small.summary.heldCandidateNoCall >= 1),
  });
}

// 8 ----------------------------------------------------------------------
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
    row: "8",
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
  ...rows.sort((a, b) => a.row.localeCompare(b.row)).map((r) => `| ${[r.row, r.workload, r.ours, r.reference, r.result, r.target, r.verdict].join(" | ")} |`),
];
console.log(
  `${RUNTIME}, ${process.platform}/${process.arch}, ${availableParallelism()} CPUs. Times: medians; ratios: medians of per-round ratios, ` +
    `the compared cases interleaved in every round (rows 1-2: ${REPS} rounds, row 3: ${QUICK ? 5 : 7}, row 7: ${QUICK ? 3 : 5}, row 8: ${QUICK ? 5 : 11}; after warm-up); row 5: fresh processes.`,
);
console.log("");
console.log(lines.join("\n"));
console.log("");
const judged = rows.filter((r) => r.verdict !== "info");
const failed = judged.filter((r) => r.verdict === "FAIL");
const total = (now() - started).toFixed(1);
console.log(
  failed.length === 0
    ? `SUMMARY: all ${judged.length} targets PASS (rows ${judged.map((r) => r.row).join(", ")}); ${total} s`
    : `SUMMARY: FAIL ${failed.map((r) => `row ${r.row} (${r.result})`).join("; ")} | PASS rows ${judged.filter((r) => r.verdict === "PASS").map((r) => r.row).join(", ")}; ${total} s`,
);

// The proxy's load rows (issue 32) belong to the same report: `npm run bench` runs them after the
// rows above, in Bun (`npm run bench:proxy:node` has the Node variant); `-- --no-proxy` skips them.
// The specifier is built at run time so the Node bundle of this file does not pull the proxy in.
if (process.versions.bun !== undefined && !process.argv.includes("--no-proxy")) {
  console.log("");
  await import(new URL("./proxy.ts", import.meta.url).href);
}
