import type { Config } from "@opencode-ai/plugin";
import { repairFetch } from "../adapters/fetch.ts";
import type { AdapterOptions } from "../adapters/options.ts";
import { hasCatalogCredentials } from "./credentials.ts";
import { DEFAULT_PROVIDERS, providerInScope, type PluginOptions } from "./options.ts";

type ProviderEntry = { options?: Record<string, unknown> } & Record<string, unknown>;

/** Provider ids the plugin installs its fetch on: the configured list, or with "*" every configured provider plus the defaults. */
export function providersToWire(cfg: Config, options: PluginOptions): string[] {
  const configured = Object.keys(cfg.provider ?? {});
  if (options.providers.includes("*")) return [...new Set([...configured, "deepseek", "opencode-go", "opencode"])];
  return options.providers.filter((id) => providerInScope(options, id));
}

/**
 * Installs repairFetch as `options.fetch` on each in-scope provider, chaining a fetch the user
 * set. A catalog provider configured only by an API key has no entry yet: one is created with
 * just the fetch, which OpenCode merges with the catalog definition.
 */
export function installRepairFetch(cfg: Config, options: PluginOptions, adapter: AdapterOptions, env: NodeJS.ProcessEnv = process.env): string[] {
  const providers = ((cfg as { provider?: Record<string, ProviderEntry> }).provider ??= {});
  const wired: string[] = [];
  const explicit = new Set(options.providers);
  for (const id of providersToWire(cfg, options)) {
    if (!Object.prototype.hasOwnProperty.call(providers, id)) {
      // A default that the user never configured stays out of OpenCode's provider list unless it has credentials.
      const named = explicit.has(id) && !isDefaultList(options.providers);
      if (!named && !hasCatalogCredentials(id, env)) continue;
      providers[id] = {};
    }
    const entry = providers[id]!;
    const providerOptions = (entry.options ??= {});
    const existing = providerOptions.fetch;
    if (typeof existing === "function" && (existing as { dsmlFix?: boolean }).dsmlFix) continue;
    const base = typeof existing === "function" ? (existing as typeof fetch) : (input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init);
    const wrapped = repairFetch(adapter, base as typeof fetch);
    Object.defineProperty(wrapped, "dsmlFix", { value: true });
    providerOptions.fetch = wrapped;
    wired.push(id);
  }
  return wired;
}

function isDefaultList(providers: readonly string[]): boolean {
  return providers.length === DEFAULT_PROVIDERS.length && DEFAULT_PROVIDERS.every((id, i) => providers[i] === id);
}
