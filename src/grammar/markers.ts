/**
 * Marker characters are only ever built from code points, so no live DSML byte appears in this
 * repository (a DeepSeek model reading the source must not see raw markup).
 */
export const SENTENCEPIECE_SPACE = String.fromCodePoint(0x2581);

const FULLWIDTH_BAR = 0xff5c;
const DOUBLE_VERTICAL_LINE = 0x2016;
const ASCII_BAR = 0x7c;

/** Characters that can begin a marker outside documentation: `<`, or a bar when the `<` was lost. */
export function isTriggerCode(code: number): boolean {
  return code === 0x3c || isBarCode(code);
}

/** The sentinel's bars as models write them: fullwidth, ASCII, or double vertical line. */
export function isBarCode(code: number): boolean {
  return code === FULLWIDTH_BAR || code === ASCII_BAR || code === DOUBLE_VERTICAL_LINE;
}
