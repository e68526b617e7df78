/**
 * Where a number was written in a spelling other than the text it would go out as (String(value)):
 * `1e3`, `6e2`, `1.0`, `1.50`, `-0`. A reader that parses JSON or Python text (src/parse/values.ts
 * parseJson, src/parse/python-literal.ts) marks the container (object or array) and key of each
 * such number as it builds them; whoever copies a container on the way to the schema gate copies
 * the marks (coerceObject, the alias mapping). The gate's coercion (coerceDeep) writes a number
 * out as text for a string-only place only when it is not marked: the model's own digits, never
 * others (golden V44.1, V44.2). The marks live beside the values, never in them, so a call's arguments stay
 * plain data; a mark lost on some copy only falls back to the rule by value (a safe integer).
 */
const marks = new WeakMap<object, Set<string>>();

/** Whether `value`, read from `literal`, would be written back as other text. */
export function respelled(literal: string, value: number): boolean {
  return String(value) !== literal;
}

/** The number under `key` of `container` was written in another spelling than its text. */
export function markRespelled(container: object, key: string | number): void {
  mark(marks, container, key);
}

export function isRespelled(container: object, key: string | number): boolean {
  return marked(marks, container, key);
}

/**
 * Where a number was written with a fraction (`1000000000000000000000.5`: not an integer once its
 * exponent is applied) but reads as a whole double, as every literal past 2^53 does; below 1e21 such
 * a literal reads as a bigint, which the gate refuses (grammar/json-syntax.ts readNumberLiteral).
 * Such a number is no integer: the gate's coercion (coerceDeep) refuses it where only an integer
 * fits (golden V47.3). A respelled number too, so it is marked both ways.
 */
const fractions = new WeakMap<object, Set<string>>();

export function markFraction(container: object, key: string | number): void {
  mark(fractions, container, key);
}

export function isFraction(container: object, key: string | number): boolean {
  return marked(fractions, container, key);
}

/** Marks `key` of `container` in one of the mark maps above (marks, fractions). */
function mark(map: WeakMap<object, Set<string>>, container: object, key: string | number): void {
  let keys = map.get(container);
  if (keys === undefined) map.set(container, (keys = new Set()));
  keys.add(String(key));
}

function marked(map: WeakMap<object, Set<string>>, container: object, key: string | number): boolean {
  return map.get(container)?.has(String(key)) ?? false;
}

/** A container copy (`to[toKey] = from[fromKey]`) keeps the marks. */
export function copyRespelled(from: object, fromKey: string | number, to: object, toKey: string | number): void {
  if (isRespelled(from, fromKey)) markRespelled(to, toKey);
  if (isFraction(from, fromKey)) markFraction(to, toKey);
}
