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
}

/**
 * Every string inside `value` that substitution changed (an object's key as well as a value),
 * each with how shownValue shows it: for lines that code outside doctor writes from the values
 * (the plugin's option problems, its start-up line), which quote a string whole. Iterative.
 */
export function changedStrings(value: unknown, written: unknown): Change[] {
  const out = new Map<string, Change>();
  const change = (text: string, shownAs: unknown) => {
    if (!out.has(text)) out.set(text, { value: text, json: shownValue(text, shownAs), bare: shownValue(text, shownAs, "bare") });
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
        if (!kept) change(key, UNREAD);
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
 * one of LONG characters or more anywhere, as written or JSON-escaped.
 */
export function asWrittenLine(line: string, changes: readonly Change[], bare = false): string {
  let out = line;
  const longestFirst = [...changes].sort((a, b) => b.value.length - a.value.length);
  for (const change of longestFirst) {
    for (const text of new Set([change.value, change.value.trim()])) {
      const json = JSON.stringify(text);
      out = out.replaceAll(json, change.json);
      if (text.length >= LONG) for (const form of new Set([json.slice(1, -1), text])) out = out.replaceAll(form, change.bare);
      else if (bare && text !== "") out = replaceName(out, text, change.bare);
    }
  }
  return out;
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
