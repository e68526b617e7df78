// Where a security option may hide in a value the options readers cannot read as given: a key
// close to a security option's name or to the namespace holding them, searched for anywhere inside
// (objects, lists, Maps, Sets, and strings, which may be JSON or YAML-like text). Shared by the
// plugin's reading of its config (src/plugin/options.ts) and the library's (src/options/settle.ts).
import { type Fields, OPTIONS, SECURITY_OPTIONS } from "./spec.ts";

/** How far a written key may be from an option's name: one edit per four letters, at least one. */
export function close(written: string, name: string): number | undefined {
  const most = Math.max(1, Math.floor(name.length / 4));
  // The distance is at least the difference in length: a long key is never measured letter by letter.
  if (Math.abs(written.length - name.length) > most) return undefined;
  const distance = editDistance(written.toLowerCase(), name.toLowerCase());
  return distance <= most ? distance : undefined;
}

/** Edits between two names, a swap of two neighbouring letters counting as one ("hermse" is one from "hermes"). */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Every option path, namespaces included ("parse", "parse.dialects", "parse.dialects.hermes", ...). */
function optionPaths(fields: Fields, parentPath: string): string[] {
  return Object.entries(fields).flatMap(([key, field]) => [parentPath + key, ...(field.kind === "namespace" ? optionPaths(field.fields, `${parentPath}${key}.`) : [])]);
}

export const OPTION_PATHS = optionPaths(OPTIONS.fields, "");

/** Close to a security option's name, or (a key written dotted) to its path or in any one of its parts ("x.denyTools"). */
function nearSecurityOption(key: string): boolean {
  const parts = key.includes(".") ? [key, ...key.split(".")] : [key];
  return SECURITY_OPTIONS.some((path) => parts.some((part) => close(part, path.slice(path.lastIndexOf(".") + 1)) !== undefined) || (key.includes(".") && close(key, path) !== undefined));
}

/** The namespaces that hold a security option ("responseFix"), by path. */
export const SECURITY_NAMESPACES = OPTION_PATHS.filter((path) => SECURITY_OPTIONS.some((option) => option.startsWith(`${path}.`)));

/** The security namespace a key is close to, by its name (or, written dotted, its path): "responsefix", "response_fix". */
function nearSecurityNamespace(key: string): string | undefined {
  return SECURITY_NAMESPACES.find((path) => close(key, path.slice(path.lastIndexOf(".") + 1)) !== undefined || (key.includes(".") && close(key, path) !== undefined));
}

function nearSecurity(key: string): boolean {
  return nearSecurityOption(key) || nearSecurityNamespace(key) !== undefined;
}

/** Why a value that could not be searched, or that holds a key close to a security option, closes recovered calls. */
export function insideReason(inside: Inside): string | undefined {
  if (inside === undefined) return undefined;
  if ("unread" in inside) return UNREAD_REASON;
  const found = JSON.stringify(inside.found);
  return `it holds ${found.length > FOUND_LIMIT ? `${found.slice(0, FOUND_LIMIT)}...` : found}, which is close to a security option`;
}

const UNREAD_REASON = "it could not be read to the end, and may hold a security option";
/** A found path goes into a log line: kept as short as the readers' own shown values. */
const FOUND_LIMIT = 60;

/**
 * Why an unknown key closes recovered calls, or undefined when it is only ignored: the rule both
 * options readers (the plugin's and the library's) apply. Its name may be close to a security
 * option ("denyTool") or to the namespace that holds them ("responsefix"); and, since an unknown
 * key is dropped whole, a security option written anywhere inside it (`{ "respFix": { "denyTools":
 * [...] } }`) would otherwise be dropped in silence. Never throws (a getter or Proxy that does
 * counts as a value that may hold one); the reason names keys, never a value.
 */
export function closedBecause(raw: object, key: string, parentPath: string): string | undefined {
  try {
    if (nearSecurityOption(key)) return "it is close to a security option";
    const namespace = nearSecurityNamespace(key);
    if (namespace !== undefined) return `it is close to ${JSON.stringify(namespace)}, which holds security options`;
    const value = (raw as Record<string, unknown>)[key];
    const list = namesListIn(parentPath, key, value) ?? toolsOffIn(parentPath, key, value);
    if (list !== undefined) return list;
    return insideReason(securityInside(value, parentPath + key));
  } catch {
    return UNREAD_REASON;
  }
}

/**
 * Why an unknown key holding a list of names, directly in a namespace that holds security options,
 * closes recovered calls: in `responseFix` such a list can only be a tool list under another name
 * (Claude Code's `disallowedTools`, `deniedTools`, `blockedTools`, `excludeTools`), too far from
 * `denyTools` to be a near miss, and read as a restriction by whoever wrote it. The near miss
 * `allowedTools` closes; its partner must too, or the deny-list spelling alone fails open. An
 * empty list restricts nothing and is only ignored; a value that is no list is judged as before.
 * A list past INSIDE_KEYS entries is left to securityInside, which stops there and closes. Throws
 * on a hostile list (the caller counts that as unread).
 */
function namesListIn(parentPath: string, key: string, value: unknown): string | undefined {
  if (!SECURITY_NAMESPACES.some((path) => parentPath === `${path}.`) || !Array.isArray(value) || value.length === 0 || value.length > INSIDE_KEYS) return undefined;
  for (let index = 0; index < value.length; index++) if (typeof value[index] !== "string") return undefined;
  const namespace = parentPath.slice(0, -1);
  const meant = LISTS.find(([, words]) => words.some((word) => key.toLowerCase().includes(word)));
  const options = meant ? JSON.stringify(`${namespace}.${meant[0]}`) : LISTS.map(([name]) => JSON.stringify(`${namespace}.${name}`)).join(" or ");
  return `it is a list of names in ${JSON.stringify(namespace)}, where only the tool lists take one: did you mean ${options}?`;
}

/**
 * Why an unknown key holding OpenCode's own "tool off" map, directly in a namespace that holds
 * security options, closes recovered calls: `"tools": { "bash": false }` or `"permission": {
 * "bash": "deny" }` (or a pattern map, `{ "bash": { "rm *": "deny" } }`) is how OpenCode switches
 * a tool off, and written in `responseFix` it reads as "no recovered bash call" to whoever wrote
 * it, as plainly as `disallowedTools: ["bash"]` (namesListIn). A key naming one of the plugin's
 * own options (`{ "dialects": { "hermes": false } }`, a namespace put in the wrong place) is no
 * tool, and a map turning tools on (`{ "bash": true }`) restricts nothing: both are only reported.
 * Up to INSIDE_KEYS entries; past them securityInside judges the value. Throws on a hostile map
 * (the caller counts that as unread).
 */
function toolsOffIn(parentPath: string, key: string, value: unknown): string | undefined {
  if (!SECURITY_NAMESPACES.some((path) => parentPath === `${path}.`) || !isPlainObject(value)) return undefined;
  const names = Object.keys(value);
  if (names.length > INSIDE_KEYS) return undefined;
  const off = names.filter((name) => !OPTION_NAMES.has(name) && (turnsOff(value[name]) || (isPlainObject(value[name]) && Object.values(value[name]).some(turnsOff))));
  if (off.length === 0) return undefined;
  const namespace = parentPath.slice(0, -1);
  const shown = off.slice(0, 3).map((name) => JSON.stringify(name.length > FOUND_LIMIT ? `${name.slice(0, FOUND_LIMIT)}...` : name));
  return `it switches ${shown.join(", ")}${off.length > 3 ? ", ..." : ""} off the way OpenCode's own config does, but in ${JSON.stringify(namespace)} only the tool lists name tools: did you mean ${JSON.stringify(`${namespace}.denyTools`)}?`;
}

/** OpenCode's "off" values: `false` in `tools`, "deny" in `permission`. */
function turnsOff(value: unknown): boolean {
  return value === false || (typeof value === "string" && value.trim().toLowerCase() === "deny");
}

/** Every option's and namespace's own name ("enabled", "hermes", "dialects"): never taken for a tool's. */
const OPTION_NAMES: ReadonlySet<string> = new Set(OPTION_PATHS.map((path) => path.slice(path.lastIndexOf(".") + 1)));

/** Which tool list (spec.ts responseFix) a key holding names most likely meant, by a word in it; the deny words first ("disallowed" holds "allow"). */
const LISTS: readonly (readonly [string, readonly string[]])[] = [
  ["denyTools", ["deny", "denied", "disallow", "block", "exclude", "forbid", "ban", "reject", "disable", "skip", "ignore", "never"]],
  ["allowTools", ["allow", "permit", "include", "enable", "only", "whitelist", "safe"]],
];

/** A JSON-style object as written in a config: not a list, and not a Map, a Set or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Whether a value that is no plain object holds anything at all: a list, Map or Set with entries, an object with own keys, a non-blank string. Throws when it cannot be told. */
export function holdsAnything(value: unknown): boolean {
  if (typeof value === "string") return value.trim().length > 0;
  if (typeof value !== "object" || value === null) return false;
  if (value instanceof Map || value instanceof Set) return value.size > 0;
  return Reflect.ownKeys(value).filter((key) => key !== "length" || !Array.isArray(value)).length > 0;
}

type Inside = { found: string } | { unread: true } | undefined;

const UNREAD = { unread: true } as const;

/** How deep, and across how many keys, a value is searched; past either it may hold anything. */
const INSIDE_DEPTH = 16;
const INSIDE_KEYS = 10_000;
/** Characters of text searched in all; past them a string may hold anything. */
const INSIDE_TEXT = 100_000;

/**
 * A key close to a security option or its namespace anywhere inside `value`, read only (nothing
 * is copied): object keys, Map keys, the words of a string (JSON or YAML-like text pasted as a
 * string: `'{"denyTools": ["bash"]}'`), through lists, Map values and Sets. A getter or Proxy that
 * throws, a value nested deeper than INSIDE_DEPTH, wider than INSIDE_KEYS keys in all, or longer than
 * INSIDE_TEXT characters of text in all stops the search: it could have held one, so it counts as unread. A
 * value met twice (a cycle, a shared object) is searched once.
 */
export function securityInside(value: unknown, path: string): Inside {
  const seen = new Set<object>();
  let budget = INSIDE_KEYS;
  let textBudget = INSIDE_TEXT;
  const words = (text: string, at: string): Inside => {
    textBudget -= text.length;
    if (textBudget < 0) return UNREAD;
    for (const word of wordsOf(text)) {
      if (nearSecurity(word)) return { found: `${at} (the text ${JSON.stringify(word)})` };
    }
    return undefined;
  };
  const search = (current: unknown, at: string, depth: number): Inside => {
    if (typeof current === "string") return words(current, at);
    if (typeof current !== "object" || current === null || seen.has(current)) return undefined;
    seen.add(current);
    if (depth > INSIDE_DEPTH) return UNREAD;
    let entries: [key: unknown, read: () => unknown][];
    let list: boolean;
    try {
      list = Array.isArray(current);
      if (current instanceof Map) entries = [...current.entries()].map(([key, item]) => [key, () => item]);
      else if (current instanceof Set) entries = [...current.values()].map((item, index) => [index, () => item]);
      else entries = Object.keys(current).map((key) => [key, () => (current as Record<string, unknown>)[key]]);
      if (current instanceof Set) list = true;
    } catch {
      return UNREAD;
    }
    for (const [child, read] of entries) {
      if (--budget < 0) return UNREAD;
      const childPath = list ? `${at}[${String(child)}]` : `${at}.${typeof child === "string" ? child : "?"}`;
      if (!list && typeof child === "string" && nearSecurity(child)) return { found: childPath };
      if (!list && typeof child !== "string") {
        const key = search(child, childPath, depth + 1);
        if (key !== undefined) return key;
      }
      let next: unknown;
      try {
        next = read();
      } catch {
        return UNREAD;
      }
      const result = search(next, childPath, depth + 1);
      if (result !== undefined) return result;
    }
    return undefined;
  };
  return search(value, path, 1);
}

/** A letter, a digit or `_`; `.` and `-` join a word too ("responseFix.denyTools", "deny-tools"). */
function wordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** The words of a text (a letter or `_` first, then letters, digits, `_`, `.` and `-`), in one pass, no regex. */
function* wordsOf(text: string): Generator<string> {
  let start = -1;
  for (let index = 0; index <= text.length; index++) {
    const code = index < text.length ? text.charCodeAt(index) : -1;
    const inWord = code !== -1 && (wordChar(code) || (start !== -1 && (code === 46 || code === 45)));
    if (inWord) {
      if (start === -1 && code >= 48 && code <= 57) continue;
      if (start === -1) start = index;
    } else if (start !== -1) {
      yield text.slice(start, index);
      start = -1;
    }
  }
}
