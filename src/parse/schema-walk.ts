import { isObject } from "../grammar/plain-data.ts";
import type { JsonSchema } from "./types.ts";
import { resolveRef } from "./schema-refs.ts";

// How coercion walks a tool's schema beside a value: the types a place takes, a property's schema
// and an item's. One module below values.ts (coerceValue, coerceDeep) and the Python reader
// (src/parse/python-literal.ts), so both follow a value to the same schema. A place reached through
// a `$ref` (`#/$defs/S`, `#/definitions/S`, `#`, an `$anchor`, an `$id`: schema-refs.ts) or an
// `allOf` is read as the schema it names: one markup gives one argument, however the schema spells the same type, and wherever in
// the object's schema the parameter is declared (propertySchema).

/** The root schema a subschema was reached from (for its local `$ref`s); a root is its own. First walk wins. */
const rootOf = new WeakMap<object, JsonSchema>();
/** How many `$ref`s and branches deep a type or a property's place is looked for (a cycle ends here too). */
const MAX_DEPTH = 16;
/**
 * How many schemas one walk may visit (placeTypes, propertySchema): a hostile schema of many
 * branches, each naming the same definitions again, ends here as unfollowed, never as work that
 * grows with the product of its branch counts.
 */
const MAX_VISITS = 512;

function reached(sub: JsonSchema, from: JsonSchema): JsonSchema {
  if (!rootOf.has(sub)) rootOf.set(sub, rootOf.get(from) ?? from);
  return sub;
}

/**
 * The schema the `$ref` of `schema` names, as the gate's ajv resolves it (schema-refs.ts: a JSON
 * pointer, an `$anchor`, a reference relative to an `$id`, an absolute URI naming the schema's own
 * `$id`), or undefined (none, or one the walk cannot resolve for certain).
 */
function refTarget(schema: JsonSchema): JsonSchema | undefined {
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref !== "string") return undefined;
  const root = rootOf.get(schema) ?? schema;
  const target = resolveRef(root, schema, ref);
  return target === undefined ? undefined : reached(target, root);
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
 * The types a place takes, following `anyOf`/`oneOf`/`allOf` and `$ref`s; null when the walk
 * gives up before the end (something left to follow at MAX_DEPTH, or past MAX_VISITS), or meets a
 * part of the place it cannot read that may admit any type (review 52: a `$ref` it cannot resolve,
 * a `$dynamicRef`, the place's own `if`/`then`/`else`), unless a type stated on the way there
 * bounds it: the place cannot be read (never read as untyped, whose `string="false"` text is
 * decoded, where the gate's ajv may find `type: "string"`).
 */
export function placeTypes(schema: JsonSchema | undefined): Set<string> | null {
  if (schema === UNFOLLOWED_SCHEMA) return null;
  const types = new Set<string>();
  let complete = true;
  let visits = 0;
  // A schema whose types were all added already (a definition two branches name) adds none again;
  // one still being walked (a cycle) is not in it, so a cycle still ends at MAX_DEPTH, unfollowed.
  // Walked under a bound, it is walked again where no bound holds (its unread parts then count).
  const done = new Set<object>();
  const doneBounded = new Set<object>();
  const add = (s: JsonSchema, depth: number, bounded: boolean) => {
    if (!complete || done.has(s) || (bounded && doneBounded.has(s))) return;
    if (++visits > MAX_VISITS) {
      complete = false;
      return;
    }
    const own = ownTypes(s);
    for (const t of own) types.add(t);
    // The value fits every schema on the way to a part as well as the part: a type stated there
    // (counted above) bounds what an unread part may admit.
    const inner = bounded || own.length > 0 || allOfTyped(s);
    const record = s as Record<string, unknown>;
    const target = refTarget(s);
    if (!inner && hasUnreadPart(record, target)) {
      complete = false;
      return;
    }
    if (depth >= MAX_DEPTH) {
      if (target || (["anyOf", "oneOf", "allOf"] as const).some((key) => { const b = record[key]; return Array.isArray(b) && b.some(isObject); })) complete = false;
      return;
    }
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      const branches = record[key];
      if (Array.isArray(branches)) for (const branch of branches) if (isObject(branch)) add(reached(branch as JsonSchema, s), depth + 1, inner);
    }
    if (target) add(target, depth + 1, inner);
    (inner ? doneBounded : done).add(s);
  };
  if (isObject(schema)) add(schema, 0, false);
  return complete ? types : null;
}

/**
 * The types `s` states for its place: its `type`, with OpenAPI's `nullable: true` beside it (ajv
 * reads it: null fits), and review 52's places typed by their values alone: an `enum` or `const`
 * of numbers, booleans or null (Pydantic's `Literal[1, 2, 3]`), so `2` reads as the enum's 2. An
 * enum or const holding a string, array or object adds nothing (its text is read as before).
 */
function ownTypes(s: JsonSchema): string[] {
  const record = s as Record<string, unknown>;
  const out: string[] = [];
  if (typeof record.type === "string") out.push(record.type);
  else if (Array.isArray(record.type)) for (const t of record.type) if (typeof t === "string") out.push(t);
  if (out.length > 0 && record.nullable === true) out.push("null");
  const values = Object.hasOwn(record, "const") ? [record.const] : Array.isArray(record.enum) ? record.enum : [];
  const kinds = new Set<string>();
  for (const value of values) {
    const kind = value === null ? "null" : typeof value === "boolean" ? "boolean" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : undefined;
    if (kind === undefined) return out;
    kinds.add(kind);
  }
  return [...out, ...kinds];
}

/** Whether an `allOf` branch of `s` states a type (it bounds the place as `s`'s own would). */
function allOfTyped(s: JsonSchema): boolean {
  const branches = (s as Record<string, unknown>).allOf;
  return Array.isArray(branches) && branches.some((b) => isObject(b) && ownTypes(b as JsonSchema).length > 0);
}

/** A part of a place the walk does not read: a `$ref` it cannot resolve, a dynamic reference, a conditional (`if` with `then` or `else`). */
function hasUnreadPart(record: Record<string, unknown>, target: JsonSchema | undefined): boolean {
  if (typeof record.$ref === "string" && target === undefined) return true;
  if (record.$dynamicRef !== undefined || record.$recursiveRef !== undefined) return true;
  return record.if !== undefined && (record.then !== undefined || record.else !== undefined);
}

/** placeTypes, with a place the walk gave up on read as taking no type. */
export function schemaTypes(schema: JsonSchema | undefined): Set<string> {
  return placeTypes(schema) ?? new Set();
}

/**
 * A property's schema: every place the object's schema may hold `key` (review 50), at its own
 * `properties`, a `patternProperties` pattern the key matches, else its `additionalProperties` /
 * `unevaluatedProperties` schema, and the same in every schema that applies to the object itself
 * (`allOf`/`anyOf`/`oneOf`, `if`/`then`/`else`, `dependentSchemas`, a local `$ref`): zod writes
 * `a.and(b)` as a root `allOf`, a discriminated union as a root `oneOf`, `z.record(z.string())` as
 * `additionalProperties`. One place is returned as it is; several as their `anyOf`, so a place that
 * takes a string in any branch keeps the raw text (the gate's ajv then checks the branches as
 * written). Undefined when no place names the key; past MAX_DEPTH, MAX_VISITS or around a cycle
 * of these, a place placeTypes reads as unfollowed: where the walk cannot see every place, no
 * reading is chosen (the gate refuses the call).
 */
export function propertySchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  if (schema === UNFOLLOWED_SCHEMA) return schema;
  if (!isObject(schema)) return undefined;
  const places: unknown[] = [];
  const done = new Set<object>();
  const path = new Set<object>();
  let visits = 0;
  let gaveUp = false;
  const visit = (s: JsonSchema, depth: number): void => {
    if (gaveUp || done.has(s)) return;
    if (path.has(s) || depth > MAX_DEPTH || ++visits > MAX_VISITS) {
      gaveUp = true;
      return;
    }
    const named = ownPlaces(s, key, places);
    if (!named) for (const rest of ["additionalProperties", "unevaluatedProperties"] as const) {
      const place = (s as Record<string, unknown>)[rest];
      // An empty schema says what `true` says (any value): no place of its own.
      if (isObject(place) && Object.keys(place).length > 0) places.push(reached(place as JsonSchema, s));
    }
    path.add(s);
    for (const sub of appliedSchemas(s)) visit(reached(sub, s), depth + 1);
    const target = refTarget(s);
    if (target) visit(target, depth + 1);
    path.delete(s);
    done.add(s);
  };
  visit(schema, 0);
  if (gaveUp) return UNFOLLOWED_SCHEMA;
  const unique = [...new Set(places)];
  if (unique.length <= 1) return unique[0] as JsonSchema | undefined;
  const schemas = unique.filter(isObject) as JsonSchema[];
  if (schemas.length <= 1) return schemas[0] ?? (unique[0] as JsonSchema);
  // rootOf: each branch keeps the root it was reached from (its local `$ref`s are that root's).
  return { anyOf: schemas } as JsonSchema;
}

/** The keys an object's schema declares for the object itself (objectKeys). */
export interface ObjectKeys {
  /** Names of `properties`, `required`, and the dependency keywords' keys and lists, in the schemas that apply to the object. */
  names: Set<string>;
  /** Whether any of those schemas has `properties`, even `{}` (else the schema does not say which keys it takes). */
  declares: boolean;
  /** Whether one of them admits keys it does not name: `additionalProperties`/`unevaluatedProperties` true or a schema, or `patternProperties`. */
  admitsExtra: boolean;
  /** False when the walk could not see every such schema (past MAX_DEPTH or MAX_VISITS, a `$ref` it cannot resolve, a `$dynamicRef`). */
  complete: boolean;
}

/**
 * The keys the object itself declares (review 50, the undeclared-key rule): read in the schemas
 * that apply to the object (the root, `allOf`/`anyOf`/`oneOf`, `if`/`then`/`else`,
 * `dependentSchemas`, a local `$ref`), never in a nested property's schema, whose names are keys
 * of another object. A schema walked once (a definition two branches name, a `$ref` cycle) adds
 * nothing again, so a cycle ends; past the bounds the walk says incomplete, and the caller treats
 * a key it did not see as undeclared (fail closed).
 */
export function objectKeys(schema: JsonSchema): ObjectKeys {
  const out: ObjectKeys = { names: new Set(), declares: false, admitsExtra: false, complete: true };
  const done = new Set<object>();
  let visits = 0;
  const own = (record: Record<string, unknown>, key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);
  const addNames = (list: unknown) => {
    if (Array.isArray(list)) for (const item of list) if (typeof item === "string") out.names.add(item);
  };
  const visit = (s: JsonSchema, depth: number): void => {
    if (!out.complete || done.has(s)) return;
    if (depth > MAX_DEPTH || ++visits > MAX_VISITS) {
      out.complete = false;
      return;
    }
    done.add(s);
    const record = s as Record<string, unknown>;
    const props = own(record, "properties");
    if (isObject(props)) {
      for (const name of Object.keys(props)) out.names.add(name);
      // Review 52: `properties: {}` says "no parameters" (zod's `z.object({})`, an MCP tool
      // without input): it declares, so a key beside it is undeclared, as beside any other list.
      out.declares = true;
    }
    addNames(own(record, "required"));
    for (const key of ["dependentRequired", "dependentSchemas", "dependencies"]) {
      const map = own(record, key);
      if (isObject(map)) for (const [name, list] of Object.entries(map)) {
        out.names.add(name);
        addNames(list);
      }
    }
    for (const key of ["additionalProperties", "unevaluatedProperties"]) {
      const extra = own(record, key);
      if (extra === true || isObject(extra)) out.admitsExtra = true;
    }
    if (own(record, "patternProperties") !== undefined) out.admitsExtra = true;
    // A reference the walk cannot follow may declare anything: what it declares is unseen.
    if (own(record, "$dynamicRef") !== undefined || own(record, "$recursiveRef") !== undefined) out.complete = false;
    for (const sub of appliedSchemas(s)) visit(reached(sub, s), depth + 1);
    if (typeof own(record, "$ref") === "string") {
      const target = refTarget(s);
      if (target) visit(target, depth + 1);
      else out.complete = false;
    }
  };
  visit(schema, 0);
  return out;
}

/**
 * The places `s` itself gives `key` (its `properties`, each `patternProperties` pattern that may
 * match the key), pushed onto `places`; whether any named it for certain. A pattern is matched here
 * only when it is literal text with optional `^`/`$` anchors (`^x-`, `^comm`, `_id$`): no regular
 * expression is built from a schema (docs/SECURITY.md, threat 3). Any other pattern may match,
 * so its place is counted as well, and the key's `additionalProperties` place too: a place
 * counted that does not hold the key can only add a type (one admitting a string keeps the raw
 * text), and the gate's ajv checks the value against the schema as written.
 */
function ownPlaces(s: JsonSchema, key: string, places: unknown[]): boolean {
  let named = false;
  const props = s.properties;
  if (isObject(props) && Object.prototype.hasOwnProperty.call(props, key)) {
    const prop = props[key];
    places.push(isObject(prop) ? reached(prop as JsonSchema, s) : prop);
    named = true;
  }
  const patterns = (s as Record<string, unknown>).patternProperties;
  if (isObject(patterns)) {
    for (const [pattern, place] of Object.entries(patterns)) {
      const matches = literalPatternMatch(pattern, key);
      if (matches === false) continue;
      places.push(isObject(place) ? reached(place as JsonSchema, s) : place);
      if (matches === true) named = true;
    }
  }
  return named;
}

/** Characters that make a pattern more than literal text (a `^` or `$` other than at its ends included). */
const PATTERN_SYNTAX = new Set([..."\\.*+?()[]{}|^$"]);

/**
 * Whether `key` matches `pattern` read as literal text, anchored by a leading `^` and a trailing
 * `$` where they stand (a search, as JSON Schema's patterns are); undefined when the pattern is
 * anything else (a class, a quantifier, an escape), which the caller counts as a possible match.
 */
function literalPatternMatch(pattern: string, key: string): boolean | undefined {
  const start = pattern.startsWith("^");
  const end = pattern.endsWith("$") && pattern.length > (start ? 1 : 0);
  const text = pattern.slice(start ? 1 : 0, end ? -1 : undefined);
  for (const c of text) if (PATTERN_SYNTAX.has(c)) return undefined;
  if (start && end) return key === text;
  if (start) return key.startsWith(text);
  if (end) return key.endsWith(text);
  return key.includes(text);
}

/** The subschemas that apply to the same object as `s` (never `not`: a place there is one the key must not fit). */
function appliedSchemas(s: JsonSchema): JsonSchema[] {
  const out: JsonSchema[] = [];
  const record = s as Record<string, unknown>;
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    const branches = record[key];
    if (Array.isArray(branches)) for (const branch of branches) if (isObject(branch)) out.push(branch as JsonSchema);
  }
  for (const key of ["if", "then", "else"] as const) if (isObject(record[key])) out.push(record[key] as JsonSchema);
  // 2019-09's dependentSchemas, draft-07's dependencies (its arrays are names, not schemas).
  for (const key of ["dependentSchemas", "dependencies"] as const) {
    const map = record[key];
    if (isObject(map)) for (const sub of Object.values(map)) if (isObject(sub)) out.push(sub as JsonSchema);
  }
  return out;
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
