/**
 * README's runtime dependency tree is the one package-lock.json pins (the packaging test checks a
 * real install against the same list). Regenerate with: bun scripts/runtime-deps.ts
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { readManifest, renderRuntimeTree } from "../../scripts/runtime-deps.ts";

test("README's runtime dependency tree equals the lockfile's (run: bun scripts/runtime-deps.ts)", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const opener = `\`\`\`text\n${readManifest().name}\n`;
  const start = readme.indexOf(opener);
  expect(start).toBeGreaterThan(-1);
  const body = readme.slice(start + "```text\n".length, readme.indexOf("\n```", start + opener.length));
  expect(body).toBe(renderRuntimeTree());
});

test("the runtime tree holds only zod, fast-xml-parser and what they need", () => {
  const tree = renderRuntimeTree();
  const direct = tree.split("\n").filter((line) => /^[├└]── /.test(line)).map((line) => line.slice(4).replace(/@[^@]+$/, ""));
  expect(direct).toEqual(["fast-xml-parser", "zod"]);
});
