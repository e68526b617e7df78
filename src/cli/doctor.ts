// `dsml-fix doctor [DIR]`: what the plugin would do in DIR, judged with the plugin's own code
// (option validation, scope and start-up line), from the OpenCode configuration that applies there.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "@opencode-ai/plugin";
import { nativeRuntime } from "../plugin/index.ts";
import type { PluginOptions } from "../options/spec.ts";
import { resolveOptions } from "../plugin/options.ts";
import { AUTO_SCOPE, EVERY_PROVIDER, isLeakProne, routeMode, servedNatively, type Route, type RouteMode } from "../plugin/scope.ts";
import { startupReport } from "../plugin/startup.ts";
import { isObject } from "../grammar/plain-data.ts";
import { configDirs, loadConfig, type ConfigFile } from "./opencode-config.ts";
import { HOST_PACKAGE, installDirs, seedCommand, unseededDirs, type UnseededDir } from "./first-start.ts";
import { checkEntry, namedPath, ourEntries, PACKAGE_NAME, type PluginCheck } from "./plugin-check.ts";
import { keysTwiceProblems, replacedProblems } from "./dropped-options.ts";
import { schemaProblem } from "./schema-ref.ts";
import { findV2, type V2Findings } from "./v2-config.ts";
import { withEnv, withFiles } from "./config-vars.ts";
import { asWritten, asWrittenLine, changedStrings, shownValue, UNREAD, writtenAt, type Change } from "./as-written.ts";

interface RouteReport {
  /** The provider and model ids, each as doctor may print it (as-written.ts: a route named by a substituted value is named as written). */
  provider: string;
  model: string;
  /** `provider/model`, or the name as the config writes it when substitution made it. */
  label: string;
  /** Where the config names it: "model", "small_model", "agent build", "provider". */
  usedAs: string[];
  package: string | null;
  mode: RouteMode;
  why: string;
  fix?: string;
}

interface DoctorReport {
  dir: string;
  files: ConfigFile[];
  plugin: { listed: boolean; entries: { spec: string; source: string; folder: string | null; loadable: boolean; problems: string[]; optionProblems: string[] }[] };
  /** The options' providers; the shipped default when the plugin is not listed. */
  providers: string[];
  routes: RouteReport[];
  startup: { line: string; warning?: string };
  problems: string[];
  /** OpenCode 2 entries (`plugins`, plugin folders): which host each config is for; each spec as doctor prints it. */
  v2: { entries: Omit<V2Findings["entries"][number], "shown" | "shownBare">[]; both: string[] };
  /**
   * Config dirs whose first start runs OpenCode's own install of @opencode-ai/plugin before any
   * plugin loads (offline: a stall of minutes). Only when a plugin is listed; a note, not a problem:
   * online the install just runs once.
   */
  firstStart: { waits: boolean; unseeded: UnseededDir[] };
  /** Set when no OpenCode config (1.18 or 2) lists the plugin: the way to repair other agents' leaks. */
  proxyHint?: string;
}

/** For anyone who ran doctor without OpenCode: the same repair exists for every other agent. */
const PROXY_HINT = "not using OpenCode? `dsml-fix proxy --upstream URL` puts the same repair in front of Claude Code, Codex, Cline/Roo/Kilo or any OpenAI-compatible client (docs/PROXY.md)";

/**
 * A plugin file in a plugins folder (one that loads) is loaded by both hosts, as a classic plugin by
 * 1.18: next to a `plugin` entry (1.18), a `plugins` entry (2) or another such file, the plugin runs
 * twice (every hook, every repair, every correction). One problem naming each load (`classicSpecs`
 * as doctor prints them, JSON-quoted), or null.
 */
function loadedTwice(classicSpecs: readonly string[], v2: V2Findings): string | null {
  const files = v2.entries.filter((e) => e.host === "OpenCode 1.18 and 2" && (e.problems ?? []).length === 0).map((e) => `the plugin file ${e.shownBare}`);
  if (files.length === 0) return null;
  const classic = [...classicSpecs.map((shown) => `"plugin" entry ${shown}`), ...files];
  const next = [...v2.entries.filter((e) => e.host === "OpenCode 2").map((e) => `"plugins" entry ${e.shown} in ${e.source}`), ...files];
  const hosts = [
    ...(classic.length > 1 ? [`OpenCode 1.18 loads it ${classic.length} times (${classic.join(", ")})`] : []),
    ...(next.length > 1 ? [`OpenCode 2 loads it ${next.length} times (${next.join(", ")})`] : []),
  ];
  return hosts.length === 0 ? null : `the plugin is loaded more than once: ${hosts.join("; ")}; a file in a plugins folder is loaded by both hosts: keep one (docs/INSTALL.md)`;
}

export function doctor(dir: string, env: NodeJS.ProcessEnv): DoctorReport {
  const { files, config, written, plugins, refused, replaced } = loadConfig(dir, env);
  const dirs = configDirs(env);
  const checks: (PluginCheck & { optionProblems: string[]; pluginProblems: number; options: PluginOptions; failedClosed: boolean })[] = ourEntries(plugins).map((entry) => {
    const { options, problems, failedClosed = false } = resolveOptions(entry.options);
    // A key written twice is an option problem of this entry too, though the plugin (which gets
    // the last copy) cannot see it: its start-up line counts only its own. The plugin's lines
    // quote a value whole: one substitution changed is shown as written (as-written.ts).
    const shown = problems.map((line) => asWrittenLine(line, entry.changes));
    return { ...checkEntry(entry, dirs.cache), optionProblems: [...keysTwiceProblems(entry), ...shown], pluginProblems: problems.length, options, failedClosed };
  });
  const problems: string[] = [];
  const v2 = findV2(files, [path.join(dir, ".opencode"), dirs.config], (text, file) => withFiles(withEnv(text, env), file.path, path.dirname(file.path), dirs.home, text));
  for (const file of v2.both) problems.push(`${file} lists the plugin under both "plugin" (OpenCode 1.18) and "plugins" (OpenCode 2): keep one; 1.18 drops "plugins" from a file it migrates, and OpenCode 2 loads a package listed twice twice`);
  for (const entry of v2.entries) for (const problem of entry.optionProblems) problems.push(problem);
  for (const { problem } of refused) problems.push(problem);
  // Listed in a form OpenCode refuses: that problem is the one to fix, not "add it to plugin".
  const refusedOurs = refused.some(({ value }) => (JSON.stringify(value) ?? "").includes(PACKAGE_NAME));
  const unlisted = checks.length === 0 && !refusedOurs;
  if (unlisted && v2.entries.some((e) => e.host === "OpenCode 2")) problems.push(`the plugin is listed for OpenCode 2 only ("plugins"); OpenCode 1.18 repairs nothing from that entry: for 1.18, add "opencode-plugin-dsml-fix" to "plugin" (README, Install)`);
  else if (unlisted && v2.entries.length === 0) problems.push(`the plugin is not listed in any config file OpenCode reads for ${dir}: add "opencode-plugin-dsml-fix" (or the installed folder's path) to "plugin" (README, Install)`);
  if (checks.length > 1) problems.push(`the plugin is listed ${checks.length} times (${checks.map((c) => c.entry.shownBare).join(", ")}): OpenCode loads each one; keep one`);
  for (const entry of v2.entries) for (const problem of entry.problems ?? []) problems.push(problem);
  const twice = loadedTwice(checks.map((c) => c.entry.shown), v2);
  if (twice) problems.push(twice);
  for (const check of checks) {
    for (const problem of check.problems) problems.push(`${check.entry.shownBare}: ${problem}`);
    for (const problem of check.optionProblems) problems.push(problem);
  }
  // Options OpenCode drops before the plugin sees them: an entry a later one of the same plugin replaced.
  problems.push(...replacedProblems(replaced));
  const active = checks.find((c) => c.loadable) ?? checks.at(-1);
  // A folder named by a substituted spec is not printed, nor a path made from it.
  const activeFolder = active?.entry.asWritten ? active.folder : null;
  for (const file of files) {
    const problem = schemaProblem(file.path, file.schema, activeFolder, checks.length > 0 || v2.entries.length > 0, file.schemaWritten?.json);
    if (problem) problems.push(problem);
  }
  // Not listed yet: what it would do once listed with the shipped defaults.
  const options = active?.options ?? resolveOptions(undefined).options;
  const changes = active?.entry.changes ?? [];
  // The providers option as the file writes it: how its ids are printed.
  const rawProviders = active && isObject(active.entry.options) ? active.entry.options.providers : undefined;
  const providerChanges = changedStrings(rawProviders, writtenAt(active?.entry.writtenOptions, "providers"));
  const native = nativeRuntime(env);
  const routes = collectRoutes(config, written, dirs.cache).map((route) => judge(route, options, native, providerChanges));
  for (const route of routes) {
    if (route.mode === "off" && route.fix) problems.push(`${route.label}: a leak-prone model the plugin leaves alone (${route.why}); ${route.fix}`);
  }
  const wiring = startupReport({ options, cfg: config as Config, native, env, problems: active?.pluginProblems ?? 0, failedClosed: active?.failedClosed ?? false });
  // Its ids and packages come from the options and the providers the config writes: each one substitution changed shown as written.
  const startupChanges = [...changes, ...changedStrings(config.provider, writtenAt(written, "provider"))];
  const startup = { line: asWrittenLine(wiring.line, startupChanges, true), ...(wiring.warning ? { warning: asWrittenLine(wiring.warning, startupChanges, true) } : {}) };
  if (active && options.providers.length === 0) problems.push("providers is []: the plugin is disabled");
  else if (active && startup.warning) problems.push(startup.warning.slice(startup.warning.startsWith("[dsml] ") ? "[dsml] ".length : 0));
  return {
    dir,
    files: files.map(({ schemaWritten, ...file }) => (schemaWritten ? { ...file, schema: schemaWritten.bare } : file)),
    plugin: {
      listed: checks.length > 0,
      entries: checks.map((c) => ({ spec: c.entry.shownBare, source: c.entry.source, folder: c.folder === null ? null : namedPath(c.entry, c.folder), loadable: c.loadable, problems: c.problems, optionProblems: c.optionProblems })),
    },
    providers: shownNames(options.providers, providerChanges),
    routes,
    startup,
    problems,
    v2: { ...v2, entries: v2.entries.map(({ spec: _spec, shown: _shown, shownBare, ...entry }) => ({ spec: shownBare, ...entry })) },
    firstStart: plugins.length > 0 ? { waits: true, unseeded: unseededDirs(installDirs(dir, env)) } : { waits: false, unseeded: [] },
    // Only for someone who does not use OpenCode: any OpenCode plugin entry (1.18 or 2, refused or not) says they do.
    ...(unlisted && v2.entries.length === 0 && refused.length === 0 ? { proxyHint: PROXY_HINT } : {}),
  };
}

/** How a route is printed: its name as the config writes it (as-written.ts), and its package. */
interface RouteShown {
  /** Whether the config writes its provider/model name itself (no substitution made it). */
  asWritten: boolean;
  label: string;
  npm: string | null;
}

type Found = Route & { usedAs: string[]; shown: RouteShown };

/**
 * Every model the config names (model, small_model, agents) or defines (provider.*.models), with
 * how each is printed: `written` is the config as its files write it. A name or a package that an
 * {env:} or {file:} substitution made is printed as written (or by its shape), never substituted.
 */
function collectRoutes(config: Record<string, unknown>, written: Record<string, unknown>, cacheDir: string): Found[] {
  const providers = isObject(config.provider) ? config.provider : {};
  const catalog = readCatalog(cacheDir);
  const found = new Map<string, Found>();
  const add = (providerID: string, modelID: string, usedAs: string, name: { asWritten: boolean; label: string }) => {
    const key = `${providerID}/${modelID}`;
    const existing = found.get(key);
    if (existing) {
      if (!existing.usedAs.includes(usedAs)) existing.usedAs.push(usedAs);
      // Written plainly anywhere, the name is the file's own text.
      if (name.asWritten && !existing.shown.asWritten) existing.shown = { ...existing.shown, ...name };
      return;
    }
    const provider = isObject(providers[providerID]) ? providers[providerID] : {};
    const models = isObject(provider.models) ? provider.models : {};
    const model = isObject(models[modelID]) ? models[modelID] : {};
    const listed = catalog?.[providerID]?.models?.[modelID];
    const modelProvider = isObject(model.provider) ? model.provider : {};
    const writtenProvider = writtenAt(writtenAt(written, "provider"), providerID);
    const writtenModel = writtenAt(writtenAt(writtenProvider, "models"), modelID);
    // Each package the config may name, beside the same place as written; the catalog's is no config value.
    const packages: [unknown, unknown][] = [[modelProvider.npm, writtenAt(writtenAt(writtenModel, "provider"), "npm")], [provider.npm, writtenAt(writtenProvider, "npm")], [catalog?.[providerID]?.npm, catalog?.[providerID]?.npm]];
    const chosen = packages.find((pair): pair is [string, unknown] => typeof pair[0] === "string");
    const npm = chosen?.[0];
    const apiID = typeof model.id === "string" ? model.id : undefined;
    const family = [model.family, listed?.family].find((v): v is string => typeof v === "string");
    found.set(key, { providerID, modelID, apiID, family, npm, usedAs: [usedAs], shown: { ...name, npm: chosen ? shownValue(chosen[0], chosen[1], "bare") : null } });
  };
  const named = (ref: unknown, writtenRef: unknown, usedAs: string) => {
    if (typeof ref !== "string") return;
    const slash = ref.indexOf("/");
    const plain = asWritten(ref, writtenRef);
    if (slash > 0) add(ref.slice(0, slash), ref.slice(slash + 1), usedAs, { asWritten: plain, label: plain ? ref : shownValue(ref, writtenRef, "bare") });
  };
  named(config.model, writtenAt(written, "model"), "model");
  named(config.small_model, writtenAt(written, "small_model"), "small_model");
  if (isObject(config.agent)) for (const [name, agent] of Object.entries(config.agent)) if (isObject(agent)) named(agent.model, writtenAt(writtenAt(writtenAt(written, "agent"), name), "model"), `agent ${name}`);
  for (const [providerID, provider] of Object.entries(providers)) {
    if (!isObject(provider) || !isObject(provider.models)) continue;
    const writtenModels = writtenAt(writtenAt(writtenAt(written, "provider"), providerID), "models");
    for (const modelID of Object.keys(provider.models)) {
      // Keys too: a provider or model key a substitution wrote is no name the file writes.
      const plain = writtenAt(writtenModels, modelID) !== UNREAD;
      add(providerID, modelID, "provider", { asWritten: plain, label: plain ? `${providerID}/${modelID}` : shownValue(`${providerID}/${modelID}`, UNREAD, "bare") });
    }
  }
  return [...found.values()];
}

type Catalog = Record<string, { npm?: string; models?: Record<string, { family?: string }> }>;

/** OpenCode's cached model catalog (models.dev), when it has fetched one: the package and family of catalog models. */
function readCatalog(cacheDir: string): Catalog | null {
  try {
    const parsed = JSON.parse(readFileSync(path.join(cacheDir, "models.json"), "utf8")) as unknown;
    return isObject(parsed) ? (parsed as Catalog) : null;
  } catch {
    return null;
  }
}

/** `changes`: the strings substitution changed in the plugin's options (its providers are printed by them). */
function judge(found: Found, options: PluginOptions, native: boolean, changes: readonly Change[]): RouteReport {
  const { usedAs, shown, ...route } = found;
  const mode = routeMode(options, route, native);
  const names = shown.asWritten ? { provider: route.providerID, model: route.modelID ?? "?" } : { provider: `the provider ${shown.label} names`, model: `the model ${shown.label} names` };
  const base = { ...names, label: shown.label, usedAs, package: shown.npm, mode };
  // The provider id as a sentence may name it: itself, or by the name the config writes.
  const provider = shown.asWritten ? `provider ${JSON.stringify(route.providerID)}` : `the provider of ${shown.label}`;
  const scope = scopeReason(shownNames(options.providers, changes), options.providers, route, provider);
  if (mode === "wire") return { ...base, why: `${scope}; its package is one the repairing fetch rewrites${route.npm ? "" : " (none named in the config: chat-completions assumed, as the plugin does)"}` };
  if (mode === "fallback") {
    const why = native && servedNatively(route) ? "OPENCODE_EXPERIMENTAL_NATIVE_LLM serves it natively" : `its package ${shown.npm} is not one the fetch can rewrite`;
    return { ...base, why: `${scope}; ${why}: leaked markup is removed from the finished text and the model asked to call the tool properly` };
  }
  const leakProne = isLeakProne(route);
  const add = shown.asWritten ? `add ${JSON.stringify(route.providerID)}` : `add the provider id of ${shown.label}`;
  const fix = `${add} to providers (provider ids are the part before "/" in the model name, not model families)${options.providers.includes(AUTO_SCOPE) ? "" : ', or include "auto" (the default: leak-prone models on every provider)'}`;
  return leakProne ? { ...base, why: `${scope}, and the model is of a leak-prone family`, fix } : { ...base, why: `${scope}; not a leak-prone model family (if it leaks tool calls: ${fix})` };
}

/** Provider ids as doctor prints them: one that substitution changed in the options as written (as-written.ts). */
function shownNames(names: readonly string[], changes: readonly Change[]): string[] {
  return names.map((name) => changes.find((change) => change.value === name || change.value.trim() === name)?.bare ?? name);
}

/**
 * Why scope.ts decided as it did, in words (the decision itself is routeMode's). `shownProviders`
 * and `provider`: the option and the route's provider as doctor prints them.
 */
function scopeReason(shownProviders: readonly string[], providers: readonly string[], route: Route, provider: string): string {
  const id = route.providerID;
  if (providers.length === 0) return "providers is [] (the plugin is disabled)";
  if (providers.includes(EVERY_PROVIDER)) return 'providers has "*"';
  if (providers.includes(id)) return `${provider} is in providers`;
  const listed = `${provider} is not in providers ${JSON.stringify(shownProviders)}`;
  if (providers.includes(AUTO_SCOPE)) return isLeakProne(route) ? `"auto" covers it: a leak-prone model family` : `${listed}, and "auto" covers leak-prone model families only`;
  return listed;
}

/** Lines of text output (written through terminal.ts, which makes every character visible). */
export function describeDoctor(report: DoctorReport): string[] {
  const lines = [`dsml-fix doctor ${report.dir}`, "OpenCode config files, in the order OpenCode 1.18.33 merges them (later wins):"];
  if (report.files.length === 0) lines.push("  none");
  for (const file of report.files) lines.push(`  ${file.kind.padEnd(8)} ${file.path}`);
  if (!report.plugin.listed) lines.push("plugin: not listed");
  for (const entry of report.plugin.entries) {
    lines.push(`plugin: ${JSON.stringify(entry.spec)} in ${entry.source}`);
    lines.push(`  ${entry.folder ?? "(no folder)"}: ${entry.loadable ? "loadable" : "NOT loadable"}`);
    for (const problem of entry.problems) lines.push(`    ${problem}`);
    lines.push(entry.optionProblems.length === 0 ? "  options: valid" : "  options:");
    for (const problem of entry.optionProblems) lines.push(`    ${problem}`);
  }
  for (const entry of report.v2.entries) lines.push(`plugin (${entry.host}): ${JSON.stringify(entry.spec)} in ${entry.source}`);
  lines.push(`providers: ${JSON.stringify(report.providers)}${report.plugin.listed ? "" : " (the default, once the plugin is listed)"}`);
  if (report.routes.length > 0) lines.push("models:");
  for (const route of report.routes) {
    lines.push(`  ${route.label} (${route.usedAs.join(", ")}; package ${route.package ?? "not named"}): ${route.mode}`);
    lines.push(`    why: ${route.why}`);
    if (route.fix) lines.push(`    fix: ${route.fix}`);
  }
  lines.push(`start-up line the plugin ${report.plugin.listed ? "will log" : "would log once listed"}:`, `  ${report.startup.line}`);
  if (report.startup.warning) lines.push(`  ${report.startup.warning}`);
  lines.push(...describeFirstStart(report.firstStart));
  if (report.problems.length === 0) lines.push("no problems found");
  else lines.push(`${report.problems.length} problem(s):`, ...report.problems.map((p) => `  - ${p}`));
  if (report.proxyHint) lines.push(report.proxyHint);
  return lines;
}

function describeFirstStart({ waits, unseeded }: DoctorReport["firstStart"]): string[] {
  if (!waits) return [];
  if (unseeded.length === 0) return [`first start: no wait (every config dir OpenCode reads already holds its ${HOST_PACKAGE} install)`];
  return [
    `first start: OpenCode installs ${HOST_PACKAGE} into these config dirs and waits for it before loading plugins; online that runs once, offline it stalls the start for minutes with nothing on screen:`,
    ...unseeded.map((entry) => `  ${entry.dir}: ${entry.reason}`),
    `  offline fix (OpenCode then skips the install; a local tool in that dir that imports ${HOST_PACKAGE} would lack it):`,
    ...unseeded.flatMap((entry) => seedCommand(entry).split("\n").map((line) => `    ${line}`)),
  ];
}
