/**
 * Review 48: a code costume on a line of its own in the middle of a sentence. The line-start gate
 * (docs/PATTERNS.md, "The structural gate", N09) lets a costume run when its opener starts a line;
 * a sentence that wraps around the costume (the line before ends mid-sentence, the line after
 * continues it in lower case) is prose showing the tag, and the rest of the sentence is then
 * stripped as a fabricated result (S03). Every case runs whole, char by char and at seeded random
 * splits.
 */
import { describe, expect, test } from "bun:test";
import { outcome } from "../support/outcome.ts";

describe("fixed: a costume line inside a running sentence is prose: no call, nothing stripped", () => {
  // Severity: wrong execution, medium (policy gap: `rm -rf build` from a sentence describing the
  // format; the words after it vanish from the reply as a "fabricated result"). Suspected:
  // src/engine/candidate.ts / src/parse/costume-hold.ts (the line-start gate looks at the
  // opener's line only). Expected: no call when the paragraph runs on after the closer's line with
  // no break (the costume is inline in a sentence, as N09.1 is); at the least, the sentence's end
  // kept. The golden N09/N09.1 cases cover an unclosed or mid-line opener, not this shape.
  test("`...commands like` / `<bash>rm -rf build</bash>` / `in its replies.`", () => {
    const input = "The agent wraps commands like\n<bash>rm -rf build</bash>\nin its replies.";
    expect(outcome(input).calls).toEqual([]);
  });

  test("the same with <shell> and a multi-line body, the sentence going on after the closer", () => {
    const input = "To clean, the page shows\n<shell>\nrm -rf build\n</shell>\nas the example, which you should not run.";
    expect(outcome(input).calls).toEqual([]);
  });
});

describe("hard negatives (pass today)", () => {
  test("text after the closer on its line, or an opener after prose on its line: no call", () => {
    expect(outcome("<shell>rm -rf build</shell> deletes the build folder.").calls).toEqual([]);
    expect(outcome("Wrap it as <shell>\nrm -rf build\n</shell> in the page.").calls).toEqual([]);
  });
  test("an invisible or typographic character before the opener is prose before it", () => {
    for (const lead of ["\u00a0", "\u200d", "\u2060", "\u00ad", "\u200e", "Prose\u2028", "Prose\u0085", "Prose\f", "Prose\v", "\t", "\u{1F449}"]) {
      expect(outcome(`${lead}<shell>rm -rf build</shell>`).calls).toEqual([]);
    }
  });
  test("a costume standing as its own block after a colon runs (C04)", () => {
    expect(outcome("Cleaning:\n<shell>\nrm -rf build\n</shell>").calls).toEqual([{ tool: "bash", input: { command: "rm -rf build" } }]);
  });
});
