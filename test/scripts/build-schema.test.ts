import { describe, expect, test } from "bun:test";
import Ajv from "ajv";
import { parseJsonc } from "../../src/options/jsonc.ts";
import { resolveOptions } from "../../src/plugin/options.ts";
import { readFileSync } from "node:fs";
import { configSchemaPath, optionsSchemaPath, renderConfigSchema, renderOptionsSchema } from "../../scripts/build-schema.ts";

type SchemaNode = { description?: string; default?: unknown; properties?: Record<string, SchemaNode>; [key: string]: unknown };

test("the committed schema equals freshly generated output (run: bun scripts/build-schema.ts)", () => {
  expect(readFileSync(optionsSchemaPath, "utf8")).toBe(renderOptionsSchema());
});

test("the schema names itself and documents every option with its default", () => {
  const root = JSON.parse(renderOptionsSchema()) as SchemaNode;
  expect(root.$schema).toBe("http://json-schema.org/draft-07/schema#");
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
  const tuple = root.properties.plugin.items.anyOf[2];
  expect(tuple.items[1].$ref).toBe("./options.schema.json");
  const ours = new RegExp(tuple.items[0].pattern);
  for (const spec of ["opencode-plugin-dsml-fix", "opencode-plugin-dsml-fix@0.1.0", "/abs/node_modules/opencode-plugin-dsml-fix"]) expect(ours.test(spec)).toBe(true);
  for (const spec of ["other-plugin", "opencode-plugin-dsml-fixer"]) expect(ours.test(spec)).toBe(false);
});

describe("one draft throughout: ajv compiles both schemas and agrees with the plugin on README's example configs", () => {
  const options = JSON.parse(readFileSync(optionsSchemaPath, "utf8"));
  const config = JSON.parse(readFileSync(configSchemaPath, "utf8"));
  /** Strict ajv, the schemas at their shipped names so "./options.schema.json" resolves as an editor resolves it. */
  function validator() {
    const ajv = new Ajv({ strict: true, allErrors: true });
    ajv.addSchema({ $id: "https://opencode.ai/config.json", type: "object" }); // OpenCode's own schema, not ours to test
    ajv.addSchema({ ...options, $id: "file:///pkg/schema/options.schema.json" });
    return { config: ajv.compile({ ...config, $id: "file:///pkg/schema/opencode.schema.json" }), options: ajv.getSchema("file:///pkg/schema/options.schema.json")! };
  }

  test("both schemas are draft-07 and compile in ajv's strict mode", () => {
    expect([options.$schema, config.$schema]).toEqual(["http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema#"]);
    expect(() => validator()).not.toThrow();
  });

  // README's examples, and those of the pages it sends a user to for the details.
  const pages = ["README.md", "docs/CONFIGURATION.md", "docs/INSTALL.md"].map((file) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8"));
  const readmeExamples = [...pages[0]!.matchAll(/\n```jsonc?\n([\s\S]*?)\n```/g)].map((m) => m[1]!).filter((body) => body.includes('"plugin"'));
  const examples = pages.flatMap((page) => [...page.matchAll(/\n```jsonc?\n([\s\S]*?)\n```/g)].map((m) => m[1]!)).filter((body) => body.includes('"plugin"'));
  const ours = (entry: unknown): entry is [string, Record<string, unknown>] => Array.isArray(entry) && typeof entry[0] === "string" && /(^|\/)opencode-plugin-dsml-fix(@[^/]*)?$/.test(entry[0]);

  test("README's example configs are valid, and their options are what the plugin accepts without a problem", () => {
    expect(readmeExamples.length).toBeGreaterThanOrEqual(2);
    expect(examples.length).toBeGreaterThanOrEqual(4);
    const { config: valid } = validator();
    for (const body of examples) {
      const parsed = parseJsonc(body) as { plugin: unknown[] };
      expect({ body, errors: valid(parsed) ? null : valid.errors }).toEqual({ body, errors: null });
      for (const entry of parsed.plugin.filter(ours)) expect(resolveOptions(entry[1]).problems).toEqual([]);
    }
  });

  // The bad values a new user wrote (issue 31), each put into README's own examples.
  const BAD: Record<string, unknown>[] = [
    { denyTool: ["bash"] },
    { responseFix: { denyTool: ["bash"] } },
    { responseFix: { bufferLimit: 5 } },
    { providers: "deepseek" },
    { retry: { channel: "sideways" } },
    { debug: "yes" },
    { parse: { dialects: { qwen: true } } },
  ];

  test("each bad option makes README's examples invalid for the schema, and the plugin reports it too", () => {
    const { config: valid, options: validOptions } = validator();
    for (const body of examples) {
      const parsed = parseJsonc(body) as { plugin: unknown[] };
      const at = parsed.plugin.findIndex(ours);
      if (at < 0) continue;
      for (const bad of BAD) {
        const entry = parsed.plugin[at] as [string, Record<string, unknown>];
        const broken = { ...parsed, plugin: parsed.plugin.map((e, i) => (i === at ? [entry[0], { ...entry[1], ...bad }] : e)) };
        expect({ bad, valid: valid(broken) }).toEqual({ bad, valid: false });
        expect({ bad, valid: validOptions(bad) }).toEqual({ bad, valid: false });
        expect(resolveOptions(bad).problems.length).toBeGreaterThan(0);
      }
    }
  });
});
