/**
 * Strict JSON syntax, one character at a time: "bad" at the first character JSON.parse would
 * reject, "done" at the one that closes the outermost object or array. A body that must be JSON
 * (Hermes `<tool_call>`) proves it is only prose at its first wrong character, so a mention costs
 * no more holding than the text up to that character. Numbers are checked loosely (their
 * characters only); JSON.parse still decides them.
 */
import { BACKSLASH, COLON, CR, DASH, DOT, DQ, LBRACE, LBRACKET, LF, PLUS, RBRACKET, SP, TAB } from "./chars.ts";
export type JsonStep = "ok" | "bad" | "done";

/**
 * In JSON text already known to be valid, the index just past the string token that opens at
 * `at` (a `"`): the one skip every scanner that walks such text by tokens needs. A string's
 * contents are skipped by a native search for the next quote, not read character by character (a
 * request body is mostly strings: a conversation, base64 attachments): a quote closes the string
 * when an even number of backslashes stands right before it, each backslash counted once, for the
 * one quote after its run, so the whole text costs one pass. An unclosed string ends past the text.
 */
export function jsonStringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length + 1;
    let slashes = 0;
    for (let k = quote - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * A number literal in JSON's grammar as a call may carry it: undefined for no finite double
 * (`1e999`), a bigint for a number a JSON number would send on as another one (the schema gate
 * refuses it), else the number. The bigint is the integer the literal denotes, or, for one that
 * denotes none but reads as an integer (`1.0000000000000001`), the integer it reads as.
 */
export function readNumberLiteral(literal: string): number | bigint | undefined {
  const value = Number(literal);
  if (!Number.isFinite(value)) return undefined;
  let plain = true;
  for (let i = 0; i < literal.length && plain; i++) {
    const c = literal.charCodeAt(i);
    if (c === DOT || c === 0x65 || c === 0x45) plain = false;
  }
  // An integer is read exactly in Python, Go or Rust (behind the proxy), and JSON.stringify writes
  // the shortest digits of the double, zero-padded: 1234567890123456789 goes out ...800, 2^60 (a
  // double exactly) ...847000, 1e21 as 1e+21. -0 is 0 to every reader.
  if (plain) return literal === "-0" || String(value) === literal ? value : BigInt(literal);
  // A fraction or an exponent is a float to every reader, and a double that is no integer, or one
  // of 1e21 and more, goes out as a float again (`0.1`, `1.5e+300`): every reader gets the double
  // the literal reads as, the usual rounding of a decimal. An integer below 1e21 goes out as its
  // digits, which those readers read exactly: those digits must be the integer the literal denotes,
  // or `1234567890123456789.0` goes out as ...800 and `1.0000000000000001` as 1.
  // Below 1e21 is the literal's own magnitude, not its double's: `999999999999999999999.9` (no
  // integer) and `9.999999999999999999e20` (...999900) read as the double 1e21, which goes out as
  // 1e+21, neither what they denote: refused as `123456789012345678.5` is (golden V47.3, V47.4).
  if (!Number.isInteger(value) || !denotesBelowE21(literal)) return value;
  // What JSON.stringify writes: the shortest digits, or for the double 1e21 `1e+21`, no integer digits at all.
  const sent = Math.abs(value) < 1e21 ? BigInt(String(value)) : null;
  const denoted = denotedInteger(literal);
  if (sent === null) return denoted ?? BigInt(value);
  return denoted === sent ? value : (denoted ?? sent);
}

/** The decimal a number literal (JSON's grammar) denotes: its significant digits and the power of ten they are scaled by. */
function decimalOf(literal: string): { negative: boolean; digits: string; scale: number } {
  const negative = literal.charCodeAt(0) === DASH;
  const body = negative ? literal.slice(1) : literal;
  let e = body.indexOf("e");
  if (e < 0) e = body.indexOf("E");
  const mantissa = e < 0 ? body : body.slice(0, e);
  const exponent = e < 0 ? 0 : Number(body.slice(e + 1));
  const dot = mantissa.indexOf(".");
  const whole = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const fraction = dot < 0 ? "" : mantissa.slice(dot + 1);
  let digits = whole + fraction;
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 0x30) start++;
  digits = digits.slice(start);
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 0x30) end--;
  // The value is digits × 10^scale.
  const scale = exponent - fraction.length + (digits.length - end);
  return { negative, digits: digits.slice(0, end), scale };
}

/**
 * The literal denotes an integer: no non-zero digit after the point once its exponent is applied
 * (`1.5e1`, `100.0` do; `1000000000000000000000.5` does not, though it reads as the double 1e21).
 */
export function denotesInteger(literal: string): boolean {
  const { digits, scale } = decimalOf(literal);
  return digits === "" || scale >= 0;
}

/** The literal denotes a magnitude below 1e21 (digits × 10^scale has at most 21 integer digits). */
function denotesBelowE21(literal: string): boolean {
  const { digits, scale } = decimalOf(literal);
  return digits === "" || digits.length + scale <= 21;
}

/**
 * The integer a number literal (JSON's grammar, with a fraction or an exponent) denotes exactly,
 * or null when it denotes no integer, or one of more than 22 digits (no double below 1e21 reads
 * as it). Only the literal's own digits are turned into a bigint, never a power its exponent asks for.
 */
function denotedInteger(literal: string): bigint | null {
  const { negative, digits, scale } = decimalOf(literal);
  if (digits === "") return 0n;
  if (!Number.isFinite(scale) || scale < 0 || digits.length + scale > 22) return null;
  const integer = BigInt(digits) * 10n ** BigInt(scale);
  return negative ? -integer : integer;
}

export function numberReadsAsWritten(literal: string): boolean {
  return typeof readNumberLiteral(literal) === "number";
}

/** In valid JSON text, the index just past the number that opens at `at`. */
export function jsonNumberEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && isNumberCode(text.charCodeAt(i))) i++;
  return i;
}

const enum Expect {
  Value,
  /** After `{`: a key or `}`. */
  FirstKey,
  /** After `,` in an object: a key. */
  Key,
  Colon,
  /** After a value: `,` or the container's closer. */
  Next,
}

const isSpace = (c: number) => c === SP || c === TAB || c === LF || c === CR;
const isNumberCode = (c: number) => (c >= 0x30 && c <= 0x39) || c === DASH || c === PLUS || c === DOT || c === 0x65 || c === 0x45;
const LITERALS = ["true", "false", "null"];

export class JsonSyntax {
  /** Open containers, innermost last: `{` or `[`. */
  private readonly stack: number[] = [];
  private expect = Expect.Value;
  private inString = false;
  private stringIsKey = false;
  private escaped = false;
  private unicodeDigits = 0;
  private literal = "";
  private inNumber = false;

  step(c: number): JsonStep {
    if (this.inString) return this.stringStep(c);
    if (this.literal !== "") {
      if (c >= 0x61 && c <= 0x7a) {
        this.literal += String.fromCharCode(c);
        return LITERALS.some((l) => l.startsWith(this.literal)) ? "ok" : "bad";
      }
      if (!LITERALS.includes(this.literal)) return "bad";
      this.literal = "";
      this.expect = Expect.Next;
    } else if (this.inNumber) {
      if (isNumberCode(c)) return "ok";
      this.inNumber = false;
      this.expect = Expect.Next;
    }
    if (isSpace(c)) return "ok";
    switch (this.expect) {
      case Expect.Value:
        return this.valueStart(c);
      case Expect.FirstKey:
        if (c === 0x7d) return this.close(0x7b);
        return this.keyStart(c);
      case Expect.Key:
        return this.keyStart(c);
      case Expect.Colon:
        if (c !== COLON) return "bad";
        this.expect = Expect.Value;
        return "ok";
      case Expect.Next: {
        const top = this.stack[this.stack.length - 1];
        if (top === undefined) return "bad";
        if (c === 0x2c) {
          this.expect = top === LBRACE ? Expect.Key : Expect.Value;
          return "ok";
        }
        return c === 0x7d || c === RBRACKET ? this.close(c === 0x7d ? LBRACE : LBRACKET) : "bad";
      }
    }
  }

  private valueStart(c: number): JsonStep {
    if (c === LBRACE || c === LBRACKET) {
      this.stack.push(c);
      this.expect = c === LBRACE ? Expect.FirstKey : Expect.Value;
      return "ok";
    }
    // An empty array: `]` where its first value would start.
    if (c === RBRACKET && this.stack[this.stack.length - 1] === LBRACKET) return this.close(0x5b);
    if (this.stack.length === 0) return "bad";
    if (c === DQ) {
      this.inString = true;
      this.stringIsKey = false;
      return "ok";
    }
    if (c === DASH || (c >= 0x30 && c <= 0x39)) {
      this.inNumber = true;
      return "ok";
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.literal = String.fromCharCode(c);
      return "ok";
    }
    return "bad";
  }

  private keyStart(c: number): JsonStep {
    if (c !== DQ) return "bad";
    this.inString = true;
    this.stringIsKey = true;
    return "ok";
  }

  private stringStep(c: number): JsonStep {
    if (this.unicodeDigits > 0) {
      this.unicodeDigits--;
      return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66) ? "ok" : "bad";
    }
    if (this.escaped) {
      this.escaped = false;
      if (c === 0x75) this.unicodeDigits = 4;
      else if ("\"\\/bfnrt".indexOf(String.fromCharCode(c)) < 0) return "bad";
      return "ok";
    }
    if (c === BACKSLASH) this.escaped = true;
    else if (c === DQ) {
      this.inString = false;
      this.expect = this.stringIsKey ? Expect.Colon : Expect.Next;
    } else if (c < 0x20) return "bad";
    return "ok";
  }

  private close(open: number): JsonStep {
    if (this.stack.pop() !== open) return "bad";
    this.expect = Expect.Next;
    return this.stack.length === 0 ? "done" : "ok";
  }
}
