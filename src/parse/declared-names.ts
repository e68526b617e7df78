import { isObject } from "../grammar/plain-data.ts";

/** Schema nodes looked at for declared names; a schema past this bound declares what was seen so far. */
const MAX_SCHEMA_NODES = 20_000;

/**
 * Every property name the schema declares anywhere (nested objects, $defs, allOf/anyOf/oneOf):
 * the keys of `properties` and `dependentRequired`/`dependentSchemas`/`dependencies`, and the
 * names listed in `required` and in dependency lists. The client wrote them into the tool list the
 * model was given, so naming one tells the model (or a reader of `dsml-fix scan`) nothing the
 * model did not have; a name the model made up may be anything it pasted, a token included, and
 * is never repeated. Asked after a refusal or for the CLI's report only; a visited set
 * and a node bound keep a cyclic or huge object (a JS schema) finite.
 */
export function declaredNames(schema: unknown): Set<string> {
  const names = new Set<string>();
  const seen = new Set<object>();
  const pending: unknown[] = [schema];
  const addAll = (list: unknown) => {
    if (Array.isArray(list)) for (const item of list) if (typeof item === "string") names.add(item);
  };
  while (pending.length > 0 && seen.size < MAX_SCHEMA_NODES) {
    const node = pending.pop();
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of ["properties", "dependentRequired", "dependentSchemas", "dependencies"]) {
      const held = Object.hasOwn(record, key) ? record[key] : undefined;
      if (isObject(held)) for (const name of Object.keys(held)) names.add(name);
    }
    if (Object.hasOwn(record, "required")) addAll(record.required);
    for (const key of ["dependentRequired", "dependencies"]) {
      const held = Object.hasOwn(record, key) ? record[key] : undefined;
      if (isObject(held)) for (const list of Object.values(held)) addAll(list);
    }
    for (const value of Object.values(record)) pending.push(value);
  }
  return names;
}

/** Per tool map (SpanContext.tools, the engine's): the lowered parameter names its tools declare, no tool's own name among them. */
const parameterNamesOf = new WeakMap<ReadonlyMap<string, { parameters?: unknown }>, ReadonlySet<string>>();

/**
 * Review 52, finding 2: whether `lowered` (a tag's name as the tag scanner lowers it) is a
 * parameter some declared tool declares and no declared tool's name: a DSML tag in I11's spelling
 * named so (`<{D}workdir>`) outside every invoke of a block still open is a parameter outside every
 * invoke, as `<{D}parameter name="workdir">` is there. Gathered once per tool map, on first use (such
 * a tag is rare), so no reply pays for it before one shows up.
 */
export function declaresParameterNamed(tools: ReadonlyMap<string, { parameters?: unknown }>, lowered: string): boolean {
  let names = parameterNamesOf.get(tools);
  if (names === undefined) {
    const gathered = new Set<string>();
    for (const tool of tools.values()) for (const name of declaredNames(tool.parameters)) gathered.add(name.toLowerCase());
    for (const name of tools.keys()) gathered.delete(name.toLowerCase());
    parameterNamesOf.set(tools, gathered);
    names = gathered;
  }
  return names.has(lowered);
}
