import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { HeldText } from "../../src/engine/held-text.ts";

/** One step an engine takes on its store: a delta stored, a delta released unseen, or a trim to what it holds. */
const op = fc.oneof(
  fc.record({ append: fc.string({ maxLength: 40, unit: "binary" }) }),
  fc.record({ skip: fc.nat({ max: 30 }) }),
  fc.record({ keep: fc.nat({ max: 6000 }) }),
);

describe("HeldText", () => {
  test("reads back exactly the kept characters at their offsets, and refuses what was let go", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.nat(), fc.nat(), (ops, a, b) => {
        const held = new HeldText();
        // The model: everything fed, with skipped text as NULs, and where the kept part begins.
        let fed = "";
        let keptFrom = 0;
        for (const step of ops) {
          if ("append" in step) {
            held.append(step.append);
            fed += step.append;
          } else if ("skip" in step) {
            // Only legal with nothing kept, as an engine skips only with nothing held.
            held.keepLast(0);
            held.skip(step.skip);
            fed += "\0".repeat(step.skip);
            keptFrom = fed.length;
          } else {
            const n = Math.min(step.keep, fed.length - keptFrom);
            held.keepLast(n);
            keptFrom = fed.length - n;
          }
          expect(held.end).toBe(fed.length);
        }
        const span = fed.length - keptFrom;
        const from = keptFrom + (span === 0 ? 0 : a % (span + 1));
        const to = from + (fed.length - from === 0 ? 0 : b % (fed.length - from + 1));
        expect(held.slice(from, to)).toBe(fed.slice(from, to));
        expect(held.slice(keptFrom)).toBe(fed.slice(keptFrom));
        if (keptFrom > 0) expect(() => held.slice(keptFrom - 1, fed.length)).toThrow(RangeError);
        expect(() => held.slice(keptFrom, fed.length + 1)).toThrow(RangeError);
      }),
      { numRuns: 500 },
    );
  });

  test("64K characters in 10-character deltas are kept in a few hundred strings, not one per delta", () => {
    const held = new HeldText();
    for (let i = 0; i < 6400; i++) {
      held.append(`${i}`.padStart(10, "x"));
      held.keepLast(held.end);
    }
    expect(held.end).toBe(64000);
    expect(held.strings).toBeLessThanOrEqual(6400 / 64 + 64);
  });

  test("what is let go is dropped for real once it outgrows what is kept: a long stream keeps only its held tail", () => {
    const held = new HeldText();
    for (let i = 0; i < 100_000; i++) {
      held.append("0123456789");
      held.keepLast(25);
    }
    expect(held.slice(held.end - 25)).toBe("56789" + "0123456789".repeat(2));
    // Stored: what is kept plus at most the slack before a drop, a few hundred strings at most.
    expect(held.strings).toBeLessThanOrEqual(Math.ceil((25 + 4096 + 25) / 10) + 1);
  });
});
