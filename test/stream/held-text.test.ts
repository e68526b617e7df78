import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { HeldText } from "../../src/stream/held-text.ts";

describe("HeldText", () => {
  test("text() and from() read back exactly what was appended, from any offset", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40, unit: "binary" }), { maxLength: 300 }), fc.nat(), (pieces, at) => {
        const held = new HeldText();
        for (const piece of pieces) held.append(piece);
        const all = pieces.join("");
        const offset = all.length === 0 ? 0 : at % (all.length + 1);
        expect(held.length).toBe(all.length);
        expect(held.text()).toBe(all);
        expect(held.from(offset)).toBe(all.slice(offset));
      }),
      { numRuns: 300 },
    );
  });

  test("64K characters in 10-character deltas are kept in a few hundred strings, not one per delta", () => {
    const held = new HeldText();
    for (let i = 0; i < 6400; i++) held.append(`${i}`.padStart(10, "x"));
    expect(held.length).toBe(64000);
    expect(held.strings).toBeLessThanOrEqual(6400 / 64 + 64);
  });
});
