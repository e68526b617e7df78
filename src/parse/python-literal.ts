import { denotesInteger, readNumberLiteral } from "../grammar/json-syntax.ts";
import { isObject, isPollutingKey } from "../grammar/plain-data.ts";
import { markFraction, markRespelled, respelled } from "../grammar/number-spelling.ts";
import { UNFOLLOWED_PLACE, itemSchema, placeTypes, propertySchema } from "./schema-walk.ts";
import type { JsonSchema } from "./types.ts";

/**
 * Python literals (strings, numbers, True/False/None, lists, dicts, tuples; `(x)` is x, as in
 * Python), read for LFM2's call lists (dialects/pythonic.ts, whose reader builds on this one) and
 * for a text value parseJson refuses (values.ts: coerceValue falls back to parsePythonLiteral).
 *
 * It refuses what parseJson (src/parse/values.ts) refuses, so a Python spelling is never a way
 * around the JSON reader: a dict key named twice (Python keeps the last in a dict; the call
 * reader refuses a repeated keyword the same way), and a number that is no finite double
 * (`1e999`, Infinity, would go on as null); numbers read as parseJson reads them
 * (readNumberLiteral). Numbers follow JSON's grammar: no leading zero (`0755` is a SyntaxError in
 * Python 3, and never the number 755).
 */

/** Reads Python literals from `s`, from `pos` on. */
export class PythonLiteralReader {
  pos = 0;
  /** The text named a prototype member (`__proto__`, `constructor`, `prototype`) as a key: refused, never dropped (golden V47.1 in JSON). */
  prototypeKey = false;
  constructor(protected readonly s: string) {}

  /** Refuses a key that names a prototype member, as parseJson does. */
  ownKey(key: string): void {
    if (!isPollutingKey(key)) return;
    this.prototypeKey = true;
    this.fail();
  }

  atEnd(): boolean {
    return this.pos === this.s.length;
  }

  fail(): never {
    throw new SyntaxError(`not a pythonic call list at ${this.pos}`);
  }

  ws(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos]!)) this.pos++;
  }

  eat(ch: string): boolean {
    this.ws();
    if (this.s[this.pos] === ch) {
      this.pos++;
      return true;
    }
    return false;
  }

  expect(ch: string): void {
    if (!this.eat(ch)) this.fail();
  }

  value(depth: number): unknown {
    if (depth > 32) this.fail();
    this.ws();
    const c = this.s[this.pos];
    if (c === "'" || c === '"') return this.string(c);
    // `u'ls'` is `'ls'` in Python 3 (the prefix is kept for Python 2 code); every other prefix
    // (r, b, f and their mixes) changes what the text means and is refused below.
    const quote = this.s[this.pos + 1];
    if ((c === "u" || c === "U") && (quote === "'" || quote === '"')) {
      this.pos++;
      return this.string(quote);
    }
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")";
      this.pos++;
      const items: unknown[] = [];
      if (this.eat(close)) return items;
      if (c === "(") {
        // Python: `(x)` is x, a parenthesised expression; only a comma makes a tuple (`(x,)`, `(a, b)`;
        // `()` above). Read as a one-item list, `paths=('src')` ran with ['src'], a list never written.
        const first = this.value(depth + 1);
        if (this.eat(")")) return first;
        this.expect(",");
        items.push(first);
      }
      do {
        if (this.eat(close)) return items;
        items.push(this.value(depth + 1));
      } while (this.eat(","));
      this.expect(close);
      return items;
    }
    if (c === "{") {
      this.pos++;
      const obj: Record<string, unknown> = {};
      // Keys read so far.
      const seen = new Set<string>();
      // A comma may follow the last entry (`{'a': 1,}`), as in Python; never stand alone (`{,}`).
      while (!this.eat("}")) {
        // Only a string key has a place in a JSON object: `{1: 'y'}` is refused, never read and dropped.
        const key = this.value(depth + 1);
        if (typeof key !== "string" || seen.has(key)) this.fail();
        this.ownKey(key);
        seen.add(key);
        this.expect(":");
        const value = this.value(depth + 1);
        obj[key] = value;
        if (!this.eat(",")) {
          this.expect("}");
          break;
        }
      }
      return obj;
    }
    const m = /^(?:True|False|None|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.s.slice(this.pos, this.pos + 64));
    if (!m) this.fail();
    this.pos += m[0].length;
    if (m[0] === "True" || m[0] === "False") return new PythonBool(m[0]);
    if (m[0] === "None") return null;
    const number = readNumberLiteral(m[0]);
    if (number === undefined) this.fail();
    return typeof number === "number" && respelled(m[0], number) ? new PythonNumber(number, Number.isInteger(number) && !denotesInteger(m[0])) : number;
  }

  /**
   * A Python string literal, every escape read as Python reads it: the single-character ones,
   * `\ooo` (one to three octal digits), `\xhh`, `\uXXXX`, `\UXXXXXXXX` and a backslash before a
   * line break (which removes both). `\N{name}` (a Unicode name this reader cannot look up), a
   * short hex escape, a code point past U+10FFFF and a surrogate (Python keeps it alone; JSON text
   * would pair it) are refused. Any other backslash stays as written, as in Python (`\d` is two
   * characters).
   *
   * Review 55: a raw LF or CR ends a single-quoted line in Python ("unterminated string
   * literal"), and a NUL is no source text at all; parseJson refuses all three raw in a string, so
   * they are refused here too, never a way around the JSON reader (a Qwen3-Coder array JSON
   * refused, re-read here). What Python keeps raw in a string (tab, form feed, U+2028, U+2029)
   * stays read; a line break after a backslash is a continuation (escape()).
   */
  string(quote: string): string {
    this.pos++;
    let out = "";
    while (this.pos < this.s.length) {
      const c = this.s[this.pos++]!;
      if (c === quote) return out;
      if (c === "\n" || c === "\r" || c === "\0") this.fail();
      if (c !== "\\") {
        out += c;
        continue;
      }
      out += this.escape();
    }
    return this.fail();
  }

  /** The text of the escape after a backslash (see string()). */
  private escape(): string {
    const e = this.s[this.pos++];
    // A NUL is no Python source even after a backslash (string()).
    if (e === undefined || e === "\0") this.fail();
    const single = PYTHON_ESCAPES.get(e);
    if (single !== undefined) return single;
    if (e === "\r") {
      if (this.s[this.pos] === "\n") this.pos++;
      return "";
    }
    if (e >= "0" && e <= "7") {
      let digits = e;
      while (digits.length < 3 && /[0-7]/.test(this.s[this.pos] ?? "")) digits += this.s[this.pos++];
      return String.fromCharCode(parseInt(digits, 8));
    }
    const hexLength = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (hexLength === 0) return e === "N" ? this.fail() : `\\${e}`;
    const hex = this.s.slice(this.pos, this.pos + hexLength);
    if (hex.length !== hexLength || !/^[0-9A-Fa-f]+$/.test(hex)) this.fail();
    this.pos += hexLength;
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail();
    return String.fromCodePoint(code);
  }
}


/**
 * A `True` or `False` as read, its spelling kept until the schema is known (settleLiteral). Where only a
 * string fits, coerceDeep writes a boolean back as JSON spells it (`true` -> "true", exact for a
 * JSON body); from Python that would be a spelling the model never wrote: `edit(oldString=True,
 * newString=False)` would replace the text `true`. The text Python gives it (str(True)) is what
 * was written, "True", so that is what a string-only place gets; everywhere else it is a boolean.
 */
class PythonBool {
  constructor(readonly text: "True" | "False") {}
}

/**
 * A number written in another spelling than the text it would go out as (`1e3`, `1.5e3`, `1.0`,
 * `1.50`): settleLiteral unwraps it to its value and marks its place (grammar/number-spelling.ts), so the
 * schema gate never sends it as other text for a string parameter ("1000" for `1e3`; Python's own
 * str(1e3) is "1000.0"): it stays a number there, and the string parameter refuses it, as it
 * refuses `0.1` (golden V44.2). The same rule as for a JSON body's `6e2` (values.ts coerceDeep).
 */
class PythonNumber {
  constructor(
    readonly value: number,
    /** Written with a fraction, read as a whole double (past 1e21): no integer (grammar/number-spelling.ts markFraction). */
    readonly fraction: boolean,
  ) {}
}

/**
 * `value` as read, every PythonBool settled against the schema of its place (propertySchema,
 * itemSchema, as coerceDeep walks), every PythonNumber unwrapped with its place marked.
 */
// The reader's nesting limit (value(), depth 32) bounds the recursion.
export function settleLiteral(value: unknown, schema: JsonSchema | undefined): unknown {
  if (value instanceof PythonBool) {
    const types = placeTypes(schema);
    // A place the schema walk gave up following: neither reading (the gate refuses the call).
    if (types === null) return UNFOLLOWED_PLACE;
    return types.has("string") && !types.has("boolean") ? value.text : value.text === "True";
  }
  if (value instanceof PythonNumber) return value.value;
  if (Array.isArray(value)) {
    const out = value.map((item, i) => settleLiteral(item, schema && itemSchema(schema, i)));
    value.forEach((item, i) => item instanceof PythonNumber && markNumber(out, i, item));
    return out;
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = settleLiteral(item, propertySchema(schema, key));
    if (item instanceof PythonNumber) markNumber(out, key, item);
  }
  return out;
}

function markNumber(container: object, key: string | number, number: PythonNumber): void {
  markRespelled(container, key);
  if (number.fraction) markFraction(container, key);
}

/** Python's one-character escapes; `\<newline>` is a line continuation (nothing). */
const PYTHON_ESCAPES = new Map<string, string>([
  ["\n", ""], ["\\", "\\"], ["'", "'"], ['"', '"'],
  ["a", "\x07"], ["b", "\b"], ["f", "\f"], ["n", "\n"], ["r", "\r"], ["t", "\t"], ["v", "\v"],
]);

/** One Python literal (list, dict, tuple, string, number, True/False/None) filling the whole text, settled against `schema`. */
export function parsePythonLiteral(text: string, schema?: JsonSchema): { ok: true; value: unknown } | { ok: false; prototypeKey?: true } {
  const reader = new PythonLiteralReader(text.trim());
  try {
    const value = reader.value(0);
    reader.ws();
    return reader.atEnd() ? { ok: true, value: settleLiteral(value, schema) } : { ok: false };
  } catch {
    return reader.prototypeKey ? { ok: false, prototypeKey: true } : { ok: false };
  }
}
