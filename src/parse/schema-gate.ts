import { createRequire } from "node:module";
import type Ajv from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { JsonSchema, ToolSpec } from "./types.ts";
import { NOT_AN_INTEGER, NOT_AN_INTEGER_DETAIL, PROTOTYPE_KEY_DETAIL, PROTOTYPE_KEY_WRITTEN, UNFOLLOWED_PLACE, coerceDeep } from "./values.ts";
import { isObject } from "../grammar/plain-data.ts";
import { declaredNames } from "./declared-names.ts";
import { objectKeys } from "./schema-walk.ts";
// Resolved now, loaded later: a missing ajv stops the start-up (src/parse/libraries.ts).
import "./libraries.ts";

/**
 * The schema gate: every recovered call is checked against its tool's declared JSON Schema with
 * ajv (a maintained validator, not a hand-written one) before it may run. Coercion is ours and
 * narrow (coerceDeep: "42" -> 42, "True" -> true, a JSON or Python literal for an array/object
 * parameter); ajv's own coerceTypes is off because it also invents values (null -> "", true -> 1,
 * a scalar wrapped into an array). A mismatch left after coercion is a broken call that names the
 * parameter; so is a bigint anywhere (readNumberLiteral), whatever the schema. Only a name the
 * tool's schema declares is ever named: a key the model invented may be anything it pasted (a
 * token, a key id), and the name goes into the correction the model reads and the session keeps;
 * an invented key is reported as `undeclaredArgument`, unnamed. A schema ajv cannot
 * compile fails closed: the call does not run (trust first), unless the schema is trivially
 * permissive (absent, `{}`, or a bare `{type: "object"}`). Each schema is read under its own draft.
 */
type SchemaVerdict =
  | { ok: true; input: Record<string, unknown> }
  | {
      ok: false;
      detail: string;
      /** The parameter that does not fit: always a name the tool's schema declares. */
      parameter?: string;
      /** The arguments hold a key the schema does not declare and does not allow (never named). */
      undeclaredArgument?: true;
      /** The markup itself cannot be run as written (a key that names a prototype member): broken-markup, whatever the schema. */
      markup?: true;
    };

type Compiled = ValidateFunction | "uncompilable";

// ajv's classes. A keyword one draft defines is unknown to another, and ajv (strict: false) skips it
// in silence: read under the wrong draft, a schema accepts what it forbids. draft-07 also reads
// draft-06 and -04 (a boolean exclusiveMaximum does not compile: fails closed); 2019-09 keeps
// draft-07 tuples (`items: [...]`) and adds dependentRequired/Schemas, unevaluated*, minContains;
// 2020-12 (zod 4, so OpenCode) replaces the array form of `items` by `prefixItems`.
type Draft = "draft-07" | "2019-09" | "2020-12";
const DRAFTS = new Map<string, Draft>([
  ["http://json-schema.org/draft/2020-12/schema", "2020-12"],
  ["http://json-schema.org/draft/2019-09/schema", "2019-09"],
  ["http://json-schema.org/draft-07/schema", "draft-07"],
  ["http://json-schema.org/draft-06/schema", "draft-07"],
  ["http://json-schema.org/draft-04/schema", "draft-07"],
]);

/** One ajv per draft for the process: building one compiles its meta-schemas (about 15 ms); a compile after that costs about 1 ms. */
const sharedAjv = new Map<Draft, Ajv>();
/** Compiled validators by the schema's JSON text, so a host that rebuilds its tool list per request compiles each schema once. */
const byText = new Map<string, Compiled>();
const MAX_CACHED = 64;
/** A schema larger than this is not compiled: it fails closed. */
const MAX_SCHEMA_TEXT = 262_144;

/**
 * ajv is loaded when the first call is about to be recovered, not when the plugin starts: loading
 * it is a quarter of the plugin's start-up (about 25 ms in OpenCode), which a reply without a
 * leak never needs. A synchronous require, so the gate stays synchronous; ajv ships CommonJS.
 */
const require = createRequire(import.meta.url);

function ajv(draft: Draft): Ajv {
  let instance = sharedAjv.get(draft);
  if (instance === undefined) {
    // ownProperties: a property is present only when the model wrote it. Without it ajv tests
    // `data.valueOf !== undefined`, so every Object.prototype member (valueOf, toString,
    // constructor...) counts as written: `required: ["valueOf"]` passes with nothing written, and an
    // optional `toString: {type: "string"}` the model omitted is read as a function and refused.
    // It covers required, properties, dependentRequired/dependencies and the key loops
    // (additionalProperties, patternProperties, propertyNames) at every depth and in every branch.
    instance = new (ajvClass(draft))({ strict: false, allErrors: false, validateFormats: false, logger: false, coerceTypes: false, useDefaults: false, ownProperties: true });
    sharedAjv.set(draft, instance);
  }
  return instance;
}

// Each class by its literal name (test/security/side-channels.test.ts lists them), on its first schema.
function ajvClass(draft: Draft): typeof Ajv {
  type Module = { default: typeof Ajv };
  if (draft === "2020-12") return (require("ajv/dist/2020") as Module).default;
  if (draft === "2019-09") return (require("ajv/dist/2019") as Module).default;
  return (require("ajv") as Module).default;
}

/** Per engine: validators by schema object, compiled lazily when a call of that tool is about to be recovered. */
export class SchemaGate {
  private readonly compiled = new WeakMap<object, Compiled>();
  /** Every distinct declaration of a name the request declares more than once (the engine reads with the first). */
  private readonly declarations = new Map<string, ToolSpec[]>();

  /**
   * `declared`: the request's tool list as given. A name declared twice with different schemas is
   * ambiguous (a host may resolve it to either declaration), so a call to it must fit every one
   * of them (fail closed); an exact duplicate changes nothing.
   */
  constructor(declared: readonly ToolSpec[] = []) {
    const byName = new Map<string, ToolSpec[]>();
    for (const spec of declared) {
      const list = byName.get(spec.name);
      if (list) list.push(spec);
      else byName.set(spec.name, [spec]);
    }
    // Schemas are read only for a name declared twice (a host's getter may throw: as for any tool, when a call is checked).
    for (const [name, specs] of byName) {
      if (specs.length < 2) continue;
      const distinct: { spec: ToolSpec; text: string | null }[] = [];
      for (const spec of specs) {
        const text = declaredSchemaText(spec);
        if (!distinct.some((d) => d.spec === spec || (text !== null && d.text === text))) distinct.push({ spec, text });
      }
      if (distinct.length > 1) this.declarations.set(name, distinct.map((d) => d.spec));
    }
  }

  /**
   * The distinct declarations of a name the request declares more than once with different
   * schemas (the first among them), or undefined: the span parser reads a call to it with each
   * (src/parse/span.ts), since the first declaration alone decides how raw text is read.
   */
  declarationsOf(name: string): readonly ToolSpec[] | undefined {
    return this.declarations.get(name);
  }

  /** The call's arguments, coerced, when they fit the tool's schema and every other declaration of its name. */
  check(tool: ToolSpec, input: Record<string, unknown>): SchemaVerdict {
    const verdict = this.checkOne(tool, input);
    if (!verdict.ok) return verdict;
    for (const other of this.declarations.get(tool.name) ?? []) {
      if (other === tool) continue;
      // The arguments as read, through each declaration's own coercion: one that reads them as
      // other values (`"5"` as 5 for one, "5" for the other) is a second reading of one markup.
      const again = this.checkOne(other, input);
      if (!again.ok) return again;
      if (again.input !== verdict.input && schemaText(again.input) !== schemaText(verdict.input)) {
        return { ok: false, detail: `tool ${tool.name} is declared more than once, and its declarations read these arguments differently` };
      }
    }
    return verdict;
  }

  /**
   * Review 50: the arguments hold a key the tool's properties do not declare, under a schema that
   * does not admit extra keys outright (undeclaredKeyIn), for its declaration or any other of its
   * name. A misspelled name (`"workdir "`, `Workdir`, `work_dir`): a host whose schema strips
   * unknown keys (zod, OpenCode) would run the call with that argument's default. Asked apart
   * from check() so the echo guard still sees a quote of given content as the call it is
   * (output.ts refuses the call after that guard).
   */
  holdsUndeclaredKey(tool: ToolSpec, input: Record<string, unknown>): boolean {
    for (const spec of [tool, ...(this.declarations.get(tool.name) ?? [])]) {
      const schema: unknown = spec.parameters;
      if (isObject(schema) && undeclaredKeyIn(schema, input)) return true;
    }
    return false;
  }

  private checkOne(tool: ToolSpec, input: Record<string, unknown>): SchemaVerdict {
    // Before any schema, even none: a JSON number would send such an integer as other digits.
    const holder = Object.keys(input).find((key) => holds(input[key], (v) => typeof v === "bigint"));
    if (holder !== undefined) {
      const detail = "an integer whose digits cannot be sent as written";
      return nameable(holder, tool.parameters) ? { ok: false, detail: `parameter ${holder} holds ${detail}`, parameter: holder } : { ok: false, detail: `the arguments hold ${detail}` };
    }
    // A key that names a prototype member, read as a token where it stood (values.ts), or met
    // while coercing a string for an array or object place: no call, whatever the schema.
    const prototypeKey = (value: unknown) => holds(value, (v) => v === PROTOTYPE_KEY_WRITTEN);
    const unfollowed = (value: unknown) => holds(value, (v) => v === UNFOLLOWED_PLACE);
    if (prototypeKey(input)) return { ok: false, detail: PROTOTYPE_KEY_DETAIL, markup: true };
    const schema: unknown = tool.parameters;
    if (schema === undefined || schema === true) return { ok: true, input };
    const coerced = isObject(schema) ? (coerceDeep(input, schema) as Record<string, unknown>) : input;
    if (coerced !== input && prototypeKey(coerced)) return { ok: false, detail: PROTOTYPE_KEY_DETAIL, markup: true };
    // A value at a place whose schema nests deeper than the reader follows (schema-walk.ts): it was
    // read without knowing what the place takes, where ajv follows the whole chain. Fail closed.
    if (coerced !== input && holds(coerced, (v) => v === NOT_AN_INTEGER)) return { ok: false, detail: NOT_AN_INTEGER_DETAIL };
    if (unfollowed(input) || (coerced !== input && unfollowed(coerced))) return { ok: false, detail: `the schema of tool ${tool.name} nests deeper than its arguments can be read, so they cannot be checked` };
    if (isObject(schema) && isTriviallyPermissive(schema)) return { ok: true, input: coerced };
    const validate = isObject(schema) ? this.validatorFor(schema) : "uncompilable";
    if (validate === "uncompilable") return { ok: false, detail: `the schema of tool ${tool.name} could not be compiled, so its arguments cannot be checked` };
    let valid: boolean;
    try {
      valid = validate(coerced) === true;
    } catch {
      return { ok: false, detail: `the schema of tool ${tool.name} could not be checked` };
    }
    if (valid) return { ok: true, input: coerced };
    return mismatch(validate.errors?.[0], schema);
  }

  private validatorFor(schema: JsonSchema): Compiled {
    let compiled = this.compiled.get(schema);
    if (compiled === undefined) {
      compiled = compile(schema);
      this.compiled.set(schema, compiled);
    }
    return compiled;
  }
}

function compile(schema: JsonSchema): Compiled {
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return "uncompilable";
  }
  if (text === undefined || text.length > MAX_SCHEMA_TEXT) return "uncompilable";
  const cached = byText.get(text);
  if (cached !== undefined) return cached;
  const copy = JSON.parse(text) as Record<string, unknown>;
  // The class says the draft (ajv would fail on a `$schema` it holds no meta-schema for).
  const uri = typeof copy.$schema === "string" ? copy.$schema : "";
  const declared = DRAFTS.get((uri.endsWith("#") ? uri.slice(0, -1) : uri).replace("https://", "http://"));
  delete copy.$schema;
  let compiled = compileAs(declared ?? "2020-12", copy);
  // None declared (or unknown): 2020-12, where every draft-07 keyword but `items: [...]` means the
  // same; one it cannot compile as 2019-09 (draft-07 tuples), unless it says `prefixItems`, which
  // only 2020-12 reads: a tuple left unchecked is worse than a call refused.
  if (compiled === "uncompilable" && declared === undefined && !holds(copy, (v) => isObject(v) && Object.hasOwn(v, "prefixItems"))) compiled = compileAs("2019-09", copy);
  byText.set(text, compiled);
  if (byText.size > MAX_CACHED) byText.delete(byText.keys().next().value!);
  return compiled;
}

function compileAs(draft: Draft, schema: Record<string, unknown>): Compiled {
  const instance = ajv(draft);
  try {
    return instance.compile(schema);
  } catch {
    return "uncompilable";
  } finally {
    // The validator stays usable; removing the schema keeps ajv's own cache (keyed by object) from growing per request.
    try {
      instance.removeSchema(schema);
    } catch {
      // nothing was added
    }
  }
}

/** A declaration's schema as text ("" for none), or null when it cannot be read or written (each such one counts as distinct). */
function declaredSchemaText(spec: ToolSpec): string | null {
  try {
    const schema: unknown = spec.parameters;
    return schema === undefined ? "" : schemaText(schema);
  } catch {
    return null;
  }
}

/** JSON text of a schema or of arguments, or null when it has none (a cycle, a bigint, undefined). */
function schemaText(value: unknown): string | null {
  try {
    return JSON.stringify(value) ?? null;
  } catch {
    return null;
  }
}

/** Whether `found` holds for `value` or anything in it (parsed data: no cycles); a loop, so depth costs no stack. */
function holds(value: unknown, found: (v: unknown) => boolean): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (found(next)) return true;
    if (Array.isArray(next)) for (const item of next) pending.push(item);
    else if (isObject(next)) for (const item of Object.values(next)) pending.push(item);
  }
  return false;
}

/**
 * Whether `input` holds a key the object's schema does not declare, where the schema does not
 * admit extra keys: `additionalProperties` or `unevaluatedProperties` true or a schema, or
 * `patternProperties`, in any schema that applies to the object (objectKeys, schema-walk.ts). The
 * names are read there only: a root `allOf` (zod's `a.and(b)`), `anyOf`/`oneOf` branches, a root
 * `$ref` to `$defs` declare the object's keys; a nested object's `properties` do not (diff review
 * 50). A schema with no `properties` at all (an open `{type: "object"}`) says nothing of its keys:
 * no refusal; `properties: {}` declares none, so any key is undeclared (review 52). Past the walk's
 * bounds, a key it did not see is undeclared (fail closed). No guess maps a misspelled key onto
 * a declared one (review 50: the call is refused).
 */
function undeclaredKeyIn(schema: Record<string, unknown>, input: Record<string, unknown>): boolean {
  const keys = Object.keys(input);
  if (keys.length === 0) return false;
  const object = objectKeys(schema as JsonSchema);
  if (object.complete && (!object.declares || object.admitsExtra)) return false;
  return keys.some((key) => !object.names.has(key));
}

/** Nothing to check: no constraint beyond "an object", which every recovered input is. */
function isTriviallyPermissive(schema: JsonSchema): boolean {
  if (!isObject(schema)) return false;
  const keys = Object.keys(schema).filter((k) => k !== "$schema" && k !== "description" && k !== "title");
  return keys.length === 0 || (keys.length === 1 && schema.type === "object");
}

/** A name worth echoing: 1 to 64 of `[A-Za-z0-9_.$-]` (a hand-written check: shipped regexes are audited one by one). */
function looksLikeName(s: string): boolean {
  if (s.length === 0 || s.length > 64) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2e || c === 0x24 || c === 0x2d;
    if (!ok) return false;
  }
  return true;
}

/**
 * The detail names the parameter and what is wrong with it, never its value, and only a name the
 * schema declares: an invented key (additionalProperties / unevaluatedProperties: false) is
 * reported unnamed, and an invented name inside a value is shown as `?`.
 */
function mismatch(error: ErrorObject | undefined, schema: unknown): SchemaVerdict {
  if (!error) return { ok: false, detail: "the arguments do not fit the tool's schema" };
  const path = error.instancePath.split("/").slice(1).map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown; unevaluatedProperty?: unknown; type?: unknown };
  let parameter = path[0];
  let what: string;
  if (parameter === undefined && typeof params.missingProperty === "string") {
    parameter = params.missingProperty;
    what = "is required but missing";
  } else if (parameter === undefined && typeof (params.additionalProperty ?? params.unevaluatedProperty) === "string") {
    // additionalProperties: false, or unevaluatedProperties: false (2019-09 and 2020-12): a key the
    // schema does not declare, so a name the model made up, never repeated.
    return { ok: false, detail: "an argument is not a parameter of this tool", undeclaredArgument: true };
  } else {
    const inner = path.slice(1).map((s) => (isIndex(s) || nameable(s, schema) ? s : "?")).join("/");
    const where = inner === "" ? "" : ` (at ${inner})`;
    what = error.keyword === "type" ? `must be ${String(params.type)}${where}` : error.keyword === "enum" ? `is not one of the allowed values${where}` : `does not fit its schema${where}: ${error.keyword}`;
  }
  if (parameter === undefined || !nameable(parameter, schema)) {
    return { ok: false, detail: `the arguments do not fit the tool's schema (${error.keyword})` };
  }
  return { ok: false, detail: `parameter ${parameter} ${what}`, parameter };
}

/** A name that may be repeated to the model and printed: one the schema declares, and shaped like a name. */
function nameable(name: string, schema: unknown): boolean {
  return looksLikeName(name) && declaredNames(schema).has(name);
}

function isIndex(s: string): boolean {
  if (s.length === 0 || s.length > 10) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}
