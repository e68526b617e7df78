// Before OpenCode 1.18.33 loads any plugin it installs its own package, @opencode-ai/plugin, into
// every config directory it reads, and waits for that install. Read from its binary (Npm.install):
// a directory it cannot write is skipped; one without node_modules/ is installed into; otherwise
// it installs when package-lock.json's root entry lacks a dependency that package.json (or the
// added @opencode-ai/plugin) names. Offline that install stalls the first start for minutes with
// nothing on screen, so doctor names each directory that would trigger it and prints the fix.
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { isObject } from "../grammar/plain-data.ts";
import { configDirs, isDir, upwardDirs, worktree } from "./opencode-config.ts";

/** The package OpenCode adds to each config directory, and the version 1.18.33 asks for. */
export const HOST_PACKAGE = "@opencode-ai/plugin";
const HOST_VERSION = "1.18.33";

export interface UnseededDir {
  dir: string;
  /** Why OpenCode would install there, in words. */
  reason: string;
  /** The package-lock.json that makes OpenCode skip the install (names only are compared). */
  lock: { lockfileVersion: 3; packages: { "": { dependencies: Record<string, string> } } };
}

/**
 * The directories OpenCode installs into for a session in `dir` (ConfigPaths.directories): its
 * global config directory (created on start when missing), every `.opencode/` from `dir` up to the
 * worktree root, `~/.opencode/`, and OPENCODE_CONFIG_DIR.
 */
export function installDirs(dir: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = configDirs(env);
  const found = [dirs.config];
  if (!env.OPENCODE_DISABLE_PROJECT_CONFIG) for (const d of upwardDirs(dir, worktree(dir))) found.push(path.join(d, ".opencode"));
  found.push(path.join(dirs.home, ".opencode"));
  if (env.OPENCODE_CONFIG_DIR) found.push(path.resolve(dir, env.OPENCODE_CONFIG_DIR));
  const global = dirs.config;
  return [...new Set(found)].filter((d) => d === global || isDir(d));
}

/** Each directory whose first start would run the install, with the lock file that skips it. */
export function unseededDirs(dirs: readonly string[]): UnseededDir[] {
  const out: UnseededDir[] = [];
  for (const dir of dirs) {
    if (existsSync(dir) && !writable(dir)) continue;
    const wanted = { ...dependencies(readJson(path.join(dir, "package.json"))), [HOST_PACKAGE]: HOST_VERSION };
    const lock = { lockfileVersion: 3 as const, packages: { "": { dependencies: wanted } } };
    if (!isDir(path.join(dir, "node_modules"))) {
      out.push({ dir, reason: existsSync(dir) ? "no node_modules/" : "not created yet", lock });
      continue;
    }
    const root = readJson(path.join(dir, "package-lock.json"));
    const locked = isObject(root) && isObject(root.packages) ? dependencies(root.packages[""]) : {};
    const missing = Object.keys(wanted).filter((name) => !(name in locked));
    if (missing.length > 0) out.push({ dir, reason: `package-lock.json does not list ${missing.join(", ")}`, lock });
  }
  return out;
}

/** The shell lines that seed one directory: node_modules/, and a package.json only where none exists. */
export function seedCommand(entry: UnseededDir): string {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const lines = [`mkdir -p ${quote(path.join(entry.dir, "node_modules"))}`];
  if (!existsSync(path.join(entry.dir, "package.json"))) {
    lines.push(`printf '%s\\n' ${quote(JSON.stringify({ dependencies: { [HOST_PACKAGE]: HOST_VERSION } }))} > ${quote(path.join(entry.dir, "package.json"))}`);
  }
  lines.push(`printf '%s\\n' ${quote(JSON.stringify(entry.lock))} > ${quote(path.join(entry.dir, "package-lock.json"))}`);
  return lines.join("\n");
}

function dependencies(manifest: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(manifest)) return out;
  for (const kind of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
    const deps = manifest[kind];
    if (isObject(deps)) for (const [name, range] of Object.entries(deps)) out[name] = typeof range === "string" ? range : "*";
  }
  return out;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as unknown;
  } catch {
    return undefined;
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
