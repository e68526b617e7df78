/**
 * Every marker character is built from its code point so that no live DSML byte ever appears in
 * this repository (a DeepSeek model reading the source must not see raw markup).
 */
export const FULLWIDTH_BAR = String.fromCodePoint(0xff5c);
export const DOUBLE_VERTICAL_LINE = String.fromCodePoint(0x2016);
export const SENTENCEPIECE_SPACE = String.fromCodePoint(0x2581);

export const BAR_CODES: ReadonlySet<number> = new Set([0xff5c, 0x7c, 0x2016]);
export const CODE_LT = 0x3c;
export const CODE_GT = 0x3e;
export const CODE_SLASH = 0x2f;
export const CODE_NEWLINE = 0x0a;

/** The canonical DeepSeek sentinel written before every DSML tag name. */
export const DSML_SENTINEL = `${FULLWIDTH_BAR}DSML${FULLWIDTH_BAR}`;

/** Characters that can begin a marker outside documentation: `<`, or a bar when the `<` was lost. */
export function isTriggerCode(code: number): boolean {
  return code === CODE_LT || code === 0xff5c || code === 0x7c || code === 0x2016;
}

export function isBarCode(code: number): boolean {
  return code === 0xff5c || code === 0x7c || code === 0x2016;
}

/** A legacy DeepSeek special token, `<` + bar + words joined by U+2581 + bar + `>`. */
export function legacyToken(words: string): string {
  return `<${FULLWIDTH_BAR}${words.split(" ").join(SENTENCEPIECE_SPACE)}${FULLWIDTH_BAR}>`;
}
