/**
 * Marker characters are only ever built from code points, so no live DSML byte appears in this
 * repository (a DeepSeek model reading the source must not see raw markup).
 */
import { DOUBLE_VERTICAL_LINE, FULLWIDTH_BAR, LT, PIPE, SENTENCEPIECE_SPACE_CODE } from "./chars.ts";
export const SENTENCEPIECE_SPACE = String.fromCodePoint(SENTENCEPIECE_SPACE_CODE);


/** Characters that can begin a marker outside documentation: `<`, or a bar when the `<` was lost. */
export function isTriggerCode(code: number): boolean {
  return code === LT || isBarCode(code);
}

/** The sentinel's bars as models write them: fullwidth, ASCII, or double vertical line. */
export function isBarCode(code: number): boolean {
  return code === FULLWIDTH_BAR || code === PIPE || code === DOUBLE_VERTICAL_LINE;
}
