import { createRequire } from "node:module";
import type Ajv from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { JsonSchema, ToolSpec } from "./types.ts";
import { coerceDeep } from "./values.ts";
import { isObject } from "../grammar/plain-data.ts";
// Resolved now, loaded later: a missing ajv stops the start-up (src/parse/libraries.ts).
import "./libraries.ts";

/**
 * The schema gate: every recovered call is checked against its tool's declared JSON Schema with
 * ajv (a maintained validator, not a hand-written one) before it may run. Coercion is ours and
 * narrow (coerceDeep: "42" -> 42, "True" -> true, a JSON or Python literal for an array/object
 * parameter); ajv's own coerceTypes is off because it also invents values (null -> "", true -> 1,
 * a scalar wrapped into an array). A mismatch left after coercion is a broken call that names the
 * parameter. A schema ajv cannot compile fails closed: the call does not run (trust first), unless
 * the schema is trivially permissive (absent, `{}`, or a bare `{type: "object"}`).
 */
export type SchemaVerdict =
  | { ok: true; input: Record<string, unknown> }
  | { ok: false; detail: string; parameter?: string };

type Compiled = ValidateFunction | "uncompilable";

/** One ajv for the process: building one compiles the meta-schema (about 15 ms); a compile after that costs about 1 ms. */
let sharedAjv: Ajv | null = null;
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

function ajv(): Ajv {
  if (sharedAjv === null) {
    const { default: AjvClass } = require("ajv") as { default: typeof Ajv };
    sharedAjv = new AjvClass({ strict: false, allErrors: false, validateFormats: false, logger: false, coerceTypes: false, useDefaults: false });
  }
  return sharedAjv;
}

/** Per engine: validators by schema object, compiled lazily when a call of that tool is about to be recovered. */
export class SchemaGate {
  private readonly compiled = new WeakMap<object, Compiled>();

  check(tool: ToolSpec, input: Record<string, unknown>): SchemaVerdict {
    const schema: unknown = tool.parameters;
    if (schema === undefined || schema === true) return { ok: true, input };
    const coerced = isObject(schema) ? (coerceDeep(input, schema) as Record<string, unknown>) : input;
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
    return mismatch(validate.errors?.[0]);
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
  let compiled: Compiled;
  const copy = JSON.parse(text) as Record<string, unknown>;
  // The draft is ajv's to pick (draft-07 keywords cover what tool schemas use); a `$schema` it does not know would fail the compile.
  delete copy.$schema;
  const instance = ajv();
  try {
    compiled = instance.compile(copy);
  } catch {
    compiled = "uncompilable";
  } finally {
    // The validator stays usable; removing the schema keeps ajv's own cache (keyed by object) from growing per request.
    try {
      instance.removeSchema(copy);
    } catch {
      // nothing was added
    }
  }
  byText.set(text, compiled);
  if (byText.size > MAX_CACHED) byText.delete(byText.keys().next().value!);
  return compiled;
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

/** The detail names the parameter and what is wrong with it, never its value; an invented name is only echoed when it looks like a name. */
function mismatch(error: ErrorObject | undefined): SchemaVerdict {
  if (!error) return { ok: false, detail: "the arguments do not fit the tool's schema" };
  const path = error.instancePath.split("/").slice(1).map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown; type?: unknown };
  let parameter = path[0];
  let what: string;
  if (parameter === undefined && typeof params.missingProperty === "string") {
    parameter = params.missingProperty;
    what = "is required but missing";
  } else if (parameter === undefined && typeof params.additionalProperty === "string") {
    parameter = params.additionalProperty;
    what = "is not a parameter of this tool";
  } else {
    const inner = path.slice(1).map((s) => (looksLikeName(s) ? s : "?")).join("/");
    const where = inner === "" ? "" : ` (at ${inner})`;
    what = error.keyword === "type" ? `must be ${String(params.type)}${where}` : error.keyword === "enum" ? `is not one of the allowed values${where}` : `does not fit its schema${where}: ${error.keyword}`;
  }
  if (parameter === undefined || !looksLikeName(parameter)) {
    return { ok: false, detail: `the arguments do not fit the tool's schema (${error.keyword})` };
  }
  return { ok: false, detail: `parameter ${parameter} ${what}`, parameter };
}
