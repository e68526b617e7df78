import { isObject } from "../grammar/plain-data.ts";
import type { JsonSchema } from "./types.ts";

// How coercion walks a tool's schema beside a value: the types a place takes, a property's schema
// and an item's. One module below values.ts (coerceValue, coerceDeep) and the Python reader
// (src/parse/python-literal.ts), so both follow a value to the same schema. A place reached through
// a local `$ref` (`#/$defs/S`, `#/definitions/S`, `#`) or an `allOf` is read as the schema it
// names: one markup gives one argument, however the schema spells the same type.

/** The root schema a subschema was reached from (for its local `$ref`s); a root is its own. First walk wins. */
const rootOf = new WeakMap<object, JsonSchema>();
/** How many `$ref`s and branches deep a type is looked for (a cycle ends here too). */
const MAX_DEPTH = 16;

function reached(sub: JsonSchema, from: JsonSchema): JsonSchema {
  if (!rootOf.has(sub)) rootOf.set(sub, rootOf.get(from) ?? from);
  return sub;
}

/** The schema a local `$ref` of `schema` names, or undefined (none, not local, or not found). */
function refTarget(schema: JsonSchema): JsonSchema | undefined {
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
  const root = rootOf.get(schema) ?? schema;
  let at: unknown = root;
  if (ref.length > 1) {
    if (ref[1] !== "/") return undefined;
    for (const raw of ref.slice(2).split("/")) {
      let token: string;
      try {
        token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      } catch {
        return undefined;
      }
      if (!(isObject(at) || Array.isArray(at)) || !Object.prototype.hasOwnProperty.call(at, token)) return undefined;
      at = (at as Record<string, unknown>)[token];
    }
  }
  return isObject(at) ? reached(at as JsonSchema, root) : undefined;
}

/**
 * A value read at a place whose schema the walk gave up following (more than MAX_DEPTH `$ref`s and
 * branches deep, or a cycle of them): which types it takes is unknown, so the value cannot be read
 * one way rather than another (`string="false"` decoded or kept). Left in the arguments as this
 * token, which the schema gate refuses (fail closed): never a reading the gate's ajv, which
 * follows the whole chain, might read the other way.
 */
export const UNFOLLOWED_PLACE: object = Object.freeze({});

/** What propertySchema and itemSchema give for a place they gave up looking for: placeTypes reads it as unfollowed. */
const UNFOLLOWED_SCHEMA: JsonSchema = Object.freeze({}) as JsonSchema;

/**
 * The types a place takes, following `anyOf`/`oneOf`/`allOf` and local `$ref`s; null when the walk
 * gives up before the end (something left to follow at MAX_DEPTH): the place cannot be read.
 */
export function placeTypes(schema: JsonSchema | undefined): Set<string> | null {
  if (schema === UNFOLLOWED_SCHEMA) return null;
  const types = new Set<string>();
  let complete = true;
  const add = (s: JsonSchema, depth: number) => {
    if (typeof s.type === "string") types.add(s.type);
    else if (Array.isArray(s.type)) for (const t of s.type) if (typeof t === "string") types.add(t);
    const target = refTarget(s);
    if (depth >= MAX_DEPTH) {
      if (target || (["anyOf", "oneOf", "allOf"] as const).some((key) => { const b = (s as Record<string, unknown>)[key]; return Array.isArray(b) && b.some(isObject); })) complete = false;
      return;
    }
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      const branches = (s as Record<string, unknown>)[key];
      if (Array.isArray(branches)) for (const branch of branches) if (isObject(branch)) add(reached(branch as JsonSchema, s), depth + 1);
    }
    if (target) add(target, depth + 1);
  };
  if (isObject(schema)) add(schema, 0);
  return complete ? types : null;
}

/** placeTypes, with a place the walk gave up on read as taking no type. */
export function schemaTypes(schema: JsonSchema | undefined): Set<string> {
  return placeTypes(schema) ?? new Set();
}

/** A property's schema, following the object's local `$ref`s; past MAX_DEPTH of them, a place placeTypes reads as unfollowed. */
export function propertySchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  if (schema === UNFOLLOWED_SCHEMA) return schema;
  let s = schema;
  for (let depth = 0; isObject(s) && depth <= MAX_DEPTH; s = refTarget(s), depth++) {
    const props = s.properties;
    if (isObject(props) && Object.prototype.hasOwnProperty.call(props, key)) {
      const prop = props[key];
      return isObject(prop) ? reached(prop as JsonSchema, s) : prop;
    }
  }
  return isObject(s) && s !== UNFOLLOWED_SCHEMA ? UNFOLLOWED_SCHEMA : undefined;
}

// Item `index`'s schema: its tuple place (`prefixItems`, or draft-07 `items: [...]`), else the
// rest's (`items`, or draft-07 `additionalItems`). The gate still checks what coercion made.
export function itemSchema(schema: JsonSchema, index: number): JsonSchema | undefined {
  if (schema === UNFOLLOWED_SCHEMA) return schema;
  let s: JsonSchema | undefined = schema;
  for (let depth = 0; isObject(s) && depth <= MAX_DEPTH; s = refTarget(s), depth++) {
    const { prefixItems, items, additionalItems } = s as { prefixItems?: unknown; items?: unknown; additionalItems?: unknown };
    if (prefixItems === undefined && items === undefined && additionalItems === undefined) continue;
    const places = Array.isArray(prefixItems) ? prefixItems : Array.isArray(items) ? items : [];
    const place: unknown = index < places.length ? places[index] : Array.isArray(items) ? additionalItems : items;
    return isObject(place) ? reached(place as JsonSchema, s) : undefined;
  }
  return isObject(s) && s !== UNFOLLOWED_SCHEMA ? UNFOLLOWED_SCHEMA : undefined;
}
