// The proxy under measurement, in its own process so its CPU and memory are its own (spawned by
// bench/proxy.ts, once per side). `repairing` runs the shipped defaults; `relay` the same server
// with responseFix.enabled false, which relays bytes only. A second port answers GET /stats with
// this process's CPU time and memory after a full GC.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { proxyConfig } from "../src/proxy/config.ts";
import { createProxyServer } from "../src/proxy/server.ts";
import { fullGc } from "./lib.ts";

const upstream = process.argv[2]!;
const side = process.argv[3];
if (side !== "repairing" && side !== "relay") throw new Error(`proxy-child: side must be "repairing" or "relay", not ${side}`);
const quiet = { info: () => {}, warn: () => {} };
const config = proxyConfig(["--upstream", upstream]);
const proxy = createProxyServer(side === "repairing" ? config : { ...config, options: { ...config.options, responseFix: { ...config.options.responseFix, enabled: false } } }, quiet);

const listen = (server: http.Server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
const stats = http.createServer(async (_req, res) => {
  // CPU time both as asked and after the collections below: a phase is measured from the end of
  // one reading to the start of the next, so the collections' own time is in no phase.
  const asked = process.cpuUsage();
  // Twice, a moment apart: buffers freed by the first collection's finalizers go in the second.
  fullGc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  fullGc();
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  res.end(JSON.stringify({ cpuMicrosAsked: asked.user + asked.system, cpuMicros: cpu.user + cpu.system, rss: memory.rss, heap: memory.heapUsed, external: memory.external, inFlight: proxy.inFlight() }));
});
const ports = { proxy: await listen(proxy.server), stats: await listen(stats) };
process.stdout.write(`${JSON.stringify(ports)}\n`);
