// Load rows for `dsml-fix proxy` (`npm run bench:proxy`, `-- --quick` for a fast, noisier pass):
// N = 1, 10 and 100 concurrent streaming clients, straight to a fake upstream vs through the proxy,
// on loopback. The repairing proxy and the relay-only one run in a process each
// (bench/proxy-child.ts), so that each one's CPU time and memory are its own. Prints one Markdown
// table and a SUMMARY line; always exits 0 (a report: a missed target prints FAIL). Not part of
// `npm test`: nothing here is a timed assertion.
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { block, live } from "../test/golden/notation.ts";
import { QUICK, RUNTIME, median, pairedQuartiles, pairedRatio, prose } from "./lib.ts";

/** Events per reply (`-- --events N` to see how much of the cost is per request). */
const EVENTS = Number(process.argv[process.argv.indexOf("--events") + 1] ?? 0) || 200;
const DELTA = 10;
/** Writes per reply (`-- --writes N`): the bursty rows' upstream sends EVENTS / WRITES events at a time. */
const WRITES = Number(process.argv[process.argv.indexOf("--writes") + 1] ?? 0) || 10;
/**
 * The paced rows' upstream writes one event at a time, this many milliseconds apart, as a model
 * streams tokens (100 a second is a fast one), PACED_EVENTS of them per reply: slow enough that
 * 100 such streams do not fill this 2-core machine, which would bunch the events up again.
 */
const PACE_MS = 10;
const PACED_EVENTS = 100;
/** Batches of completed requests between memory readings. */
const BATCHES = QUICK ? 4 : 6;
const ROUNDS = QUICK ? 3 : 7;
/** Requests through each proxy before anything is measured (see the warm-up below). */
const WARM_UP = QUICK ? 500 : 3000;
const LEVELS: [clients: number, each: number][] = QUICK ? [[1, 10], [10, 3], [100, 1]] : [[1, 40], [10, 8], [100, 2]];
/** A paced reply takes a second or more, so fewer of them, and fewer rounds. */
const PACED_LEVELS: [clients: number, each: number][] = QUICK ? [[1, 1], [10, 1], [100, 1]] : [[1, 4], [10, 1], [100, 1]];
const PACED_ROUNDS = QUICK ? 3 : 5;
const TOOLS = [{ type: "function", function: { name: "read", description: "read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const REQUEST = JSON.stringify({ model: "deepseek-chat", stream: true, messages: [{ role: "user", content: "explain" }], tools: TOOLS });
const envelope = { id: "c", object: "chat.completion.chunk", created: 1, model: "deepseek-chat" };
const event = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A reply's events, each as its own bytes. */
function sse(text: string): Buffer[] {
  const parts: string[] = [event({ role: "assistant", content: "" })];
  for (let at = 0; at < text.length; at += DELTA) parts.push(event({ content: text.slice(at, at + DELTA) }));
  parts.push(event({}, "stop"), "data: [DONE]\n\n");
  return parts.map((part) => Buffer.from(part));
}

/** The bursty replies whole (written in WRITES pieces); the paced one event by event. */
const CLEAN = Buffer.concat(sse(prose(EVENTS * DELTA, 11).slice(0, EVENTS * DELTA)));
const LEAKED = Buffer.concat(sse(prose((EVENTS - 20) * DELTA, 12).slice(0, (EVENTS - 20) * DELTA) + live(block("tool_calls", [["read", [["path", "a.ts"]]]]))));
const PACED_REPLY = sse(prose(PACED_EVENTS * DELTA, 13).slice(0, PACED_EVENTS * DELTA));

// ------------------------------------------------------------------ the fake upstream

/**
 * Streams the reply in WRITES pieces, one per turn of the event loop: bursts of events, which
 * loopback hands the proxy as a few large reads. "/paced" writes one event every PACE_MS, as a
 * model streams tokens; "/hold" never ends.
 */
async function startUpstream(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const body = req.url?.includes("leak") ? LEAKED : CLEAN;
      if (req.url?.includes("hold")) return void res.write(body.subarray(0, body.indexOf("\n\n") + 2));
      if (req.url?.includes("paced")) {
        let k = 0;
        const tick = () => {
          if (res.destroyed) return;
          if (k === PACED_REPLY.length - 1) return void res.end(PACED_REPLY[k]);
          res.write(PACED_REPLY[k++]);
          setTimeout(tick, PACE_MS);
        };
        return tick();
      }
      const step = Math.ceil(body.length / WRITES);
      let at = 0;
      const next = () => {
        if (res.destroyed) return;
        const piece = body.subarray(at, (at += step));
        if (at >= body.length) return void res.end(piece);
        res.write(piece);
        setImmediate(next);
      };
      next();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => (server.closeAllConnections(), server.close()) };
}

// ------------------------------------------------------------------ clients

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

interface Timing {
  /** Milliseconds to the first byte of the body. */
  first: number;
  /** Milliseconds per event from the first byte to the last. */
  perEvent: number;
  body?: string;
}

/** Requests retried because a kept-alive socket was closed by the server just as it was reused. */
let retried = 0;

/** Node's documented keep-alive race: a reused socket the server closed at that moment is retried once. */
async function one(url: string, keep = false, events = EVENTS): Promise<Timing> {
  try {
    return await once(url, keep, events);
  } catch (error) {
    if ((error as { reused?: boolean }).reused !== true) throw error;
    retried++;
    return once(url, keep, events);
  }
}

/** One request; `events` is how many the reply has, for the time per event. */
function once(url: string, keep: boolean, events: number): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(REQUEST) } });
    req.on("response", (res) => {
      let first = -1;
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => {
        if (first < 0) first = performance.now() - started;
        if (keep) parts.push(chunk);
      });
      res.on("end", () => {
        const total = performance.now() - started;
        resolve({ first, perEvent: (total - first) / events, ...(keep ? { body: Buffer.concat(parts).toString("utf8") } : {}) });
      });
      res.on("error", reject);
    });
    req.on("error", (error: NodeJS.ErrnoException) => reject(Object.assign(error, { reused: req.reusedSocket && error.code === "ECONNRESET" })));
    req.end(REQUEST);
  });
}

/** `clients` concurrent clients, each making `each` requests one after another. */
async function load(url: string, clients: number, each: number, events = EVENTS): Promise<{ timings: Timing[]; seconds: number }> {
  const timings: Timing[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < each; i++) timings.push(await one(url, false, events));
    }),
  );
  return { timings, seconds: (performance.now() - started) / 1000 };
}

function percentile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

// ------------------------------------------------------------------ the proxy process

interface Stats {
  /** Process CPU time when the reading was asked for, before its collections. */
  cpuMicrosAsked: number;
  /** ...and after them, when the memory below was read. */
  cpuMicros: number;
  rss: number;
  heap: number;
  /** Memory outside the JS heap that JS objects hold (buffers); 0 where the runtime does not say. */
  external: number;
  inFlight: number;
}

interface ProxyProcess {
  url: string;
  stats(): Promise<Stats>;
  stop(): void;
}

/** One side per process, so that each side's CPU time, collections and compiled code are its own. */
async function startProxyProcess(upstream: string, side: "repairing" | "relay"): Promise<ProxyProcess> {
  // The same runtime and flags (Node's --expose-gc); the bundled .js under Node, the .ts under Bun.
  const file = fileURLToPath(new URL(`./proxy-child.${import.meta.url.endsWith(".js") ? "js" : "ts"}`, import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, file, upstream, side], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  const ports = JSON.parse(line) as { proxy: number; stats: number };
  const stats = async (): Promise<Stats> => JSON.parse(await (await fetch(`http://127.0.0.1:${ports.stats}/stats`)).text()) as Stats;
  return { url: `http://127.0.0.1:${ports.proxy}`, stats, stop: () => child.kill("SIGKILL") };
}

// ------------------------------------------------------------------ rows

interface Row {
  row: string;
  result: string;
  target: string;
  verdict: "PASS" | "FAIL" | "info";
}

const rows: Row[] = [];
const fmt = (x: number, digits = 2) => x.toFixed(digits);
const mb = (bytes: number) => `${fmt(bytes / (1 << 20), 1)} MB`;

const upstream = await startUpstream();
const proxies = { repairing: await startProxyProcess(upstream.url, "repairing"), plain: await startProxyProcess(upstream.url, "relay") };
const path = "/v1/chat/completions";
const t0 = performance.now();

function print(): void {
  console.log(`# dsml-fix proxy load (${RUNTIME}, ${QUICK ? "quick" : "full"}; ${EVENTS} events of ${DELTA} chars per reply written in ${WRITES} bursts, ${ROUNDS} rounds per level; paced: ${PACED_EVENTS} events, one per ${PACE_MS} ms, ${PACED_ROUNDS} rounds)\n`);
  console.log("| row | result | target | verdict |\n| --- | --- | --- | --- |");
  for (const r of rows) console.log(`| ${r.row} | ${r.result} | ${r.target} | ${r.verdict} |`);
  const judged = rows.filter((r) => r.verdict !== "info");
  const failed = judged.filter((r) => r.verdict === "FAIL");
  const total = fmt((performance.now() - t0) / 1000, 0);
  console.log(`\nkept-alive sockets closed under a request and retried once: ${retried}`);
  console.log(`\n${failed.length === 0 ? `SUMMARY: all ${judged.length} targets PASS; ${total} s` : `SUMMARY: FAIL ${failed.map((r) => r.row).join("; ")}; ${total} s`}`);
}

async function correctness(): Promise<boolean> {
  const direct = await one(`${upstream.url}${path}`, true);
  const through = await one(`${proxies.repairing.url}${path}`, true);
  const leak = await one(`${proxies.repairing.url}/leak${path}`, true);
  const ok = direct.body === through.body && direct.body === CLEAN.toString("utf8") && leak.body!.includes('"tool_calls"') && !leak.body!.includes("invoke");
  rows.push({ row: "check", result: ok ? "clean reply byte-identical through the proxy; leak -> tool_calls" : "OUTPUT WRONG", target: "correct output", verdict: ok ? "PASS" : "FAIL" });
  return ok;
}

async function level(clients: number, each: number, paced = false): Promise<void> {
  const route = paced ? `/paced${path}` : path;
  const events = paced ? PACED_EVENTS : EVENTS;
  const rounds = paced ? PACED_ROUNDS : ROUNDS;
  const first = { direct: [] as number[], proxy: [] as number[] };
  const perEvent = { direct: [] as number[], proxy: [] as number[] };
  const throughput: number[] = [];
  const cpu = { repairing: [] as number[], plain: [] as number[] };
  /** The whole path's CPU per event: this process (clients and upstream), plus the proxy's when it is in the path. */
  const whole = { direct: [] as number[], repairing: [] as number[], plain: [] as number[] };
  const together = { repairing: [] as number[], plain: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["direct", "repairing", "plain"] as const) : (["plain", "repairing", "direct"] as const);
    const seconds: Record<string, number> = {};
    for (const side of order) {
      const url = side === "direct" ? upstream.url : proxies[side].url;
      const before = side === "direct" ? undefined : await proxies[side].stats();
      const here = process.cpuUsage();
      const { timings, seconds: took } = await load(`${url}${route}`, clients, each, events);
      const ours = process.cpuUsage(here);
      seconds[side] = took;
      const proxyCpu = side === "direct" ? 0 : ((await proxies[side].stats()).cpuMicrosAsked - before!.cpuMicros) / (timings.length * events);
      if (side !== "direct") cpu[side].push(proxyCpu);
      whole[side].push((ours.user + ours.system) / (timings.length * events) + proxyCpu);
      if (side === "plain") continue;
      const key = side === "direct" ? "direct" : "proxy";
      first[key].push(...timings.map((t) => t.first));
      perEvent[key].push(...timings.map((t) => t.perEvent));
    }
    throughput.push(seconds.direct! / seconds.repairing!);
    // Then both proxies at once, each under the same load in its own process: whatever the machine
    // does meanwhile (other tenants, its clock) falls on both alike, so their ratio moves least.
    const before = await Promise.all([proxies.repairing.stats(), proxies.plain.stats()]);
    const counts = await Promise.all([proxies.repairing, proxies.plain].map(async (p) => (await load(`${p.url}${route}`, clients, each, events)).timings.length * events));
    const after = await Promise.all([proxies.repairing.stats(), proxies.plain.stats()]);
    together.repairing.push((after[0].cpuMicrosAsked - before[0].cpuMicros) / counts[0]!);
    together.plain.push((after[1].cpuMicrosAsked - before[1].cpuMicros) / counts[1]!);
  }
  const ratio = (a: number[], b: number[], q: number) => percentile(a, q) / percentile(b, q);
  const quantiles = (xs: number[], scale: number, digits: number) => `p50 ${fmt(percentile(xs, 0.5) * scale, digits)} / p99 ${fmt(percentile(xs, 0.99) * scale, digits)}`;
  const label = `N=${clients}${paced ? ` paced (${PACED_EVENTS} events, one per ${PACE_MS} ms)` : ""}`;
  rows.push({ row: `${label} first byte`, result: `direct ${quantiles(first.direct, 1, 2)} ms; proxy ${quantiles(first.proxy, 1, 2)} ms; proxy/direct p50 ${fmt(ratio(first.proxy, first.direct, 0.5))}x, p99 ${fmt(ratio(first.proxy, first.direct, 0.99))}x`, target: "reported", verdict: "info" });
  rows.push({ row: `${label} per event after the first byte`, result: `direct ${quantiles(perEvent.direct, 1000, 1)} us; proxy ${quantiles(perEvent.proxy, 1000, 1)} us; proxy/direct p50 ${fmt(ratio(perEvent.proxy, perEvent.direct, 0.5))}x, p99 ${fmt(ratio(perEvent.proxy, perEvent.direct, 0.99))}x`, target: "reported", verdict: "info" });
  rows.push({ row: `${label} throughput`, result: `proxy/direct ${fmt(median(throughput))}x events/s (median of ${rounds} rounds)`, target: "reported", verdict: "info" });
  // Every round measures both proxies, so a round's ratio is what the machine's drift between
  // rounds moves least: a ratio is the median of the rounds' ratios. The verdict is on the phase
  // that ran both at once, where even the drift within a round falls on both alike.
  const cpuRatio = pairedRatio(together.repairing, together.plain);
  const [low, high] = pairedQuartiles(together.repairing, together.plain);
  const [seqLow, seqHigh] = pairedQuartiles(cpu.repairing, cpu.plain);
  rows.push({ row: `${label} path CPU per event`, result: `clients, upstream and proxy: direct ${fmt(median(whole.direct), 1)} us, through the relay ${fmt(median(whole.plain), 1)} us, through the repair ${fmt(median(whole.repairing), 1)} us: repair/direct ${fmt(pairedRatio(whole.repairing, whole.direct))}x, repair/relay ${fmt(pairedRatio(whole.repairing, whole.plain))}x`, target: "reported", verdict: "info" });
  rows.push({
    row: `${label} proxy CPU per event`,
    result: `both at once: repairing ${fmt(median(together.repairing), 1)} us, relay only ${fmt(median(together.plain), 1)} us: ${fmt(cpuRatio)}x (rounds' quartiles ${low}x to ${high}x); one after the other: ${fmt(median(cpu.repairing), 1)} us, ${fmt(median(cpu.plain), 1)} us: ${fmt(pairedRatio(cpu.repairing, cpu.plain))}x (${seqLow}x to ${seqHigh}x)`,
    target: "<= 1.2x the relay (both at once)",
    verdict: cpuRatio <= 1.2 ? "PASS" : "FAIL",
  });
}

/** RSS and heap after a full GC as completed requests pile up: they must not grow with the count. */
async function memoryOverRequests(): Promise<void> {
  const proxy = proxies.repairing;
  const base = await proxy.stats();
  const per = QUICK ? 500 : 1000;
  const after: Stats[] = [];
  for (let k = 0; k < BATCHES; k++) {
    await load(`${proxy.url}${path}`, 100, per / 100);
    after.push(await proxy.stats());
  }
  // From the second batch on (the first grows the pools to their working size) to the last.
  const last = after[BATCHES - 1]!;
  // Judged on the JS heap after a full GC. RSS and the runtime's external buffers also move with
  // native pools that a GC does not settle (Bun's external swings by tens of MB between readings),
  // so they are shown, not judged.
  const ok = last.heap - after[1]!.heap < 4 << 20 && last.inFlight === 0;
  rows.push({
    row: "memory over requests",
    result: `heap ${after.map((s) => mb(s.heap)).join(" -> ")} after each ${per} requests; RSS ${mb(base.rss)} before, then ${after.map((s) => mb(s.rss)).join(" -> ")}; external ${after.map((s) => mb(s.external)).join(" -> ")}; in flight after: ${last.inFlight}`,
    target: "heap: no growth from batch 2 on (< 4 MB)",
    verdict: ok ? "PASS" : "FAIL",
  });
}

/** Memory per open stream: 100 streams held open by an upstream that never finishes, then all clients leave. */
async function memoryPerStream(side: "repairing" | "relay only", proxy: ProxyProcess): Promise<void> {
  const url = proxy.url;
  const OPEN = 100;
  const idle = await proxy.stats();
  const held = Array.from({ length: OPEN }, () => {
    const req = http.request(`${url}/hold${path}`, { method: "POST", agent: false, headers: { "content-type": "application/json" } });
    const got = new Promise<void>((resolve) => req.on("response", (res) => res.once("data", () => resolve())));
    req.on("error", () => {});
    req.end(REQUEST);
    return { req, got };
  });
  await Promise.all(held.map((h) => h.got));
  const open = await proxy.stats();
  for (const h of held) h.req.destroy();
  let closed = open;
  for (let i = 0; i < 100 && closed.inFlight > 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
    closed = await proxy.stats();
  }
  const per = (bytes: number) => `${fmt(bytes / OPEN / 1024, 1)} KB`;
  rows.push({ row: `memory per open stream, ${side}`, result: `${OPEN} open: RSS +${per(open.rss - idle.rss)}, heap +${per(open.heap - idle.heap)} per stream; in flight ${open.inFlight} -> ${closed.inFlight} once the clients left`, target: "reported; none left open", verdict: closed.inFlight === 0 ? "PASS" : "FAIL" });
}

try {
  if (await correctness()) {
    // Warm-up: every path at every level once, then each proxy for WARM_UP requests. The repair has
    // more code than the relay, which the JIT keeps compiling for the first thousand-odd requests
    // (measured: +250 us per request over the relay after 200 requests, +150 us after 3,000); a
    // proxy that runs for a session pays the steady state.
    const urls = [upstream.url, proxies.repairing.url, proxies.plain.url];
    for (const [clients, each] of LEVELS) for (const url of urls) await load(`${url}${path}`, clients, each);
    for (const url of urls.slice(1)) await load(`${url}${path}`, 10, WARM_UP / 10);
    for (const [clients, each] of LEVELS) await level(clients, each);
    for (const url of urls) await load(`${url}/paced${path}`, 10, 1, PACED_EVENTS);
    for (const [clients, each] of PACED_LEVELS) await level(clients, each, true);
    await memoryOverRequests();
    await memoryPerStream("repairing", proxies.repairing);
    await memoryPerStream("relay only", proxies.plain);
  }
} finally {
  proxies.repairing.stop();
  proxies.plain.stop();
  upstream.close();
  agent.destroy();
}
print();
