import { redactedPackage } from "../grammar/redact.ts";

/**
 * Which routes the plugin acts on. A route is one provider serving one model through one AI SDK
 * package; the package decides the wire, the model decides whether a leak is likely.
 */
export interface Route {
  providerID: string;
  /** OpenCode's model id (the key in the provider's model list). */
  modelID?: string;
  /** The id sent upstream, when it differs (`model.api.id`). */
  apiID?: string;
  /** The catalog's family (`model.family`), e.g. "kimi-k2". */
  family?: string;
  /** The AI SDK package serving the route (`model.api.npm`). */
  npm?: string;
}

/** wire: the repairing fetch rewrites the response; fallback: the wire cannot be rewritten; off: out of scope. */
export type RouteMode = "wire" | "fallback" | "off";

/** The scope token meaning "every provider, for models of a leak-prone family": the default. */
export const AUTO_SCOPE = "auto";
/** The scope token meaning "every provider, every model". */
export const EVERY_PROVIDER = "*";

/**
 * Model families known to leak tool calls as text: the formats in src/grammar/dialects.ts and
 * docs/PATTERNS.md (DeepSeek DSML and legacy tokens, Hermes/Qwen, Qwen3-Coder, GLM, Kimi, MiniMax,
 * Mistral and its code models, LFM2). Matched anywhere in the id so vendor prefixes
 * (`accounts/fireworks/models/deepseek-v3p2`, `deepseek-ai/DeepSeek-V3.2`, `qwen/qwen3-coder`) count.
 */
const LEAK_PRONE_FAMILIES = [
  "deepseek",
  "qwen",
  "qwq",
  "glm",
  "kimi",
  "moonshot",
  "minimax",
  "mistral",
  "magistral",
  "devstral",
  "codestral",
  "ministral",
  "mixtral",
  "hermes",
  "lfm",
] as const;

/**
 * AI SDK packages whose requests reach `globalThis.fetch` speaking a wire the fetch adapter
 * rewrites (chat-completions, Anthropic Messages, Responses) and whose requests are not signed
 * over their headers (the tag is removed after the package built the request).
 */
export const WIRE_PACKAGES: ReadonlySet<string> = new Set([
  "@ai-sdk/openai-compatible",
  "@ai-sdk/openai",
  "@ai-sdk/azure",
  "@ai-sdk/anthropic",
  "@ai-sdk/github-copilot",
  "@ai-sdk/deepinfra",
  "@ai-sdk/togetherai",
  "@ai-sdk/groq",
  "@ai-sdk/cerebras",
  "@ai-sdk/xai",
  "@openrouter/ai-sdk-provider",
]);

/** Packages OpenCode's experimental native runtime speaks itself (OpenCode 1.18.33). */
const NATIVE_PACKAGES: ReadonlySet<string> = new Set(["@ai-sdk/openai", "@ai-sdk/openai-compatible", "@ai-sdk/anthropic"]);

/**
 * Routes `OPENCODE_EXPERIMENTAL_NATIVE_LLM=1` takes away from the AI SDK (OpenCode 1.18.33 serves
 * only openai, anthropic and opencode* providers natively, on these packages; every other route
 * falls back to the AI SDK and so to the repairing fetch). A native route never gets the tag.
 */
export function servedNatively(route: Pick<Route, "providerID" | "npm">): boolean {
  const provider = route.providerID;
  const nativeProvider = provider === "openai" || provider === "anthropic" || provider.startsWith("opencode");
  return nativeProvider && NATIVE_PACKAGES.has(route.npm ?? "@ai-sdk/openai-compatible");
}

export function isLeakProne(route: Pick<Route, "modelID" | "apiID" | "family">): boolean {
  return [route.modelID, route.apiID, route.family].some((id) => {
    if (typeof id !== "string") return false;
    const lower = id.toLowerCase();
    return LEAK_PRONE_FAMILIES.some((family) => lower.includes(family));
  });
}

/** One `providers` list: tokens ("auto", "*") and provider ids; a route is covered by any one of them. */
export type ScopeList = readonly string[];

/**
 * Where a serving instance acts: its own `providers`, and, when the plugin is listed more than
 * once for a host, every other entry's list it was handed (src/plugin/wiring.ts narrowScope). A
 * route is in scope only when each list covers it: the overlap of the entries, never wider than
 * any one of them. A plain options object is one (no `within`).
 */
export interface ActingScope {
  providers: ScopeList;
  within?: readonly ScopeList[];
}

function listCovers(providers: ScopeList, route: Route): boolean {
  if (providers.includes(EVERY_PROVIDER) || providers.includes(route.providerID)) return true;
  return providers.includes(AUTO_SCOPE) && isLeakProne(route);
}

/** Whether the plugin acts on this route at all (history, correction, repair), whatever its wire. */
export function routeInScope(options: ActingScope, route: Route): boolean {
  return listCovers(options.providers, route) && (options.within ?? []).every((list) => listCovers(list, route));
}

/**
 * Whether every route `inner` covers is covered by `outer`, told from the tokens alone: "*" covers
 * all; otherwise each token of `inner` must be in `outer` ("auto" never covers a provider id, which
 * names every model of that provider). False when unsure: the caller then keeps both lists.
 */
export function scopeWithin(inner: ScopeList, outer: ScopeList): boolean {
  if (outer.includes(EVERY_PROVIDER)) return true;
  return inner.every((token) => token !== EVERY_PROVIDER && outer.includes(token));
}

/** How an in-scope route is repaired: through the wire when its package is one we rewrite. */
export function routeMode(options: ActingScope, route: Route, native: boolean): RouteMode {
  if (!routeInScope(options, route)) return "off";
  if (native && servedNatively(route)) return "fallback";
  // A package OpenCode did not name: the common case for a custom provider is chat-completions.
  const npm = route.npm ?? "@ai-sdk/openai-compatible";
  return WIRE_PACKAGES.has(npm) ? "wire" : "fallback";
}

const LOGGABLE = /[^A-Za-z0-9_.:/@+-]/g;

/**
 * One debug line per route, naming its mode; ids come from config, so anything odd prints as "?".
 * The package is redacted first (grammar/redact.ts redactedPackage): a git or tarball URL may carry
 * a token in its userinfo or query, which the loggable characters alone would keep (`:` and `@`).
 */
export function formatRouteLine(route: Route, mode: RouteMode): string {
  const show = (text: string | undefined) => (text ? text.slice(0, 120).replace(LOGGABLE, "?") : "?");
  return `[dsml] route ${show(route.providerID)}/${show(route.modelID)} package=${show(route.npm === undefined ? undefined : redactedPackage(route.npm))} mode=${mode}`;
}

const REMEMBERED_ROUTES = 256;

/**
 * The whole route (upstream id, family, package) last seen for a provider/model pair, so that a
 * hook handed only `{ providerID, modelID }` (1.18's messages.transform, a stored message's origin,
 * OpenCode 2's context and HTTP hooks) decides scope exactly as the hook that saw the whole model
 * did (chat.headers, system.transform, the language hook): an alias whose upstream id or family is
 * DeepSeek's (`gateway/fast` -> deepseek-chat) is in scope in every hook or in none. A model id
 * names one model within its provider, so what is remembered never changes meaning; a route not
 * seen yet is read from the two ids alone, as before. Bounded: the least recently seen is dropped.
 */
export class RouteMemory {
  private readonly routes = new Map<string, Route>();

  remember(route: Route): void {
    if (route.modelID === undefined) return;
    const key = `${route.providerID}\u0000${route.modelID}`;
    this.routes.delete(key);
    this.routes.set(key, route);
    if (this.routes.size > REMEMBERED_ROUTES) this.routes.delete(this.routes.keys().next().value!);
  }

  /** The remembered route for these ids, or the ids alone. */
  recall(providerID: string, modelID: string | undefined): Route {
    const known = modelID === undefined ? undefined : this.routes.get(`${providerID}\u0000${modelID}`);
    return known ?? { providerID, ...(modelID !== undefined ? { modelID } : {}) };
  }
}
