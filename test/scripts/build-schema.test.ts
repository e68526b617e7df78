import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { configSchemaPath, optionsSchemaPath, renderConfigSchema, renderOptionsSchema } from "../../scripts/build-schema.ts";

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

test("the committed opencode.json schema equals freshly generated output and points at the options schema", () => {
  expect(readFileSync(configSchemaPath, "utf8")).toBe(renderConfigSchema());
  const root = JSON.parse(renderConfigSchema());
  expect(root.allOf[0].$ref).toBe("https://opencode.ai/config.json");
  const tuple = root.properties.plugin.items.anyOf[1];
  expect(tuple.items[1].$ref).toBe("./options.schema.json");
  const ours = new RegExp(tuple.items[0].pattern);
  for (const spec of ["opencode-plugin-dsml-fix", "opencode-plugin-dsml-fix@0.1.0", "/abs/node_modules/opencode-plugin-dsml-fix"]) expect(ours.test(spec)).toBe(true);
  for (const spec of ["other-plugin", "opencode-plugin-dsml-fixer"]) expect(ours.test(spec)).toBe(false);
});
