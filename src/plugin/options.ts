// The plugin's own reading of its entry in opencode.json; every option is defined in src/options/spec.ts.
import { checkAsWritten, type CheckedAsWritten, defaultOf, isNameEntry, MAX_LIST_ENTRIES, unseenInName, withDefaults } from "../options/check.ts";
import { FAIL_CLOSED, type Fields, type NamespaceSpec, OPTIONS, type OptionSpec, type PluginOptions } from "../options/spec.ts";
import { isPollutingKey } from "../grammar/plain-data.ts";
import { close, closedBecause, holdsAnything, insideReason, isPlainObject, OPTION_PATHS, SECURITY_NAMESPACES, securityInside } from "../options/security-search.ts";
import { LOG_PREFIX } from "./log-prefix.ts";
import { AUTO_SCOPE } from "./scope.ts";

const PREFIX = LOG_PREFIX;

interface ResolvedOptions {
  options: PluginOptions;
  /** One line per unknown key or bad value, ready to show the user. */
  problems: string[];
  /**
   * An unknown key was close to a security option or to the namespace that holds them, or held
   * one inside it: recovered calls are off (allowTools []) until the config is fixed, since the
   * user meant to restrict something the plugin cannot tell.
   */
  failedClosed?: boolean;
}

/**
 * Lenient by design: a typo in the config must not take the plugin, or OpenCode's startup, down
 * with it. Each key is read on its own, so one that cannot be read (a throwing getter, a hostile
 * Proxy) costs only itself: it falls back like an invalid value, and never resets its neighbours.
 */
export function resolveOptions(raw: unknown): ResolvedOptions {
  const problems: string[] = [];
  try {
    if (raw === undefined) return { options: withDefaults({}), problems };
    if (!readableObject(raw)) {
      const why = closedInside(raw, "options", false);
      if (why === undefined) {
        problems.push(`${PREFIX} options must be an object (got ${show(raw)}); using defaults for all options`);
        return { options: withDefaults({}), problems };
      }
      problems.push(`${PREFIX} options must be an object (got ${show(raw)}); using defaults for all options, and no tool call is recovered until it is fixed (${why})`);
      return { options: withDefaults(closedValuesUnder(OPTIONS.fields, "")), problems, failedClosed: true };
    }
    const near = { security: false };
    const kept = keepValid(raw, OPTIONS.fields, "", problems, near);
    if (!near.security) return { options: withDefaults(kept), problems };
    const responseFix = readableObject(kept.responseFix) ? kept.responseFix : {};
    kept.responseFix = { ...responseFix, allowTools: structuredClone(FAIL_CLOSED["responseFix.allowTools"]) };
    return { options: withDefaults(kept), problems, failedClosed: true };
  } catch {
    // Only reachable through a bug here: still never let the tool lists fail open.
    problems.push(`${PREFIX} options could not be read; using defaults for all options, and no recovered calls until this is fixed`);
    return { options: withDefaults(closedValuesUnder(OPTIONS.fields, "")), problems };
  }
}

/** Copies only known keys with valid values into a fresh object, so hostile keys never reach a prototype. */
function keepValid(raw: object, fields: Fields, parentPath: string, problems: string[], near: { security: boolean }) {
  const kept: Record<string, unknown> = {};
  let keys: string[];
  try {
    keys = Object.keys(raw);
  } catch {
    problems.push(`${PREFIX} ${parentPath ? `option ${JSON.stringify(parentPath.slice(0, -1))}` : "options"} could not be listed; ${unreadableNote(parentPath)}`);
    return closedValuesUnder(fields, parentPath);
  }
  for (const key of keys) {
    const path = parentPath + key;
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (field === undefined) {
      const unknown = unknownKey(raw, key, parentPath);
      if (unknown.security) near.security = true;
      problems.push(unknown.problem);
      continue;
    }
    const read = readKey(raw, key, field);
    if (!read.ok) {
      const nested = field.kind === "namespace" ? closedValuesUnder(field.fields, `${path}.`) : undefined;
      const closed = field.kind === "namespace" ? undefined : fallbackFor(path, field);
      if (closed?.value !== undefined) kept[key] = closed.value;
      if (nested !== undefined && Object.keys(nested).length > 0) kept[key] = nested;
      const note = closed ? `using ${closed.note}` : unreadableNote(`${path}.`);
      problems.push(`${PREFIX} option ${JSON.stringify(path)} could not be read; ${note}`);
      continue;
    }
    const { value } = read;
    if (field.kind !== "namespace") {
      const checked = read.checked!;
      if (checked.ok) {
        kept[key] = checked.value;
        if (checked.joined) problems.push(joinedProblem(path, checked.joined, checked.value as unknown[]));
      }
      else if (path === "providers" && providersIntent(value) !== undefined) {
        // A bare string or a blank-padded entry names a provider plainly: read it as written (one
        // warning), never as the default "auto", which would reach every leak-prone route elsewhere.
        const intent = providersIntent(value)!;
        kept[key] = intent.value;
        problems.push(`${PREFIX} option ${JSON.stringify(path)} ${intent.note}`);
      } else {
        const expected = checked.message;
        const fallback = fallbackFor(path, field, value);
        if (fallback.value !== undefined) kept[key] = fallback.value;
        problems.push(`${PREFIX} option ${JSON.stringify(path)} ${expected} (got ${show(value, path)}); using ${fallback.note}`);
      }
      if (path === "providers" && Array.isArray(kept[key])) {
        const read = readProviders(kept[key] as string[]);
        kept[key] = read.value;
        if (read.problem) problems.push(read.problem);
      }
    } else if (value === undefined) {
      continue;
    } else if (read.object) {
      kept[key] = keepValid(value as object, field.fields, `${path}.`, problems, near);
    } else {
      const why = closedInside(value, path, SECURITY_NAMESPACES.includes(path));
      if (why !== undefined) near.security = true;
      const closed = why === undefined ? "" : `, and no tool call is recovered until it is fixed (${why})`;
      problems.push(`${PREFIX} option ${JSON.stringify(path)} must be an object (got ${show(value, path)}); using its defaults${closed}`);
    }
  }
  return kept;
}

type Read =
  | { ok: true; value: unknown; checked?: CheckedAsWritten; object: boolean }
  | { ok: false };

/** Reading a key, and checking it (a list is walked through its getters), may throw: that is one unreadable key. */
function readKey(raw: object, key: string, field: OptionSpec | NamespaceSpec): Read {
  try {
    const value = (raw as Record<string, unknown>)[key];
    if (field.kind !== "namespace") return { ok: true, value, checked: checkAsWritten(field, value), object: false };
    return { ok: true, value, object: readableObject(value) };
  } catch {
    return { ok: false };
  }
}

/**
 * An object read key by key as given: a plain object, or any object with nothing of its own (no
 * key, no entry). A list, a Map, a Set or a class instance holding something is not: its keys are
 * no option keys, so what the user wrote in it cannot be read as given. May throw (a Proxy).
 */
function readableObject(value: unknown): value is Record<string, unknown> {
  if (isPlainObject(value)) return true;
  return typeof value === "object" && value !== null && !Array.isArray(value) && !holdsAnything(value);
}

/**
 * Why a value that cannot be read as given (`responseFix: [{ denyTools }]`, the whole options in
 * a list, a JSON string, a Map) closes recovered calls, or undefined when it is only ignored: a
 * security option written anywhere inside it, as for an unknown key; and, for a namespace that
 * holds security options, anything at all inside a list, Map, Set or class instance, since any of
 * it may have been one.
 */
function closedInside(value: unknown, path: string, holdsSecurity: boolean): string | undefined {
  try {
    const inside = securityInside(value, path);
    if (inside === undefined && holdsSecurity && typeof value === "object" && value !== null && holdsAnything(value)) {
      return `${JSON.stringify(path)} holds security options, and what is written there cannot be read as given`;
    }
    return insideReason(inside);
  } catch {
    return insideReason({ unread: true });
  }
}

/** The fail-closed values of every security option under `fields` (an object that could not be read may have set them). */
function closedValuesUnder(fields: Fields, parentPath: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    const path = parentPath + key;
    if (field.kind !== "namespace") {
      if (Object.hasOwn(FAIL_CLOSED, path)) out[key] = structuredClone(FAIL_CLOSED[path]);
    } else {
      const nested = closedValuesUnder(field.fields, `${path}.`);
      if (Object.keys(nested).length > 0) out[key] = nested;
    }
  }
  return out;
}

function unreadableNote(parentPath: string): string {
  const closed = Object.keys(FAIL_CLOSED).filter((path) => path.startsWith(parentPath));
  if (closed.length === 0) return "using its defaults";
  const values = closed.map((path) => `${JSON.stringify(path)} = ${JSON.stringify(FAIL_CLOSED[path])}`).join(" and ");
  return `using its defaults, except ${values} (no recovered calls until this is fixed)`;
}

/**
 * What a bad value is replaced by: a security option's fail-closed value; for a list without one
 * (`providers`), the valid entries the user wrote, since the default ("auto") could reach further
 * than the list they meant (`["my-vllm", 7]` must not act on every DeepSeek route); otherwise the
 * default.
 */
function fallbackFor(path: string, field: OptionSpec, value?: unknown): { value: unknown; note: string } {
  if (Object.hasOwn(FAIL_CLOSED, path)) return { value: structuredClone(FAIL_CLOSED[path]), note: `${JSON.stringify(FAIL_CLOSED[path])} (${CLOSED_WHY})` };
  const kept = field.kind === "names" ? validEntries(value) : [];
  if (kept.length > 0) return { value: kept, note: `the ${kept.length === 1 ? "valid entry" : `${kept.length} valid entries`}` };
  return { value: undefined, note: JSON.stringify(defaultOf(field)) };
}

/**
 * The valid entries of a `providers` list, in order, each with blanks around it trimmed (a provider
 * id never holds one, so `" my-vllm"` can only mean my-vllm); nothing when it is no list or cannot
 * be read. Only `providers` comes here: a security list fails closed before (fallbackFor).
 */
function validEntries(value: unknown): string[] {
  try {
    // Too long to read (check.ts MAX_LIST_ENTRIES): nothing is kept, as for a list that cannot be read.
    if (!Array.isArray(value) || value.length > MAX_LIST_ENTRIES) return [];
    const names: string[] = [];
    for (let index = 0; index < value.length; index++) {
      const name: unknown = value[index];
      const trimmed = typeof name === "string" ? name.trim() : undefined;
      if (trimmed !== undefined && isNameEntry(trimmed)) names.push(trimmed);
    }
    return names;
  } catch {
    return [];
  }
}

/**
 * `providers` written plainly but not as the list it must be: a bare string (`"my-vllm"`, read as
 * `["my-vllm"]`), or a list of provider ids some of which have blanks around them (trimmed).
 * Undefined for anything else (the usual problem line and the valid entries, or the default).
 */
function providersIntent(value: unknown): { value: string[]; note: string } | undefined {
  try {
    if (typeof value === "string") {
      const trimmed = value.trim();
      if (!isNameEntry(trimmed)) return undefined;
      return { value: [trimmed], note: `should be a list of provider ids (got ${show(value, "providers")}); read as a one-entry list: write it as [...]` };
    }
    if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST_ENTRIES) return undefined;
    const names: string[] = [];
    let padded = 0;
    for (let index = 0; index < value.length; index++) {
      const name: unknown = value[index];
      if (typeof name !== "string" || !isNameEntry(name.trim())) return undefined;
      if (name.trim() !== name) padded++;
      names.push(name.trim());
    }
    return { value: names, note: `has ${padded === 1 ? "an entry" : `${padded} entries`} with blanks around ${padded === 1 ? "it" : "them"} (a provider id has none); trimmed` };
  } catch {
    return undefined;
  }
}

/** The most entries of `providers` one problem line describes; the rest are counted. */
const PROVIDER_SLIPS_SHOWN = 3;

/**
 * Review 57: the entries of a `providers` list that cannot name a provider as written, each read
 * the one way that never reaches past what was written, and one problem line for them all:
 *  - a model reference (`"deepseek/deepseek-chat"`, the form of `--model`): OpenCode splits a model
 *    reference at its first "/", so no provider id holds one and the entry covers no route. Dropped,
 *    not read as its provider: `"deepseek"` covers every model of it, more than was written; the
 *    line says to write the provider id for that;
 *  - a scope token in another case (`"AUTO"`, `"Auto"`): the list is compared exactly, and the
 *    token is `"auto"`. Read as `"auto"`, which is what was written (no provider has that id in
 *    any case: the catalog's ids are lower case);
 *  - `"all"` in any case, which is no token (`"*"` is every provider and every model): kept as
 *    written, since a provider may be configured under that id, which is all it covers;
 *  - an entry holding whitespace inside, a control or an invisible character (check.ts
 *    unseenInName), which no provider id holds: dropped, so `"deep\nseek"` never reaches a log line.
 * A mis-cased provider id (`"DeepSeek"`) is left as written: a custom provider may be configured
 * under it, which the options alone cannot see; the start-up line, which has the config, says
 * when it names nothing (src/plugin/startup.ts).
 */
function readProviders(names: readonly string[]): { value: string[]; problem?: string } {
  const value: string[] = [];
  const slips: string[] = [];
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const slip = providerSlip(name);
    if (slip === undefined) {
      value.push(name);
      continue;
    }
    if (slip.read !== undefined) value.push(slip.read);
    slips.push(`entry ${index + 1} ${slip.note}`);
  }
  if (slips.length === 0) return { value };
  const more = slips.length > PROVIDER_SLIPS_SHOWN ? `; and ${slips.length - PROVIDER_SLIPS_SHOWN} more entries like these` : "";
  return { value, problem: `${PREFIX} option "providers" ${slips.slice(0, PROVIDER_SLIPS_SHOWN).join("; ")}${more}` };
}

/** What readProviders makes of one entry: undefined for a provider id or token as written; `read` absent: dropped. */
function providerSlip(name: string): { read?: string; note: string } | undefined {
  const unseen = unseenInName(name);
  if (unseen !== undefined) return { note: `holds ${unseen}, which no provider id does: dropped; write the provider id as OpenCode shows it` };
  const slash = name.indexOf("/");
  if (slash >= 0) {
    const provider = name.slice(0, slash);
    // Quoted only when show() would quote it (a longer value may be a pasted credential).
    const quotable = provider.length > 0 && provider.length <= QUOTE_LIMIT && isNameEntry(provider);
    const instead = quotable ? `write ${show(provider)} to act on every model of that provider` : 'write its provider id (the part before the first "/") to act on every model of that provider';
    return { note: `is a model reference (provider/model), which names no provider: dropped, not read as its provider, which would reach every model of it; ${instead}` };
  }
  const lower = name.toLowerCase();
  if (lower === AUTO_SCOPE && name !== AUTO_SCOPE) return { read: AUTO_SCOPE, note: `${show(name)} is read as "auto" (the scope tokens are lower case); write "auto"` };
  if (lower === "all") return { read: name, note: `${show(name)} is no scope token: kept as a provider id, which covers only a provider configured under exactly that id; write "*" for every provider and every model, or "auto" for models of a leak-prone family` };
  return undefined;
}

/** A tool list with entries written as several names joined by "," or ";": one line saying they were split (check.ts checkAsWritten). */
function joinedProblem(path: string, joined: readonly string[], names: readonly unknown[]): string {
  const shown = joined.slice(0, 2).map((entry) => show(entry, path)).join(", ") + (joined.length > 2 ? ", ..." : "");
  const entries = joined.length === 1 ? "an entry" : `${joined.length} entries`;
  return `${PREFIX} option ${JSON.stringify(path)} has ${entries} holding "," or ";" (${shown}), which no tool name does: split, the list is read as ${names.length} names; write each name as its own entry`;
}

/** Why a security option that could not be read took its fail-closed value. */
const CLOSED_WHY = "no recovered calls until this is fixed";

function unknownKey(raw: object, key: string, parentPath: string): { problem: string; security: boolean } {
  const polluting = isPollutingKey(key);
  const suggestion = polluting ? undefined : suggest(key, parentPath);
  const why = closedBecause(raw, key, parentPath);
  const hint = suggestion === undefined ? "" : suggestion === parentPath + key ? ` (${nestedForm(suggestion)})` : ` (did you mean ${JSON.stringify(suggestion)}?)`;
  const closed = why ? `; ignored, and no tool call is recovered until it is fixed (${why})` : "; ignored";
  return { problem: `${PREFIX} unknown option ${JSON.stringify(parentPath + key)}${hint}${closed}`, security: why !== undefined };
}

/** "responseFix.denyTools" written as one key: how to write it instead. */
function nestedForm(path: string): string {
  const names = path.split(".");
  return `options nest: write ${names.map((name) => `{ ${JSON.stringify(name)}: `).join("")}...${" }".repeat(names.length)}`;
}

/**
 * The nearest option anywhere, by edit distance on its name (or on its whole path, for a key
 * written dotted): "denyTool" at the top level is "responseFix.denyTools". A tie goes to the
 * key's own namespace; a tie between two others ("enabled" at the top level) suggests nothing,
 * since guessing between them would mislead.
 */
function suggest(key: string, parentPath: string): string | undefined {
  let best: { path: string; distance: number; local: boolean }[] = [];
  for (const path of OPTION_PATHS) {
    const name = path.slice(path.lastIndexOf(".") + 1);
    const distance = Math.min(close(key, name) ?? Infinity, key.includes(".") ? (close(key, path) ?? Infinity) : Infinity);
    if (distance === Infinity) continue;
    const candidate = { path, distance, local: path === parentPath + name };
    if (best.length === 0 || distance < best[0]!.distance) best = [candidate];
    else if (distance === best[0]!.distance) best.push(candidate);
  }
  const local = best.find((candidate) => candidate.local);
  if (local) return local.path;
  return best.length === 1 ? best[0]!.path : undefined;
}

/** The longest string a problem line quotes: a longer one may be a pasted credential. */
const QUOTE_LIMIT = 16;
const LIST_TYPES_SHOWN = 4;
/** A key whose value is never quoted, at any depth (no option is named so; a future one might be). */
const CREDENTIAL_KEYS = new Set(["apikey", "api-key", "api_key", "key", "token", "secret", "authorization", "password"]);
const isCredentialKey = (key: string) => CREDENTIAL_KEYS.has(key.toLowerCase());
const KEYS_SHOWN = 5;
const KEY_LIMIT = 32;

/**
 * A value as a log line may show it. A number, a boolean, null, or a string of up to 16 characters
 * is quoted; a longer string only counted. An object or a list is described by its type, its size
 * and its keys (a list by its entries' types), never by a value inside it: a provider block pasted
 * into the plugin's entry (`{ "deepseek": { "options": { "apiKey": ... } } }`) must not put the key
 * into OpenCode's log file. Printing never fails (a Proxy can throw from any trap).
 */
function show(value: unknown, path = ""): string {
  try {
    if (path.split(".").some((name) => isCredentialKey(name))) return `a ${typeName(value)}`;
    if (typeof value === "bigint") return `${value}n`;
    if (typeof value === "function") return "a function";
    if (value === undefined || typeof value === "symbol") return typeof value === "symbol" ? "a symbol" : "undefined";
    if (typeof value === "string") return value.length <= QUOTE_LIMIT ? JSON.stringify(value) : `a string of ${value.length} characters`;
    if (typeof value === "number") return String(value);
    if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? String(value);
    if (value instanceof Map || value instanceof Set) return `a ${value instanceof Map ? "Map" : "Set"} of ${value.size}`;
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]";
      const types = [];
      for (let index = 0; index < Math.min(value.length, LIST_TYPES_SHOWN); index++) types.push(typeName(value[index]));
      const more = value.length > LIST_TYPES_SHOWN ? ", ..." : "";
      return `a list of ${value.length} (${types.join(", ")}${more})`;
    }
    if (!isPlainObject(value)) return "an object that is not plain data";
    const keys = Object.keys(value);
    if (keys.length === 0) return "{}";
    const shown = keys.slice(0, KEYS_SHOWN).map((key) => JSON.stringify(key.length > KEY_LIMIT ? `${key.slice(0, KEY_LIMIT)}...` : key));
    return `an object with key${keys.length === 1 ? "" : "s"} ${shown.join(", ")}${keys.length > KEYS_SHOWN ? ", ..." : ""}`;
  } catch {
    return "an unprintable value";
  }
}

/** One entry's type, for a list's description. */
function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "list";
  return typeof value === "object" ? "object" : typeof value;
}
