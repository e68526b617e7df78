/**
 * The encodings the model decodes when it quotes given content: HTML character references and
 * ASCII percent-escapes. The echo guard decodes them the same way on both sides, the given
 * content's and a call's values (given-content.ts). Its own file: a decoder with a table of
 * names, and no bearing on lines, Unicode or markup; docs/SECURITY.md names the encodings left out.
 */
import { HASH, SEMICOLON, hexDigitValue } from "../grammar/chars.ts";

/** Named references for the characters markup and commands are written with; numeric ones cover the rest. */
const NAMED: Record<string, string> = {
  lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: " ", sol: "/", bsol: "\\", verbar: "|", vert: "|", VerticalLine: "|",
  Vert: "\u2016", Verbar: "\u2016", lowbar: "_", equals: "=", colon: ":", semi: ";", comma: ",", period: ".", excl: "!",
  quest: "?", num: "#", dollar: "$", percnt: "%", ast: "*", midast: "*", plus: "+", hyphen: "-", dash: "-", grave: "`",
  lpar: "(", rpar: ")", lsqb: "[", rsqb: "]", lbrack: "[", rbrack: "]", lcub: "{", rcub: "}", lbrace: "{", rbrace: "}",
  tilde: "~", Hat: "^", commat: "@", Tab: "\t", NewLine: "\n",
  // HTML5's upper-case spellings of the same characters (some serializers and Word exports write them).
  LT: "<", GT: ">", AMP: "&", QUOT: '"',
  // Spaces: whitespace collapses each to one space, as a renderer shows them.
  NonBreakingSpace: "\u00a0", ensp: "\u2002", emsp: "\u2003", emsp13: "\u2004", emsp14: "\u2005", numsp: "\u2007",
  puncsp: "\u2008", thinsp: "\u2009", ThinSpace: "\u2009", hairsp: "\u200a", VeryThinSpace: "\u200a", MediumSpace: "\u205f",
};
/** The longest reference looked for, `&` to `;` (HTML5's longest name has 31 characters). */
const MAX_REFERENCE = 33;

/**
 * HTML character references and ASCII percent-escapes decoded, twice: a page that shows escaped
 * HTML source (`&amp;lt;shell&amp;gt;`) holds markup after two decodings, as JSON of JSON does
 * (given-content.ts jsonForms). Both sides (given content and a call's values) read it so.
 */
export function decodeEncodings(text: string, decodedQuote?: { value: boolean }): string {
  const once = decodeOnce(text, decodedQuote);
  return once === text ? text : decodeOnce(once, decodedQuote);
}

/**
 * HTML character references and ASCII percent-escapes decoded in one pass. Only references the
 * table or a number names are decoded, and only with their `;`; a percent-escape only below 0x80
 * (a multi-byte UTF-8 sequence is left as written). Anything else stays.
 */
function decodeOnce(text: string, decodedQuote?: { value: boolean }): string {
  let out = "";
  let from = 0;
  // The next `&` and `%`, each found once by indexOf (native) and looked for again only once passed.
  let amp = text.indexOf("&");
  let pct = text.indexOf("%");
  while (amp >= 0 || pct >= 0) {
    const i = amp < 0 ? pct : pct < 0 ? amp : Math.min(amp, pct);
    const decoded = i === amp ? reference(text, i) : percent(text, i);
    const next = decoded === null ? i + 1 : i + decoded.length;
    if (decoded !== null) {
      out += text.slice(from, i) + decoded.text;
      from = next;
      if (decodedQuote !== undefined && (decoded.text === '"' || decoded.text === "'" || decoded.text === "\\")) decodedQuote.value = true;
    }
    if (amp >= 0 && amp < next) amp = text.indexOf("&", next);
    if (pct >= 0 && pct < next) pct = text.indexOf("%", next);
  }
  return from === 0 ? text : out + text.slice(from);
}

function reference(s: string, at: number): { text: string; length: number } | null {
  // Looked for only this far: indexOf(";") would scan to the next `;` from every `&`, quadratic in a text of `&`s.
  let semi = at + 1;
  while (semi < s.length && semi - at <= MAX_REFERENCE && s.charCodeAt(semi) !== SEMICOLON) semi++;
  if (semi >= s.length || semi - at > MAX_REFERENCE || semi === at + 1) return null;
  const body = s.slice(at + 1, semi);
  let code: number;
  if (body.charCodeAt(0) === HASH) {
    const hex = body.charCodeAt(1) === 0x78 || body.charCodeAt(1) === 0x58;
    const digits = body.slice(hex ? 2 : 1);
    if (digits === "" || !allDigits(digits, hex ? 16 : 10)) return null;
    code = Number.parseInt(digits, hex ? 16 : 10);
    if (!(code > 0 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) return null;
    return { text: String.fromCodePoint(code), length: semi - at + 1 };
  }
  const named = Object.prototype.hasOwnProperty.call(NAMED, body) ? NAMED[body] : undefined;
  return named === undefined ? null : { text: named, length: semi - at + 1 };
}

function percent(s: string, at: number): { text: string; length: number } | null {
  const hi = hexDigitValue(s.charCodeAt(at + 1));
  const lo = hexDigitValue(s.charCodeAt(at + 2));
  if (hi < 0 || lo < 0 || hi > 7) return null;
  return { text: String.fromCharCode(hi * 16 + lo), length: 3 };
}

function allDigits(text: string, radix: number): boolean {
  for (let i = 0; i < text.length; i++) {
    const v = hexDigitValue(text.charCodeAt(i));
    if (v < 0 || v >= radix) return false;
  }
  return true;
}
