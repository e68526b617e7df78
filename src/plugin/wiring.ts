import type { Config } from "@opencode-ai/plugin";
import { REQUEST_TAG_HEADER, type AdapterOptions } from "../adapters/options.ts";
import { stripTag } from "../adapters/request-tag.ts";
import type { PluginOptions } from "../options/spec.ts";
import { repairModules, type RepairModules } from "./repair-modules.ts";
import { scopeWithin, type ScopeList } from "./scope.ts";

/**
 * How the repairing fetch reaches a provider's requests without ever replacing a provider's own
 * fetch. OpenCode (1.18) runs plugins in-process, and every AI SDK package, provider loader
 * (google-vertex's auth, github-copilot's) and OpenCode's own timeout wrapper looks up
 * `globalThis.fetch` when it sends. So the plugin wraps `globalThis.fetch` once per process and
 * acts only on requests that carry its request tag, which `chat.headers` adds to routes in mode
 * `wire` only: every other request costs one header lookup and is passed on untouched. A fetch set
 * in the config gets the same gate (`tagGatedRepair`, the one place that decides). Nothing else is
 * written into the config, so OpenCode's own fetch for a provider (set by a loader, applied after
 * the config) stays in place and simply calls through.
 */

type Fetch = typeof fetch;

interface Dispatcher {
  /** Each plugin instance's adapter options (OpenCode may load one instance per project directory). */
  readonly instances: Map<string, AdapterOptions>;
  count: number;
  /** Where the repair's modules come from (src/plugin/repair-modules.ts; a stand-in in tests). */
  readonly load: () => Promise<RepairModules>;
}

const SLOT = Symbol.for("opencode-plugin-dsml-fix.fetch-dispatcher");
const MARK = Symbol.for("opencode-plugin-dsml-fix.repairing");
/** Separates the instance key from `<sessionID>/<messageID>` in the tag; never part of an OpenCode id. */
const INSTANCE_SEPARATOR = " ";
const MAX_INSTANCES = 64;

interface RepairRoute {
  /** The tag value for one request of this instance (which also marks the instance as in use). */
  tagFor(sessionID: string, messageID: string): string;
  /** New adapter options for this instance (narrower tool restrictions): later requests use them. */
  update(adapter: AdapterOptions): void;
  /** The instance is gone (the host disposed it): its tag is no longer claimed. */
  release(): void;
}

/** Registers this plugin instance's adapter behind the global dispatcher (installed on first use). */
export function registerRepair(adapter: AdapterOptions, scope: { [key: symbol]: unknown } = globalThis as never, load: () => Promise<RepairModules> = repairModules): RepairRoute {
  const dispatcher = installDispatcher(scope, load);
  const key = `i${++dispatcher.count}`;
  let current = adapter;
  let released = false;
  // The map's order is the order of last use: a tag moves its instance to the end.
  const use = () => {
    if (released) return;
    dispatcher.instances.delete(key);
    dispatcher.instances.set(key, current);
    // OpenCode makes a new instance on every reload (and 1.18 disposes the old one, which releases
    // it). Past the bound the least recently used goes; an instance still tagging requests is
    // used again at its next tag, so a live one (another directory's, idle for a while) is never
    // left out: it comes back with its options.
    for (const stale of dispatcher.instances.keys()) {
      if (dispatcher.instances.size <= MAX_INSTANCES) break;
      dispatcher.instances.delete(stale);
    }
  };
  use();
  return {
    tagFor: (sessionID, messageID) => {
      use();
      return `${key}${INSTANCE_SEPARATOR}${sessionID}/${messageID}`;
    },
    update: (next) => {
      current = next;
      if (dispatcher.instances.has(key)) dispatcher.instances.set(key, next);
    },
    release: () => {
      released = true;
      dispatcher.instances.delete(key);
    },
  };
}

/** `<sessionID>/<messageID>` from a tag this module made (the instance key removed). */
export function readTag(tag: string | undefined): { sessionID?: string; messageID?: string } {
  if (!tag) return {};
  const rest = tag.slice(tag.indexOf(INSTANCE_SEPARATOR) + 1);
  const slash = rest.indexOf("/");
  return slash < 0 ? { sessionID: rest } : { sessionID: rest.slice(0, slash), messageID: rest.slice(slash + 1) };
}

function installDispatcher(scope: { [key: symbol]: unknown; fetch?: Fetch }, load: () => Promise<RepairModules> = repairModules): Dispatcher {
  const existing = scope[SLOT] as Dispatcher | undefined;
  if (existing) return existing;
  const dispatcher: Dispatcher = { instances: new Map(), count: 0, load };
  // The fetch that was global when the plugin first loaded: every global request ends there.
  scope.fetch = tagGatedRepair(scope.fetch!, dispatcher);
  scope[SLOT] = dispatcher;
  return dispatcher;
}

/**
 * The one decision every repairing path takes, whatever fetch it sits in front of (the global
 * fetch, a provider fetch set in the config, and so every provider loader's fetch that calls either):
 * a request is repaired only when it carries the tag of a live plugin instance, and `chat.headers`
 * tags only routes in mode `wire`. An untagged request (out of scope, a fallback route, anything
 * not from a model) goes to `nextFetch` exactly as it came; a tag no instance claims (a stale or foreign
 * value) is removed and the response passes through.
 */
function tagGatedRepair(nextFetch: Fetch, dispatcher: Dispatcher): Fetch {
  // One repairing fetch per instance over this `nextFetch`: its attempt counter must outlive a request.
  const repairers = new Map<string, { adapter: AdapterOptions; fetch: Fetch }>();
  let stripOnly: Fetch | undefined;
  /** Set once the repair's modules arrived; until then a tagged request waits for them. */
  let loaded: RepairModules | undefined;
  const repairerFor = ({ repairFetch }: RepairModules, key: string): Fetch => {
    const adapter = dispatcher.instances.get(key);
    if (!adapter) return (stripOnly ??= repairFetch({ history: { sanitize: false }, responseFix: { enabled: false } }, nextFetch));
    let repairer = repairers.get(key);
    // Built again when the instance's options changed (RepairRoute.update): the repair reads them once.
    if (!repairer || repairer.adapter !== adapter) {
      repairer = { adapter, fetch: repairFetch(adapter, nextFetch) };
      repairers.set(key, repairer);
      for (const known of repairers.keys()) if (!dispatcher.instances.has(known)) repairers.delete(known);
    }
    return repairer.fetch;
  };
  const gate = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let tag: string | undefined;
    try {
      tag = tagOf(input, init);
    } catch {
      // Every fetch in the process comes through here: headers we cannot read are not ours.
      tag = undefined;
    }
    if (tag === undefined) return nextFetch(input, init);
    const key = tag.slice(0, tag.indexOf(INSTANCE_SEPARATOR));
    if (loaded) return repairerFor(loaded, key)(input, init);
    return dispatcher.load().then(
      (modules) => repairerFor((loaded = modules), key)(input, init),
      // The repair could not be loaded (the plugin logged why when it started): the request goes
      // on as it came, only without the tag, which must never reach a server.
      () => {
        const stripped = stripTag(input, init);
        return nextFetch(stripped.input, stripped.init);
      },
    );
  };
  Object.defineProperty(gate, MARK, { value: true });
  return Object.assign(gate, { preconnect: nextFetch.preconnect }) as Fetch;
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
 * `globalThis.fetch`; the same tag gate goes in front of it, so a tagged request is repaired and its
 * tag never reaches that fetch or the server, and every other request reaches it untouched.
 * Providers without one are left alone: an entry written here would replace the fetch a provider
 * loader sets, because OpenCode applies config options last.
 */
export function chainConfiguredFetches(cfg: Config, scope: { [key: symbol]: unknown } = globalThis as never): string[] {
  const providers = (cfg as { provider?: Record<string, ProviderEntry> }).provider ?? {};
  const chained: string[] = [];
  for (const [id, entry] of Object.entries(providers)) {
    const existing = entry?.options?.fetch;
    if (typeof existing !== "function" || (existing as { [MARK]?: boolean })[MARK]) continue;
    entry.options!.fetch = tagGatedRepair(existing as Fetch, installDispatcher(scope));
    chained.push(id);
  }
  return chained;
}

// ---------------------------------------------------------------- the plugin listed twice
// The plugin listed twice for one host (a global and a project config both naming it, a `file:`
// path beside the package name, a copy-paste) must behave as if listed once: one call policy, one
// correction and one wake per message. The first instance a host starts serves; a later one
// stands aside (registers nothing that repairs, corrects or wakes) with one warning, and hands the
// serving instance the tool restrictions it carries, so a restriction is never loosened in silence.
//
// The registry lives on a process-wide symbol, not in module state: two spellings of the entry
// load two copies of this module. It is keyed by the object the host hands every plugin of one
// load: 1.18 passes one `PluginInput` to each plugin of a directory's instance (its plugin state
// builds `input` once and calls every entry with it: read from the 1.18.33 binary), and a reload or
// another directory gets a new one, so those stay separate instances; OpenCode 2 spreads one host
// into each plugin's context (`{ ...host, options }`, packages/core/src/plugin/module.ts @ 07db2b92)
// and keeps its `app` (packages/core/src/plugin/promise.ts: `app: host.app`). A host handing no
// such object gets no de-duplication (each instance serves, as before).

type ResponseFix = PluginOptions["responseFix"];
type Parse = PluginOptions["parse"];

/** What a later entry may narrow on the serving one: where the plugin acts, and which calls may be recovered and run. */
export interface Restrictions {
  responseFix: ResponseFix;
  parse: Parse;
  /** Every entry's `providers` list that still narrows (src/plugin/scope.ts ActingScope: a route must be in each). */
  scope: readonly ScopeList[];
}
type Scope = { [key: symbol]: unknown };

const REGISTRY = Symbol.for("opencode-plugin-dsml-fix.serving-instances");

export interface Serving {
  /** The serving instance's restrictions now. */
  restrictions(): Restrictions;
  /** Replaces them (only ever by narrower ones). */
  restrict(restrictions: Restrictions): void;
}

function table(scope: Scope): WeakMap<object, Serving> {
  const existing = scope[REGISTRY];
  if (existing instanceof WeakMap) return existing as WeakMap<object, Serving>;
  const created = new WeakMap<object, Serving>();
  try {
    Object.defineProperty(scope, REGISTRY, { value: created, configurable: true });
  } catch {
    // A frozen scope: no de-duplication, never a throw at start.
  }
  return created;
}

/** The host object that identifies one load of the plugin list, or undefined when there is none. */
export function loadKey(value: unknown): object | undefined {
  return typeof value === "object" && value !== null ? value : undefined;
}

/** The instance already serving this load, if any. */
export function servingFor(scope: Scope, key: object | undefined): Serving | undefined {
  return key === undefined ? undefined : table(scope).get(key);
}

/** Records `serving` for this load; the returned release forgets it (only if it is still the one). */
export function claim(scope: Scope, key: object | undefined, serving: Serving): () => void {
  if (key === undefined) return () => undefined;
  const registry = table(scope);
  registry.set(key, serving);
  return () => {
    if (registry.get(key) === serving) registry.delete(key);
  };
}

/**
 * A later entry's restrictions added to the serving one's: denyTools the union, allowTools the
 * intersection, providers the overlap (narrowScope), and every switch whose false means fewer calls off if either entry has it off
 * (responseFix.enabled, each parse switch and dialect: one entry saying "recover nothing" or "not
 * this shape" is never overruled by another's default); the echo guard on if either has it.
 * Returns what changed, for the warning (names of options only, never a value).
 */
export function mergeRestrictions(first: Restrictions, later: Restrictions): { merged: Restrictions; changed: string[] } {
  const changed: string[] = [];
  const fix = first.responseFix;
  const other = later.responseFix;
  const deny = union(fix.denyTools, other.denyTools);
  if (deny.length !== fix.denyTools.length || deny.some((name, index) => name !== fix.denyTools[index])) changed.push("responseFix.denyTools (both lists)");
  const allow = intersection(fix.allowTools, other.allowTools);
  if (allow.length !== fix.allowTools.length || allow.some((name, index) => name !== fix.allowTools[index])) changed.push("responseFix.allowTools (only what both allow)");
  const echoGuard = fix.echoGuard || other.echoGuard;
  if (echoGuard !== fix.echoGuard) changed.push("responseFix.echoGuard (on)");
  const enabled = fix.enabled && other.enabled;
  if (enabled !== fix.enabled) changed.push("responseFix.enabled (off)");
  const parse = bothOn(first.parse as unknown as Switches, later.parse as unknown as Switches, "parse", changed) as unknown as Parse;
  const scope = narrowScope(first.scope, later.scope, changed);
  return { merged: { responseFix: { ...fix, denyTools: deny, allowTools: allow, echoGuard, enabled }, parse, scope }, changed };
}

/**
 * Where the plugin acts once a later entry's `providers` is added: the overlap of the entries'
 * scopes, whatever their order, never wider than either. The lists are kept side by side and a
 * route must be in each (src/plugin/scope.ts routeInScope), so the overlap is exact for every
 * pair of tokens: "*" with X is X; "auto" with a provider id is the leak-prone models of that
 * provider (no single list could say so); two different ids share nothing. A list that already
 * covers every route of a kept one adds nothing and is dropped; a kept list covering every route
 * of the new one is dropped for it. An entry that says off (`[]`) stays off: the serving entry
 * then acts nowhere, whichever entry came first.
 */
function narrowScope(first: readonly ScopeList[], later: readonly ScopeList[], changed: string[]): readonly ScopeList[] {
  const off = (lists: readonly ScopeList[]) => lists.some((list) => list.length === 0);
  if (off(first)) {
    if (!off(later)) changed.push("providers (off: an entry has [], so the plugin acts nowhere)");
    return first;
  }
  if (off(later)) {
    changed.push("providers (off: this entry has [], so the plugin acts nowhere)");
    return [[]];
  }
  let kept = [...first];
  let narrowed = false;
  for (const list of later) {
    if (kept.some((mine) => scopeWithin(mine, list))) continue;
    kept = kept.filter((mine) => !scopeWithin(list, mine));
    kept.push(list);
    narrowed = true;
  }
  if (narrowed) changed.push("providers (only routes every entry covers)");
  return kept;
}

type Switches = { [key: string]: boolean | Switches };

/** Each boolean switch of `first` on only if `later` has it on too (nested namespaces alike); the names turned off go to `changed`. */
function bothOn(first: Switches, later: Switches, path: string, changed: string[]): Switches {
  const out: Switches = { ...first };
  for (const [key, value] of Object.entries(first)) {
    const theirs = later?.[key];
    if (typeof value === "boolean") {
      if (value && theirs === false) {
        out[key] = false;
        changed.push(`${path}.${key} (off)`);
      }
    } else if (typeof value === "object" && value !== null && typeof theirs === "object" && theirs !== null) out[key] = bothOn(value, theirs, `${path}.${key}`, changed);
  }
  return out;
}

function union(a: readonly string[], b: readonly string[]): string[] {
  if (a.includes("*") || b.includes("*")) return ["*"];
  return [...new Set([...a, ...b])];
}

/**
 * Names both lists allow, never more: `"*"` gives way to the other list; otherwise an entry (a
 * name or a pattern) is kept when the other list holds the very same entry. A name only one list's
 * pattern covers (`["bash"]` and `["b*"]`) is left out: a refusal, never a wider allow. (No pattern
 * matching here: the engine's matcher is not loaded at start-up.)
 */
function intersection(a: readonly string[], b: readonly string[]): string[] {
  if (a.includes("*")) return [...b];
  if (b.includes("*")) return [...a];
  const other = new Set(b);
  return [...new Set(a.filter((name) => other.has(name)))];
}

/** The one warning a standing-aside instance logs. */
export function standAsideWarning(changed: readonly string[]): string {
  const base =
    "the plugin is listed more than once for this host (another entry, maybe under another spelling, started first): this entry stands aside, so each message still gets one repair, one correction and one wake; list it once";
  if (changed.length === 0) return `${base}. This entry's options are not used`;
  return `${base}. This entry's restrictions were added to the serving entry's: ${changed.join(", ")}; its other options are not used`;
}
