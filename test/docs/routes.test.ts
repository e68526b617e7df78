import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { readCatalog, renderRouteTable, renderRoutesDoc, routesDocPath } from "../../scripts/build-routes.ts";

// A timeout, not a speed assertion: reading the catalog out of the OpenCode binary took 1.7 s in a
// quiet CI run and 5 s (bun's default limit) with other test runs on this 2-core machine.
test("docs/CONFIGURATION.md's route table matches OpenCode's built-in catalog and the plugin's scope rules", () => {
  const current = readFileSync(routesDocPath, "utf8");
  const catalog = readCatalog();
  expect(renderRoutesDoc(current, renderRouteTable(catalog))).toBe(current);
  // The catalog really is there: the example routes of issue 12 are in it.
  expect(Object.keys(catalog["fireworks-ai"]!.models)).toContain("accounts/fireworks/models/deepseek-v4p1-flash");
  expect(catalog.minimax!.npm).toBe("@ai-sdk/anthropic");
}, 30_000);
