// OpenCode 2 configuration, as far as `dsml-fix doctor` needs it: `plugins` entries (a string, or
// `{ package, options }`) in the same opencode.json(c) files, and plugin files auto-discovered in
// `.opencode/plugins/` (and `plugin/`). Which host reads what: OpenCode 1.18 reads `plugin`, and
// migrates a file holding any 1.18 key, dropping its `plugins`; OpenCode 2 reads `plugins`
// (anomalyco/opencode packages/core/src/plugin/module.ts @ 07db2b92 loads `<name>/server`, then the root).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_NAME } from "./plugin-check.ts";
import { parseJsonc } from "../options/jsonc.ts";
import { isObject } from "../grammar/plain-data.ts";
import { isDir, packageName, type ConfigFile } from "./opencode-config.ts";
import { resolveOptions } from "../plugin/options.ts";

export interface V2Entry {
  /** The package or path as written, or the plugin file found in a plugins folder. */
  spec: string;
  source: string;
  /** Problems with its options, as the plugin would log them. */
  optionProblems: string[];
  /** A `plugins` entry is OpenCode 2's only; a file in a plugins folder is loaded by both hosts. */
  host: "OpenCode 2" | "OpenCode 1.18 and 2";
}

export interface V2Findings {
  entries: V2Entry[];
  /** Files that list the plugin under both `plugin` (1.18) and `plugins` (2.x). */
  both: string[];
}

/** `configDirs`: the directories whose `plugins/` folders are auto-discovered (the project's `.opencode`, the global config). */
export function findV2(files: readonly ConfigFile[], configDirs: readonly string[]): V2Findings {
  const entries: V2Entry[] = [];
  const both: string[] = [];
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = parseJsonc(readFileSync(file.path, "utf8"));
    } catch {
      continue; // loadConfig reports an unreadable file
    }
    if (!isObject(parsed) || !Array.isArray(parsed.plugins)) continue;
    const ours = parsed.plugins.flatMap((entry) => ourV2Entry(entry, file.path));
    entries.push(...ours);
    const classic = Array.isArray(parsed.plugin) && parsed.plugin.some((entry) => isOurs(Array.isArray(entry) ? entry[0] : entry));
    if (ours.length > 0 && classic) both.push(file.path);
  }
  for (const dir of new Set(configDirs)) entries.push(...pluginFiles(dir));
  return { entries, both };
}

function ourV2Entry(entry: unknown, source: string): V2Entry[] {
  const spec = typeof entry === "string" ? entry : isObject(entry) && typeof entry.package === "string" ? entry.package : undefined;
  if (!spec || !isOurs(spec)) return [];
  const options = isObject(entry) ? entry.options : undefined;
  return [{ spec, source, optionProblems: resolveOptions(options).problems, host: "OpenCode 2" }];
}

function isOurs(spec: unknown): boolean {
  if (typeof spec !== "string") return false;
  const normal = spec.replaceAll("\\", "/");
  return packageName(spec) === PACKAGE_NAME || normal.endsWith(`/${PACKAGE_NAME}`) || normal.includes(`/${PACKAGE_NAME}/`);
}

/** Plugin files in `<dir>/plugins/` or `plugin/` that import this package (1.18 loads them as classic plugins too). */
function pluginFiles(dotDir: string): V2Entry[] {
  const found: V2Entry[] = [];
  for (const folder of ["plugins", "plugin"]) {
    const dir = path.join(dotDir, folder);
    if (!isDir(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (![".ts", ".js", ".mjs"].some((extension) => name.endsWith(extension))) continue;
      const file = path.join(dir, name);
      try {
        if (readFileSync(file, "utf8").includes(PACKAGE_NAME)) found.push({ spec: file, source: dir, optionProblems: [], host: "OpenCode 1.18 and 2" });
      } catch {}
    }
  }
  return found;
}
