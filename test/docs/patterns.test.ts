import { expect, test } from "bun:test";
import { patternsPath, renderPatterns } from "../../scripts/build-patterns.ts";

test("docs/PATTERNS.md shape table matches the golden fixtures", async () => {
  const current = await Bun.file(patternsPath).text();
  expect(renderPatterns(current)).toBe(current);
});
