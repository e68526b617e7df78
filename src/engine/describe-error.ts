// Debug lines that never quote argument text.

/**
 * Error messages can quote the text that failed (JSON.parse does), and that text may be a tool
 * argument: debug lines keep the error's name and its wording up to the first quote character of
 * any kind, and nothing after it. No pairing of quotes: Node.js writes JSON.parse errors as
 * `Unexpected token ''', "'<input>'" is not valid JSON`, where the token is itself a quote and the
 * input may hold quotes of its own, so any rule that looks for where a quoted span ends can be
 * led to print the input. Only what comes before the first quote is the error's own wording.
 */
export function describeError(error: unknown): string {
  try {
    const name = error instanceof Error ? safeName(error.name) : typeof error;
    const message = error instanceof Error ? error.message : String(error);
    return `${name}: ${beforeFirstQuote(String(message))}`;
  } catch {
    return "an error that could not be described";
  }
}

const MESSAGE_LIMIT = 160;
const NAME_LIMIT = 64;

/** An error class's name (`SyntaxError`, `TypeError`, a subclass's): letters, digits, `_` and `$`. */
function safeName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0 || name.length > NAME_LIMIT) return "Error";
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    const digit = c >= 0x30 && c <= 0x39;
    if (!letter && !(digit && i > 0) && c !== 0x5f && c !== 0x24) return "Error";
  }
  return name;
}

/** Every character that opens a quotation in some script or convention. */
function isQuote(c: number): boolean {
  return (
    c === 0x22 || // "
    c === 0x27 || // '
    c === 0x60 || // `
    c === 0xab || // «
    c === 0xbb || // »
    c === 0xb4 || // acute accent, used as an apostrophe
    (c >= 0x2018 && c <= 0x201f) || // ‘ ’ ‚ ‛ “ ” „ ‟
    c === 0x2032 || c === 0x2033 || // prime, double prime
    c === 0x2039 || c === 0x203a || // ‹ ›
    c === 0x2e42 ||
    (c >= 0x300c && c <= 0x300f) || // CJK corner brackets
    (c >= 0x301d && c <= 0x301f) ||
    (c >= 0xfe41 && c <= 0xfe44) ||
    c === 0xff02 || c === 0xff07 || // fullwidth " '
    c === 0xff62 || c === 0xff63
  );
}

function beforeFirstQuote(message: string): string {
  let out = "";
  for (let i = 0; i < message.length; i++) {
    const c = message.charCodeAt(i);
    if (isQuote(c)) return `${out}${message[i]}...`;
    if (out.length >= MESSAGE_LIMIT) return `${out}...`;
    out += c === 0x0a || c === 0x0d ? " " : message[i];
  }
  return out;
}
