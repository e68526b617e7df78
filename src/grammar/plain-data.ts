// Plain data from outside (JSON bodies, options, parsed arguments): the one object guard, the one
// set of keys that must never be copied into an object, and JSON that may not parse.

/** A JSON-style object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Keys that reach a prototype when assigned or merged; every reader drops them. */
const POLLUTING_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export function isPollutingKey(key: string): boolean {
  return POLLUTING_KEYS.has(key);
}

/** JSON.parse without a throw: undefined when `text` is not JSON (no JSON text parses to undefined). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
