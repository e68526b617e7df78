import type { Config } from "@opencode-ai/plugin";
import { repairFetch } from "../adapters/fetch.ts";
import { REQUEST_TAG_HEADER, type AdapterOptions } from "../adapters/options.ts";

/**
 * How the repairing fetch reaches a provider's requests without ever replacing a provider's own
 * fetch. OpenCode (1.18) runs plugins in-process, and every AI SDK package, provider loader
 * (google-vertex's auth, github-copilot's) and OpenCode's own timeout wrapper looks up
 * `globalThis.fetch` when it sends. So the plugin wraps `globalThis.fetch` once per process and
 * acts only on requests that carry its request tag, which `chat.headers` adds to in-scope routes:
 * every other request costs one header lookup and is passed on untouched. Nothing is written into
 * the config, so OpenCode's own fetch for a provider (set by a loader, applied after the config)
 * stays in place and simply calls through.
 */

type Fetch = typeof fetch;

interface Dispatcher {
  /** The fetch that was global when the plugin first loaded: every request ends there. */
  readonly nextFetch: Fetch;
  /** One repairing fetch per plugin instance (OpenCode may load one per project directory). */
  readonly handlers: Map<string, Fetch>;
  count: number;
}

const SLOT = Symbol.for("opencode-plugin-dsml-fix.fetch-dispatcher");
const MARK = Symbol.for("opencode-plugin-dsml-fix.repairing");
/** Separates the instance key from `<sessionID>/<messageID>` in the tag; never part of an OpenCode id. */
const INSTANCE_SEPARATOR = " ";
const MAX_INSTANCES = 64;

export interface RepairRoute {
  /** The tag value for one request of this instance. */
  tagFor(sessionID: string, messageID: string): string;
}

/** Registers this plugin instance's repairing fetch behind the global dispatcher (installed on first use). */
export function registerRepair(adapter: AdapterOptions, scope: { [key: symbol]: unknown } = globalThis as never): RepairRoute {
  const dispatcher = installDispatcher(scope);
  const key = `i${++dispatcher.count}`;
  dispatcher.handlers.set(key, repairFetch(adapter, dispatcher.nextFetch));
  // OpenCode makes a new instance on every reload; the oldest are long gone by then.
  for (const stale of dispatcher.handlers.keys()) {
    if (dispatcher.handlers.size <= MAX_INSTANCES) break;
    dispatcher.handlers.delete(stale);
  }
  return { tagFor: (sessionID, messageID) => `${key}${INSTANCE_SEPARATOR}${sessionID}/${messageID}` };
}

/** `<sessionID>/<messageID>` from a tag this module made (the instance key removed). */
export function readTag(tag: string | undefined): { sessionID?: string; messageID?: string } {
  if (!tag) return {};
  const rest = tag.slice(tag.indexOf(INSTANCE_SEPARATOR) + 1);
  const slash = rest.indexOf("/");
  return slash < 0 ? { sessionID: rest } : { sessionID: rest.slice(0, slash), messageID: rest.slice(slash + 1) };
}

function installDispatcher(scope: { [key: symbol]: unknown; fetch?: Fetch }): Dispatcher {
  const existing = scope[SLOT] as Dispatcher | undefined;
  if (existing) return existing;
  const nextFetch = scope.fetch!;
  const dispatcher: Dispatcher = { nextFetch, handlers: new Map(), count: 0 };
  // A tag no instance claims (a stale or foreign value) still never goes upstream.
  const stripOnly = repairFetch({ responseFix: { enabled: false } }, nextFetch);
  const dispatch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let tag: string | undefined;
    try {
      tag = tagOf(input, init);
    } catch {
      // Every fetch in the process comes through here: headers we cannot read are not ours.
      tag = undefined;
    }
    if (tag === undefined) return nextFetch(input, init);
    const handler = dispatcher.handlers.get(tag.slice(0, tag.indexOf(INSTANCE_SEPARATOR)));
    return (handler ?? stripOnly)(input, init);
  };
  Object.defineProperty(dispatch, MARK, { value: true });
  scope.fetch = Object.assign(dispatch, { preconnect: nextFetch.preconnect }) as Fetch;
  scope[SLOT] = dispatcher;
  return dispatcher;
}

/** The request tag, found with as little work as the headers' form allows. */
export function tagOf(input: string | URL | Request, init: RequestInit | undefined): string | undefined {
  const headers = init?.headers;
  if (headers === undefined) return input instanceof Request ? (input.headers.get(REQUEST_TAG_HEADER) ?? undefined) : undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(REQUEST_TAG_HEADER) ?? undefined;
  if (Array.isArray(headers)) return headers.find(([name]) => name.toLowerCase() === REQUEST_TAG_HEADER)?.[1];
  for (const name in headers) {
    if (name.length === REQUEST_TAG_HEADER.length && name.toLowerCase() === REQUEST_TAG_HEADER) return (headers as Record<string, string>)[name];
  }
  return undefined;
}

type ProviderEntry = { options?: Record<string, unknown> } & Record<string, unknown>;

/**
 * A fetch already set in the config (by the user or another plugin's `config` hook) may not call
 * `globalThis.fetch`; chaining the repair in front of it keeps the tag from ever reaching it or the
 * server. Providers without one are left alone: an entry written here would replace the fetch a
 * provider loader sets, because OpenCode applies config options last.
 */
export function chainConfiguredFetches(cfg: Config, adapter: AdapterOptions): string[] {
  const providers = (cfg as { provider?: Record<string, ProviderEntry> }).provider ?? {};
  const chained: string[] = [];
  for (const [id, entry] of Object.entries(providers)) {
    const existing = entry?.options?.fetch;
    if (typeof existing !== "function" || (existing as { [MARK]?: boolean })[MARK]) continue;
    const wrapped = repairFetch(adapter, existing as Fetch);
    Object.defineProperty(wrapped, MARK, { value: true });
    entry.options!.fetch = wrapped;
    chained.push(id);
  }
  return chained;
}
