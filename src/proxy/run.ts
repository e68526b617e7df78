// `dsml-fix proxy`: starts the server, says where it listens, and shuts down gracefully on a signal.
import type { AddressInfo } from "node:net";
import { PROXY_USAGE, ProxyUsageError, proxyConfig, routeToItself, shownUpstream } from "./config.ts";
import { redactedPath } from "../grammar/redact.ts";
import { createProxyServer } from "./server.ts";

interface ProxyIo {
  out(lines: string[]): void;
  err(lines: string[]): void;
  /** A usage error as the other commands report it (one {"error"} object with --json); `err` lines without it. */
  fail?(message: string, more: string[]): void;
  env?: NodeJS.ProcessEnv;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Resolves with the exit code once the server has stopped (after SIGINT/SIGTERM). */
export async function runProxy(argv: readonly string[], io: ProxyIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
    io.out(PROXY_USAGE.split("\n"));
    return 0;
  }
  let config;
  try {
    config = proxyConfig(argv, io.env ?? process.env);
    // The proxy as its own upstream: every request would come back to it, without end.
    const loop = routeToItself(config);
    if (loop) throw new ProxyUsageError(`${loop.prefix ? `the route ${redactedPath(loop.prefix)}` : "the upstream"} ${shownUpstream(loop.upstream)} is this proxy itself (${config.host} port ${config.port}); give the upstream's own URL`);
  } catch (error) {
    if (!(error instanceof ProxyUsageError)) throw error;
    if (io.fail) io.fail(error.message, PROXY_USAGE.split("\n"));
    else io.err([`dsml-fix: ${error.message}`, ...PROXY_USAGE.split("\n")]);
    return 2;
  }
  for (const problem of config.problems) io.err([problem]);
  const log = { info: (line: string) => io.out([line]), warn: (line: string) => io.err([line]) };
  const { server, shutdown } = createProxyServer(config, log);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    const message = `cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`;
    if (io.fail) io.fail(message, []);
    else io.err([`dsml-fix: ${message}`]);
    return 2;
  }
  const { port } = server.address() as AddressInfo;
  if (!LOOPBACK.has(config.host)) log.warn(`dsml-fix proxy: listening on ${config.host}, reachable from other machines; bind 127.0.0.1 unless that is intended`);
  const origin = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  // Each route's prefix and upstream as the access log would show their paths (redactedPath): a
  // `;key=` parameter or a `%40` userinfo of the configured URL is not printed on every start.
  for (const route of config.routes) log.info(`dsml-fix proxy: ${origin}${redactedPath(route.prefix) || "/"} -> ${shownUpstream(route.upstream)}`);
  // The handlers stay until the server has stopped: a repeated signal (a terminal's Ctrl-C reaches
  // both the checkout's launcher, which forwards it, and this process) must not fall through to the
  // default action and cut the open streams; the shutdown's own timeout bounds the wait.
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    stop = () => {
      if (stopping) return;
      stopping = true;
      log.info(`dsml-fix proxy: shutting down (open streams get ${config.shutdownMs / 1000}s)`);
      shutdown(config.shutdownMs).then(resolve, resolve);
    };
  });
  signals.on("SIGINT", stop);
  signals.on("SIGTERM", stop);
  await stopped;
  signals.off("SIGINT", stop);
  signals.off("SIGTERM", stop);
  return 0;
}
