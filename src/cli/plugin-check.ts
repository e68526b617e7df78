// Whether OpenCode can load the plugin from an entry: the folder exists and is this package, its
// server entry exists, and the packages it needs at run time resolve from it. OpenCode 1.18.33 says
// nothing when any of this fails, so this is the check a user cannot otherwise make.
import { existsSync as exists, readFileSync } from "node:fs";
import path from "node:path";
import { isDir, packageName, type PluginEntry } from "./opencode-config.ts";

export const PACKAGE_NAME = "opencode-plugin-dsml-fix";

export interface PluginCheck {
  entry: PluginEntry;
  /** The package folder OpenCode would import from. */
  folder: string | null;
  loadable: boolean;
  problems: string[];
}

/** Entries that name this plugin: by package name, or a path whose folder (or the path's wording) is ours. */
export function ourEntries(plugins: PluginEntry[]): PluginEntry[] {
  return plugins.filter((entry) => {
    if (entry.kind === "package") return packageName(entry.spec) === PACKAGE_NAME;
    const folder = entry.target === null ? null : packageFolder(entry.target);
    if (folder) return manifest(folder)?.name === PACKAGE_NAME;
    return entry.spec.includes("dsml-fix");
  });
}

/**
 * A path the entry's spec names, as a problem may print it: itself when the spec is as the file
 * writes it; else only as "the path <spec as written> names" (as-written.ts: a path made from a
 * substituted spec would print what the substitution wrote).
 */
export function namedPath(entry: Pick<PluginEntry, "asWritten" | "shown">, target: string): string {
  return entry.asWritten ? target : `the path ${entry.shown} names`;
}

export function checkEntry(entry: PluginEntry, cacheDir: string): PluginCheck {
  const problems: string[] = [];
  const named = (target: string) => namedPath(entry, target);
  let folder: string | null;
  if (entry.kind === "package") {
    // What `opencode plugin NAME` (or the first start) leaves in OpenCode's cache.
    const version = entry.spec.slice(packageName(entry.spec).length + 1) || "latest";
    if (!npmVersionOrTag(version)) {
      const written = entry.asWritten ? `${JSON.stringify(version)} in ${entry.shown}` : `the version in ${entry.shown}`;
      problems.push(
        `not installed: ${written} is neither an npm version nor a dist-tag, so OpenCode's package cache was not looked at; write the package name alone, or NAME@1.2.3 or NAME@latest`,
      );
      return { entry, folder: null, loadable: false, problems };
    }
    folder = path.join(cacheDir, "packages", `${PACKAGE_NAME}@${version}`, "node_modules", PACKAGE_NAME);
    if (!isDir(folder)) {
      problems.push(
        `not in OpenCode's package cache (${named(folder)}); OpenCode installs it from npm at start-up, and the package is not on npm yet: install from a packed checkout (README, Install)`,
      );
      return { entry, folder, loadable: false, problems };
    }
  } else {
    const target = entry.target ?? entry.spec;
    folder = packageFolder(target);
    if (folder === null) {
      const relative = !entry.spec.startsWith("file://") && !path.isAbsolute(entry.spec);
      const inDotOpencode = path.basename(path.dirname(entry.source)) === ".opencode";
      const hint = relative && inDotOpencode && entry.asWritten
        ? `; a relative path in ${path.join(".opencode", path.basename(entry.source))} is resolved from .opencode/, not from the project: write ${JSON.stringify(suggestedSpec(entry))} or an absolute path`
        : relative ? `; a relative path is resolved from the directory of ${entry.source}` : "";
      problems.push(target.endsWith(".tgz") || target.endsWith(".tar.gz")
        ? `${named(target)} is a tarball, which OpenCode cannot load: install it with npm i -D and name the installed folder`
        : `${named(target)} does not exist${hint}`);
      return { entry, folder: null, loadable: false, problems };
    }
  }
  const pkg = manifest(folder);
  if (pkg?.name !== PACKAGE_NAME) problems.push(`${named(folder)} holds ${pkg?.name ? `the package ${JSON.stringify(pkg.name)}` : "no package.json"}, not ${PACKAGE_NAME}`);
  const serverEntry = serverEntryOf(pkg);
  if (pkg?.name === PACKAGE_NAME && !(serverEntry && exists(path.join(folder, serverEntry)))) {
    problems.push(`${named(folder)} lacks its server entry ${serverEntry ?? "(exports[\"./server\"])"}; the folder is incomplete: reinstall it`);
  }
  for (const dependency of Object.keys(pkg?.dependencies ?? {})) {
    if (!resolvesFrom(folder, dependency)) {
      problems.push(`${dependency} does not resolve from ${named(folder)} (the folder was copied without its dependencies: install the tarball with npm, README Install)`);
    }
  }
  return { entry, folder, loadable: problems.length === 0, problems };
}

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM = `0123456789${LETTERS}`;
/** What a dist-tag starts and is written with (latest, next, canary-2, beta.1). */
const TAG_START = new Set(LETTERS);
const TAG_CHARS = new Set(`${ALNUM}._-`);
/** What a version or a range of them is written with (1.2.3-beta.1+build.5, ^1.2, >=1 <2, 1.x || 2). */
const VERSION_CHARS = new Set(`${ALNUM}.+-^~<>=*| `);
const VERSION_START = new Set("0123456789^~<>=vxX*");

/**
 * What may follow NAME@ in a spec doctor joins into a cache path: the shape of an npm version, a
 * range of them or a dist-tag, so never a path separator, a drive, a `..` or a leading dot
 * (`NAME@../../../etc` is none of them). A hand-written check: no regular expression to audit.
 */
export function npmVersionOrTag(version: string): boolean {
  if (version.length === 0 || version.length > 128 || version.includes("..")) return false;
  const chars = [...version];
  const first = chars[0]!;
  if (TAG_START.has(first) && chars.every((c) => TAG_CHARS.has(c))) return true;
  return VERSION_START.has(first) && chars.every((c) => VERSION_CHARS.has(c));
}

/** A relative spec that would work from .opencode/: the same target taken from the project directory. */
function suggestedSpec(entry: PluginEntry): string {
  const project = path.dirname(path.dirname(entry.source));
  const intended = path.resolve(project, entry.spec);
  return path.relative(path.dirname(entry.source), intended);
}

interface Manifest {
  name?: string;
  main?: string;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
}

function manifest(folder: string): Manifest | null {
  try {
    return JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8")) as Manifest;
  } catch {
    return null;
  }
}

/** A directory spec is the package itself; a file spec belongs to the nearest package above it. */
function packageFolder(target: string): string | null {
  if (isDir(target)) return target;
  if (!exists(target)) return null;
  for (let d = path.dirname(target); ; d = path.dirname(d)) {
    if (exists(path.join(d, "package.json"))) return d;
    if (path.dirname(d) === d) return null;
  }
}

/** OpenCode imports exports["./server"] (its import or default), else main. */
function serverEntryOf(pkg: Manifest | null): string | null {
  const server = pkg?.exports?.["./server"];
  if (typeof server === "string") return server;
  if (server && typeof server === "object") {
    for (const key of ["import", "default"]) {
      const value = (server as Record<string, unknown>)[key];
      if (typeof value === "string") return value;
    }
  }
  return typeof pkg?.main === "string" ? pkg.main : null;
}

/** Node's (and Bun's) lookup of a bare package: node_modules/NAME in the folder or any folder above it. */
function resolvesFrom(folder: string, name: string): boolean {
  for (let d = folder; ; d = path.dirname(d)) {
    if (exists(path.join(d, "node_modules", name, "package.json"))) return true;
    if (path.dirname(d) === d) return false;
  }
}
