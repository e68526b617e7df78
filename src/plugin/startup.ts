import { readFileSync } from "node:fs";
import type { Config } from "@opencode-ai/plugin";
import { hasCredentials } from "./credentials.ts";
import { unseenInName } from "../options/check.ts";
import type { PluginOptions } from "../options/spec.ts";
import { redactedPackage } from "../grammar/redact.ts";
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
  /**
   * The host names no providers (OpenCode 2's setup() sees no provider config): every named id
   * counts as wired, its hooks registered under that id, and one that is not in lower case says it
   * acts only on a provider configured under exactly that id.
   */
  unlisted?: boolean;
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

function wiringReport({ options, cfg, native, env = process.env, unlisted = false }: Setting): StartupReport {
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
    const name = shownName(id);
    if (fallbackPackage(entry)) notWired.push(`${name} (fallback: ${shownPackage(entry!.npm as string)})`);
    else if (native && servedNatively({ providerID: id, npm: packageOf(entry) })) notWired.push(`${name} (fallback: the native runtime serves it)`);
    else if (!entry && !hasCredentials(id, env)) notWired.push(`${name} (not configured${caseHint(id, configured, env)})`);
    else if (unlisted && id !== id.toLowerCase()) wired.push(`${name} (only a provider whose id is exactly that: ids are case-sensitive, catalog ids lower case)`);
    else wired.push(auto ? `${name} (every model)` : name);
  }
  for (const [id, entry] of Object.entries(configured)) {
    if (providers.includes(id)) continue;
    if (!every && !auto) notWired.push(`${shownName(id)} (off)`);
    else if (fallbackPackage(entry)) notWired.push(`${shownName(id)} (fallback: ${shownPackage(entry.npm as string)})`);
  }
  if (native && (every || auto)) notWired.push("openai, anthropic, opencode* (fallback: OPENCODE_EXPERIMENTAL_NATIVE_LLM serves them natively)");
  const line = `${head}: wired ${wired.join(", ") || "nothing"}; not wired: ${notWired.join(", ") || "none"}`;
  if (wired.length > 0) return { line };
  return { line, warning: `[dsml] nothing in scope can be repaired live: ${notWired.join(", ") || "no provider named"}` };
}

/**
 * Review 57: a `providers` entry is compared with the route's provider id exactly (scope.ts), so
 * `"DeepSeek"` covers no route of the provider configured, or logged in, as `deepseek`. Named when
 * an id differing only in case is configured or has credentials, so "not configured" is not a puzzle.
 */
function caseHint(id: string, configured: Record<string, ProviderEntry>, env: NodeJS.ProcessEnv): string {
  const lower = id.toLowerCase();
  const near = Object.keys(configured).find((key) => key !== id && key.toLowerCase() === lower) ?? (lower !== id && hasCredentials(lower, env) ? lower : undefined);
  return near === undefined ? "" : `; provider ids are case-sensitive: ${shownName(near)} is`;
}

/** The longest name a start-up line shows (a config key or a package may be any length). */
const NAME_SHOWN = 120;

/**
 * A provider id or package as the start-up line shows it: as written when it holds only the
 * characters ids, npm names and URLs are made of (plainNameCode), otherwise quoted
 * with every control, blank or invisible character escaped, so a config key or an entry holding a
 * line break (`"deep\nseek"`) or a bidi mark cannot forge or hide a log line.
 */
function shownName(text: string): string {
  const cut = text.length > NAME_SHOWN ? `${text.slice(0, NAME_SHOWN)}...` : text;
  let plain = true;
  for (let i = 0; i < cut.length && plain; i++) plain = plainNameCode(cut.charCodeAt(i));
  if (plain) return cut;
  let out = "";
  for (const found of cut) {
    const escaped = found === '"' || found === "\\" || unseenInName(found) !== undefined;
    out += escaped ? `\\u{${found.codePointAt(0)!.toString(16).toUpperCase()}}` : found;
  }
  return `"${out}"`;
}

/** A package as shown: a URL's userinfo and query redacted as the proxy redacts them (grammar/redact.ts), then as any name. */
function shownPackage(npm: string): string {
  return shownName(redactedPackage(npm));
}

/**
 * ASCII letters, digits and the punctuation of ids, npm names and URLs (a redacted one ends in
 * `?<redacted>`): none of it a blank, a quote, "," or ";", or a bracket, which shape the line.
 */
function plainNameCode(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || "_.:/@+-*?<>=&%~#".includes(String.fromCharCode(code));
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
