#!/usr/bin/env node
// The `dsml-fix` command. An installed package runs the compiled CLI in dist/ with plain Node. In a
// checkout (src/ is never packed, so its presence means one) it runs the TypeScript source with the
// Bun that ships as a devDependency, so a stale dist/ is never used; the compiled CLI is the
// fallback when no Bun is found.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const compiled = join(root, "dist", "cli", "main.js");
const source = join(root, "src", "cli", "main.ts");
const localBun = join(root, "node_modules", ".bin", "bun");

if (existsSync(source) && (existsSync(localBun) || !existsSync(compiled))) {
  const bun = existsSync(localBun) ? localBun : "bun";
  const child = spawn(bun, [source, ...process.argv.slice(2)], { stdio: "inherit" });
  // A signal sent to this launcher alone (`kill`, a service manager, a test harness) must reach the
  // CLI too, or `dsml-fix proxy` would outlive it and keep its port. A terminal's Ctrl-C reaches both
  // already; the proxy takes a repeated signal as the same request to stop.
  const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of SIGNALS) process.on(signal, forward);
  child.on("error", (error) => {
    process.stderr.write(`dsml-fix: cannot run ${bun}: ${error.message}\n`);
    process.exit(2);
  });
  child.on("exit", (code, signal) => {
    if (code !== null) process.exit(code);
    // Ended by a signal: end the same way, so a shell or supervisor sees what happened.
    for (const one of SIGNALS) process.off(one, forward);
    process.kill(process.pid, signal ?? "SIGTERM");
  });
} else {
  const { main, processIo } = await import(pathToFileURL(compiled).href);
  process.exitCode = await main(process.argv.slice(2), processIo());
}
