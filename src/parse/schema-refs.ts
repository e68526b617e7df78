import { isObject } from "../grammar/plain-data.ts";
import type { JsonSchema } from "./types.ts";

// Where a `$ref` points, as the gate's ajv reads it (review 52): a JSON pointer into the root
// (`#/$defs/S`), and also an `$anchor` (`#cmd`), a reference relative to an `$id` (TypeBox's
// `Type.Ref` writes `$ref: "Cmd"` beside `$defs: {c: {$id: "Cmd"}}`) and an absolute URI naming
// the schema's own `$id`. A reference the walk cannot resolve so is no place it may guess at:
// schema-walk.ts reads it as unknown (the call is refused), never as a place without a type.

/**
 * The base every relative `$id` and `$ref` resolves against (ajv's is "", which URL cannot take):
 * only ever compared with itself. Its last segment is one no schema writes as an `$id`: a nested
 * `$id: "schema"` (diff review 52b) resolved to the root's own URI, which then counted as named
 * twice and left every reference into the root unresolved.
 */
const ROOT_BASE = "https://dsml-fix.invalid/root/dsml-fix-root-schema.json";
/** Schemas indexed at most (more is past what the gate's ajv compiles): every reference of a larger schema is unresolved. */
const MAX_INDEXED = 100_000;

interface RefIndex {
  /** Schema resources by their URI (no fragment): the root's and each `$id`'s. */
  resources: Map<string, object>;
  /** `$anchor`, `$dynamicAnchor` and draft-07 `$id: "#name"` targets by `uri#name`. */
  anchors: Map<string, object>;
  /** A URI or anchor named twice (ajv would not compile it): never resolved. */
  ambiguous: Set<string>;
  /** The base URI each indexed schema resolves its references against. */
  baseOf: WeakMap<object, string>;
  /** Whether the schema has any `$id`, `$anchor` or `$dynamicAnchor` (else a `#/...` pointer reads from the root, as before). */
  named: boolean;
}

/** One index per root schema, built once, on its first reference that is not a root pointer; null past MAX_INDEXED. */
const indexes = new WeakMap<object, RefIndex | null>();

// Where a keyword holds subschemas (ajv walks the same ones for ids and anchors); `enum`, `const`,
// `default` and `examples` hold data, whose `$id` keys name nothing.
const ONE = ["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems", "items", "contains", "propertyNames", "not", "if", "then", "else", "contentSchema"];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];

/** `ref` resolved against `base`, split into resource URI and fragment (still percent-encoded); undefined when it is no URI reference. */
function resolve(ref: string, base: string): { resource: string; fragment: string } | undefined {
  let href: string;
  try {
    href = new URL(ref, base).href;
  } catch {
    return undefined;
  }
  const hash = href.indexOf("#");
  return hash < 0 ? { resource: href, fragment: "" } : { resource: href.slice(0, hash), fragment: href.slice(hash + 1) };
}

function indexOf(root: object): RefIndex | null {
  const known = indexes.get(root);
  if (known !== undefined) return known;
  const index: RefIndex = { resources: new Map(), anchors: new Map(), ambiguous: new Set(), baseOf: new WeakMap(), named: false };
  const register = (map: Map<string, object>, key: string, s: object) => {
    const there = map.get(key);
    if (there !== undefined && there !== s) index.ambiguous.add(key);
    else map.set(key, s);
  };
  const registerAnchor = (at: { resource: string; fragment: string }, s: object) => {
    const key = anchorKey(at);
    if (key === undefined) index.ambiguous.add(at.fragment);
    else register(index.anchors, key, s);
  };
  const seen = new Set<object>();
  // A loop over an explicit stack: a deep schema costs no call stack.
  const pending: [object, string][] = [[root, ROOT_BASE]];
  let built: RefIndex | null = index;
  while (pending.length > 0) {
    const [s, parentBase] = pending.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    if (seen.size > MAX_INDEXED) {
      built = null;
      break;
    }
    const record = s as Record<string, unknown>;
    let base = parentBase;
    const id = record.$id;
    if (typeof id === "string") {
      index.named = true;
      const at = resolve(id, parentBase);
      if (at === undefined) index.ambiguous.add(id);
      else if (at.fragment !== "") registerAnchor(at, s);
      else {
        base = at.resource;
        register(index.resources, base, s);
      }
    }
    for (const key of ["$anchor", "$dynamicAnchor"]) {
      const anchor = record[key];
      if (typeof anchor !== "string") continue;
      index.named = true;
      const at = resolve(`#${anchor}`, base);
      if (at !== undefined) registerAnchor(at, s);
    }
    index.baseOf.set(s, base);
    const push = (sub: unknown) => {
      if (isObject(sub)) pending.push([sub, base]);
    };
    // Each keyword read once (a host's schema may be built of getters).
    for (const key of ONE) push(record[key]);
    for (const key of MANY) {
      const list = record[key];
      if (Array.isArray(list)) for (const sub of list) push(sub);
    }
    for (const key of MAP) {
      const map = record[key];
      if (isObject(map)) for (const sub of Object.values(map)) push(sub);
    }
  }
  if (built !== null) register(index.resources, ROOT_BASE, root);
  indexes.set(root, built);
  return built;
}

/** An anchor's key, `uri#name` with the name decoded (as an anchor is written and as a reference spells it); undefined when it does not decode. */
function anchorKey(at: { resource: string; fragment: string }): string | undefined {
  try {
    return `${at.resource}#${decodeURIComponent(at.fragment)}`;
  } catch {
    return undefined;
  }
}

/** The schema a JSON pointer fragment (`/$defs/c`, percent-encoded) names within `doc`, or undefined. */
function pointer(doc: object, fragment: string): object | undefined {
  let at: unknown = doc;
  if (fragment === "") return doc;
  if (fragment[0] !== "/") return undefined;
  for (const raw of fragment.slice(1).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (!(isObject(at) || Array.isArray(at)) || !Object.prototype.hasOwnProperty.call(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return isObject(at) ? at : undefined;
}

/**
 * The schema `ref`, written in `holder` (a schema reached from `root`), names, or undefined when
 * it names none the walk can see for certain (not found, named twice, a remote document, a schema
 * too large to index).
 */
export function resolveRef(root: JsonSchema, holder: JsonSchema, ref: string): JsonSchema | undefined {
  // The usual case, a pointer into a root with no `$id` or anchor anywhere: no index needed beyond the first look.
  const index = indexOf(root);
  if (index === null) return undefined;
  if (!index.named) return ref.startsWith("#") ? (pointer(root, ref.slice(1)) as JsonSchema | undefined) : undefined;
  const at = resolve(ref, index.baseOf.get(holder) ?? index.baseOf.get(root) ?? ROOT_BASE);
  if (at === undefined || index.ambiguous.has(at.resource)) return undefined;
  const doc = index.resources.get(at.resource);
  if (doc === undefined) return undefined;
  if (at.fragment === "" || at.fragment.startsWith("/")) return pointer(doc, at.fragment) as JsonSchema | undefined;
  const key = anchorKey(at);
  if (key === undefined || index.ambiguous.has(key)) return undefined;
  return index.anchors.get(key) as JsonSchema | undefined;
}
