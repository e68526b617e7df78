import { readFileSync } from "node:fs";
import type { Config } from "@opencode-ai/plugin";
import { hasCredentials } from "./credentials.ts";
import type { PluginOptions } from "../options/spec.ts";
import { AUTO_SCOPE, EVERY_PROVIDER, WIRE_PACKAGES, servedNatively } from "./scope.ts";

interface StartupReport {
  /** Always logged at info level, so "the plugin is active" is never a guess. */
  line: string;
  /** Logged at warn level when nothing in scope can be repaired live. */
  warning?: string;
}

interface Setting {
  options: Pick<PluginOptions, "providers" | "responseFix">;
  cfg: Config | undefined;
  native: boolean;
  env?: NodeJS.ProcessEnv;
  /** How many option problems were logged, and whether they closed recovered calls. */
  problems?: number;
  failedClosed?: boolean;
}

type ProviderEntry = { npm?: unknown };

/**
 * `[dsml] loaded v<version>: wired <...>; not wired: <...>`. What a route really gets is decided
 * per request (the model's family, the package serving it); this line says what the options and
 * the configured providers allow, with the mode of every provider it can name.
 */
export function startupReport(setting: Setting): StartupReport {
  const report = wiringReport(setting);
  const { problems = 0, failedClosed = false } = setting;
  if (problems === 0) return report;
  const closed = failedClosed ? "; no tool call is recovered until they are fixed" : "";
  return { ...report, line: `${report.line}; ${problems} option problem(s), logged above${closed} (dsml-fix doctor lists them)` };
}

function wiringReport({ options, cfg, native, env = process.env }: Setting): StartupReport {
  const head = `[dsml] loaded v${packageVersion()}`;
  const providers = options.providers;
  if (providers.length === 0) return { line: `${head}: disabled (providers is [])` };
  if (!options.responseFix.enabled) {
    // Nothing reads a reply with the repair off (no wire rewrite, no text fallback), so no reply is
    // ever found to need a correction: only the history cleaning is left.
    return { line: `${head}: wired nothing (responseFix.enabled is false); history still cleaned; no correction or wake (replies are not read)` };
  }
  const configured = (cfg as { provider?: Record<string, ProviderEntry> } | undefined)?.provider ?? {};
  const every = providers.includes(EVERY_PROVIDER);
  const auto = providers.includes(AUTO_SCOPE);
  const wired = every ? ["every provider (every model)"] : auto ? ["every provider (leak-prone models)"] : [];
  const notWired: string[] = [];
  for (const id of every ? [] : providers.filter((p) => p !== AUTO_SCOPE)) {
    const entry = Object.hasOwn(configured, id) ? configured[id] : undefined;
    if (fallbackPackage(entry)) notWired.push(`${id} (fallback: ${String(entry!.npm)})`);
    else if (native && servedNatively({ providerID: id, npm: packageOf(entry) })) notWired.push(`${id} (fallback: the native runtime serves it)`);
    else if (!entry && !hasCredentials(id, env)) notWired.push(`${id} (not configured)`);
    else wired.push(auto ? `${id} (every model)` : id);
  }
  for (const [id, entry] of Object.entries(configured)) {
    if (providers.includes(id)) continue;
    if (!every && !auto) notWired.push(`${id} (off)`);
    else if (fallbackPackage(entry)) notWired.push(`${id} (fallback: ${String(entry.npm)})`);
  }
  if (native && (every || auto)) notWired.push("openai, anthropic, opencode* (fallback: OPENCODE_EXPERIMENTAL_NATIVE_LLM serves them natively)");
  const line = `${head}: wired ${wired.join(", ") || "nothing"}; not wired: ${notWired.join(", ") || "none"}`;
  if (wired.length > 0) return { line };
  return { line, warning: `[dsml] nothing in scope can be repaired live: ${notWired.join(", ") || "no provider named"}` };
}

function packageOf(entry: ProviderEntry | undefined): string | undefined {
  return typeof entry?.npm === "string" ? entry.npm : undefined;
}

/** A provider entry that names its package names one the plugin cannot rewrite. */
function fallbackPackage(entry: ProviderEntry | undefined): boolean {
  return typeof entry?.npm === "string" && !WIRE_PACKAGES.has(entry.npm);
}

let version: string | undefined;

/** Read once from the package's own package.json (two levels up from src/plugin and dist/plugin). */
export function packageVersion(): string {
  if (version !== undefined) return version;
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    version = typeof pkg.version === "string" ? pkg.version : "?";
  } catch {
    version = "?";
  }
  return version;
}
