// The recovered calls a streamed reply already sent, for the native call that repeats one. Parallel
// calls on, a recovered call goes out as soon as it is read (latency: the client may run it while
// the reply streams on); a native call for the same tool with the same input after it is then the
// same call twice (the JSON path, which sees both at once, strips the leak as the native call's
// duplicate, D08). The streamed wires (and the middleware's stream) hold a native call whose tool
// is among these until its input is complete, and drop it when it repeats one (held-native.ts, the
// one unit they share for it): the client runs it once. A native call with other
// input, or the same call twice natively (each sent call matches one native call at most), passes.
// The sent call's input is the one the schema gate made (coerced: `"60000"` read as 60000 for an
// integer place); the native call's input is the model's as written. It is compared after the same
// coercion (coerceDeep under the tool's schema, as the gate reads a leak), so the same call written
// twice, word for word, is one call on the stream as on the JSON path (review 51).
import type { JsonSchema, RecoveredCall, ToolSpec } from "../parse/types.ts";
import { NOT_AN_INTEGER, PROTOTYPE_KEY_WRITTEN, UNFOLLOWED_PLACE, coerceDeep } from "../parse/values.ts";
import { isObject } from "../grammar/plain-data.ts";
import { HELD_EVENT_LIMIT } from "../sse/rewrite.ts";

/** Nesting deeper than this is not compared: such a call is never taken for a duplicate. */
const MAX_DEPTH = 64;

/**
 * The most a held native call may take (characters of its arguments, or events) before it goes
 * out as it came, undecided: the stream's own bound on one event, and a count of events with it.
 */
export const HELD_NATIVE_CHARS = HELD_EVENT_LIMIT;
export const HELD_NATIVE_EVENTS = 65536;

export class SentCalls {
  /** Tool name → the canonical inputs of the calls sent for it, not yet matched by a native call. */
  #sent = new Map<string, string[]>();
  /** The request's tools: the schema a native call's input is coerced under before it is compared. */
  #tools: readonly ToolSpec[];

  /** `tools`: the tools the request declared (none: a native input is compared as written). */
  constructor(tools: readonly ToolSpec[] = []) {
    this.#tools = tools;
  }

  /** A recovered call went out to the client. */
  add(call: RecoveredCall): void {
    const key = canonical(call.input, 0);
    if (key === undefined) return;
    const list = this.#sent.get(call.tool);
    if (list) list.push(key);
    else this.#sent.set(call.tool, [key]);
  }

  /** Some call sent is not matched by a native call yet (a native call not named yet may repeat it). */
  get any(): boolean {
    return this.#sent.size > 0;
  }

  /** A native call for `tool` may repeat a call sent: it is held until its input is complete. */
  has(tool: unknown): boolean {
    return typeof tool === "string" && this.#sent.has(tool);
  }

  /**
   * The native call's complete input (a JSON text, as the wires stream it, or the object): true
   * when it repeats a call sent (same tool, same input, key order aside), which it then uses up.
   */
  take(tool: unknown, input: unknown): boolean {
    if (typeof tool !== "string") return false;
    const list = this.#sent.get(tool);
    if (!list) return false;
    let value = input;
    if (typeof input === "string") {
      try {
        value = JSON.parse(input.trim() === "" ? "{}" : input);
      } catch {
        return false;
      }
    }
    const schema = this.#schemaOf(tool);
    if (schema !== undefined) {
      try {
        value = coerceDeep(value, schema);
      } catch {
        return false;
      }
    }
    const key = canonical(value, 0);
    const at = key === undefined ? -1 : list.indexOf(key);
    if (at === -1) return false;
    list.splice(at, 1);
    if (list.length === 0) this.#sent.delete(tool);
    return true;
  }

  /**
   * The schema the engine read a call of `tool` with: its first declaration's (a name declared
   * twice reads with the first, and a call sent fit every declaration). A host's getter may throw:
   * then none, and the input is compared as written.
   */
  #schemaOf(tool: string): JsonSchema | undefined {
    try {
      const schema: unknown = this.#tools.find((spec) => spec.name === tool)?.parameters;
      return isObject(schema) ? (schema as JsonSchema) : undefined;
    } catch {
      return undefined;
    }
  }
}

/** A JSON value as one text, object keys sorted; undefined past MAX_DEPTH or for what JSON has not. */
function canonical(value: unknown, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  // What coerceDeep leaves where a value cannot be read (the gate refuses such a call): never a match.
  if (value === UNFOLLOWED_PLACE || value === NOT_AN_INTEGER || value === PROTOTYPE_KEY_WRITTEN) return undefined;
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : undefined;
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      const text = canonical(item, depth + 1);
      if (text === undefined) return undefined;
      items.push(text);
    }
    return `[${items.join(",")}]`;
  }
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const fields: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const text = canonical(record[key], depth + 1);
      if (text === undefined) return undefined;
      fields.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${fields.join(",")}}`;
  }
  return undefined;
}
