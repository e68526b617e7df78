/**
 * The runtime dependency tree an install of this package brings in, read from package-lock.json
 * (the versions `npm ci` pins), in `npm ls` style. docs/INSTALL.md shows it; the
 * packaging test checks that docs/INSTALL.md and a real install of the packed tarball agree with it.
 * Run: npx bun scripts/runtime-deps.ts [--no-versions]
 */
import { readFileSync } from "node:fs";

export interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

export interface Lockfile {
  name?: string;
  version?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

export const repoRoot = new URL("..", import.meta.url);

export function readLock(): Lockfile {
  return JSON.parse(readFileSync(new URL("package-lock.json", repoRoot), "utf8")) as Lockfile;
}

export function readManifest(): { name: string; version: string; dependencies?: Record<string, string>; [key: string]: unknown } {
  return JSON.parse(readFileSync(new URL("package.json", repoRoot), "utf8"));
}

/** Lock path of the package `name` as Node finds it from the package at lock path `from` ("" = the root). */
export function resolveInLock(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut < 0 ? "" : base.slice(0, cut);
  }
}

function edges(entry: LockEntry): { name: string; required: boolean }[] {
  return [
    ...Object.keys(entry.dependencies ?? {}).map((name) => ({ name, required: true })),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name) => ({ name, required: false })),
    ...Object.keys(entry.peerDependencies ?? {}).map((name) => ({
      name,
      required: entry.peerDependenciesMeta?.[name]?.optional !== true,
    })),
  ];
}

/** Every lock path that `roots` (required from the root) need at run time: dependencies, locked optional ones, required peers. */
export function runtimeClosure(lock: Lockfile, roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (from: string, name: string, required: boolean) => {
    const at = resolveInLock(lock.packages, from, name);
    if (!at) {
      if (required) throw new Error(`${name} (needed by ${from || "the root"}) is not in package-lock.json`);
      return;
    }
    if (seen.has(at)) return;
    seen.add(at);
    for (const edge of edges(lock.packages[at]!)) visit(at, edge.name, edge.required);
  };
  for (const name of roots) visit("", name, true);
  return [...seen].sort();
}

/** `name@version` of each runtime dependency of this package (not the package itself), sorted. */
export function runtimePackages(lock = readLock(), manifest = readManifest()): string[] {
  return runtimeClosure(lock, Object.keys(manifest.dependencies ?? {}))
    .map((at) => `${at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length)}@${lock.packages[at]!.version}`)
    .sort();
}

/**
 * The tree, `npm ls` style: each package expanded once, later mentions marked "deduped". docs/INSTALL.md
 * shows it without versions, which a fresh install resolves from the ranges, not from this lock.
 */
export function renderRuntimeTree(lock = readLock(), manifest = readManifest(), { versions = true } = {}): string {
  const lines = [manifest.name];
  const expanded = new Set<string>();
  const walk = (from: string, names: string[], prefix: string) => {
    names.forEach((name, index) => {
      const at = resolveInLock(lock.packages, from, name);
      if (!at) return;
      const last = index === names.length - 1;
      const entry = lock.packages[at]!;
      const children = Object.keys(entry.dependencies ?? {}).sort();
      const seen = expanded.has(at);
      lines.push(`${prefix}${last ? "└── " : "├── "}${name}${versions ? `@${entry.version}` : ""}${seen ? " deduped" : ""}`);
      if (seen) return;
      expanded.add(at);
      walk(at, children, `${prefix}${last ? "    " : "│   "}`);
    });
  };
  walk("", Object.keys(manifest.dependencies ?? {}).sort(), "");
  return lines.join("\n");
}

if (import.meta.main) {
  const packages = runtimePackages();
  console.log(renderRuntimeTree(readLock(), readManifest(), { versions: !process.argv.includes("--no-versions") }));
  console.log(`\n${packages.length} runtime packages`);
}
