// The shape ids (src/grammar/shapes.ts) and the catalogue (docs/PATTERNS.md) stay in step: every
// id the code can emit is documented and proved by a golden fixture, and a shape the code no
// longer emits is dropped from the list.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { SHAPES } from "../../src/grammar/shapes.ts";
import { fixtures } from "../golden/build-fixtures.ts";

const patterns = readFileSync(new URL("../../docs/PATTERNS.md", import.meta.url), "utf8");

test("every shape id is named in docs/PATTERNS.md", () => {
  expect(SHAPES.filter((shape) => !new RegExp(`\\b${shape}\\b`).test(patterns))).toEqual([]);
});

// A call carries its first shape only (a DSML call that is also naked grammar reports B05, not M08),
// so a shape is proved by a fixture that reports it or by the fixture named after it.
test("every shape id is proved by a golden fixture: one that reports it, or its own row", () => {
  const proved = new Set<string>(fixtures.flatMap((f) => [f.id, ...f.expect.calls.map((c) => c.shape), ...f.expect.broken]));
  expect(SHAPES.filter((shape) => !proved.has(shape))).toEqual([]);
});

test("the list has no duplicates and only ids of the form letter + two digits", () => {
  expect(new Set(SHAPES).size).toBe(SHAPES.length);
  expect(SHAPES.filter((shape) => !/^[A-Z][0-9]{2}$/.test(shape))).toEqual([]);
});
