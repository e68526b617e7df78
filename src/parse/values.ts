import { COMMA, CR, DASH, DQ, LBRACE, LBRACKET, LF, RBRACE, RBRACKET, SP, TAB, isAsciiDigit, lineEndAt, lineEndBefore } from "../grammar/chars.ts";
import { denotesInteger, jsonNumberEnd, jsonStringEnd, numberReadsAsWritten, readNumberLiteral } from "../grammar/json-syntax.ts";
import { isObject, isPollutingKey } from "../grammar/plain-data.ts";
import { copyRespelled, isFraction, isRespelled, markFraction, markRespelled, respelled } from "../grammar/number-spelling.ts";
import type { JsonSchema } from "./types.ts";
import { parsePythonLiteral } from "./python-literal.ts";
import { UNFOLLOWED_PLACE, itemSchema, placeTypes, propertySchema } from "./schema-walk.ts";

export { UNFOLLOWED_PLACE, propertySchema };

/**
 * A value read from markup that names a prototype member (`__proto__`, `constructor`,
 * `prototype`) as a key: never put on an object (it would reach a prototype), nor dropped (the call
 * would run without what the model wrote), but left in the arguments as this token, which the
 * schema gate refuses whatever the schema (broken-markup), as it refuses a bigint.
 */
export const PROTOTYPE_KEY_WRITTEN: object = Object.freeze({});

/** Why a call whose markup names a prototype member as a key is refused (the name is one of three words: safe to show). */
export const PROTOTYPE_KEY_DETAIL = "an argument is named __proto__, constructor or prototype, which no call may carry";

/**
 * JSON.parse that never throws and never lets a prototype-polluting key through. Readings
 * JSON.parse would settle in silence are refused instead, because a call must run with what the
 * model wrote or not at all: an object that names a key twice (JSON.parse keeps the last, so
 * `{"command":"echo hi","command":"rm -rf ~"}` would run the second), a key that names a prototype
 * member at any depth (`prototypeKey`: JSON.parse would drop it, so the call would run without it; golden V47.1), and a
 * number too large to be one (`1e999` reads as Infinity, which a call would send on as null). An integer whose digits
 * would go out as others reads as a bigint (readNumberLiteral), which the schema gate refuses. A
 * number written in another spelling than its text (`6e2`, `1.0`) is marked where it sits
 * (grammar/number-spelling.ts), so it never goes out as that other text for a string parameter.
 */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; prototypeKey?: true } {
  try {
    const value: unknown = JSON.parse(text, readValue);
    const reading = readingOf(text);
    if (reading === "key-twice") return { ok: false };
    if (reading === "prototype-key") return { ok: false, prototypeKey: true };
    // The reviver sees only the rounded double, and no number's spelling: such text is read again, digits and all.
    return { ok: true, value: reading === "inexact" ? readExactly(text) : value };
  } catch {
    return { ok: false };
  }
}

// Drops a polluting key JSON.parse made an own property of (readingOf refuses the text anyway).
function readValue(key: string, value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError("a number out of range");
  return isPollutingKey(key) ? undefined : value;
}

// Whether valid JSON `text` names a key twice in an object (keys compare as they decode) or names a
// prototype member as a key, else whether a number in it does not read as a number (readNumberLiteral) or reads as one whose text
// is not the one written (`6e2`, `1.0`: the reading must mark it, readExactly).
function readingOf(text: string): "key-twice" | "prototype-key" | "inexact" | "plain" {
  // One set of keys per open object; null for an open array.
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  let inexact = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === DQ) {
      const end = jsonStringEnd(text, i);
      const keys = open.at(-1);
      if (keyNext && keys) {
        const key = JSON.parse(text.slice(i, end)) as string;
        if (keys.has(key)) return "key-twice";
        if (isPollutingKey(key)) return "prototype-key";
        keys.add(key);
      }
      keyNext = false;
      i = end - 1;
    } else if (c === DASH || isAsciiDigit(c)) {
      // Outside a string a digit only occurs in a number (true, false and null have none).
      const end = jsonNumberEnd(text, i);
      if (!inexact && !readsAsItsText(text.slice(i, end))) inexact = true;
      i = end - 1;
    } else if (c === LBRACE) {
      open.push(new Set());
      keyNext = true;
    } else if (c === LBRACKET) open.push(null);
    else if (c === RBRACE || c === RBRACKET) open.pop();
    else if (c === COMMA) keyNext = open.at(-1) instanceof Set;
  }
  return inexact ? "inexact" : "plain";
}

/** A number literal that reads as a number whose text is the one written (no bigint, no `6e2` or `1.0`). */
function readsAsItsText(literal: string): boolean {
  const number = readNumberLiteral(literal);
  return typeof number === "number" && !respelled(literal, number);
}

// Valid JSON `text` read as JSON.parse with readValue would, every number by readNumberLiteral, and
// each number whose text is not the one written marked where it sits (markRespelled). Only for the
// rare text with a bigint or such a spelling; a nesting too deep for the stack throws (text refused).
function readExactly(text: string): unknown {
  let i = 0;
  // The last number read was written in another spelling than its text.
  let respelledLast = false;
  // The last number read was written with a fraction though it reads as a whole double.
  let fractionLast = false;
  const mark = (container: object, key: string | number, item: unknown) => {
    if (typeof item !== "number") return;
    if (respelledLast) markRespelled(container, key);
    if (fractionLast) markFraction(container, key);
  };
  const skipSpace = () => {
    for (let c = text.charCodeAt(i); c === SP || c === TAB || c === LF || c === CR; c = text.charCodeAt(++i));
  };
  const string = (): string => {
    const end = jsonStringEnd(text, i);
    const s = JSON.parse(text.slice(i, end)) as string;
    i = end;
    return s;
  };
  const value = (): unknown => {
    skipSpace();
    const c = text.charCodeAt(i);
    if (c === DQ) return string();
    if (c === LBRACE || c === LBRACKET) {
      i++;
      const object: Record<string, unknown> | null = c === LBRACE ? {} : null;
      const array: unknown[] = [];
      skipSpace();
      if (text.charCodeAt(i) === (c === LBRACE ? RBRACE : RBRACKET)) {
        i++;
        return object ?? array;
      }
      for (;;) {
        if (object) {
          skipSpace();
          const key = string();
          skipSpace();
          i++; // the colon
          const item = value();
          if (!isPollutingKey(key)) {
            object[key] = item;
            mark(object, key, item);
          }
        } else {
          const item = value();
          array.push(item);
          mark(array, array.length - 1, item);
        }
        skipSpace();
        // A comma, or the closer.
        if (text.charCodeAt(i++) !== COMMA) return object ?? array;
      }
    }
    if (c === DASH || isAsciiDigit(c)) {
      const end = jsonNumberEnd(text, i);
      const literal = text.slice(i, end);
      i = end;
      const number = readNumberLiteral(literal);
      respelledLast = typeof number === "number" && respelled(literal, number);
      fractionLast = typeof number === "number" && Number.isInteger(number) && !denotesInteger(literal);
      return number;
    }
    const word = text.startsWith("true", i) ? true : text.startsWith("false", i) ? false : null;
    i += word === null ? 4 : word ? 4 : 5;
    return word;
  };
  return value();
}

/**
 * Issue 29 item 10: how many times an arguments object may arrive wrapped in a JSON string literal
 * beyond the usual JSON text (`"{\"todos\": [...]}"` once, or a literal whose text is itself one).
 * Models double-encode once, rarely twice; deeper nesting is not a pattern worth reading.
 */
const EXTRA_ENCODINGS = 2;

/**
 * The arguments object a JSON-bodied call carries: an object as it is, or a string of JSON text
 * for one, where that text may itself be a JSON string literal holding the object (double-encoded,
 * at most EXTRA_ENCODINGS deep). The one reader every JSON dialect's arguments pass through
 * (callOutcome, the legacy and named bodies, the DSML arguments wrapper), so double encoding is
 * handled once, not per dialect. Anything else (text that is no JSON, an array, a number) is null.
 */
export function argumentsObject(value: unknown): Record<string, unknown> | null {
  const read = readArguments(value);
  return read === "prototype-key" ? null : read;
}

/** argumentsObject, saying when the text was refused for a key that names a prototype member. */
export function readArguments(value: unknown): Record<string, unknown> | "prototype-key" | null {
  let current = value;
  for (let parses = 0; typeof current === "string" && parses <= EXTRA_ENCODINGS; parses++) {
    const parsed = parseJson(current.trim());
    if (!parsed.ok) return parsed.prototypeKey ? "prototype-key" : null;
    current = parsed.value;
  }
  return isObject(current) ? current : null;
}


const ENTITY = /&(?:amp|lt|gt|quot|apos|#39|#x27);/g;
/** What each reference ENTITY matches stands for (html-references.ts decodes the named ones the same way). */
export const ENTITY_TEXT: Readonly<Record<string, string>> = {
  "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&#39;": "'", "&#x27;": "'",
};

/**
 * P08: decode HTML entities only when the value is escaped throughout (it has an entity and no
 * raw `<`, `>` or bare `&`); a value that mixes raw and escaped text is content, e.g. an HTML file.
 */
export function decodeEntitiesIfEscaped(value: string): string {
  if (value.indexOf("&") < 0) return value;
  if (value.indexOf("<") >= 0 || value.indexOf(">") >= 0) return value;
  const withoutEntities = value.replace(ENTITY, "");
  if (withoutEntities.length === value.length || withoutEntities.indexOf("&") >= 0) return value;
  return decodeEntities(value);
}

export function decodeEntities(value: string): string {
  return value.replace(ENTITY, (m) => ENTITY_TEXT[m] ?? m);
}

/** P09: one newline (LF, CR LF or a lone CR) hugging both sides is layout, not content; a lone trailing newline is content. */
export function trimHuggingNewlines(value: string, indent: string | null = null): string {
  const lead = lineEndAt(value, 0);
  if (lead === 0) return value;
  const inner = value.slice(lead);
  const trail = lineEndBefore(inner);
  if (trail > 0) return inner.slice(0, -trail);
  // The closer on its own line after spaces or tabs (golden O48.5) (a call written in a list item's
  // continuation lines or an indented paragraph, `  <parameter=filePath>\n  a.md\n  </parameter>`):
  // that indentation is the container's, as CommonMark strips a list item's content indent. When
  // every non-blank line of the value starts with it, it is removed from each and the newlines
  // hugging the value are layout as at the top level; otherwise the value stays as written.
  const dedented = dedentToCloserLine(inner, indent);
  if (dedented !== null) return dedented;
  // A lone leading newline is content, as a lone trailing one is (a file that starts with a blank line).
  return value;
}

/**
 * The spaces and tabs before `at` on its line in `span` (the call markup's opener line
 * indentation), `before` (the indentation before the span's own opener, SpanContext.openerIndent)
 * when `at` stands on the span's first line, null when other text stands before it on its line.
 */
export function lineIndentBefore(span: string, at: number, before: string | null | undefined): string | null {
  let k = at - 1;
  while (k >= 0 && (span.charCodeAt(k) === SP || span.charCodeAt(k) === TAB)) k--;
  if (k < 0) return before === undefined || before === null ? null : before + span.slice(0, at);
  const c = span.charCodeAt(k);
  return c === 0x0a || c === 0x0d ? span.slice(k + 1, at) : null;
}

/**
 * `text` ends with a line end then only spaces or tabs (the indentation of the closer's line,
 * `indent`): each line before it without that leading `indent`, and without that last line end;
 * null when there is no such indentation or a non-blank line does not start with it (a line
 * indented less than the container's left it: which of its spaces are content is unknowable).
 * Blank lines may be shorter. Linear in the text.
 */
export function dedentToCloserLine(text: string, openerIndent: string | null): string | null {
  if (openerIndent === null) return null;
  let i = text.length;
  for (let c = text.charCodeAt(i - 1); i > 0 && (c === SP || c === TAB); c = text.charCodeAt(--i - 1));
  if (i === text.length) return null;
  const eol = lineEndBefore(text, i);
  if (eol === 0) return null;
  const indent = text.slice(i);
  // Only a container's indentation, which the call's own opener line has too, is
  // removed; at column 0 the lines' indentation is the file's (YAML, a Makefile recipe): kept, and
  // only the line end before the closer's line is layout (golden P48.9).
  if (openerIndent !== "" && indent !== openerIndent) return null;
  const cut = openerIndent === "" ? 0 : indent.length;
  const body = text.slice(0, i - eol);
  const lines = body.split(/(\r\n|\r|\n)/);
  for (let k = 0; k < lines.length; k += 2) {
    const line = lines[k]!;
    if (line.startsWith(indent)) lines[k] = line.slice(cut);
    else if (line.trim() !== "") return null;
    else if (cut > 0) lines[k] = "";
  }
  return lines.join("");
}

/**
 * Types a raw parameter text against the declared schema. `typedHint` is the model's own
 * `string=` attribute: "true" keeps the text, "false" asks for JSON, undefined lets the schema decide.
 */
export function coerceValue(raw: string, schema: JsonSchema | undefined, typedHint: "true" | "false" | undefined): unknown {
  const types = placeTypes(schema);
  // A place the schema walk gave up following takes types nobody here knows: no reading (the gate refuses the call).
  if (types === null) return UNFOLLOWED_PLACE;
  const trimmed = raw.trim();
  if (types.size === 0) {
    if (typedHint !== "false") return raw;
    const parsed = parseJson(trimmed);
    return parsed.ok ? parsed.value : parsed.prototypeKey ? PROTOTYPE_KEY_WRITTEN : raw;
  }
  // A place that takes a string keeps the raw text, whatever else it takes and however the schema
  // says so (a type array, anyOf/oneOf, allOf, a $ref: placeTypes): `string="false"` holding
  // `"echo a\nrm -rf ~"` is that text for `["string","null"]` as for `"string"`, never decoded
  // into two commands for one and kept as one quoted word for the other.
  if (types.has("string")) return raw;
  // JSON's number grammar: a leading zero (`0755`, a chmod mode meaning octal 493) is no number
  // here, so it stays text and the schema decides (a number parameter refuses it).
  const numberLiteral = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(trimmed);
  // A literal with a fraction is no integer, even where its double is whole (past 1e21): where
  // only an integer fits, it stays text, which the schema refuses (golden V47.3).
  if (numberLiteral && !types.has("number") && !denotesInteger(trimmed)) return raw;
  if ((types.has("number") || types.has("integer")) && numberLiteral) {
    const number = Number(trimmed);
    // `1e999` is no number a call can carry (Infinity goes on as null), nor an integer a JSON
    // number would send as other digits: it stays text, and the schema decides.
    if (numberReadsAsWritten(trimmed) && matchesTypes(number, types)) return number;
  }
  const word = LITERAL_WORDS.get(trimmed);
  if (word !== undefined && matchesTypes(word, types)) return word;
  const parsed = parseJson(trimmed);
  if (parsed.ok) return matchesTypes(parsed.value, types) ? parsed.value : raw;
  if (parsed.prototypeKey) return PROTOTYPE_KEY_WRITTEN;
  // Text-valued dialects are written by models that think in Python: `[True, None]`, `{'a': 1}`.
  // parseJson may have said no because the text names a key twice or holds `1e999`; the Python
  // reader refuses both too (src/parse/python-literal.ts), so this is never a way around it.
  if (types.has("array") || types.has("object")) {
    const literal = parsePythonLiteral(trimmed, schema);
    if (literal.ok && matchesTypes(literal.value, types)) return literal.value;
    if (!literal.ok && literal.prototypeKey) return PROTOTYPE_KEY_WRITTEN;
  }
  return raw;
}

/** Booleans and null as JSON and Python spell them (`true`, `True`, `None`); only for a schema that takes them. */
const LITERAL_WORDS = new Map<string, boolean | null>([
  ["true", true], ["True", true], ["TRUE", true],
  ["false", false], ["False", false], ["FALSE", false],
  ["null", null], ["None", null], ["NULL", null],
]);

function matchesTypes(value: unknown, types: Set<string>): boolean {
  if (value === null) return types.has("null");
  if (Array.isArray(value)) return types.has("array");
  switch (typeof value) {
    case "number":
      return types.has("number") || (types.has("integer") && Number.isInteger(value));
    case "boolean":
      return types.has("boolean");
    case "string":
      return types.has("string");
    case "object":
      return types.has("object");
    default:
      return false;
  }
}

/** Coerces every value of a JSON object body against the schema (string numbers to numbers, ...). */
export function coerceObject(input: Record<string, unknown>, schema: JsonSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const prop = propertySchema(schema, key);
    out[key] = typeof value === "string" && prop ? coerceValue(value, prop, undefined) : value;
    copyRespelled(input, key, out, key);
  }
  return out;
}

/**
 * coerceObject at every depth, following `properties` and the item schemas (itemSchema): a
 * string where the schema wants a number, boolean, null, array or object is typed by coerceValue
 * (JSON or Python spelling), and a boolean or safe integer where only a string fits becomes its
 * text; nothing else changes (null never becomes "", a scalar never an array). The schema gate
 * runs this before it validates.
 */
export function coerceDeep(value: unknown, schema: JsonSchema | undefined, depth = 0): unknown {
  if (!schema) return value;
  if (depth > MAX_COERCE_DEPTH) return pastDepth(value);
  // A place the schema walk gave up following: nothing in it can be read against it (the gate refuses the call).
  const types = placeTypes(schema);
  if (types === null) return UNFOLLOWED_PLACE;
  if (typeof value === "string") return coerceValue(value, schema, undefined);
  // A boolean or number where only a string fits is written back as text (600 -> "600"), but only
  // where that text is exactly what the model wrote; one rule for every number spelling, JSON's
  // and Python's (golden V44.1-V44.2): a safe integer other than -0 whose written text is String(value).
  // A number written in another spelling (`6e2`, `1e3`, `1.0`, `1.5e3`: the reader marked it,
  // grammar/number-spelling.ts; the callers below skip it) or any other number stays a number, for
  // ajv to refuse for a string parameter (invalid-arguments): String() would send "600" for `6e2`,
  // "12345678901234567000" for 12345678901234567890 (past 2^53, read rounded) and "1.1" for 1.10,
  // text the model never wrote (Python's own str(1e3) is "1000.0", another text again). A boolean
  // here was written `true`/`false` (JSON): the Python reader already gave a string-only place the
  // text `True` was written as ("True", parsePythonLiteral / parsePythonCalls with the schema).
  if (typeof value === "boolean" || (typeof value === "number" && Number.isSafeInteger(value) && !Object.is(value, -0))) {
    return types.has("string") && !matchesTypes(value, types) ? String(value) : value;
  }
  if (typeof value === "number") return value;
  if (Array.isArray(value)) return value.map((v, i) => {
    const item = itemSchema(schema, i);
    if (fractionAtInteger(value, i, item)) return NOT_AN_INTEGER;
    return item === undefined || keepsSpelling(value, i, v) ? v : coerceDeep(v, item, depth + 1);
  });
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const prop = propertySchema(schema, key);
    out[key] = fractionAtInteger(value, key, prop) ? NOT_AN_INTEGER : prop === undefined || keepsSpelling(value, key, v) ? v : coerceDeep(v, prop, depth + 1);
  }
  return out;
}

/** How deep coerceDeep follows a value beside its schema (its recursion ends here; pastDepth reads the rest). */
const MAX_COERCE_DEPTH = 32;

/**
 * A value below MAX_COERCE_DEPTH, left uncoerced (a string stays the text written, a number a
 * number: the gate's ajv refuses what does not fit), unless it holds a number written with a
 * fraction that reads as a whole double (review 52): whether its place takes only an integer is
 * not looked up this deep, so it is refused wherever it stands (NOT_AN_INTEGER, fail closed), as
 * it would be two levels deep. A loop over an explicit stack, so a value 100,000 levels deep costs
 * no call stack; each container below the bound is read once.
 */
function pastDepth(value: unknown): unknown {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (!Array.isArray(next) && !isObject(next)) continue;
    for (const [key, item] of Object.entries(next)) {
      if (isFraction(next, key)) return NOT_AN_INTEGER;
      pending.push(item);
    }
  }
  return value;
}

/**
 * A number written with a fraction that reads as a whole double (past 1e21, marked by its reader)
 * at a place that may take an integer and not any number, or whose schema is not known here (a
 * key no `properties` names: `additionalProperties` may make it an integer): fail closed.
 */
function fractionAtInteger(container: object, key: string | number, place: JsonSchema | undefined): boolean {
  if (!isFraction(container, key)) return false;
  const types = place === undefined ? null : placeTypes(place);
  return types === null || (types.has("integer") && !types.has("number"));
}

/** What coerceDeep leaves for a number written with a fraction where only an integer fits; the gate refuses it. */
export const NOT_AN_INTEGER: object = Object.freeze({});
export const NOT_AN_INTEGER_DETAIL = "a number written with a fraction is read as a whole number where only an integer fits";

/** A number its reader marked as written in another spelling than its text: coerceDeep leaves it as it is (a number). */
function keepsSpelling(container: object, key: string | number, value: unknown): boolean {
  return typeof value === "number" && isRespelled(container, key);
}
