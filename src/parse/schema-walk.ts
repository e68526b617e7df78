import { isObject } from "../grammar/plain-data.ts";
import type { JsonSchema } from "./types.ts";

// How coercion walks a tool's schema beside a value: the types a place takes, a property's schema
// and an item's. One module below values.ts (coerceValue, coerceDeep) and the Python reader
// (src/parse/python-literal.ts), so both follow a value to the same schema.

export function schemaTypes(schema: JsonSchema | undefined): Set<string> {
  const types = new Set<string>();
  if (!schema) return types;
  const add = (s: JsonSchema) => {
    if (typeof s.type === "string") types.add(s.type);
    else if (Array.isArray(s.type)) for (const t of s.type) types.add(t);
  };
  add(schema);
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) add(branch);
  return types;
}

export function propertySchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  const props = schema?.properties;
  if (!props || !Object.prototype.hasOwnProperty.call(props, key)) return undefined;
  return props[key];
}

// Item `index`'s schema: its tuple place (`prefixItems`, or draft-07 `items: [...]`), else the
// rest's (`items`, or draft-07 `additionalItems`). The gate still checks what coercion made.
export function itemSchema(schema: JsonSchema, index: number): JsonSchema | undefined {
  const { prefixItems, items, additionalItems } = schema as { prefixItems?: unknown; items?: unknown; additionalItems?: unknown };
  const places = Array.isArray(prefixItems) ? prefixItems : Array.isArray(items) ? items : [];
  const place: unknown = index < places.length ? places[index] : Array.isArray(items) ? additionalItems : items;
  return isObject(place) ? (place as JsonSchema) : undefined;
}
