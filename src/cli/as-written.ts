// What doctor prints of a config value. OpenCode substitutes `{env:NAME}` and `{file:PATH}` in a
// config's text before it parses it, and doctor judges the values as substituted (config-vars.ts),
// but such a reference most often names a key. So a value is never printed as substitution made
// it: whenever substitution changed it, doctor prints it as the file writes it
// (`"{file:~/key.txt}"`), or by its shape when the file writes it in no one string (a reference
// outside a string, a value one substitution split or joined). Which values substitution changed
// is told by reading the file twice, substituted and as written, and comparing the same place in
// both: a value equal to what the file writes there is the file's own text.
import { isObject } from "../grammar/plain-data.ts";
import { parseJsonc } from "../options/jsonc.ts";

/** No value as written stands at this place: the text parses only once substituted, or the place exists only after it. */
export const UNREAD: unique symbol = Symbol("unread");

/** The file's text as written, parsed: UNREAD when it does not parse so (a reference outside a string). */
export function readWritten(text: string): unknown {
  try {
    return parseJsonc(text);
  } catch {
    return UNREAD;
  }
}

/** The same place one level down in a value as written (a list's index, an object's own key). */
export function writtenAt(written: unknown, key: string | number): unknown {
  if (typeof key === "number") return Array.isArray(written) && key < written.length ? written[key] : UNREAD;
  return isObject(written) && Object.hasOwn(written, key) ? written[key] : UNREAD;
}

/** Whether substitution left `value` as the file writes it: equal data at the same place. Iterative: a config may nest deep. */
export function asWritten(value: unknown, written: unknown): boolean {
  const pending: [unknown, unknown][] = [[value, written]];
  while (pending.length > 0) {
    const [a, b] = pending.pop()!;
    if (a === b) continue;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) pending.push([a[i], b[i]]);
    } else if (isObject(a)) {
      if (!isObject(b)) return false;
      const keys = Object.keys(a);
      if (keys.length !== Object.keys(b).length) return false;
      for (const key of keys) {
        if (!Object.hasOwn(b, key)) return false;
        pending.push([a[key], b[key]]);
      }
    } else {
      return false;
    }
  }
  return true;
}

/** A string as written that holds a reference: what substitution replaced is in it, named, never its result. */
function holdsReference(written: unknown): written is string {
  return typeof written === "string" && (written.includes("{env:") || written.includes("{file:"));
}

/**
 * The one rule, for any config value doctor prints: `value` (substituted) itself when substitution
 * left it as written, as JSON (`form` "json") or as its bare text ("bare", for a name inside a
 * sentence); else the string the file writes there when that holds the reference; else its shape.
 */
export function shownValue(value: unknown, written: unknown, form: "json" | "bare" = "json"): string {
  if (asWritten(value, written)) return form === "bare" && typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  if (holdsReference(written)) return form === "bare" ? written : JSON.stringify(written);
  return `a substituted ${shapeOf(value)}`;
}

function shapeOf(value: unknown): string {
  if (typeof value === "string") return `string of ${value.length} character(s)`;
  if (Array.isArray(value)) return `list of ${value.length} item(s)`;
  if (isObject(value)) return `object of ${Object.keys(value).length} key(s)`;
  return value === null ? "null" : typeof value;
}

/** One string substitution changed, and how the rule shows it. */
export interface Change {
  value: string;
  json: string;
  bare: string;
  /** Inside a quoted text (a dotted option path, a key cut short): the reference as written, JSON-escaped, or the shape in angle brackets. */
  inQuotes: string;
  /** An object's key somewhere: the plugin's lines name it inside a dotted option path too. */
  key: boolean;
}

/**
 * Every string inside `value` that substitution changed (an object's key as well as a value),
 * each with how shownValue shows it: for lines that code outside doctor writes from the values
 * (the plugin's option problems, its start-up line), which quote a string whole. Iterative.
 */
export function changedStrings(value: unknown, written: unknown): Change[] {
  const out = new Map<string, Change>();
  const change = (text: string, shownAs: unknown, key = false) => {
    const known = out.get(text);
    if (known) {
      known.key ||= key;
      return;
    }
    const bare = shownValue(text, shownAs, "bare");
    const inQuotes = holdsReference(shownAs) && bare === shownAs ? JSON.stringify(bare).slice(1, -1) : `<${bare}>`;
    out.set(text, { value: text, json: shownValue(text, shownAs), bare, inQuotes, key });
  };
  const pending: [unknown, unknown][] = [[value, written]];
  while (pending.length > 0) {
    const [v, w] = pending.pop()!;
    if (typeof v === "string") {
      if (v !== w) change(v, w);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) pending.push([v[i], writtenAt(w, i)]);
    } else if (isObject(v)) {
      for (const key of Object.keys(v)) {
        const kept = isObject(w) && Object.hasOwn(w, key);
        if (!kept) change(key, UNREAD, true);
        pending.push([v[key], kept ? w[key] : UNREAD]);
      }
    }
  }
  return [...out.values()];
}

/** From this length a changed string is replaced wherever it stands in a line (inside a dotted option path too), not only quoted whole. */
const LONG = 8;

/**
 * A line written from config values by code that quotes a string whole (JSON-quoted; with `bare`,
 * also as a name standing alone between spaces, commas, parentheses or semicolons): each changed
 * string in it shown by the rule. A value is matched trimmed too (a provider id is read trimmed);
 * one of LONG characters or more anywhere, as written or JSON-escaped. The plugin's lines also
 * name a key inside a quoted dotted path (`"responseFix.KEY"`, however short the key) and cut a
 * long key or path short (`"KEY-PREFIX..."`): a changed key there, or the start of a changed
 * string before a cut, is shown by the rule as well.
 */
export function asWrittenLine(line: string, changes: readonly Change[], bare = false): string {
  let out = line;
  const longestFirst = [...changes].sort((a, b) => b.value.length - a.value.length);
  const forms = (change: Change) => new Set([change.value, change.value.trim()]);
  for (const change of longestFirst) for (const text of forms(change)) out = out.replaceAll(JSON.stringify(text), change.json);
  // A key inside a path before any text anywhere: the path then shows it the way it shows a key.
  for (const change of longestFirst) if (change.key && change.value !== "") out = replacePathKey(out, JSON.stringify(change.value).slice(1, -1), change.inQuotes);
  for (const change of longestFirst) {
    for (const text of forms(change)) {
      if (text.length >= LONG) for (const form of new Set([JSON.stringify(text).slice(1, -1), text])) out = out.replaceAll(form, change.bare);
      else if (bare && text !== "") out = replaceName(out, text, change.bare);
    }
  }
  return cutShort(out, longestFirst);
}

/**
 * A key inside a quoted dotted path: between a `"` or `.` and a `"`, `.` or `[` (a list index),
 * with a dot on one side at least (a key quoted whole is the caller's, shown as JSON).
 */
function replacePathKey(line: string, key: string, by: string): string {
  let out = "";
  let from = 0;
  for (let at = line.indexOf(key); at >= 0; at = line.indexOf(key, at + 1)) {
    if (at < from) continue;
    const before = line[at - 1];
    const after = line[at + key.length];
    const bounded = (before === '"' || before === ".") && (after === '"' || after === "." || after === "[");
    if (!bounded || (before !== "." && after !== "." && after !== "[")) continue;
    out += line.slice(from, at) + by;
    from = at + key.length;
  }
  return out + line.slice(from);
}

/** Where a line cuts a quoted text short. */
const CUT = "...";

/**
 * The start of a changed string just before a cut (`"` + the first characters + "..."): a key
 * shown cut at some length, a path cut inside a key. Replaced when it starts a quoted text or a
 * path's key (after `"` or `.`), or is LONG characters or more; as JSON-escaped or as written.
 * Each cut keeps its "...". Doctor's lines are short and their cuts few: the search is bounded by
 * the line, not by the changed string.
 */
function cutShort(line: string, changes: readonly Change[]): string {
  let out = line;
  for (let cut = out.indexOf(CUT); cut >= 0; cut = out.indexOf(CUT, cut + CUT.length)) {
    for (const change of changes) {
      const start = startBefore(out, cut, JSON.stringify(change.value).slice(1, -1)) || startBefore(out, cut, change.value);
      if (start === 0) continue;
      const by = QUOTE_OPENS.has(out[cut - start - 1]!) ? change.inQuotes : change.bare;
      out = out.slice(0, cut - start) + by + out.slice(cut);
      cut += by.length - start;
      break;
    }
  }
  return out;
}

/** What stands before a quoted text or a key of a quoted dotted path. */
const QUOTE_OPENS = new Set(['"', "."]);

/**
 * The length of the longest start of `text` that ends right at `end` in `line` and is one a cut
 * may show: one that starts a quoted text or a path's key, or one of LONG characters or more. 0 when none.
 */
function startBefore(line: string, end: number, text: string): number {
  for (let length = Math.min(text.length, end); length > 0; length--) {
    const from = end - length;
    if (length < LONG && !QUOTE_OPENS.has(line[from - 1]!)) continue;
    if (line.charCodeAt(from) !== text.charCodeAt(0)) continue;
    let same = 1;
    while (same < length && line.charCodeAt(from + same) === text.charCodeAt(same)) same++;
    if (same === length) return length;
  }
  return 0;
}

/** Characters that end a name in a sentence such as the start-up line. */
const NAME_ENDS = new Set([" ", ",", "(", ")", ";", '"', "\n"]);

function replaceName(line: string, name: string, by: string): string {
  let out = "";
  let from = 0;
  for (let at = line.indexOf(name); at >= 0; at = line.indexOf(name, at + 1)) {
    if (at < from) continue;
    const end = at + name.length;
    const alone = (at === 0 || NAME_ENDS.has(line[at - 1]!)) && (end === line.length || NAME_ENDS.has(line[end]!));
    if (!alone) continue;
    out += line.slice(from, at) + by;
    from = end;
  }
  return out + line.slice(from);
}
