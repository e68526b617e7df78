#!/usr/bin/env node
// The `dsml-fix` command. An installed package runs the compiled CLI in dist/ with plain Node. In a
// checkout (src/ is never packed, so its presence means one) it runs the TypeScript source with the
// Bun that ships as a devDependency, so a stale dist/ is never used; the compiled CLI is the
// fallback when no Bun is found.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const compiled = join(root, "dist", "cli", "main.js");
const source = join(root, "src", "cli", "main.ts");
const localBun = join(root, "node_modules", ".bin", "bun");

if (existsSync(source) && (existsSync(localBun) || !existsSync(compiled))) {
  const bun = existsSync(localBun) ? localBun : "bun";
  const result = spawnSync(bun, [source, ...process.argv.slice(2)], { stdio: "inherit" });
  if (result.error) {
    process.stderr.write(`dsml-fix: cannot run ${bun}: ${result.error.message}\n`);
    process.exitCode = 2;
  } else {
    process.exitCode = result.status ?? 2;
  }
} else {
  const { main, processIo } = await import(pathToFileURL(compiled).href);
  process.exitCode = await main(process.argv.slice(2), processIo());
}
