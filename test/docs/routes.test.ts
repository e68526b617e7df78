import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { readCatalog, readmePath, renderReadme, renderRouteTable } from "../../scripts/build-routes.ts";

test("README's route table matches OpenCode's built-in catalog and the plugin's scope rules", () => {
  const current = readFileSync(readmePath, "utf8");
  const catalog = readCatalog();
  expect(renderReadme(current, renderRouteTable(catalog))).toBe(current);
  // The catalog really is there: the example routes of issue 12 are in it.
  expect(Object.keys(catalog["fireworks-ai"]!.models)).toContain("accounts/fireworks/models/deepseek-v4p1-flash");
  expect(catalog.minimax!.npm).toBe("@ai-sdk/anthropic");
});
