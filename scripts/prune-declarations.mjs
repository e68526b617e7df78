// After `tsc -p tsconfig.build.json`: keeps only the .d.ts files a consumer's TypeScript can reach
// from the package's "types" entries (package.json `types` and every `exports[*].types`), and
// deletes the rest. tsc writes a declaration for each of the ~235 modules, but only the public
// entries and the option and result types they name are ever read: the other ~200 files were
// 460 KB of the unpacked package that no compiler opens. A reached file that is missing stops the
// build: a consumer would see `any` where a type should be (skipLibCheck hides that error).
// Run by `npm run build`: node scripts/prune-declarations.mjs
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = path.join(root, "dist");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

const entries = [manifest.types, ...Object.values(manifest.exports).map((e) => (typeof e === "object" && e ? e.types : undefined))]
  .filter((t) => typeof t === "string")
  .map((t) => path.join(root, t));

/** Relative module specifiers of a declaration file: `from "./x.ts"`, `import("./x.ts")`, `import "./x.ts"`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

function declarationOf(from, specifier) {
  const target = path.resolve(path.dirname(from), specifier);
  const stem = target.replace(/\.(?:d\.ts|ts|js|mts|mjs)$/, "");
  return `${stem}.d.ts`;
}

const reached = new Set();
const pending = [...entries];
while (pending.length > 0) {
  const file = pending.pop();
  if (reached.has(file)) continue;
  if (!existsSync(file)) throw new Error(`prune-declarations: ${path.relative(root, file)} is reached but was not built`);
  reached.add(file);
  for (const match of readFileSync(file, "utf8").matchAll(SPECIFIER)) pending.push(declarationOf(file, match[1]));
}

let removed = 0;
for (const name of readdirSync(dist, { recursive: true })) {
  const file = path.join(dist, String(name));
  if (file.endsWith(".d.ts") && !reached.has(file)) {
    rmSync(file);
    removed += 1;
  }
}
console.log(`prune-declarations: kept ${reached.size} declaration files, removed ${removed}`);
