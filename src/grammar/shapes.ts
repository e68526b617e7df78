/**
 * Every shape id a recovered or broken call can carry, by family letter. The ids name the rows of
 * docs/PATTERNS.md (test/docs/shapes.test.ts keeps the two in step), so a shape is never an
 * unchecked string: a typo in a dialect is a type error.
 */
export const SHAPES = [
  // A: another agent's tool name mapped onto the declared tool.
  "A01",
  // B: DSML blocks and their degraded variants.
  "B01", "B02", "B03", "B04", "B05", "B06", "B07",
  // C: fenceless code costumes.
  "C01", "C02", "C03", "C04", "C05", "C07",
  // D: DSML sentinel spellings.
  "D01", "D02", "D04", "D05", "D08",
  // I: invoke bodies (wrapped tools, raw JSON, runaway names, tool-named elements).
  "I01", "I02", "I03", "I04", "I05", "I06", "I09", "I10", "I11",
  // J: a JSON call standing alone.
  "J01",
  // L: legacy DeepSeek, Kimi and LFM2 tokens.
  "L01", "L02", "L04", "L05", "L06", "L07",
  // M: Mistral.
  "M01", "M02", "M03", "M04", "M05", "M06", "M07", "M08",
  // O: other models' formats.
  "O01", "O02", "O03", "O04", "O05", "O06", "O07", "O08", "O09",
  // P: parameters.
  "P01", "P02", "P03", "P04", "P05", "P06", "P08", "P09", "P10", "P11", "P12",
  // Q: typographic attribute quotes.
  "Q01",
  // S: what surrounds a call (post-call noise).
  "S02",
  // T: `<tool_call name=...>` and GLM's value closer.
  "T01", "T02",
  // W: Claude-style invokes with a lost or namespaced wrapper.
  "W01", "W02",
] as const;

export type Shape = (typeof SHAPES)[number];
