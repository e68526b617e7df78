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
import { wildcardMatch } from "../options/engine.ts";
import type { PluginOptions } from "../options/spec.ts";

type ResponseFix = PluginOptions["responseFix"];
type Scope = { [key: symbol]: unknown };

const REGISTRY = Symbol.for("opencode-plugin-dsml-fix.serving-instances");

export interface Serving {
  /** The serving instance's tool restrictions now. */
  responseFix(): ResponseFix;
  /** Replaces them (only ever by narrower ones). */
  restrict(responseFix: ResponseFix): void;
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
 * intersection, the echo guard on if either has it. Returns what changed, for the warning (names
 * of options only, never a value).
 */
export function mergeRestrictions(first: ResponseFix, later: ResponseFix): { merged: ResponseFix; changed: string[] } {
  const changed: string[] = [];
  const deny = union(first.denyTools, later.denyTools);
  if (deny.length !== first.denyTools.length || deny.some((name, index) => name !== first.denyTools[index])) changed.push("responseFix.denyTools (both lists)");
  const allow = intersection(first.allowTools, later.allowTools);
  if (allow.length !== first.allowTools.length || allow.some((name, index) => name !== first.allowTools[index])) changed.push("responseFix.allowTools (only what both allow)");
  const echoGuard = first.echoGuard || later.echoGuard;
  if (echoGuard !== first.echoGuard) changed.push("responseFix.echoGuard (on)");
  return { merged: { ...first, denyTools: deny, allowTools: allow, echoGuard }, changed };
}

function union(a: readonly string[], b: readonly string[]): string[] {
  if (a.includes("*") || b.includes("*")) return ["*"];
  return [...new Set([...a, ...b])];
}

const isPattern = (name: string) => name.includes("*") || name.includes("?");
const matches = (list: readonly string[], name: string) => list.some((entry) => (isPattern(entry) ? wildcardMatch(entry, name) : entry === name));

/**
 * Names both lists allow. `"*"` gives way to the other list; an exact name is kept when the other
 * list allows it; a pattern only when the other list holds the same pattern (two different
 * patterns' overlap cannot be written as a list: left out, a refusal rather than a wider allow).
 */
function intersection(a: readonly string[], b: readonly string[]): string[] {
  if (a.includes("*")) return [...b];
  if (b.includes("*")) return [...a];
  const out = new Set<string>();
  for (const name of a) if (isPattern(name) ? b.includes(name) : matches(b, name)) out.add(name);
  for (const name of b) if (!isPattern(name) && matches(a, name)) out.add(name);
  return [...out];
}

/** The one warning a standing-aside instance logs. */
export function standAsideWarning(changed: readonly string[]): string {
  const base =
    "the plugin is listed more than once for this host (another entry, maybe under another spelling, started first): this entry stands aside, so each message still gets one repair, one correction and one wake; list it once";
  if (changed.length === 0) return `${base}. This entry's options are not used`;
  return `${base}. This entry's tool restrictions were added to the serving entry's: ${changed.join(", ")}; its other options are not used`;
}
