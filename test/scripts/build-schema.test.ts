import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { optionsSchemaPath, renderOptionsSchema } from "../../scripts/build-schema.ts";

type SchemaNode = { description?: string; default?: unknown; properties?: Record<string, SchemaNode>; [key: string]: unknown };

test("the committed schema equals freshly generated output (run: bun scripts/build-schema.ts)", () => {
  expect(readFileSync(optionsSchemaPath, "utf8")).toBe(renderOptionsSchema());
});

test("the schema names itself and documents every option with its default", () => {
  const root = JSON.parse(renderOptionsSchema()) as SchemaNode;
  expect(root.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  expect(root.title).toBeString();
  expect(root.description).toBeString();

  const undocumented: string[] = [];
  const visit = (properties: Record<string, SchemaNode>, prefix: string) => {
    for (const [name, node] of Object.entries(properties)) {
      const path = prefix + name;
      if (node.properties) {
        visit(node.properties, `${path}.`);
        if (!node.description) undocumented.push(path);
      } else if (node.default === undefined || !node.description?.endsWith(`Default: ${JSON.stringify(node.default)}.`)) {
        undocumented.push(path);
      }
    }
  };
  visit(root.properties ?? {}, "");
  expect(undocumented).toEqual([]);
});

test("unknown keys are forbidden at every level, as resolveOptions reports them", () => {
  const root = JSON.parse(renderOptionsSchema()) as SchemaNode;
  expect(root.additionalProperties).toBe(false);
  for (const node of Object.values(root.properties ?? {})) {
    if (node.properties) expect(node.additionalProperties).toBe(false);
  }
});
