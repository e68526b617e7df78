// The OpenCode configuration that applies in a directory, found and merged the way OpenCode 1.18.33
// does it (read from its Config.loadInstanceState; checked against `opencode debug config` in
// test/cli/doctor.test.ts). Later files win for settings; `plugin` lists are concatenated, and a
// plugin named twice keeps only its last entry (the ones it replaced are kept aside, for doctor to
// say whose options are dropped).
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isObject, isPollutingKey } from "../grammar/plain-data.ts";
import { parseJsonc } from "../options/jsonc.ts";
import { keysTwice, type KeyTwice } from "./keys-twice.ts";
import { ConfigError, withEnv, withFiles } from "./config-vars.ts";
import { asWritten, changedStrings, readWritten, shownValue, UNREAD, writtenAt, type Change } from "./as-written.ts";

export interface ConfigFile {
  path: string;
  /** Why OpenCode reads it. */
  kind: "global" | "OPENCODE_CONFIG" | "project" | ".opencode" | "OPENCODE_CONFIG_DIR" | "OPENCODE_CONFIG_CONTENT";
  /** Its root `$schema`, when it has one (editors resolve a relative one from the file's folder). */
  schema?: string;
  /** Its `$schema` as doctor prints it (as-written.ts), JSON-quoted and bare, when substitution changed it. */
  schemaWritten?: { json: string; bare: string };
}

/** One `plugin` entry after OpenCode's resolution: a relative path is taken from the file's own directory. */
export interface PluginEntry {
  /** As OpenCode reads it ({env:} and {file:} substituted). */
  spec: string;
  /** The spec as doctor prints it, JSON-quoted, and as bare text (as-written.ts shownValue: never a substituted value). */
  shown: string;
  shownBare: string;
  /** Whether substitution left the spec as written: only then is what it names (its folder, its path) printed. */
  asWritten: boolean;
  /** Its options as the file writes them (as-written.ts UNREAD where none stands). */
  writtenOptions: unknown;
  /** Strings substitution changed in its options: how the option problems show them. */
  changes: Change[];
  options: unknown;
  /** The file that lists it. */
  source: string;
  /** A file: URL for a path spec; the spec itself for a package. */
  resolved: string;
  /** The file system path a path spec names (null for a package). */
  target: string | null;
  kind: "path" | "package";
  /** Keys written twice in its options: OpenCode keeps the last copy of each, and the plugin never sees the first. */
  keysTwice: KeyTwice[];
}

interface LoadedConfig {
  files: ConfigFile[];
  config: Record<string, unknown>;
  /**
   * The same settings as the files write them, merged the same way, for as-written.ts to tell a
   * value substitution changed (UNREAD where a file parses only substituted).
   */
  written: Record<string, unknown>;
  plugins: PluginEntry[];
  /** `plugin` values OpenCode 1.18 refuses (it then does not start at all), each with its problem line. */
  refused: { value: unknown; problem: string }[];
  /** Entries a later entry of the same plugin replaced whole (`by`, the one OpenCode keeps): their options are not used. */
  replaced: { entry: PluginEntry; by: PluginEntry }[];
}

export { ConfigError } from "./config-vars.ts";

export function configDirs(env: NodeJS.ProcessEnv): { config: string; cache: string; home: string } {
  const home = env.HOME || homedir();
  return {
    home,
    config: path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "opencode"),
    cache: path.join(env.XDG_CACHE_HOME || path.join(home, ".cache"), "opencode"),
  };
}

/** The files OpenCode reads for a session in `dir`, in the order it merges them. */
function configFiles(dir: string, env: NodeJS.ProcessEnv): ConfigFile[] {
  const dirs = configDirs(env);
  const files: ConfigFile[] = [];
  const add = (file: string, kind: ConfigFile["kind"]) => {
    if (isFile(file)) files.push({ path: file, kind });
  };
  for (const name of ["config.json", "opencode.json", "opencode.jsonc"]) add(path.join(dirs.config, name), "global");
  if (env.OPENCODE_CONFIG) add(path.resolve(dir, env.OPENCODE_CONFIG), "OPENCODE_CONFIG");
  const top = worktree(dir);
  const projectConfig = !env.OPENCODE_DISABLE_PROJECT_CONFIG;
  if (projectConfig) {
    // Found walking up from dir to the worktree, merged outermost first; in one directory .jsonc wins.
    for (const d of upwardDirs(dir, top).reverse()) for (const name of ["opencode.json", "opencode.jsonc"]) add(path.join(d, name), "project");
  }
  // .opencode directories nearest first (so an outer one wins), then ~/.opencode, then OPENCODE_CONFIG_DIR.
  const dotDirs = [...(projectConfig ? upwardDirs(dir, top) : []), ...(isDir(path.join(dirs.home, ".opencode")) ? [dirs.home] : [])]
    .map((d) => path.join(d, ".opencode"))
    .filter(isDir);
  const seen = new Set<string>();
  for (const d of dotDirs) {
    if (seen.has(d)) continue;
    seen.add(d);
    for (const name of ["opencode.json", "opencode.jsonc"]) add(path.join(d, name), ".opencode");
  }
  // Relative, it is read from DIR, as OPENCODE_CONFIG is (and first-start.ts installDirs), never
  // from the doctor's own working directory.
  const configDir = env.OPENCODE_CONFIG_DIR ? path.resolve(dir, env.OPENCODE_CONFIG_DIR) : null;
  if (configDir !== null && !seen.has(configDir)) {
    for (const name of ["opencode.json", "opencode.jsonc"]) add(path.join(configDir, name), "OPENCODE_CONFIG_DIR");
  }
  return files;
}

export function loadConfig(dir: string, env: NodeJS.ProcessEnv): LoadedConfig {
  const files = configFiles(dir, env);
  let config: Record<string, unknown> = {};
  let written: Record<string, unknown> = {};
  let plugins: PluginEntry[] = [];
  const listed: PluginEntry[] = [];
  const refused: LoadedConfig["refused"] = [];
  const merge = (text: string, source: string, base: string, file?: ConfigFile) => {
    let parsed: unknown;
    const substituted = withFiles(withEnv(text, env), source, base, configDirs(env).home, text);
    try {
      parsed = parseJsonc(substituted);
    } catch (error) {
      throw new ConfigError(`${source} is not valid JSON(C): ${(error as Error).message}`);
    }
    if (!isObject(parsed)) throw new ConfigError(`${source} does not hold a JSON object`);
    // The file as written, beside it: what doctor may print (as-written.ts). The same text when nothing was substituted.
    const asFile = substituted === text ? parsed : readWritten(text);
    if (file && typeof parsed.$schema === "string") {
      file.schema = parsed.$schema;
      const schema = writtenAt(asFile, "$schema");
      if (!asWritten(parsed.$schema, schema)) file.schemaWritten = { json: shownValue(parsed.$schema, schema), bare: shownValue(parsed.$schema, schema, "bare") };
    }
    const { plugin, ...rest } = parsed;
    config = deepMerge(config, rest);
    written = deepMerge(written, isObject(asFile) ? withoutPlugin(asFile) : Object.fromEntries(Object.keys(rest).map((key) => [key, UNREAD])));
    const writtenPlugin = writtenAt(asFile, "plugin");
    refused.push(...refusedPlugin(plugin, writtenPlugin, source));
    if (Array.isArray(plugin)) {
      const entries = plugin.flatMap((entry, index) => pluginEntry(entry, writtenAt(writtenPlugin, index), source, base, () => keysTwice(substituted, text, ["plugin", index, 1])));
      listed.push(...entries);
      plugins = dedupe([...plugins, ...entries]);
    }
  };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file.path, "utf8");
    } catch (error) {
      throw new ConfigError(`cannot read ${file.path}: ${(error as Error).message}`);
    }
    merge(text, file.path, path.dirname(file.path), file);
  }
  if (env.OPENCODE_CONFIG_CONTENT) {
    files.push({ path: "OPENCODE_CONFIG_CONTENT", kind: "OPENCODE_CONFIG_CONTENT" });
    merge(env.OPENCODE_CONFIG_CONTENT, "OPENCODE_CONFIG_CONTENT", dir);
  }
  const replaced = listed.flatMap((entry) => {
    const by = plugins.includes(entry) ? undefined : plugins.find((kept) => dedupeKey(kept) === dedupeKey(entry));
    return by === undefined ? [] : [{ entry, by }];
  });
  return { files, config, written, plugins, refused, replaced };
}

function withoutPlugin(parsed: Record<string, unknown>): Record<string, unknown> {
  const { plugin: _plugin, ...rest } = parsed;
  return rest;
}

/**
 * OpenCode 1.18 validates `plugin` before it starts: a list whose entries are "name" or
 * ["name", { options }] (checked with `opencode debug config`). Any other value makes it refuse the
 * whole file and not start; the `{ package, options }` object is OpenCode 2's `plugins` form.
 */
function refusedPlugin(plugin: unknown, written: unknown, source: string): LoadedConfig["refused"] {
  const rule = '"plugin" must be a list of strings or ["name", { options }] pairs';
  const head = `${source}: OpenCode 1.18 refuses this file and does not start:`;
  if (plugin === undefined) return [];
  if (!Array.isArray(plugin)) {
    const hint = typeof plugin === "string" ? `; write [${shown(plugin, written)}]` : "";
    return [{ value: plugin, problem: `${head} ${rule}, not ${shown(plugin, written)}${hint}` }];
  }
  return plugin.flatMap((entry, index) => {
    if (typeof entry === "string") return [];
    if (Array.isArray(entry) && entry.length === 2 && typeof entry[0] === "string" && isObject(entry[1])) return [];
    const v2 = isObject(entry) ? '; { package, options } is OpenCode 2\'s form, and belongs under "plugins"' : "";
    return [{ value: entry, problem: `${head} ${rule}; entry ${index + 1} is ${shown(entry, writtenAt(written, index))}${v2}` }];
  });
}

/**
 * Enough of a value to find it in the file: a string or a scalar as JSON (cut short), a list or an
 * object by its shape only, with its first string or its package. A value inside may come from a
 * `{file:}` (a key): each is printed by as-written.ts's rule, as the file writes it, never
 * substituted; an object's keys only those the file writes.
 */
function shown(value: unknown, written: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} item(s)${typeof value[0] === "string" ? ` starting ${shown(value[0], writtenAt(written, 0))}` : ""}`;
  if (isObject(value)) {
    const keys = Object.keys(value);
    const named = keys.filter((key) => writtenAt(written, key) !== UNREAD).slice(0, 5);
    const others = keys.length - named.length;
    const list = [...named.map((key) => JSON.stringify(key)), ...(others > 0 && named.length < 5 ? [`${others} substituted`] : [])].join(", ");
    return `an object with key(s) ${list}${typeof value.package === "string" ? ` (package ${shown(value.package, writtenAt(written, "package"))})` : ""}`;
  }
  const json = shownValue(value, written);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

/** `twice`: the keys written twice in the entry's options, read from the file's text (only for an entry with options). */
function pluginEntry(entry: unknown, written: unknown, source: string, base: string, twice: () => KeyTwice[]): PluginEntry[] {
  const [spec, options] = Array.isArray(entry) ? [entry[0], entry[1]] : [entry, undefined];
  if (typeof spec !== "string" || spec === "") return [];
  const [writtenSpec, writtenOptions] = Array.isArray(entry) ? [writtenAt(written, 0), writtenAt(written, 1)] : [written, undefined];
  const asFile = { shown: shownValue(spec, writtenSpec), shownBare: shownValue(spec, writtenSpec, "bare"), asWritten: asWritten(spec, writtenSpec), writtenOptions, changes: options === undefined ? [] : changedStrings(options, writtenOptions) };
  const keysTwice = isObject(options) ? twice() : [];
  const isPath = spec.startsWith("file://") || spec.startsWith(".") || path.isAbsolute(spec) || isDrivePath(spec);
  if (!isPath) return [{ spec, ...asFile, options, source, resolved: spec, target: null, kind: "package", keysTwice }];
  const resolved = spec.startsWith("file://") ? spec : pathToFileURL(path.resolve(base, spec)).href;
  return [{ spec, ...asFile, options, source, resolved, target: entryPath(resolved, asFile.shown, source), kind: "path", keysTwice }];
}

/**
 * The path a plugin entry's file: URL names. One that names no local path (another host, an
 * encoded "/", a malformed escape, a NUL) is a configuration error: exit 2 with the entry named
 * (`shown`, as doctor prints a spec), never an exception.
 */
function entryPath(url: string, shown: string, source: string): string {
  let target: string;
  try {
    target = fileURLToPath(url);
  } catch (error) {
    throw new ConfigError(`${source}: the plugin entry ${shown} names no local file: ${(error as Error).message}`);
  }
  if (target.includes("\0")) throw new ConfigError(`${source}: the plugin entry ${shown} names no local file: a path cannot hold a NUL character`);
  return target;
}

/** OpenCode keeps the last entry of each plugin: a package by its name, a path by its URL. */
function dedupe(entries: PluginEntry[]): PluginEntry[] {
  const seen = new Set<string>();
  const kept: PluginEntry[] = [];
  for (const entry of [...entries].reverse()) {
    const key = dedupeKey(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(entry);
  }
  return kept.reverse();
}

/** What makes two entries one plugin to OpenCode: a package by its name, a path by its URL. */
function dedupeKey(entry: PluginEntry): string {
  return entry.kind === "path" ? entry.resolved : packageName(entry.spec);
}

/** `name`, `name@version`, `@scope/name@version` -> the package name. */
export function packageName(spec: string): string {
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  return at < 0 ? spec : spec.slice(0, at);
}

/** The git worktree root above dir, or the filesystem root when there is none (OpenCode walks that far). */
export function worktree(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, ".git"))) return d;
    if (path.dirname(d) === d) return d;
  }
}

/** dir, its parent, ... up to and including stop. */
export function upwardDirs(dir: string, stop: string): string[] {
  const out: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    out.push(d);
    if (d === stop || path.dirname(d) === d) return out;
  }
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (isPollutingKey(key)) continue;
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `C:\\...` or `C:/...`: a Windows path, which OpenCode also takes as a file spec. */
function isDrivePath(spec: string): boolean {
  const letter = spec.charCodeAt(0) | 0x20;
  return letter >= 0x61 && letter <= 0x7a && spec[1] === ":" && (spec[2] === "\\" || spec[2] === "/");
}
