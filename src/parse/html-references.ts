import { hexDigitValue } from "../grammar/chars.ts";
import { ENTITY_TEXT } from "./values.ts";

// HTML costumes' character references, on their own: values.ts (JSON and value readers) had no
// room for them under the 500-line limit, and the HTML rules (numeric references, the legacy names
// a page decodes without their `;`) concern the costumes (costume.ts, costume-xml.ts) alone.

/**
 * Every character reference in an HTML costume's code (`<pre><code>`, the XML execute costume) as
 * a page shows it: the named ones ENTITY knows, and any numeric one (`&#47;`, `&#x2F;`, which
 * escapers write for `/`). A `&#` left raw reaches bash as `&` (run in the background) and a
 * comment, so `rm -rf build&#47;cache` would remove `build`. null when a reference names no
 * character the code could mean: a numeric one without its `;` or digits, one to 0, a surrogate,
 * a control character but tab, LF and CR, or past U+10FFFF, or a named one ENTITY does not know
 * (`&nbsp;`, `&copy;`): the costume is refused rather than run with a guess.
 *
 * Review 56, finding 2: a legacy name without its `;` (`&gt/dev/null`, `&amp&amp`, `&copy`, and
 * `&notes`, which a page shows as `¬es`: HTML matches the longest legacy name the letters start
 * with) is decoded by a page and left raw by the model's reader, so which one the model meant is
 * unknowable: refused too, like the numeric case. A `&` before no reference (`a && b`,
 * `&>/dev/null`, `a&b`, `&x`) is the code's own.
 */
export function decodeHtmlReferences(value: string): string | null {
  if (value.indexOf("&") < 0) return value;
  let refused = false;
  const out = value.replace(REFERENCE, (m: string, hex: string | undefined, digits: string | undefined, semicolon: string | undefined, named: string | undefined, namedSemicolon: string | undefined) => {
    if (named !== undefined) {
      if (namedSemicolon !== ";") {
        if (startsWithLegacyName(named)) refused = true;
        return m;
      }
      const known = ENTITY_TEXT[m];
      if (known === undefined) refused = true;
      return known ?? m;
    }
    const point = semicolon === ";" ? codePointOf(digits ?? "", hex !== undefined) : null;
    if (point === null) refused = true;
    return point === null ? m : String.fromCodePoint(point);
  });
  return refused ? null : out;
}

/**
 * The names WHATWG HTML's named character reference table lists without their `;` (the legacy
 * set, 106 names, as the `entities` package's maps/legacy.json): in text a page decodes each of
 * them with or without the `;`, whatever letters follow. Case matters (`&AMP` is one, `&Amp` none).
 */
const LEGACY_NAMES: ReadonlySet<string> = new Set(
  ("AElig AMP Aacute Acirc Agrave Aring Atilde Auml COPY Ccedil ETH Eacute Ecirc Egrave Euml GT Iacute Icirc Igrave Iuml " +
    "LT Ntilde Oacute Ocirc Ograve Oslash Otilde Ouml QUOT REG THORN Uacute Ucirc Ugrave Uuml Yacute aacute acirc acute aelig " +
    "agrave amp aring atilde auml brvbar ccedil cedil cent copy curren deg divide eacute ecirc egrave eth euml frac12 frac14 " +
    "frac34 gt iacute icirc iexcl igrave iquest iuml laquo lt macr micro middot nbsp not ntilde oacute ocirc ograve ordf ordm " +
    "oslash otilde ouml para plusmn pound quot raquo reg sect shy sup1 sup2 sup3 szlig thorn times uacute ucirc ugrave uml " +
    "uuml yacute yen yuml").split(" "),
);
/** The shortest and longest legacy names (`gt`, `frac12`): only prefixes of these lengths are looked up. */
const LEGACY_MIN = 2;
const LEGACY_MAX = 6;

/** A page reads a legacy reference from the letters after `&` when they start with a legacy name. */
function startsWithLegacyName(letters: string): boolean {
  for (let n = LEGACY_MIN; n <= LEGACY_MAX && n <= letters.length; n++) if (LEGACY_NAMES.has(letters.slice(0, n))) return true;
  return false;
}

/** A digit's value in base 10 or 16, or -1. */
function digitValue(c: number, hex: boolean): number {
  const value = hexDigitValue(c);
  return value < (hex ? 16 : 10) ? value : -1;
}

/** `&#` then an optional `x`, the digits (letters too, so a malformed one is seen whole) and `;`; or `&name` and its `;` if any. */
const REFERENCE = /&(?:#([xX])?([0-9A-Za-z]*)(;?)|([A-Za-z][A-Za-z0-9]*)(;?))/g;

/** The code point a numeric reference's digits name, or null: not digits of its base, 0, a surrogate, a control but TAB/LF/CR, or past U+10FFFF. */
function codePointOf(digits: string, hex: boolean): number | null {
  if (digits === "") return null;
  let point = 0;
  for (let i = 0; i < digits.length; i++) {
    const value = digitValue(digits.charCodeAt(i), hex);
    if (value < 0) return null;
    point = point * (hex ? 16 : 10) + value;
    // Leading zeros are allowed (`&#0047;`); past U+10FFFF it stays past whatever follows.
    if (point > 0x10ffff) return null;
  }
  if (point === 0 || (point >= 0xd800 && point <= 0xdfff)) return null;
  const control = point < 0x20 || (point >= 0x7f && point <= 0x9f);
  return control && point !== 0x09 && point !== 0x0a && point !== 0x0d ? null : point;
}
