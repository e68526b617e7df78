// The proxy's own settings: flags (node:util parseArgs), then DSML_FIX_* environment, then a
// JSON/JSONC file (the package's JSONC reader, src/options/jsonc.ts). The repair options are the
// plugin's own namespaces, resolved by its resolver.
import { readFileSync } from "node:fs";
import { parseJsonc } from "../options/jsonc.ts";
import { readArgs } from "./arg-words.ts";
import { redactedPath, redactedUrl } from "../grammar/redact.ts";
import { closedBecause, isPlainObject } from "../options/security-search.ts";
import { closedResponseFix } from "../options/settle.ts";
import type { PluginOptions } from "../options/spec.ts";
import { LOG_PREFIX } from "../plugin/log-prefix.ts";
import { resolveOptions } from "../plugin/options.ts";
import { isAsciiDigit } from "../grammar/chars.ts";

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
                      [--upstream-timeout MS] [--debug] [--json]
  environment: DSML_FIX_UPSTREAM, DSML_FIX_PORT, DSML_FIX_HOST, DSML_FIX_CONFIG, DSML_FIX_DEBUG=1
  config file: { "upstream", "port", "host", "routes": { "/prefix": "URL" }, "options": { parse, history, responseFix, retry } }
  flags beat the environment, which beats the config file; a --route replaces the file's route for its prefix;
  an empty flag is refused, an empty environment variable counts as unset;
  --json: an error that stops the proxy is one {"error": ...} object on stderr (its log lines stay text)`;

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
  const { values } = readArgs(
    argv,
    {
      upstream: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      route: { type: "string", multiple: true },
      config: { type: "string" },
      "health-path": { type: "string" },
      "max-body": { type: "string" },
      "upstream-timeout": { type: "string" },
      debug: { type: "boolean" },
      // `--json` works for every command (dsml-fix --help): here it makes a usage error one {"error"} object (run.ts).
      json: { type: "boolean", short: "j" },
    },
    false,
    (message) => new ProxyUsageError(message),
    // An empty flag (`--host "$HOST"` with HOST unset): left as given, `--host ""` would bind every
    // interface and `--config ""` would drop the file.
    (name) => `--${name} is empty; give it a value or leave it out`,
  );
  // An empty environment variable (`DSML_FIX_HOST=`, a compose file's `${HOST}` with HOST unset)
  // counts as unset, as a shell's `${VAR:-default}` reads it: the default, never "".
  const fromEnv = (name: string): string | undefined => (env[name] === "" ? undefined : env[name]);
  const configPath = values.config ?? fromEnv("DSML_FIX_CONFIG");
  const file = configPath !== undefined ? readConfigFile(configPath) : {};
  const upstream = values.upstream ?? fromEnv("DSML_FIX_UPSTREAM") ?? file.upstream;
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
    if (at < 0) throw new ProxyUsageError(`--route wants /prefix=URL (got ${JSON.stringify(redactedUrl(given))})`);
    const one = route(given.slice(0, at), given.slice(at + 1));
    if (flagged.has(one.prefix)) throw new ProxyUsageError(`--route ${JSON.stringify(redactedPath(one.prefix))} is given twice; give each prefix once`);
    flagged.add(one.prefix);
    byPrefix.set(one.prefix, one);
  }
  const routes = [...byPrefix.values()];
  if (routes.length === 0) throw new ProxyUsageError("no upstream: give --upstream URL, --route /prefix=URL or DSML_FIX_UPSTREAM");
  // Longest prefix first, so /deepseek/beta wins over /deepseek and both over the default.
  routes.sort((a, b) => b.prefix.length - a.prefix.length);
  const healthPath = values["health-path"] ?? file.healthPath ?? "/healthz";
  if (!healthPath.startsWith("/")) throw new ProxyUsageError(`--health-path must start with / (got ${JSON.stringify(healthPath)})`);
  const { options, problems } = resolveOptions(file.options);
  if (fileKeysClose(file, problems)) options.responseFix = { ...options.responseFix, ...closedResponseFix() };
  if (notForTheProxy(file.options, problems)) {
    options.responseFix = { ...options.responseFix, enabled: false };
    options.history = { ...options.history, sanitize: false };
    options.retry = { ...options.retry, nudge: false };
  }
  const envDebug = debugVariable(env.DSML_FIX_DEBUG, problems);
  return {
    host: values.host ?? fromEnv("DSML_FIX_HOST") ?? file.host ?? "127.0.0.1",
    port: integer(values.port ?? fromEnv("DSML_FIX_PORT") ?? file.port ?? 8787, "port", 0, 65535),
    routes,
    healthPath,
    maxBodyBytes: integer(values["max-body"] ?? file.maxBodyBytes ?? 64 * 1024 * 1024, "max-body", 1, Number.MAX_SAFE_INTEGER),
    headersTimeoutMs: integer(values["upstream-timeout"] ?? file.upstreamTimeoutMs ?? 300_000, "upstream-timeout", 1, 86_400_000),
    shutdownMs: 10_000,
    debug: values.debug ?? (envDebug || file.debug === true || options.debug === true),
    options,
    problems,
  };
}

/** DSML_FIX_DEBUG: 1, true, yes, on turn debug on; 0, false, no, off (or empty) leave it off; anything else is one problem line. */
function debugVariable(value: string | undefined, problems: string[]): boolean {
  if (value === undefined) return false;
  const word = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(word)) return true;
  if (["", "0", "false", "no", "off"].includes(word)) return false;
  problems.push(`${LOG_PREFIX} DSML_FIX_DEBUG=${JSON.stringify(value).slice(0, 40)} is none of 1, true, yes, on, 0, false, no, off; debug stays off`);
  return false;
}

/**
 * The plugin options the proxy has no use for, given in the file: one problem line naming them.
 * `providers` names OpenCode provider ids, which the proxy never sees (it repairs every request
 * sent through it: its routes choose which); `retry.channel` and `retry.enabled` steer the
 * plugin's wake-up prompt, which the proxy, holding no session, never sends (its correction rides
 * in the request's system prompt). `providers: []` meant "stand aside": honoured as that, the
 * proxy forwards every request and answer unchanged. True then.
 */
function notForTheProxy(raw: unknown, problems: string[]): boolean {
  if (!isPlainObject(raw)) return false;
  const given: string[] = [];
  if (Object.hasOwn(raw, "providers")) given.push("providers");
  const retry = raw.retry;
  if (isPlainObject(retry)) for (const key of ["channel", "enabled"]) if (Object.hasOwn(retry, key)) given.push(`retry.${key}`);
  if (given.length === 0) return false;
  const aside = Array.isArray(raw.providers) && raw.providers.length === 0;
  const names = given.map((name) => JSON.stringify(name)).join(" and ");
  const why = "the proxy repairs every request sent through it (its routes choose which), and sends its correction in the request's system prompt, never a wake-up prompt";
  problems.push(`${LOG_PREFIX} option${given.length > 1 ? "s" : ""} ${names} ${given.length > 1 ? "do" : "does"} not apply to the proxy; ignored (${why})${aside ? '; "providers": [] is read as "stand aside": every request and answer passes unchanged, nothing is repaired, until it is removed' : ""}`);
  return aside;
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
  if (!wellFormed) throw new ProxyUsageError(`route prefix must start with / and not end with / (got ${JSON.stringify(redactedUrl(prefix))})`);
  return { prefix, upstream: upstreamUrl(url) };
}

function upstreamUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ProxyUsageError(`upstream is not a URL: ${JSON.stringify(redactedUrl(text))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ProxyUsageError(`upstream must be http or https (got ${url.protocol})`);
  if (url.username || url.password) throw new ProxyUsageError("upstream URL must not carry credentials; the client's own headers are forwarded");
  return url;
}

/**
 * An upstream as a line may name it: its origin and its path (redactedPath), never its query. URL
 * refuses userinfo in an upstream (upstreamUrl), so the origin holds none.
 */
export function shownUpstream(url: URL): string {
  return `${url.origin}${redactedPath(url.pathname)}`;
}


/**
 * The route that would send the proxy's requests back to itself: an upstream on a loopback or
 * any-address host (127.0.0.0/8, ::1, localhost, 0.0.0.0, ::) at the proxy's own port, while the
 * proxy listens on such an address too (or on that very host). Undefined when none does; port 0
 * (any free port) cannot be told before listening (the server's Via check catches a loop then).
 */
export function routeToItself(config: Pick<ProxyConfig, "host" | "port" | "routes">): Route | undefined {
  if (config.port === 0) return undefined;
  const bind = hostName(config.host);
  for (const route of config.routes) {
    const { protocol, port } = route.upstream;
    const upstreamPort = port === "" ? (protocol === "https:" ? 443 : 80) : Number(port);
    if (upstreamPort !== config.port) continue;
    const host = hostName(route.upstream.hostname);
    if (host === bind || (isLocal(host) && isLocal(bind))) return route;
  }
  return undefined;
}

/** A host name as compared here: lower case, without IPv6 brackets or a trailing dot, an IPv6 address as URL writes it. */
function hostName(host: string): string {
  let bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare.includes(":")) {
    try {
      bare = new URL(`http://[${bare}]`).hostname.slice(1, -1);
    } catch {
      // Not an address URL reads: compared as given.
    }
  }
  bare = bare.toLowerCase();
  return bare.endsWith(".") ? bare.slice(0, -1) : bare;
}

/** Loopback or any-address: 127.0.0.0/8, ::1 (also IPv4-mapped), localhost and its subdomains, 0.0.0.0, ::. */
function isLocal(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1" || host === "::" || host === "0.0.0.0") return true;
  const parts = host.split(".");
  // 127.0.0.0/8 as written: `127` and three more parts of one to three ASCII digits.
  if (parts.length === 4 && parts[0] === "127" && parts.every((part) => part.length >= 1 && part.length <= 3 && isDigits(part))) return true;
  // URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1: `::ffff:7f`, two hex digits, `:`, one to four hex digits.
  const mapped = "::ffff:7f";
  if (!host.startsWith(mapped)) return false;
  const [high, low, ...more] = host.slice(mapped.length).split(":");
  return more.length === 0 && high!.length === 2 && isLowerHex(high!) && low !== undefined && low.length >= 1 && low.length <= 4 && isLowerHex(low);
}

/** Whether every character of `text` is an ASCII digit. */
function isDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isAsciiDigit(text.charCodeAt(i))) return false;
  return true;
}

/** Whether every character of `text` is a lower-case hexadecimal digit (as URL writes an IPv6 address). */
function isLowerHex(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isAsciiDigit(c) && !(c >= 0x61 && c <= 0x66)) return false;
  }
  return true;
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
  let parsed: unknown;
  try {
    // The package's JSONC reader (doctor reads opencode.json with it too), refusing a key given
    // twice: JSON keeps the last copy, and a deny list in the first would be dropped in silence.
    parsed = parseJsonc(text, { uniqueKeys: true });
  } catch (error) {
    throw new ProxyUsageError(`${file} is not a JSON/JSONC object: ${(error as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw new ProxyUsageError(`${file} is not a JSON/JSONC object: it holds ${Array.isArray(parsed) ? "a list" : parsed === null ? "null" : `a ${typeof parsed}`}`);
  for (const [key, check] of Object.entries(FILE_TYPES)) {
    if (Object.hasOwn(parsed, key) && !check.ok(parsed[key])) throw new ProxyUsageError(`${file}: "${key}" must be ${check.what} (got ${URL_KEYS.has(key) ? shape(parsed[key]) : shown(parsed[key])})`);
  }
  return parsed as FileConfig;
}

const isString = (value: unknown): boolean => typeof value === "string" && value.length > 0;
const isNumber = (value: unknown): boolean => typeof value === "number";

/** The type of each of the file's own keys, checked before any is used (FileConfig is only what they are then). */
const FILE_TYPES: Record<string, { ok: (value: unknown) => boolean; what: string }> = {
  upstream: { ok: isString, what: "a URL string" },
  port: { ok: isNumber, what: "a number" },
  host: { ok: isString, what: "a non-empty string" },
  routes: { ok: (value) => isPlainObject(value) && Object.values(value).every(isString), what: 'an object of "/prefix": "URL" strings' },
  healthPath: { ok: isString, what: "a path string" },
  maxBodyBytes: { ok: isNumber, what: "a number" },
  upstreamTimeoutMs: { ok: isNumber, what: "a number" },
  debug: { ok: (value) => typeof value === "boolean", what: "true or false" },
  $schema: { ok: (value) => typeof value === "string", what: "a string" },
};

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/** The file's keys whose values hold upstream URLs: a URL there may carry a key (`;key=`, `%40`, a query). */
const URL_KEYS: ReadonlySet<string> = new Set(["upstream", "routes"]);

/**
 * A wrong value of a URL key by its shape only: the URL strings a wrong `upstream` list or
 * `routes` object holds are never quoted, and a route's prefix only as redactedPath shows a path.
 */
function shape(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} item(s)`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    const wrong = keys.filter((key) => typeof value[key] !== "string" || value[key] === "");
    const named = (list: string[]) => list.slice(0, 5).map((key) => JSON.stringify(redactedPath(key))).join(", ");
    return keys.length === 0 ? "an empty object" : `an object with key(s) ${named(keys)}${wrong.length > 0 ? `; not a URL string at ${named(wrong)}` : ""}`;
  }
  if (typeof value === "string") return value === "" ? '""' : "a string";
  return JSON.stringify(value) ?? String(value);
}
