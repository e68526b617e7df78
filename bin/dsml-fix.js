#!/usr/bin/env node
// Runs the compiled CLI when the package is built; in a checkout, runs the TypeScript source with the Bun that ships as a devDependency.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const compiled = join(root, "dist", "cli", "main.js");
if (existsSync(compiled)) {
  const { main } = await import(pathToFileURL(compiled).href);
  const code = await main(process.argv.slice(2), {
    readStdin: async () => {
      const chunks = [];
      for await (const chunk of process.stdin) chunks.push(chunk);
      return Buffer.concat(chunks).toString("utf8");
    },
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  process.exitCode = code;
} else {
  const bun = join(root, "node_modules", ".bin", "bun");
  const result = spawnSync(existsSync(bun) ? bun : "bun", [join(root, "src", "cli", "main.ts"), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exitCode = result.status ?? 2;
}
