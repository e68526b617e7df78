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

/**
 * Characters drawn like the sentinel's bars that the grammar does not read as bars (box drawing,
 * math and letter-like vertical lines, broken bars): golden S02.5 with its bars written as U+2502.
 * No call is read from a tag written with them (the tag grammar stays as it is), but text mode's
 * stray-parameter watch, a quoted call's tags, a value opened outside any readable call
 * (loose-value.ts) and the runaway rule (parse/unread-opener.ts) read through them: one set, here,
 * so the rules that weigh a parameter opener agree on its spellings. All in the BMP: folding one
 * into a bar keeps every offset.
 */
const BAR_LOOKALIKES = new Set([0x00a6, 0x01c0, 0x01c1, 0x05c0, 0x2223, 0x2225, 0x23d0, 0x2502, 0x2503, 0x2551, 0x2758, 0x4e28, 0xffe4, 0xffe8]);

/** The smallest lookalike: ASCII (every `<` of code) is turned down by one comparison, before the set. */
const FIRST_LOOKALIKE = 0x00a6;

export function isBarLookalike(code: number): boolean {
  return code >= FIRST_LOOKALIKE && BAR_LOOKALIKES.has(code);
}

/** A bar as a degraded parameter opener may be written: one of the sentinel's bars or a lookalike. */
export function isOpenerBarCode(code: number): boolean {
  return isBarCode(code) || isBarLookalike(code);
}

/**
 * `DSML` with at most one edit (a letter lost, added or changed, or two neighbours swapped), any
 * case: `DSL`, `DSM`, `DMSL`, `DSLM`, `DSMLL`. Only such a word stands between a garbled closer's bars (dialects/dsml/garbled-closer.ts) or a
 * degraded opener's (parse/unread-opener.ts).
 */
export function dsmlLike(word: string): boolean {
  const w = word.toLowerCase();
  const t = "dsml";
  if (w.length === 4) {
    const diff: number[] = [];
    for (let i = 0; i < 4; i++) if (w[i] !== t[i]) diff.push(i);
    if (diff.length <= 1) return true;
    const [a, b] = diff as [number, number];
    return diff.length === 2 && b === a + 1 && w[a] === t[b] && w[b] === t[a];
  }
  if (w.length === 3) return [0, 1, 2, 3].some((i) => t.slice(0, i) + t.slice(i + 1) === w);
  if (w.length === 5) return [0, 1, 2, 3, 4].some((i) => w.slice(0, i) + w.slice(i + 1) === t);
  return false;
}
