// The proxy's own settings: flags (node:util parseArgs), then DSML_FIX_* environment, then a
// JSON/JSONC file. The repair options are the plugin's own namespaces, resolved by its resolver.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { closedBecause } from "../options/security-search.ts";
import { closedResponseFix } from "../options/settle.ts";
import type { PluginOptions } from "../options/spec.ts";
import { LOG_PREFIX } from "../plugin/log-prefix.ts";
import { resolveOptions } from "../plugin/options.ts";

export interface Route {
  /** Path prefix the client uses ("" for the default upstream); removed before forwarding. */
  prefix: string;
  upstream: URL;
}

export interface ProxyConfig {
  host: string;
  port: number;
  routes: Route[];
  healthPath: string;
  /** Largest request body accepted, in bytes (413 above). */
  maxBodyBytes: number;
  /** Milliseconds to wait for the upstream's status line and headers (504 after). */
  headersTimeoutMs: number;
  /** Milliseconds open streams may take to finish after SIGINT/SIGTERM. */
  shutdownMs: number;
  debug: boolean;
  options: PluginOptions;
  problems: string[];
}

export class ProxyUsageError extends Error {}

export const PROXY_USAGE = `usage: dsml-fix proxy --upstream URL [--port N] [--host 127.0.0.1] [--route /prefix=URL ...]
                      [--config file.json] [--health-path /healthz] [--max-body BYTES]
                      [--upstream-timeout MS] [--debug]
  environment: DSML_FIX_UPSTREAM, DSML_FIX_PORT, DSML_FIX_HOST, DSML_FIX_CONFIG, DSML_FIX_DEBUG=1
  config file: { "upstream", "port", "host", "routes": { "/prefix": "URL" }, "options": { parse, history, responseFix, retry } }
  flags beat the environment, which beats the config file; a --route replaces the file's route for its prefix`;

interface FileConfig {
  upstream?: string;
  port?: number;
  host?: string;
  routes?: Record<string, string>;
  healthPath?: string;
  maxBodyBytes?: number;
  upstreamTimeoutMs?: number;
  debug?: boolean;
  options?: unknown;
}

export function proxyConfig(argv: readonly string[], env: NodeJS.ProcessEnv = {}): ProxyConfig {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        upstream: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        route: { type: "string", multiple: true },
        config: { type: "string" },
        "health-path": { type: "string" },
        "max-body": { type: "string" },
        "upstream-timeout": { type: "string" },
        debug: { type: "boolean" },
      },
    }));
  } catch (error) {
    throw new ProxyUsageError((error as Error).message);
  }
  const configPath = values.config ?? env.DSML_FIX_CONFIG;
  const file = configPath ? readConfigFile(configPath) : {};
  const upstream = values.upstream ?? env.DSML_FIX_UPSTREAM ?? file.upstream;
  // One route per prefix. Flags come first, as for every other setting: a --route replaces the
  // file's route for the same prefix (routeFor takes the first match, so a second route for one
  // prefix would never be used, whichever it was). The same prefix given twice as a flag is a
  // mistake only its author can settle.
  const byPrefix = new Map<string, Route>();
  if (upstream) byPrefix.set("", { prefix: "", upstream: upstreamUrl(upstream) });
  for (const [prefix, url] of Object.entries(file.routes ?? {})) byPrefix.set(prefix, route(prefix, url));
  const flagged = new Set<string>();
  for (const given of values.route ?? []) {
    const at = given.indexOf("=");
    if (at < 0) throw new ProxyUsageError(`--route wants /prefix=URL (got ${JSON.stringify(given)})`);
    const one = route(given.slice(0, at), given.slice(at + 1));
    if (flagged.has(one.prefix)) throw new ProxyUsageError(`--route ${JSON.stringify(one.prefix)} is given twice; give each prefix once`);
    flagged.add(one.prefix);
    byPrefix.set(one.prefix, one);
  }
  const routes = [...byPrefix.values()];
  if (routes.length === 0) throw new ProxyUsageError("no upstream: give --upstream URL, --route /prefix=URL or DSML_FIX_UPSTREAM");
  // Longest prefix first, so /deepseek/beta wins over /deepseek and both over the default.
  routes.sort((a, b) => b.prefix.length - a.prefix.length);
  const { options, problems } = resolveOptions(file.options);
  if (fileKeysClose(file, problems)) options.responseFix = { ...options.responseFix, ...closedResponseFix() };
  return {
    host: values.host ?? env.DSML_FIX_HOST ?? file.host ?? "127.0.0.1",
    port: integer(values.port ?? env.DSML_FIX_PORT ?? file.port ?? 8787, "port", 0, 65535),
    routes,
    healthPath: values["health-path"] ?? file.healthPath ?? "/healthz",
    maxBodyBytes: integer(values["max-body"] ?? file.maxBodyBytes ?? 64 * 1024 * 1024, "max-body", 1, Number.MAX_SAFE_INTEGER),
    headersTimeoutMs: integer(values["upstream-timeout"] ?? file.upstreamTimeoutMs ?? 300_000, "upstream-timeout", 1, 86_400_000),
    shutdownMs: 10_000,
    debug: values.debug ?? (env.DSML_FIX_DEBUG === "1" || file.debug === true || options.debug === true),
    options,
    problems,
  };
}

/** The config file's own keys (FileConfig); `$schema` is an editor's, and harmless. */
const FILE_KEYS: ReadonlySet<string> = new Set(["upstream", "port", "host", "routes", "healthPath", "maxBodyBytes", "upstreamTimeoutMs", "debug", "options", "$schema"]);

/**
 * One problem line per unknown key of the config file. By the plugin's rule (closedBecause), a key
 * close to a security option or to responseFix, or holding one inside (`"option": { "responseFix":
 * { "denyTools": [...] } }`, or responseFix written beside `options` instead of in it), closes
 * recovered calls: the operator believes something is denied. True when one did.
 */
function fileKeysClose(file: FileConfig, problems: string[]): boolean {
  let closed = false;
  for (const key of Object.keys(file)) {
    if (FILE_KEYS.has(key)) continue;
    const why = closedBecause(file, key, "");
    if (why !== undefined) closed = true;
    const hint = 'repair options go under "options"';
    problems.push(`${LOG_PREFIX} unknown config file key ${JSON.stringify(key)}; ignored${why === undefined ? "" : `, and no tool call is recovered until it is fixed (${why}; ${hint})`}`);
  }
  return closed;
}

function route(prefix: string, url: string): Route {
  const wellFormed = prefix.length > 1 && prefix.startsWith("/") && !prefix.endsWith("/") && !prefix.includes("?") && !prefix.includes("#");
  if (!wellFormed) throw new ProxyUsageError(`route prefix must start with / and not end with / (got ${JSON.stringify(prefix)})`);
  return { prefix, upstream: upstreamUrl(url) };
}

function upstreamUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ProxyUsageError(`upstream is not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ProxyUsageError(`upstream must be http or https (got ${url.protocol})`);
  if (url.username || url.password) throw new ProxyUsageError("upstream URL must not carry credentials; the client's own headers are forwarded");
  return url;
}

function integer(value: string | number, name: string, min: number, max: number): number {
  const digits = typeof value === "string" && value.length > 0 && [...value].every((c) => c >= "0" && c <= "9");
  const n = typeof value === "number" ? value : digits ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new ProxyUsageError(`--${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`);
  return n;
}

function readConfigFile(file: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ProxyUsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(stripJsonComments(text)) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    return parsed as FileConfig;
  } catch (error) {
    throw new ProxyUsageError(`${file} is not a JSON/JSONC object: ${(error as Error).message}`);
  }
}

/** JSONC: drops // and /* *\/ comments and trailing commas outside strings, in one pass. */
export function stripJsonComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      out += text.slice(start, i + 1);
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === "," && closesNext(text, i + 1)) {
      continue; // a trailing comma
    } else out += c;
  }
  return out;
}

/** The next character after blanks closes an object or array (blanks are at most 64, or it stays an error). */
function closesNext(text: string, from: number): boolean {
  for (let i = from; i < text.length && i < from + 64; i++) {
    const c = text[i]!;
    if (c === "}" || c === "]") return true;
    if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") return false;
  }
  return false;
}
