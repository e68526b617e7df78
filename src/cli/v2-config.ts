// OpenCode 2 configuration, as far as `dsml-fix doctor` needs it: `plugins` entries (a string, or
// `{ package, options }`) in the same opencode.json(c) files, and plugin files auto-discovered in
// `.opencode/plugins/` (and `plugin/`). Which host reads what: OpenCode 1.18 reads `plugin`, and
// migrates a file holding any 1.18 key, dropping its `plugins`; OpenCode 2 reads `plugins`
// (anomalyco/opencode packages/core/src/plugin/module.ts @ 07db2b92 loads `<name>/server`, then the root).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_NAME } from "./plugin-check.ts";
import { parseJsonc } from "../options/jsonc.ts";
import { keysTwice, type KeyTwice } from "./keys-twice.ts";
import { isObject } from "../grammar/plain-data.ts";
import { isDir, packageName, type ConfigFile } from "./opencode-config.ts";
import { resolveOptions } from "../plugin/options.ts";
import { keysTwiceProblems } from "./dropped-options.ts";
import { asWritten, asWrittenLine, changedStrings, readWritten, shownValue, writtenAt } from "./as-written.ts";

interface V2Entry {
  /** The package or path ({env:} and {file:} substituted), or the plugin file found in a plugins folder. */
  spec: string;
  /** The spec as doctor prints it, JSON-quoted, and as bare text (as-written.ts: never a substituted value). */
  shown: string;
  shownBare: string;
  source: string;
  /** Problems with its options, as the plugin would log them. */
  optionProblems: string[];
  /** A `plugins` entry is OpenCode 2's only; a file in a plugins folder is loaded by both hosts. */
  host: "OpenCode 2" | "OpenCode 1.18 and 2";
  /** A plugin file only: why the host cannot load it (what it imports does not resolve from it). */
  problems?: string[];
}

export interface V2Findings {
  entries: V2Entry[];
  /** Files that list the plugin under both `plugin` (1.18) and `plugins` (2.x). */
  both: string[];
}

/**
 * `configDirs`: the directories whose `plugins/` folders are auto-discovered (the project's
 * `.opencode`, the global config). `substitute`: the host's `{env:...}` and `{file:...}`
 * substitution of a file's text (opencode-config.ts), so an entry's options are judged as the
 * plugin gets them (`"denyTools": ["{env:DSML_DENY}"]`), as for a 1.18 `plugin` entry.
 */
export function findV2(files: readonly ConfigFile[], configDirs: readonly string[], substitute: (text: string, file: ConfigFile) => string = (text) => text): V2Findings {
  const entries: V2Entry[] = [];
  const both: string[] = [];
  for (const file of files) {
    let parsed: unknown;
    let text: string;
    let raw: string;
    try {
      raw = readFileSync(file.path, "utf8");
      text = substitute(raw, file);
      parsed = parseJsonc(text);
    } catch {
      continue; // loadConfig reports an unreadable file
    }
    if (!isObject(parsed) || !Array.isArray(parsed.plugins)) continue;
    // The entries as the file writes them: what doctor may print of them (as-written.ts).
    const written = writtenAt(text === raw ? parsed : readWritten(raw), "plugins");
    const ours = parsed.plugins.flatMap((entry, index) => ourV2Entry(entry, writtenAt(written, index), file.path, () => keysTwice(text, raw, ["plugins", index, "options"])));
    entries.push(...ours);
    const classic = Array.isArray(parsed.plugin) && parsed.plugin.some((entry) => isOurs(Array.isArray(entry) ? entry[0] : entry));
    if (ours.length > 0 && classic) both.push(file.path);
  }
  for (const dir of new Set(configDirs)) entries.push(...pluginFiles(dir));
  return { entries, both };
}

/**
 * `twice`: the keys written twice in the entry's options, read from the file's text. The JSON(C)
 * reader keeps the last copy, so a `responseFix` holding denyTools before a second `responseFix`
 * never reaches the plugin: named as for a 1.18 `plugin` entry (dropped-options.ts).
 */
function ourV2Entry(entry: unknown, written: unknown, source: string, twice: () => KeyTwice[]): V2Entry[] {
  const spec = typeof entry === "string" ? entry : isObject(entry) && typeof entry.package === "string" ? entry.package : undefined;
  if (!spec || !isOurs(spec)) return [];
  const writtenSpec = typeof entry === "string" ? written : writtenAt(written, "package");
  const shown = shownValue(spec, writtenSpec);
  const options = isObject(entry) ? entry.options : undefined;
  const keysTwice = isObject(options) ? keysTwiceProblems({ source, shown, keysTwice: twice() }) : [];
  // The plugin's own problem lines quote a value whole: each one substitution changed shown as written.
  const changes = options === undefined || asWritten(options, writtenAt(written, "options")) ? [] : changedStrings(options, writtenAt(written, "options"));
  const problems = resolveOptions(options).problems.map((line) => asWrittenLine(line, changes));
  return [{ spec, shown, shownBare: shownValue(spec, writtenSpec, "bare"), source, optionProblems: [...keysTwice, ...problems], host: "OpenCode 2" }];
}

function isOurs(spec: unknown): boolean {
  if (typeof spec !== "string") return false;
  const normal = spec.replaceAll("\\", "/");
  return packageName(spec) === PACKAGE_NAME || normal.endsWith(`/${PACKAGE_NAME}`) || normal.includes(`/${PACKAGE_NAME}/`);
}

/**
 * Plugin files in `<dir>/plugins/` or `plugin/` that import or re-export this package through a
 * real statement (1.18 loads them as classic plugins too); a mention in a comment or a string is
 * none. An import that does not resolve from the file's folder is the entry's problem: the host
 * fails to load that file.
 */
function pluginFiles(dotDir: string): V2Entry[] {
  const found: V2Entry[] = [];
  for (const folder of ["plugins", "plugin"]) {
    const dir = path.join(dotDir, folder);
    if (!isDir(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (![".ts", ".js", ".mjs"].some((extension) => name.endsWith(extension))) continue;
      const file = path.join(dir, name);
      let source: string;
      try {
        source = readFileSync(file, "utf8");
      } catch {
        continue;
      }
      const ours = importedSpecifiers(source).filter((spec) => moduleName(spec) === PACKAGE_NAME || (isPathSpec(spec) && isOurs(spec)));
      if (ours.length === 0) continue;
      const problems = ours
        .filter((spec) => !resolvesFrom(spec, dir))
        .map((spec) => `${file} imports ${JSON.stringify(spec)}, which does not resolve from ${dir}: the host fails to load this file; install the package where it can be imported from (npm i -D ${PACKAGE_NAME} in the project), or list it under "plugin"/"plugins" instead (README, Install)`);
      found.push({ spec: file, shown: JSON.stringify(file), shownBare: file, source: dir, optionProblems: [], host: "OpenCode 1.18 and 2", problems });
    }
  }
  return found;
}

/**
 * The module specifiers a JavaScript or TypeScript file loads through real statements: `import
 * ... from "x"`, `export ... from "x"`, `import "x"`, `import("x")`, `require("x")`; type-only
 * imports and exports (`import type`, `export type`: erased, they load nothing) are left out, and
 * so is any text in a comment, a string or a template. A small lexer, not a parser: a regular
 * expression literal holding a quote may hide the rest of its line, never invent a statement.
 */
export function importedSpecifiers(source: string): string[] {
  type Token = { kind: "word" | "string" | "punct"; value: string };
  const tokens: Token[] = [];
  const n = source.length;
  for (let i = 0; i < n; ) {
    const c = source[i]!;
    if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      i = end < 0 ? n : end;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '"' || c === "'") {
      let value = "";
      let j = i + 1;
      for (; j < n && source[j] !== c && source[j] !== "\n"; j++) {
        if (source[j] === "\\") j++;
        value += source[j] ?? "";
      }
      tokens.push({ kind: "string", value });
      i = j + 1;
    } else if (c === "`") {
      // A template, `${...}` nested in it included (its braces counted): one opaque token.
      let depth = 0;
      let j = i + 1;
      for (; j < n; j++) {
        if (source[j] === "\\") j++;
        else if (depth === 0 && source[j] === "`") break;
        else if (source[j] === "$" && source[j + 1] === "{") (depth++, j++);
        else if (depth > 0 && source[j] === "}") depth--;
      }
      tokens.push({ kind: "punct", value: "`" });
      i = j + 1;
    } else if (isWordChar(c)) {
      let j = i;
      while (j < n && isWordChar(source[j]!)) j++;
      tokens.push({ kind: "word", value: source.slice(i, j) });
      i = j;
    } else {
      if (c.trim() !== "") tokens.push({ kind: "punct", value: c });
      i++;
    }
  }
  const specs: string[] = [];
  const word = (t: Token | undefined, value: string) => t?.kind === "word" && t.value === value;
  const member = (k: number) => tokens[k - 1]?.kind === "punct" && tokens[k - 1]!.value === ".";
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind !== "word" || member(k)) continue;
    const next = tokens[k + 1];
    if ((t.value === "import" || t.value === "export") && word(next, "type") && !word(tokens[k + 2], "from")) {
      // `import type { X } from "x"`, `export type { X } from "x"`, `export type A = B`: skipped up
      // to its specifier, its `;` or the next import/export statement, whichever comes first.
      let m = k + 2;
      const statementStart = (at: number) => (word(tokens[at], "import") || word(tokens[at], "export")) && !member(at);
      while (m < tokens.length && !(word(tokens[m], "from") && tokens[m + 1]?.kind === "string") && !(tokens[m]!.kind === "punct" && tokens[m]!.value === ";") && !statementStart(m)) m++;
      k = statementStart(m) ? m - 1 : m + 1;
      continue;
    }
    if (t.value === "from" && next?.kind === "string") specs.push(next.value);
    else if (t.value === "import" && next?.kind === "string") specs.push(next.value);
    else if ((t.value === "import" || t.value === "require") && next?.kind === "punct" && next.value === "(" && tokens[k + 2]?.kind === "string") specs.push(tokens[k + 2]!.value);
  }
  return specs;
}

/** A specifier that names a file or folder, not a package. */
function isPathSpec(spec: string): boolean {
  return spec.startsWith("file:") || spec.startsWith(".") || path.isAbsolute(spec);
}

/** The package a bare specifier imports from: its first segment, or its first two when scoped (`@scope/name/sub`). */
function moduleName(spec: string): string {
  const segments = spec.split("/");
  return spec.startsWith("@") ? segments.slice(0, 2).join("/") : segments[0]!;
}

function isWordChar(c: string): boolean {
  const code = c.charCodeAt(0);
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || c === "_" || c === "$" || code > 127;
}

/**
 * Whether a specifier resolves from `dir` as Bun and Node look it up: a path (relative, absolute,
 * `file:`) that exists, as written, with a script extension or as a folder; a package name found in
 * node_modules of `dir` or a folder above it, whose `exports` (when it has them) names the subpath.
 */
function resolvesFrom(spec: string, dir: string): boolean {
  if (isPathSpec(spec)) {
    let target: string;
    try {
      target = spec.startsWith("file:") ? fileURLToPath(spec) : path.resolve(dir, spec);
    } catch {
      return false;
    }
    return ["", ".ts", ".js", ".mjs", ".cjs"].some((extension) => existsSync(target + extension));
  }
  const name = moduleName(spec);
  const subpath = spec.slice(name.length);
  for (let d = dir; ; d = path.dirname(d)) {
    const folder = path.join(d, "node_modules", name);
    if (existsSync(path.join(folder, "package.json"))) return exportsSubpath(folder, subpath);
    if (path.dirname(d) === d) return false;
  }
}

/** The package at `folder` offers `subpath` ("" for its root, "/server"): named in its `exports`, or a file there when it has none. */
function exportsSubpath(folder: string, subpath: string): boolean {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
  } catch {
    return false;
  }
  const exports = isObject(manifest) ? manifest.exports : undefined;
  if (exports === undefined) return subpath === "" || ["", ".ts", ".js", ".mjs", ".cjs"].some((extension) => existsSync(path.join(folder, subpath + extension)));
  if (typeof exports === "string" || Array.isArray(exports)) return subpath === "";
  if (!isObject(exports)) return false;
  const keys = Object.keys(exports);
  // Conditions only (`{ "import": ..., "default": ... }`): the package's root alone.
  if (!keys.some((key) => key.startsWith("."))) return subpath === "";
  return keys.includes(`.${subpath}`) || keys.some((key) => key.endsWith("*") && `.${subpath}`.startsWith(key.slice(0, -1)));
}
