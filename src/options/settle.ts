// Reading the library caller's options once, key by key, so later reads cannot throw or change under the repair.
import { isObject, isPollutingKey } from "../grammar/plain-data.ts";
import { type AdapterOptions, debugLine, type ResponseFixOptions } from "./adapter.ts";
import { closedBecause, holdsAnything, isPlainObject, securityInside } from "./security-search.ts";
import { checkAsWritten } from "./check.ts";
import { BUFFER_LIMIT, expectation, FAIL_CLOSED, type Fields, OPTIONS, type OptionSpec } from "./spec.ts";

const RESPONSE_FIX = OPTIONS.fields.responseFix.fields;
const HISTORY = OPTIONS.fields.history.fields;
const PARSE = OPTIONS.fields.parse.fields;

/**
 * A plain copy of the caller's options, each key read on its own: a throwing getter or a hostile
 * Proxy costs only that key, never its neighbours. A key that cannot be read gets its fail-closed
 * value (allowTools none, denyTools every tool, echo guard on) or its default, and one debug line
 * naming its path; so does a value of the wrong type in `parse` and `responseFix` (typedLeaves) and
 * in `history.sanitize`, and `parse`, `parse.dialects` or `history` given as no object (its
 * defaults; `null` is not given). Taken once per adapter, so later reads cannot throw or change under the repair.
 */
export function settleOptions(options: AdapterOptions): AdapterOptions {
  const out: AdapterOptions = {};
  const debug = readGuarded(options, "debug");
  if (debug.ok && typeof debug.value === "function") out.debug = debug.value as AdapterOptions["debug"];
  const note = (path: string, fallback: string) => debugLine(out, `option ${path} could not be read; using ${fallback}`);
  if (!debug.ok) note("debug", "no debug output");
  const onResult = readGuarded(options, "onResult");
  if (!onResult.ok) note("onResult", "no result callback");
  else if (onResult.value !== undefined) out.onResult = onResult.value as AdapterOptions["onResult"];
  const onRepairing = readGuarded(options, "onRepairing");
  if (!onRepairing.ok) note("onRepairing", "no request callback");
  else if (onRepairing.value !== undefined) out.onRepairing = onRepairing.value as AdapterOptions["onRepairing"];
  const parse = readGuarded(options, "parse");
  if (!parse.ok) note("parse", "the default parse options");
  else if (notGiven(parse.value)) {
    // `parse: null` is not given, as `responseFix: null` is.
  } else if (noObject(parse.value)) notObject(out, "parse");
  else out.parse = typedLeaves(plainCopy(parse.value, "parse", note, 2), PARSE, "parse", out) as AdapterOptions["parse"];
  const history = readGuarded(options, "history");
  // `history: false` reads as "no history cleaning" to whoever wrote it, and turns nothing off: said once.
  const historyGiven = history.ok && !notGiven(history.value);
  const historyObject = historyGiven && !noObject(history.value);
  if (historyGiven && !historyObject) notObject(out, "history");
  const sanitize = history.ok ? readGuarded(historyObject ? history.value : undefined, "sanitize") : history;
  if (!sanitize.ok) note("history.sanitize", String(HISTORY.sanitize.default));
  else if (typeof sanitize.value === "boolean") out.history = { sanitize: sanitize.value };
  else if (sanitize.value !== undefined) wrongType(out, "history.sanitize", HISTORY.sanitize);
  const closedNote = `its defaults, except ${CLOSED_FIX.map(([key, value]) => `${key} ${JSON.stringify(value)}`).join(" and ")} (no recovered calls)`;
  // Options that are no object (a list around them, a JSON string, a Map) cannot be read as given:
  // a security option written anywhere inside them closes recovered calls, as the plugin's reading does.
  const whole = readGuarded(options, "", () => (options === undefined || readThroughProperties(options) ? undefined : securityInside(options, "options")));
  if (!whole.ok || whole.value !== undefined) {
    debugLine(out, `options must be an object; using ${closedNote}, since they may hold a security option`);
    out.responseFix = closedResponseFix();
    return out;
  }
  // A misspelt security key (`respFix`, `denytools`), or a security option under an unknown key,
  // closes recovered calls as the plugin's reading does: the caller believes something is denied.
  const misspelt = misspeltSecurity(options, OPTIONS.fields, "", ADAPTER_KEYS);
  const closedValues = CLOSED_FIX.map(([key, value]) => `responseFix.${key} ${JSON.stringify(value)}`).join(" and ");
  for (const line of misspelt) debugLine(out, `${line}; using ${closedValues}: no recovered calls until it is fixed`);
  const fix = readGuarded(options, "responseFix");
  if (!fix.ok) {
    note("responseFix", closedNote);
    out.responseFix = closedResponseFix();
  } else if (fix.value !== undefined && fix.value !== null) {
    // A list around the object, a JSON string or a Map holding entries: its keys are no option
    // keys, and what it holds may be a deny list. Closed, unless nothing in it could be one.
    const given = readGuarded(fix.value, "", () => readThroughProperties(fix.value) || (securityInside(fix.value, "responseFix") === undefined && !(typeof fix.value === "object" && holdsAnything(fix.value))));
    if (!given.ok || given.value !== true) {
      debugLine(out, `option responseFix must be an object; using ${closedNote}`);
      out.responseFix = closedResponseFix();
    } else if (typeof fix.value === "object") {
      out.responseFix = typedLeaves(settleResponseFix(fix.value, note), RESPONSE_FIX, "responseFix", out) as ResponseFixOptions;
    } else {
      debugLine(out, "option responseFix must be an object; using its defaults");
    }
  }
  if (misspelt.length > 0) out.responseFix = { ...out.responseFix, ...closedResponseFix() };
  return out;
}

/** Keys the adapters take beyond the option spec (the middleware's sanitizeHistory too): not unknown. */
const ADAPTER_KEYS: ReadonlySet<string> = new Set(["debug", "onResult", "onRepairing", "sanitizeHistory"]);

/**
 * One line for each unknown key, at `parentPath` and in the namespaces under it, that closes
 * recovered calls by the plugin's rule (closedBecause): close to a security option or to the
 * namespace holding them, or holding one inside. It names the key and why, never its value. Keys
 * that cannot be listed may be such a key: one line too. Other unknown keys are ignored, as before.
 */
function misspeltSecurity(value: unknown, fields: Fields, parentPath: string, extra?: ReadonlySet<string>): string[] {
  const keys = readGuarded(value, "", () => (typeof value === "object" && value !== null && readThroughProperties(value) ? Object.keys(value) : []));
  if (!keys.ok) return [`${parentPath ? `option ${parentPath.slice(0, -1)}` : "options"} could not be listed (it may hold a misspelt security option)`];
  const lines: string[] = [];
  for (const key of keys.value as string[]) {
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (field === undefined) {
      if (extra?.has(key)) continue;
      const why = closedBecause(value as object, key, parentPath);
      if (why !== undefined) lines.push(`unknown option ${JSON.stringify(parentPath + key)} ignored (${why})`);
    } else if (field.kind === "namespace") {
      const inner = readGuarded(value, key);
      // A key that cannot be read is settled (and reported) by its own reader.
      if (inner.ok) lines.push(...misspeltSecurity(inner.value, field.fields, `${parentPath + key}.`));
    }
  }
  return lines;
}

/**
 * An object whose options this reader finds by reading its properties: any object but a list, a
 * Map or a Set holding something (a class instance from code is read through its properties, as a
 * plain object is, where the plugin's reader, plugin/options.ts readableObject, refuses one that
 * holds something). May throw (a Proxy).
 */
function readThroughProperties(value: unknown): boolean {
  if (isPlainObject(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  return !(Array.isArray(value) || value instanceof Map || value instanceof Set) || !holdsAnything(value);
}

/** The responseFix keys that close something when unreadable, with the value they close to. */
const CLOSED_FIX = Object.entries(FAIL_CLOSED).flatMap(([path, value]) => (path.startsWith("responseFix.") ? [[path.slice("responseFix.".length), value] as const] : []));

/** responseFix's fail-closed values, fresh (allowTools [], denyTools ["*"]): no recovered calls. Shared with the proxy's config file reading. */
export function closedResponseFix(): { allowTools: string[]; denyTools: string[] } {
  return Object.fromEntries(CLOSED_FIX.map(([key, value]) => [key, structuredClone(value)])) as { allowTools: string[]; denyTools: string[] };
}

/** What an unreadable key becomes, and how its debug line says so. */
function unreadable(spec: OptionSpec): { value?: unknown; note: string } {
  const closed = "failClosed" in spec ? spec.failClosed : undefined;
  if (closed === undefined) return { note: "its default" };
  const shut = JSON.stringify(closed) !== JSON.stringify(spec.default);
  return { value: closed, note: `${JSON.stringify(closed)}${shut ? " (no recovered calls)" : ""}` };
}

function settleResponseFix(raw: unknown, note: (path: string, fallback: string) => void): ResponseFixOptions {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(RESPONSE_FIX)) {
    // A list is copied now: a Proxy array could otherwise throw, or change, while it is used.
    const read = readGuarded(raw, key, () => {
      const value = (raw as Record<string, unknown>)[key];
      return Array.isArray(value) ? Array.from(value as unknown[]) : value;
    });
    if (read.ok) {
      if (read.value !== undefined) out[key] = read.value;
      continue;
    }
    const fallback = unreadable(spec);
    note(`responseFix.${key}`, fallback.note);
    if (fallback.value !== undefined) out[key] = structuredClone(fallback.value);
  }
  return out as ResponseFixOptions;
}

/**
 * `copied` with every value the spec's checker refuses taken out (its default applies) or, for a
 * security option, set to its fail-closed value, each with one debug line naming its path and never
 * its value. A switch written as the string "false" is no boolean: the engine would test it for
 * truth and turn it on (J01 from `standaloneJson: "false"`). bufferLimit takes the library's own
 * floor (BUFFER_LIMIT.libraryMin), not the configuration's.
 */
function typedLeaves(copied: unknown, fields: Fields, path: string, out: AdapterOptions): unknown {
  if (typeof copied !== "object" || copied === null || Array.isArray(copied)) return copied;
  const kept: Record<string, unknown> = { ...(copied as Record<string, unknown>) };
  for (const [key, spec] of Object.entries(fields)) {
    if (!Object.hasOwn(kept, key) || kept[key] === undefined) continue;
    const value = kept[key];
    if (spec.kind === "namespace") {
      if (value === null) delete kept[key];
      else if (typeof value !== "object" || Array.isArray(value)) {
        // `dialects: false` or `"none"` reads as "all off" and turns nothing off: its defaults, said once.
        notObject(out, `${path}.${key}`);
        delete kept[key];
      } else kept[key] = typedLeaves(value, spec.fields, `${path}.${key}`, out);
      continue;
    }
    if (spec === RESPONSE_FIX.bufferLimit && typeof value === "number" && value >= BUFFER_LIMIT.libraryMin) continue;
    const checked = spec === RESPONSE_FIX.bufferLimit ? undefined : checkAsWritten(spec, value);
    if (checked?.ok) {
      if (checked.joined) {
        kept[key] = checked.value;
        debugLine(out, `option ${path}.${key} has ${checked.joined.length === 1 ? "an entry" : `${checked.joined.length} entries`} holding "," or ";", which no tool name does: split, the list is read as ${(checked.value as unknown[]).length} names`);
      }
      continue;
    }
    const fallback = wrongType(out, `${path}.${key}`, spec, checked?.ok === false ? checked.message : undefined);
    if (fallback === undefined) delete kept[key];
    else kept[key] = fallback;
  }
  // A value plainCopy could not copy as plain data under a key no option has: dropped, as before.
  for (const key of Object.keys(kept)) if (kept[key] === NOT_PLAIN) delete kept[key];
  return kept;
}

/** undefined or null: a namespace not given (a JavaScript caller's `parse: cond ? {...} : null`). */
function notGiven(value: unknown): boolean {
  return value === undefined || value === null;
}

/** A value that is surely no object to read keys from (a Proxy whose traps throw is left to its reader, which says it could not be read). */
function noObject(value: unknown): boolean {
  const plain = readGuarded(value, "", () => isObject(value));
  return plain.ok && plain.value === false;
}

/** One debug line for a namespace given as no object: its defaults stand. */
function notObject(out: AdapterOptions, path: string): void {
  debugLine(out, `option ${path} must be an object; using its defaults`);
}

/** One debug line for a value of the wrong type at `path` (`message`: the checker's own, when it has one); the value to use instead (undefined: the default). */
function wrongType(out: AdapterOptions, path: string, spec: OptionSpec, message?: string): unknown {
  const closed = unreadable(spec);
  const expected = spec === RESPONSE_FIX.bufferLimit ? `must be a number from ${BUFFER_LIMIT.libraryMin} up (above ${BUFFER_LIMIT.max} it is taken as ${BUFFER_LIMIT.max})` : (message ?? expectation(spec));
  debugLine(out, `option ${path} ${expected}; using ${closed.note}`);
  return closed.value === undefined ? undefined : structuredClone(closed.value);
}

/** Plain data (options are switches and names), own keys only, each read on its own. */
function plainCopy(value: unknown, path: string, note: (path: string, fallback: string) => void, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  const keys = readGuarded(value, "keys", () => Object.keys(value));
  if (!keys.ok) {
    note(path, "its defaults");
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const key of keys.value as string[]) {
    if (isPollutingKey(key)) continue;
    const read = readGuarded(value, key);
    if (!read.ok) note(`${path}.${key}`, "its default");
    else if (depth > 1 && isPlainData(read.value)) out[key] = plainCopy(read.value, `${path}.${key}`, note, depth - 1);
    else if (typeof read.value !== "object" || read.value === null) out[key] = read.value;
    // A list, or an object past the copied depth: not copied, but marked, so typedLeaves can say so
    // for an option's key (`dialects: ["hermes"]`) and drop it under any other.
    else out[key] = NOT_PLAIN;
  }
  return out;
}

/** What plainCopy leaves for a value it does not copy (typedLeaves reports or drops it). */
const NOT_PLAIN: unique symbol = Symbol("not plain data");

/** Array.isArray throws on a revoked Proxy. */
function isPlainData(value: unknown): boolean {
  const plain = readGuarded(value, "", () => isObject(value));
  return plain.ok && plain.value === true;
}

type Guarded = { ok: true; value: unknown } | { ok: false };

/** One property read (or `read`), which a getter or a Proxy trap may turn into a throw. */
export function readGuarded(from: unknown, key: string, read?: () => unknown): Guarded {
  try {
    return { ok: true, value: read ? read() : (from as Record<string, unknown> | undefined)?.[key] };
  } catch {
    return { ok: false };
  }
}
